/*
 * sched: Poisson arrivals. The schedule is kept in double microseconds and
 * only truncated when handed out, so the sub-microsecond part of each gap
 * accumulates instead of being lost (at 10^6/s every gap would round to 0 or 1).
 */
#include "sched.h"

#include <math.h>

#include "util.h"

static void
check_rate(double rate_per_s)
{
    /* Callers validate user input; a bad rate here is a programming error. */
    if (!(rate_per_s > 0.0) || !isfinite(rate_per_s))
        fatal("sched: rate must be positive and finite, got %g", rate_per_s);
}

/* Exponential gap in microseconds by inversion; 1 - U lies in (0, 1] so the log is finite. */
static double
draw_gap_us(struct sched *s)
{
    return -log1p(-rng_double(&s->rng)) / s->rate * 1e6;
}

void
sched_init(struct sched *s, double rate_per_s, uint64_t start_us, uint64_t seed)
{
    check_rate(rate_per_s);
    s->rate = rate_per_s;
    rng_seed(&s->rng, seed);
    s->next_us = (double)start_us + draw_gap_us(s);
}

uint64_t
sched_peek(const struct sched *s)
{
    return (uint64_t)s->next_us;
}

uint64_t
sched_take(struct sched *s)
{
    uint64_t t = sched_peek(s);

    s->next_us += draw_gap_us(s);
    return t;
}

int
sched_is_late(uint64_t scheduled, uint64_t started, uint64_t late_us)
{
    /* Subtract rather than add: scheduled + late_us could wrap. */
    return started >= scheduled && started - scheduled >= late_us;
}
