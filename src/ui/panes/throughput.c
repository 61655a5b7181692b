/*
 * throughput: the last interval's figures, then the history as bars,
 * newest at the right. Client and server tps share one scale (the max in
 * the visible window), so a gap between the two series is real: the
 * server strip under the client graph is drawn with the same max. After
 * a setting change or a marker, the figures include tps before and since.
 */
#include "ui/dash.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Width of the axis labels left of the graph, then one column for the axis itself. */
static const int LABEL_W = 6;

static const char *const BLOCKS[9] = {"", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

struct stat_item {
    const char *label;
    char value[48];
    enum style st;
};

struct series {
    const double *v; /* the visible window, oldest first */
    int n;
    enum style st;
};

/* Writes text at *x, never past end, and moves *x past it. */
static void
put_run(struct grid *g, int *x, int y, int end, enum style st, const char *text)
{
    if (*x < end)
        *x += grid_put(g, *x, y, end - *x, st, text);
}

/* At most 6 cells with 3 significant digits: "812", "13.0k", "1.25M". */
static void
fmt_compact(char *buf, size_t len, double v)
{
    static const char *const SUFFIX[] = {"", "k", "M", "G", "T"};
    int i = 0;

    while (v >= 999.5 && i < 4) {
        v /= 1000.0;
        i++;
    }
    if (v >= 99.5 || v == 0.0)
        snprintf(buf, len, "%.0f%s", v, SUFFIX[i]);
    else if (v >= 9.95)
        snprintf(buf, len, "%.1f%s", v, SUFFIX[i]);
    else
        snprintf(buf, len, "%.2f%s", v, SUFFIX[i]);
}

/* Errors this interval are red; errors earlier in the run stay yellow, so they are not missed. */
static enum style
count_style(uint64_t now, uint64_t total)
{
    return now > 0 ? ST_BAD : total > 0 ? ST_WARN : ST_VALUE;
}

static int
fill_items(const struct dash *d, struct stat_item *it)
{
    int n = 0;

    if (d->load) {
        it[n] = (struct stat_item){"tps", "", ST_GRAPH_CLIENT};
        snprintf(it[n++].value, sizeof(it->value), "%.1f", d->tps);
    }
    it[n] = (struct stat_item){d->load ? "server" : "server tps", "-", ST_DIM};
    if (isfinite(d->server_tps)) {
        snprintf(it[n].value, sizeof(it->value), "%.1f", d->server_tps);
        it[n].st = ST_GRAPH_SERVER;
    }
    n++;
    if (!d->load)
        return n;
    it[n] = (struct stat_item){"ops/s", "", ST_VALUE};
    snprintf(it[n++].value, sizeof(it->value), "%.1f", d->ops);
    if (d->rx_bytes_s > 0) {
        it[n] = (struct stat_item){"received", "", ST_VALUE};
        snprintf(it[n++].value, sizeof(it->value), "%.1f KiB/s", d->rx_bytes_s / 1024.0);
    }
    it[n] = (struct stat_item){"errors", "", count_style(d->errors, d->errors_total)};
    snprintf(it[n++].value, sizeof(it->value), "%llu (total %llu)", (unsigned long long)d->errors,
             (unsigned long long)d->errors_total);
    if (d->retried_total) { /* transactions tried again (--max-tries), and their extra tries */
        it[n] = (struct stat_item){"retried", "", ST_WARN};
        snprintf(it[n++].value, sizeof(it->value), "%llu (%llu tries)",
                 (unsigned long long)d->retried_total, (unsigned long long)d->retries_total);
    }
    it[n] = (struct stat_item){"reconnects", "", d->reconnects_total ? ST_WARN : ST_VALUE};
    snprintf(it[n++].value, sizeof(it->value), "%llu", (unsigned long long)d->reconnects_total);
    it[n] = (struct stat_item){"late", "", d->late_total ? ST_WARN : ST_VALUE};
    snprintf(it[n++].value, sizeof(it->value), "%llu", (unsigned long long)d->late_total);
    if (d->nsegments < 2)
        return n;
    it[n] = (struct stat_item){"before", "", ST_VALUE};
    snprintf(it[n++].value, sizeof(it->value), "%.1f tps", d->seg[0].tps);
    it[n] = (struct stat_item){"since", "", ST_VALUE};
    if (d->seg[0].tps > 0)
        snprintf(it[n++].value, sizeof(it->value), "%.1f tps (%+.1f%%)", d->seg[1].tps,
                 (d->seg[1].tps / d->seg[0].tps - 1.0) * 100.0);
    else
        snprintf(it[n++].value, sizeof(it->value), "%.1f tps", d->seg[1].tps);
    return n;
}

/* The figures, flowed into few lines, a pair never split. Returns the lines used. */
static int
draw_stats(const struct dash *d, struct grid *g, struct rect in)
{
    struct stat_item it[12];
    int n = fill_items(d, it), line = 0, x = in.x, end = in.x + in.w;

    for (int i = 0; i < n && line < in.h; i++) {
        int w = (int)(strlen(it[i].label) + 1 + strlen(it[i].value));

        if (x > in.x && x + w >= end) {
            if (++line >= in.h)
                break;
            x = in.x;
        }
        put_run(g, &x, in.y + line, end, ST_LABEL, it[i].label);
        put_run(g, &x, in.y + line, end, ST_LABEL, " ");
        put_run(g, &x, in.y + line, end, it[i].st, it[i].value);
        x += 2;
    }
    return n > 0 ? line + 1 : 0;
}

static double
window_max(const struct series *a, const struct series *b)
{
    double max = 0.0;

    for (int i = 0; i < a->n; i++)
        if (isfinite(a->v[i]) && a->v[i] > max)
            max = a->v[i];
    for (int i = 0; b != NULL && i < b->n; i++)
        if (isfinite(b->v[i]) && b->v[i] > max)
            max = b->v[i];
    return max;
}

static int
any_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]))
            return 1;
    return 0;
}

