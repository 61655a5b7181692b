/* collector: the helpers every collector class uses to fill a coll_view. */
#include "collector.h"

#include <math.h>

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/cpu.h"

struct coll_row *
coll_row_add(struct coll_view *v, const char *section, const char *label, double num,
             enum row_level level, const char *fmt, ...)
{
    struct coll_row *r;
    va_list ap;

    if (v->nrows >= COLL_MAX_ROWS)
        return NULL;
    r = &v->rows[v->nrows++];
    /* snprintf truncates where strncpy would leave the name unterminated. */
    snprintf(r->section, sizeof r->section, "%s", section);
    snprintf(r->label, sizeof r->label, "%s", label);
    va_start(ap, fmt);
    vsnprintf(r->value, sizeof r->value, fmt, ap);
    va_end(ap);
    r->num = num;
    r->level = level;
    r->sql_at = 0;
    return r;
}

void
coll_row_sql(struct coll_row *r, size_t at)
{
    if (r != NULL && at > 0 && at < strlen(r->value) && at <= 255)
        r->sql_at = (unsigned char)at;
}

void
coll_event_add(struct coll_view *v, const char *fmt, ...)
{
    va_list ap;

    if (v->nevents >= COLL_MAX_EVENTS)
        return;
    va_start(ap, fmt);
    vsnprintf(v->events[v->nevents], sizeof v->events[0], fmt, ap);
    va_end(ap);
    v->nevents++;
}

const struct coll_row *
coll_row_find(const struct coll_view *v, const char *section, const char *label)
{
    int i;

    for (i = 0; i < v->nrows; i++) {
        const struct coll_row *r = &v->rows[i];
        if (strcmp(r->section, section) == 0 && strcmp(r->label, label) == 0)
            return r;
    }
    return NULL;
}

const char *
coll_role_key(enum coll_role r)
{
    static const char *const keys[] = {[COLL_SERVER] = "server",
                                       [COLL_POOLER] = "pooler",
                                       [COLL_BEHIND] = "behind",
                                       [COLL_APP] = "app"};

    return r >= COLL_SERVER && r <= COLL_APP ? keys[r] : "?";
}

void
coll_view_reset(struct coll_view *v)
{
    struct coll_signals *g = &v->sig;

    memset(v, 0, sizeof(*v));
    v->server_tps = NAN;
    g->sessions = g->active = g->on_cpu = g->lock_wait = g->lwlock_wait = NAN;
    g->temp_bytes_s = g->keys = NAN;
    g->io_wait = g->commit_wait = g->log_sync_ms_s = NAN;
    g->server_cpu_pct = g->server_cpu_limit = g->rtt_ms = NAN;
    g->pool_waiting = g->pool_servers = g->pool_size = g->pool_maxwait_ms = NAN;
    g->own_sessions = g->own_active = g->own_lock_wait = g->own_commit_wait = NAN;
    g->idle_tx = g->commits_s = g->log_syncs_s = NAN;
    g->rows_per_txn = g->blocks_per_txn = g->seq_scans_s = g->max_sessions = NAN;
    g->app_queue = g->app_busy = g->app_workers = NAN;
    g->own_on_cpu = g->own_io_wait = g->own_idle = g->own_sleep = g->sleep_wait = NAN;
    g->lock_root_commit = g->lock_root_client = g->lock_root_other = NAN;
    g->other_stall_share = g->evictions_s = g->hit_ratio = g->mem_used = g->mem_limit =
        g->pool_fill = NAN;
    g->disk_reads_s = g->server_threads = g->thread_max_pct = g->thread_wait_pct = NAN;
    g->checkpoints_req_s = g->server_cpu_self_pct = g->redo_fill = NAN;
    g->cmd_top_busy = g->cmd_top_usec = NAN;
    g->samples = 1;
}

/* Fills n cells of bar with ch, from *at on; never past the end. */
static void
bar_fill(char *bar, int width, int *at, double share, char ch)
{
    int n = (int)lround(share * width);

    while (n-- > 0 && *at < width)
        bar[(*at)++] = ch;
}

