/*
 * header: the two top lines. Line 1 is the bar: state, workload,
 * target, benchtop's own CPU and the help hint; line 2 the run's shape
 * and clock. The state is a word, and the two that need attention are in
 * capitals, so it stands out even without colours.
 */
#include "ui/dash.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/stats.h"

/* One state per line reads as a table, so clang-format keeps off it. */
/* clang-format off */
static const struct {
    const char *name;
    enum style st;
} STATES[] = {
    [RUN_STARTING] = {"starting", ST_DIM},
    [RUN_RUNNING] = {"running", ST_GOOD},
    [RUN_PAUSED] = {"PAUSED", ST_WARN},
    [RUN_RECONNECTING] = {"RECONNECTING", ST_BAD},
    [RUN_WATCHING] = {"watching", ST_VALUE},
    [RUN_DONE] = {"done", ST_DIM},
};
/* clang-format on */

/* benchtop near a full core is itself the bottleneck: worth a colour. */
static const double CPU_WARN_PCT = 90.0;

/* Like put_run, but a cut string ends in an ellipsis so the cut is visible. */
static void
put_ellipsized(struct grid *g, int *x, int y, int end, enum style st, const char *text, int utf8)
{
    const char *dots = utf8 ? "…" : "...";
    int dots_w = utf8 ? 1 : 3;
    int room = end - *x;

    if (room <= 0)
        return;
    if (dash_cells(text) <= room || room <= dots_w) {
        grid_put_run(g, x, y, end, st, text);
        return;
    }
    *x += grid_put(g, *x, y, room - dots_w, st, text);
    grid_put_run(g, x, y, end, st, dots);
}

