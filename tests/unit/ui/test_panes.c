/*
 * Tests for the dashboard's rendering: the grid's clipping and UTF-8
 * counting, then whole screens laid out from a realistic struct dash at
 * several sizes, checked for the figures, where they are, their styles,
 * and that nothing lands outside the grid or outside its pane.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/dash.h"
#include "ui/grid.h"
#include "base/util.h"

enum {
    ROW_BUF = 4096,
    NHIST = 200,
    SPIKE_AGO = 9, /* the max tps sample is this many intervals before the newest */
    GUARD = 64,
};

static const char *const HELP[] = {"q      quit",        "p      pause / resume",
                                   "1..5   zoom a pane", "0      every pane",
                                   "?      this help",   NULL};

static const struct {
    int w, h;
} SIZES[] = {{80, 24}, {120, 40}, {200, 60}};

/* ---- helpers ---- */

static int
cells_of(const char *s)
{
    int n = 0;

    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static void
add_row(struct coll_view *v, const char *section, const char *label, enum row_level level,
        const char *value)
{
    struct coll_row *r = &v->rows[v->nrows++];

    snprintf(r->section, sizeof(r->section), "%s", section);
    snprintf(r->label, sizeof(r->label), "%s", label);
    snprintf(r->value, sizeof(r->value), "%s", value);
    r->num = NAN;
    r->level = level;
}

static void
fill_view(struct coll_view *v)
{
    memset(v, 0, sizeof(*v));
    add_row(v, "sessions", "active", ROW_NORMAL, "12");
    add_row(v, "sessions", "idle", ROW_NORMAL, "20");
    add_row(v, "sessions", "idle in transaction", ROW_WARN, "3");
    add_row(v, "sessions", "waiting on lock", ROW_NORMAL, "0");
    add_row(v, "database", "commits/s", ROW_NORMAL, "12001.0");
    add_row(v, "database", "rollbacks/s", ROW_NORMAL, "0.5");
    add_row(v, "database", "cache hit", ROW_GOOD, "99.2 %");
    add_row(v, "database", "temp files/s", ROW_NORMAL, "0");
    add_row(v, "locks", "not granted", ROW_BAD, "4 waiting");
    add_row(v, "locks", "deadlocks", ROW_NORMAL, "0");
    add_row(v, "checkpoints", "timed", ROW_NORMAL, "3");
    add_row(v, "checkpoints", "requested", ROW_NORMAL, "1");
    add_row(v, "wal", "bytes/s", ROW_NORMAL, "12.3 MB/s");
    add_row(v, "settings", "max_connections", ROW_DIM, "needs pg_read_all_settings");
    v->server_tps = 12001.0;
    snprintf(v->note, sizeof(v->note), "needs pg_monitor for wait events");
}

static void
fill_history(struct dash *d)
{
    for (int i = 0; i < NHIST; i++) {
        double tps = 11000.0 + (i * 37 % 2000);

        if (i == NHIST - 1 - SPIKE_AGO)
            tps = 20000.0;
        dash_history_push(d, tps, i < 5 ? NAN : tps * 0.97);
    }
}

static void
fill_dash(struct dash *d)
{
    static const uint64_t BUCKETS[] = {0,   0,    0,     0,    0,   0,  0, 0, 120,
                                       900, 5000, 40000, 9000, 700, 30, 0, 2};

    memset(d, 0, sizeof(*d));
    snprintf(d->target, sizeof(d->target), "postgres://bench@db1.example.com:5432/bench");
    snprintf(d->workload, sizeof(d->workload), "tpcb-like");
    snprintf(d->mode, sizeof(d->mode), "prepared");
    d->load = 1;
    d->clients = d->connected = 32;
    d->threads = 4;
    d->elapsed_s = 83.4;
    d->duration_s = 300;
    d->interval_s = 1;
    d->state = RUN_RUNNING;
    d->own_cpu_pct = 12.2;
    d->tps = 12345.6;
    d->ops = 61728.4;
    d->server_tps = 12001.0;
    fill_history(d);
    d->errors = 3;
    d->errors_total = 17;
    d->reconnects_total = 2;
    d->lat_cur = (struct hist_summary){1234.5, 1020, 2100, 4560, 8900, 15200, 3300};
    d->lat_total = (struct hist_summary){1310.2, 1050, 2200, 5010, 12300, 98700, 3600};
    memcpy(d->lat_log2, BUCKETS, sizeof(BUCKETS));
    d->nservers = 1;
    snprintf(d->servers[0].name, sizeof(d->servers[0].name), "postgres");
    snprintf(d->servers[0].target, sizeof(d->servers[0].target), "db1.example.com:5432/bench");
    d->servers[0].ok = 1;
    d->servers[0].have_view = 1;
    d->servers[0].cost_ms = 1.23;
    fill_view(&d->servers[0].view);
    d->elapsed_s = 1.0;
    dash_event_add(d, ROW_NORMAL, "run started: 32 clients");
    d->elapsed_s = 12.0;
    dash_event_add(d, ROW_WARN, "2 clients reconnected");
    d->elapsed_s = 40.5;
    dash_event_add(d, ROW_NORMAL, "checkpoint complete");
    d->elapsed_s = 83.4;
    dash_event_add(d, ROW_BAD, "4 sessions waiting on locks");
    d->utf8 = 1;
    memcpy(d->help_lines, HELP, sizeof(HELP));
}

static struct dash *
new_dash(void)
{
    struct dash *d = xmalloc(sizeof(*d));

    fill_dash(d);
    return d;
}

static struct grid *
render(const struct dash *d, int w, int h)
{
    struct grid *g = grid_new(w, h);

    layout_draw(d, g);
    return g;
}

/* First (x, y) at or after row y0 where s starts, in cells; 0 if absent. */
static int
find_from(const struct grid *g, int y0, const char *s, int *x, int *y)
{
    char row[ROW_BUF];

    for (int r = y0; r < g->h; r++) {
        const char *p;

        grid_row_text(g, r, row, sizeof(row));
        if ((p = strstr(row, s)) != NULL) {
            char prefix[ROW_BUF];

            snprintf(prefix, sizeof(prefix), "%.*s", (int)(p - row), row);
            *x = cells_of(prefix);
            *y = r;
            return 1;
        }
    }
    return 0;
}

static int
find_text(const struct grid *g, const char *s, int *x, int *y)
{
    return find_from(g, 0, s, x, y);
}

static int
has_text(const struct grid *g, const char *s)
{
    int x, y;

    return find_text(g, s, &x, &y);
}

/* Whether s appears somewhere wholly inside r. */
static int
text_in(const struct grid *g, struct rect r, const char *s)
{
    char row[ROW_BUF];

    for (int y = r.y; y < r.y + r.h; y++) {
        grid_row_text(g, y, row, sizeof(row));
        for (const char *p = strstr(row, s); p != NULL; p = strstr(p + 1, s)) {
            char prefix[ROW_BUF];
            int x;

            snprintf(prefix, sizeof(prefix), "%.*s", (int)(p - row), row);
            x = cells_of(prefix);
            if (x >= r.x && x + cells_of(s) <= r.x + r.w)
                return 1;
        }
    }
    return 0;
}

static int
cell_is(const struct grid *g, int x, int y, const char *a, const char *b)
{
    const struct cell *c = grid_at(g, x, y);

    return c != NULL && (strcmp(c->ch, a) == 0 || strcmp(c->ch, b) == 0);
}

/* The box whose title is `title`, from its corners; w 0 when not found. */
static struct rect
pane_rect(const struct grid *g, const char *title)
{
    struct rect r = {0, 0, 0, 0};
    int x, y;

    if (!find_text(g, title, &x, &y))
        return r;
    r.x = x - 3; /* "┌─ title" */
    r.y = y;
    assert_true(cell_is(g, r.x, r.y, "┌", "+"));
    for (x = r.x + 1; x < g->w && !cell_is(g, x, r.y, "┐", "+"); x++)
        ;
    for (y = r.y + 1; y < g->h && !cell_is(g, r.x, y, "└", "+"); y++)
        ;
    r.w = x - r.x + 1;
    r.h = y - r.y + 1;
    return r;
}

static struct rect
inner(struct rect r)
{
    return (struct rect){r.x + 1, r.y + 1, r.w - 2, r.h - 2};
}

/* Every row is exactly w cells: nothing was written past an edge or half-written. */
static void
assert_rows_full(const struct grid *g)
{
    char row[ROW_BUF];

    for (int y = 0; y < g->h; y++) {
        grid_row_text(g, y, row, sizeof(row));
        assert_int_equal(cells_of(row), g->w);
    }
}

static int
row_of_text(const struct grid *g, struct rect r, const char *s)
{
    int x, y;

    for (int from = r.y; find_from(g, from, s, &x, &y) && y < r.y + r.h; from = y + 1)
        if (x >= r.x && x < r.x + r.w)
            return y;
    return -1;
}

/* ---- grid ---- */

static void
test_grid_put_clips(void **state)
{
    (void)state;
    struct grid *g = grid_new(10, 3);
    char row[64];

    assert_int_equal(grid_put(g, 7, 0, -1, ST_VALUE, "abcdef"), 3);
    grid_row_text(g, 0, row, sizeof(row));
    assert_string_equal(row, "       abc");
    assert_int_equal(grid_put(g, -2, 1, -1, ST_VALUE, "abcdef"), 4);
    grid_row_text(g, 1, row, sizeof(row));
    assert_string_equal(row, "cdef      ");
    assert_int_equal(grid_put(g, 1, 2, 3, ST_VALUE, "abcdef"), 3);
    assert_int_equal(grid_put(g, 1, 2, 0, ST_VALUE, "zz"), 0);
    grid_row_text(g, 2, row, sizeof(row));
    assert_string_equal(row, " abc      ");
    assert_int_equal(grid_put(g, 0, -1, -1, ST_VALUE, "x"), 0);
    assert_int_equal(grid_put(g, 0, 3, -1, ST_VALUE, "x"), 0);
    assert_int_equal(grid_put(g, 10, 0, -1, ST_VALUE, "x"), 0);
    assert_int_equal(grid_at(g, 7, 0)->style, ST_VALUE);
    assert_null(grid_at(g, 10, 0));
    assert_null(grid_at(g, 0, -1));
    /* A buffer too short for the row gets whole characters and a NUL. */
    grid_row_text(g, 0, row, 4);
    assert_string_equal(row, "   ");
    grid_free(g);
}

static void
test_grid_utf8_counts_code_points(void **state)
{
    (void)state;
    /* A stray byte, a wide character, a cut sequence, a control character. */
    static const char BROKEN[] = "a\xff"
                                 "b日\xe2\x96"
                                 "c\x01";
    struct grid *g = grid_new(12, 2);
    char row[64];

    assert_int_equal(grid_put(g, 0, 0, -1, ST_NORMAL, "héllo█▁"), 7);
    assert_string_equal(grid_at(g, 1, 0)->ch, "é");
    assert_string_equal(grid_at(g, 5, 0)->ch, "█");
    assert_string_equal(grid_at(g, 6, 0)->ch, "▁");
    grid_row_text(g, 0, row, sizeof(row));
    assert_string_equal(row, "héllo█▁     ");
    /* Broken and wide characters still take one cell each, as '?'. */
    assert_int_equal(grid_put(g, 0, 1, -1, ST_NORMAL, BROKEN), 7);
    grid_row_text(g, 1, row, sizeof(row));
    assert_string_equal(row, "a?b??c?     ");
    /* Clipping never splits a character. */
    assert_int_equal(grid_put(g, 10, 0, -1, ST_NORMAL, "██████"), 2);
    assert_string_equal(grid_at(g, 11, 0)->ch, "█");
    grid_free(g);
}

static void
test_grid_box_and_fill(void **state)
{
    (void)state;
    struct grid *g = grid_new(12, 4);
    char row[64];

    grid_box(g, (struct rect){0, 0, 12, 4}, "title", 0);
    grid_row_text(g, 0, row, sizeof(row));
    assert_string_equal(row, "+- title --+");
    grid_row_text(g, 1, row, sizeof(row));
    assert_string_equal(row, "|          |");
    grid_row_text(g, 3, row, sizeof(row));
    assert_string_equal(row, "+----------+");
    assert_int_equal(grid_at(g, 3, 0)->style, ST_TITLE);
    assert_int_equal(grid_at(g, 0, 1)->style, ST_BORDER);
    grid_fill(g, (struct rect){-5, 1, 100, 2}, ST_HELP);
    assert_int_equal(grid_at(g, 11, 2)->style, ST_HELP);
    assert_string_equal(grid_at(g, 0, 1)->ch, "");
    grid_box(g, (struct rect){6, 2, 20, 20}, "a very long title", 1);
    assert_string_equal(grid_at(g, 6, 2)->ch, "┌");
    assert_string_equal(grid_at(g, 6, 3)->ch, "│");
    grid_free(g);
}

/* ---- dash ---- */

static void
test_dash_appends_drop_oldest(void **state)
{
    (void)state;
    struct dash *d = xcalloc(1, sizeof(*d));

    for (int i = 0; i < DASH_EVENTS + 5; i++) {
        d->elapsed_s = i;
        dash_event_add(d, ROW_NORMAL, "event %d", i);
    }
    assert_int_equal(d->nevents, DASH_EVENTS);
    assert_string_equal(d->events[0].text, "event 5");
    assert_string_equal(d->events[DASH_EVENTS - 1].text, "event 68");
    assert_true(d->events[DASH_EVENTS - 1].t == 68.0);
    for (int i = 0; i < DASH_HISTORY + 3; i++)
        dash_history_push(d, i, i * 2.0);
    assert_int_equal(d->nhist, DASH_HISTORY);
    assert_true(d->tps_hist[0] == 3.0);
    assert_true(d->server_tps_hist[DASH_HISTORY - 1] == 2.0 * (DASH_HISTORY + 2));
    free(d);
}

/*
 * Issue 27: the server's tps was one interval late beside the client's
 * (tps 2103, server 4045): a sample taken at the tick but answered just
 * after it belongs to the point that tick pushed, not to the next one.
 */
static void
test_server_sample_joins_its_interval(void **state)
{
    (void)state;
    struct dash *d = xcalloc(1, sizeof(*d));

    dash_history_push(d, 4000, 4000); /* interval 1..2 s */
    d->tps = d->server_tps = 4000;
    dash_history_push(d, 2103, 4000); /* 2..3 s: the clients dropped, the sample not in yet */
    d->tps = 2103;
    /* taken at 3.001 s, a round trip after the tick at 3.000 s: interval 2..3 s */
    assert_int_equal(dash_server_sample(d, 2100, 3.001, 3.0, 1.0), 1);
    assert_true(d->server_tps == 2100);
    assert_true(d->server_tps_hist[1] == 2100);
    assert_true(d->server_tps_hist[0] == 4000);
    /* taken before the next tick (3.98 s): the next interval's, for the next push */
    assert_int_equal(dash_server_sample(d, 1900, 3.98, 3.0, 1.0), 0);
    assert_true(d->server_tps_hist[1] == 2100);
    assert_true(d->server_tps == 2100);
    free(d);
}

/* ---- whole screens ---- */

static void
test_figures_in_their_panes(void **state)
{
    (void)state;
    struct dash *d = new_dash();

    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
        struct grid *g = render(d, SIZES[i].w, SIZES[i].h);
        struct rect tp = pane_rect(g, "1 throughput"), lat = pane_rect(g, "2 latency");
        struct rect srv = pane_rect(g, "3 server"), ev = pane_rect(g, "4 events");
        struct rect head = {0, 0, g->w, 2};
        int p99;

        assert_rows_full(g);
        assert_true(tp.w > 0 && lat.w > 0 && srv.w > 0 && ev.w > 0);
        assert_true(text_in(g, (struct rect){0, 0, g->w, 1}, " running "));
        assert_true(text_in(g, (struct rect){0, 0, g->w, 1}, "tpcb-like (prepared)"));
        assert_true(text_in(g, (struct rect){0, 0, g->w, 1}, "benchtop cpu 12%"));
        assert_true(text_in(g, (struct rect){g->w - 7, 0, 6, 1}, "? help"));
        assert_true(text_in(g, head, "clients 32/32"));
        assert_true(text_in(g, head, "threads 4"));
        assert_true(text_in(g, head, "closed loop"));
        assert_true(text_in(g, head, "elapsed 1:23"));
        assert_true(text_in(g, head, "remaining 3:37"));

        assert_true(text_in(g, inner(tp), "tps 12345.6"));
        assert_true(text_in(g, inner(tp), "server 12001.0"));
        assert_true(text_in(g, inner(tp), "ops/s 61728.4"));
        assert_true(text_in(g, inner(tp), "errors 3 (total 17)"));
        assert_true(text_in(g, inner(tp), "reconnects 2"));
        assert_true(text_in(g, inner(tp), "20.0k"));

        p99 = row_of_text(g, inner(lat), "p99 ");
        assert_true(p99 > lat.y);
        assert_true(text_in(g, (struct rect){lat.x, p99, lat.w, 1}, "4.56 ms"));
        assert_true(text_in(g, (struct rect){lat.x, p99, lat.w, 1}, "5.01 ms"));
        assert_true(text_in(g, inner(lat), "1.23 ms"));
        assert_true(text_in(g, inner(lat), "98.7 ms"));

        assert_true(text_in(g, inner(srv), "postgres  ok  sample 1.2 ms  late 0"));
        /* at every size the flagged row is shown, first when not all fit */
        assert_true(text_in(g, inner(srv), "not granted"));
        assert_true(text_in(g, inner(srv), "locks"));
        assert_true(text_in(g, inner(srv), "needs pg_monitor for wait events"));

        assert_true(text_in(g, inner(ev), "83.4s  4 sessions waiting on locks"));
        /* Oldest first, newest last. */
        assert_int_equal(row_of_text(g, inner(ev), "waiting on locks"),
                         row_of_text(g, inner(ev), "checkpoint complete") + 1);
        /* Panes tile the screen under the header without overlapping. */
        assert_true(tp.y == 3 && ev.y + ev.h == g->h && srv.y >= tp.y + tp.h);
        assert_true(tp.x + tp.w <= lat.x || lat.y >= tp.y + tp.h);
        grid_free(g);
    }
    free(d);
}

