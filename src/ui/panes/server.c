/*
 * server: what each watched server reports, as the collector's rows:
 * "label value" grouped under their section, flowed down as many columns
 * as the width allows. The pane never overflows: rows that do not fit are
 * counted in a "+N more" line that says which key shows them (and how many
 * of them are warnings, so a problem is never silently cut off).
 */
#include "ui/dash.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum {
    COL_MIN_W = 56,        /* two columns from a 120-wide pane */
    COL_MIN_W_DETAIL = 36, /* zoom 5 packs narrower columns to show every row */
    MAX_COLS = 6,
    BALANCE_MIN_H = 6,
};

/* Where the rows of one server go. */
struct flow {
    struct rect area;
    int ncols, col_w, label_w;
    int reserve;  /* keep the last line of the last column for the "+N more" marker */
    int headings; /* section headings; not in a block of two lines, where they would be all */
};

static void
draw_row(struct grid *g, const struct flow *f, int col, int line, const struct coll_row *row)
{
    int x = f->area.x + col * f->col_w + 1, y = f->area.y + line;
    int end = f->area.x + (col + 1) * f->col_w - 1;
    enum style st = dash_level_style(row->level, ST_VALUE);

    /* A flagged row is flagged whole, label included: the eye finds it by colour. */
    grid_put(g, x, y, f->label_w < end - x ? f->label_w : end - x,
             row->level == ROW_NORMAL ? ST_LABEL : st, row->label);
    x += f->label_w + 1;
    if (x < end)
        grid_put(g, x, y, end - x, st, row->value);
}

static void
draw_heading(struct grid *g, const struct flow *f, int col, int line, const char *section)
{
    int x = f->area.x + col * f->col_w;

    grid_put(g, x, f->area.y + line, f->col_w - 1, ST_TITLE, section);
}

/*
 * Places the rows in order, column after column; a section's heading is
 * never left alone at a column's foot and is repeated where a section
 * continues in the next column. g NULL is a dry run. Returns the rows
 * placed, and in *lines the height of the tallest column.
 */
static int
flow_rows(struct grid *g, const struct flow *f, const struct coll_view *v, int *lines)
{
    int col = 0, line = 0, placed = 0;

    *lines = 0;
    for (int i = 0; i < v->nrows && i < COLL_MAX_ROWS; i++) {
        const struct coll_row *row = &v->rows[i];
        int cap = f->area.h - (f->reserve && col == f->ncols - 1);
        int heading = f->headings && row->section[0] != '\0';
        int fresh = i == 0 || strcmp(row->section, v->rows[i - 1].section) != 0;

        if (line + (heading && fresh) + 1 > cap) {
            if (++col >= f->ncols)
                break;
            line = 0;
            fresh = 1;
            cap = f->area.h - (f->reserve && col == f->ncols - 1);
            if (heading + 1 > cap)
                break;
        }
        if (heading && fresh) {
            if (g != NULL)
                draw_heading(g, f, col, line, row->section);
            line++;
        }
        if (g != NULL)
            draw_row(g, f, col, line, row);
        line++;
        placed++;
        *lines = line > *lines ? line : *lines;
    }
    return placed;
}

static int
label_width(const struct coll_view *v, int col_w)
{
    int w = 0, cap = (col_w - 3) * 3 / 5; /* labels name the figure: they get the larger share */

    for (int i = 0; i < v->nrows && i < COLL_MAX_ROWS; i++) {
        int n = dash_cells(v->rows[i].label);
        w = n > w ? n : w;
    }
    return w < cap ? w : cap;
}