/* Whole seconds as m:ss or h:mm:ss; round_up for a countdown, so it reaches 0:00 last. */
static void
fmt_clock(char *buf, size_t len, double secs, int round_up)
{
    double s = isfinite(secs) && secs > 0 ? fmin(secs, 1e9) : 0.0;
    long t = (long)(round_up ? ceil(s) : floor(s));

    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static void
fmt_rate(char *buf, size_t len, double rate)
{
    if (rate >= 100.0)
        snprintf(buf, len, "%.0f/s", rate);
    else
        snprintf(buf, len, "%.3g/s", rate);
}

/* "label value" with two spaces before the next pair. */
static void
put_pair(struct grid *g, int *x, int y, int end, const char *label, enum style st,
         const char *value)
{
    grid_put_run(g, x, y, end, ST_LABEL, label);
    grid_put_run(g, x, y, end, ST_LABEL, " ");
    grid_put_run(g, x, y, end, st, value);
    grid_put_run(g, x, y, end, ST_LABEL, "  ");
}

static void
draw_bar(const struct dash *d, struct grid *g, struct rect r)
{
    unsigned state = (unsigned)d->state < sizeof(STATES) / sizeof(STATES[0]) ? d->state : 0;
    int end = r.x + r.w, x;
    char buf[64];

    grid_fill(g, (struct rect){r.x, r.y, r.w, 1}, ST_HEADER);
    /* The right end first, so the target is what gives way when narrow. */
    if (r.w >= 40) {
        end = r.x + r.w - 7;
        grid_put(g, end, r.y, 6, ST_HEADER, "? help");
        end -= 2;
        snprintf(buf, sizeof(buf), "benchtop cpu %.0f%%", fmin(fmax(d->own_cpu_pct, 0.0), 9999.0));
        x = end - dash_cells(buf);
        grid_put_run(g, &x, r.y, end, d->own_cpu_pct >= CPU_WARN_PCT ? ST_WARN : ST_HEADER, buf);
        end -= dash_cells(buf) + 2;
    }
    x = r.x + 1;
    snprintf(buf, sizeof(buf), " %s ", STATES[state].name);
    grid_put_run(g, &x, r.y, end, STATES[state].st, buf);
    if (d->failed_pct > 100.0 * FAILED_FLAG_SHARE) { /* loud: throughput figures mean little now */
        snprintf(buf, sizeof(buf), " FAILING %.0f%% ", fmin(d->failed_pct, 100.0));
        grid_put_run(g, &x, r.y, end, ST_HEADER, " ");
        grid_put_run(g, &x, r.y, end, ST_BAD, buf);
    }
    if (d->record_stop[0] != '\0') {
        grid_put_run(g, &x, r.y, end, ST_HEADER, " ");
        grid_put_run(g, &x, r.y, end, ST_BAD, " NOT RECORDING ");
    }
    grid_put_run(g, &x, r.y, end, ST_HEADER, "  ");
    grid_put_run(g, &x, r.y, end, ST_HEADER, d->workload);
    if (d->mode[0] != '\0') {
        grid_put_run(g, &x, r.y, end, ST_HEADER, " (");
        grid_put_run(g, &x, r.y, end, ST_HEADER, d->mode);
        grid_put_run(g, &x, r.y, end, ST_HEADER, ")");
    }
    grid_put_run(g, &x, r.y, end, ST_HEADER, "  ");
    put_ellipsized(g, &x, r.y, end, ST_HEADER, d->target, d->utf8);
}

static void
draw_shape(const struct dash *d, struct grid *g, struct rect r)
{
    int y = r.y + 1, x = r.x + 1, end = r.x + r.w;
    char buf[64];

    if (d->status[0] != '\0') { /* a fleet's countdown or its end comes first */
        grid_put_run(g, &x, y, end, d->state == RUN_DONE ? ST_GOOD : ST_WARN, d->status);
        grid_put_run(g, &x, y, end, ST_LABEL, "  ");
    }
    if (d->load) {
        snprintf(buf, sizeof(buf), "%d/%d", d->connected, d->clients);
        put_pair(g, &x, y, end, "clients", d->connected < d->clients ? ST_WARN : ST_VALUE, buf);
        snprintf(buf, sizeof(buf), "%d", d->threads);
        put_pair(g, &x, y, end, "threads", ST_VALUE, buf);
        if (d->rate > 0) {
            fmt_rate(buf, sizeof(buf), d->rate);
            put_pair(g, &x, y, end, "rate", ST_VALUE, buf);
        } else
            grid_put_run(g, &x, y, end, ST_VALUE, "closed loop  ");
    } else
        grid_put_run(g, &x, y, end, ST_VALUE, "watching, no load  ");
    fmt_clock(buf, sizeof(buf), d->elapsed_s, 0);
    put_pair(g, &x, y, end, "elapsed", ST_VALUE, buf);
    if (d->duration_s > 0) {
        fmt_clock(buf, sizeof(buf), d->duration_s - d->elapsed_s, 1);
        put_pair(g, &x, y, end, "remaining", ST_VALUE, buf);
    } else
        grid_put_run(g, &x, y, end, ST_DIM, "until q");
}

/*
 * text from *x to end; when it does not fit, cut a cell short and ended
 * in an ellipsis, so a cut line never passes for the whole (v shows it).
 */
static void
put_cut(const struct dash *d, struct grid *g, int *x, int y, int end, enum style st,
        const char *text)
{
    int room = end - *x;

    if (dash_cells(text) <= room || room < 2) {
        grid_put_run(g, x, y, end, st, text);
        return;
    }
    *x += grid_put(g, *x, y, room - 1, st, text);
    grid_put_run(g, x, y, end, st, d->utf8 ? "\u2026" : "~");
}

/* The third line: what limits throughput now, and the figures that show it. */
static void
draw_verdict(const struct dash *d, struct grid *g, struct rect r)
{
    int y = r.y + 2, x = r.x + 1, end = r.x + r.w;

    if (d->record_stop[0] != '\0') { /* before the verdict: it needs the user now */
        grid_put_run(g, &x, y, end, ST_BAD, d->record_stop);
        grid_put_run(g, &x, y, end, ST_LABEL, "  ");
    }
    if (!d->load && d->verdict[0] == '\0')
        return; /* watch: the server-side verdict once a sample judged it */
    if (d->verdict[0] == '\0') {
        grid_put_run(g, &x, y, end, ST_DIM, "limit: measuring...");
        return;
    }
    grid_put_run(g, &x, y, end, ST_LABEL, "limit: ");
    put_cut(d, g, &x, y, end, dash_level_style(d->verdict_level, ST_VALUE), d->verdict);
}

void
pane_header(const struct dash *d, struct grid *g, struct rect r)
{
    if (r.w <= 0 || r.h <= 0)
        return;
    draw_bar(d, g, r);
    if (r.h >= 2)
        draw_shape(d, g, r);
    if (r.h >= 3)
        draw_verdict(d, g, r);
}
