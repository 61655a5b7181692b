/*
 * layout: where each pane goes for the grid's size. The fixed minimum
 * (80x24) fits every pane's essentials; a larger terminal gives its extra
 * rows to the throughput graph and the server pane, a few to the events.
 */
#include "dash.h"

#include <stdio.h>
#include <string.h>

enum {
    HEADER_H = 3,  /* status bar, load shape, verdict */
    TOP_MIN_H = 9, /* latency: the column heads and six rows, boxed */
    SERVER_MIN_H = 8,
    EVENTS_MIN_H = 5,
    EVENTS_MAX_EXTRA = 5,
    LAT_MIN_W = 40,
    STACK_BELOW_W = 100, /* narrower and tall enough: throughput over latency */
    STACK_MIN_BODY_H = 42,
    HELP_MAX_LINES = 40,
    /* as in ui/panes/server.c */
    SERVER_COL_W = 56,
    SERVER_MAX_COLS = 6,
    SERVER_BALANCE_H = 6,
    SWEEP_MIN_H = 7, /* heads, three steps, the running one, the finding, boxed */
    WATCH_GRAPH_MIN_W = 30,
};

typedef void pane_fn(const struct dash *d, struct grid *g, struct rect r);

/* By zoom number; 5 is the server pane again, which reads d->zoom to show every row. */
static pane_fn *const ZOOMED[] = {NULL,        pane_throughput, pane_latency, pane_server,
                                  pane_events, pane_server,     pane_sweep,   pane_sessions};

static int
imin(int a, int b)
{
    return a < b ? a : b;
}

static int
imax(int a, int b)
{
    return a > b ? a : b;
}

static void
put_centred(struct grid *g, int y, const char *text)
{
    grid_put(g, imax(0, (g->w - dash_cells(text)) / 2), y, -1, ST_WARN, text);
}

/* One centred line; split in three when it does not fit and there are rows for it. */
static void
draw_too_small(struct grid *g)
{
    char have[48], line[96];

    snprintf(have, sizeof(have), "have %dx%d", g->w, g->h);
    snprintf(line, sizeof(line), "terminal too small: need %dx%d, %s", DASH_MIN_W, DASH_MIN_H,
             have);
    if (dash_cells(line) <= g->w || g->h < 3) {
        put_centred(g, g->h / 2, line);
        return;
    }
    put_centred(g, g->h / 2 - 1, "terminal too small:");
    snprintf(line, sizeof(line), "need %dx%d,", DASH_MIN_W, DASH_MIN_H);
    put_centred(g, g->h / 2, line);
    put_centred(g, g->h / 2 + 1, have);
}

/* A box of n lines over the panes, w cells wide inside, in the help style. */
static void
draw_overlay(const struct dash *d, struct grid *g, const char *title, const char *const *lines,
             int n, int w)
{
    struct rect r;

    r.w = imin(w + 4, g->w - 2);
    r.h = imin(n + 2, g->h - 2);
    r.x = (g->w - r.w) / 2;
    r.y = (g->h - r.h) / 2;
    grid_fill(g, r, ST_HELP);
    grid_box(g, r, title, d->utf8);
    for (int i = 0; i < n && i < r.h - 2; i++)
        grid_put(g, r.x + 2, r.y + 1 + i, r.w - 4, ST_HELP, lines[i]);
}

static void
draw_help(const struct dash *d, struct grid *g)
{
    int n = 0, w = 16;

    for (; n < HELP_MAX_LINES && d->help_lines[n] != NULL; n++)
        w = imax(w, dash_cells(d->help_lines[n]));
    draw_overlay(d, g, "help", d->help_lines, n, w);
}

/* One line of at most w cells from *s (cut at a space when there is one); *s moves past it. */
static void
wrap_line(const char **s, int w, char *line, size_t len)
{
    const char *p = *s, *cut = NULL;
    int cells = 0;

    while (*p != '\0' && cells < w) {
        if (*p == ' ')
            cut = p;
        p++;
        while ((*p & 0xc0) == 0x80) /* the rest of a code point: one cell, as grid_put counts */
            p++;
        cells++;
    }
    if (*p != '\0' && cut != NULL)
        p = cut;
    snprintf(line, len, "%.*s", (int)(p - *s), *s);
    *s = *p == ' ' ? p + 1 : p;
}

/* v: the verdict whole, wrapped in a box over the panes; any key closes it. */
static void
draw_verdict(const struct dash *d, struct grid *g)
{
    const char *s = d->verdict[0] ? d->verdict : "no verdict yet";
    char lines[12][sizeof d->verdict];
    const char *ptrs[12];
    int n = 0, w = imin(g->w - 6, 100);

    while (*s != '\0' && n < 12) {
        wrap_line(&s, w, lines[n], sizeof lines[0]);
        ptrs[n] = lines[n];
        n++;
    }
    draw_overlay(d, g, "verdict (any key closes)", ptrs, n, w);
}

/* t: the experiment's rounds as they come (ui/try.c fills the lines). */
static void
draw_try(const struct dash *d, struct grid *g)
{
    const char *ptrs[DASH_TRY_LINES];
    int n = 0, w = 16;

    for (; n < d->trial.n && n < DASH_TRY_LINES; n++) {
        ptrs[n] = d->trial.lines[n];
        w = imax(w, dash_cells(ptrs[n]));
    }
    draw_overlay(d, g, "t: try the verdict's advice", ptrs, n, imin(w, g->w - 6));
}

