/*
 * html: `benchtop report --html`: one HTML page with inline SVG
 * charts written here, no script and no network. SVG written by benchtop
 * rather than gnuplot or a chart library: no runtime dependency, the page
 * holds the exact numbers benchtop computed (tests read them back), and a
 * line chart is a polyline and a few ticks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "base/hist.h"
#include "base/hdrlog.h"
#include "base/text.h"
#include "base/util.h"

enum {
    W = 760,
    H = 260,
    LEFT = 70,
    RIGHT = 40, /* room for the last tick label, "99.999%" */
    TOP = 30,
    BOTTOM = 40,
    SPECTRUM_POINTS = 101, /* 1 - 10^(-k/20): 0% .. 99.999% */
    MAX_SERVER_CHARTS = 4,
};

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c",
                                      "#9467bd", "#ff7f0e", "#17becf"};
#define NCOLOURS (sizeof colours / sizeof colours[0])

struct line {
    const char *name;
    int n;
    double *x, *y;
};

struct chart {
    const char *id, *title, *xlabel, *ylabel;
    int logx; /* x is 1/(1-percentile), log-scaled */
    int nlines;
    struct line lines[16];
    const struct record *events; /* NULL: no event marks */
    int nrec;
};

/* Every string from a record reaches the page through the one escaper. */
static void
html_text(FILE *f, const char *s)
{
    text_put(f, s, TEXT_HTML);
}

static void
line_add(struct line *l, double x, double y)
{
    if (isnan(x) || isnan(y))
        return;
    l->x = xrealloc(l->x, (size_t)(l->n + 1) * sizeof(double));
    l->y = xrealloc(l->y, (size_t)(l->n + 1) * sizeof(double));
    l->x[l->n] = x;
    l->y[l->n++] = y;
}

static void
chart_free(struct chart *c)
{
    int i;

    for (i = 0; i < c->nlines; i++) {
        free(c->lines[i].x);
        free(c->lines[i].y);
    }
}

/* A tick step of 1, 2 or 5 times a power of ten, about span/5. */
static double
nice_step(double span)
{
    double raw = span / 5, mag = pow(10, floor(log10(raw))), r = raw / mag;

    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

static void
chart_bounds(const struct chart *c, double *x0, double *x1, double *y1)
{
    int i, k;

    *x0 = INFINITY;
    *x1 = -INFINITY;
    *y1 = 0;
    for (i = 0; i < c->nlines; i++)
        for (k = 0; k < c->lines[i].n; k++) {
            *x0 = fmin(*x0, c->lines[i].x[k]);
            *x1 = fmax(*x1, c->lines[i].x[k]);
            *y1 = fmax(*y1, c->lines[i].y[k]);
        }
    if (!(*x1 > *x0)) {
        *x0 = isfinite(*x0) ? *x0 - 1 : 0;
        *x1 = *x0 + 2;
    }
    *y1 = *y1 > 0 ? *y1 * 1.08 : 1;
}

struct scale {
    double x0, x1, y1;
    int logx;
};

static double
sx(const struct scale *s, double x)
{
    double a = s->logx ? log10(x) : x, lo = s->logx ? log10(s->x0) : s->x0,
           hi = s->logx ? log10(s->x1) : s->x1;

    return LEFT + (a - lo) / (hi - lo) * (W - LEFT - RIGHT);
}

static double
sy(const struct scale *s, double y)
{
    return H - BOTTOM - y / s->y1 * (H - TOP - BOTTOM);
}

static void
draw_axes(FILE *f, const struct chart *c, const struct scale *s)
{
    double step = nice_step(s->y1), v;

    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>", LEFT, H - BOTTOM,
            W - RIGHT, H - BOTTOM);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", LEFT, TOP, LEFT,
            H - BOTTOM);
    for (v = 0; v <= s->y1; v += step)
        fprintf(f,
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g</text>"
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                LEFT - 4, sy(s, v) + 4, v, LEFT, sy(s, v), W - RIGHT, sy(s, v));
    if (s->logx) {
        static const char *const pct[] = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
        for (int k = 0; k <= 5; k++)
            fprintf(f,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n",
                    sx(s, pow(10, k)), H - BOTTOM + 14, pct[k]);
    } else {
        step = nice_step(s->x1 - s->x0);
        for (v = ceil(s->x0 / step) * step; v <= s->x1; v += step)
            fprintf(f,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">%g</text>\n",
                    sx(s, v), H - BOTTOM + 14, v);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">", (W + LEFT) / 2,
            H - 6);
    html_text(f, c->xlabel);
    fprintf(f,
            "</text><text x=\"14\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 14 %d)\" "
            "text-anchor=\"middle\">",
            (H - BOTTOM + TOP) / 2, (H - BOTTOM + TOP) / 2);
    html_text(f, c->ylabel);
    fputs("</text>\n", f);
}

