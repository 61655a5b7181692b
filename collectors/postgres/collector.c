/*
 * postgres/collector: the server pane for PostgreSQL (12 to 17; 10 and 11
 * answer the same queries).
 *
 * One sample is one round trip: the statements of pg_collector_sql() go
 * out as one simple query, which the server runs as one implicit
 * transaction. The collector so adds exactly one commit per sample to
 * xact_commit (1/s at the default interval), small enough next to any
 * load that derive reports the server's own count as it is rather than
 * guessing when the collector's commit was flushed. Its own session is
 * left out of every session count (pg_backend_pid()).
 *
 * Versions differ only in the SQL: every variant of a statement returns the
 * same column names, with NULLs for counters a server does not have, so the
 * parsers and derive never ask which version answered.
 */
#include "postgres.h"
#include "pg-collector.h"
#include "collectors/shared/locks.h"
#include "base/units.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    CONNECT_TIMEOUT_S = 3,
    ANSWER_TIMEOUT_S = 3, /* a sample waits no longer for the server (a frozen one fails) */
    MIN_VERSION = 100000, /* backend_type and pg_monitor appeared in 10 */
    V14 = 140000,
    V17 = 170000,
    V18 = 180000,
    SLOW_QUERY_S = 60, /* an active query older than this is worth a look */
    LABEL_MAX = 24,
};

/* Requested checkpoints per second from which they are a storm (one every 2 s). */
static const double STORM_PER_S = 0.5;

static const char app_name[] = "benchtop-collector";
/* What a role without pg_monitor misses, and the grant that shows it (the role is appended). */
static const char hidden_note[] =
    "cannot see other sessions' state, query or wait events: GRANT pg_monitor TO ";

/* Section names, as the pane groups rows. */
static const char SESSIONS[] = "sessions", WAITS[] = "waits", DATABASE[] = "database",
                  CHECKPOINTS[] = "checkpoints", WAL[] = "wal", LOCKS[] = "locks",
                  SETTINGS[] = "settings";

static const char *const setting_names[PG_NSETTINGS] = {
    "shared_buffers",     "max_connections", "synchronous_commit", "wal_level",
    "checkpoint_timeout", "work_mem",        "max_wal_size",       "commit_delay",
};

/* What a sample's pg_stat_activity.state (or our 'hidden') is called, by enum pg_state. */
static const char *const state_names[PG_NSTATES] = {
    [PG_ACTIVE] = "active",
    [PG_IDLE] = "idle",
    [PG_IDLE_TX] = "idle in transaction",
    [PG_IDLE_TX_ABORTED] = "idle in transaction (aborted)",
    [PG_OTHER_STATE] = "",
    [PG_HIDDEN] = "hidden",
};

enum { PG_CHAIN_MAX = 64 };

struct pg_coll {
    PGconn *conn;
    struct coll_glances probed; /* glances since the last sample */
    double stall_own;           /* benchtop's waiters on other sessions, summed over glances */
    char stall_what[COLL_STALL_WHAT];
    struct lock_node chain[PG_CHAIN_MAX];
    int version;
    int privileged;
    char role[72]; /* quote_ident(current_user) */
    char *sql;     /* pg_collector_sql(version) */
    struct pg_settings_cache settings;
    int restart; /* restart-only settings taken (try --restart restarts the server) */
};

/* --- the query, one statement per part --- */

/*
 * Superuser, or allowed to read every session's activity: pg_read_all_stats
 * grants that, and pg_monitor includes it. Looked up through pg_roles so
 * that a server without those roles answers instead of failing.
 */
static const char privilege_sql[] = "SELECT current_setting('server_version_num')::int AS version,"
                                    " quote_ident(current_user::text) AS role,"
                                    " r.rolsuper OR EXISTS (SELECT 1 FROM pg_roles m"
                                    " WHERE m.rolname IN ('pg_monitor', 'pg_read_all_stats')"
                                    " AND pg_has_role(current_user, m.oid, 'USAGE')) AS privileged"
                                    " FROM pg_roles r WHERE r.rolname = current_user";

/*
 * Client sessions by (ours, state). Without pg_read_all_stats another
 * user's session shows NULL in every column from state on, backend_type
 * included: a NULL backend_type with a database and a user is taken for
 * such a hidden client (another user's parallel worker would count too).
 * now() is our transaction's start, so a query that began after it shows
 * a small negative age, clamped when parsed.
 */
/*
 * The sleeps a statement asks for: pg_sleep(), and a VACUUM's cost delay.
 * The server waits on a timer, not on anything it could do faster.
 */
#define PG_SLEEPS "wait_event_type = 'Timeout' AND wait_event IN ('PgSleep', 'VacuumDelay')"

/*
 * A parallel query's leader waits on its workers (Gather, the end of the
 * scan, a worker's start or exit, a shared hash table or bitmap being
 * built): the statement is running on CPU, in other processes. Counted as
 * on CPU, since the workers themselves are not client sessions.
 */
#define PG_PARALLEL                                                                                \
    "(wait_event_type = 'IPC' AND (wait_event IN ('ExecuteGather', 'ParallelFinish',"              \
    " 'BgWorkerStartup', 'BgWorkerShutdown', 'ParallelBitmapScan', 'ParallelCreateIndexScan',"     \
    " 'AppendReady', 'BtreePage', 'MessageQueueReceive', 'MessageQueueSend',"                      \
    " 'MessageQueuePutMessage') OR wait_event LIKE 'Hash%'))"
#define PG_ON_CPU "state = 'active' AND (wait_event IS NULL OR " PG_PARALLEL ")"

