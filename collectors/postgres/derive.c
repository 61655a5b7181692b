/*
 * postgres/derive: the PostgreSQL server pane from two samples, pure: rows
 * by section, rates from counter deltas (a reset or a restart noticed, not
 * shown as a negative rate), events, and the signals the verdict reads.
 */
#include "postgres.h"
#include "pg-collector.h"
#include "base/units.h"
#include "collectors/shared/locks.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

enum {
    SLOW_QUERY_S = 60, /* an active query older than this is worth a look */
    LABEL_MAX = 24,
};

/*
 * Requested checkpoints closer than this on average are a storm: the gap
 * under which the server itself logs "checkpoints are occurring too
 * frequently" (checkpoint_warning's default).
 */
static const double STORM_GAP_S = 30;

/* What a role without pg_monitor misses, and the grant that shows it (the role is appended). */
static const char hidden_note[] =
    "cannot see other sessions' state, query or wait events: GRANT pg_monitor TO ";

/* Section names, as the pane groups rows. */
static const char SESSIONS[] = "sessions", WAITS[] = "waits", DATABASE[] = "database",
                  CHECKPOINTS[] = "checkpoints", WAL[] = "wal", LOCKS[] = "locks",
                  SETTINGS[] = "settings";

/* --- rows --- */

/* A per-second row written by units' fmt (SI counts or IEC bytes); "-" before two samples. */
static void
add_per_s(struct coll_view *v, const char *section, const char *label, double per_s,
          enum row_level level, void (*fmt)(char *, size_t, double, const char *))
{
    char buf[32];

    if (isnan(per_s)) {
        coll_row_add(v, section, label, NAN, ROW_NORMAL, "-");
        return;
    }
    fmt(buf, sizeof buf, per_s, "/s");
    coll_row_add(v, section, label, per_s, level, "%s", buf);
}

static void
add_rate(struct coll_view *v, const char *section, const char *label, double per_s,
         enum row_level level)
{
    add_per_s(v, section, label, per_s, level, units_si);
}

static void
add_bytes_rate(struct coll_view *v, const char *section, const char *label, double per_s,
               enum row_level level)
{
    add_per_s(v, section, label, per_s, level, units_iec);
}

static void
add_count(struct coll_view *v, const char *section, const char *label, double n,
          enum row_level level)
{
    if (isnan(n))
        coll_row_add(v, section, label, NAN, ROW_NORMAL, "-");
    else
        coll_row_add(v, section, label, n, level, "%.0f", n);
}

/* num is in seconds. */
static void
add_duration(struct coll_view *v, const char *section, const char *label, double secs,
             enum row_level level)
{
    char buf[32];

    if (isnan(secs)) {
        coll_row_add(v, section, label, NAN, ROW_NORMAL, "-");
        return;
    }
    units_duration(buf, sizeof buf, secs);
    coll_row_add(v, section, label, secs, level, "%s", buf);
}

/*
 * The level of a session count when some sessions are hidden from us:
 * a finding (a warning level with n > 0) still shows; anything else is
 * dimmed, because the true number may be higher than what we see.
 */
static enum row_level
session_level(int n, enum row_level busy, int hidden)
{
    if (n > 0 && busy != ROW_NORMAL)
        return busy;
    return hidden ? ROW_DIM : ROW_NORMAL;
}

/* "12 (10 benchtop)", or "2" when none is ours. */
static void
add_sessions(struct coll_view *v, const char *label, struct pg_count c, enum row_level level)
{
    int n = c.ours + c.others;

    if (c.ours > 0)
        coll_row_add(v, SESSIONS, label, n, level, "%d (%d benchtop)", n, c.ours);
    else
        coll_row_add(v, SESSIONS, label, n, level, "%d", n);
}

static void
add_state(struct coll_view *v, const char *label, struct pg_count c, enum row_level busy,
          int hidden)
{
    add_sessions(v, label, c, session_level(c.ours + c.others, busy, hidden));
}

static int
hidden_sessions(const struct pg_sample *s)
{
    const struct pg_count *c = &s->sessions.state[PG_HIDDEN];

    return s->privileged ? 0 : c->ours + c->others;
}

