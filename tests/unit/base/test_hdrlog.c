/*
 * Tests for hdrlog: the V2 encoding round trip gives back every bucket and
 * every percentile; decoding two intervals into one histogram equals
 * recording both; corrupt input is refused with a message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hdrlog.h"
#include "base/hist.h"
#include "base/rand.h"
#include "base/util.h"

static const double PCTS[] = {1, 25, 50, 90, 99, 99.9, 99.99, 99.999, 100};

/* Log-uniform latencies over 1 us .. ~20 s, plus a few beyond the range. */
static void
fill(struct hist *h, uint64_t seed, int n)
{
    struct rng r;
    int i;

    rng_seed(&r, seed);
    for (i = 0; i < n; i++)
        hist_record(h, (uint64_t)exp(rng_double(&r) * 16.8));
}

static void
assert_same(const struct hist *a, const struct hist *b)
{
    size_t i;
    int k;

    assert_int_equal(hist_count(a), hist_count(b));
    for (k = 0; k < hist_nbuckets(); k++)
        assert_int_equal(hist_bucket(a, k), hist_bucket(b, k));
    for (i = 0; i < sizeof PCTS / sizeof PCTS[0]; i++)
        assert_int_equal(hist_percentile(a, PCTS[i]), hist_percentile(b, PCTS[i]));
    assert_int_equal(hist_min(a), hist_min(b));
    assert_int_equal(hist_max(a), hist_max(b));
    assert_true(fabs(hist_mean(a) - hist_mean(b)) < 1e-9);
}

/* Decodes b64 into h and restores the exact totals from src, as a record does. */
static void
decode_like_record(const char *b64, const struct hist *src, struct hist *h)
{
    char err[BT_ERRLEN];

    assert_int_equal(hdrlog_decode(b64, h, err), 0);
    hist_set_exact(h, hist_min(src), hist_max(src),
                   (uint64_t)llround(hist_mean(src) * (double)hist_count(src)), hist_overflow(src));
}

static void
test_round_trip(void **state)
{
    struct hist *h = hist_new(), *back = hist_new();
    char *b64;

    fill(h, 1, 200000);
    hist_record(h, 36000000000ull); /* ten hours: overflow, beside the encoding */
    b64 = hdrlog_encode(h);
    assert_memory_equal(b64, "HISTF", 5);
    decode_like_record(b64, h, back);
    assert_same(h, back);
    free(b64);
    hist_free(h);
    hist_free(back);
}

static void
test_empty_round_trip(void **state)
{
    struct hist *h = hist_new(), *back = hist_new();
    char err[BT_ERRLEN];
    char *b64 = hdrlog_encode(h);

    assert_int_equal(hdrlog_decode(b64, back, err), 0);
    assert_int_equal(hist_count(back), 0);
    free(b64);
    hist_free(h);
    hist_free(back);
}

/* A sample every bucket width or two over the whole range: single zeros and every index. */
static void
test_every_bucket(void **state)
{
    struct hist *h = hist_new(), *back = hist_new();
    char err[BT_ERRLEN];
    char *b64;
    uint64_t v;

    for (v = 0; v < (1ull << 32); v = v < 4096 ? v + 1 : v + v / 1024)
        hist_record(h, v);
    b64 = hdrlog_encode(h);
    assert_int_equal(hdrlog_decode(b64, back, err), 0);
    for (int k = 0; k < hist_nbuckets(); k++)
        assert_int_equal(hist_bucket(h, k), hist_bucket(back, k));
    free(b64);
    hist_free(h);
    hist_free(back);
}

static void
test_merge_equals_recording_both(void **state)
{
    struct hist *a = hist_new(), *b = hist_new(), *both = hist_new(), *merged = hist_new();
    char err[BT_ERRLEN];
    char *ea, *eb;

    fill(a, 2, 50000);
    fill(b, 3, 70000);
    fill(both, 2, 50000);
    fill(both, 3, 70000);
    ea = hdrlog_encode(a);
    eb = hdrlog_encode(b);
    assert_int_equal(hdrlog_decode(ea, merged, err), 0);
    assert_int_equal(hdrlog_decode(eb, merged, err), 0);
    hist_set_exact(merged, hist_min(both), hist_max(both),
                   (uint64_t)llround(hist_mean(both) * (double)hist_count(both)), 0);
    assert_same(both, merged);
    free(ea);
    free(eb);
    hist_free(a);
    hist_free(b);
    hist_free(both);
    hist_free(merged);
}

static void
test_corrupt_refused(void **state)
{
    struct hist *h = hist_new();
    char err[BT_ERRLEN];
    char *b64;

    assert_int_equal(hdrlog_decode("not base64 at all!", h, err), -1);
    assert_non_null(strstr(err, "HdrHistogram"));
    fill(h, 4, 1000);
    b64 = hdrlog_encode(h);
    b64[strlen(b64) / 2] = b64[strlen(b64) / 2] == 'A' ? 'B' : 'A';
    hist_reset(h);
    assert_int_equal(hdrlog_decode(b64, h, err), -1);
    free(b64);
    hist_free(h);
}

/* Bytes after the padding would be copied into --hlog files as lines of their own: refused. */
static void
test_after_padding_refused(void **state)
{
    struct hist *h = hist_new();
    char err[BT_ERRLEN], *b64, *bad;
    static const char *const tails[] = {"\n1.0,1.0,1.0,HISTF", "A", "===", "= ", "=\r"};

    fill(h, 4, 1000);
    b64 = hdrlog_encode(h);
    while (strlen(b64) % 3 == 0 || strchr(b64, '=') == NULL) { /* want an encoding with padding */
        free(b64);
        hist_record(h, 7);
        b64 = hdrlog_encode(h);
    }
    assert_int_equal(hdrlog_decode(b64, h, err), 0);
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        bad = xasprintf("%s%s", b64, tails[i]);
        assert_int_equal(hdrlog_decode(bad, h, err), -1);
        free(bad);
    }
    free(b64);
    hist_free(h);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),      cmocka_unit_test(test_empty_round_trip),
        cmocka_unit_test(test_every_bucket),    cmocka_unit_test(test_merge_equals_recording_both),
        cmocka_unit_test(test_corrupt_refused), cmocka_unit_test(test_after_padding_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