static const char sessions_sql[] =
    "SELECT coalesce(application_name = 'benchtop', false) AS ours,"
    " CASE WHEN backend_type IS NULL THEN 'hidden' ELSE state END AS state,"
    " count(*) AS n,"
    " count(*) FILTER (WHERE wait_event_type = 'Lock') AS lock_waiters,"
    " count(*) FILTER (WHERE state <> 'idle' AND wait_event IS NOT NULL"
    " AND NOT " PG_PARALLEL ") AS waiting,"
    " count(*) FILTER (WHERE state = 'active') AS active,"
    " count(*) FILTER (WHERE " PG_ON_CPU ") AS on_cpu,"
    " count(*) FILTER (WHERE state <> 'idle' AND wait_event_type = 'LWLock'"
    " AND wait_event NOT IN ('WALWrite', 'WALInsert', 'WALBufMapping')) AS lwlock_waiters,"
    " count(*) FILTER (WHERE state <> 'idle' AND wait_event_type = 'IO'"
    " AND wait_event NOT LIKE 'WAL%') AS io_waiters,"
    " count(*) FILTER (WHERE state <> 'idle' AND (wait_event IN ('WALSync', 'WALWrite',"
    " 'WALInitSync', 'WALInsert', 'WALBufMapping', 'SyncRep'))) AS commit_waiters,"
    " count(*) FILTER (WHERE state = 'active' AND " PG_SLEEPS ") AS sleepers,"
    " extract(epoch FROM max(statement_timestamp() - query_start)"
    " FILTER (WHERE state = 'active')) AS oldest_s"
    " FROM pg_stat_activity"
    " WHERE pid <> pg_backend_pid()"
    " AND (backend_type = 'client backend'"
    " OR (backend_type IS NULL AND datid IS NOT NULL AND usesysid IS NOT NULL))"
    " GROUP BY 1, 2";

/*
 * One glance at the client sessions between samples (pg_coll_probe). It
 * runs inside the transaction the next sample commits, so glancing adds no
 * commit to xact_commit; pg_stat_clear_snapshot() makes each glance see the
 * sessions as they are, not as the transaction's first look saw them.
 */
static const char probe_sql[] =
    "SELECT pg_stat_clear_snapshot();"
    "SELECT coalesce(application_name = 'benchtop', false) AS ours, count(*) AS n,"
    " count(*) FILTER (WHERE state = 'active') AS active,"
    " count(*) FILTER (WHERE " PG_ON_CPU ") AS on_cpu,"
    " count(*) FILTER (WHERE wait_event_type = 'Lock') AS lock,"
    " count(*) FILTER (WHERE state <> 'idle' AND (wait_event IN ('WALSync', 'WALWrite',"
    " 'WALInitSync', 'WALInsert', 'WALBufMapping', 'SyncRep') OR wait_event_type = 'IO'))"
    " AS commit_io,"
    " count(*) FILTER (WHERE state LIKE 'idle in transaction%') AS idle_tx,"
    " count(*) FILTER (WHERE state <> 'idle' AND wait_event_type = 'IO'"
    " AND wait_event NOT LIKE 'WAL%') AS io,"
    " count(*) FILTER (WHERE state LIKE 'idle%') AS idle,"
    " count(*) FILTER (WHERE state = 'active' AND " PG_SLEEPS ") AS sleep,"
    " count(*) FILTER (WHERE wait_event_type = 'Lock' AND wait_event IN ('transactionid',"
    " 'tuple')) AS lock_row,"
    " count(*) FILTER (WHERE wait_event_type = 'Lock' AND wait_event = 'relation') AS lock_table,"
    " count(*) FILTER (WHERE wait_event_type = 'Lock' AND wait_event = 'advisory')"
    " AS lock_advisory"
    " FROM pg_stat_activity"
    " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
    " GROUP BY 1";

/*
 * The lock chains, asked only by a glance that saw a session wait on a
 * lock (pg_blocking_pids takes the lock manager's locks): the waiters
 * with their blockers, and the blockers themselves, with what each does.
 */
static const char chains_sql[] =
    "WITH w AS (SELECT pid, pg_blocking_pids(pid) AS b FROM pg_stat_activity"
    " WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid())"
    " SELECT a.pid, coalesce(a.application_name = 'benchtop', false) AS ours,"
    " coalesce(a.state LIKE 'idle%', false) AS idle,"
    " coalesce(a.wait_event IN ('WALSync', 'WALWrite', 'WALInitSync', 'WALInsert',"
    " 'WALBufMapping', 'SyncRep'), false) AS commit,"
    " coalesce(a.wait_event_type = 'Lock', false) AS waiting,"
    " w.b::text AS blockers,"
    " coalesce(extract(epoch FROM clock_timestamp() - a.query_start), 0) AS running_s,"
    " left(a.query, 39) AS query"
    " FROM pg_stat_activity a LEFT JOIN w ON w.pid = a.pid"
    " WHERE w.pid IS NOT NULL OR a.pid IN (SELECT unnest(b) FROM w) LIMIT 64";

/* Idle sessions all wait on Client:ClientRead, which says nothing; LIMIT is PG_TOP_WAITS. */
static const char waits_sql[] = "SELECT wait_event_type || ':' || wait_event AS wait, count(*) AS n"
                                " FROM pg_stat_activity"
                                " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
                                " AND state <> 'idle' AND wait_event IS NOT NULL"
                                " GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5";

