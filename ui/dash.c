/* dash: the two appends the TUI loop makes and the bar glyphs; the rest of struct dash is filled in
 * place. */
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

int
dash_cells(const char *s)
{
    int n = 0;

    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}
