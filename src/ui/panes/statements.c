/*
 * statements: the first server's top statements (T in the sessions pane),
 * as pg_stat_statements, performance_schema's digests or INFO
 * commandstats total them: calls per second and since the reset, the mean
 * and total time, the share of the server's time in the interval, rows
 * per call, the statement. j/k scroll. Server text is escaped here.
 */
#include "ui/dash.h"

#include <math.h>
#include <stdio.h>

#include "base/text.h"
#include "base/units.h"

enum { NUM_W = 8, PCT_W = 6, TEXT_MIN_W = 16 };

/* A number right-aligned in w cells, "-" when unknown; moves *x past it and a space. */
static void
put_num(struct grid *g, int *x, int y, enum style st, const char *s)
{
    char cell[40];

    snprintf(cell, sizeof cell, "%*s", NUM_W, s);
    grid_put(g, *x, y, NUM_W, st, cell);
    *x += NUM_W + 1;
}

/* Statements are often microseconds: three decimals under 1 ms, the usual style from 1 s. */
static const char *
fmt_ms(char *buf, size_t len, double ms)
{
    if (isnan(ms))
        return "-";
    if (ms < 1)
        snprintf(buf, len, "%.3fms", ms);
    else if (ms < 1000)
        snprintf(buf, len, "%.1fms", ms);
    else
        units_duration(buf, len, ms / 1e3);
    return buf;
}

static const char *
fmt_si(char *buf, size_t len, double v, const char *unit)
{
    if (isnan(v))
        return "-";
    units_si(buf, len, v, unit);
    return buf;
}

static void
draw_head(struct grid *g, int x, int y, int end)
{
    static const char *const heads[] = {"calls/s", "calls", "mean", "total", "share", "rows/c"};

    for (int i = 0; i < 6; i++)
        put_num(g, &x, y, ST_LABEL, heads[i]);
    grid_put(g, x, y, end - x, ST_LABEL, "statement");
}

static void
draw_row(const struct coll_statement *s, struct grid *g, int x, int y, int end)
{
    char b[6][32], text[sizeof s->text], clean[sizeof s->text * 4];
    enum style st = s->share >= 0.5 ? ST_WARN : ST_NORMAL;

    put_num(g, &x, y, st, fmt_si(b[0], sizeof b[0], s->calls_s, "/s"));
    if (s->calls < 1e8) /* a count in full while it fits */
        snprintf(b[1], sizeof b[1], "%.0f", s->calls);
    put_num(g, &x, y, st, s->calls < 1e8 ? b[1] : fmt_si(b[1], sizeof b[1], s->calls, ""));
    put_num(g, &x, y, st, fmt_ms(b[2], sizeof b[2], s->mean_ms));
    put_num(g, &x, y, st, fmt_ms(b[3], sizeof b[3], s->total_ms));
    if (isnan(s->share))
        snprintf(b[4], sizeof b[4], "-");
    else
        snprintf(b[4], sizeof b[4], "%.1f%%", 100 * s->share);
    put_num(g, &x, y, st, b[4]);
    put_num(g, &x, y, st, fmt_si(b[5], sizeof b[5], s->rows_per_call, ""));
    text_one_line(text, sizeof text, s->text);
    text_clean(clean, sizeof clean, text);
    if (x < end)
        grid_put(g, x, y, end - x, st, clean);
}

void
pane_statements(const struct dash *d, struct grid *g, struct rect r)
{
    const struct dash_sessions *ss = &d->sessions;
    const struct coll_statements *l = &ss->statements;
    struct rect in = {r.x + 1, r.y + 1, r.w - 2, r.h - 2};
    int rows = in.h - 2, top = ss->top_sel, end = in.x + in.w;
    char title[240], src[sizeof l->source * 4];

    text_clean(src, sizeof src, l->source);
    snprintf(title, sizeof title, "7 top statements (%s) %d of %d", src, l->n, l->total);
    grid_box(g, r, ss->have_top && l->note[0] == '\0' ? title : "7 top statements", d->utf8);
    if (in.w <= 0 || in.h <= 0)
        return;
    if (!ss->have_top || l->note[0] != '\0') {
        char clean[sizeof l->note * 4];
        text_clean(clean, sizeof clean,
                   ss->top_error[0] ? ss->top_error
                   : ss->have_top   ? l->note
                                    : "none read yet");
        grid_put(g, in.x, in.y, in.w, ss->top_error[0] || ss->have_top ? ST_WARN : ST_DIM, clean);
    } else {
        draw_head(g, in.x, in.y, end);
        for (int i = 0; i < rows && top + i < l->n; i++)
            draw_row(&l->s[top + i], g, in.x, in.y + 1 + i, end);
        if (rows > 0 && l->n - top > rows)
            grid_printf(g, end - 10, in.y + rows, 10, ST_DIM, "+%d more", l->n - top - rows);
    }
    grid_put(g, in.x, in.y + in.h - 1, in.w, ST_DIM,
             "t: sessions  j/k: scroll  share: of the server's time in the interval");
}
