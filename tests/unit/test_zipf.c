/*
 * zipf: the normalising sum against brute force (also past the exact part,
 * where Euler-Maclaurin takes over), the exact probabilities of the first
 * two ranks, bounds, and the degenerate key spaces.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "zipf.h"

static double
brute_zeta(uint64_t n, double theta)
{
    double s = 0;

    for (uint64_t i = n; i >= 1; i--)
        s += pow((double)i, -theta);
    return s;
}

static void
test_zeta_small(void **state)
{
    (void)state;
    double want = 1.0 + pow(2.0, -0.99) + pow(3.0, -0.99);

    assert_true(fabs(zipf_zeta(3, 0.99) - want) < 1e-12);
    assert_true(fabs(zipf_zeta(1, 0.5) - 1.0) < 1e-15);
}

/* 3 million terms: the last 2 million come from the Euler-Maclaurin tail. */
static void
test_zeta_tail_matches_brute_force(void **state)
{
    (void)state;
    uint64_t n = 3000000;
    double a = zipf_zeta(n, 0.99), b = brute_zeta(n, 0.99);

    assert_true(fabs(a - b) / b < 1e-10);
    a = zipf_zeta(n, 0.5);
    b = brute_zeta(n, 0.5);
    assert_true(fabs(a - b) / b < 1e-10);
}

/* A huge key space costs no more than a small one, and the sum keeps growing like n^(1-theta). */
static void
test_zeta_huge(void **state)
{
    (void)state;
    double z9 = zipf_zeta(1000000000ull, 0.99), z12 = zipf_zeta(1000000000000ull, 0.99);

    /* d/dn of the sum is n^-theta: the step from 1e9 to 1e12 is the integral of x^-0.99. */
    double integral = (pow(1e12, 0.01) - pow(1e9, 0.01)) / 0.01;
    assert_true(fabs((z12 - z9) - integral) < 1e-6);
}

static void
test_init_rejects(void **state)
{
    (void)state;
    struct zipf z;

    assert_int_equal(zipf_init(&z, 0, 0.99), -1);
    assert_int_equal(zipf_init(&z, 10, 0.0), -1);
    assert_int_equal(zipf_init(&z, 10, 1.0), -1);
    assert_int_equal(zipf_init(&z, 10, 0.99), 0);
}

/* Ranks 0 and 1 have exactly 1/zeta and 2^-theta/zeta in Gray's method. */
static void
test_first_ranks_frequency(void **state)
{
    (void)state;
    struct zipf z;
    struct rng r;
    int draws = 1000000, c0 = 0, c1 = 0, top10 = 0;
    uint64_t n = 1000;

    assert_int_equal(zipf_init(&z, n, ZIPF_THETA), 0);
    rng_seed(&r, 7);
    for (int i = 0; i < draws; i++) {
        uint64_t k = zipf_next(&z, &r);
        assert_true(k < n);
        c0 += k == 0;
        c1 += k == 1;
        top10 += k < 10;
    }
    double p0 = 1.0 / z.zetan, p1 = pow(2.0, -ZIPF_THETA) / z.zetan;
    /* 1e6 draws: the standard error of p0 ~ 0.13 is 0.00034; 3% leaves ~10 sigma. */
    assert_true(fabs(c0 / (double)draws - p0) < 0.03 * p0);
    assert_true(fabs(c1 / (double)draws - p1) < 0.03 * p1);
    /* Skewed: the first 1% of the keys take far more than 1% of the draws (zeta(10)/zeta(1000)). */
    double p10 = zipf_zeta(10, ZIPF_THETA) / z.zetan;
    assert_true(fabs(top10 / (double)draws - p10) < 0.05 * p10);
}

static void
test_tiny_key_spaces(void **state)
{
    (void)state;
    struct zipf z;
    struct rng r;
    int ones = 0;

    rng_seed(&r, 1);
    assert_int_equal(zipf_init(&z, 1, ZIPF_THETA), 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(zipf_next(&z, &r), 0);
    assert_int_equal(zipf_init(&z, 2, ZIPF_THETA), 0);
    for (int i = 0; i < 100000; i++) {
        uint64_t k = zipf_next(&z, &r);
        assert_true(k < 2);
        ones += (int)k;
    }
    /* P(1) = 2^-theta / (1 + 2^-theta) ~ 0.4983 */
    double p1 = pow(2.0, -ZIPF_THETA) / (1.0 + pow(2.0, -ZIPF_THETA));
    assert_true(fabs(ones / 100000.0 - p1) < 0.01);
}

/* Same seed, same ranks: runs with --seed repeat. */
static void
test_reproducible(void **state)
{
    (void)state;
    struct zipf z;
    struct rng a, b;

    zipf_init(&z, 1000000, ZIPF_THETA);
    rng_seed(&a, 99);
    rng_seed(&b, 99);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(zipf_next(&z, &a), zipf_next(&z, &b));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zeta_small),
        cmocka_unit_test(test_zeta_tail_matches_brute_force),
        cmocka_unit_test(test_zeta_huge),
        cmocka_unit_test(test_init_rejects),
        cmocka_unit_test(test_first_ranks_frequency),
        cmocka_unit_test(test_tiny_key_spaces),
        cmocka_unit_test(test_reproducible),
    };
    return cmocka_run_group_tests_name("zipf", tests, NULL, NULL);
}