static void
derive_sessions(const struct pg_sample *cur, struct coll_view *v)
{
    const struct pg_sessions *ss = &cur->sessions;
    struct pg_count all = {0, 0};
    int hidden = hidden_sessions(cur) > 0;
    double oldest = ss->oldest_query_s < 0 ? NAN : ss->oldest_query_s;
    int i;

    for (i = 0; i < PG_NSTATES; i++) {
        all.ours += ss->state[i].ours;
        all.others += ss->state[i].others;
    }
    add_sessions(v, "client sessions", all, ROW_NORMAL);
    add_state(v, "active", ss->state[PG_ACTIVE], ROW_NORMAL, hidden);
    add_state(v, "idle", ss->state[PG_IDLE], ROW_NORMAL, hidden);
    add_state(v, "idle in transaction", ss->state[PG_IDLE_TX], ROW_WARN, hidden);
    add_state(v, "idle in xact (aborted)", ss->state[PG_IDLE_TX_ABORTED], ROW_WARN, hidden);
    if (hidden)
        add_sessions(v, "state hidden", ss->state[PG_HIDDEN], ROW_DIM);
    add_count(v, SESSIONS, "waiting on a lock", ss->lock_waiters,
              session_level(ss->lock_waiters, ROW_WARN, hidden));
    add_duration(v, SESSIONS, "oldest query", oldest,
                 session_level(oldest >= SLOW_QUERY_S, ROW_WARN, hidden));
}

static void
derive_waits(const struct pg_sample *cur, struct coll_view *v)
{
    const struct pg_sessions *ss = &cur->sessions;
    int hidden = hidden_sessions(cur) > 0;
    int i;

    add_count(v, WAITS, "sessions waiting", ss->waiting, hidden ? ROW_DIM : ROW_NORMAL);
    for (i = 0; i < ss->nwaits && i < PG_TOP_WAITS; i++) {
        const struct pg_wait *w = &ss->waits[i];
        char label[LABEL_MAX + 1];
        int lock = strncmp(w->name, "Lock:", 5) == 0;

        snprintf(label, sizeof label, "%.*s", LABEL_MAX, w->name);
        add_count(v, WAITS, label, w->count,
                  session_level(w->count, lock ? ROW_WARN : ROW_NORMAL, hidden));
    }
}

/*
 * Two samples, for deltas. Without a usable earlier sample (the first one,
 * a server that changed under us, no time between) every delta is NAN.
 */
struct span {
    const struct pg_sample *prev; /* cur itself when there is none */
    const struct pg_sample *cur;
    double secs;
    int known; /* deltas mean something */
    int reset; /* a counter went backwards: statistics reset or server restarted */
};

static struct span
span_make(const struct pg_sample *prev, const struct pg_sample *cur, double secs)
{
    struct span sp = {.prev = prev ? prev : cur, .cur = cur, .secs = secs};

    sp.known = prev != NULL && secs > 0 && prev->version == cur->version;
    return sp;
}

static double
span_delta(struct span *sp, double before, double after)
{
    if (!sp->known)
        return NAN;
    if (after < before) {
        sp->reset = 1;
        return NAN;
    }
    return after - before;
}

static double
span_rate(struct span *sp, double before, double after)
{
    return span_delta(sp, before, after) / sp->secs;
}

/* Over the interval, not since the statistics were reset: the cumulative ratio hides a change. */
static void
add_cache_hit(struct coll_view *v, double hits, double reads)
{
    double pct;

    if (isnan(hits) || isnan(reads) || hits + reads <= 0) {
        coll_row_add(v, DATABASE, "cache hit", NAN, ROW_NORMAL, "-");
        return;
    }
    pct = 100 * hits / (hits + reads);
    coll_row_add(v, DATABASE, "cache hit", pct,
                 pct >= 99  ? ROW_GOOD
                 : pct < 90 ? ROW_WARN
                            : ROW_NORMAL,
                 "%.1f %%", pct);
}