static void
test_bigger_screens_grow_graph_and_server(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct grid *small = render(d, 80, 24), *big = render(d, 200, 60);
    struct rect tp_s = pane_rect(small, "1 throughput"), tp_b = pane_rect(big, "1 throughput");
    struct rect srv_s = pane_rect(small, "3 server"), srv_b = pane_rect(big, "3 server");

    assert_true(tp_b.h > tp_s.h && tp_b.w > tp_s.w);
    assert_true(srv_b.h > srv_s.h);
    /* At 80x24 the server rows are cut with a marker; at 200x60 they all fit. */
    assert_true(text_in(small, inner(srv_s), "(press 3)"));
    assert_true(text_in(small, inner(srv_s), "+"));
    assert_false(has_text(big, "more"));
    assert_true(text_in(big, inner(srv_b), "max_connections"));
    grid_free(small);
    grid_free(big);
    free(d);
}

static void
test_bad_row_is_styled_bad(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct grid *g = render(d, 120, 40);
    struct rect srv = pane_rect(g, "3 server");
    int x, y, vx, vy;

    assert_true(find_text(g, "not granted", &x, &y));
    assert_true(text_in(g, inner(srv), "not granted"));
    assert_true(find_text(g, "4 waiting", &vx, &vy));
    assert_int_equal(vy, y);
    for (int i = 0; i < (int)strlen("not granted"); i++)
        assert_int_equal(grid_at(g, x + i, y)->style, ST_BAD);
    for (int i = 0; i < (int)strlen("4 waiting"); i++)
        assert_int_equal(grid_at(g, vx + i, y)->style, ST_BAD);
    assert_true(find_text(g, "cache hit", &x, &y));
    assert_int_equal(grid_at(g, x, y)->style, ST_GOOD);
    assert_true(find_text(g, "max_connections", &x, &y));
    assert_int_equal(grid_at(g, x, y)->style, ST_DIM);
    /* Two columns at 120 wide: "locks" sits right of "sessions". */
    assert_true(find_text(g, "sessions", &x, &y));
    assert_true(find_text(g, "locks", &vx, &vy));
    assert_true(vx > x + 40);
    grid_free(g);
    free(d);
}

