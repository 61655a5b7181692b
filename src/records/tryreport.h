/*
 * tryreport: a try's A/B table, printed by `benchtop try` as it ends and
 * by `benchtop report` from the {"type":"try"} line of its -o record, so
 * both print the same. The line is written by try_line_write and read
 * back by try_line_read (jansson). The advice's record: each try's
 * advice, prediction and outcome tallied over several records (try
 * lines, and the dashboard's `t` events in run records), by the kind of
 * advice (the A rounds' verdict).
 */
#ifndef BENCHTOP_TRYREPORT_H
#define BENCHTOP_TRYREPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/trystat.h"

struct try_table {
    char target[512]; /* masked */
    char change[512]; /* "synchronous_commit=off, -c 8" */
    int rounds;       /* A/B pairs at most (--rounds) */
    double for_s, warmup_s;
    double budget_s; /* --budget: no pair started after it was spent */
    uint64_t seed;   /* each pair's order (AB or BA) drawn from it */
    char stop[120];  /* why the rounds stopped: "decisive after 3 pairs", ... */
    int n;
    struct try_round r[TRY_MAX_ROUNDS];
    struct try_result res;
};

/* The table, the sentence and the prediction. */
void try_table_print(FILE *f, const struct try_table *t);
/* The judged members of res (outcome, interval, the advice and its score) for a JSON object. */
void try_result_json(FILE *f, const struct try_result *res);

/* The advice's record: tries counted by their A rounds' verdict and their score. */
struct try_tally {
    int n[VK__COUNT][TRY_UNTESTED + 1];
};

/*
 * The tries of the record at path (its try line, or the dashboard's try
 * events) added to tally. How many were added, or -1 with err.
 */
int try_tally_read(const char *path, struct try_tally *tally, char *err);
/*
 * "12 tries: 9 held, 1 did not, 2 inconclusive", then a line per kind of
 * advice. Nothing when tally holds no try.
 */
void try_tally_print(FILE *f, const struct try_tally *tally);
/* The {"type":"try"} line: the rounds, both sides, the difference and the sentences. */
void try_line_write(FILE *f, const struct try_table *t);
/*
 * The last {"type":"try"} line of the record at path into t. 1 when there
 * is one, 0 when the file holds none, -1 with err when it cannot be read.
 */
int try_line_read(const char *path, struct try_table *t, char *err);
/*
 * report --html of a try's record at path (html.c): t's table, then A and
 * B over time (tps, p99), each round's measured part shaded. 0, or -1.
 */
int try_html_write(FILE *f, const char *path, const struct try_table *t, char *err);

#endif