/* Events as dashed vertical lines with the text as a tooltip. */
static void
draw_events(FILE *f, const struct chart *c, const struct scale *s)
{
    int r, i;

    for (r = 0; c->events && r < c->nrec; r++)
        for (i = 0; i < c->events[r].nevent; i++) {
            double t = c->events[r].ev[i].t;
            if (!(t >= s->x0 && t <= s->x1))
                continue;
            fprintf(f,
                    "<line class=\"event\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                    "stroke=\"%s\" stroke-dasharray=\"3,3\"><title>",
                    sx(s, t), TOP, sx(s, t), H - BOTTOM, colours[r % NCOLOURS]);
            html_text(f, c->events[r].name);
            fprintf(f, " %.1f s: ", t);
            html_text(f, c->events[r].ev[i].text);
            fputs("</title></line>\n", f);
        }
}

static void
chart_write(FILE *f, const struct chart *c)
{
    struct scale s = {.logx = c->logx};
    int i, k;

    if (c->nlines == 0)
        return;
    chart_bounds(c, &s.x0, &s.x1, &s.y1);
    if (c->logx)
        s.x0 = 1, s.x1 = 1e5;
    fprintf(f, "<h2>");
    html_text(f, c->title);
    fprintf(f, "</h2>\n<svg class=\"chart\" id=\"%s\" width=\"%d\" height=\"%d\">\n", c->id, W, H);
    draw_axes(f, c, &s);
    draw_events(f, c, &s);
    for (i = 0; i < c->nlines; i++) {
        const struct line *l = &c->lines[i];
        fprintf(f,
                "<polyline class=\"series\" fill=\"none\" stroke-width=\"1.5\" stroke=\"%s\" "
                "points=\"",
                colours[i % NCOLOURS]);
        for (k = 0; k < l->n; k++)
            fprintf(f, "%s%.1f,%.1f", k ? " " : "", sx(&s, l->x[k]), sy(&s, l->y[k]));
        fputs("\"><title>", f);
        html_text(f, l->name);
        fputs("</title></polyline>\n", f);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">", LEFT + 10, TOP + 12 * i,
                colours[i % NCOLOURS]);
        html_text(f, l->name);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
}

/* --- the charts --- */

static int
time_charts(FILE *f, struct record *recs, int nrec, char *err)
{
    struct chart tps = {.id = "tps",
                        .title = "Throughput over time",
                        .xlabel = "seconds into the run",
                        .ylabel = "transactions/s"};
    struct chart p50 = {.id = "p50",
                        .title = "p50 latency over time",
                        .xlabel = "seconds into the run",
                        .ylabel = "ms"};
    struct chart p99 = {.id = "p99",
                        .title = "p99 latency over time",
                        .xlabel = "seconds into the run",
                        .ylabel = "ms"};
    struct hist *h = hist_new();
    int r, i, rv = 0;

    tps.events = p50.events = p99.events = recs;
    tps.nrec = p50.nrec = p99.nrec = nrec;
    for (r = 0; r < nrec && r < 16 && rv == 0; r++) {
        tps.lines[r].name = p50.lines[r].name = p99.lines[r].name = recs[r].name;
        for (i = 0; i < recs[r].ninterval && rv == 0; i++) {
            const struct rec_interval *iv = &recs[r].iv[i];
            line_add(&tps.lines[r], iv->t, iv->len > 0 ? (double)iv->txns / iv->len : NAN);
            hist_reset(h);
            if (iv->hdr == NULL || hdrlog_decode(iv->hdr, h, err) < 0) {
                rv = seterr(err, "%s: interval at %.3f s has no readable histogram", recs[r].path,
                            iv->t);
                break;
            }
            if (hist_count(h) == 0)
                continue;
            line_add(&p50.lines[r], iv->t, (double)hist_percentile(h, 50) / 1000.0);
            line_add(&p99.lines[r], iv->t, (double)hist_percentile(h, 99) / 1000.0);
        }
        tps.nlines = p50.nlines = p99.nlines = r + 1;
    }
    if (rv == 0) {
        chart_write(f, &tps);
        chart_write(f, &p50);
        chart_write(f, &p99);
    }
    chart_free(&tps);
    chart_free(&p50);
    chart_free(&p99);
    hist_free(h);
    return rv;
}