static void
test_cut_rows_marker_flags_hidden_problems(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct grid *g = render(d, 80, 24);
    struct rect srv = pane_rect(g, "3 server");
    int x, y;

    /* too small for every row: the bad one comes first, the warning left out is counted */
    assert_true(find_text(g, "not granted", &x, &y));
    assert_int_equal(grid_at(g, x, y)->style, ST_BAD);
    assert_false(text_in(g, inner(srv), "max_connections"));
    assert_true(find_text(g, "1 flagged (press 3)", &x, &y));
    assert_true(y > srv.y && y < srv.y + srv.h - 1);
    assert_int_equal(grid_at(g, x, y)->style, ST_WARN);
    grid_free(g);

    /* Narrow and tall (panes stacked): the cut rows use every line down to the note. */
    g = render(d, 90, 50);
    srv = pane_rect(g, "3 server");
    assert_true(srv.w == 90 && srv.h > 12);
    assert_true(find_text(g, "(press 3)", &x, &y));
    assert_int_equal(y, srv.y + srv.h - 3);
    assert_int_equal(row_of_text(g, inner(srv), "needs pg_monitor"), srv.y + srv.h - 2);
    grid_free(g);

    /* Zoomed, the marker points to the keys that scroll. */
    d->zoom = 3;
    g = render(d, 80, 24);
    assert_false(has_text(g, "(press 3)"));
    grid_free(g);
    free(d);
}

