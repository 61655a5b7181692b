/*
 * html: `benchtop report --html` (html.c): one self-contained page of SVG
 * charts and the comparison's table.
 */
#ifndef BENCHTOP_HTML_H
#define BENCHTOP_HTML_H

#include <stdio.h>

#include "rows.h"

/* The page for the records and the table's rows, over [from, to]: 0, or -1 with err. */
int report_html_write(FILE *f, struct record *recs, int nrec, const struct report_row *rows,
                      int nrows, double from, double to, char *err);

#endif
