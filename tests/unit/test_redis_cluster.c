/*
 * Tests for redis/cluster.c: the key slot (CRC16 XMODEM, hash tags) against
 * the cluster specification's values, INFO cluster, CLUSTER SLOTS reply
 * trees built by hand as hiredis returns them, and MOVED/ASK errors.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_REDIS

#include "collectors/redis/redis.h"

static void
test_crc16(void **state)
{
    (void)state;
    assert_int_equal(redis_crc16("123456789", 9), 0x31C3);
    assert_int_equal(redis_crc16("", 0), 0);
}

static void
test_slot(void **state)
{
    (void)state;
    assert_int_equal(redis_key_slot("foo", 3), 12182);
    assert_int_equal(redis_key_slot("bar", 3), 5061);
    assert_int_equal(redis_key_slot("{user1000}.following", 20),
                     redis_key_slot("{user1000}.followers", 20));
    assert_int_equal(redis_key_slot("{user1000}.following", 20), redis_key_slot("user1000", 8));
    /* The first '{' and the next '}': "foo{{bar}}" hashes "{bar". */
    assert_int_equal(redis_key_slot("foo{{bar}}", 10), redis_key_slot("{bar", 4));
    /* "{}" is not a tag: the whole key is hashed. */
    assert_int_equal(redis_key_slot("foo{}{bar}", 10), redis_crc16("foo{}{bar}", 10) & 16383);
    /* No '}' after the '{': the whole key. */
    assert_int_equal(redis_key_slot("{foo", 4), redis_crc16("{foo", 4) & 16383);
    assert_int_equal(redis_key_slot("a{b}c", 5), redis_key_slot("b", 1));
}

static void
test_info_cluster(void **state)
{
    static const char on[] = "# Cluster\r\ncluster_enabled:1\r\n";
    static const char off[] =
        "# Server\r\nredis_version:7.0.15\r\n# Cluster\r\ncluster_enabled:0\r\n";

    (void)state;
    assert_int_equal(redis_info_cluster_enabled(on, sizeof on - 1), 1);
    assert_int_equal(redis_info_cluster_enabled(off, sizeof off - 1), 0);
    assert_int_equal(redis_info_cluster_enabled("", 0), 0);
    assert_int_equal(redis_info_cluster_enabled("cluster_enabled:", 16), 0);
}

/* Reply trees built by hand: integers, strings and arrays as hiredis makes them. */
static redisReply pool[64];
static redisReply *ptrs[64];
static int used;

static redisReply *
r_int(long long v)
{
    redisReply *r = &pool[used++];

    memset(r, 0, sizeof *r);
    r->type = REDIS_REPLY_INTEGER;
    r->integer = v;
    return r;
}

static redisReply *
r_str(const char *s)
{
    redisReply *r = &pool[used++];

    memset(r, 0, sizeof *r);
    r->type = REDIS_REPLY_STRING;
    r->str = (char *)s;
    r->len = strlen(s);
    return r;
}

static redisReply *
r_arr(int n, ...)
{
    redisReply *r = &pool[used++];
    va_list ap;

    memset(r, 0, sizeof *r);
    r->type = REDIS_REPLY_ARRAY;
    r->elements = (size_t)n;
    r->element = &ptrs[used];
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        r->element[i] = va_arg(ap, redisReply *);
    va_end(ap);
    used += n; /* element[] takes the next n pointer slots */
    return r;
}

static redisReply *
entry(long long from, long long to, const char *host, long long port)
{
    redisReply *m = r_arr(3, r_str(host), r_int(port), r_str("id"));

    return r_arr(3, r_int(from), r_int(to), m);
}

static void
test_slots(void **state)
{
    static struct redis_slot_map m;
    char err[256];
    redisReply *r;

    (void)state;
    used = 0;
    r = r_arr(3, entry(0, 5460, "127.0.0.1", 7001), entry(5461, 10922, "127.0.0.1", 7002),
              entry(10923, 16383, "127.0.0.1", 7003));
    assert_int_equal(redis_slot_map_parse(r, &m, err), 0);
    assert_int_equal(m.nnodes, 3);
    assert_int_equal(m.node[m.slot[0]].port, 7001);
    assert_int_equal(m.node[m.slot[5461]].port, 7002);
    assert_int_equal(m.node[m.slot[12182]].port, 7003);
    assert_string_equal(m.node[m.slot[16383]].host, "127.0.0.1");

    /* A slot left without a master. */
    used = 0;
    r = r_arr(2, entry(0, 5460, "127.0.0.1", 7001), entry(5462, 16383, "127.0.0.1", 7002));
    assert_int_equal(redis_slot_map_parse(r, &m, err), -1);
    assert_non_null(strstr(err, "slot 5461"));

    /* Out of range, and not an array. */
    used = 0;
    r = r_arr(1, entry(0, 16384, "127.0.0.1", 7001));
    assert_int_equal(redis_slot_map_parse(r, &m, err), -1);
    assert_int_equal(redis_slot_map_parse(r_int(1), &m, err), -1);
    assert_int_equal(redis_slot_map_parse(NULL, &m, err), -1);
}

static void
test_redirect(void **state)
{
    struct redis_redirect d;
    static const char moved[] = "MOVED 3999 127.0.0.1:6381";
    static const char ask[] = "ASK 12182 [::1]:7002";

    (void)state;
    assert_int_equal(redis_redirect_parse(moved, sizeof moved - 1, &d), 0);
    assert_int_equal(d.ask, 0);
    assert_int_equal(d.slot, 3999);
    assert_string_equal(d.host, "127.0.0.1");
    assert_int_equal(d.port, 6381);
    assert_int_equal(redis_redirect_parse(ask, sizeof ask - 1, &d), 0);
    assert_int_equal(d.ask, 1);
    assert_int_equal(d.slot, 12182);
    assert_string_equal(d.host, "[::1]");
    assert_int_equal(d.port, 7002);
    assert_int_equal(redis_redirect_parse("ERR unknown", 11, &d), -1);
    assert_int_equal(redis_redirect_parse("MOVED 16384 h:1", 15, &d), -1);
    assert_int_equal(redis_redirect_parse("MOVED 1 h", 9, &d), -1);
    assert_int_equal(redis_redirect_parse("MOVED 1 h:x", 11, &d), -1);
    assert_int_equal(redis_redirect_parse("MOVED 1 :1", 10, &d), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc16),        cmocka_unit_test(test_slot),
        cmocka_unit_test(test_info_cluster), cmocka_unit_test(test_slots),
        cmocka_unit_test(test_redirect),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int
main(void)
{
    puts("redis_cluster: skipped (built without hiredis)");
    return 0;
}

#endif
