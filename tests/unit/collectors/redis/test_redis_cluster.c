/*
 * Tests for redis/cluster.c: the key slot (CRC16 XMODEM, hash tags) against
 * the cluster specification's values, INFO cluster, CLUSTER SLOTS reply
 * trees built by hand as hiredis returns them, MOVED/ASK errors, and the
 * collector's figures from every master's INFO (redis/nodes.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/skip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_REDIS

#include "collectors/redis/redis.h"
#include "collectors/shared/kv.h"
#include "engine/collector.h"

#include <math.h>

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

/* The key a command is routed by: EVAL's first key after numkeys, another command's first word. */
static void
test_resp_route(void **state)
{
    static const char eval[] = "*5\r\n$4\r\nEVAL\r\n$3\r\nret\r\n$1\r\n1\r\n$5\r\nkey:7\r\n"
                               "$1\r\nx\r\n";
    static const char none[] = "*3\r\n$7\r\nevalsha\r\n$2\r\nab\r\n$1\r\n0\r\n";
    static const char fcall[] = "*4\r\n$5\r\nFCALL\r\n$1\r\nf\r\n$2\r\n12\r\n$1\r\nk\r\n";
    static const char get[] = "*2\r\n$3\r\nGET\r\n$3\r\nfoo\r\n*1\r\n$4\r\nPING\r\n";
    const char *key;
    size_t klen;

    (void)state;
    assert_int_equal(redis_resp_route(eval, sizeof eval - 1, &key, &klen), sizeof eval - 1);
    assert_int_equal(klen, 5);
    assert_memory_equal(key, "key:7", 5);
    assert_int_equal(redis_resp_route(none, sizeof none - 1, &key, &klen), sizeof none - 1);
    assert_null(key);
    assert_int_equal(redis_resp_route(fcall, sizeof fcall - 1, &key, &klen), sizeof fcall - 1);
    assert_int_equal(klen, 1);
    assert_int_equal(key[0], 'k');
    /* two commands back to back: the first's length, then the second (no key) */
    assert_int_equal(redis_resp_route(get, sizeof get - 1, &key, &klen), 22);
    assert_memory_equal(key, "foo", 3);
    assert_int_equal(redis_resp_route(get + 22, sizeof get - 23, &key, &klen), sizeof get - 23);
    assert_null(key);
    assert_int_equal(redis_resp_route(eval, 20, &key, &klen), 0); /* cut short */
    assert_int_equal(redis_resp_route("$3\r\nGET\r\n", 9, &key, &klen), 0);
}

/* A map of three masters as `redis-cli --cluster create` splits the slots. */
static void
three_masters(struct redis_slot_map *m)
{
    memset(m, 0, sizeof *m);
    m->nnodes = 3;
    for (int i = 0; i < 3; i++) {
        snprintf(m->node[i].host, sizeof m->node[i].host, "127.0.0.1");
        m->node[i].port = 7000 + i;
    }
    for (int s = 0; s < REDIS_SLOTS; s++)
        m->slot[s] = (int16_t)(s <= 5460 ? 0 : s <= 10922 ? 1 : 2);
}

static void
test_slot_set(void **state)
{
    struct redis_slot_map m;
    struct redis_slot_set set;
    int n = 0;

    (void)state;
    three_masters(&m);
    redis_slot_set_of(&m, 1, &set);
    for (int s = 0; s < REDIS_SLOTS; s++)
        n += redis_slot_set_has(&set, s);
    assert_int_equal(n, 10922 - 5461 + 1);
    assert_false(redis_slot_set_has(&set, 5460));
    assert_true(redis_slot_set_has(&set, 5461));
    assert_true(redis_slot_set_has(&set, 10922));
    assert_false(redis_slot_set_has(&set, 10923));
}

/* The slot of "key:" + key's 12 digits, as the driver writes it. */
static int
key_slot_of(uint64_t k)
{
    char key[32];
    int n = snprintf(key, sizeof key, "key:%012llu", (unsigned long long)k);

    return redis_key_slot(key, (size_t)n);
}

