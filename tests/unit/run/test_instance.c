/*
 * Tests for instance: --instance I/N from 0 to N-1 only, and --start-at's
 * three forms (relative, epoch, ISO 8601 with a zone) to the same second;
 * anything else refused with a message that shows the right form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "run/instance.h"
#include "base/util.h"

static void
test_instance_spec(void **state)
{
    char err[BT_ERRLEN];
    int i = -1, n = -1;

    assert_int_equal(instance_parse("2/3", &i, &n, err), 0);
    assert_int_equal(i, 2);
    assert_int_equal(n, 3);
    assert_int_equal(instance_parse("0/1", &i, &n, err), 0);
    assert_int_equal(instance_parse("3/3", &i, &n, err), -1);
    assert_non_null(strstr(err, "0 <= I < N"));
    assert_int_equal(instance_parse("-1/3", &i, &n, err), -1);
    assert_int_equal(instance_parse("1/0", &i, &n, err), -1);
    assert_int_equal(instance_parse("1", &i, &n, err), -1);
    assert_non_null(strstr(err, "I/N"));
    assert_int_equal(instance_parse("1/3x", &i, &n, err), -1);
}

static void
test_start_at_forms(void **state)
{
    const double now = 1796087000.25, at = 1796090400; /* 2026-12-01T02:00:00Z */
    char err[BT_ERRLEN];
    double t = 0;

    assert_int_equal(instance_parse_time("+10s", now, &t, err), 0);
    assert_true(fabs(t - (now + 10)) < 1e-9);
    assert_int_equal(instance_parse_time("+2m", now, &t, err), 0);
    assert_true(fabs(t - (now + 120)) < 1e-9);
    assert_int_equal(instance_parse_time("+1.5", now, &t, err), 0);
    assert_true(fabs(t - (now + 1.5)) < 1e-9);
    assert_int_equal(instance_parse_time("1796090400", now, &t, err), 0);
    assert_true(t == at);
    assert_int_equal(instance_parse_time("2026-12-01T02:00:00Z", now, &t, err), 0);
    assert_true(t == at);
    assert_int_equal(instance_parse_time("2026-12-01T03:30:00+01:30", now, &t, err), 0);
    assert_true(t == at);
    assert_int_equal(instance_parse_time("2026-12-01T02:00:00.5Z", now, &t, err), 0);
    assert_true(t == at + 0.5);
    assert_int_equal(instance_parse_time("+", now, &t, err), -1);
    assert_int_equal(instance_parse_time("+-3s", now, &t, err), -1);
    assert_int_equal(instance_parse_time("tomorrow", now, &t, err), -1);
    assert_non_null(strstr(err, "+SECONDS"));
    assert_int_equal(instance_parse_time("2026-12-01T02:00:00Q", now, &t, err), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instance_spec),
        cmocka_unit_test(test_start_at_forms),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
