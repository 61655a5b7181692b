/*
 * sweep: `benchtop sweep` as it goes: a row per finished step (its
 * clients or rate, tps, p50, p99, errors, verdict) with tps and p99 drawn
 * as bars against the load, the running step marked below them, the knee
 * marked on its row, and the finding (knee, or find-rate's answer) last.
 */
#include "ui/dash.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum {
    MARK_W = 2,
    X_W = 9,
    NUM_W = 10, /* tps, p50, p99 */
    ERR_W = 8,
    FIXED_W = MARK_W + X_W + 3 * NUM_W + ERR_W,
    VERDICT_W = 24,
    BAR_MIN_W = 6,
};

/* A bar of v/max over w cells (eighths with UTF-8, '#' without). */
static void
draw_bar(const struct dash *d, struct grid *g, int x, int y, int w, double v, double max,
         enum style st)
{
    double cells = max > 0 && v > 0 ? fmin(v / max, 1.0) * w : 0;
    int full = (int)cells, part = (int)((cells - full) * 8);

    for (int i = 0; i < full; i++)
        grid_put(g, x + i, y, 1, st, d->utf8 ? "█" : "#");
    if (full < w && part > 0 && d->utf8)
        grid_put(g, x + full, y, 1, st, dash_eighths[part]);
}

static void
fmt_x(const struct dash_sweep *s, double x, char *buf, size_t len)
{
    snprintf(buf, len, x >= 10 || x == floor(x) ? "%.0f%s" : "%.1f%s", x, s->rate ? "/s" : "");
}

/* Columns after the fixed ones: the verdict, then two bars when there is room. */
struct cols {
    int verdict_w, bar_w; /* bar_w 0: no bars */
    double max_tps, max_p99;
};

static void
plan_cols(const struct dash_sweep *s, int w, struct cols *c)
{
    int rest = w - FIXED_W;

    memset(c, 0, sizeof(*c));
    c->verdict_w = rest < VERDICT_W ? rest : VERDICT_W;
    if (rest - c->verdict_w < 2 * BAR_MIN_W + 2 && rest >= 2 * BAR_MIN_W + 12)
        c->verdict_w = rest - 2 * BAR_MIN_W - 2; /* the bars matter more than the whole verdict */
    if (rest - c->verdict_w >= 2 * BAR_MIN_W + 2)
        c->bar_w = (rest - c->verdict_w - 2) / 2;
    for (int i = 0; i < s->nrows; i++) {
        c->max_tps = fmax(c->max_tps, s->rows[i].tps);
        c->max_p99 = fmax(c->max_p99, s->rows[i].p99_us);
    }
}

static void
draw_heads(const struct dash_sweep *s, struct grid *g, struct rect in, const struct cols *c)
{
    int x = in.x + FIXED_W + c->verdict_w;

    grid_printf(g, in.x, in.y, in.w, ST_DIM, "%*s%*s%*s%*s%*s%*s  %-*s", MARK_W, "", X_W,
                s->rate ? "rate" : "clients", NUM_W, "tps", NUM_W, "p50 ms", NUM_W, "p99 ms", ERR_W,
                "errors", c->verdict_w - 2 > 0 ? c->verdict_w - 2 : 0, "verdict");
    if (c->bar_w > 0) {
        grid_put(g, x + 1, in.y, c->bar_w, ST_DIM, "tps");
        grid_put(g, x + 2 + c->bar_w, in.y, c->bar_w, ST_DIM, "p99");
    }
}

static void
draw_row(const struct dash *d, struct grid *g, struct rect in, int y, int i, const struct cols *c)
{
    const struct dash_sweep *s = &d->sweep;
    const struct dash_sweep_row *row = &s->rows[i];
    int knee = i == s->knee, x = in.x + FIXED_W;
    char xs[24];
    const char *verdict = !row->probe ? row->verdict : row->met ? "meets target" : "misses target";
    enum style vst = !row->probe ? ST_NORMAL : row->met ? ST_GOOD : ST_BAD;

    fmt_x(s, row->x, xs, sizeof(xs));
    if (knee)
        grid_put(g, in.x, y, MARK_W, ST_WARN, d->utf8 ? "◆" : "*");
    grid_printf(g, in.x + MARK_W, y, in.w - MARK_W, ST_VALUE, "%*s%*.0f%*.3f%*.3f%*llu", X_W, xs,
                NUM_W, row->tps, NUM_W, row->p50_us / 1000, NUM_W, row->p99_us / 1000, ERR_W,
                (unsigned long long)row->errors);
    if (c->verdict_w > 2)
        grid_put(g, x + 2, y, c->verdict_w - 2, knee ? ST_WARN : vst, verdict);
    if (c->bar_w <= 0)
        return;
    x += c->verdict_w;
    draw_bar(d, g, x + 1, y, c->bar_w, row->tps, c->max_tps, ST_GRAPH_CLIENT);
    draw_bar(d, g, x + 2 + c->bar_w, y, c->bar_w, row->p99_us, c->max_p99, ST_GRAPH_SERVER);
}

static void
draw_running(const struct dash *d, struct grid *g, struct rect in, int y)
{
    const struct dash_sweep *s = &d->sweep;
    char xs[24];

    fmt_x(s, s->running_x, xs, sizeof(xs));
    grid_put(g, in.x, y, MARK_W, ST_TITLE, d->utf8 ? "▶" : ">");
    grid_printf(g, in.x + MARK_W, y, in.w - MARK_W, ST_TITLE, "%*s", X_W, xs);
    grid_printf(g, in.x + MARK_W + X_W + 2, y, in.w - MARK_W - X_W - 2, ST_DIM,
                "%s: %.0f of %.0f s", s->warming ? "warming up" : "measuring", s->running_s,
                s->step_s);
}

void
pane_sweep(const struct dash *d, struct grid *g, struct rect r)
{
    const struct dash_sweep *s = &d->sweep;
    struct rect in = {r.x + 1, r.y + 1, r.w - 2, r.h - 2};
    int rows, first, y, show_finding;
    struct cols c;
    char title[64];

    snprintf(title, sizeof(title), "6 %s", s->active ? s->title : "sweep");
    grid_box(g, r, title, d->utf8);
    if (in.w <= 0 || in.h <= 0)
        return;
    if (!s->active) {
        grid_put(g, in.x, in.y, in.w, ST_DIM, "no sweep: see benchtop sweep --help");
        return;
    }
    plan_cols(s, in.w, &c);
    draw_heads(s, g, in, &c);
    /* the newest rows that fit under the heads, above the running step and the finding */
    show_finding = s->finding[0] != '\0';
    rows = in.h - 1 - s->running - show_finding;
    if (rows < 1 && show_finding && s->running) {
        show_finding = 0; /* a short pane keeps the newest row: zoom 6 shows the rest */
        rows++;
    }
    first = s->nrows > rows ? s->nrows - rows : 0;
    y = in.y + 1;
    for (int i = first; i < s->nrows && rows > 0; i++)
        draw_row(d, g, in, y++, i, &c);
    if (s->running && y < in.y + in.h)
        draw_running(d, g, in, y++);
    if (s->nrows == 0 && !s->running && y < in.y + in.h)
        grid_put(g, in.x + MARK_W, y++, in.w - MARK_W, ST_DIM, "no step finished");
    if (show_finding)
        grid_put(g, in.x, in.y + in.h - 1, in.w, s->knee >= 0 ? ST_WARN : ST_NORMAL, s->finding);
}
