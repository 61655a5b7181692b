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

/*
 * sysbench's --rand-type distributions, with its default parameters:
 * uniform; gaussian (the mean of 12 uniform draws); special (sysbench
 * 1.0's default: 75% of draws uniform in the middle 1% of the range, the
 * rest gaussian over all of it); pareto (h = 0.2: 80% of draws in the
 * lowest 20%).
 */
enum rng_dist { RNG_UNIFORM, RNG_GAUSSIAN, RNG_SPECIAL, RNG_PARETO };

/* The names sysbench uses, in enum order, NULL-terminated. */
extern const char *const rng_dist_names[];
/* The distribution named name; -1 if none is. */
int rng_dist_parse(const char *name);
/* An integer in [lo, hi] (lo <= hi) drawn from distribution d. */
int64_t rng_dist(struct rng *r, enum rng_dist d, int64_t lo, int64_t hi);

#endif