static const char database_sql[] =
    "SELECT xact_commit, xact_rollback, blks_read, blks_hit, tup_returned, tup_fetched,"
    " tup_inserted, tup_updated, tup_deleted, deadlocks, temp_files, temp_bytes"
    " FROM pg_stat_database WHERE datname = current_database()";

static const char checkpoints_sql_10[] =
    "SELECT checkpoints_timed AS timed, checkpoints_req AS requested,"
    " checkpoint_write_time AS write_ms, checkpoint_sync_time AS sync_ms,"
    " buffers_checkpoint, buffers_clean, buffers_backend"
    " FROM pg_stat_bgwriter";

/*
 * 17 moved the checkpointer's counters to pg_stat_checkpointer under new
 * names and dropped buffers_backend (backends' writes are in pg_stat_io).
 */
static const char checkpoints_sql_17[] =
    "SELECT c.num_timed AS timed, c.num_requested AS requested,"
    " c.write_time AS write_ms, c.sync_time AS sync_ms,"
    " c.buffers_written AS buffers_checkpoint, b.buffers_clean,"
    " NULL::bigint AS buffers_backend"
    " FROM pg_stat_checkpointer c, pg_stat_bgwriter b";

static const char wal_sql_10[] =
    "SELECT NULL::bigint AS wal_records, NULL::numeric AS wal_bytes,"
    " NULL::bigint AS wal_sync, NULL::double precision AS wal_sync_time";

static const char wal_sql_14[] =
    "SELECT wal_records, wal_bytes, wal_sync, wal_sync_time FROM pg_stat_wal";

/* 18 moved WAL syncs to pg_stat_io. */
static const char wal_sql_18[] = "SELECT wal_records, wal_bytes, NULL::bigint AS wal_sync,"
                                 " NULL::double precision AS wal_sync_time FROM pg_stat_wal";

/* Sequential scans: the total, and the tables that read the most rows that way. */
static const char scans_sql[] =
    "SELECT relname, seq_scan, seq_tup_read, sum(seq_scan) OVER () AS total"
    " FROM pg_stat_user_tables ORDER BY seq_tup_read DESC NULLS LAST LIMIT 5";

static const char locks_sql[] = "SELECT count(*) AS not_granted FROM pg_locks WHERE NOT granted";

/* current_setting formats as SHOW does ("128MB", "5min"); missing_ok before 14. */
static const char settings_sql[] =
    "SELECT current_setting('shared_buffers') AS shared_buffers,"
    " current_setting('max_connections') AS max_connections,"
    " current_setting('synchronous_commit') AS synchronous_commit,"
    " current_setting('wal_level') AS wal_level,"
    " current_setting('checkpoint_timeout') AS checkpoint_timeout,"
    " current_setting('work_mem') AS work_mem,"
    " current_setting('max_wal_size') AS max_wal_size,"
    " current_setting('commit_delay') AS commit_delay,"
    " current_setting('track_wal_io_timing', true) AS track_wal_io_timing,"
    " pg_conf_load_time()::text AS conf_load_time";

/* --- reading results --- */

static enum pg_state
state_of(const char *name)
{
    int i;

    for (i = 0; i < PG_NSTATES; i++) {
        if (name != NULL && *name && strcmp(name, state_names[i]) == 0)
            return (enum pg_state)i;
    }
    return PG_OTHER_STATE;
}

static void
parse_sessions(const PGresult *res, struct pg_sample *s)
{
    struct pg_sessions *ss = &s->sessions;
    int row;

    ss->oldest_query_s = -1;
    for (row = 0; row < PQntuples(res); row++) {
        const char *ours = pg_cell_text(res, row, "ours");
        struct pg_count *c = &ss->state[state_of(pg_cell_text(res, row, "state"))];
        int n = (int)pg_cell_i64(res, row, "n", 0);
        double age = pg_cell_f64(res, row, "oldest_s", -1);

        /* A query that began after our own transaction did shows a negative age. */
        if (pg_cell_text(res, row, "oldest_s") != NULL && age < 0)
            age = 0;

        if (ours != NULL && strcmp(ours, "t") == 0)
            c->ours += n;
        else
            c->others += n;
        ss->lock_waiters += (int)pg_cell_i64(res, row, "lock_waiters", 0);
        ss->waiting += (int)pg_cell_i64(res, row, "waiting", 0);
        ss->active += (int)pg_cell_i64(res, row, "active", 0);
        ss->on_cpu += (int)pg_cell_i64(res, row, "on_cpu", 0);
        ss->lwlock_waiters += (int)pg_cell_i64(res, row, "lwlock_waiters", 0);
        ss->io_waiters += (int)pg_cell_i64(res, row, "io_waiters", 0);
        ss->commit_waiters += (int)pg_cell_i64(res, row, "commit_waiters", 0);
        ss->sleepers += (int)pg_cell_i64(res, row, "sleepers", 0);
        if (ours != NULL && strcmp(ours, "t") == 0) {
            ss->own_lock_waiters += (int)pg_cell_i64(res, row, "lock_waiters", 0);
            ss->own_commit_io += (int)pg_cell_i64(res, row, "commit_waiters", 0) +
                                 (int)pg_cell_i64(res, row, "io_waiters", 0);
            ss->own_io_waiters += (int)pg_cell_i64(res, row, "io_waiters", 0);
            ss->own_sleepers += (int)pg_cell_i64(res, row, "sleepers", 0);
        }
        if (age > ss->oldest_query_s)
            ss->oldest_query_s = age;
    }
}

