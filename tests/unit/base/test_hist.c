/* Tests for hist: accuracy against sorted samples, merge, overflow, reset. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/hist.h"
#include "base/rand.h"
#include "base/util.h"

enum {
    NSAMPLES = 1000000,
};

static const uint64_t TEN_HOURS_US = 36000000000u;

/* Percentiles in units of 1/1000 %, so the test computes ranks with exact integers. */
static const uint64_t PCT_MILLI[] = {50000, 90000, 99000, 99900, 99990, 100000};

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Log-uniform over 1 us .. 10^6 us: every order of magnitude gets the same share. */
static uint64_t *
log_uniform_samples(uint64_t seed, size_t n)
{
    struct rng r;
    uint64_t *v = xmalloc(n * sizeof(*v));

    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        v[i] = (uint64_t)llround(exp(rng_double(&r) * log(1e6)));
    return v;
}

/* Value of rank ceil(pct/100 * n) in sorted, computed without floating point. */
static uint64_t
exact_percentile(const uint64_t *sorted, size_t n, uint64_t pct_milli)
{
    uint64_t rank = (pct_milli * n + 99999) / 100000;

    return sorted[rank - 1];
}

static double
pct_of(uint64_t pct_milli)
{
    return (double)pct_milli / 1000.0;
}

static void
record_all(struct hist *h, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hist_record(h, v[i]);
}

static void
test_percentiles_match_sorted(void **state)
{
    (void)state;
    uint64_t *v = log_uniform_samples(1, NSAMPLES);
    struct hist *h = hist_new();
    double worst = 0.0;

    record_all(h, v, NSAMPLES);
    qsort(v, NSAMPLES, sizeof(v[0]), cmp_u64);
    assert_int_equal(hist_count(h), NSAMPLES);
    assert_int_equal(hist_min(h), v[0]);
    assert_int_equal(hist_max(h), v[NSAMPLES - 1]);
    for (size_t i = 0; i < sizeof(PCT_MILLI) / sizeof(PCT_MILLI[0]); i++) {
        uint64_t want = exact_percentile(v, NSAMPLES, PCT_MILLI[i]);
        uint64_t got = hist_percentile(h, pct_of(PCT_MILLI[i]));
        double err = fabs((double)got - (double)want) / (double)want;

        printf("  p%-7g exact %7llu hist %7llu rel err %.5f%%\n", pct_of(PCT_MILLI[i]),
               (unsigned long long)want, (unsigned long long)got, err * 100.0);
        if (err > worst)
            worst = err;
        assert_true(err <= 0.001);
    }
    printf("  worst relative error %.5f%%\n", worst * 100.0);
    assert_int_equal(hist_percentile(h, 100.0), v[NSAMPLES - 1]);
    hist_free(h);
    free(v);
}

/* A lone value between fixed min and max comes back as its bucket midpoint. */
static void
test_bucket_error_bound(void **state)
{
    (void)state;
    static const uint64_t edges[] = {2046, 2047,  2048,  2049,    2050,        4095,       4096,
                                     4097, 65535, 65536, 1000001, 2147483647u, 2147483648u};
    struct hist *h = hist_new();
    struct rng r;

    rng_seed(&r, 7);
    for (int i = 0; i < 2000; i++) {
        uint64_t v = i < 13 ? edges[i] : (uint64_t)rng_range(&r, 1, 3000000000);
        hist_reset(h);
        hist_record(h, 0);
        hist_record(h, v);
        hist_record(h, 3600000000u);
        uint64_t got = hist_percentile(h, 50.0);
        assert_true(fabs((double)got - (double)v) <= (double)v / 2048.0);
    }
    hist_free(h);
}

static void
test_small_values_exact(void **state)
{
    (void)state;
    struct hist *h = hist_new();

    hist_record(h, 0);
    hist_record(h, 1);
    hist_record(h, 5);
    hist_record(h, 2047);
    assert_int_equal(hist_percentile(h, 25.0), 0);
    assert_int_equal(hist_percentile(h, 50.0), 1);
    assert_int_equal(hist_percentile(h, 75.0), 5);
    assert_int_equal(hist_percentile(h, 100.0), 2047);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_max(h), 2047);
    assert_true(hist_mean(h) == 2053.0 / 4.0);

    /* Every value below 2048 has its own bucket. */
    hist_reset(h);
    for (uint64_t v = 0; v < 2048; v++)
        hist_record(h, v);
    for (uint64_t k = 1; k <= 2048; k++)
        assert_int_equal(hist_percentile(h, (double)k * 100.0 / 2048.0), k - 1);
    hist_free(h);
}

/*
 * pct/100*count carries rounding noise (99.9/100*1000 is 999.0000000000001);
 * with distinct exact values every rank off by one shows.
 */
static void
test_rank_is_not_off_by_one(void **state)
{
    (void)state;
    struct hist *h = hist_new();

    for (uint64_t v = 0; v < 1000; v++)
        hist_record(h, v);
    for (uint64_t k = 1; k <= 1000; k++)
        assert_int_equal(hist_percentile(h, (double)k / 10.0), k - 1);
    /* A fractional rank rounds up: 0.15% of 1000 is rank 1.5, so rank 2. */
    assert_int_equal(hist_percentile(h, 0.15), 1);
    assert_int_equal(hist_percentile(h, 0.0001), 0);
    hist_free(h);
}