static int
spectrum_chart(FILE *f, struct record *recs, int nrec, double from, double to, char *err)
{
    struct chart c = {.id = "spectrum",
                      .title = "Latency by percentile (whole run, --from/--to applied)",
                      .xlabel = "percentile",
                      .ylabel = "ms",
                      .logx = 1};
    struct hist *h = hist_new();
    int r, k, rv = 0;

    for (r = 0; r < nrec && r < 16 && rv == 0; r++) {
        hist_reset(h);
        rv = record_merge_hist(&recs[r], from, to, h, err);
        c.lines[r].name = recs[r].name;
        c.nlines = r + 1;
        for (k = 0; k < SPECTRUM_POINTS && rv == 0; k++) {
            double x = pow(10, k / 20.0);
            line_add(&c.lines[r], x, (double)hist_percentile(h, 100.0 - 100.0 / x) / 1000.0);
        }
    }
    if (rv == 0)
        chart_write(f, &c);
    chart_free(&c);
    hist_free(h);
    return rv;
}

static void
sweep_charts(FILE *f, const struct report_row *rows, int nrows)
{
    struct chart tps = {.id = "sweep-tps",
                        .title = "Throughput against load (sweep steps)",
                        .xlabel = "clients (or rate)",
                        .ylabel = "transactions/s"};
    struct chart p99 = {.id = "sweep-p99",
                        .title = "p99 against load (sweep steps)",
                        .xlabel = "clients (or rate)",
                        .ylabel = "ms"};
    const struct record *cur = NULL;
    int i;

    for (i = 0; i < nrows; i++) {
        if (rows[i].rec->nstep == 0)
            continue;
        if (rows[i].rec != cur) {
            if (tps.nlines == 16)
                break;
            cur = rows[i].rec;
            tps.lines[tps.nlines++].name = p99.lines[p99.nlines++].name = cur->name;
        }
        /* the label after the file name starts with the step's clients or rate */
        double x = atof(rows[i].label + strlen(cur->name) + 1);
        line_add(&tps.lines[tps.nlines - 1], x, rows[i].sum.tps);
        line_add(&p99.lines[p99.nlines - 1], x, rows[i].sum.p99 / 1000.0);
    }
    chart_write(f, &tps);
    chart_write(f, &p99);
    chart_free(&tps);
    chart_free(&p99);
}

/* One chart of a server series, the runs overlaid. */
static void
server_chart(FILE *f, struct record *recs, int nrec, const char *name, int nth)
{
    char id[32];
    struct chart c = {.id = id, .title = name, .xlabel = "seconds into the run", .ylabel = name};
    int r, i;

    snprintf(id, sizeof id, "server-%d", nth);
    c.events = recs;
    c.nrec = nrec;
    for (r = 0; r < nrec && r < 16; r++) {
        int k = record_series(&recs[r], name);
        c.lines[r].name = recs[r].name;
        c.nlines = r + 1;
        for (i = 0; k >= 0 && i < recs[r].nsample; i++)
            line_add(&c.lines[r], recs[r].smp[i].t, record_sample(&recs[r], i, k));
    }
    chart_write(f, &c);
    chart_free(&c);
}

/* The server's own tps, then the series that differ most between the runs. */
static void
server_charts(FILE *f, struct record *recs, int nrec)
{
    const char *names[MAX_SERVER_CHARTS];
    int n = report_server_series(recs, nrec, names, MAX_SERVER_CHARTS), i;

    server_chart(f, recs, nrec, "server tps", 0);
    for (i = 0; i < n; i++)
        server_chart(f, recs, nrec, names[i], i + 1);
}

