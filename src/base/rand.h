/*
 * rand: a small, fast per-thread PRNG (xoshiro256**). Never shared between
 * threads; each worker seeds its own.
 */
#ifndef BENCHTOP_RAND_H
#define BENCHTOP_RAND_H

#include <stdint.h>

struct rng {
    uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, 1). */
double rng_double(struct rng *r);
/* Uniform integer in [lo, hi], inclusive, without modulo bias. Requires lo <= hi. */
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi);

#endif
