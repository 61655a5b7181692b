/* units: the one style of numbers on every screen. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/units.h"

static void
test_si(void **state)
{
    char b[32];

    units_si(b, sizeof b, 0.5, "/s");
    assert_string_equal(b, "0.5/s");
    units_si(b, sizeof b, 12, "/s");
    assert_string_equal(b, "12/s");
    units_si(b, sizeof b, 12345, "/s");
    assert_string_equal(b, "12.3k/s");
    units_si(b, sizeof b, 4.5e6, "/s");
    assert_string_equal(b, "4.5M/s");
    units_si(b, sizeof b, 999.4, "");
    assert_string_equal(b, "999");
}

static void
test_iec(void **state)
{
    char b[32];

    units_iec(b, sizeof b, 512, "");
    assert_string_equal(b, "512 B");
    units_iec(b, sizeof b, 1.2 * 1024 * 1024, "/s");
    assert_string_equal(b, "1.2 MiB/s");
    units_iec(b, sizeof b, 3.0 * 1024 * 1024 * 1024, "");
    assert_string_equal(b, "3.0 GiB");
}

static void
test_duration(void **state)
{
    char b[32];

    units_duration(b, sizeof b, 0.0004);
    assert_string_equal(b, "0.4 ms");
    units_duration(b, sizeof b, 0.85);
    assert_string_equal(b, "850 ms");
    units_duration(b, sizeof b, 12.34);
    assert_string_equal(b, "12.3 s");
    units_duration(b, sizeof b, 303);
    assert_string_equal(b, "5m 03s");
    units_duration(b, sizeof b, 7800);
    assert_string_equal(b, "2h 10m");
}

static void
test_rate(void **state)
{
    assert_true(fabs(units_rate(100, 300, 1, 2.0) - 100.0) < 1e-9);
    assert_true(isnan(units_rate(100, 300, 0, 2.0))); /* no earlier reading */
    assert_true(isnan(units_rate(300, 100, 1, 2.0))); /* a restart reset the counter */
    assert_true(isnan(units_rate(100, 300, 1, 0)));   /* no time passed */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_si),
        cmocka_unit_test(test_iec),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_rate),
    };
    return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
