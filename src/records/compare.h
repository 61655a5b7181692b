/*
 * compare: recorded runs side by side (`benchtop report RUN [RUN...]`): a row per run (or per sweep
 * step), differences against the first judged against the runs' own
 * interval-to-interval noise, in text, markdown, csv or json; --html adds
 * the charts (html.c), --hlog an HdrHistogram interval log.
 */
#ifndef BENCHTOP_COMPARE_H
#define BENCHTOP_COMPARE_H

#include <stdio.h>

#include "record.h"
#include "rows.h"

/* What `benchtop report` asked for. */
struct compare_opts {
    int format;       /* compare_format()'s index: text, markdown, csv, json */
    double from, to;  /* the window, seconds from each run's start; to 0: the end */
    const char *html; /* NULL, or the page to write (html.c) */
    const char *hlog; /* NULL, or one run's HdrHistogram interval log to write */
};

/* The index of a --format name, or -1. */
int compare_format(const char *name);
/* Loads the records and writes the comparison to out; exits 2 on a bad record. 0, or 1 on a write
 * error. */
int compare_write(FILE *out, char *const *paths, int npos, const struct compare_opts *o);

#endif
