/*
 * latency: the percentiles of the last interval beside those of the
 * whole run, then the run's distribution as horizontal bars per power-of-two
 * bucket (beside the table when wide enough, under it when tall enough).
 * After a setting change or a marker, two more columns: the segments
 * before and since it (the histogram then goes under the table, or away).
 */
#include "ui/dash.h"

#include <math.h>
#include <stdio.h>

enum {
    LABEL_W = 6, /* "p99.9" and a space */
    COL_W = 9,   /* " 4.56 ms", right-aligned */
    TABLE_H = 7, /* the column heads and six rows */
    GAP = 3,
    HIST_MIN_W = 22,
    HIST_LABEL_W = 7,
    HIST_PCT_W = 5,
};

/* Microseconds with 3 significant digits in us, ms or s: "812 us", "4.56 ms", "1.20 s". */
static void
fmt_us(char *buf, size_t len, double us)
{
    static const struct {
        double div;
        const char *unit;
    } UNITS[] = {{1.0, "us"}, {1e3, "ms"}, {1e6, "s"}};
    int i = 0;
    double v = us;

    /* Compare with the rounding edge, so 999.7 us becomes "1.00 ms", not "1000 us". */
    while (i < 2 && v >= 999.5)
        v = us / UNITS[++i].div;
    if (v >= 99.5)
        snprintf(buf, len, "%.0f %s", v, UNITS[i].unit);
    else if (v >= 9.995)
        snprintf(buf, len, "%.1f %s", v, UNITS[i].unit);
    else
        snprintf(buf, len, "%.2f %s", v, UNITS[i].unit);
}

static int
has_samples(const struct hist_summary *l)
{
    return l->max > 0 || l->mean > 0.0;
}

static void
put_value(struct grid *g, int x, int y, int end, const struct hist_summary *l, double us)
{
    char buf[32] = "-";

    if (x >= end)
        return;
    if (has_samples(l))
        fmt_us(buf, sizeof(buf), us);
    grid_printf(g, x, y, end - x, ST_VALUE, "%*s", COL_W, buf);
}

static double
summary_value(const struct hist_summary *h, int row)
{
    double v[7] = {h->mean,        (double)h->p50,  (double)h->p90, (double)h->p95,
                   (double)h->p99, (double)h->p999, (double)h->max};

    return v[row];
}

/*
 * The columns: last interval and whole run, then the segments before and
 * since the last cut when there are; where all four do not fit, the run's
 * column goes first, then the last interval's.
 */
static int
table_cols(const struct dash *d, int w, const struct hist_summary **cols, const char **heads)
{
    int fit = (w - LABEL_W) / COL_W, n = 0;

    if (d->nsegments < 2 || fit >= 3) {
        cols[n] = &d->lat_cur;
        heads[n++] = "last";
    }
    if (d->nsegments < 2 || fit >= 4) {
        cols[n] = &d->lat_total;
        heads[n++] = "run";
    }
    if (d->nsegments < 2)
        return n;
    cols[n] = &d->seg[0].lat;
    heads[n++] = "before";
    cols[n] = &d->seg[1].lat;
    heads[n++] = "since";
    return n;
}

static void
draw_table(const struct dash *d, struct grid *g, struct rect in)
{
    static const char *const NAMES[] = {"mean", "p50", "p90", "p95", "p99", "p99.9", "max"};
    const struct hist_summary *cols[4];
    const char *heads[4];
    int n = table_cols(d, in.w, cols, heads), end = in.x + in.w;

    for (int k = 0; k < n; k++)
        grid_printf(g, in.x + LABEL_W + k * COL_W, in.y, end - in.x - LABEL_W - k * COL_W, ST_DIM,
                    "%*s", COL_W, heads[k]);
    /* short of rows (80x24 has six), p90 gives way: sysbench users read p95, and max matters */
    int skip = in.h - 1 < 7 ? 2 : -1, y = in.y + 1;

    for (int i = 0; i < 7 && y < in.y + in.h; i++) {
        if (i == skip)
            continue;
        grid_put(g, in.x, y, in.w < LABEL_W ? in.w : LABEL_W, ST_LABEL, NAMES[i]);
        for (int k = 0; k < n; k++)
            put_value(g, in.x + LABEL_W + k * COL_W, y, end, cols[k], summary_value(cols[k], i));
        y++;
    }
}