static void
draw_more(const struct dash *d, struct grid *g, const struct flow *f, const struct coll_view *v,
          int placed)
{
    int hidden = v->nrows - placed, flagged = 0, x;
    enum row_level worst = ROW_NORMAL;
    char buf[64];
    const char *hint = d->zoom == 5 || d->zoom == 3 ? " (j, PgDn)" : " (press 3)";

    for (int i = placed; i < v->nrows && i < COLL_MAX_ROWS; i++) {
        enum row_level l = v->rows[i].level;
        if (l == ROW_WARN || l == ROW_BAD) {
            flagged++;
            worst = l > worst ? l : worst;
        }
    }
    if (flagged > 0)
        snprintf(buf, sizeof(buf), "+%d more, %d flagged%s", hidden, flagged, hint);
    else
        snprintf(buf, sizeof(buf), "+%d more%s", hidden, hint);
    x = f->area.x + (f->ncols - 1) * f->col_w + 1;
    grid_put(g, x, f->area.y + f->area.h - 1, f->area.x + f->area.w - x,
             flagged ? dash_level_style(worst, ST_VALUE) : ST_DIM, buf);
}

static void
set_columns(struct flow *f, const struct coll_view *v, int ncols)
{
    f->ncols = ncols;
    f->col_w = f->area.w / ncols;
    f->label_w = label_width(v, f->col_w);
}

/*
 * out = v's rows, the flagged ones (bad, then warnings) first, the others in
 * the collector's order: when the pane is too small for all, what it shows
 * is what matters most.
 */
static void
flagged_first(const struct coll_view *v, struct coll_view *out)
{
    static const enum row_level order[] = {ROW_BAD, ROW_WARN};
    int n = 0, i, k;

    for (k = 0; k < 2; k++)
        for (i = 0; i < v->nrows && i < COLL_MAX_ROWS; i++)
            if (v->rows[i].level == order[k])
                out->rows[n++] = v->rows[i];
    for (i = 0; i < v->nrows && i < COLL_MAX_ROWS; i++)
        if (v->rows[i].level != ROW_BAD && v->rows[i].level != ROW_WARN)
            out->rows[n++] = v->rows[i];
    out->nrows = n;
}

/*
 * The fewest columns (up to what the width allows) that hold every row,
 * then balanced: the shortest column height that still holds them, never
 * below BALANCE_MIN_H so a few rows stay one list. When even the most
 * columns do not hold them, the flagged rows first and a "+N more" marker.
 * Returns the lines used.
 */
static int
draw_rows(const struct dash *d, struct grid *g, struct rect area, const struct coll_view *v)
{
    int max_cols = area.w / (d->zoom == 5 ? COL_MIN_W_DETAIL : COL_MIN_W);
    struct flow f = {area, 1, area.w, 0, 0, area.h >= 3};
    struct coll_view ordered;
    int placed = 0, lines = 0;

    if (area.h <= 0 || area.w <= 2)
        return 0;
    max_cols = max_cols < 1 ? 1 : max_cols > MAX_COLS ? MAX_COLS : max_cols;
    for (int k = 1; k <= max_cols && placed < v->nrows; k++) {
        set_columns(&f, v, k);
        placed = flow_rows(NULL, &f, v, &lines);
    }
    f.reserve = placed < v->nrows;
    if (f.reserve) {
        flagged_first(v, &ordered);
        v = &ordered;
    }
    if (!f.reserve)
        for (f.area.h = area.h < BALANCE_MIN_H ? area.h : BALANCE_MIN_H; f.area.h < area.h;
             f.area.h++)
            if (flow_rows(NULL, &f, v, &lines) >= v->nrows)
                break;
    placed = flow_rows(g, &f, v, &lines);
    if (placed < v->nrows) {
        draw_more(d, g, &f, v, placed);
        return f.area.h;
    }
    return lines;
}

