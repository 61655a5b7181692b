/* The strict number parsers (safe_strtoull family): whole text, no sign where none is allowed,
 * overflow refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "base/util.h"

static void
test_strtoull(void **state)
{
    uint64_t v = 7;

    assert_int_equal(safe_strtoull("0", &v), 0);
    assert_true(v == 0);
    assert_int_equal(safe_strtoull("18446744073709551615", &v), 0);
    assert_true(v == UINT64_MAX);
    v = 7;
    assert_int_equal(safe_strtoull("18446744073709551616", &v), -1); /* overflow */
    assert_int_equal(safe_strtoull("", &v), -1);
    assert_int_equal(safe_strtoull("-1", &v), -1);
    assert_int_equal(safe_strtoull("+1", &v), -1);
    assert_int_equal(safe_strtoull(" 1", &v), -1);
    assert_int_equal(safe_strtoull("1 ", &v), -1);
    assert_int_equal(safe_strtoull("12x", &v), -1);
    assert_int_equal(safe_strtoull("1e3", &v), -1);
    assert_true(v == 7); /* untouched on failure */
}

static void
test_strntoull_reads_n_bytes(void **state)
{
    uint64_t v;

    assert_int_equal(safe_strntoull("4242:rest", 4, &v), 0);
    assert_true(v == 4242);
    assert_int_equal(safe_strntoull("4242", 0, &v), -1);
    assert_int_equal(safe_strntoull("42\r\n", 4, &v), -1);
}

static void
test_strtoll(void **state)
{
    long long v;

    assert_int_equal(safe_strtoll("-42", &v), 0);
    assert_true(v == -42);
    assert_int_equal(safe_strtoll("9223372036854775807", &v), 0);
    assert_true(v == INT64_MAX);
    assert_int_equal(safe_strtoll("-9223372036854775808", &v), 0);
    assert_true(v == INT64_MIN);
    assert_int_equal(safe_strtoll("9223372036854775808", &v), -1);
    assert_int_equal(safe_strtoll("-9223372036854775809", &v), -1);
    assert_int_equal(safe_strtoll("-", &v), -1);
    assert_int_equal(safe_strtoll("--1", &v), -1);
    assert_int_equal(safe_strtoll("2.5", &v), -1);
}

static void
test_strtod(void **state)
{
    double d;

    assert_int_equal(safe_strtod("0.25", &d), 0);
    assert_true(d == 0.25);
    assert_int_equal(safe_strtod("1e-3", &d), 0);
    assert_true(d == 1e-3);
    assert_int_equal(safe_strtod("-5", &d), 0);
    assert_true(d == -5);
    assert_int_equal(safe_strtod("nan", &d), -1);
    assert_int_equal(safe_strtod("inf", &d), -1);
    assert_int_equal(safe_strtod("0x10", &d), -1);
    assert_int_equal(safe_strtod(" 1", &d), -1);
    assert_int_equal(safe_strtod("1.5s", &d), -1);
    assert_int_equal(safe_strtod("1e999", &d), -1);
    assert_int_equal(safe_strtod("", &d), -1);
    assert_int_equal(safe_strntod("1.23456 rest", 7, &d), 0);
    assert_true(d == 1.23456);
    /* a server's optional figure: NULL (SQL NULL) and junk are not known */
    assert_true(str_num_or_nan("12.5") == 12.5);
    assert_true(isnan(str_num_or_nan(NULL)));
    assert_true(isnan(str_num_or_nan("")));
    assert_true(isnan(str_num_or_nan("12s")));
}

/* xgrow keeps the array while there is room, then doubles it from 64, keeping what it held. */
static void
test_xgrow(void **state)
{
    int *v = NULL, n = 0, cap = 0;

    (void)state;
    for (int i = 0; i < 200; i++) {
        v = xgrow(v, n, &cap, sizeof(*v));
        v[n++] = i;
        assert_int_equal(cap, i < 64 ? 64 : i < 128 ? 128 : 256);
    }
    for (int i = 0; i < 200; i++)
        assert_int_equal(v[i], i);
    free(v);
}

/* A short send cuts an iovec: the ones sent are passed, the cut one starts after its sent part. */
static void
test_iov_advance(void **state)
{
    char a[] = "abc", b[] = "defgh";
    struct iovec v[2] = {{a, 3}, {b, 5}};

    (void)state;
    assert_int_equal(iov_advance(v, 0, 2, 0), 0);
    assert_int_equal(iov_advance(v, 0, 2, 4), 1);
    assert_ptr_equal(v[1].iov_base, b + 1);
    assert_int_equal(v[1].iov_len, 4);
    assert_int_equal(v[0].iov_len, 0);
    assert_int_equal(iov_advance(v, 1, 2, 4), 2);
}

/* Counts from doubles: rounded, never a cast out of range (UBSan: a p99 of 2^64 in a record). */
static void
test_u64_of(void **state)
{
    (void)state;
    assert_true(u64_of(41.6) == 42);
    assert_true(u64_of(-3) == 0);
    assert_true(u64_of(NAN) == 0);
    assert_true(u64_of(18446744073709551616.0) == UINT64_MAX);
    assert_true(u64_of(1e300) == UINT64_MAX);
    assert_true(u64_of(9007199254740992.0) == 9007199254740992ull);
}

/* i64_dec: the decimal text of the extremes and of small values, as printf would write it. */
static void
test_i64_dec(void **state)
{
    char tmp[24];

    (void)state;
    assert_string_equal(i64_dec(0, tmp), "0");
    assert_string_equal(i64_dec(-5, tmp), "-5");
    assert_string_equal(i64_dec(1234567890123, tmp), "1234567890123");
    assert_string_equal(i64_dec(INT64_MAX, tmp), "9223372036854775807");
    assert_string_equal(i64_dec(INT64_MIN, tmp), "-9223372036854775808");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64_of),      cmocka_unit_test(test_strtoull),
        cmocka_unit_test(test_xgrow),       cmocka_unit_test(test_strntoull_reads_n_bytes),
        cmocka_unit_test(test_strtoll),     cmocka_unit_test(test_strtod),
        cmocka_unit_test(test_iov_advance), cmocka_unit_test(test_i64_dec),
    };
    return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