/* The kind with the most waiters in n[LK__COUNT] (LK_UNKNOWN counts none). */
static enum lock_kind
lock_kind_most(const double *n)
{
    enum lock_kind k = LK_UNKNOWN;

    for (int i = LK_UNKNOWN + 1; i < LK__COUNT; i++)
        if (n[i] > 0 && n[i] > n[k])
            k = (enum lock_kind)i;
    return k;
}

void
coll_glances_signals(const struct coll_glances *p, struct coll_signals *g)
{
    g->samples = p->n;
    g->sessions = p->all / p->n;
    g->active = p->active / p->n;
    g->on_cpu = p->on_cpu / p->n;
    g->lock_wait = p->lock / p->n;
    g->commit_wait = (p->commit_io - p->io) / p->n;
    g->io_wait = p->io / p->n;
    g->idle_tx = p->idle_tx / p->n;
    g->sleep_wait = p->sleep / p->n;
    g->lock_kind = lock_kind_most(p->lock_kinds);
    if (p->roots > 0) {
        /* chains looked at only when someone waited: the other glances had no waiter */
        g->lock_root_commit = p->root_commit / p->n;
        g->lock_root_client = p->root_client / p->n;
        g->lock_root_other = p->root_other / p->n;
    }
    if (!p->own_known)
        return;
    g->own_sessions = p->own / p->n;
    g->own_active = p->own_active / p->n;
    g->own_lock_wait = p->own_lock / p->n;
    g->own_commit_wait = p->own_commit_io / p->n;
    g->own_on_cpu = p->own_cpu / p->n;
    g->own_io_wait = p->own_io / p->n;
    g->own_idle = p->own_idle / p->n;
    g->own_sleep = p->own_sleep / p->n;
}

void
coll_row_states(struct coll_view *v)
{
    const struct coll_signals *g = &v->sig;
    enum { W = 20 };
    double all = g->sessions, cpu, lock, io, itx, other;
    char bar[W + 1];
    int at = 0;

    if (isnan(all) || all <= 0 || isnan(g->on_cpu) || v->nrows >= COLL_MAX_ROWS)
        return;
    cpu = fmin(g->on_cpu / all, 1);
    lock = isnan(g->lock_wait) ? 0 : g->lock_wait / all;
    io =
        ((isnan(g->commit_wait) ? 0 : g->commit_wait) + (isnan(g->io_wait) ? 0 : g->io_wait)) / all;
    itx = isnan(g->idle_tx) ? 0 : g->idle_tx / all;
    other = isnan(g->active) ? 0 : fmax(0, g->active / all - cpu - lock - io);
    memset(bar, '.', W);
    bar[W] = '\0';
    bar_fill(bar, W, &at, cpu, 'C');
    bar_fill(bar, W, &at, lock, 'L');
    bar_fill(bar, W, &at, io, 'W');
    bar_fill(bar, W, &at, other, '-');
    bar_fill(bar, W, &at, itx, 'T');
    if (coll_row_add(v, "sessions", g->samples > 1 ? "time (sampled)" : "time", cpu * 100,
                     ROW_NORMAL, "%s cpu %.0f lock %.0f io %.0f itx %.0f%%", bar, cpu * 100,
                     lock * 100, io * 100, itx * 100) == NULL)
        return;
    /* the bar goes first: it is the pane's summary of where the sessions are */
    {
        struct coll_row row = v->rows[v->nrows - 1];

        memmove(&v->rows[1], &v->rows[0], sizeof(v->rows[0]) * (size_t)(v->nrows - 1));
        v->rows[0] = row;
    }
}

void
coll_setting_add(struct coll_settings *s, const char *name, const char *value)
{
    if (s->n >= COLL_MAX_SETTINGS)
        return;
    snprintf(s->s[s->n].name, sizeof s->s[0].name, "%s", name);
    snprintf(s->s[s->n].value, sizeof s->s[0].value, "%s", value);
    s->n++;
}

const char *
coll_setting_get(const struct coll_settings *s, const char *name)
{
    int i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->s[i].name, name) == 0)
            return s->s[i].value;
    return NULL;
}