static void
derive_database(struct span *sp, struct coll_view *v)
{
    const struct pg_database *a = &sp->prev->db, *b = &sp->cur->db;
    double commits = span_delta(sp, a->xact_commit, b->xact_commit);
    double rollbacks = span_delta(sp, a->xact_rollback, b->xact_rollback);
    double deadlocks = span_delta(sp, a->deadlocks, b->deadlocks);
    double temp_files = span_delta(sp, a->temp_files, b->temp_files);
    double temp_bytes = span_rate(sp, a->temp_bytes, b->temp_bytes);

    /* NAN (shown "-") unless both counters moved forward over a known interval. */
    v->server_tps = (commits + rollbacks) / sp->secs;
    add_rate(v, DATABASE, "transactions/s", v->server_tps, ROW_NORMAL);
    add_rate(v, DATABASE, "rollbacks/s", rollbacks / sp->secs, ROW_NORMAL);
    add_cache_hit(v, span_delta(sp, a->blks_hit, b->blks_hit),
                  span_delta(sp, a->blks_read, b->blks_read));
    add_rate(v, DATABASE, "blocks read/s", span_rate(sp, a->blks_read, b->blks_read), ROW_NORMAL);
    add_rate(v, DATABASE, "rows returned/s", span_rate(sp, a->tup_returned, b->tup_returned),
             ROW_NORMAL);
    add_rate(v, DATABASE, "rows fetched/s", span_rate(sp, a->tup_fetched, b->tup_fetched),
             ROW_NORMAL);
    add_rate(v, DATABASE, "rows inserted/s", span_rate(sp, a->tup_inserted, b->tup_inserted),
             ROW_NORMAL);
    add_rate(v, DATABASE, "rows updated/s", span_rate(sp, a->tup_updated, b->tup_updated),
             ROW_NORMAL);
    add_rate(v, DATABASE, "rows deleted/s", span_rate(sp, a->tup_deleted, b->tup_deleted),
             ROW_NORMAL);
    add_count(v, DATABASE, "deadlocks", deadlocks, deadlocks > 0 ? ROW_BAD : ROW_NORMAL);
    add_count(v, DATABASE, "temp files", temp_files, temp_files > 0 ? ROW_WARN : ROW_NORMAL);
    add_bytes_rate(v, DATABASE, "temp bytes/s", temp_bytes, temp_bytes > 0 ? ROW_WARN : ROW_NORMAL);
    v->sig.temp_bytes_s = temp_bytes;
    snprintf(v->sig.temp_setting, sizeof v->sig.temp_setting, "work_mem");
    if (deadlocks > 0)
        coll_event_add(v, "%.0f deadlock%s: a transaction was rolled back", deadlocks,
                       deadlocks > 1 ? "s" : "");
}

/* "checkpoint (timed): 1234 buffers, write 2345 ms, sync 12 ms" */
static void
checkpoint_event(struct coll_view *v, double timed, double requested, double buffers,
                 double write_ms, double sync_ms)
{
    double n = timed + requested;
    const char *kind = requested <= 0 ? "timed" : timed <= 0 ? "requested" : "timed, requested";
    char count[16] = "";

    if (isnan(n) || n <= 0)
        return;
    if (n > 1)
        snprintf(count, sizeof count, "%.0f ", n);
    coll_event_add(v, "%scheckpoint%s (%s): %.0f buffers, write %.0f ms, sync %.0f ms", count,
                   n > 1 ? "s" : "", kind, isnan(buffers) ? 0 : buffers,
                   isnan(write_ms) ? 0 : write_ms, isnan(sync_ms) ? 0 : sync_ms);
}

/* The window the rate is over: the collector's last minute, or this span alone (a test's pair). */
static void
ckpt_window(const struct span *sp, double requested, double *n, double *secs)
{
    const struct pg_checkpoints *b = &sp->cur->ckpt;

    if (b->win_s > 0) {
        *n = (double)b->win_requested;
        *secs = b->win_s;
    } else {
        *n = requested;
        *secs = sp->secs;
    }
}

/* "3 in 20 s" : a count over the seconds it came in, as the server's log would tell it */
static const char *
ckpt_window_text(const struct span *sp, double requested, char *buf, size_t size)
{
    double n, secs;

    ckpt_window(sp, requested, &n, &secs);
    snprintf(buf, size, "%.0f in %.0f s", n, secs);
    return buf;
}

/*
 * The rate is a count over the window's seconds; a storm is two or more
 * closer than STORM_GAP_S on average, said when one more came in this span.
 */
