/* Tests for sched: Poisson gaps, monotonic times, rate changes, lateness. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "base/sched.h"

enum {
    NDRAWS = 100000,
};

static const uint64_t START_US = 1000000000u;

/* Mean gap in us over NDRAWS arrivals; also checks the times never go back. */
static double
mean_gap_us(struct sched *s, uint64_t from)
{
    uint64_t prev = from;
    uint64_t first = sched_peek(s);

    assert_true(first >= from);
    for (int i = 0; i < NDRAWS; i++) {
        uint64_t peek = sched_peek(s);
        uint64_t t = sched_take(s);

        assert_int_equal(peek, t);
        assert_true(t >= prev);
        prev = t;
    }
    return (double)(prev - from) / NDRAWS;
}

static void
assert_mean_near(double got_us, double rate_per_s)
{
    double want = 1e6 / rate_per_s;

    assert_true(fabs(got_us - want) <= 0.02 * want);
}

static void
test_mean_gap_matches_rate(void **state)
{
    (void)state;
    static const double rates[] = {100.0, 50000.0, 1e6};
    struct sched s;

    for (int i = 0; i < 3; i++) {
        sched_init(&s, rates[i], START_US, 100 + (uint64_t)i);
        assert_mean_near(mean_gap_us(&s, START_US), rates[i]);
    }
}

/* Exponential, not just the right mean: P(gap > mean) = 1/e, P(gap > 3 mean) = e^-3. */
static void
test_gaps_are_exponential(void **state)
{
    (void)state;
    struct sched s;
    int over_mean = 0, over_3mean = 0;
    const double mean = 1e6 / 100.0;

    sched_init(&s, 100.0, START_US, 9);
    uint64_t prev = sched_take(&s);
    for (int i = 0; i < NDRAWS; i++) {
        uint64_t t = sched_take(&s);
        over_mean += (double)(t - prev) > mean;
        over_3mean += (double)(t - prev) > 3 * mean;
        prev = t;
    }
    assert_true(fabs((double)over_mean / NDRAWS - exp(-1.0)) < 0.01);
    assert_true(fabs((double)over_3mean / NDRAWS - exp(-3.0)) < 0.004);
}

static void
test_same_seed_same_schedule(void **state)
{
    (void)state;
    struct sched a, b;

    sched_init(&a, 1000.0, START_US, 77);
    sched_init(&b, 1000.0, START_US, 77);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(sched_take(&a), sched_take(&b));
}

/* At a high rate most gaps are below 1 us; the fractions must still add up. */
static void
test_high_rate_keeps_fractions(void **state)
{
    (void)state;
    struct sched s;

    sched_init(&s, 4e6, START_US, 5);
    for (int i = 0; i < 4000000 / 10; i++)
        sched_take(&s);
    /* 0.1 s of arrivals at 4e6/s: 10^5 us, to within a few sigma (0.16%). */
    assert_in_range(sched_peek(&s) - START_US, 99000, 101000);
}

static void
test_is_late_boundaries(void **state)
{
    (void)state;
    const uint64_t t = START_US;

    assert_true(sched_is_late(t, t + 1000, 1000));
    assert_false(sched_is_late(t, t + 999, 1000));
    assert_true(sched_is_late(t, t + 5000, 1000));
    assert_false(sched_is_late(t, t, 1000));
    assert_false(sched_is_late(t, t - 1, 1000));
    assert_false(sched_is_late(t, t - 5000, 1000));
    /* With no tolerance, starting on time is already late, starting early is not. */
    assert_true(sched_is_late(t, t, 0));
    assert_false(sched_is_late(t, t - 1, 0));
    /* scheduled + late_us would wrap past UINT64_MAX: still not late. */
    assert_false(sched_is_late(UINT64_MAX - 10, UINT64_MAX, SCHED_LATE_US_DEFAULT));
    assert_true(sched_is_late(0, UINT64_MAX, SCHED_LATE_US_DEFAULT));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mean_gap_matches_rate),
        cmocka_unit_test(test_gaps_are_exponential),
        cmocka_unit_test(test_same_seed_same_schedule),
        cmocka_unit_test(test_high_rate_keeps_fractions),
        cmocka_unit_test(test_is_late_boundaries),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
