/*
 * zipf: Zipf-distributed integers in [0, n), rank 0 the most popular, by
 * Gray et al.'s method ("Quickly generating billion-record synthetic
 * databases", SIGMOD 1994), the one YCSB's ZipfianGenerator uses: a one-time
 * zeta(n) sum in zipf_init, then O(1) per draw with no allocation. The state
 * is read-only after zipf_init, so threads share one and each brings its rng.
 *
 * P(rank k) = (1 / (k + 1)^theta) / zeta(n, theta). Ranks are not scrambled:
 * key 0 is the hottest, which keeps the spread easy to check.
 */
#ifndef BENCHTOP_ZIPF_H
#define BENCHTOP_ZIPF_H

#include <stdint.h>

#include "rand.h"

/* YCSB's default skew. */
#define ZIPF_THETA 0.99

struct zipf {
    uint64_t n;
    double theta;
    double alpha;   /* 1 / (1 - theta) */
    double zetan;   /* zeta(n, theta) */
    double eta;     /* Gray et al.'s eta, for ranks >= 2 */
    double cut_one; /* 1 + 0.5^theta: u * zetan below it is rank 0 or 1 */
};

/* n >= 1, 0 < theta < 1. Costs up to ~100,000 pow() calls (once). */
void zipf_init(struct zipf *z, uint64_t n, double theta);
/* One draw in [0, n). */
uint64_t zipf_next(const struct zipf *z, struct rng *r);
/*
 * zeta(n, theta) = sum for i = 1..n of 1 / i^theta: summed exactly for the
 * first 100,000 terms, the rest by Euler-Maclaurin (relative error < 1e-12),
 * so a key space of 10^12 does not cost 10^12 pow() calls.
 */
double zipf_zeta(uint64_t n, double theta);

#endif
