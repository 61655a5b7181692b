/* zipf: Gray et al.'s Zipf generator (see zipf.h). */
#include "zipf.h"

#include <math.h>

/* Terms of zeta summed one by one; beyond, the Euler-Maclaurin tail is exact to rounding. */
#define ZIPF_EXACT_TERMS 100000u

static double
zeta_exact(uint64_t n, double theta)
{
    double sum = 0;
    uint64_t i;

    /* From the smallest term up: the sum loses less to rounding. */
    for (i = n; i >= 1; i--)
        sum += pow((double)i, -theta);
    return sum;
}

/* sum for i = m+1..n of i^-theta by Euler-Maclaurin (two correction terms). */
static double
zeta_tail(uint64_t m, uint64_t n, double theta)
{
    double fm = pow((double)m, -theta), fn = pow((double)n, -theta);
    double integral = (pow((double)n, 1 - theta) - pow((double)m, 1 - theta)) / (1 - theta);
    double dfm = -theta * fm / (double)m, dfn = -theta * fn / (double)n;

    /* The sum from m+1 excludes f(m): the trapezoid's half is (f(n) - f(m)) / 2. */
    return integral + (fn - fm) / 2 + (dfn - dfm) / 12;
}

double
zipf_zeta(uint64_t n, double theta)
{
    if (n <= ZIPF_EXACT_TERMS)
        return zeta_exact(n, theta);
    return zeta_exact(ZIPF_EXACT_TERMS, theta) + zeta_tail(ZIPF_EXACT_TERMS, n, theta);
}

void
zipf_init(struct zipf *z, uint64_t n, double theta)
{
    double zeta2 = 1 + pow(0.5, theta);

    z->n = n < 1 ? 1 : n;
    z->theta = theta;
    z->alpha = 1 / (1 - theta);
    z->zetan = zipf_zeta(z->n, theta);
    z->cut_one = zeta2;
    /* With n <= 2 every draw falls below cut_one, and eta's formula would divide by 0. */
    z->eta = z->n > 2 ? (1 - pow(2.0 / (double)z->n, 1 - theta)) / (1 - zeta2 / z->zetan) : 0;
}

uint64_t
zipf_next(const struct zipf *z, struct rng *r)
{
    double u = rng_double(r), uz = u * z->zetan;
    uint64_t k;

    if (uz < 1)
        return 0;
    if (uz < z->cut_one)
        return z->n > 1 ? 1 : 0;
    k = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1, z->alpha));
    /* pow's rounding can land on n itself for u close to 1 */
    return k < z->n ? k : z->n - 1;
}
