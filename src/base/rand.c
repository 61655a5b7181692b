/*
 * rand: xoshiro256** (Blackman and Vigna), seeded through splitmix64 so that
 * nearby seeds (worker 0, 1, 2...) still give unrelated, never all-zero states.
 */
#include "rand.h"

#include <math.h>

#include "util.h"

/* gcc and clang provide it on 64-bit targets; __extension__ keeps -Wpedantic quiet. */
__extension__ typedef unsigned __int128 u128;

static uint64_t
rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t
splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0: Lemire's multiply-shift with rejection of the biased low part. */
static uint64_t
below(struct rng *r, uint64_t n)
{
    u128 m = (u128)rng_next(r) * n;
    uint64_t low = (uint64_t)m;

    if (low < n) {
        uint64_t threshold = -n % n;
        while (low < threshold) {
            m = (u128)rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

void
rng_seed(struct rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

uint64_t
rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double
rng_double(struct rng *r)
{
    /* 53 bits fill a double's mantissa exactly, so every value is equally likely. */
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

int64_t
rng_range(struct rng *r, int64_t lo, int64_t hi)
{
    /* Unsigned arithmetic: hi - lo overflows int64 for wide ranges. */
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    uint64_t off = span == UINT64_MAX ? rng_next(r) : below(r, span + 1);

    /* gcc converts out-of-range unsigned to signed modulo 2^64, which is what we want. */
    return (int64_t)((uint64_t)lo + off);
}

const char *const rng_dist_names[] = {"uniform", "gaussian", "special", "pareto", NULL};

int
rng_dist_parse(const char *name)
{
    return str_index(rng_dist_names, name);
}

/* lo + share * (hi - lo + 1), share in [0, 1), kept in [lo, hi] against rounding. */
static int64_t
scaled(int64_t lo, int64_t hi, double share)
{
    int64_t v = lo + (int64_t)(share * ((double)hi - (double)lo + 1));

    return v < lo ? lo : v > hi ? hi : v;
}

/* The mean of 12 uniform draws: a bell over [0, 1) (sysbench's --rand-spec-iter). */
static double
bell(struct rng *r)
{
    double sum = 0;

    for (int i = 0; i < 12; i++)
        sum += rng_double(r);
    return sum / 12;
}

int64_t
rng_dist(struct rng *r, enum rng_dist d, int64_t lo, int64_t hi)
{
    static const double special_share = 0.75, special_width = 0.01, pareto_h = 0.2;
    double u;

    switch (d) {
    case RNG_GAUSSIAN:
        return scaled(lo, hi, bell(r));
    case RNG_SPECIAL:
        u = rng_double(r);
        if (u >= special_share)
            return scaled(lo, hi, bell(r));
        /* the middle of the range, where sysbench puts its special values */
        return scaled(lo, hi, 0.5 - special_width / 2 + u / special_share * special_width);
    case RNG_PARETO:
        return scaled(lo, hi, pow(rng_double(r), log(pareto_h) / log(1 - pareto_h)));
    case RNG_UNIFORM:
    default:
        return rng_range(r, lo, hi);
    }
}
