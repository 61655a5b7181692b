/*
 * cmd-report: `benchtop report RUN [RUN...]`: a row per run (or per sweep
 * step), differences against the first judged against the runs' own
 * interval-to-interval noise, in text, markdown, csv or json; --html adds
 * the charts (report-html.c), --hlog an HdrHistogram interval log.
 */
#ifndef BENCHTOP_CMD_REPORT_H
#define BENCHTOP_CMD_REPORT_H

#include <stdio.h>

#include "record.h"
#include "runconf.h"

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

/*
 * The server series worth showing, as names: the rates and percentages that
 * differ most between the runs (for one run: that vary most over it), most
 * first. Returns how many (at most max) went into names.
 */
int report_server_series(const struct record *recs, int nrec, const char **names, int max);

int cmd_report(struct runconf *rc, char **pos, int npos);

/* report-html.c: the self-contained page. 0, or -1 with err. */
int report_html_write(FILE *f, struct record *recs, int nrec, const struct report_row *rows,
                      int nrows, double from, double to, char *err);

#endif
