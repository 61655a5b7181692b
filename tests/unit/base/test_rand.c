/* Tests for rand: reference outputs, bounds, bias and reproducibility. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "base/rand.h"

static void
test_reference_vectors(void **state)
{
    (void)state;
    struct rng r = {.s = {1, 2, 3, 4}};

    /* xoshiro256** from the state {1, 2, 3, 4}, checked against the reference algorithm. */
    assert_int_equal(rng_next(&r), 0x2d00);
    assert_int_equal(rng_next(&r), 0x0);
    assert_int_equal(rng_next(&r), 0x5a007080);
    assert_int_equal(rng_next(&r), 0x10e0000000009d80u);

    /* Seeding is four splitmix64 outputs: these are splitmix64's first four from 0. */
    rng_seed(&r, 0);
    assert_int_equal(r.s[0], 0xe220a8397b1dcdafu);
    assert_int_equal(r.s[1], 0x6e789e6aa1b965f4u);
    assert_int_equal(r.s[2], 0x06c45d188009454fu);
    assert_int_equal(r.s[3], 0xf88bb8a8724c81ecu);

    rng_seed(&r, 42);
    assert_int_equal(rng_next(&r), 0x15780b2e0c2ec716u);
    assert_int_equal(rng_next(&r), 0x6104d9866d113a7eu);
    assert_int_equal(rng_next(&r), 0xae17533239e499a1u);
}

static void
test_same_seed_same_sequence(void **state)
{
    (void)state;
    struct rng a, b, c;
    int differ = 0;

    rng_seed(&a, 12345);
    rng_seed(&b, 12345);
    rng_seed(&c, 12346);
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rng_next(&a);
        assert_int_equal(x, rng_next(&b));
        differ += x != rng_next(&c);
    }
    /* Adjacent seeds must give unrelated streams, not one shifted copy. */
    assert_int_equal(differ, 1000);
}

static void
test_range_degenerate_and_edges(void **state)
{
    (void)state;
    struct rng r;
    int seen_low[3] = {0}, seen_high[3] = {0};

    rng_seed(&r, 3);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(rng_range(&r, 7, 7), 7);
        assert_int_equal(rng_range(&r, -7, -7), -7);
        assert_true(rng_range(&r, INT64_MIN, INT64_MIN) == INT64_MIN);
        assert_true(rng_range(&r, INT64_MAX, INT64_MAX) == INT64_MAX);
    }
    for (int i = 0; i < 3000; i++) {
        int64_t lo = rng_range(&r, INT64_MIN, INT64_MIN + 2);
        int64_t hi = rng_range(&r, INT64_MAX - 2, INT64_MAX);

        assert_true(lo >= INT64_MIN && lo <= INT64_MIN + 2);
        assert_true(hi >= INT64_MAX - 2 && hi <= INT64_MAX);
        seen_low[lo - INT64_MIN] = 1;
        seen_high[INT64_MAX - hi] = 1;
    }
    for (int i = 0; i < 3; i++)
        assert_true(seen_low[i] && seen_high[i]);
}

static void
test_range_full_and_half_spans(void **state)
{
    (void)state;
    struct rng r;
    int neg = 0;
    enum { N = 100000 };

    rng_seed(&r, 4);
    for (int i = 0; i < N; i++) {
        int64_t v = rng_range(&r, INT64_MIN, INT64_MAX);
        neg += v < 0;
        int64_t a = rng_range(&r, INT64_MIN, 0);
        int64_t b = rng_range(&r, -1, INT64_MAX);
        assert_true(a <= 0);
        assert_true(b >= -1);
    }
    /* The full span must cover both signs evenly: 5 sigma is about 0.8%. */
    assert_in_range(neg, N / 2 - 800, N / 2 + 800);
}

/*
 * A span of 3 * 2^62 is where biased reductions show most: x % n lands in
 * the lowest third half of the time, and multiply-shift without rejection
 * maps two inputs out of four to offsets divisible by 3.
 */
static void
test_range_unbiased_wide(void **state)
{
    (void)state;
    struct rng r;
    const int64_t third = INT64_C(1) << 62;
    enum { N = 100000 };
    int low = 0, div3 = 0;

    rng_seed(&r, 5);
    for (int i = 0; i < N; i++) {
        int64_t v = rng_range(&r, INT64_MIN, third - 1);
        uint64_t off = (uint64_t)v - (uint64_t)INT64_MIN;

        assert_true(v <= third - 1);
        low += v < INT64_MIN + third;
        div3 += off % 3 == 0;
    }
    /* Expect N/3 = 33333 for both, sigma ~149; either bias gives ~50000. */
    assert_in_range(low, 33333 - 750, 33333 + 750);
    assert_in_range(div3, 33333 - 750, 33333 + 750);
}

