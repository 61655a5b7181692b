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

/* One row of the comparison: a run, or a step of a sweep. */
struct report_row {
    const struct record *rec;
    const char *step; /* a sweep step's label ("4 clients"); NULL for a whole run */
    int base;         /* the row its "vs 1st" figures compare with (report_bases) */
    char label[128];
    double from, to;
    struct rec_summary sum;
};

enum { REPORT_NCOLS = 14 };

/* The table's cells as text, row by row (shared by every format and the HTML page). */
extern const char *const report_columns[REPORT_NCOLS];
void report_row_cells(const struct report_row *rows, int i, char cells[REPORT_NCOLS][64]);
/* The table's footnotes, each line between pre and post: the marks, what a row is compared with. */
void report_notes(FILE *f, const struct report_row *rows, int n, const char *pre, const char *post);

/*
 * The server series worth showing, as names: the rates and percentages that
 * differ most between the runs (for one run: that vary most over it), most
 * first. Returns how many (at most max) went into names.
 */
int report_server_series(const struct record *recs, int nrec, const char **names, int max);

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

/* html.c: the self-contained page. 0, or -1 with err. */
int report_html_write(FILE *f, struct record *recs, int nrec, const struct report_row *rows,
                      int nrows, double from, double to, char *err);

#endif
