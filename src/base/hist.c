/*
 * hist: log-linear buckets. Values below 2048 get one bucket each; above,
 * every power of two [2^k, 2^(k+1)) is split into 1024 equal sub-buckets of
 * width 2^(k-10). A bucket's width is then at most 1/1024 of its lower
 * edge, so its midpoint is within 1/2048 (~0.05%) of any value it holds.
 */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

enum {
    SUB_BITS = 10,               /* 1024 sub-buckets per power of two */
    SUB_COUNT = 1 << SUB_BITS,   /* sub-buckets per power of two */
    EXACT_LIMIT = 2 * SUB_COUNT, /* 0..2047 are recorded exactly */
    FIRST_MSB = SUB_BITS + 1,    /* msb of EXACT_LIMIT */
    RANGE_BITS = 32,             /* 2^32 us is ~71 min: the promised hour, 184 KiB */
    NBUCKETS = EXACT_LIMIT + (RANGE_BITS - FIRST_MSB) * SUB_COUNT,
    LOG2_SLOTS = RANGE_BITS + 1, /* [2^i, 2^(i+1)) for i < 32, then overflow */
};

struct hist {
    uint64_t count; /* including overflow */
    uint64_t overflow;
    uint64_t sum;
    uint64_t min;
    uint64_t max;
    /* Touched bucket range, so reset and merge skip the untouched bulk. */
    int lo;
    int hi;
    uint64_t buckets[NBUCKETS];
};

static int
msb64(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

/* Bucket index of v, or -1 if v is beyond the range. */
static int
bucket_of(uint64_t v)
{
    if (v < EXACT_LIMIT)
        return (int)v;
    int msb = msb64(v);
    if (msb >= RANGE_BITS)
        return -1;
    int shift = msb - SUB_BITS;
    int sub = (int)(v >> shift) - SUB_COUNT;
    return EXACT_LIMIT + (msb - FIRST_MSB) * SUB_COUNT + sub;
}

static uint64_t
bucket_low(int idx)
{
    if (idx < EXACT_LIMIT)
        return (uint64_t)idx;
    int block = (idx - EXACT_LIMIT) / SUB_COUNT;
    int sub = (idx - EXACT_LIMIT) % SUB_COUNT;
    return (uint64_t)(SUB_COUNT + sub) << (block + 1);
}

static uint64_t
bucket_mid(int idx)
{
    if (idx < EXACT_LIMIT)
        return (uint64_t)idx;
    int shift = (idx - EXACT_LIMIT) / SUB_COUNT + 1;
    return bucket_low(idx) + ((uint64_t)1 << (shift - 1));
}

/*
 * 1-based rank of pct: ceil(pct/100*count). pct/100*count is often an
 * integer plus a few ulps (99.9% of 10^6 is 999000.0000000001), which
 * would push ceil one rank too far, so such results are snapped first.
 */
static uint64_t
percentile_rank(double pct, uint64_t count)
{
    double x = pct / 100.0 * (double)count;
    double r = nearbyint(x);

    if (fabs(x - r) <= x * 1e-14)
        x = r;
    x = ceil(x);
    if (x < 1.0)
        return 1;
    if (x >= (double)count)
        return count;
    return (uint64_t)x;
}

static void
mark_touched(struct hist *h, int lo, int hi)
{
    if (lo < h->lo)
        h->lo = lo;
    if (hi > h->hi)
        h->hi = hi;
}

static void
clear_totals(struct hist *h)
{
    h->count = 0;
    h->overflow = 0;
    h->sum = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->lo = NBUCKETS;
    h->hi = -1;
}

static uint64_t
clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}

struct hist *
hist_new(void)
{
    struct hist *h = xcalloc(1, sizeof(*h));

    clear_totals(h);
    return h;
}

void
hist_free(struct hist *h)
{
    free(h);
}

void
hist_reset(struct hist *h)
{
    if (h->hi >= h->lo)
        memset(&h->buckets[h->lo], 0, (size_t)(h->hi - h->lo + 1) * sizeof(h->buckets[0]));
    clear_totals(h);
}

