/*
 * hist: HdrHistogram-style log-linear latency histogram in microseconds.
 *
 * Range 1 us .. at least 1 hour with 3 significant digits. Values above the
 * range are counted as overflow; the true maximum is always kept (never clamped).
 * A hist is owned by one thread at a time: no locks, no atomics. Recording
 * never allocates.
 */
#ifndef BENCHTOP_HIST_H
#define BENCHTOP_HIST_H

#include <stdint.h>

struct hist;

struct hist *hist_new(void);
void hist_free(struct hist *h);
/* Empties h; costs only what was touched since the last reset. */
void hist_reset(struct hist *h);
void hist_record(struct hist *h, uint64_t value_us);
/* Adds every sample of src to dst (dst == recording both sample sets). */
void hist_merge(struct hist *dst, const struct hist *src);

uint64_t hist_count(const struct hist *h);
uint64_t hist_overflow(const struct hist *h);
double hist_mean(const struct hist *h);
/* Sum of every sample, overflow included (exact). */
uint64_t hist_sum(const struct hist *h);
uint64_t hist_min(const struct hist *h);
uint64_t hist_max(const struct hist *h);
/* Value at percentile pct (0 < pct <= 100); 0 for an empty histogram. */
uint64_t hist_percentile(const struct hist *h, double pct);

/* The figures every report shows. */
struct hist_summary {
    double mean;
    uint64_t p50, p90, p99, p999, max;
    uint64_t p95; /* sysbench's figure; last, so positional initialisers keep their meaning */
};

void hist_summarize(const struct hist *h, struct hist_summary *out);

/*
 * The bucket array, for encoders (src/base/hdrlog.c). Its layout is exactly
 * HdrHistogram's counts array for lowest 1, highest 2^32-1 and 3
 * significant digits: index i here is index i there.
 */
int hist_nbuckets(void);
uint64_t hist_bucket(const struct hist *h, int idx);
/* Lowest and highest index that may be non-zero (*hi < *lo when empty). */
void hist_touched(const struct hist *h, int *lo, int *hi);
/* Adds n samples to bucket idx: count, min, max and sum as if each were its midpoint. */
void hist_bucket_add(struct hist *h, int idx, uint64_t n);
/* Restores the exact totals an encoding does not carry (after hist_bucket_add). */
void hist_set_exact(struct hist *h, uint64_t min, uint64_t max, uint64_t sum, uint64_t overflow);

/*
 * Coarse view for small displays: counts per power-of-two bucket
 * [2^i, 2^(i+1)) us for i in 0..nbuckets-1 (bucket 0 holds 0 and 1 us,
 * the last bucket holds everything above). Returns the number filled.
 */
int hist_log2_counts(const struct hist *h, uint64_t *counts, int nbuckets);

#endif