static void
ckpt_storm(struct span *sp, struct coll_view *v, double requested)
{
    double n, secs;

    ckpt_window(sp, requested, &n, &secs);
    v->sig.checkpoints_req_s = isnan(n) || secs <= 0 ? NAN : n / secs;
    if (isnan(requested) || requested <= 0 || n < 2 || secs / n >= STORM_GAP_S)
        return;
    coll_event_add(v,
                   "checkpoint storm: %.0f requested in %.0f s (one every %.1f s), max_wal_size %s",
                   n, secs, secs / n, sp->cur->settings[6]);
}

static void
derive_checkpoints(struct span *sp, struct coll_view *v)
{
    const struct pg_checkpoints *a = &sp->prev->ckpt, *b = &sp->cur->ckpt;
    double timed = span_delta(sp, a->timed, b->timed);
    double requested = span_delta(sp, a->requested, b->requested);
    double buffers = span_delta(sp, a->buffers_checkpoint, b->buffers_checkpoint);
    double write_ms = span_delta(sp, a->write_ms, b->write_ms);
    double sync_ms = span_delta(sp, a->sync_ms, b->sync_ms);
    char win[48];

    coll_row_add(v, CHECKPOINTS, "timed", b->timed, ROW_NORMAL, "%lld", (long long)b->timed);
    /* Requested ones during a run usually mean max_wal_size is too small for the load. */
    if (requested > 0)
        coll_row_add(v, CHECKPOINTS, "requested", b->requested, ROW_WARN, "%lld (%s)",
                     (long long)b->requested, ckpt_window_text(sp, requested, win, sizeof win));
    else
        coll_row_add(v, CHECKPOINTS, "requested", b->requested, ROW_NORMAL, "%lld",
                     (long long)b->requested);
    add_duration(v, CHECKPOINTS, "write time", write_ms / 1000, ROW_NORMAL);
    add_duration(v, CHECKPOINTS, "sync time", sync_ms / 1000, ROW_NORMAL);
    add_rate(v, CHECKPOINTS, "buffers written/s", buffers / sp->secs, ROW_NORMAL);
    add_rate(v, CHECKPOINTS, "bgwriter buffers/s",
             span_rate(sp, a->buffers_clean, b->buffers_clean), ROW_NORMAL);
    if (b->buffers_backend < 0)
        coll_row_add(v, CHECKPOINTS, "backend buffers/s", NAN, ROW_DIM, "n/a in 17+");
    else
        add_rate(v, CHECKPOINTS, "backend buffers/s",
                 span_rate(sp, a->buffers_backend, b->buffers_backend), ROW_NORMAL);
    ckpt_storm(sp, v, requested);
    checkpoint_event(v, timed, requested, buffers, write_ms, sync_ms);
}

/* Milliseconds per fsync of WAL over the interval; only measured with track_wal_io_timing. */
static void
add_wal_sync_time(struct span *sp, struct coll_view *v)
{
    const struct pg_wal *a = &sp->prev->wal, *b = &sp->cur->wal;
    double syncs = span_delta(sp, a->syncs, b->syncs);
    double ms = span_delta(sp, a->sync_ms, b->sync_ms);

    if (!b->io_timing) {
        coll_row_add(v, WAL, "avg sync time", NAN, ROW_DIM, "off (track_wal_io_timing)");
        return;
    }
    add_duration(v, WAL, "avg sync time", syncs > 0 ? ms / syncs / 1000 : NAN, ROW_NORMAL);
}

static void
derive_wal(struct span *sp, struct coll_view *v)
{
    const struct pg_wal *a = &sp->prev->wal, *b = &sp->cur->wal;

    if (!b->have) {
        coll_row_add(v, WAL, "pg_stat_wal", NAN, ROW_DIM, "needs PostgreSQL 14+");
        return;
    }
    add_rate(v, WAL, "records/s", span_rate(sp, a->records, b->records), ROW_NORMAL);
    add_bytes_rate(v, WAL, "bytes/s", span_rate(sp, a->bytes, b->bytes), ROW_NORMAL);
    if (!b->have_sync) {
        coll_row_add(v, WAL, "syncs/s", NAN, ROW_DIM, "n/a in 18+");
        return;
    }
    add_rate(v, WAL, "syncs/s", span_rate(sp, a->syncs, b->syncs), ROW_NORMAL);
    add_wal_sync_time(sp, v);
}