/* One column's cell `from_bottom` rows above the base, for a bar of `eighths` eighths. */
static const char *
bar_cell(int eighths, int from_bottom, int utf8)
{
    int fill = eighths - from_bottom * 8;

    fill = fill < 0 ? 0 : fill > 8 ? 8 : fill;
    if (utf8)
        return BLOCKS[fill];
    return fill == 8 ? "#" : fill >= 4 ? ":" : fill >= 1 ? "." : "";
}

/* Bars for s in area (right-aligned: the newest sample is the rightmost column). */
static void
draw_bars(struct grid *g, struct rect area, const struct series *s, double max, int utf8)
{
    int x0 = area.x + area.w - s->n;

    for (int i = 0; i < s->n; i++) {
        double v = s->v[i];
        int eighths;

        if (!isfinite(v) || v <= 0.0)
            continue;
        eighths = (int)lround(fmin(v / max, 1.0) * area.h * 8);
        /* Any traffic at all shows as at least the lowest block. */
        eighths = eighths < 1 ? 1 : eighths;
        for (int row = 0; row < area.h; row++)
            grid_put(g, x0 + i, area.y + area.h - 1 - row, 1, s->st, bar_cell(eighths, row, utf8));
    }
}

static void
draw_axis(const struct dash *d, struct grid *g, struct rect area, const char *top,
          const char *bottom)
{
    int ax = area.x + LABEL_W;

    for (int y = area.y; y < area.y + area.h; y++) {
        const char *label = y == area.y ? top : y == area.y + area.h - 1 ? bottom : NULL;

        if (label != NULL) {
            grid_printf(g, area.x, y, LABEL_W, ST_LABEL, "%*s", LABEL_W, label);
            grid_put(g, ax, y, 1, ST_BORDER, d->utf8 ? "┤" : "+");
        } else
            grid_put(g, ax, y, 1, ST_BORDER, d->utf8 ? "│" : "|");
    }
}

/*
 * The history below the figures. With load, the client graph takes most
 * rows and the server strip the rest; in watch mode only the server's
 * series exists, so it gets the whole graph.
 */
static void
draw_graph(const struct dash *d, struct grid *g, struct rect in)
{
    int gw = in.w - LABEL_W - 1, n, sh = 0;
    struct series main_s, srv;
    double max;
    char label[16];

    if (gw < 4 || in.h < 1)
        return;
    n = d->nhist < gw ? d->nhist : gw;
    n = n < 0 ? 0 : n;
    main_s = (struct series){d->tps_hist + d->nhist - n, n, ST_GRAPH_CLIENT};
    srv = (struct series){d->server_tps_hist + d->nhist - n, n, ST_GRAPH_SERVER};
    if (!d->load)
        main_s = srv;
    else if (in.h >= 2 && any_finite(srv.v, n))
        sh = in.h >= 9 ? in.h / 3 : 1;
    max = window_max(&main_s, sh > 0 ? &srv : NULL);
    fmt_compact(label, sizeof(label), max);
    max = max > 0.0 ? max : 1.0;

    struct rect top = {in.x, in.y, in.w, in.h - sh};
    struct rect bot = {in.x, in.y + in.h - sh, in.w, sh};
    draw_axis(d, g, top, label, top.h >= 2 ? "0" : label);
    draw_bars(g, (struct rect){top.x + LABEL_W + 1, top.y, gw, top.h}, &main_s, max, d->utf8);
    if (sh == 0)
        return;
    draw_axis(d, g, bot, "server", bot.h >= 2 ? "0" : "server");
    draw_bars(g, (struct rect){bot.x + LABEL_W + 1, bot.y, gw, bot.h}, &srv, max, d->utf8);
}

void
pane_throughput(const struct dash *d, struct grid *g, struct rect r)
{
    struct rect in = {r.x + 2, r.y + 1, r.w - 3, r.h - 2};
    int used;

    grid_box(g, r, "1 throughput", d->utf8);
    if (in.w <= 0 || in.h <= 0)
        return;
    used = draw_stats(d, g, in);
    draw_graph(d, g, (struct rect){in.x, in.y + used, in.w, in.h - used});
}
