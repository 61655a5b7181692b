/* Tests for zipf: zeta against a plain sum, rank frequencies against the formula, bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "base/zipf.h"

static double
plain_zeta(uint64_t n, double theta)
{
    double s = 0;

    for (uint64_t i = 1; i <= n; i++)
        s += 1 / pow((double)i, theta);
    return s;
}

static void
test_zeta_small_exact(void **state)
{
    (void)state;
    assert_true(fabs(zipf_zeta(1, 0.99) - 1.0) < 1e-15);
    assert_true(fabs(zipf_zeta(2, 0.99) - (1 + pow(2, -0.99))) < 1e-15);
    assert_true(fabs(zipf_zeta(1000, 0.99) - plain_zeta(1000, 0.99)) < 1e-12);
}

/* Past the exact part the Euler-Maclaurin tail takes over: still the plain sum to 1e-12. */
static void
test_zeta_tail_matches_sum(void **state)
{
    (void)state;
    uint64_t sizes[] = {100001, 250000, 3000000};

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double want = plain_zeta(sizes[i], 0.99), got = zipf_zeta(sizes[i], 0.99);
        assert_true(fabs(got - want) / want < 1e-12);
    }
    /* 10^12 keys: finite, and larger than 10^6 keys' zeta */
    assert_true(zipf_zeta(1000000000000ull, 0.99) > zipf_zeta(1000000, 0.99));
}

/* Ranks 0, 1 and 9 come up as often as (1/(k+1)^theta)/zeta(n) says, within 5 sigma. */
static void
test_frequencies(void **state)
{
    (void)state;
    struct zipf z;
    struct rng r;
    const int draws = 400000;
    uint64_t n = 1000;
    int *count = calloc(n, sizeof(int));
    int ranks[] = {0, 1, 9, 99};

    zipf_init(&z, n, ZIPF_THETA);
    rng_seed(&r, 7);
    for (int i = 0; i < draws; i++) {
        uint64_t k = zipf_next(&z, &r);
        assert_true(k < n);
        count[k]++;
    }
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
        double p = pow(ranks[i] + 1, -ZIPF_THETA) / z.zetan;
        double expect = p * draws, sigma = sqrt(draws * p * (1 - p));
        assert_true(fabs(count[ranks[i]] - expect) < 5 * sigma);
    }
    /* the head is far hotter than uniform's 1/n */
    assert_true(count[0] > 50 * draws / (int)n);
    free(count);
}

static void
test_tiny_and_huge_spaces(void **state)
{
    (void)state;
    struct zipf z;
    struct rng r;
    int seen[2] = {0, 0};

    rng_seed(&r, 1);
    zipf_init(&z, 1, ZIPF_THETA);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(zipf_next(&z, &r), 0);
    zipf_init(&z, 2, ZIPF_THETA);
    for (int i = 0; i < 1000; i++) {
        uint64_t k = zipf_next(&z, &r);
        assert_true(k < 2);
        seen[k]++;
    }
    assert_true(seen[0] > seen[1] && seen[1] > 0);
    zipf_init(&z, 1000000000000ull, ZIPF_THETA);
    for (int i = 0; i < 100000; i++)
        assert_true(zipf_next(&z, &r) < 1000000000000ull);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zeta_small_exact),
        cmocka_unit_test(test_zeta_tail_matches_sum),
        cmocka_unit_test(test_frequencies),
        cmocka_unit_test(test_tiny_and_huge_spaces),
    };
    return cmocka_run_group_tests_name("zipf", tests, NULL, NULL);
}