static void
parse_waits(const PGresult *res, struct pg_sample *s)
{
    struct pg_sessions *ss = &s->sessions;
    int row;

    for (row = 0; row < PQntuples(res) && row < PG_TOP_WAITS; row++) {
        const char *name = pg_cell_text(res, row, "wait");

        snprintf(ss->waits[row].name, sizeof ss->waits[row].name, "%s", name ? name : "?");
        ss->waits[row].count = (int)pg_cell_i64(res, row, "n", 0);
        ss->nwaits = row + 1;
    }
}

/* pg_stat_database's columns and where each goes (PG_DATABASE_COUNTERS). */
static const struct {
    const char *column;
    size_t offset;
} database_columns[] = {
#define PG_DATABASE_COLUMN(name) {#name, offsetof(struct pg_database, name)},
    PG_DATABASE_COUNTERS(PG_DATABASE_COLUMN)
#undef PG_DATABASE_COLUMN
};

static void
parse_database(const PGresult *res, struct pg_sample *s)
{
    for (size_t i = 0; i < sizeof database_columns / sizeof database_columns[0]; i++)
        *(int64_t *)((char *)&s->db + database_columns[i].offset) =
            pg_cell_i64(res, 0, database_columns[i].column, 0);
}

static void
parse_checkpoints(const PGresult *res, struct pg_sample *s)
{
    struct pg_checkpoints *c = &s->ckpt;

    c->timed = pg_cell_i64(res, 0, "timed", 0);
    c->requested = pg_cell_i64(res, 0, "requested", 0);
    c->write_ms = pg_cell_f64(res, 0, "write_ms", 0);
    c->sync_ms = pg_cell_f64(res, 0, "sync_ms", 0);
    c->buffers_checkpoint = pg_cell_i64(res, 0, "buffers_checkpoint", 0);
    c->buffers_clean = pg_cell_i64(res, 0, "buffers_clean", 0);
    c->buffers_backend = pg_cell_i64(res, 0, "buffers_backend", -1);
}

static void
parse_wal(const PGresult *res, struct pg_sample *s)
{
    struct pg_wal *w = &s->wal;

    w->have = pg_cell_text(res, 0, "wal_records") != NULL;
    w->have_sync = pg_cell_text(res, 0, "wal_sync") != NULL;
    w->records = pg_cell_i64(res, 0, "wal_records", 0);
    /* numeric, but always a whole number of bytes */
    w->bytes = pg_cell_i64(res, 0, "wal_bytes", 0);
    w->syncs = pg_cell_i64(res, 0, "wal_sync", 0);
    w->sync_ms = pg_cell_f64(res, 0, "wal_sync_time", 0);
}

static void
parse_scans(const PGresult *res, struct pg_sample *s)
{
    struct pg_scans *sc = &s->scans;
    int row;

    sc->total = pg_cell_i64(res, 0, "total", 0);
    for (row = 0; row < PQntuples(res) && row < PG_TOP_SCANS; row++) {
        const char *name = pg_cell_text(res, row, "relname");

        snprintf(sc->top[row].name, sizeof sc->top[row].name, "%s", name ? name : "?");
        sc->top[row].scans = pg_cell_i64(res, row, "seq_scan", 0);
        sc->top[row].rows = pg_cell_i64(res, row, "seq_tup_read", 0);
        sc->n = row + 1;
    }
}

static void
parse_locks(const PGresult *res, struct pg_sample *s)
{
    s->locks_not_granted = (int)pg_cell_i64(res, 0, "not_granted", 0);
}

static void
parse_settings(const PGresult *res, struct pg_sample *s)
{
    const char *timing = pg_cell_text(res, 0, "track_wal_io_timing");
    int i;

    for (i = 0; i < PG_NSETTINGS; i++) {
        const char *v = pg_cell_text(res, 0, setting_names[i]);
        snprintf(s->settings[i], sizeof s->settings[i], "%s", v ? v : "");
    }
    s->wal.io_timing = timing != NULL && strcmp(timing, "on") == 0;
    snprintf(s->conf_load_time, sizeof s->conf_load_time, "%s",
             pg_cell_text(res, 0, "conf_load_time") ? pg_cell_text(res, 0, "conf_load_time") : "");
}

/* --- the parts of one sample --- */

/* A statement as servers from `since` on (server_version_num) understand it. */
struct sql_variant {
    int since;
    const char *text;
};

enum { MAX_VARIANTS = 3 };

struct sql_part {
    struct sql_variant variants[MAX_VARIANTS]; /* oldest first; unused ones are {0, NULL} */
    void (*parse)(const PGresult *res, struct pg_sample *s);
};

/* In the order of the statements, so the Nth result belongs to the Nth part. */
static const struct sql_part sql_parts[] = {
    {{{0, sessions_sql}}, parse_sessions},
    {{{0, waits_sql}}, parse_waits},
    {{{0, database_sql}}, parse_database},
    {{{0, checkpoints_sql_10}, {V17, checkpoints_sql_17}}, parse_checkpoints},
    {{{0, wal_sql_10}, {V14, wal_sql_14}, {V18, wal_sql_18}}, parse_wal},
    {{{0, scans_sql}}, parse_scans},
    {{{0, locks_sql}}, parse_locks},
    {{{0, settings_sql}}, parse_settings},
};

enum { NPARTS = sizeof sql_parts / sizeof sql_parts[0] };

static const char *
part_sql(const struct sql_part *p, int version)
{
    const char *text = p->variants[0].text;
    int i;

    for (i = 1; i < MAX_VARIANTS && p->variants[i].text != NULL; i++) {
        if (version >= p->variants[i].since)
            text = p->variants[i].text;
    }
    return text;
}

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