static void
assert_same_hist(const struct hist *a, const struct hist *b)
{
    uint64_t ca[40], cb[40];

    assert_int_equal(hist_count(a), hist_count(b));
    assert_int_equal(hist_overflow(a), hist_overflow(b));
    assert_int_equal(hist_min(a), hist_min(b));
    assert_int_equal(hist_max(a), hist_max(b));
    assert_true(hist_mean(a) == hist_mean(b));
    for (int p = 1; p <= 1000; p++)
        assert_int_equal(hist_percentile(a, p / 10.0), hist_percentile(b, p / 10.0));
    for (size_t i = 0; i < sizeof(PCT_MILLI) / sizeof(PCT_MILLI[0]); i++)
        assert_int_equal(hist_percentile(a, pct_of(PCT_MILLI[i])),
                         hist_percentile(b, pct_of(PCT_MILLI[i])));
    assert_int_equal(hist_log2_counts(a, ca, 40), hist_log2_counts(b, cb, 40));
    assert_memory_equal(ca, cb, sizeof(ca));
}

static void
test_merge_equals_recording_both(void **state)
{
    (void)state;
    enum { N = 100000 };
    uint64_t *x = log_uniform_samples(11, N);
    uint64_t *y = log_uniform_samples(12, N);
    struct hist *a = hist_new();
    struct hist *b = hist_new();
    struct hist *both = hist_new();
    struct hist *empty = hist_new();

    /* Shift y so the two sets have different minima, maxima and shapes. */
    for (size_t i = 0; i < N; i++)
        y[i] = y[i] * 3 + 500;
    y[0] = TEN_HOURS_US;
    record_all(a, x, N);
    record_all(b, y, N);
    record_all(both, x, N);
    record_all(both, y, N);
    assert_int_not_equal(hist_percentile(a, 50.0), hist_percentile(both, 50.0));

    hist_merge(a, b);
    assert_int_equal(hist_count(a), 2 * N);
    assert_int_equal(hist_overflow(a), 1);
    assert_same_hist(a, both);

    /* Merging into an empty hist copies, and merging an empty one changes nothing. */
    hist_merge(empty, both);
    assert_same_hist(empty, both);
    hist_reset(b);
    hist_merge(a, b);
    assert_same_hist(a, both);

    hist_free(a);
    hist_free(b);
    hist_free(both);
    hist_free(empty);
    free(x);
    free(y);
}

static void
test_overflow_keeps_true_max(void **state)
{
    (void)state;
    struct hist *h = hist_new();

    for (uint64_t v = 1; v <= 99; v++)
        hist_record(h, v * 1000);
    hist_record(h, TEN_HOURS_US);
    assert_int_equal(hist_count(h), 100);
    assert_int_equal(hist_overflow(h), 1);
    assert_int_equal(hist_max(h), TEN_HOURS_US);
    assert_int_equal(hist_percentile(h, 100.0), TEN_HOURS_US);
    /* Rank 99 is still in range: 99 ms, within the bucket error. */
    assert_true(llabs((long long)hist_percentile(h, 99.0) - 99000) <= 99000 / 2048);
    assert_true(hist_mean(h) == (4950000.0 + (double)TEN_HOURS_US) / 100.0);

    hist_reset(h);
    assert_int_equal(hist_count(h), 0);
    assert_int_equal(hist_overflow(h), 0);
    assert_int_equal(hist_percentile(h, 50.0), 0);
    assert_int_equal(hist_percentile(h, 100.0), 0);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_max(h), 0);
    assert_true(hist_mean(h) == 0.0);

    /* A hist holding only overflow reports the true max at any rank. */
    hist_record(h, UINT64_MAX);
    assert_int_equal(hist_percentile(h, 50.0), UINT64_MAX);
    assert_int_equal(hist_min(h), UINT64_MAX);
    hist_free(h);
}

static void
test_reset_clears_touched_buckets(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    uint64_t c[8];

    hist_record(h, 3);
    hist_record(h, 3000000000u);
    hist_reset(h);
    hist_record(h, 100);
    hist_record(h, 200);
    assert_int_equal(hist_log2_counts(h, c, 8), 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(c[i], i == 6 || i == 7 ? 1 : 0);
    assert_int_equal(hist_percentile(h, 1.0), 100);
    assert_int_equal(hist_percentile(h, 100.0), 200);
    assert_int_equal(hist_min(h), 100);
    hist_free(h);
}

static void
test_log2_counts(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    uint64_t c[40];
    static const uint64_t values[] = {0, 1, 2, 3, 4, 7, 1000, 2048, 4095, 1u << 20, TEN_HOURS_US};

    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        hist_record(h, values[i]);

    assert_int_equal(hist_log2_counts(h, c, 4), 4);
    assert_int_equal(c[0], 2);
    assert_int_equal(c[1], 2);
    assert_int_equal(c[2], 2);
    assert_int_equal(c[3], 5);

    /* Past the range only one slot (>= 2^32) can be filled truthfully. */
    assert_int_equal(hist_log2_counts(h, c, 40), 33);
    assert_int_equal(c[9], 1);
    assert_int_equal(c[11], 2);
    assert_int_equal(c[20], 1);
    assert_int_equal(c[32], 1);
    assert_int_equal(c[10] + c[12] + c[31] + c[33] + c[39], 0);
    assert_int_equal(hist_log2_counts(h, c, 0), 0);
    hist_free(h);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_match_sorted),
        cmocka_unit_test(test_bucket_error_bound),
        cmocka_unit_test(test_small_values_exact),
        cmocka_unit_test(test_rank_is_not_off_by_one),
        cmocka_unit_test(test_merge_equals_recording_both),
        cmocka_unit_test(test_overflow_keeps_true_max),
        cmocka_unit_test(test_reset_clears_touched_buckets),
        cmocka_unit_test(test_log2_counts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
