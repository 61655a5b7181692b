/*
 * rows: the comparison's table as data (rows.c), shared by compare.c's
 * formats and html.c's page.
 */
#ifndef BENCHTOP_ROWS_H
#define BENCHTOP_ROWS_H

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

/* Whether b differs from a beyond the noise of their intervals (sd_a, sd_b): 1, 0, or -1
 * when a run has too few intervals to tell. */
int report_beyond_noise(double a, double b, double sd_a, double sd_b);

#endif
