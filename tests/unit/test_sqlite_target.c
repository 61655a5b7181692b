/* Tests for sqlite:// targets: paths, parameters, and every bad form with its one-line fix. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "config.h"

#ifdef HAVE_SQLITE
#include "collectors/sqlite/sqlite.h"
#include "base/util.h"

static void
test_paths(void **state)
{
    struct sqlite_target t;
    char err[BT_ERRLEN];

    assert_int_equal(sqlite_target_parse("sqlite:///tmp/x.db", &t, err), 0);
    assert_string_equal(t.path, "/tmp/x.db");
    assert_string_equal(t.journal_mode, "");
    assert_int_equal(t.busy_timeout_ms, 5000);
    assert_int_equal(sqlite_target_parse("sqlite://rel/x.db", &t, err), 0);
    assert_string_equal(t.path, "rel/x.db");
}

static void
test_parameters(void **state)
{
    struct sqlite_target t;
    char err[BT_ERRLEN];

    assert_int_equal(
        sqlite_target_parse("sqlite:///x.db?journal_mode=wal&synchronous=normal&busy_timeout=250",
                            &t, err),
        0);
    assert_string_equal(t.path, "/x.db");
    assert_string_equal(t.journal_mode, "wal");
    assert_string_equal(t.synchronous, "normal");
    assert_int_equal(t.busy_timeout_ms, 250);
}

static void
expect_error(const char *target, const char *needle)
{
    struct sqlite_target t;
    char err[BT_ERRLEN] = "";

    assert_int_equal(sqlite_target_parse(target, &t, err), -1);
    assert_non_null(strstr(err, needle));
    assert_null(strchr(err, '\n'));
}

static void
test_bad_targets(void **state)
{
    expect_error("sqlite://", "names no file");
    expect_error("sqlite://?journal_mode=wal", "names no file");
    expect_error("sqlite:///x.db?journal=wal", "unknown sqlite target parameter 'journal'");
    expect_error("sqlite:///x.db?busy_timeout=soon", "not a number of ms");
    expect_error("sqlite:///x.db?busy_timeout=-1", "not a number of ms");
    expect_error("sqlite:///x.db?wal", "has no value");
    expect_error("postgres://x/y", "not a sqlite target");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_parameters),
        cmocka_unit_test(test_bad_targets),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int
main(void)
{
    return 0;
}
#endif