static void
derive_checkpoints(struct span *sp, struct coll_view *v)
{
    const struct pg_checkpoints *a = &sp->prev->ckpt, *b = &sp->cur->ckpt;
    double timed = span_delta(sp, a->timed, b->timed);
    double requested = span_delta(sp, a->requested, b->requested);
    double buffers = span_delta(sp, a->buffers_checkpoint, b->buffers_checkpoint);
    double write_ms = span_delta(sp, a->write_ms, b->write_ms);
    double sync_ms = span_delta(sp, a->sync_ms, b->sync_ms);

    coll_row_add(v, CHECKPOINTS, "timed", b->timed, ROW_NORMAL, "%lld", (long long)b->timed);
    /* Requested ones during a run usually mean max_wal_size is too small for the load. */
    if (requested > 0)
        coll_row_add(v, CHECKPOINTS, "requested", b->requested, ROW_WARN, "%lld (%.1f/s)",
                     (long long)b->requested, requested / sp->secs);
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
    v->sig.checkpoints_req_s = requested / sp->secs;
    /* several a second: max_wal_size fills between two, each writes every dirty page again */
    if (v->sig.checkpoints_req_s >= STORM_PER_S)
        coll_event_add(v, "checkpoint storm: %.1f/s requested, max_wal_size %s",
                       v->sig.checkpoints_req_s, sp->cur->settings[6]);
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
        coll_row_add(v, SETTINGS, setting_names[i], NAN, ROW_NORMAL, "%s",
                     cur->settings[i][0] ? cur->settings[i] : "-");
}

/* --- the class --- */

/*
 * Waits until libpq has sent everything and PQgetResult would not block, or
 * until the deadline (the connection is non-blocking): 0, or -1 with err.
 */
static int
wait_ready(PGconn *conn, uint64_t deadline, char *err)
{
    for (;;) {
        int flush = PQflush(conn);
        struct pollfd p = {.fd = PQsocket(conn), .events = POLLIN};
        uint64_t now = now_us();
        int rv;

        if (flush < 0)
            return pg_result_error(conn, NULL, "send to the server", err);
        if (flush == 0 && !PQisBusy(conn))
            return 0;
        if (flush == 1)
            p.events |= POLLOUT;
        if (now >= deadline)
            return seterr(err,
                          "no answer from the server within %d s (is it stopped or "
                          "overloaded?)",
                          ANSWER_TIMEOUT_S);
        rv = poll(&p, 1, (int)((deadline - now + 999) / 1000));
        if (rv < 0 && errno != EINTR)
            return seterr(err, "poll: %s", strerror(errno));
        if (rv > 0 && (p.revents & (POLLIN | POLLERR | POLLHUP)) && !PQconsumeInput(conn))
            return pg_result_error(conn, NULL, "read from the server", err);
    }
}

/*
 * Adds row, a single-row result, to *all (made from the first): -1 once
 * the rows together pass PG_PANE_REPLY_MAX bytes (values and a word per
 * column).
 */
static int
add_row(PGresult **all, const PGresult *row, size_t *bytes)
{
    int f, n = PQnfields(row), at = *all ? PQntuples(*all) : 0;

    for (f = 0; f < n; f++)
        *bytes += (size_t)PQgetlength(row, 0, f) + sizeof(void *);
    if (*bytes > PG_PANE_REPLY_MAX)
        return -1;
    if (*all == NULL)
        return (*all = PQcopyResult(row, PG_COPYRES_ATTRS | PG_COPYRES_TUPLES)) ? 0 : -1;
    for (f = 0; f < n; f++)
        if (!PQsetvalue(*all, at, f, PQgetisnull(row, 0, f) ? NULL : PQgetvalue(row, 0, f),
                        PQgetisnull(row, 0, f) ? -1 : PQgetlength(row, 0, f)))
            return -1;
    return 0;
}

/*
 * PQgetResult with a deadline: *res may be NULL (no more results); -1 with
 * err on timeout. A statement sent in single-row mode (send_rows) comes
 * back whole all the same, its rows put together here, so that a server
 * streaming rows is cut at PG_PANE_REPLY_MAX instead of filling memory for
 * the whole deadline (libpq keeps a result's rows until it ends).
 */
static int
next_result(PGconn *conn, uint64_t deadline, PGresult **res, char *err)
{
    PGresult *all = NULL, *r;
    size_t bytes = 0;

    for (*res = NULL;; PQclear(r)) {
        if (wait_ready(conn, deadline, err) < 0) {
            if (all != NULL) /* not silence: rows that did not end in time */
                seterr(err,
                       "the server sent %zu kB of rows for one of the server pane's statements "
                       "and no end within %d s (is this a PostgreSQL server?)",
                       bytes >> 10, ANSWER_TIMEOUT_S);
            break;
        }
        r = PQgetResult(conn);
        if (r == NULL || PQresultStatus(r) != PGRES_SINGLE_TUPLE) {
            if (all != NULL && PQresultStatus(r) == PGRES_TUPLES_OK) { /* the rows' end */
                PQclear(r);
                r = all;
            } else {
                PQclear(all); /* an error after rows: the error is the result */
            }
            *res = r;
            return 0;
        }
        if (add_row(&all, r, &bytes) < 0) {
            seterr(err,
                   "the server sent more than %d MiB of rows for one of the server pane's "
                   "statements (is this a PostgreSQL server?)",
                   PG_PANE_REPLY_MAX >> 20);
            PQclear(r);
            break;
        }
    }
    PQclear(all);
    return -1;
}

