/*
 * rand: xoshiro256** (Blackman and Vigna), seeded through splitmix64 so that
 * nearby seeds (worker 0, 1, 2...) still give unrelated, never all-zero states.
 */
#include "rand.h"

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
