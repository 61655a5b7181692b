/*
 * tryreport: a try's A/B table, printed by `benchtop try` as it ends and
 * by `benchtop report` from the {"type":"try"} line of its -o record, so
 * both print the same. The line is written by try_line_write and read
 * back by try_line_read (jansson).
 */
#ifndef BENCHTOP_TRYREPORT_H
#define BENCHTOP_TRYREPORT_H

#include <stdio.h>

#include "analysis/trystat.h"

struct try_table {
    char target[512]; /* masked */
    char change[512]; /* "synchronous_commit=off, -c 8" */
    int rounds;       /* A/B pairs asked for */
    double for_s, warmup_s;
    int n;
    struct try_round r[TRY_MAX_ROUNDS];
    struct try_result res;
};

/* The table, the sentence and the prediction. */
void try_table_print(FILE *f, const struct try_table *t);
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