/* Statements whose rows next_result reads: one at a time (single-row mode), put together there. */
static int
send_rows(PGconn *conn, int sent)
{
    if (sent)
        PQsetSingleRowMode(conn);
    return sent;
}

PGresult *
pg_exec_timed(struct pg_conn *conn, const char *sql, const char *param, char *err)
{
    uint64_t deadline = now_us() + ANSWER_TIMEOUT_S * 1000000u;
    PGresult *res, *extra;

    if (!send_rows(conn, PQsendQueryParams(conn, sql, param ? 1 : 0, NULL, param ? &param : NULL,
                                           NULL, NULL, 0))) {
        pg_result_error(conn, NULL, "send a query", err);
        return NULL;
    }
    if (next_result(conn, deadline, &res, err) < 0)
        return NULL;
    while (next_result(conn, deadline, &extra, err) == 0 && extra != NULL)
        PQclear(extra);
    return res;
}

/* Reads the version and whether we see every session; 0 or -1 with err. */
static int
read_privileges(struct pg_coll *c, char *err)
{
    PGresult *res;
    const char *priv, *role;

    if (PQsetnonblocking(c->conn, 1) != 0)
        return pg_result_error(c->conn, NULL, "make the connection non-blocking", err);
    if ((res = pg_exec_timed(c->conn, privilege_sql, NULL, err)) == NULL)
        return -1;

    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
        pg_result_error(c->conn, res, "read the server version", err);
        PQclear(res);
        return -1;
    }
    c->version = (int)pg_cell_i64(res, 0, "version", 0);
    priv = pg_cell_text(res, 0, "privileged");
    c->privileged = priv != NULL && strcmp(priv, "t") == 0;
    role = pg_cell_text(res, 0, "role");
    snprintf(c->role, sizeof c->role, "%s", role != NULL ? role : "CURRENT_USER");
    PQclear(res);
    if (c->version < MIN_VERSION)
        return seterr(err, "PostgreSQL %d.%d is too old for the server pane (it needs 10 or newer)",
                      c->version / 10000, c->version / 100 % 100);
    return 0;
}

static void
pg_coll_close(void *conn)
{
    struct pg_coll *c = conn;

    PQfinish(c->conn);
    free(c->sql);
    free(c);
}

static void *
pg_coll_open(const char *target, char *err)
{
    struct pg_coll *c = xcalloc(1, sizeof *c);

    if (pg_connect_as(target, app_name, CONNECT_TIMEOUT_S, &c->conn, err) < 0 ||
        read_privileges(c, err) < 0) {
        pg_coll_close(c);
        return NULL;
    }
    c->sql = pg_collector_sql(c->version);
    return c;
}

/*
 * A protocol round trip with no statement in it (a lone Sync, sent in
 * pipeline mode): the network and protocol cost with no server work and
 * no transaction, which the verdict compares with the clients' latency.
 */
static int
measure_rtt(PGconn *conn, double *rtt_ms, char *err)
{
    uint64_t t0 = now_us();
    PGresult *res;
    int ok;

    if (!PQenterPipelineMode(conn) || !PQpipelineSync(conn))
        return pg_result_error(conn, NULL, "measure a round trip", err);
    if (next_result(conn, t0 + ANSWER_TIMEOUT_S * 1000000u, &res, err) < 0)
        return -1;
    ok = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
    *rtt_ms = (double)(now_us() - t0) / 1000.0;
    PQclear(res);
    if (!ok || !PQexitPipelineMode(conn))
        return pg_result_error(conn, NULL, "measure a round trip", err);
    return 0;
}

static void
probe_add(struct coll_glances *p, const PGresult *res)
{
    int row;

    for (row = 0; row < PQntuples(res); row++) {
        const char *ours = pg_cell_text(res, row, "ours");
        double n = (double)pg_cell_i64(res, row, "n", 0),
               active = (double)pg_cell_i64(res, row, "active", 0);
        double lock = (double)pg_cell_i64(res, row, "lock", 0);
        double commit_io = (double)pg_cell_i64(res, row, "commit_io", 0);
        double on_cpu = (double)pg_cell_i64(res, row, "on_cpu", 0);
        double io = (double)pg_cell_i64(res, row, "io", 0);
        double sleep = (double)pg_cell_i64(res, row, "sleep", 0);

        p->all += n;
        p->active += active;
        p->on_cpu += on_cpu;
        p->lock += lock;
        p->commit_io += commit_io;
        p->io += io;
        p->sleep += sleep;
        p->idle_tx += (double)pg_cell_i64(res, row, "idle_tx", 0);
        p->lock_kinds[LK_ROW] += (double)pg_cell_i64(res, row, "lock_row", 0);
        p->lock_kinds[LK_TABLE] += (double)pg_cell_i64(res, row, "lock_table", 0);
        p->lock_kinds[LK_ADVISORY] += (double)pg_cell_i64(res, row, "lock_advisory", 0);
        if (ours != NULL && strcmp(ours, "t") == 0) {
            p->own += n;
            p->own_active += active;
            p->own_lock += lock;
            p->own_commit_io += commit_io;
            p->own_cpu += on_cpu;
            p->own_io += io;
            p->own_sleep += sleep;
            p->own_idle += (double)pg_cell_i64(res, row, "idle", 0);
        }
    }
    p->own_known = 1; /* by application_name */
    p->roots++;       /* the chains are asked for whenever a glance sees a lock waiter */
    p->n++;
}

