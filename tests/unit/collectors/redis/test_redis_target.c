/*
 * Tests for Redis targets: what each form of redis:// and redis+unix://
 * names, and that neither a masked target nor a parse error ever holds the
 * password.
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
#include "base/util.h"
#include "engine/driver.h"
#include "engine/target.h"
#include "base/util.h"

static struct redis_target
parse_ok(const char *target)
{
    struct redis_target t;
    char err[BT_ERRLEN] = "";

    if (redis_target_parse(target, &t, err) != 0)
        fail_msg("%s: %s", target, err);
    return t;
}

static void
test_tcp_forms(void **state)
{
    (void)state;
    struct redis_target t = parse_ok("redis://127.0.0.1:6380/3");

    assert_string_equal(t.host, "127.0.0.1");
    assert_int_equal(t.port, 6380);
    assert_int_equal(t.db, 3);
    assert_string_equal(t.pass, "");
    assert_string_equal(t.path, "");
    assert_int_equal(t.tls, 0);

    t = parse_ok("redis://cache.example");
    assert_string_equal(t.host, "cache.example");
    assert_int_equal(t.port, 6379);
    assert_int_equal(t.db, 0);

    t = parse_ok("redis://");
    assert_string_equal(t.host, "127.0.0.1");

    t = parse_ok("redis://[::1]:7000/");
    assert_string_equal(t.host, "::1");
    assert_int_equal(t.port, 7000);

    t = parse_ok("rediss://h:1");
    assert_int_equal(t.tls, 1);
    assert_int_equal(t.insecure, 0);
    assert_string_equal(t.cacert, "");
}

/* rediss://'s parameters: cacert= (%-decoded) and insecure, in any order. */
static void
test_tls_params(void **state)
{
    (void)state;
    struct redis_target t = parse_ok("rediss://:pw@h:6380/2?cacert=/etc/ca%20dir/ca.crt");

    assert_int_equal(t.tls, 1);
    assert_int_equal(t.port, 6380);
    assert_int_equal(t.db, 2);
    assert_string_equal(t.pass, "pw");
    assert_string_equal(t.cacert, "/etc/ca dir/ca.crt");
    assert_int_equal(t.insecure, 0);
    t = parse_ok("rediss://h?insecure");
    assert_int_equal(t.insecure, 1);
    assert_string_equal(t.host, "h");
    t = parse_ok("rediss://h:1?insecure=1&cacert=/c.pem");
    assert_int_equal(t.insecure, 1);
    assert_string_equal(t.cacert, "/c.pem");
    t = parse_ok("rediss://h:1?cacert=/c.pem&insecure=0");
    assert_int_equal(t.insecure, 0);
}

static void
test_userinfo(void **state)
{
    (void)state;
    struct redis_target t = parse_ok("redis://:s3cret@h:1/0");

    assert_string_equal(t.user, "");
    assert_string_equal(t.pass, "s3cret");
    /* a lone word is the password, as redis-cli reads it */
    t = parse_ok("redis://s3cret@h");
    assert_string_equal(t.pass, "s3cret");
    t = parse_ok("redis://alice:p%40ss%2Fw@h:2/1");
    assert_string_equal(t.user, "alice");
    assert_string_equal(t.pass, "p@ss/w");
    assert_int_equal(t.db, 1);
    /* an unescaped '@' or '/' in the password: the last '@' ends the userinfo */
    t = parse_ok("redis://:a@b/c@h:3");
    assert_string_equal(t.pass, "a@b/c");
    assert_string_equal(t.host, "h");
    assert_int_equal(t.port, 3);
}

static void
test_unix_socket(void **state)
{
    (void)state;
    struct redis_target t = parse_ok("redis+unix:///run/redis/redis.sock");

    assert_string_equal(t.path, "/run/redis/redis.sock");
    assert_int_equal(t.db, 0);
    t = parse_ok("redis+unix://:pw@/tmp/r.sock?db=5");
    assert_string_equal(t.path, "/tmp/r.sock");
    assert_string_equal(t.pass, "pw");
    assert_int_equal(t.db, 5);
}