void
hist_record(struct hist *h, uint64_t value_us)
{
    int idx = bucket_of(value_us);

    if (idx < 0) {
        h->overflow++;
    } else {
        h->buckets[idx]++;
        mark_touched(h, idx, idx);
    }
    h->count++;
    h->sum += value_us;
    if (value_us < h->min)
        h->min = value_us;
    if (value_us > h->max)
        h->max = value_us;
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
    for (int i = src->lo; i <= src->hi; i++)
        dst->buckets[i] += src->buckets[i];
    if (src->hi >= src->lo)
        mark_touched(dst, src->lo, src->hi);
    dst->count += src->count;
    dst->overflow += src->overflow;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t
hist_count(const struct hist *h)
{
    return h->count;
}

uint64_t
hist_overflow(const struct hist *h)
{
    return h->overflow;
}

double
hist_mean(const struct hist *h)
{
    if (h->count == 0)
        return 0.0;
    return (double)h->sum / (double)h->count;
}

uint64_t
hist_sum(const struct hist *h)
{
    return h->sum;
}

uint64_t
hist_min(const struct hist *h)
{
    return h->count ? h->min : 0;
}

uint64_t
hist_max(const struct hist *h)
{
    return h->max;
}

uint64_t
hist_percentile(const struct hist *h, double pct)
{
    if (h->count == 0)
        return 0;
    uint64_t rank = percentile_rank(pct, h->count);
    uint64_t seen = 0;

    for (int i = h->lo; i <= h->hi; i++) {
        seen += h->buckets[i];
        if (seen >= rank)
            return clamp_u64(bucket_mid(i), h->min, h->max);
    }
    /* Only overflow samples rank this high; the max is the one value we know. */
    return h->max;
}

int
hist_log2_counts(const struct hist *h, uint64_t *counts, int nbuckets)
{
    if (nbuckets <= 0)
        return 0;
    memset(counts, 0, (size_t)nbuckets * sizeof(counts[0]));
    /* Overflow samples are known only to be >= 2^RANGE_BITS, so no slot lies past theirs. */
    int n = nbuckets < LOG2_SLOTS ? nbuckets : LOG2_SLOTS;

    for (int i = h->lo; i <= h->hi; i++) {
        if (h->buckets[i] == 0)
            continue;
        uint64_t low = bucket_low(i);
        int slot = low < 2 ? 0 : msb64(low);
        counts[slot < n ? slot : n - 1] += h->buckets[i];
    }
    counts[n - 1] += h->overflow;
    return n;
}

int
hist_nbuckets(void)
{
    return NBUCKETS;
}

uint64_t
hist_bucket(const struct hist *h, int idx)
{
    return h->buckets[idx];
}

void
hist_touched(const struct hist *h, int *lo, int *hi)
{
    *lo = h->lo;
    *hi = h->hi;
}

void
hist_bucket_add(struct hist *h, int idx, uint64_t n)
{
    uint64_t mid = bucket_mid(idx);

    if (n == 0)
        return;
    h->buckets[idx] += n;
    mark_touched(h, idx, idx);
    h->count += n;
    h->sum += mid * n;
    if (bucket_low(idx) < h->min)
        h->min = bucket_low(idx);
    if (mid > h->max)
        h->max = mid;
}

void
hist_set_exact(struct hist *h, uint64_t min, uint64_t max, uint64_t sum, uint64_t overflow)
{
    h->count += overflow - h->overflow;
    h->overflow = overflow;
    h->min = min;
    h->max = max;
    h->sum = sum;
}

void
hist_summarize(const struct hist *h, struct hist_summary *out)
{
    out->mean = hist_mean(h);
    out->p50 = hist_percentile(h, 50);
    out->p90 = hist_percentile(h, 90);
    out->p95 = hist_percentile(h, 95); /* sysbench's figure */
    out->p99 = hist_percentile(h, 99);
    out->p999 = hist_percentile(h, 99.9);
    out->max = hist_max(h);
}