static int
cell_true(const PGresult *res, int row, const char *col)
{
    const char *v = pg_cell_text(res, row, col);

    return v != NULL && strcmp(v, "t") == 0;
}

/* "{12,34}" (pg_blocking_pids as text): the first pid, or 0. */
int
pg_first_blocker(const char *pids)
{
    if (pids == NULL || *pids != '{')
        return 0;
    return atoi(pids + 1);
}

/* The chains' rows into c->chain; how many. */
static int
chain_read(struct pg_coll *c, const PGresult *res)
{
    int row, n = PQntuples(res) < PG_CHAIN_MAX ? PQntuples(res) : PG_CHAIN_MAX;

    for (row = 0; row < n; row++) {
        struct lock_node *s = &c->chain[row];
        const char *q = pg_cell_text(res, row, "query");

        s->id = (uint64_t)pg_cell_i64(res, row, "pid", 0);
        s->ours = cell_true(res, row, "ours");
        s->idle = cell_true(res, row, "idle");
        s->commit = cell_true(res, row, "commit");
        s->blocker = (uint64_t)pg_first_blocker(pg_cell_text(res, row, "blockers"));
        s->handoff = s->blocker == 0 && cell_true(res, row, "waiting");
        s->running_s = pg_cell_f64(res, row, "running_s", 0);
        snprintf(s->query, sizeof s->query, "%s", q ? q : "");
    }
    return n;
}

/* Statements outside the sample's query, with the deadline: 0, or -1 with err. */
static int
exec_ok(PGconn *conn, const char *sql, const char *what, char *err)
{
    PGresult *res = pg_exec_timed(conn, sql, NULL, err);
    int ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;

    if (res != NULL && !ok)
        pg_result_error(conn, res, what, err);
    PQclear(res);
    return ok ? 0 : -1;
}

/* When the glance saw lock waiters: their chains' roots into the glances. 0, or -1 with err. */
static int
probe_chains(struct pg_coll *c, char *err)
{
    struct lock_roots r;
    PGresult *res;

    /*
     * The sessions as they are now, beside pg_blocking_pids (which reads
     * the lock manager live), not as the glance saw them: a holder seen
     * running its UPDATE at the glance and idle in its transaction by the
     * time its waiters were listed was counted as running (pgbench scale
     * 1: roots running 5.3 of 10, idle 0.1 per glance; live, idle ones
     * were the most)
     */
    if (exec_ok(c->conn, "SELECT pg_stat_clear_snapshot()", "follow the lock chains", err) < 0 ||
        (res = pg_exec_timed(c->conn, chains_sql, NULL, err)) == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        pg_result_error(c->conn, res, "follow the lock chains", err);
        PQclear(res);
        return -1;
    }
    lock_roots(c->chain, chain_read(c, res), &r);
    PQclear(res);
    lock_roots_add(&r, &c->probed, &c->stall_own, c->stall_what, sizeof c->stall_what);
    return 0;
}

/* A glance at the sessions, in the transaction the next sample commits (see probe_sql). */
static int
pg_coll_probe(void *conn, char *err)
{
    struct pg_coll *c = conn;
    PGresult *res;
    int rc = 0, last = 0;
    double before = 0;
    uint64_t deadline;

    if (PQtransactionStatus(c->conn) == PQTRANS_IDLE &&
        exec_ok(c->conn, "BEGIN", "begin a glance at the sessions", err) < 0)
        return -1;
    if (!send_rows(c->conn, PQsendQuery(c->conn, probe_sql)))
        return pg_result_error(c->conn, NULL, "glance at the sessions", err);
    deadline = now_us() + ANSWER_TIMEOUT_S * 1000000u;
    for (;;) {
        if (next_result(c->conn, deadline, &res, err) < 0)
            return -1; /* the connection is then closed: the stream is not reusable */
        if (res == NULL)
            break;
        if (rc == 0 && PQresultStatus(res) != PGRES_TUPLES_OK)
            rc = pg_result_error(c->conn, res, "glance at the sessions", err);
        else if (rc == 0 && ++last == 2) {
            before = c->probed.lock;
            probe_add(&c->probed, res);
        }
        PQclear(res);
    }
    if (rc == 0 && c->probed.lock > before)
        rc = probe_chains(c, err);
    return rc;
}

static int
pg_coll_sample(void *conn, void *out, char *err)
{
    struct pg_coll *c = conn;
    struct pg_sample *s = out;
    int in_tx = PQtransactionStatus(c->conn) == PQTRANS_INTRANS;
    PGresult *res;
    uint64_t deadline;
    int i, rc = 0;

    s->version = c->version;
    s->privileged = c->privileged;
    memcpy(s->role, c->role, sizeof s->role);
    s->probed = c->probed;
    s->stall_own = c->stall_own;
    snprintf(s->stall_what, sizeof s->stall_what, "%s", c->stall_what);
    memset(&c->probed, 0, sizeof c->probed);
    c->stall_own = 0;
    c->stall_what[0] = '\0';
    if (measure_rtt(c->conn, &s->rtt_ms, err) < 0)
        return -1;
    /* after glances the sample runs in their transaction and commits it: still one commit */
    if (in_tx && exec_ok(c->conn, "SELECT pg_stat_clear_snapshot()", "sample the server", err) < 0)
        return -1;
    if (!send_rows(c->conn, PQsendQuery(c->conn, c->sql)))
        return pg_result_error(c->conn, NULL, "sample the server", err);
    deadline = now_us() + ANSWER_TIMEOUT_S * 1000000u;
    /* Read every result, even after an error, so the connection is ready for the next one. */
    for (i = 0;; i++) {
        if (next_result(c->conn, deadline, &res, err) < 0)
            return -1; /* the connection is then closed: the stream is not reusable */
        if (res == NULL)
            break;
        if (rc == 0 && (i >= NPARTS || PQresultStatus(res) != PGRES_TUPLES_OK))
            rc = pg_result_error(c->conn, res, "sample the server", err);
        else if (rc == 0)
            sql_parts[i].parse(res, s);
        PQclear(res);
    }
    if (rc == 0 && i != NPARTS)
        rc = seterr(err, "could not sample the server: %d results instead of %d", i, NPARTS);
    if (rc == 0 && in_tx)
        rc = exec_ok(c->conn, "COMMIT", "sample the server", err);
    if (rc == 0) /* tells read_settings whether the server re-read its configuration */
        snprintf(c->settings.seen, sizeof c->settings.seen, "%s", s->conf_load_time);
    return rc;
}

