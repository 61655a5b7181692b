/* dash: the two appends the TUI loop makes, the bar glyphs, the sessions' order; the rest of
 * struct dash is filled in place. */
#include "dash.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const dash_eighths[9] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"};

void
dash_event_add(struct dash *d, enum row_level level, const char *fmt, ...)
{
    struct dash_event *e;
    va_list ap;

    /* Full: the oldest goes, so the pane always has the newest DASH_EVENTS. */
    if (d->nevents >= DASH_EVENTS) {
        memmove(&d->events[0], &d->events[1], (DASH_EVENTS - 1) * sizeof(d->events[0]));
        d->nevents = DASH_EVENTS - 1;
    }
    e = &d->events[d->nevents++];
    e->t = d->elapsed_s;
    e->level = level;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof(e->text), fmt, ap);
    va_end(ap);
}

void
dash_history_push(struct dash *d, double tps, double server_tps)
{
    if (d->nhist >= DASH_HISTORY) {
        memmove(&d->tps_hist[0], &d->tps_hist[1], (DASH_HISTORY - 1) * sizeof(d->tps_hist[0]));
        memmove(&d->server_tps_hist[0], &d->server_tps_hist[1],
                (DASH_HISTORY - 1) * sizeof(d->server_tps_hist[0]));
        d->nhist = DASH_HISTORY - 1;
    }
    d->tps_hist[d->nhist] = tps;
    d->server_tps_hist[d->nhist] = server_tps;
    d->nhist++;
}

int
dash_server_sample(struct dash *d, double server_tps, double taken_s, double tick_s,
                   double interval_s)
{
    if (d->nhist == 0 || fabs(taken_s - tick_s) > interval_s / 2)
        return 0;
    d->server_tps_hist[d->nhist - 1] = server_tps;
    d->server_tps = server_tps;
    return 1;
}

enum style
dash_level_style(enum row_level level, enum style plain)
{
    switch (level) {
    case ROW_GOOD:
        return ST_GOOD;
    case ROW_WARN:
        return ST_WARN;
    case ROW_BAD:
        return ST_BAD;
    case ROW_DIM:
        return ST_DIM;
    case ROW_NORMAL:
        break;
    }
    return plain;
}

void
dash_verdict_line(char *buf, size_t len, const char *head, const char *advice, const char *evidence)
{
    if (advice != NULL && advice[0])
        snprintf(buf, len, "%s, try %s: %s", head, advice, evidence);
    else
        snprintf(buf, len, "%s: %s", head, evidence);
}

int
dash_cells(const char *s)
{
    int n = 0;

    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Where a state goes when sorted by state: what needs a look first. */
static int
state_rank(const struct coll_session *s)
{
    if (s->blocked)
        return 0;
    if (strncmp(s->state, "idle in transaction", 19) == 0)
        return 1;
    if (strcmp(s->state, "active") == 0 || strcmp(s->state, "Query") == 0)
        return 2;
    if (strcmp(s->state, "idle") == 0 || strcmp(s->state, "Sleep") == 0)
        return 4;
    return 3;
}

/* Longest first, NAN last. */
static int
by_duration(const struct coll_session *a, const struct coll_session *b)
{
    double x = isnan(a->query_s) ? -1 : a->query_s, y = isnan(b->query_s) ? -1 : b->query_s;

    return x > y ? -1 : x < y;
}

static int
cmp_duration(const struct coll_session *a, const struct coll_session *b)
{
    int ia = state_rank(a) == 4, ib = state_rank(b) == 4;

    return ia != ib ? ia - ib : by_duration(a, b);
}

static int
cmp_state(const struct coll_session *a, const struct coll_session *b)
{
    int ra = state_rank(a), rb = state_rank(b);

    return ra != rb ? ra - rb : by_duration(a, b);
}

void
dash_sessions_sort(struct coll_sessions *l, int sort)
{
    int n = l->n < COLL_MAX_SESSIONS ? l->n : COLL_MAX_SESSIONS;

    /* stable (qsort is not), so ties keep the server's order; 64 rows at most */
    for (int i = 1; i < n; i++) {
        struct coll_session cur = l->s[i];
        int j = i;

        while (j > 0 && (sort == DASH_SORT_STATE ? cmp_state(&l->s[j - 1], &cur)
                                                 : cmp_duration(&l->s[j - 1], &cur)) > 0) {
            l->s[j] = l->s[j - 1];
            j--;
        }
        l->s[j] = cur;
    }
}

const char *
dash_duration(char *buf, size_t len, double secs)
{
    if (isnan(secs) || secs < 0)
        snprintf(buf, len, "-");
    else if (secs < 60)
        snprintf(buf, len, "%.1fs", secs);
    else if (secs < 3600)
        snprintf(buf, len, "%dm%02ds", (int)secs / 60, (int)secs % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(secs / 3600), (int)secs % 3600 / 60);
    return buf;
}