/*
 * Rows the server pane would use, estimated the way ui/panes/server.c flows
 * them (balanced columns of SERVER_COL_W cells, a heading per section,
 * repeated when a section continues in the next column). Rows the estimate
 * misses are not lost: the pane then shows its "+N more" marker.
 */
static int
server_want(const struct dash *d, int w)
{
    int cols = imax(1, imin((w - 3) / SERVER_COL_W, SERVER_MAX_COLS)), want = 2;

    for (int i = 0; i < d->nservers && i < DASH_SERVERS; i++) {
        const struct coll_view *v = &d->servers[i].view;
        int lines = 0, rows = 1;

        for (int k = 0; k < v->nrows && k < COLL_MAX_ROWS; k++)
            lines += 1 + (k == 0 || strcmp(v->rows[k].section, v->rows[k - 1].section) != 0);
        if (d->servers[i].have_view && lines > 0)
            rows = imax(imin(lines, SERVER_BALANCE_H), (lines + cols - 1) / cols + cols - 1);
        want += 1 + rows + (v->note[0] != '\0');
    }
    return imax(want, 3);
}

/* bottom: the events pane, or the sweep pane in its place on a short terminal. */
static void
draw_all(const struct dash *d, struct grid *g, struct rect body, pane_fn *bottom)
{
    int stacked = body.w < STACK_BELOW_W && body.h >= STACK_MIN_BODY_H;
    int extra = body.h - TOP_MIN_H - SERVER_MIN_H - EVENTS_MIN_H - stacked * TOP_MIN_H;
    int ev_h = EVENTS_MIN_H + imin(extra / 5, EVENTS_MAX_EXTRA);
    int top_h = TOP_MIN_H + (extra - (ev_h - EVENTS_MIN_H)) * 2 / 5;
    int srv_h = body.h - top_h - ev_h - stacked * TOP_MIN_H;
    int spare = srv_h - imax(SERVER_MIN_H, server_want(d, body.w));
    int lat_w, y = body.y;
    /* watch has no latency of its own: the sessions list takes its place, wider */
    int watch = !d->load && d->sessions.shown;
    pane_fn *side = watch ? pane_sessions : pane_latency;

    /* Rows the server pane cannot fill go to the graph, a third to the events. */
    if (spare > 0) {
        srv_h -= spare;
        ev_h += spare / 3;
        top_h += spare - spare / 3;
    }
    if (stacked) {
        pane_throughput(d, g, (struct rect){body.x, y, body.w, top_h});
        side(d, g, (struct rect){body.x, y + top_h, body.w, TOP_MIN_H});
        y += top_h + TOP_MIN_H;
    } else {
        /* The graph gains more from width than the table does. */
        lat_w = imax(LAT_MIN_W, imin(body.w / 2, 30 + body.w / 5));
        if (watch)
            lat_w = body.w - imax(WATCH_GRAPH_MIN_W, body.w / 3);
        pane_throughput(d, g, (struct rect){body.x, y, body.w - lat_w, top_h});
        side(d, g, (struct rect){body.x + body.w - lat_w, y, lat_w, top_h});
        y += top_h;
    }
    pane_server(d, g, (struct rect){body.x, y, body.w, srv_h});
    bottom(d, g, (struct rect){body.x, y + srv_h, body.w, body.y + body.h - y - srv_h});
}

/*
 * A sweep adds its pane at the bottom, a row per step, when the other
 * panes keep their minimum; on a shorter terminal it takes the events'
 * place (4 still zooms them).
 */
static void
draw_with_sweep(const struct dash *d, struct grid *g, struct rect body)
{
    int want = d->sweep.nrows + 4 + d->sweep.running;
    int h = imin(imax(SWEEP_MIN_H, want), body.h / 3);
    struct rect rest = {body.x, body.y, body.w, body.h - h};

    if (rest.h < TOP_MIN_H + SERVER_MIN_H + EVENTS_MIN_H) {
        draw_all(d, g, body, pane_sweep);
        return;
    }
    draw_all(d, g, rest, pane_events);
    pane_sweep(d, g, (struct rect){body.x, body.y + rest.h, body.w, h});
}

/*
 * Without UTF-8 the panes draw ASCII, but server strings, targets and
 * events may still hold other characters; the terminal could not show
 * them, so they become '?' here, once for every pane.
 */
static void
ascii_only(struct grid *g)
{
    for (size_t i = 0; i < (size_t)g->w * (size_t)g->h; i++)
        if ((unsigned char)g->cells[i].ch[0] >= 0x80)
            strcpy(g->cells[i].ch, "?");
}

void
layout_draw(const struct dash *d, struct grid *g)
{
    struct rect body = {0, HEADER_H, g->w, g->h - HEADER_H};

    grid_clear(g);
    if (g->w < DASH_MIN_W || g->h < DASH_MIN_H) {
        draw_too_small(g);
        return;
    }
    pane_header(d, g, (struct rect){0, 0, g->w, HEADER_H});
    if (d->zoom >= 1 && d->zoom <= 7)
        ZOOMED[d->zoom](d, g, body);
    else if (d->sweep.active)
        draw_with_sweep(d, g, body);
    else
        draw_all(d, g, body, pane_events);
    if (d->help)
        draw_help(d, g);
    else if (d->verdict_open)
        draw_verdict(d, g);
    else if (d->trial.shown)
        draw_try(d, g);
    if (d->prompt[0] != '\0') {
        grid_fill(g, (struct rect){0, g->h - 1, g->w, 1}, ST_HELP);
        grid_put(g, 0, g->h - 1, g->w, ST_HELP, d->prompt);
    }
    if (!d->utf8)
        ascii_only(g);
}