static void
pg_coll_derive(const void *prev, const void *cur, double secs, struct coll_view *v)
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

static int
pg_coll_settings(void *conn, struct coll_settings *out, char *err)
{
    struct pg_coll *c = conn;

    return pg_settings_read(c->conn, &c->settings, out, err);
}

static int
pg_coll_apply(void *conn, const char *name, const char *value, char *err)
{
    struct pg_coll *c = conn;

    /* ALTER SYSTEM cannot run in the glances' transaction: end it first (its one commit) */
    if (PQtransactionStatus(c->conn) == PQTRANS_INTRANS &&
        exec_ok(c->conn, "COMMIT", "apply the setting", err) < 0)
        return -1;
    return pg_settings_apply(c->conn, name, value, c->restart, err);
}

/* The glances' transaction ended first: a try's statements run outside it. */
static int
out_of_glance(struct pg_coll *c, char *err)
{
    if (PQtransactionStatus(c->conn) == PQTRANS_INTRANS &&
        exec_ok(c->conn, "COMMIT", "read the setting", err) < 0)
        return -1;
    return 0;
}

static char *
pg_coll_undo_value(void *conn, const char *name, char *err)
{
    struct pg_coll *c = conn;

    if (out_of_glance(c, err) < 0)
        return NULL;
    return pg_settings_undo_value(c->conn, name, c->restart, err);
}

static int
pg_coll_try_lock(void *conn, const char *token, int renew, char *holder, size_t len, char *err)
{
    struct pg_coll *c = conn;

    if (out_of_glance(c, err) < 0)
        return -1;
    return pg_settings_try_lock(c->conn, err);
}

static void
pg_coll_try_unlock(void *conn, const char *token)
{
    char err[BT_ERRLEN];

    if (out_of_glance(conn, err) == 0)
        pg_settings_try_unlock(((struct pg_coll *)conn)->conn);
}

static int
pg_coll_identity(void *conn, char *buf, size_t len, char *err)
{
    struct pg_coll *c = conn;

    if (out_of_glance(c, err) < 0)
        return -1;
    return pg_settings_identity(c->conn, buf, len, err);
}

static int
pg_coll_has_setting(void *conn, const char *name, const char *value, char *err)
{
    struct pg_coll *c = conn;

    if (PQtransactionStatus(c->conn) == PQTRANS_INTRANS &&
        exec_ok(c->conn, "COMMIT", "read the setting", err) < 0)
        return -1;
    return pg_settings_has(c->conn, name, err); /* ALTER SYSTEM quotes any value */
}

static void
pg_coll_allow_restart(void *conn)
{
    ((struct pg_coll *)conn)->restart = 1;
}

static int
pg_coll_sessions(void *conn, struct coll_sessions *out, char *err)
{
    struct pg_coll *c = conn;

    return pg_sessions_read(c->conn, c->privileged, c->role, out, err);
}

static int
pg_coll_kill(void *conn, const char *id, int terminate, char *err)
{
    return pg_sessions_kill(((struct pg_coll *)conn)->conn, id, terminate, err);
}

static int
pg_coll_statements(void *conn, struct coll_statements *out, char *err)
{
    return pg_statements_read(((struct pg_coll *)conn)->conn, out, err);
}

char *
pg_collector_sql(int server_version_num)
{
    static const char sep[] = ";\n";
    size_t len = 1, i;
    char *sql, *p;

    for (i = 0; i < NPARTS; i++)
        len += strlen(part_sql(&sql_parts[i], server_version_num)) + strlen(sep);
    sql = p = xmalloc(len);
    for (i = 0; i < NPARTS; i++)
        p += sprintf(p, "%s%s", part_sql(&sql_parts[i], server_version_num), sep);
    return sql;
}

const struct collector_class postgres_collector_class = {
    .name = "postgres",
    .title = "PostgreSQL",
    .sample_size = sizeof(struct pg_sample),
    .open = pg_coll_open,
    .close = pg_coll_close,
    .sample = pg_coll_sample,
    .derive = pg_coll_derive,
    .probe = pg_coll_probe,
    .probe_hz = 15,
    .read_settings = pg_coll_settings,
    .apply_setting = pg_coll_apply,
    .undo_value = pg_coll_undo_value,
    .try_lock = pg_coll_try_lock,
    .try_unlock = pg_coll_try_unlock,
    .identity = pg_coll_identity,
    .has_setting = pg_coll_has_setting,
    .allow_restart = pg_coll_allow_restart,
    .sessions = pg_coll_sessions,
    .kill = pg_coll_kill,
    .statements = pg_coll_statements,
};
