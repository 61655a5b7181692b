/*
 * html: `benchtop report --html`: one HTML page with inline SVG
 * charts written here, no script and no network. SVG written by benchtop
 * rather than gnuplot or a chart library: no runtime dependency, the page
 * holds the exact numbers benchtop computed (tests read them back), and a
 * line chart is a polyline and a few ticks.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "rows.h"
#include "record.h"
#include "tryreport.h"
#include "analysis/sweep.h"
#include "base/hist.h"
#include "base/hdrlog.h"
#include "base/text.h"
#include "base/util.h"

enum {
    W = 960, /* the viewBox: the chart itself takes the page's width */
    H = 300,
    LEFT = 70,
    RIGHT = 40, /* room for the last tick label, "99.999%" */
    TOP = 12,
    BOTTOM = 40,
    SPECTRUM_POINTS = 101, /* 1 - 10^(-k/20): 0% .. 99.999% */
    MAX_SERVER_CHARTS = 4,
    MAX_LINES = 32, /* a try's rounds are a line each: --rounds 16 */
};

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c",
                                      "#9467bd", "#ff7f0e", "#17becf"};
#define NCOLOURS (sizeof colours / sizeof colours[0])

struct line {
    const char *name;
    int colour; /* 1 + an index into colours; 0: the line's own index */
    int n;
    double *x, *y;
};

/* A span of x shaded behind the lines, labelled: a try's round, A or B. */
struct shade {
    double from, to;
    int b;
    char label[16]; /* "A1", "B2" */
};

enum axis { AXIS_LINEAR, AXIS_PERCENTILE, AXIS_LOG2 };

struct chart {
    const char *id, *title, *xlabel, *ylabel;
    enum axis xaxis; /* AXIS_PERCENTILE: x is 1/(1-percentile), log10; AXIS_LOG2: doubling steps */
    int nlines;
    struct line lines[MAX_LINES];
    const struct record *events; /* NULL: no event marks */
    int nrec;
    double shade_from, shade_to; /* the --from/--to window, shaded; both 0: none */
    double mark_x;               /* a marked x (the knee), NAN: none */
    const char *mark_label;
    int nshades; /* a try's rounds (their measured parts) */
    struct shade shades[TRY_MAX_ROUNDS];
};

static const char *
line_colour(const struct line *l, int i)
{
    return colours[(l->colour > 0 ? l->colour - 1 : i) % (int)NCOLOURS];
}

/* Every string from a record reaches the page through the one escaper. */
static void
html_text(FILE *f, const char *s)
{
    text_put(f, s, TEXT_HTML);
}

/* One table cell: <th> or <td> around the escaped text. */
static void
html_cell(FILE *f, const char *tag, const char *s)
{
    fprintf(f, "<%s>", tag);
    html_text(f, s);
    fprintf(f, "</%s>", tag);
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
    enum axis xaxis;
};

/* x on the axis' own scale: linear, log10 or log2. */
static double
axis_of(const struct scale *s, double x)
{
    return s->xaxis == AXIS_PERCENTILE ? log10(x) : s->xaxis == AXIS_LOG2 ? log2(x) : x;
}

static double
sx(const struct scale *s, double x)
{
    double lo = axis_of(s, s->x0), hi = axis_of(s, s->x1);

    return LEFT + (axis_of(s, x) - lo) / (hi - lo) * (W - LEFT - RIGHT);
}

static double
sy(const struct scale *s, double y)
{
    return H - BOTTOM - y / s->y1 * (H - TOP - BOTTOM);
}

/* A tick label at x: text, or the value itself when text is NULL. */
static void
x_tick(FILE *f, const struct scale *s, double x, const char *text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">", sx(s, x),
            H - BOTTOM + 14);
    if (text)
        fputs(text, f);
    else
        fprintf(f, "%g", x);
    fputs("</text>\n", f);
}