/* Zoomed (3, 5), the server's rows scroll: the first ones give way, a line counts them. */
static void
test_server_rows_scroll_when_zoomed(void **state)
{
    struct dash *d = new_dash();
    struct grid *g;

    d->zoom = 5;
    d->scroll = 13; /* of 14 rows: only the last is left */
    g = render(d, 80, 24);
    assert_true(has_text(g, "13 rows above (k, PgUp, Home)"));
    assert_true(has_text(g, "max_connections"));
    assert_false(has_text(g, "commits/s"));
    grid_free(g);
    d->scroll = 99; /* past the end: the last row stays */
    g = render(d, 80, 24);
    assert_true(has_text(g, "13 rows above"));
    assert_true(has_text(g, "max_connections"));
    grid_free(g);
    d->zoom = 0; /* not zoomed: no scroll */
    g = render(d, 80, 24);
    assert_false(has_text(g, "rows above"));
    grid_free(g);
    free(d);
}

/* A verdict wider than the line ends in an ellipsis at 80 and 200 columns; v shows it whole. */
static void
test_verdict_cut_with_a_sign(void **state)
{
    struct dash *d = new_dash();
    char row[ROW_BUF];
    struct grid *g;
    size_t n;

    d->utf8 = 1;
    snprintf(d->verdict, sizeof d->verdict, "CLIENT-BOUND (clear): ");
    for (int i = 0; strlen(d->verdict) < 300; i++)
        snprintf(d->verdict + strlen(d->verdict), sizeof d->verdict - strlen(d->verdict),
                 "word%03d ", i);
    snprintf(d->verdict + strlen(d->verdict), sizeof d->verdict - strlen(d->verdict), "END");
    for (int w = 80; w <= 200; w += 120) {
        g = render(d, w, 30);
        grid_row_text(g, 2, row, sizeof row);
        n = strlen(row);
        while (n > 0 && row[n - 1] == ' ')
            n--;
        row[n] = '\0';
        assert_true(n >= 3 && strcmp(row + n - 3, "\u2026") == 0); /* the line ends in it */
        assert_int_equal(cells_of(row), w);
        assert_false(has_text(g, "END"));
        grid_free(g);
    }
    d->verdict_open = 1;
    g = render(d, 80, 30);
    assert_true(has_text(g, "verdict (any key closes)"));
    assert_true(has_text(g, "word000"));
    assert_true(has_text(g, "END"));
    grid_free(g);
    /* one that fits is left whole, without the sign */
    d->verdict_open = 0;
    snprintf(d->verdict, sizeof d->verdict, "CLIENT-BOUND (clear): short");
    g = render(d, 80, 30);
    grid_row_text(g, 2, row, sizeof row);
    assert_non_null(strstr(row, "limit: CLIENT-BOUND (clear): short"));
    assert_null(strstr(row, "\u2026"));
    grid_free(g);
    free(d);
}

/*
 * Issue 47: at 80 columns the line was cut before its advice ("0.4 of 1
 * active benchtop sessions wait fo…"); the limit and what to try come
 * first, the evidence after, so the cut takes only evidence.
 */
static void
test_verdict_advice_first(void **state)
{
    struct dash *d = new_dash();
    char row[ROW_BUF];
    struct grid *g;

    d->utf8 = 1;
    dash_verdict_line(d->verdict, sizeof d->verdict, "COMMIT/I/O-BOUND (tentative)",
                      "synchronous_commit = off",
                      "0.4 of 1 active benchtop sessions wait for the log's flush at commit "
                      "(WAL sync 2.1 ms each); the clients' time: commit 38%, client 20%");
    g = render(d, 80, 24);
    grid_row_text(g, 2, row, sizeof row);
    assert_non_null(
        strstr(row, "limit: COMMIT/I/O-BOUND (tentative), try synchronous_commit = off: 0.4 of"));
    assert_non_null(strstr(row, "\u2026"));
    grid_free(g);
    /* without advice, the evidence follows the limit */
    dash_verdict_line(d->verdict, sizeof d->verdict, "NOT ENOUGH LOAD (clear)", "", "idle 90%");
    assert_string_equal(d->verdict, "NOT ENOUGH LOAD (clear): idle 90%");
    free(d);
}

static void fill_sweep(struct dash *d);

static void
test_nothing_written_outside_the_grid(void **state)
{
    (void)state;
    static const int DIMS[][2] = {{80, 24}, {120, 40}, {200, 60}, {79, 24}, {1, 1}, {3, 200}};
    struct dash *d = new_dash();

    d->help = 1;
    for (size_t i = 0; i < 2 * sizeof(DIMS) / sizeof(DIMS[0]); i++) {
        if (i == sizeof(DIMS) / sizeof(DIMS[0]))
            fill_sweep(d); /* the second round with the sweep pane */
        for (int zoom = 0; zoom <= 6; zoom++) {
            int w = DIMS[i % (sizeof(DIMS) / sizeof(DIMS[0]))][0],
                h = DIMS[i % (sizeof(DIMS) / sizeof(DIMS[0]))][1];
            size_t n = (size_t)w * (size_t)h;
            struct cell *buf = xmalloc((n + 2 * GUARD) * sizeof(*buf));
            struct grid g = {w, h, buf + GUARD};

            for (size_t k = 0; k < n + 2 * GUARD; k++)
                buf[k] = (struct cell){"G", 0xee};
            d->zoom = zoom;
            layout_draw(d, &g);
            for (size_t k = 0; k < GUARD; k++) {
                assert_string_equal(buf[k].ch, "G");
                assert_string_equal(buf[GUARD + n + k].ch, "G");
                assert_int_equal(buf[GUARD + n + k].style, 0xee);
            }
            assert_rows_full(&g);
            free(buf);
        }
    }
    free(d);
}