/*
 * Every key drawn for a client pinned to a master hashes to that master's
 * slots (uniform and seq), and the draws reach most of its keys: the
 * rejection keeps the key space, only the others' keys are left out.
 */
static void
test_draw_key(void **state)
{
    struct redis_slot_map m;
    struct redis_slot_set set;
    struct rng rng;
    enum { KEYS = 3000, DRAWS = 20000 };
    static unsigned char seen[KEYS];

    (void)state;
    three_masters(&m);
    rng_seed(&rng, 42);
    for (int pat = 0; pat < 2; pat++)
        for (int node = 0; node < 3; node++) {
            struct kv_workload w = {.pattern = pat ? KV_KP_SEQ : KV_KP_UNIFORM, .keys = KEYS};
            char key[32] = "key:";
            uint64_t seq = 0;
            int owned = 0, hit = 0;

            redis_slot_set_of(&m, node, &set);
            memset(seen, 0, sizeof seen);
            for (int i = 0; i < DRAWS; i++) {
                int64_t k = redis_draw_key(&w, &seq, &rng, &set, key, 4, 12);

                assert_true(k >= 0 && k < KEYS);
                assert_int_equal(m.slot[key_slot_of((uint64_t)k)], node);
                assert_int_equal(redis_key_slot(key, 16), key_slot_of((uint64_t)k));
                seen[k] = 1;
            }
            for (int k = 0; k < KEYS; k++) {
                owned += m.slot[key_slot_of((uint64_t)k)] == node;
                hit += seen[k];
            }
            assert_true(owned > KEYS / 4 && owned < KEYS / 2);
            assert_int_equal(hit, owned); /* 20000 draws over ~1000 keys reach each */
        }
}

/* A master with one key in the key space: every draw finds it (the scan after the tries). */
static void
test_draw_scan(void **state)
{
    struct redis_slot_set set;
    struct kv_workload w = {.pattern = KV_KP_UNIFORM, .keys = 1000};
    struct rng rng;
    char key[32] = "key:";
    uint64_t seq = 0;

    (void)state;
    memset(&set, 0, sizeof set);
    set.bit[key_slot_of(777) >> 6] |= (uint64_t)1 << (key_slot_of(777) & 63);
    rng_seed(&rng, 7);
    for (int i = 0; i < 200; i++) {
        int64_t k = redis_draw_key(&w, &seq, &rng, &set, key, 4, 12);

        /* another of the 1000 keys could share slot 777's: the scan stops at an owned one */
        assert_true(k >= 0);
        assert_int_equal(key_slot_of((uint64_t)k), key_slot_of(777));
    }
    assert_true(redis_first_key(1000, &set, key, 4, 12) >= 0);
    assert_int_equal(redis_key_slot(key, 16), key_slot_of(777));
    memset(&set, 0, sizeof set); /* a master with no slot: nothing, within the bounds */
    assert_int_equal(redis_draw_key(&w, &seq, &rng, &set, key, 4, 12), -1);
    assert_int_equal(redis_first_key(1000, &set, key, 4, 12), -1);
}

/* Master i's INFO figures in s. */
static void
node_info(struct redis_sample *s, int i, uint64_t cmds, double cpu)
{
    snprintf(s->nodes[i].addr, sizeof s->nodes[i].addr, "127.0.0.1:%d", 7000 + i);
    s->nodes[i].ok = 1;
    s->nodes[i].info.total_commands_processed = cmds;
    s->nodes[i].info.used_cpu_user = cpu;
    s->nodes[i].info.have = REDIS_HAVE_CPU;
}

static const struct coll_row *
row(const struct coll_view *v, const char *label)
{
    for (int i = 0; i < v->nrows; i++)
        if (strcmp(v->rows[i].label, label) == 0)
            return &v->rows[i];
    fail_msg("no row %s", label);
    return NULL;
}

