/*
 * sessions: the first server's sessions, as pg_activity and innotop list
 * them: a row each, the selected one for C (cancel) and K (terminate).
 * Columns are dropped right to left of the query as the pane narrows; the
 * query takes what is left. Server text is escaped (text_clean) here.
 */
#include "ui/dash.h"

#include <stdio.h>
#include <string.h>

#include "base/text.h"

enum {
    ID_W = 7,
    STATE_W = 13,
    DUR_W = 7,
    WAIT_W = 20,
    APP_W = 14,
    CLIENT_W = 21,
    DB_W = 10,
    INFO_W = 9,
    QUERY_MIN_W = 16,
};

/* Which optional columns fit in w cells, widest last to go. */
struct cols {
    int wait, app, client, db, info;
};

static struct cols
fit(const struct coll_sessions *l, int w)
{
    struct cols c = {0};
    int left = w - 2 - ID_W - STATE_W - 2 * DUR_W - QUERY_MIN_W;

    c.app = left >= APP_W + 1 && (left -= APP_W + 1) >= 0;
    c.info = l->info_head[0] && left >= INFO_W + 1 && (left -= INFO_W + 1) >= 0;
    c.wait = left >= WAIT_W + 1 && (left -= WAIT_W + 1) >= 0;
    c.db = left >= DB_W + 1 && (left -= DB_W + 1) >= 0;
    c.client = left >= CLIENT_W + 1 && (left -= CLIENT_W + 1) >= 0;
    return c;
}

/* A cell of at most w, escaped, then a space; moves *x past both. */
static void
put_col(struct grid *g, int *x, int y, int w, enum style st, const char *raw)
{
    char clean[256];

    text_clean(clean, sizeof clean, raw);
    grid_put(g, *x, y, w, st, clean);
    *x += w + 1;
}

static enum style
row_style(const struct coll_session *s, int selected)
{
    if (selected)
        return ST_HELP;
    if (s->blocked)
        return ST_BAD;
    if (strncmp(s->state, "idle in transaction", 19) == 0)
        return ST_WARN;
    return s->own ? ST_DIM : ST_NORMAL;
}

static void
draw_head(const struct coll_sessions *l, struct cols c, struct grid *g, int x0, int y, int end)
{
    int x = x0 + 2;

    put_col(g, &x, y, ID_W, ST_LABEL, "id");
    put_col(g, &x, y, STATE_W, ST_LABEL, "state");
    put_col(g, &x, y, DUR_W, ST_LABEL, l->xact_head);
    put_col(g, &x, y, DUR_W, ST_LABEL, l->query_head);
    if (c.wait)
        put_col(g, &x, y, WAIT_W, ST_LABEL, "wait");
    if (c.app)
        put_col(g, &x, y, APP_W, ST_LABEL, "application");
    if (c.client)
        put_col(g, &x, y, CLIENT_W, ST_LABEL, "client");
    if (c.db)
        put_col(g, &x, y, DB_W, ST_LABEL, "database");
    if (c.info)
        put_col(g, &x, y, INFO_W, ST_LABEL, l->info_head);
    grid_put(g, x, y, end - x, ST_LABEL, "query");
}

static void
draw_row(const struct coll_session *s, struct cols c, int selected, struct grid *g, int x0, int y,
         int end)
{
    enum style st = row_style(s, selected);
    char d1[16], d2[16], q[240];
    int x = x0;

    if (selected)
        grid_fill(g, (struct rect){x0, y, end - x0, 1}, ST_HELP);
    grid_put(g, x, y, 1, st, s->blocked ? "!" : s->own ? "*" : " ");
    x += 2;
    put_col(g, &x, y, ID_W, st, s->id);
    put_col(g, &x, y, STATE_W, st, s->state);
    put_col(g, &x, y, DUR_W, st, dash_duration(d1, sizeof d1, s->xact_s));
    put_col(g, &x, y, DUR_W, st, dash_duration(d2, sizeof d2, s->query_s));
    if (c.wait)
        put_col(g, &x, y, WAIT_W, st, s->wait);
    if (c.app)
        put_col(g, &x, y, APP_W, st, s->app);
    if (c.client)
        put_col(g, &x, y, CLIENT_W, st, s->client);
    if (c.db)
        put_col(g, &x, y, DB_W, st, s->db);
    if (c.info)
        put_col(g, &x, y, INFO_W, st, s->info);
    text_one_line(q, sizeof q, s->query);
    if (x < end)
        put_col(g, &x, y, end - x, st, q);
}