static void
test_long_strings_are_clipped(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    char event[201];

    memset(d->target, 'T', 300 < sizeof(d->target) ? 300 : sizeof(d->target) - 1);
    d->target[sizeof(d->target) - 1] = '\0';
    d->elapsed_s = 90.0;
    memset(event, 'E', sizeof(event) - 1);
    event[sizeof(event) - 1] = '\0';
    dash_event_add(d, ROW_NORMAL, "%s", event);
    assert_int_equal(strlen(d->events[d->nevents - 1].text), sizeof(d->events[0].text) - 1);
    memset(d->servers[0].error, 'R', sizeof(d->servers[0].error) - 1);
    d->servers[0].ok = 0;
    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
        struct grid *g = render(d, SIZES[i].w, SIZES[i].h);
        struct rect ev = pane_rect(g, "4 events"), srv = pane_rect(g, "3 server");
        int x, y;

        assert_rows_full(g);
        /* The target is cut with an ellipsis, and the hint on its right survives. */
        assert_true(text_in(g, (struct rect){0, 0, g->w - 8, 1}, "TTT…"));
        assert_true(text_in(g, (struct rect){g->w - 7, 0, 6, 1}, "? help"));
        /* The event (cut to 95 bytes when added) ends at the box's edge; the border is intact. */
        assert_true(find_text(g, "90.0s  EEEE", &x, &y));
        assert_string_equal(grid_at(g, ev.x + ev.w - 1, y)->ch, "│");
        if (x + 7 + 95 > ev.x + ev.w - 1)
            assert_string_equal(grid_at(g, ev.x + ev.w - 2, y)->ch, "E");
        /* A long error does not push the sample cost off the line. */
        assert_true(text_in(g, inner(srv), "error: RRR"));
        assert_true(text_in(g, inner(srv), "sample 1.2 ms  late 0"));
        grid_free(g);
    }
    free(d);
}

static void
test_too_small_shows_notice(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct grid *g;
    int x, y;

    g = render(d, 79, 24);
    assert_true(find_text(g, "terminal too small: need 80x24, have 79x24", &x, &y));
    assert_int_equal(y, 12);
    assert_false(has_text(g, "throughput"));
    assert_rows_full(g);
    grid_free(g);
    g = render(d, 60, 15);
    assert_true(find_text(g, "terminal too small: need 80x24, have 60x15", &x, &y));
    assert_int_equal(x, (60 - 42) / 2);
    grid_free(g);
    g = render(d, 20, 5);
    assert_true(has_text(g, "terminal too small:"));
    assert_true(has_text(g, "need 80x24,"));
    assert_true(has_text(g, "have 20x5"));
    assert_rows_full(g);
    grid_free(g);
    g = render(d, 1, 1);
    assert_string_equal(grid_at(g, 0, 0)->ch, "t");
    grid_free(g);
    g = render(d, 80, 0);
    assert_int_equal(g->h, 0);
    grid_free(g);
    g = render(d, 0, 24);
    assert_null(grid_at(g, 0, 0));
    grid_free(g);
    free(d);
}

static void
test_ascii_mode_is_ascii(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    char row[ROW_BUF];

    d->utf8 = 0;
    /* Strings from outside may hold UTF-8 that an ASCII terminal cannot show. */
    snprintf(d->target, sizeof(d->target), "postgres://bénch@db1/bench");
    snprintf(d->servers[0].view.rows[0].value, sizeof(d->servers[0].view.rows[0].value), "12 ✓");
    dash_event_add(d, ROW_NORMAL, "café au lait");
    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
        for (int zoom = 0; zoom <= 5; zoom++) {
            struct grid *g;

            d->zoom = zoom;
            d->help = zoom == 0;
            g = render(d, SIZES[i].w, SIZES[i].h);
            for (int y = 0; y < g->h; y++) {
                grid_row_text(g, y, row, sizeof(row));
                for (const char *p = row; *p != '\0'; p++)
                    assert_true((unsigned char)*p < 0x80);
            }
            assert_rows_full(g);
            assert_int_equal(has_text(g, "caf? au lait"), zoom == 0 || zoom == 4);
            grid_free(g);
        }
    }
    free(d);
}

/* The client graph's top row has one block: the max sample's, SPIKE_AGO columns from the right. */
static void
check_tallest_column(const struct dash *d, int w, int h, const char *full)
{
    struct grid *g = render(d, w, h);
    struct rect tp = pane_rect(g, "1 throughput");
    int right = tp.x + tp.w - 2, x, y, blocks = 0;

    assert_true(find_text(g, "20.0k", &x, &y));
    assert_true(y > tp.y && y < tp.y + tp.h);
    for (int cx = x + 7; cx <= right; cx++)
        blocks += grid_at(g, cx, y)->ch[0] != '\0';
    assert_int_equal(blocks, 1);
    assert_string_equal(grid_at(g, right - SPIKE_AGO, y)->ch, full);
    assert_int_equal(grid_at(g, right - SPIKE_AGO, y)->style, ST_GRAPH_CLIENT);
    /* The newest samples are the rightmost column: client over the server strip, server at the
     * foot. */
    assert_true(find_text(g, "server┤", &x, &y) || find_text(g, "server+", &x, &y));
    assert_int_equal(grid_at(g, right, y - 1)->style, ST_GRAPH_CLIENT);
    assert_int_equal(grid_at(g, right, tp.y + tp.h - 2)->style, ST_GRAPH_SERVER);
    grid_free(g);
}

static void
test_graph_peaks_at_max_sample(void **state)
{
    (void)state;
    struct dash *d = new_dash();

    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++)
        check_tallest_column(d, SIZES[i].w, SIZES[i].h, "█");
    d->utf8 = 0;
    check_tallest_column(d, 120, 40, "#");
    free(d);
}