static void
draw_bar(struct grid *g, int x, int y, int w, double frac, int utf8)
{
    int eighths = (int)lround(frac * w * 8), cells;

    /* A bucket with counts never looks empty. */
    eighths = eighths < 1 ? 1 : eighths;
    if (!utf8) {
        cells = (eighths + 4) / 8;
        for (int i = 0; i < (cells < 1 ? 1 : cells) && i < w; i++)
            grid_put(g, x + i, y, 1, ST_GRAPH_CLIENT, "#");
        return;
    }
    for (int i = 0; i < w && eighths > 0; i++, eighths -= 8)
        grid_put(g, x + i, y, 1, ST_GRAPH_CLIENT, dash_eighths[eighths > 8 ? 8 : eighths]);
}

/* The sum of lat_log2 over [from, from + n), clipped to the array. */
static uint64_t
bucket_sum(const struct dash *d, int from, int n)
{
    uint64_t s = 0;

    for (int i = from; i < from + n && i < DASH_LOG2; i++)
        s += d->lat_log2[i];
    return s;
}

/*
 * The buckets from the lowest to the highest with counts (empty ones in
 * between stay, they are part of the shape); neighbours are merged when
 * there are more buckets than rows.
 */
static void
draw_histogram(const struct dash *d, struct grid *g, struct rect a)
{
    int lo = 0, hi = DASH_LOG2 - 1, rows = a.h - 1, group,
        bar_w = a.w - HIST_LABEL_W - 1 - HIST_PCT_W;
    uint64_t total = bucket_sum(d, 0, DASH_LOG2), max = 0;
    char label[32];

    grid_put(g, a.x, a.y, a.w, ST_DIM, "run distribution");
    if (total == 0 || rows < 1) {
        grid_put(g, a.x, a.y + 1, a.w, ST_DIM, "no samples yet");
        return;
    }
    while (d->lat_log2[lo] == 0)
        lo++;
    while (d->lat_log2[hi] == 0)
        hi--;
    group = (hi - lo + rows) / rows;
    for (int b = lo; b <= hi; b += group) {
        uint64_t s = bucket_sum(d, b, group);
        max = s > max ? s : max;
    }
    for (int b = lo, y = a.y + 1; b <= hi; b += group, y++) {
        uint64_t s = bucket_sum(d, b, group);
        double pct = 100.0 * (double)s / (double)total;

        fmt_us(label, sizeof(label), ldexp(1.0, b));
        grid_printf(g, a.x, y, HIST_LABEL_W, ST_LABEL, "%*s", HIST_LABEL_W, label);
        if (s > 0)
            draw_bar(g, a.x + HIST_LABEL_W + 1, y, bar_w, (double)s / (double)max, d->utf8);
        if (s > 0 && pct < 1.0)
            grid_put(g, a.x + a.w - HIST_PCT_W, y, HIST_PCT_W, ST_DIM, "  <1%");
        else if (s > 0)
            grid_printf(g, a.x + a.w - HIST_PCT_W, y, HIST_PCT_W, ST_DIM, "%4.0f%%", pct);
    }
}

void
pane_latency(const struct dash *d, struct grid *g, struct rect r)
{
    struct rect in = {r.x + 2, r.y + 1, r.w - 3, r.h - 2};

    const struct hist_summary *cols[4];
    const char *heads[4];
    int table_w = LABEL_W + table_cols(d, in.w, cols, heads) * COL_W;

    grid_box(g, r, "2 latency", d->utf8);
    if (in.w <= 0 || in.h <= 0)
        return;
    draw_table(d, g, in);
    if (in.w >= table_w + GAP + HIST_MIN_W)
        draw_histogram(d, g, (struct rect){in.x + table_w + GAP, in.y, in.w - table_w - GAP, in.h});
    else if (in.h >= TABLE_H + 1 + 2 && in.w >= HIST_MIN_W)
        draw_histogram(d, g, (struct rect){in.x, in.y + TABLE_H + 1, in.w, in.h - TABLE_H - 1});
}