/* The sessions' states: the glances' averages when there were any, else the sample's own look. */
static void
signal_sessions(const struct pg_sample *cur, struct coll_signals *g)
{
    const struct pg_sessions *ss = &cur->sessions;
    const struct coll_glances *p = &cur->probed;
    int i, total = 0, own = 0;

    if (p->n > 0) {
        coll_glances_signals(p, g);
        return;
    }
    for (i = 0; i < PG_NSTATES; i++) {
        total += ss->state[i].ours + ss->state[i].others;
        own += ss->state[i].ours;
    }
    g->sessions = total;
    g->active = ss->active;
    g->on_cpu = ss->on_cpu;
    g->lock_wait = ss->lock_waiters;
    g->io_wait = ss->io_waiters;
    g->commit_wait = ss->commit_waiters;
    g->idle_tx = ss->state[PG_IDLE_TX].ours + ss->state[PG_IDLE_TX].others;
    g->own_sessions = own;
    g->own_active = ss->state[PG_ACTIVE].ours;
    g->own_lock_wait = ss->own_lock_waiters;
    g->own_commit_wait = ss->own_commit_io;
    g->own_io_wait = ss->own_io_waiters;
    g->sleep_wait = ss->sleepers;
    g->own_sleep = ss->own_sleepers;
}

/*
 * Other sessions' statements that benchtop's sessions waited on (through
 * a lock chain): the share of benchtop's session time spent so.
 */
static void
signal_stall(const struct pg_sample *cur, struct coll_signals *g)
{
    const struct coll_glances *p = &cur->probed;

    if (p->n == 0 || !p->own_known)
        return;
    g->other_stall_share = p->own > 0 ? fmin(cur->stall_own / p->own, 1) : 0;
    snprintf(g->other_stall_what, sizeof g->other_stall_what, "%s", cur->stall_what);
    g->other_stall_sql_at = lock_what_sql_at(g->other_stall_what);
}

/* The table whose sequential scans read the most rows over the span, or "". */
static void
busiest_scan(struct span *sp, struct coll_signals *g)
{
    const struct pg_scans *a = &sp->prev->scans, *b = &sp->cur->scans;
    double best = 0;
    int i, j;

    for (i = 0; i < b->n; i++) {
        for (j = 0; j < a->n && strcmp(a->top[j].name, b->top[i].name) != 0; j++)
            ;
        if (j < a->n && b->top[i].rows - a->top[j].rows > best) {
            best = (double)(b->top[i].rows - a->top[j].rows);
            snprintf(g->seq_scan_table, sizeof g->seq_scan_table, "%s", b->top[i].name);
        }
    }
}

/* Commits, WAL syncs and the work each transaction does, over the span. */
static void
signal_work(struct span *sp, struct coll_signals *g)
{
    const struct pg_sample *a = sp->prev, *b = sp->cur;
    double commits = span_delta(sp, a->db.xact_commit, b->db.xact_commit);
    double txns = commits + span_delta(sp, a->db.xact_rollback, b->db.xact_rollback);
    double blocks =
        span_delta(sp, a->db.blks_hit + a->db.blks_read, b->db.blks_hit + b->db.blks_read);

    g->commits_s = commits / sp->secs;
    if (b->wal.have_sync)
        g->log_syncs_s = span_rate(sp, a->wal.syncs, b->wal.syncs);
    if (txns >= 1) {
        g->rows_per_txn = span_delta(sp, a->db.tup_returned, b->db.tup_returned) / txns;
        g->blocks_per_txn = blocks / txns;
    }
    g->disk_reads_s = span_rate(sp, a->db.blks_read, b->db.blks_read);
    if (blocks >= 1)
        g->hit_ratio = span_delta(sp, a->db.blks_hit, b->db.blks_hit) / blocks;
    snprintf(g->mem_limit_setting, sizeof g->mem_limit_setting, "shared_buffers");
    g->seq_scans_s = span_rate(sp, a->scans.total, b->scans.total);
    if (sp->known)
        busiest_scan(sp, g);
}

/*
 * What would shorten the commit's wait: a commit_delay in force makes
 * every commit sleep that long before its flush (20000 us at 8 clients:
 * 0 gave x3.1), else synchronous_commit off.
 */