static void
test_zoom_shows_one_pane(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct grid *g;
    struct rect lat;

    d->zoom = 2;
    g = render(d, 80, 24);
    lat = pane_rect(g, "2 latency");
    assert_true(lat.x == 0 && lat.y == 3 && lat.w == 80 && lat.h == 21);
    assert_false(has_text(g, "1 throughput"));
    assert_false(has_text(g, "3 server"));
    assert_false(has_text(g, "4 events"));
    assert_true(text_in(g, inner(lat), "4.56 ms"));
    /* Alone, the pane has room for the distribution: 2^11 us is the biggest bucket. */
    assert_true(text_in(g, inner(lat), "run distribution"));
    assert_true(text_in(g, inner(lat), "2.05 ms"));
    assert_true(text_in(g, inner(lat), "65.5 ms"));
    assert_true(has_text(g, "clients 32/32"));
    grid_free(g);

    d->zoom = 5;
    g = render(d, 80, 24);
    assert_true(has_text(g, "5 server detail"));
    for (int i = 0; i < d->servers[0].view.nrows; i++)
        assert_true(has_text(g, d->servers[0].view.rows[i].label));
    assert_false(has_text(g, "more"));
    grid_free(g);
    free(d);
}

/* Five finished steps of a clients sweep (knee at 8), the sixth running. */
static void
fill_sweep(struct dash *d)
{
    static const double TPS[] = {1000, 1950, 3800, 7000, 7300};
    struct dash_sweep *s = &d->sweep;

    memset(s, 0, sizeof(*s));
    s->active = 1;
    snprintf(s->title, sizeof(s->title), "sweep: clients");
    for (int i = 0; i < 5; i++) {
        struct dash_sweep_row *r = &s->rows[s->nrows++];
        r->x = 1 << i;
        r->tps = TPS[i];
        r->p50_us = 500 + 100 * i;
        r->p99_us = 1000 * (i + 1);
        snprintf(r->verdict, sizeof(r->verdict), "%s",
                 i < 3 ? "not enough load" : "server CPU-bound");
    }
    s->rows[4].errors = 7;
    s->running = 1;
    s->running_x = 32;
    s->running_s = 4;
    s->step_s = 12;
    s->knee = 3;
    snprintf(s->finding, sizeof(s->finding), "knee at 8 clients: 7,000 tps, p99 4.00 ms");
}

static void
test_sweep_pane(void **state)
{
    (void)state;
    struct dash *d = new_dash();

    fill_sweep(d);
    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
        struct grid *g = render(d, SIZES[i].w, SIZES[i].h);
        struct rect r = pane_rect(g, "6 sweep: clients"), in = inner(r);
        int y;

        assert_true(r.w == SIZES[i].w && r.h >= 5);
        /* the other panes as before; the events give way only on a short terminal */
        assert_true(has_text(g, "1 throughput") && has_text(g, "3 server"));
        assert_int_equal(has_text(g, "4 events"), SIZES[i].h >= 40);
        assert_true(text_in(g, in, "p50 ms") && text_in(g, in, "verdict"));
        /* the newest row and the running step always; the finding when there is room */
        assert_true(text_in(g, in, "7300") && text_in(g, in, "5.000"));
        assert_true(text_in(g, in, "measuring: 4 of 12 s"));
        if (SIZES[i].h < 40) {
            assert_false(text_in(g, in, "knee at"));
            grid_free(g);
            continue;
        }
        y = row_of_text(g, in, "7000");
        assert_true(y > in.y && cell_is(g, in.x, y, "◆", "*"));
        assert_int_equal(row_of_text(g, in, "knee at 8 clients"), in.y + in.h - 1);
        /* wide enough: tps and p99 as bars, the largest full */
        if (SIZES[i].w >= 120) {
            assert_true(text_in(g, in, "tps") && text_in(g, in, "p99"));
            char row[ROW_BUF], row2[ROW_BUF];
            int full = 0, part = 0;
            grid_row_text(g, row_of_text(g, in, "7300"), row, sizeof(row));
            assert_non_null(strstr(row, "██████████ ██████████")); /* both bars full */
            grid_row_text(g, row_of_text(g, in, "1950"), row2, sizeof(row2));
            for (const char *p = row; (p = strstr(p, "█")) != NULL; p++)
                full++;
            for (const char *p = row2; (p = strstr(p, "█")) != NULL; p++)
                part++;
            /* 1950 of 7300 tps and 2 of 5 ms: about 27% and 40% of the full bars */
            assert_true(part > full * 0.25 && part < full * 0.40);
        }
        grid_free(g);
    }
    d->zoom = 6;
    {
        struct grid *g = render(d, 80, 24);
        struct rect r = pane_rect(g, "6 sweep: clients");
        assert_true(r.y == 3 && r.h == 21);
        assert_false(has_text(g, "1 throughput"));
        assert_true(text_in(g, inner(r), "1000")); /* alone, every row fits */
        grid_free(g);
    }
    free(d);
}

static void
test_help_overlay(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct grid *g;
    int x, y;

    d->help = 1;
    g = render(d, 80, 24);
    assert_true(has_text(g, " help "));
    for (int i = 0; HELP[i] != NULL; i++) {
        assert_true(find_text(g, HELP[i], &x, &y));
        assert_int_equal(grid_at(g, x, y)->style, ST_HELP);
        assert_true(y > 2 && y < 22);
    }
    assert_rows_full(g);
    grid_free(g);
    free(d);
}

static void
test_states_and_watch_mode(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct grid *g;
    int x, y;

    d->state = RUN_RECONNECTING;
    d->connected = 30;
    d->duration_s = 0;
    g = render(d, 80, 24);
    assert_true(find_text(g, "RECONNECTING", &x, &y));
    assert_int_equal(y, 0);
    assert_int_equal(grid_at(g, x, y)->style, ST_BAD);
    assert_true(find_text(g, "30/32", &x, &y));
    assert_int_equal(grid_at(g, x, y)->style, ST_WARN);
    assert_true(has_text(g, "until q"));
    grid_free(g);

    /* more than 1% of the interval's transactions failed: flagged beside the state */
    d->failed_pct = 45.2;
    g = render(d, 80, 24);
    assert_true(find_text(g, "FAILING 45%", &x, &y));
    assert_int_equal(y, 0);
    assert_int_equal(grid_at(g, x, y)->style, ST_BAD);
    grid_free(g);
    d->failed_pct = 0.9;
    g = render(d, 80, 24);
    assert_false(has_text(g, "FAILING"));
    grid_free(g);

    d->state = RUN_PAUSED;
    d->server_tps = NAN;
    g = render(d, 80, 24);
    assert_true(find_text(g, "PAUSED", &x, &y));
    assert_int_equal(grid_at(g, x, y)->style, ST_WARN);
    assert_true(text_in(g, inner(pane_rect(g, "1 throughput")), "server -"));
    grid_free(g);

    d->state = RUN_WATCHING;
    d->load = 0;
    d->server_tps = NAN;
    g = render(d, 80, 24);
    assert_true(has_text(g, "watching, no load"));
    assert_true(has_text(g, "server tps -"));
    assert_false(has_text(g, "tps 12345.6"));
    grid_free(g);
    free(d);
}

