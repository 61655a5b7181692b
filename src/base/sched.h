/*
 * sched: the open-loop (-R) arrival schedule of one worker thread.
 *
 * Poisson arrivals: exponential gaps with mean 1/rate. Times are absolute
 * microseconds on the now_us() clock, kept as doubles internally so that
 * high rates do not lose precision to rounding. Latency of an open-loop
 * transaction is measured from its scheduled time, not from when a client
 * became free, so a stall shows up in the latency (no coordinated omission).
 */
#ifndef BENCHTOP_SCHED_H
#define BENCHTOP_SCHED_H

#include <stdint.h>
#include "rand.h"

/* A transaction that starts this much or more after its scheduled time is late. */
#define SCHED_LATE_US_DEFAULT 10000

struct sched {
    double rate;    /* transactions per second for this thread, > 0 */
    double next_us; /* scheduled time of the next transaction */
    struct rng rng;
};

void sched_init(struct sched *s, double rate_per_s, uint64_t start_us, uint64_t seed);
/* Scheduled time of the next transaction, without consuming it. */
uint64_t sched_peek(const struct sched *s);
/* Consumes and returns the next scheduled time; draws the following gap. */
uint64_t sched_take(struct sched *s);
/* Whether a transaction scheduled at `scheduled` and started at `started` is late. */
int sched_is_late(uint64_t scheduled, uint64_t started, uint64_t late_us);

#endif