static void
test_bad_targets(void **state)
{
    (void)state;
    const char *bad[] = {
        "redis://h:0",        "redis://h:65536",      "redis://h:port",
        "redis://h/x",        "redis://[::1",         "redis://h:1?db=2",
        "redis+unix://h/x",   "redis+unix://rel",     "redis+unix:///s?x=1",
        "redis://:p%zz@h",    "memcached://h",        "redis://h:1/99999999",
        "redis://h?insecure", "rediss://h?x=1",       "rediss://h?insecure=2",
        "rediss://h?cacert=", "rediss://h?insecure&", "rediss://h?cacert=%zz",
    };
    struct redis_target t;
    char err[BT_ERRLEN];

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (redis_target_parse(bad[i], &t, err) != -1)
            fail_msg("accepted %s", bad[i]);
        assert_true(strlen(err) > 0);
        assert_non_null(strchr(err, '('));
    }
}

/* The password is in neither the masked form nor the message of a bad target. */
static void
test_password_never_shown(void **state)
{
    (void)state;
    const char *targets[] = {
        "redis://:hunter2@h:1/0", "redis://alice:hunter2@h",           "redis://hunter2@h",
        "redis://:hunter2@h:bad", "redis+unix://:hunter2@/tmp/s?db=x", "rediss://u:hunter2@h",
    };
    struct redis_target t;
    char err[BT_ERRLEN];

    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char *m = redis_mask_target(targets[i]);
        assert_null(strstr(m, "hunter2"));
        assert_non_null(strstr(m, "***"));
        free(m);
        err[0] = '\0';
        redis_target_parse(targets[i], &t, err);
        assert_null(strstr(err, "hunter2"));
    }
    char *m = redis_mask_target("redis://alice:hunter2@h:1/2");
    assert_string_equal(m, "redis://alice:***@h:1/2");
    free(m);
    m = redis_mask_target("redis://h:1/2");
    assert_string_equal(m, "redis://h:1/2");
    free(m);
}

static void
test_where(void **state)
{
    (void)state;
    char buf[300];
    struct redis_target t = parse_ok("redis://[::1]:7000");

    redis_target_where(&t, buf, sizeof buf);
    assert_string_equal(buf, "[::1]:7000");
    t = parse_ok("redis+unix:///tmp/x.sock");
    redis_target_where(&t, buf, sizeof buf);
    assert_string_equal(buf, "/tmp/x.sock");
}

/*
 * The command line's target, parsed through the registry (target_parse):
 * the Redis driver's parse ran there, and its struct rides in t.parsed
 * with every part, for prepare, the collector and inspect to take as is.
 */
static void
test_parsed_through_registry(void **state)
{
    (void)state;
    struct target t;
    const struct redis_target *r;
    char err[BT_ERRLEN];

    assert_int_equal(
        target_parse(&t, "rediss://bench:s3cret@127.0.0.1:6390/3?cacert=/etc/ca.pem", err), 0);
    assert_string_equal(t.driver->name, "redis");
    assert_ptr_equal(t.driver->parse, redis_target_new);
    r = t.parsed;
    assert_non_null(r);
    assert_string_equal(r->host, "127.0.0.1");
    assert_int_equal(r->port, 6390);
    assert_string_equal(r->user, "bench");
    assert_string_equal(r->pass, "s3cret");
    assert_int_equal(r->db, 3);
    assert_true(r->tls);
    assert_string_equal(r->cacert, "/etc/ca.pem");
    target_free(&t);
    /* malformed: refused at the parse, in the driver's words, nothing kept */
    assert_int_equal(target_parse(&t, "redis://:s3cret@127.0.0.1:6379/x", err), -1);
    assert_string_equal(t.driver->name, "redis");
    assert_null(t.parsed);
    assert_string_equal(err,
                        "invalid target 'redis://:***@127.0.0.1:6379/x': the database after "
                        "'/' must be a number (e.g. /0) (e.g. redis://:PASSWORD@127.0.0.1:6379/0)");
    target_free(&t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_forms),   cmocka_unit_test(test_tls_params),
        cmocka_unit_test(test_userinfo),    cmocka_unit_test(test_unix_socket),
        cmocka_unit_test(test_bad_targets), cmocka_unit_test(test_password_never_shown),
        cmocka_unit_test(test_where),       cmocka_unit_test(test_parsed_through_registry),
    };
    return cmocka_run_group_tests_name("redis_target", tests, NULL, NULL);
}

#else

int
main(void)
{
    test_skip_program("built without hiredis (libhiredis-dev; the redis backend)");
    return 0;
}

#endif