/*
 * A cluster's figures from its masters' INFO over 2 s: the commands the
 * three ran less the collector's own (an INFO each, and its sample on the
 * target), a row per master, the busiest's CPU as the server's; a master
 * that did not answer leaves the sum unknown, never a third too small.
 */
static void
test_nodes_derive(void **state)
{
    struct redis_sample *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    struct coll_view *v = calloc(1, sizeof *v);

    (void)state;
    a->nnodes = b->nnodes = 3;
    node_info(a, 0, 1000, 1.0);
    node_info(b, 0, 21000, 1.5); /* 10,000/s, 25% */
    node_info(a, 1, 5000, 2.0);
    node_info(b, 1, 45000, 3.8); /* 20,000/s, 90% */
    node_info(a, 2, 0, 0.0);
    node_info(b, 2, 2000, 0.2);   /* 1,000/s, 10% */
    for (int i = 0; i < 3; i++) { /* 1,000, 1,001 and 1,002 keys; 1, 2 and 3 MiB */
        b->nodes[i].info.keys = 1000 + (uint64_t)i;
        b->nodes[i].info.used_memory = (uint64_t)(i + 1) << 20;
    }
    assert_true(fabs(rd_nodes_commands(a, b, 2.0) -
                     (31000 - 1.5 - (REDIS_SAMPLE_COMMANDS + REDIS_SETTINGS_COMMANDS) / 2.0)) <
                1e-6);
    coll_view_reset(v);
    rd_nodes_rows(a, b, 2.0, v);
    assert_string_equal(row(v, "127.0.0.1:7000")->value, "10.0k/s, CPU 25%, 1000 keys");
    assert_string_equal(row(v, "127.0.0.1:7001")->value, "20.0k/s, CPU 90%, 1001 keys");
    assert_string_equal(row(v, "total keys")->value, "3003 on 3 of 3 masters");
    assert_true(row(v, "total memory")->num == 6 << 20);
    assert_string_equal(row(v, "busiest")->value, "127.0.0.1:7001, CPU 90% of a core");
    assert_true(fabs(v->sig.server_cpu_pct - 90) < 1e-9);
    assert_true(isnan(rd_nodes_commands(NULL, b, 2.0))); /* the first sample: no rates */
    b->nodes[2].ok = 0;
    assert_true(isnan(rd_nodes_commands(a, b, 2.0)));
    coll_view_reset(v);
    rd_nodes_rows(a, b, 2.0, v);
    assert_string_equal(row(v, "127.0.0.1:7002")->value, "not answering");
    assert_string_equal(row(v, "total keys")->value, "2001 on 2 of 3 masters");
    /* the map changed (7002 failed over to 7003): a master that stays keeps its rate */
    b->nodes[0] = b->nodes[1];
    node_info(b, 1, 10, 0.1);
    snprintf(b->nodes[1].addr, sizeof b->nodes[1].addr, "127.0.0.1:7003");
    b->nnodes = 2;
    coll_view_reset(v);
    rd_nodes_rows(a, b, 2.0, v);
    assert_string_equal(row(v, "127.0.0.1:7001")->value, "20.0k/s, CPU 90%, 1001 keys");
    assert_true(isnan(rd_nodes_commands(a, b, 2.0))); /* 7003's first reading: no rate */
    free(a);
    free(b);
    free(v);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc16),        cmocka_unit_test(test_slot),
        cmocka_unit_test(test_info_cluster), cmocka_unit_test(test_slots),
        cmocka_unit_test(test_redirect),     cmocka_unit_test(test_slot_set),
        cmocka_unit_test(test_draw_key),     cmocka_unit_test(test_draw_scan),
        cmocka_unit_test(test_resp_route),   cmocka_unit_test(test_nodes_derive),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int
main(void)
{
    test_skip_program("built without hiredis (libhiredis-dev; the redis backend)");
    return 0;
}

#endif
