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
uint64_t hist_min(const struct hist *h);
uint64_t hist_max(const struct hist *h);
/* Value at percentile pct (0 < pct <= 100); 0 for an empty histogram. */
uint64_t hist_percentile(const struct hist *h, double pct);

/* The figures every report shows. */
struct hist_summary {
    double mean;
    uint64_t p50, p90, p99, p999, max;
};

void hist_summarize(const struct hist *h, struct hist_summary *out);

/*
 * Coarse view for small displays: counts per power-of-two bucket
 * [2^i, 2^(i+1)) us for i in 0..nbuckets-1 (bucket 0 holds 0 and 1 us,
 * the last bucket holds everything above). Returns the number filled.
 */
int hist_log2_counts(const struct hist *h, uint64_t *counts, int nbuckets);

#endif
