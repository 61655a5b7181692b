/* Tests for target_parse: a target string parsed once into what the run asks of it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/util.h"
#include "engine/collector.h"
#include "engine/driver.h"
#include "engine/target.h"

static void
test_uri_parts(void **state)
{
    struct target t;
    char err[BT_ERRLEN];

    (void)state;
    assert_int_equal(target_parse(&t, "redis://bench:s3cret@127.0.0.2:6380/0", err), 0);
    assert_string_equal(t.driver->name, "redis");
    assert_string_equal(t.scheme, "redis://");
    assert_string_equal(t.host, "127.0.0.2");
    assert_int_equal(t.port, 6380);
    assert_true(t.local);
    assert_string_equal(t.path, "");
    assert_null(strstr(t.masked, "s3cret"));
    assert_non_null(t.collector);
    assert_string_equal(t.collector->name, "redis");
    target_free(&t);
}

static void
test_remote_and_v6(void **state)
{
    struct target t;
    char err[BT_ERRLEN];

    (void)state;
    assert_int_equal(target_parse(&t, "memcached://10.1.2.3", err), 0);
    assert_string_equal(t.host, "10.1.2.3");
    assert_int_equal(t.port, 0);
    assert_false(t.local);
    target_free(&t);
    assert_int_equal(target_parse(&t, "mysql://root@[::1]:3307/db", err), 0);
    assert_string_equal(t.host, "::1");
    assert_int_equal(t.port, 3307);
    assert_true(t.local);
    target_free(&t);
}

/* A conninfo string names host and port in words; a host with a '/' is a socket folder. */
static void
test_conninfo(void **state)
{
    struct target t;
    char err[BT_ERRLEN];

    (void)state;
    assert_int_equal(target_parse(&t, "host=/tmp/pg port=5433 dbname=bench password=pw", err), 0);
    assert_string_equal(t.driver->name, "postgres");
    assert_null(t.scheme);
    assert_int_equal(t.port, 5433);
    assert_string_equal(t.path, "/tmp/pg");
    assert_true(t.local);
    assert_null(strstr(t.masked, "pw "));
    target_free(&t);
}

/* No host: the path is the socket or the database file. */
static void
test_path(void **state)
{
    struct target t;
    char err[BT_ERRLEN];

    (void)state;
    assert_int_equal(target_parse(&t, "redis+unix:///run/redis.sock", err), 0);
    assert_string_equal(t.host, "");
    assert_string_equal(t.path, "/run/redis.sock");
    assert_true(t.local);
    target_free(&t);
}

/* No driver: -1, with a masked form for the message and no password in it. */
static void
test_unknown(void **state)
{
    struct target t;
    char err[BT_ERRLEN];

    (void)state;
    assert_int_equal(target_parse(&t, "nosuch://u:hunter2@127.0.0.1:1", err), -1);
    assert_null(t.driver);
    assert_non_null(t.masked);
    assert_null(strstr(t.masked, "hunter2"));
    assert_int_equal(t.port, 1);
    assert_string_equal(err, "");
    target_free(&t);
    assert_null(t.raw);
}

/*
 * A driver with a parse callback parses once, in target_parse: the result
 * rides in t.parsed (what prepare, init, the collector and inspect read);
 * a driver without one (libpq's conninfo) leaves it NULL.
 */
static void
test_parsed_once(void **state)
{
    struct target t;
    char err[BT_ERRLEN];

    (void)state;
    assert_int_equal(target_parse(&t, "sqlite:///tmp/x.db?busy_timeout=250", err), 0);
    assert_non_null(t.driver->parse);
    assert_non_null(t.parsed);
    target_free(&t);
    assert_null(t.parsed);
    assert_int_equal(target_parse(&t, "postgres://u@127.0.0.1/db", err), 0);
    assert_null(t.driver->parse);
    assert_null(t.parsed);
    target_free(&t);
}

/* A malformed target is refused at the parse, in its driver's words, password masked. */
static void
test_malformed(void **state)
{
    static const struct {
        const char *raw, *driver, *says;
    } cases[] = {
        {"redis://:hunter2@127.0.0.1:70000/0", "redis",
         "invalid target 'redis://:***@127.0.0.1:70000/0': "},
        {"mysql://root:hunter2@127.0.0.1:3306/db?ssl-mode=NOPE", "mysql",
         "invalid target 'mysql://root:***@127.0.0.1:3306/db?ssl-mode=NOPE': "},
        {"sqlite://", "sqlite", "the sqlite target names no file (use sqlite:///path/file.db)"},
        {"memcached://", "memcached", "invalid target: no host (use memcached://HOST:PORT"},
    };
    struct target t;
    char err[BT_ERRLEN];

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(target_parse(&t, cases[i].raw, err), -1);
        assert_non_null(t.driver);
        assert_string_equal(t.driver->name, cases[i].driver);
        assert_null(t.parsed);
        assert_memory_equal(err, cases[i].says, strlen(cases[i].says));
        assert_null(strstr(err, "hunter2"));
        target_free(&t);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uri_parts), cmocka_unit_test(test_remote_and_v6),
        cmocka_unit_test(test_conninfo),  cmocka_unit_test(test_path),
        cmocka_unit_test(test_unknown),   cmocka_unit_test(test_parsed_once),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