/* After a setting change or a marker: tps before / since and two more latency columns. */
static void
test_before_since_figures(void **state)
{
    (void)state;
    struct dash *d = new_dash();

    d->nsegments = 2;
    d->seg[0] =
        (struct dash_segment){"start", 40, 1000.0, {1200, 1020, 2100, 4560, 8900, 15200, 3300}};
    d->seg[1] = (struct dash_segment){
        "synchronous_commit = off", 20, 1500.0, {700, 640, 900, 3000, 5000, 7000, 2000}};
    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
        struct grid *g = render(d, SIZES[i].w, SIZES[i].h);
        struct rect tp = pane_rect(g, "1 throughput"), lat = pane_rect(g, "2 latency");
        int p99 = row_of_text(g, inner(lat), "p99 "), p50 = row_of_text(g, inner(lat), "p50 ");
        int hx, hy, bx, by;

        assert_rows_full(g);
        if (SIZES[i].h >= 40) { /* 80x24 has no room under the graph for every figure */
            assert_true(text_in(g, inner(tp), "before 1000.0 tps"));
            assert_true(text_in(g, inner(tp), "since 1500.0 tps (+50.0%)"));
        }
        assert_true(find_text(g, "before", &bx, &by) && by >= lat.y);
        assert_true(text_in(g, inner(lat), "since"));
        /* the since column's p50 and p99, right of the before column's */
        assert_true(text_in(g, (struct rect){lat.x, p50, lat.w, 1}, "640 us"));
        assert_true(text_in(g, (struct rect){lat.x, p99, lat.w, 1}, "3.00 ms"));
        assert_true(find_from(g, p99, "4.56 ms", &hx, &hy) && hy == p99);
        assert_true(find_from(g, p99, "3.00 ms", &bx, &by) && by == p99 && bx > hx);
        grid_free(g);
    }
    /* no cut yet: no before / since anywhere */
    d->nsegments = 0;
    struct grid *g = render(d, 120, 40);
    assert_false(has_text(g, "before"));
    assert_false(has_text(g, "since"));
    grid_free(g);
    free(d);
}

/* The prompt takes the bottom row. */
static void
test_prompt_line(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct grid *g;
    int x, y;

    snprintf(d->prompt, sizeof(d->prompt), "set (NAME = VALUE): work_mem = 64MB_");
    g = render(d, 80, 24);
    assert_true(find_text(g, "work_mem = 64MB_", &x, &y));
    assert_int_equal(y, 23);
    assert_rows_full(g);
    grid_free(g);
    free(d);
}

static void
test_two_servers_share_the_pane(void **state)
{
    (void)state;
    struct dash *d = new_dash();
    struct dash_server *b = &d->servers[1];
    struct grid *g;
    struct rect srv;
    int x, y, y2;

    d->nservers = 2;
    snprintf(b->name, sizeof(b->name), "replica");
    snprintf(b->error, sizeof(b->error), "connection refused");
    b->cost_ms = 0.4;
    b->late = 2;
    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
        g = render(d, SIZES[i].w, SIZES[i].h);
        srv = pane_rect(g, "3 server");
        assert_true(text_in(g, inner(srv), "postgres  ok"));
        assert_true(text_in(g, inner(srv), "replica  error: connection refused  sample 0.4 ms"));
        assert_true(find_text(g, "replica", &x, &y));
        assert_true(find_text(g, "late 2", &x, &y2));
        assert_int_equal(y2, y);
        assert_int_equal(grid_at(g, x + 5, y)->style, ST_WARN);
        assert_true(text_in(g, inner(srv), "no data yet"));
        assert_rows_full(g);
        grid_free(g);
    }
    free(d);
}

/* ---- the sessions list ---- */

static void
add_session(struct coll_sessions *l, const char *id, const char *state, double query_s, int own,
            int blocked, const char *query)
{
    struct coll_session *s = &l->s[l->n++];

    memset(s, 0, sizeof(*s));
    snprintf(s->id, sizeof(s->id), "%s", id);
    snprintf(s->state, sizeof(s->state), "%s", state);
    snprintf(s->app, sizeof(s->app), "app-%s", id);
    snprintf(s->wait, sizeof(s->wait), "%s", blocked ? "Lock:transactionid" : "");
    snprintf(s->query, sizeof(s->query), "%s", query);
    s->query_s = query_s;
    s->xact_s = query_s + 1;
    s->own = own;
    s->blocked = blocked;
    l->total = l->n;
}

/* A watch dashboard with a known list: an idle one, one idle in a transaction, a waiter, ours. */
static struct dash *
watch_dash(void)
{
    struct dash *d = new_dash();
    struct coll_sessions *l = &d->sessions.list;

    d->load = 0;
    d->state = RUN_WATCHING;
    d->sessions.shown = d->sessions.have = 1;
    memset(l, 0, sizeof(*l));
    snprintf(l->xact_head, sizeof(l->xact_head), "xact");
    snprintf(l->query_head, sizeof(l->query_head), "query");
    add_session(l, "101", "idle", 500, 0, 0, "SELECT 1");
    add_session(l, "102", "idle in transaction", 30, 0, 0, "UPDATE t SET v = 1");
    add_session(l, "103", "active", 12, 0, 1, "UPDATE t\n  SET v = 2 \x1b[31mred");
    add_session(l, "104", "active", 0.01, 1, 0, "SELECT pid FROM pg_stat_activity");
    return d;
}

static void
ids(const struct coll_sessions *l, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < l->n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", l->s[i].id);
}

static void
test_sessions_sort(void **state)
{
    struct dash *d = watch_dash();
    char order[64];

    dash_sessions_sort(&d->sessions.list, DASH_SORT_DURATION);
    ids(&d->sessions.list, order, sizeof(order));
    assert_string_equal(order, "102 103 104 101"); /* the longest first, idle last */
    dash_sessions_sort(&d->sessions.list, DASH_SORT_STATE);
    ids(&d->sessions.list, order, sizeof(order));
    assert_string_equal(order, "103 102 104 101"); /* blocked, idle in tx, active, idle */
    free(d);
}

/* The style of the first cell of the row holding text. */
static enum style
row_style_of(const struct grid *g, const char *text)
{
    int x, y;

    assert_true(find_text(g, text, &x, &y));
    return (enum style)grid_at(g, x, y)->style;
}

