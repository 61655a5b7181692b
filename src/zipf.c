/*
 * zipf: YCSB's ZipfianGenerator (see zipf.h), without its incremental
 * zeta updates: the key space is fixed for a run.
 */
#include "zipf.h"

#include <math.h>

/* Terms summed one by one; past this, the tail is smooth enough for Euler-Maclaurin. */
#define ZETA_EXACT_TERMS (1u << 20)

static double
tail_sum(double a, double b, double theta)
{
    /* sum_{i=a..b} f(i) for f(x) = x^-theta: integral, end points, two derivative terms. */
    double integral = (pow(b, 1.0 - theta) - pow(a, 1.0 - theta)) / (1.0 - theta);
    double ends = (pow(a, -theta) + pow(b, -theta)) / 2.0;
    double d1 = -theta * (pow(b, -theta - 1.0) - pow(a, -theta - 1.0)) / 12.0;
    double d3 = -theta * (theta + 1.0) * (theta + 2.0) *
                (pow(b, -theta - 3.0) - pow(a, -theta - 3.0)) / 720.0;

    return integral + ends + d1 - d3;
}

double
zipf_zeta(uint64_t n, double theta)
{
    uint64_t m = n < ZETA_EXACT_TERMS ? n : ZETA_EXACT_TERMS;
    double sum = 0.0;

    /* Smallest terms first: they would vanish next to the large ones otherwise. */
    for (uint64_t i = m; i >= 1; i--)
        sum += pow((double)i, -theta);
    if (n > m)
        sum += tail_sum((double)m + 1.0, (double)n, theta);
    return sum;
}

int
zipf_init(struct zipf *z, uint64_t n, double theta)
{
    if (n < 1 || !(theta > 0.0 && theta < 1.0))
        return -1;
    z->n = n;
    z->theta = theta;
    z->alpha = 1.0 / (1.0 - theta);
    z->zetan = zipf_zeta(n, theta);
    z->two_cutoff = 1.0 + pow(0.5, theta);
    /* With n <= 2 the formula is 0/0, and the first two ranks are all there is anyway. */
    z->eta =
        n <= 2 ? 0.0
               : (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - zipf_zeta(2, theta) / z->zetan);
    return 0;
}

uint64_t
zipf_next(const struct zipf *z, struct rng *r)
{
    double u = rng_double(r);
    double uz = u * z->zetan;
    uint64_t k;

    if (uz < 1.0 || z->n == 1)
        return 0;
    if (uz < z->two_cutoff || z->n == 2)
        return 1;
    k = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha));
    /* Rounding can land on n itself when u is within an ulp of 1. */
    return k < z->n ? k : z->n - 1;
}