/*
 * The rows out of view on a line of their own: those below the pane, and
 * those the collector did not read (it keeps COLL_MAX_SESSIONS).
 */
static void
draw_more(const struct coll_sessions *l, int below, struct grid *g, int x, int y, int w)
{
    int n = l->n < COLL_MAX_SESSIONS ? l->n : COLL_MAX_SESSIONS;
    int unread = l->total > n ? l->total - n : 0;
    char line[160];

    if (below < 0)
        below = 0;
    if (unread > 0)
        snprintf(line, sizeof line, "+%d more: %d of them not listed (%d of %d sessions read)",
                 below + unread, unread, n, l->total);
    else
        snprintf(line, sizeof line, "+%d more (j/k)", below);
    grid_put(g, x, y, w, ST_DIM, line); /* the whole line: nothing of a row shows through */
}

/* The bottom line: the keys, or why they are off, and what the server hides. */
static void
draw_foot(const struct dash *d, struct grid *g, struct rect in)
{
    const struct dash_sessions *ss = &d->sessions;
    char line[200];

    /* what the keys do first: the rest is cut on a narrow pane */
    snprintf(line, sizeof line, "%s  o: %s  j/k: select  T: statements%s%s",
             ss->can_kill ? "C cancel  K terminate" : "C/K off (--read-only)",
             ss->sort == DASH_SORT_STATE ? "by state" : "by duration", ss->list.note[0] ? "  " : "",
             ss->list.note);
    grid_put(g, in.x, in.y + in.h - 1, in.w, ST_DIM, line);
}

void
pane_sessions(const struct dash *d, struct grid *g, struct rect r)
{
    const struct dash_sessions *ss = &d->sessions;
    struct rect in = {r.x + 1, r.y + 1, r.w - 2, r.h - 2};
    int n = ss->list.n < COLL_MAX_SESSIONS ? ss->list.n : COLL_MAX_SESSIONS;
    int rows = in.h - 2, top, end = in.x + in.w, marked = 0;
    char title[64];
    struct cols c;

    if (ss->top) {
        pane_statements(d, g, r);
        return;
    }
    snprintf(title, sizeof title, "7 sessions %d of %d", n, ss->list.total);
    grid_box(g, r, ss->have ? title : "7 sessions", d->utf8);
    if (in.w <= 0 || in.h <= 0)
        return;
    if (!ss->have) {
        grid_put(g, in.x, in.y, in.w, ss->error[0] ? ST_BAD : ST_DIM,
                 ss->error[0] ? ss->error : "no sessions list yet");
        return;
    }
    c = fit(&ss->list, in.w);
    draw_head(&ss->list, c, g, in.x, in.y, end);
    /* a list longer than the pane, or than what was read, keeps its last line for the marker */
    if (rows > 0 && (n > rows || ss->list.total > n))
        rows--, marked = 1;
    /* the selected row stays in view: the list scrolls under it */
    top = ss->sel >= rows ? ss->sel - rows + 1 : 0;
    for (int i = 0; i < rows && top + i < n; i++)
        draw_row(&ss->list.s[top + i], c, top + i == ss->sel, g, in.x, in.y + 1 + i, end);
    if (marked)
        draw_more(&ss->list, n - top - rows, g, in.x, in.y + 1 + rows, in.w);
    draw_foot(d, g, in);
}
