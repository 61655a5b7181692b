/*
 * merge: the records of agents that ran as one (--instance, --start-at)
 * made into one record: intervals aligned on the wall clock, counts
 * summed, histograms added (never percentiles averaged), the server's
 * samples kept once. Read with jansson; written as record lines.
 */
#ifndef BENCHTOP_MERGE_H
#define BENCHTOP_MERGE_H

#include <stdint.h>
#include <jansson.h>
#include <stdio.h>

#include "base/hist.h"

/* The interval counters that add up across agents. */
#define MERGE_SUMS                                                                                 \
    X(clients)                                                                                     \
    X(connected)                                                                                   \
    X(transactions)                                                                                \
    X(errors)                                                                                      \
    X(late)                                                                                        \
    X(retried)                                                                                     \
    X(retries)                                                                                     \
    X(reconnects)                                                                                  \
    X(connect_fails)

/* One merged interval, gathered from the agents' interval lines. */
struct merge_bin {
    double end, len; /* end: seconds since the fleet's start; len: the longest agent's */
#define X(f) uint64_t f;
    MERGE_SUMS
#undef X
    double ops; /* requests, from each agent's ops/s times its length */
    int agents;
    uint64_t min, max, sum, overflow;
    json_t *by_kind;       /* errors_by_kind, summed */
    const char *kinds[16]; /* the agents' distinct verdict kinds (pointing into their lines) */
    int kind_agents[16];   /* how many agents said each: 300 agents counted, however many */
    int nkind;
};

/*
 * Writes the merged record of paths[0..n) to out. Records of different
 * targets, workloads, protocols or intervals, the same record or instance
 * twice, or a file that is no record: -1 with err, before anything is
 * written. 0 when written.
 */
int merge_records(FILE *out, char **paths, int n, int quiet, char *err);

/* Empties b, and h for its histogram. */
void merge_bin_start(struct merge_bin *b, struct hist *h);
/*
 * Adds one agent's {"type":"interval"} line o, which ends at `end` (seconds
 * since the fleet's start): its counters to b, its histogram to h. o must
 * outlive b (the verdict points into it). 0, or -1 with err.
 */
int merge_bin_add(struct merge_bin *b, const json_t *o, double end, struct hist *h, char *err);
/* Puts the agents' exact min, max and sum on h (the encoding carries buckets only). */
void merge_bin_finish(const struct merge_bin *b, struct hist *h);
/* The verdict most agents gave (the first one's on a tie), and how many gave it. */
const char *merge_bin_verdict(const struct merge_bin *b, int *agree);
void merge_bin_free(struct merge_bin *b);

#endif