static void
signal_commit_advice(const struct pg_sample *cur, struct coll_signals *g)
{
    const char *delay = cur->settings[7];

    if (delay[0] && strcmp(delay, "0") != 0) {
        snprintf(g->commit_advice, sizeof g->commit_advice, "commit_delay = 0 (it is %.12s)",
                 delay);
        snprintf(g->commit_try, sizeof g->commit_try, "commit_delay=0");
    } else if (strcmp(cur->settings[2], "off") != 0) {
        snprintf(g->commit_advice, sizeof g->commit_advice, "synchronous_commit = off");
        snprintf(g->commit_try, sizeof g->commit_try, "synchronous_commit=off");
    }
}

/* The verdict's inputs: where the sessions are, the WAL's syncs, the work per transaction. */
static void
derive_signals(struct span *sp, struct coll_view *v)
{
    const struct pg_sample *cur = sp->cur;
    struct coll_signals *g = &v->sig;

    signal_sessions(cur, g);
    signal_stall(cur, g);
    g->lwlock_wait = cur->sessions.lwlock_waiters;
    g->rtt_ms = cur->rtt_ms;
    signal_work(sp, g);
    g->max_sessions = strtod(cur->settings[1], NULL);
    if (sp->known && cur->wal.have_sync && cur->wal.io_timing)
        g->log_sync_ms_s = (cur->wal.sync_ms - sp->prev->wal.sync_ms) / sp->secs;
    else if (cur->wal.have_sync)
        snprintf(g->sync_untimed, sizeof g->sync_untimed, "track_wal_io_timing");
    signal_commit_advice(cur, g);
}

static void
derive_locks(const struct pg_sample *cur, struct coll_view *v)
{
    int n = cur->locks_not_granted;

    add_count(v, LOCKS, "not granted", n, n > 0 ? ROW_WARN : ROW_NORMAL);
}

static void
derive_settings(const struct pg_sample *cur, struct coll_view *v)
{
    int i;

    for (i = 0; i < PG_NSETTINGS; i++)
        coll_row_add(v, SETTINGS, pg_setting_names[i], NAN, ROW_NORMAL, "%s",
                     cur->settings[i][0] ? cur->settings[i] : "-");
}

void
pg_ckpt_window(struct pg_ckpt_ring *r, uint64_t t_us, struct pg_checkpoints *c)
{
    int last = (r->head + PG_CKPT_RING - 1) % PG_CKPT_RING, oldest;

    if (r->n > 0 && c->requested < r->at[last].requested)
        r->n = 0; /* statistics reset or a restart: the window starts again */
    r->at[r->head].t_us = t_us;
    r->at[r->head].requested = c->requested;
    r->head = (r->head + 1) % PG_CKPT_RING;
    if (r->n < PG_CKPT_RING)
        r->n++;
    /* drop the readings older than the window, keeping the one at its start */
    while (r->n > 1) {
        int second = (r->head + PG_CKPT_RING - r->n + 1) % PG_CKPT_RING;

        if (t_us - r->at[second].t_us < (uint64_t)PG_CKPT_WINDOW_S * 1000000u)
            break;
        r->n--;
    }
    oldest = (r->head + PG_CKPT_RING - r->n) % PG_CKPT_RING;
    c->win_requested = c->requested - r->at[oldest].requested;
    c->win_s = (double)(t_us - r->at[oldest].t_us) / 1e6;
}

void
pg_derive(const void *prev, const void *cur, double secs, struct coll_view *v)
{
    struct span sp = span_make(prev, cur, secs);
    const struct pg_sample *p = prev;

    coll_view_reset(v);
    derive_sessions(sp.cur, v);
    derive_signals(&sp, v);
    derive_waits(sp.cur, v);
    derive_database(&sp, v);
    derive_checkpoints(&sp, v);
    derive_wal(&sp, v);
    derive_locks(sp.cur, v);
    derive_settings(sp.cur, v);
    if (sp.reset)
        coll_event_add(v, "counters went backwards: statistics reset or server restarted");
    if (p != NULL && p->version != sp.cur->version)
        coll_event_add(v, "server is now PostgreSQL %d.%d", sp.cur->version / 10000,
                       sp.cur->version % 100);
    if (hidden_sessions(sp.cur) > 0)
        snprintf(v->note, sizeof v->note, "%s%s", hidden_note, sp.cur->role);
}
