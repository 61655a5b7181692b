/*
 * zipf: a zipfian key generator, YCSB's (Gray et al., "Quickly Generating
 * Billion-Record Synthetic Databases", SIGMOD 1994): rank 0 is the most
 * popular, P(rank i) ~ 1 / (i + 1)^theta. All the set-up cost (zeta(n),
 * the sum that normalises the distribution) is paid once in zipf_init;
 * a draw is one uniform number and one pow(), with no allocation, so the
 * struct is built once per run and shared read-only by every thread.
 */
#ifndef BENCHTOP_ZIPF_H
#define BENCHTOP_ZIPF_H

#include <stdint.h>

#include "rand.h"

/* YCSB's default skew. */
#define ZIPF_THETA 0.99

struct zipf {
    uint64_t n;        /* ranks 0 .. n-1 */
    double theta;      /* skew, 0 < theta < 1 */
    double alpha;      /* 1 / (1 - theta) */
    double zetan;      /* zeta(n, theta) */
    double eta;        /* Gray's constant for ranks >= 2 */
    double two_cutoff; /* 1 + 0.5^theta: below it (times zetan) a draw is rank 1 */
};

/*
 * sum_{i=1..n} 1/i^theta: exact for the first 2^20 terms, Euler-Maclaurin
 * for the rest, so that n = 10^12 takes milliseconds (relative error far
 * below 1e-12).
 */
double zipf_zeta(uint64_t n, double theta);

/* Sets z up for ranks 0 .. n-1 (n >= 1) and skew theta in (0, 1). 0, or -1 if out of range. */
int zipf_init(struct zipf *z, uint64_t n, double theta);

/* One rank in [0, n). */
uint64_t zipf_next(const struct zipf *z, struct rng *r);

#endif