/* watch: the sessions take the latency pane's place at every size; the query is escaped. */
static void
test_sessions_pane_in_watch(void **state)
{
    struct dash *d = watch_dash();

    dash_sessions_sort(&d->sessions.list, DASH_SORT_DURATION);
    d->sessions.sel = 1; /* 103, the waiter */
    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
        struct grid *g = render(d, SIZES[i].w, SIZES[i].h);
        char row[ROW_BUF];
        int x, y;

        assert_true(has_text(g, "7 sessions 4 of 4"));
        assert_false(has_text(g, "2 latency"));
        assert_true(has_text(g, "1 throughput"));
        assert_true(find_text(g, "! 103", &x, &y));
        assert_int_equal(grid_at(g, x + 2, y)->style, ST_HELP); /* the selection */
        grid_row_text(g, y, row, sizeof(row));
        assert_null(strchr(row, '\x1b'));
        assert_true(find_text(g, "* 104", &x, &y));
        assert_int_equal(row_style_of(g, "102 "), ST_WARN);
        assert_true(has_text(g, "C/K off (--read-only)"));
        /* the wait column only where there is room for it */
        assert_int_equal(has_text(g, "Lock:transactionid"), SIZES[i].w >= 200);
        grid_free(g);
    }
    d->zoom = 7; /* zoomed: the whole width, the query whole and escaped */
    {
        struct grid *g = render(d, 200, 60);

        assert_true(has_text(g, "UPDATE t SET v = 2 \\x1b[31mred"));
        assert_true(has_text(g, "Lock:transactionid"));
        grid_free(g);
    }
    free(d);
}

/* The selection stays on screen: the list scrolls under it. */
static void
test_sessions_scroll_with_selection(void **state)
{
    struct dash *d = watch_dash();
    char id[16];
    struct grid *g;

    d->sessions.list.n = 0;
    for (int i = 0; i < 40; i++) {
        snprintf(id, sizeof(id), "s%02d", i);
        add_session(&d->sessions.list, id, "active", 40 - i, 0, 0, "SELECT 1");
    }
    d->zoom = 7;
    d->sessions.sel = 35;
    d->sessions.can_kill = 1;
    g = render(d, 80, 24);
    assert_true(has_text(g, "s35"));
    assert_false(has_text(g, "s00"));
    assert_int_equal(row_style_of(g, "s35"), ST_HELP);
    assert_true(has_text(g, "C cancel  K terminate"));
    grid_free(g);
    d->sessions.sel = 0;
    g = render(d, 80, 24);
    assert_true(has_text(g, "s00"));
    assert_false(has_text(g, "s35"));
    assert_true(has_text(g, "more"));
    grid_free(g);
    free(d);
}

/*
 * 115 sessions of which the collector read 64: the marker counts those below
 * the pane and those not read, on a line of its own (it once overlapped a
 * row: "curren+51 moreg(").
 */
static void
test_sessions_more_than_read(void **state)
{
    struct dash *d = watch_dash();
    char id[16], row[ROW_BUF], want[96];
    struct grid *g;
    int x, y, rows;

    d->sessions.list.n = 0;
    for (int i = 0; i < COLL_MAX_SESSIONS; i++) {
        snprintf(id, sizeof(id), "s%02d", i);
        add_session(&d->sessions.list, id, "active", 70 - i, 0, 0,
                    "SELECT current_setting('work_mem'), pg_sleep(1)");
    }
    d->sessions.list.total = 115;
    d->zoom = 7;
    g = render(d, 80, 24);
    assert_true(has_text(g, "7 sessions 64 of 115"));
    assert_true(find_text(g, " more: 51 of them not listed (64 of 115 sessions read)", &x, &y));
    grid_row_text(g, y, row, sizeof(row));
    assert_null(strstr(row, "SELECT"));
    assert_null(strstr(row, "current"));
    /* the rows drawn and the marker's count add up to the 64 read */
    rows = 0;
    for (int i = 0; i < COLL_MAX_SESSIONS; i++) {
        snprintf(id, sizeof(id), " s%02d ", i);
        rows += has_text(g, id);
    }
    snprintf(want, sizeof(want), "+%d more: 51 of them", 115 - rows);
    assert_true(has_text(g, want));
    grid_free(g);
    /* all of them read but not all in view: the count of those below, no "not listed" */
    d->sessions.list.total = COLL_MAX_SESSIONS;
    g = render(d, 80, 24);
    snprintf(want, sizeof(want), "+%d more (j/k)", COLL_MAX_SESSIONS - rows);
    assert_true(has_text(g, want));
    assert_false(has_text(g, "not listed"));
    grid_free(g);
    free(d);
}

/* Zoomed, the events pane scrolls back to the oldest kept and says how many are below. */
static void
test_events_scroll_when_zoomed(void **state)
{
    struct dash *d = new_dash();
    struct grid *g;

    d->nevents = 0;
    for (int i = 0; i < DASH_EVENTS; i++) {
        d->elapsed_s = i;
        dash_event_add(d, ROW_NORMAL, "event number %02d", i);
    }
    d->zoom = 4;
    g = render(d, 80, 24);
    assert_true(has_text(g, "event number 63"));
    assert_false(has_text(g, "event number 00"));
    grid_free(g);
    d->scroll = 1000; /* Home: clamped to the oldest */
    g = render(d, 80, 24);
    assert_true(has_text(g, "event number 00"));
    assert_false(has_text(g, "event number 63"));
    assert_true(has_text(g, "newer below"));
    grid_free(g);
    d->zoom = 0; /* not zoomed: the newest, whatever the scroll */
    g = render(d, 80, 24);
    assert_true(has_text(g, "event number 63"));
    grid_free(g);
    free(d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_put_clips),
        cmocka_unit_test(test_grid_utf8_counts_code_points),
        cmocka_unit_test(test_grid_box_and_fill),
        cmocka_unit_test(test_dash_appends_drop_oldest),
        cmocka_unit_test(test_server_sample_joins_its_interval),
        cmocka_unit_test(test_figures_in_their_panes),
        cmocka_unit_test(test_bigger_screens_grow_graph_and_server),
        cmocka_unit_test(test_bad_row_is_styled_bad),
        cmocka_unit_test(test_cut_rows_marker_flags_hidden_problems),
        cmocka_unit_test(test_server_rows_scroll_when_zoomed),
        cmocka_unit_test(test_verdict_cut_with_a_sign),
        cmocka_unit_test(test_verdict_advice_first),
        cmocka_unit_test(test_nothing_written_outside_the_grid),
        cmocka_unit_test(test_long_strings_are_clipped),
        cmocka_unit_test(test_too_small_shows_notice),
        cmocka_unit_test(test_ascii_mode_is_ascii),
        cmocka_unit_test(test_graph_peaks_at_max_sample),
        cmocka_unit_test(test_zoom_shows_one_pane),
        cmocka_unit_test(test_sweep_pane),
        cmocka_unit_test(test_help_overlay),
        cmocka_unit_test(test_states_and_watch_mode),
        cmocka_unit_test(test_two_servers_share_the_pane),
        cmocka_unit_test(test_before_since_figures),
        cmocka_unit_test(test_prompt_line),
        cmocka_unit_test(test_sessions_sort),
        cmocka_unit_test(test_sessions_pane_in_watch),
        cmocka_unit_test(test_sessions_scroll_with_selection),
        cmocka_unit_test(test_sessions_more_than_read),
        cmocka_unit_test(test_events_scroll_when_zoomed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