static void
test_range_chi_square(void **state)
{
    (void)state;
    enum { K = 10, N = 100000 };
    struct rng r;
    long counts[K];
    double chi2 = 0.0;

    memset(counts, 0, sizeof(counts));
    rng_seed(&r, 6);
    for (int i = 0; i < N; i++) {
        int64_t v = rng_range(&r, -3, 6);
        assert_true(v >= -3 && v <= 6);
        counts[v + 3]++;
    }
    for (int i = 0; i < K; i++) {
        double d = (double)counts[i] - (double)N / K;
        chi2 += d * d / ((double)N / K);
    }
    /* 9 degrees of freedom: 27.88 is the 0.1% critical value. */
    assert_true(chi2 < 27.88);
}

static void
test_double_in_unit_interval(void **state)
{
    (void)state;
    struct rng r;
    double sum = 0.0;
    int below_quarter = 0;
    enum { N = 100000 };

    rng_seed(&r, 8);
    for (int i = 0; i < N; i++) {
        double d = rng_double(&r);
        assert_true(d >= 0.0 && d < 1.0);
        sum += d;
        below_quarter += d < 0.25;
    }
    assert_true(sum / N > 0.495 && sum / N < 0.505);
    assert_in_range(below_quarter, N / 4 - 700, N / 4 + 700);

    /* The top 53 bits map exactly onto [0, 1): all ones is the largest double below 1. */
    struct rng ones = {.s = {0, 0x4fc71c71c71c71c7u, 0, 0}};
    struct rng zero = {.s = {0, 0, 0, 0}};
    assert_int_equal(rng_next(&(struct rng){.s = {0, 0x4fc71c71c71c71c7u, 0, 0}}), UINT64_MAX);
    assert_true(rng_double(&ones) == 1.0 - 0x1.0p-53);
    assert_true(rng_double(&zero) == 0.0);
}

/*
 * sysbench's --rand-type shapes over ids 1..10000 (issue 27): special puts
 * 75% of draws in the middle 1% (ids 4951..5050), pareto 80% in the lowest
 * 20%, gaussian gathers around the middle, uniform does none of these.
 */
static void
test_sysbench_distributions(void **state)
{
    enum { N = 200000, SIZE = 10000 };
    struct rng r;
    int mid[4] = {0}, low[4] = {0}, centre[4] = {0};

    (void)state;
    rng_seed(&r, 7);
    for (int d = RNG_UNIFORM; d <= RNG_PARETO; d++)
        for (int i = 0; i < N; i++) {
            int64_t v = rng_dist(&r, (enum rng_dist)d, 1, SIZE);
            assert_true(v >= 1 && v <= SIZE);
            mid[d] += v >= 4951 && v <= 5050;
            low[d] += v <= 2000;
            centre[d] += v > 4000 && v <= 6000;
        }
    assert_true(fabs(mid[RNG_UNIFORM] / (double)N - 0.01) < 0.003);
    assert_true(fabs(low[RNG_UNIFORM] / (double)N - 0.20) < 0.01);
    assert_true(mid[RNG_SPECIAL] / (double)N > 0.75 && mid[RNG_SPECIAL] / (double)N < 0.80);
    assert_true(fabs(low[RNG_PARETO] / (double)N - 0.80) < 0.01);
    /* the mean of 12 uniforms has a standard deviation of 0.083: +-0.1 holds 77% */
    assert_true(centre[RNG_GAUSSIAN] / (double)N > 0.70 && centre[RNG_GAUSSIAN] / (double)N < 0.85);
    assert_int_equal(rng_dist(&r, RNG_SPECIAL, 5, 5), 5);
    assert_int_equal(rng_dist_parse("special"), RNG_SPECIAL);
    assert_int_equal(rng_dist_parse("zipf"), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_vectors),
        cmocka_unit_test(test_same_seed_same_sequence),
        cmocka_unit_test(test_range_degenerate_and_edges),
        cmocka_unit_test(test_range_full_and_half_spans),
        cmocka_unit_test(test_range_unbiased_wide),
        cmocka_unit_test(test_range_chi_square),
        cmocka_unit_test(test_double_in_unit_interval),
        cmocka_unit_test(test_sysbench_distributions),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