/* "postgres  ok  sample 1.2 ms  late 0  target", the error cut so the figures stay. */
static void
draw_title(struct grid *g, struct rect in, int y, const struct dash_server *s)
{
    int x = in.x, end = in.x + in.w, err_end;
    char cost[32], late[32];

    if (isfinite(s->cost_ms) && s->cost_ms >= 0)
        snprintf(cost, sizeof(cost), s->cost_ms < 100 ? "  sample %.1f ms" : "  sample %.0f ms",
                 s->cost_ms);
    else
        snprintf(cost, sizeof(cost), "  sample -");
    snprintf(late, sizeof(late), "  late %llu", (unsigned long long)s->late);
    grid_put_run(g, &x, y, end, ST_TITLE, s->name);
    grid_put_run(g, &x, y, end, ST_LABEL, "  ");
    if (s->ok)
        grid_put_run(g, &x, y, end, ST_GOOD, "ok");
    else {
        err_end = end - dash_cells(cost) - dash_cells(late);
        err_end = err_end < x + 12 ? end : err_end;
        grid_put_run(g, &x, y, err_end, ST_BAD, "error: ");
        grid_put_run(g, &x, y, err_end, ST_BAD, s->error[0] != '\0' ? s->error : "unknown");
    }
    grid_put_run(g, &x, y, end, ST_LABEL, cost);
    grid_put_run(g, &x, y, end, s->late ? ST_WARN : ST_LABEL, late);
    if (s->target[0] != '\0' && s->ok) {
        grid_put_run(g, &x, y, end, ST_DIM, "  ");
        grid_put_run(g, &x, y, end, ST_DIM, s->target);
    }
}

/*
 * Zoomed (3, 5), the rows scroll: the first d->scroll are left out and a
 * line says so, where the rows would start. Returns the lines used.
 */
static int
draw_scrolled(const struct dash *d, struct grid *g, struct rect area, const struct coll_view *v)
{
    int skip = d->zoom == 3 || d->zoom == 5 ? d->scroll : 0;
    struct coll_view rest;

    skip = skip < v->nrows ? skip : v->nrows - 1;
    if (skip <= 0 || area.h < 2)
        return draw_rows(d, g, area, v);
    rest = *v;
    rest.nrows = v->nrows - skip;
    memmove(rest.rows, v->rows + skip, (size_t)rest.nrows * sizeof rest.rows[0]);
    grid_printf(g, area.x + 1, area.y, area.w - 1, ST_DIM, "%d rows above (k, PgUp, Home)", skip);
    area.y++;
    area.h--;
    return 1 + draw_rows(d, g, area, &rest);
}

static void
draw_server(const struct dash *d, struct grid *g, struct rect b, const struct dash_server *s)
{
    const struct coll_view *v = &s->view;
    /* The note explains rows; it gives way when they would get fewer than three lines. */
    int note = v->note[0] != '\0' && b.h >= 5;
    struct rect rows = {b.x, b.y + 1, b.w, b.h - 1 - note};
    int used;

    draw_title(g, b, b.y, s);
    if (b.h < 2)
        return;
    if (!s->have_view) {
        grid_put(g, b.x + 1, b.y + 1, b.w - 1, ST_DIM,
                 s->ok ? "waiting for the second sample" : "no data yet");
        used = 1;
    } else
        used = draw_scrolled(d, g, rows, v);
    /* The note follows the rows, so it reads as their footnote. */
    if (note)
        grid_put(g, b.x, rows.y + used, b.w, ST_WARN, v->note);
}

void
pane_server(const struct dash *d, struct grid *g, struct rect r)
{
    struct rect in = {r.x + 2, r.y + 1, r.w - 3, r.h - 2};
    int n = d->nservers < DASH_SERVERS ? d->nservers : DASH_SERVERS;

    grid_box(g, r, d->zoom == 5 ? "5 server detail" : "3 server", d->utf8);
    if (in.w <= 0 || in.h <= 0)
        return;
    if (n <= 0) {
        grid_put(g, in.x, in.y, in.w, ST_DIM, "no server view for this target");
        return;
    }
    /* Equal shares; the last server takes the rows the division leaves. */
    for (int i = 0, bh = in.h / n; i < n && bh >= 1; i++) {
        struct rect b = {in.x, in.y + i * bh, in.w, i == n - 1 ? in.h - i * bh : bh};
        draw_server(d, g, b, &d->servers[i]);
    }
}