int
coll_settings_diff(const struct coll_settings *prev, const struct coll_settings *cur,
                   struct coll_change *out, int max)
{
    int i, n = 0;

    for (i = 0; i < cur->n && n < max; i++) {
        const char *was = coll_setting_get(prev, cur->s[i].name);

        if (was == NULL || strcmp(was, cur->s[i].value) == 0)
            continue;
        snprintf(out[n].name, sizeof out[n].name, "%s", cur->s[i].name);
        snprintf(out[n].from, sizeof out[n].from, "%s", was);
        snprintf(out[n].to, sizeof out[n].to, "%s", cur->s[i].value);
        n++;
    }
    return n;
}

void
coll_threads(struct coll_view *v, double threads, const char *setting, const struct cpu_task *a,
             int na, const struct cpu_task *b, int nb, double secs)
{
    struct coll_signals *g = &v->sig;
    double wait = NAN;
    double busiest = na > 0 && nb > 0 ? cpu_tasks_max_pct(a, na, b, nb, secs, &wait) : NAN;

    g->server_threads = threads;
    snprintf(g->threads_setting, sizeof g->threads_setting, "%s", setting);
    g->thread_max_pct = busiest;
    g->thread_wait_pct = wait;
    if (isnan(busiest))
        coll_row_add(v, "cpu", "threads", threads, ROW_NORMAL, "%.0f (%s)", threads, setting);
    else if (!(wait >= 1))
        coll_row_add(v, "cpu", "threads", threads, busiest >= 90 ? ROW_WARN : ROW_NORMAL,
                     "%.0f (%s), busiest %.0f%%", threads, setting, busiest);
    else /* a thread that waits for a CPU wants more than it got: both make its load */
        coll_row_add(v, "cpu", "threads", threads, busiest + wait >= 90 ? ROW_WARN : ROW_NORMAL,
                     "%.0f (%s), busiest %.0f%% + %.0f%% waiting for a CPU", threads, setting,
                     busiest, wait);
}

/* --- top statements --- */

static const struct coll_statement *
statement_find(const struct coll_statements *l, const char *id)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->s[i].id, id) == 0)
            return &l->s[i];
    return NULL;
}

/*
 * One statement's interval figures against its earlier read: was NULL on
 * the first read (figures since the reset), or when it was not among the
 * earlier ones (then only what needs no interval).
 */
static void
statement_derive(const struct coll_statement *was, int first, struct coll_statement *s, double secs,
                 double all_ms)
{
    double calls = s->calls, ms = s->total_ms;

    s->calls_s = s->interval_ms = NAN;
    if (was != NULL && s->calls >= was->calls) {
        calls = s->calls - was->calls;
        ms = s->total_ms - was->total_ms;
        s->calls_s = calls / secs;
        s->interval_ms = ms;
    }
    s->mean_ms = calls > 0 ? ms / calls : NAN;
    s->share = all_ms > 0 && (first || was != NULL) ? ms / all_ms : NAN;
    s->rows_per_call = s->calls > 0 ? s->rows / s->calls : NAN;
}

/* The most time first: in the interval where known, else since the reset. */
static int
by_time(const void *a, const void *b)
{
    const struct coll_statement *x = a, *y = b;
    double tx = isnan(x->interval_ms) ? -1 : x->interval_ms;
    double ty = isnan(y->interval_ms) ? -1 : y->interval_ms;

    if (tx != ty)
        return tx > ty ? -1 : 1;
    return x->total_ms > y->total_ms ? -1 : x->total_ms < y->total_ms;
}

void
coll_statements_derive(const struct coll_statements *prev, struct coll_statements *cur, double secs)
{
    /* a reset (or a restart) between the reads makes the totals go back: a first read again */
    int again = prev != NULL && secs > 0 && cur->all_ms >= prev->all_ms;
    double all_ms = again ? cur->all_ms - prev->all_ms : cur->all_ms;

    for (int i = 0; i < cur->n; i++)
        statement_derive(again ? statement_find(prev, cur->s[i].id) : NULL, !again, &cur->s[i],
                         secs, all_ms);
    qsort(cur->s, (size_t)cur->n, sizeof cur->s[0], by_time);
}