static void
summary_table(FILE *f, const struct report_row *rows, int nrows)
{
    char cells[REPORT_NCOLS][64];
    int i, c;

    fputs("<table id=\"summary\">\n<tr>", f);
    for (c = 0; c < REPORT_NCOLS; c++) {
        fputs("<th>", f);
        html_text(f, report_columns[c]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (i = 0; i < nrows; i++) {
        report_row_cells(rows, i, cells);
        fputs("<tr>", f);
        for (c = 0; c < REPORT_NCOLS; c++) {
            fputs("<td>", f);
            html_text(f, cells[c]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n<p>* beyond the runs' interval-to-interval noise; ? too few intervals to "
          "tell (see benchtop(1), REPORT).</p>\n",
          f);
}

/* The header lines that differ (want_same 0) or not, as table rows: key, then a cell per run. */
static int
head_rows(FILE *f, const struct record *recs, int nrec, int want_same)
{
    int r, i, k, n = 0;

    for (r = 0; r < nrec; r++)
        for (i = 0; i < recs[r].nhead; i++) {
            const char *key = recs[r].head[i].key;
            if (!record_head_first(recs, r, key) || (nrec > 1 && record_head_same(recs, nrec, key) != want_same))
                continue;
            fputs("<tr><th>", f);
            html_text(f, key);
            fputs("</th>", f);
            for (k = 0; k < (want_same ? 1 : nrec); k++) {
                fputs("<td>", f);
                html_text(f, record_head(&recs[k], key) ? record_head(&recs[k], key) : "(none)");
                fputs("</td>", f);
            }
            fputs("</tr>\n", f);
            n++;
        }
    return n;
}

/* What changed between the runs, first: settings, options, versions, host. */
static void
differences(FILE *f, const struct record *recs, int nrec)
{
    int r;

    fputs(nrec > 1 ? "<h2>What differs between the runs</h2>\n<table id=\"differences\">\n<tr><th></th>"
                   : "<h2>The run</h2>\n<table id=\"differences\">\n<tr><th></th>",
          f);
    for (r = 0; r < nrec; r++) {
        fprintf(f, "<th style=\"color:%s\">", colours[r % NCOLOURS]);
        html_text(f, recs[r].name);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    if (head_rows(f, recs, nrec, 0) == 0)
        fputs("<tr><td colspan=\"9\">nothing in settings, options, versions or host</td></tr>\n", f);
    fputs("</table>\n", f);
}

/* What every run shares, folded away; then each run's events. */
static void
run_headers(FILE *f, const struct record *recs, int nrec)
{
    int r, i;

    if (nrec > 1) {
        fputs("<details id=\"common\"><summary>The same in every run</summary>\n<table>\n", f);
        head_rows(f, recs, nrec, 1);
        fputs("</table>\n</details>\n", f);
    }
    for (r = 0; r < nrec; r++) {
        if (recs[r].nevent == 0)
            continue;
        fprintf(f, "<h3 style=\"color:%s\">", colours[r % NCOLOURS]);
        html_text(f, recs[r].name);
        fputs(": events</h3>\n<pre>", f);
        for (i = 0; i < recs[r].nevent; i++) {
            fprintf(f, "event at %.1f s: ", recs[r].ev[i].t);
            html_text(f, recs[r].ev[i].text);
            fputc('\n', f);
        }
        fputs("</pre>\n", f);
    }
}

int
report_html_write(FILE *f, struct record *recs, int nrec, const struct report_row *rows, int nrows,
                  double from, double to, char *err)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>benchtop report</title>\n<style>\n"
          "body{font-family:sans-serif;margin:1em 2em;color:#222}\n"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
          "text-align:right}\nsvg{display:block;margin-bottom:1em}\n"
          "</style>\n</head>\n<body>\n<h1>benchtop report</h1>\n",
          f);
    differences(f, recs, nrec);
    summary_table(f, rows, nrows);
    run_headers(f, recs, nrec);
    if (time_charts(f, recs, nrec, err) < 0 || spectrum_chart(f, recs, nrec, from, to, err) < 0)
        return -1;
    sweep_charts(f, rows, nrows);
    server_charts(f, recs, nrec);
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? seterr(err, "could not write the HTML report") : 0;
}