/* The x ticks: percentiles, every step of a doubling sweep, or a round step. */
static void
draw_x_ticks(FILE *f, const struct chart *c, const struct scale *s)
{
    static const char *const pct[] = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
    double step, v;

    if (s->xaxis == AXIS_PERCENTILE) {
        for (int k = 0; k <= 5; k++)
            x_tick(f, s, pow(10, k), pct[k]);
    } else if (s->xaxis == AXIS_LOG2) {
        for (int k = 0; c->nlines > 0 && k < c->lines[0].n; k++)
            x_tick(f, s, c->lines[0].x[k], NULL);
    } else {
        step = nice_step(s->x1 - s->x0);
        for (v = ceil(s->x0 / step) * step; v <= s->x1; v += step)
            x_tick(f, s, v, NULL);
    }
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
    draw_x_ticks(f, c, s);
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

/* The --from/--to window, shaded: the figures of the table come from it. */
static void
draw_window(FILE *f, const struct chart *c, const struct scale *s)
{
    double a = fmax(c->shade_from, s->x0), b = c->shade_to > 0 ? fmin(c->shade_to, s->x1) : s->x1;

    if ((c->shade_from <= 0 && c->shade_to <= 0) || !(b > a))
        return;
    fprintf(f,
            "<rect class=\"window\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
            "fill=\"#fff3c4\"><title>--from/--to: the window the table summarises</title></rect>\n",
            sx(s, a), TOP, sx(s, b) - sx(s, a), H - TOP - BOTTOM);
}

/* A try's rounds: each measured part shaded (A blue, B red), labelled at the top. */
static void
draw_shades(FILE *f, const struct chart *c, const struct scale *s)
{
    for (int i = 0; i < c->nshades; i++) {
        const struct shade *h = &c->shades[i];

        fprintf(f,
                "<rect class=\"round %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                "fill=\"%s\"><title>round %s: measured %.1f to %.1f s</title></rect>"
                "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%s</text>\n",
                h->b ? "b" : "a", sx(s, h->from), TOP, sx(s, h->to) - sx(s, h->from),
                H - TOP - BOTTOM, h->b ? "#fbe3e3" : "#e3ecf7", h->label, h->from, h->to,
                sx(s, h->from) + 3, TOP + 12, h->label);
    }
}

/* The knee, marked where it is. */
static void
draw_mark(FILE *f, const struct chart *c, const struct scale *s)
{
    if (isnan(c->mark_x) || c->mark_label == NULL)
        return;
    fprintf(f,
            "<line class=\"knee\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"6,3\"/><text class=\"knee\" x=\"%.1f\" "
            "y=\"%d\" font-size=\"12\">",
            sx(s, c->mark_x), TOP, sx(s, c->mark_x), H - BOTTOM, sx(s, c->mark_x) + 4, TOP + 12);
    html_text(f, c->mark_label);
    fputs("</text>\n", f);
}

/* The legend, outside the plot (above it), in the page's flow. */
static void
legend_write(FILE *f, const struct chart *c)
{
    fputs("<div class=\"legend\">", f);
    for (int i = 0, k; i < c->nlines; i++) {
        for (k = 0; k < i && strcmp(c->lines[k].name, c->lines[i].name) != 0; k++)
            ;
        if (k < i) /* a try's rounds: one entry per side */
            continue;
        fprintf(f, "<span style=\"color:%s\">&#9632; ", line_colour(&c->lines[i], i));
        html_text(f, c->lines[i].name);
        fputs("</span>", f);
    }
    fputs("</div>\n", f);
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
    struct scale s = {.xaxis = c->xaxis};
    int i, k;

    if (c->nlines == 0)
        return;
    chart_bounds(c, &s.x0, &s.x1, &s.y1);
    if (c->xaxis == AXIS_PERCENTILE)
        s.x0 = 1, s.x1 = 1e5;
    if (c->xaxis == AXIS_LOG2 && !(s.x0 > 0))
        s.xaxis = AXIS_LINEAR;
    fprintf(f, "<h2>");
    html_text(f, c->title);
    fputs("</h2>\n", f);
    legend_write(f, c);
    fprintf(f, "<svg class=\"chart\" id=\"%s\" viewBox=\"0 0 %d %d\">\n", c->id, W, H);
    draw_window(f, c, &s);
    draw_shades(f, c, &s);
    draw_axes(f, c, &s);
    draw_events(f, c, &s);
    draw_mark(f, c, &s);
    for (i = 0; i < c->nlines; i++) {
        const struct line *l = &c->lines[i];
        fprintf(f,
                "<polyline class=\"series\" fill=\"none\" stroke-width=\"1.5\" stroke=\"%s\" "
                "points=\"",
                line_colour(l, i));
        for (k = 0; k < l->n; k++)
            fprintf(f, "%s%.1f,%.1f", k ? " " : "", sx(&s, l->x[k]), sy(&s, l->y[k]));
        fputs("\"><title>", f);
        html_text(f, l->name);
        fputs("</title></polyline>\n", f);
    }
    fputs("</svg>\n", f);
}

/* --- the charts --- */

/* A chart over time: the runs overlaid, events marked, the --from/--to window shaded. */
static void
time_chart_init(struct chart *c, const char *id, const char *title, const char *ylabel,
                const struct record *recs, int nrec, double from, double to)
{
    memset(c, 0, sizeof(*c));
    c->id = id;
    c->title = title;
    c->xlabel = "seconds into the run";
    c->ylabel = ylabel;
    c->events = recs;
    c->nrec = nrec;
    c->shade_from = from;
    c->shade_to = to;
    c->mark_x = NAN;
}

static int
time_charts(FILE *f, struct record *recs, int nrec, double from, double to, char *err)
{
    struct chart tps, p50, p99;
    struct hist *h = hist_new();
    int r, i, rv = 0;

    time_chart_init(&tps, "tps", "Throughput over time", "transactions/s", recs, nrec, from, to);
    time_chart_init(&p50, "p50", "p50 latency over time", "ms", recs, nrec, from, to);
    time_chart_init(&p99, "p99", "p99 latency over time", "ms", recs, nrec, from, to);
    for (r = 0; r < nrec && r < MAX_LINES && rv == 0; r++) {
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
                      .xaxis = AXIS_PERCENTILE,
                      .mark_x = NAN};
    struct hist *h = hist_new();
    int r, k, rv = 0;

    for (r = 0; r < nrec && r < MAX_LINES && rv == 0; r++) {
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

/* Whether the steps' loads grow by doubling (1,2,4,8): then a log-2 axis spreads them evenly. */
static int
doubling(const struct line *l)
{
    if (l->n < 3 || !(l->x[0] > 0))
        return 0;
    for (int k = 1; k < l->n; k++)
        if (!(l->x[k] / l->x[k - 1] > 1.5 && l->x[k] / l->x[k - 1] < 2.5))
            return 0;
    return 1;
}

/* The knee of the first sweep's steps (sweep_knee: where throughput stopped growing); -1 none. */
static int
rows_knee(const struct report_row *rows, int nrows, const struct record *rec)
{
    static struct sweep_step
        st[SWEEP_MAX_STEPS]; /* large for the stack; the report is one thread */
    int n = 0, k;

    for (int i = 0; i < nrows && n < SWEEP_MAX_STEPS; i++) {
        if (rows[i].rec != rec)
            continue;
        memset(&st[n], 0, sizeof st[n]);
        st[n].clients = st[n].rate = atof(rows[i].step);
        st[n].tps = rows[i].sum.tps;
        st[n].txns = rows[i].sum.txns;
        st[n].outage_s = rows[i].sum.outage_s;
        st[n++].lat.p99 = u64_of(rows[i].sum.p99);
    }
    k = sweep_knee(st, n, SWEEP_CLIENTS);
    for (int i = 0; k >= 0 && i < nrows; i++)
        if (rows[i].rec == rec && k-- == 0)
            return i;
    return -1;
}

static void
sweep_charts(FILE *f, const struct report_row *rows, int nrows)
{
    struct chart tps = {.id = "sweep-tps",
                        .title = "Throughput against load (sweep steps)",
                        .xlabel = "clients (or rate)",
                        .ylabel = "transactions/s",
                        .mark_x = NAN};
    struct chart p99 = {.id = "sweep-p99",
                        .title = "p99 against load (sweep steps)",
                        .xlabel = "clients (or rate)",
                        .ylabel = "ms",
                        .mark_x = NAN};
    const struct record *cur = NULL, *first = NULL;
    char label[96];
    int i, knee;

    for (i = 0; i < nrows; i++) {
        if (rows[i].step == NULL)
            continue;
        if (rows[i].rec != cur) {
            if (tps.nlines == MAX_LINES)
                break;
            cur = rows[i].rec;
            first = first ? first : cur;
            tps.lines[tps.nlines++].name = p99.lines[p99.nlines++].name = cur->name;
        }
        /* the step's label starts with its clients or rate */
        line_add(&tps.lines[tps.nlines - 1], atof(rows[i].step), rows[i].sum.tps);
        line_add(&p99.lines[p99.nlines - 1], atof(rows[i].step), rows[i].sum.p99 / 1000.0);
    }
    if (tps.nlines > 0 && doubling(&tps.lines[0]))
        tps.xaxis = p99.xaxis = AXIS_LOG2;
    knee = first ? rows_knee(rows, nrows, first) : -1;
    if (knee >= 0) {
        snprintf(label, sizeof label, "knee: %s", rows[knee].step);
        tps.mark_x = p99.mark_x = atof(rows[knee].step);
        tps.mark_label = p99.mark_label = label;
    }
    chart_write(f, &tps);
    chart_write(f, &p99);
    chart_free(&tps);
    chart_free(&p99);
}

/* One chart of a server series, the runs overlaid. */
static void
server_chart(FILE *f, struct record *recs, int nrec, const char *name, int nth, double from,
             double to)
{
    char id[32];
    struct chart c;
    int r, i;

    snprintf(id, sizeof id, "server-%d", nth);
    time_chart_init(&c, id, name, name, recs, nrec, from, to);
    for (r = 0; r < nrec && r < MAX_LINES; r++) {
        int k = record_series(&recs[r], name);
        c.lines[r].name = recs[r].name;
        c.nlines = r + 1;
        /* the load's window only: a dashboard waiting for q samples an idle server */
        for (i = 0; k >= 0 && i < recs[r].nsample && recs[r].smp[i].t <= recs[r].load_to; i++)
            line_add(&c.lines[r], recs[r].smp[i].t, record_sample(&recs[r], i, k));
    }
    chart_write(f, &c);
    chart_free(&c);
}

/* The server's own tps, then the series that differ most between the runs. */
static void
server_charts(FILE *f, struct record *recs, int nrec, double from, double to)
{
    const char *names[MAX_SERVER_CHARTS];
    int n = report_server_series(recs, nrec, names, MAX_SERVER_CHARTS), i;

    server_chart(f, recs, nrec, "server tps", 0, from, to);
    for (i = 0; i < n; i++)
        server_chart(f, recs, nrec, names[i], i + 1, from, to);
}

static void
summary_table(FILE *f, const struct report_row *rows, int nrows)
{
    char cells[REPORT_NCOLS][64];
    int i, c;

    fputs("<table id=\"summary\">\n<tr>", f);
    for (c = 0; c < REPORT_NCOLS; c++)
        html_cell(f, "th", report_columns[c]);
    fputs("</tr>\n", f);
    for (i = 0; i < nrows; i++) {
        report_row_cells(rows, i, cells);
        fputs("<tr>", f);
        for (c = 0; c < REPORT_NCOLS; c++)
            html_cell(f, "td", cells[c]);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    report_notes(f, rows, nrows, "<p class=\"note\">", "</p>\n");
}

/* The header lines that differ (want_same 0) or not, as table rows: key, then a cell per run. */
static int
head_rows(FILE *f, const struct record *recs, int nrec, int want_same)
{
    int r, i, k, n = 0;

    for (r = 0; r < nrec; r++)
        for (i = 0; i < recs[r].nhead; i++) {
            const char *key = recs[r].head[i].key;
            if (!record_head_first(recs, r, key) ||
                (nrec > 1 && record_head_same(recs, nrec, key) != want_same))
                continue;
            fputs("<tr>", f);
            html_cell(f, "th", key);
            for (k = 0; k < (want_same ? 1 : nrec); k++)
                html_cell(f, "td",
                          record_head(&recs[k], key) ? record_head(&recs[k], key) : "(none)");
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

    fputs(nrec > 1
              ? "<h2>What differs between the runs</h2>\n<table id=\"differences\">\n<tr><th></th>"
              : "<h2>The run</h2>\n<table id=\"differences\">\n<tr><th></th>",
          f);
    for (r = 0; r < nrec; r++) {
        fprintf(f, "<th style=\"color:%s\">", colours[r % NCOLOURS]);
        html_text(f, recs[r].name);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    if (head_rows(f, recs, nrec, 0) == 0)
        fputs("<tr><td colspan=\"9\">nothing in settings, options, versions or host</td></tr>\n",
              f);
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

/* The page up to its first heading: title (ours, not a record's) as the heading too. */
static void
page_head(FILE *f, const char *title)
{
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>%s</title>\n<style>\n"
            "body{font-family:sans-serif;margin:1em 2em;color:#222}\n"
            "table{border-collapse:collapse;margin-bottom:1em}td,th{border:1px solid "
            "#ccc;padding:2px 6px;"
            "text-align:right}\nsvg.chart{display:block;width:100%%;height:auto;margin-bottom:1em}"
            "\n.legend span{margin-right:1.5em;font-size:90%%}\n"
            "</style>\n</head>\n<body>\n<h1>%s</h1>\n",
            title, title);
}

int
report_html_write(FILE *f, struct record *recs, int nrec, const struct report_row *rows, int nrows,
                  double from, double to, char *err)
{
    page_head(f, "benchtop report");
    differences(f, recs, nrec);
    summary_table(f, rows, nrows);
    run_headers(f, recs, nrec);
    if (time_charts(f, recs, nrec, from, to, err) < 0 ||
        spectrum_chart(f, recs, nrec, from, to, err) < 0)
        return -1;
    sweep_charts(f, rows, nrows);
    server_charts(f, recs, nrec, from, to);
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? seterr(err, "could not write the HTML report") : 0;
}

/* --- a try's record (benchtop try -o): A and B over time, the rounds shaded --- */

/* The record read round by round: a run line starts one, its intervals and step follow. */
struct try_trace {
    struct chart tps, p99;
    int round; /* run lines seen */
    double first_start, base;
    double interval_s; /* the round's -P: its last, partial interval is left out */
};

static void
trace_round(struct try_trace *tr, const json_t *o)
{
    double start = record_jnum(o, "start");
    int b = tr->round % 2;

    if (tr->round == 0)
        tr->first_start = start;
    tr->base = isnan(start) ? tr->base : start - tr->first_start;
    tr->interval_s = record_jnum(o, "interval_s");
    tr->round++;
    if (tr->tps.nlines == MAX_LINES)
        return;
    tr->tps.lines[tr->tps.nlines].name = tr->p99.lines[tr->p99.nlines].name = b ? "B" : "A";
    tr->tps.lines[tr->tps.nlines++].colour = tr->p99.lines[tr->p99.nlines++].colour = b ? 2 : 1;
}

static void
trace_interval(struct try_trace *tr, const json_t *o)
{
    double x = tr->base + record_jnum(o, "t");

    if (tr->round == 0 || tr->round > MAX_LINES ||
        record_jnum(o, "interval_s") < tr->interval_s / 2) /* the stop's remainder: a spike */
        return;
    line_add(&tr->tps.lines[tr->round - 1], x, record_jnum(o, "tps"));
    line_add(&tr->p99.lines[tr->round - 1], x,
             record_jnum(json_object_get(o, "lat_us"), "p99") / 1000.0);
}

/* A round's measured part, shaded on both charts. */
static void
trace_step(struct try_trace *tr, const json_t *o)
{
    struct shade h = {.from = tr->base + record_jnum(o, "start_t"),
                      .to = tr->base + record_jnum(o, "end_t"),
                      .b = (tr->round - 1) % 2};

    if (tr->round == 0 || tr->tps.nshades == TRY_MAX_ROUNDS || !(h.to > h.from))
        return;
    snprintf(h.label, sizeof h.label, "%s%d", h.b ? "B" : "A", (tr->round + 1) / 2);
    tr->tps.shades[tr->tps.nshades++] = h;
    tr->p99.shades[tr->p99.nshades++] = h;
}

static int
trace_read(struct try_trace *tr, const char *path, char *err)
{
    FILE *in = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    json_t *o;
    const char *type;

    if (in == NULL)
        return seterr(err, "cannot read %s: %s", path, strerror(errno));
    while (getline(&line, &cap, in) > 0) {
        if ((o = json_loads(line, 0, NULL)) == NULL)
            continue;
        type = record_jstr(o, "type");
        if (strcmp(type, "run") == 0)
            trace_round(tr, o);
        else if (strcmp(type, "interval") == 0)
            trace_interval(tr, o);
        else if (strcmp(type, "step") == 0)
            trace_step(tr, o);
        json_decref(o);
    }
    free(line);
    fclose(in);
    return 0;
}

/* The A/B table as try printed it, escaped (the target is the record's text). */
static void
try_table_html(FILE *f, const struct try_table *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);

    if (m == NULL)
        return;
    try_table_print(m, t);
    fclose(m);
    fputs("<pre id=\"try\">", f);
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        html_text(f, line); /* a line at a time: the escaper takes a newline for a control */
        fputc('\n', f);
    }
    fputs("</pre>\n", f);
    free(text);
}

int
try_html_write(FILE *f, const char *path, const struct try_table *t, char *err)
{
    struct try_trace *tr = xcalloc(1, sizeof *tr);
    int rv;

    time_chart_init(&tr->tps, "tps", "Throughput over time: A and B, the rounds shaded",
                    "transactions/s", NULL, 0, 0, 0);
    time_chart_init(&tr->p99, "p99", "p99 latency over time", "ms", NULL, 0, 0, 0);
    tr->tps.xlabel = tr->p99.xlabel = "seconds since the first round began";
    rv = trace_read(tr, path, err);
    if (rv == 0) {
        page_head(f, "benchtop try");
        try_table_html(f, t);
        chart_write(f, &tr->tps);
        chart_write(f, &tr->p99);
        fputs("</body>\n</html>\n", f);
        rv = ferror(f) ? seterr(err, "could not write the HTML report") : 0;
    }
    chart_free(&tr->tps);
    chart_free(&tr->p99);
    free(tr);
    return rv;
}
