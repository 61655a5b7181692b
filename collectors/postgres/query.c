/*
 * postgres/query: every statement the PostgreSQL collector sends, by server
 * version, and the pure reading of a sample's results into struct pg_sample.
 *
 * One sample is one round trip: the statements of pg_collector_sql() go
 * out as one simple query, which the server runs as one implicit
 * transaction (postgres/collector.c sends it).
 *
 * Versions differ only in the SQL: every variant of a statement returns the
 * same column names, with NULLs for counters a server does not have, so the
 * parsers and derive never ask which version answered.
 */
#include "postgres.h"
#include "pg-collector.h"
#include "collectors/shared/locks.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    V14 = 140000,
    V17 = 170000,
    V18 = 180000,
};

const char *const pg_setting_names[PG_NSETTINGS] = {
    "shared_buffers",     "max_connections", "synchronous_commit", "wal_level",
    "checkpoint_timeout", "work_mem",        "max_wal_size",       "commit_delay",
};

/* What a sample's pg_stat_activity.state (or our 'hidden') is called, by enum pg_state. */
const char *const pg_state_names[PG_NSTATES] = {
    [PG_ACTIVE] = "active",
    [PG_IDLE] = "idle",
    [PG_IDLE_TX] = "idle in transaction",
    [PG_IDLE_TX_ABORTED] = "idle in transaction (aborted)",
    [PG_OTHER_STATE] = "",
    [PG_HIDDEN] = "hidden",
};

/* --- the query, one statement per part --- */

/*
 * Superuser, or allowed to read every session's activity: pg_read_all_stats
 * grants that, and pg_monitor includes it. Looked up through pg_roles so
 * that a server without those roles answers instead of failing.
 */
const char pg_privilege_sql[] = "SELECT current_setting('server_version_num')::int AS version,"
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
    "SELECT " PG_OWN "coalesce(application_name = 'benchtop', false) AS ours,"
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
const char pg_probe_sql[] =
    "SELECT " PG_OWN "pg_stat_clear_snapshot();"
    "SELECT " PG_OWN "coalesce(application_name = 'benchtop', false) AS ours, count(*) AS n,"
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
_Static_assert(LOCK_QUERY_CHARS == 241, "pg_chains_sql reads left(a.query, LOCK_QUERY_CHARS)");
const char pg_chains_sql[] =
    "WITH " PG_OWN "w AS (SELECT pid, pg_blocking_pids(pid) AS b FROM pg_stat_activity"
    " WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid())"
    " SELECT a.pid, coalesce(a.application_name = 'benchtop', false) AS ours,"
    " coalesce(a.state LIKE 'idle%', false) AS idle,"
    " coalesce(a.wait_event IN ('WALSync', 'WALWrite', 'WALInitSync', 'WALInsert',"
    " 'WALBufMapping', 'SyncRep'), false) AS commit,"
    " coalesce(a.wait_event_type = 'Lock', false) AS waiting,"
    " w.b::text AS blockers,"
    " coalesce(extract(epoch FROM clock_timestamp() - a.query_start), 0) AS running_s,"
    " left(a.query, 241) AS query, a.application_name AS app"
    " FROM pg_stat_activity a LEFT JOIN w ON w.pid = a.pid"
    " WHERE w.pid IS NOT NULL OR a.pid IN (SELECT unnest(b) FROM w) LIMIT 64";

/* Idle sessions all wait on Client:ClientRead, which says nothing; LIMIT is PG_TOP_WAITS. */
static const char waits_sql[] =
    "SELECT " PG_OWN "wait_event_type || ':' || wait_event AS wait, count(*) AS n"
    " FROM pg_stat_activity"
    " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
    " AND state <> 'idle' AND wait_event IS NOT NULL"
    " GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5";

static const char database_sql[] =
    "SELECT " PG_OWN "xact_commit, xact_rollback, blks_read, blks_hit, tup_returned, tup_fetched,"
    " tup_inserted, tup_updated, tup_deleted, deadlocks, temp_files, temp_bytes"
    " FROM pg_stat_database WHERE datname = current_database()";

static const char checkpoints_sql_10[] =
    "SELECT " PG_OWN "checkpoints_timed AS timed, checkpoints_req AS requested,"
    " checkpoint_write_time AS write_ms, checkpoint_sync_time AS sync_ms,"
    " buffers_checkpoint, buffers_clean, buffers_backend"
    " FROM pg_stat_bgwriter";

/*
 * 17 moved the checkpointer's counters to pg_stat_checkpointer under new
 * names and dropped buffers_backend (backends' writes are in pg_stat_io).
 */
static const char checkpoints_sql_17[] =
    "SELECT " PG_OWN "c.num_timed AS timed, c.num_requested AS requested,"
    " c.write_time AS write_ms, c.sync_time AS sync_ms,"
    " c.buffers_written AS buffers_checkpoint, b.buffers_clean,"
    " NULL::bigint AS buffers_backend"
    " FROM pg_stat_checkpointer c, pg_stat_bgwriter b";

static const char wal_sql_10[] =
    "SELECT " PG_OWN "NULL::bigint AS wal_records, NULL::numeric AS wal_bytes,"
    " NULL::bigint AS wal_sync, NULL::double precision AS wal_sync_time";

static const char wal_sql_14[] =
    "SELECT " PG_OWN "wal_records, wal_bytes, wal_sync, wal_sync_time FROM pg_stat_wal";

/* 18 moved WAL syncs to pg_stat_io. */
static const char wal_sql_18[] =
    "SELECT " PG_OWN "wal_records, wal_bytes, NULL::bigint AS wal_sync,"
    " NULL::double precision AS wal_sync_time FROM pg_stat_wal";

/* Sequential scans: the total, and the tables that read the most rows that way. */
static const char scans_sql[] =
    "SELECT " PG_OWN "relname, seq_scan, seq_tup_read, sum(seq_scan) OVER () AS total"
    " FROM pg_stat_user_tables ORDER BY seq_tup_read DESC NULLS LAST LIMIT 5";

static const char locks_sql[] =
    "SELECT " PG_OWN "count(*) AS not_granted FROM pg_locks WHERE NOT granted";

/* current_setting formats as SHOW does ("128MB", "5min"); missing_ok before 14. */
static const char settings_sql[] =
    "SELECT " PG_OWN "current_setting('shared_buffers') AS shared_buffers,"
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
        if (name != NULL && *name && strcmp(name, pg_state_names[i]) == 0)
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
        const char *v = pg_cell_text(res, 0, pg_setting_names[i]);
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

_Static_assert(sizeof sql_parts / sizeof sql_parts[0] == PG_SAMPLE_PARTS,
               "pg-collector.h counts the parts of a sample");

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

char *
pg_collector_sql(int server_version_num)
{
    static const char sep[] = ";\n";
    size_t len = 1, i;
    char *sql, *p;

    for (i = 0; i < PG_SAMPLE_PARTS; i++)
        len += strlen(part_sql(&sql_parts[i], server_version_num)) + strlen(sep);
    sql = p = xmalloc(len);
    for (i = 0; i < PG_SAMPLE_PARTS; i++)
        p += sprintf(p, "%s%s", part_sql(&sql_parts[i], server_version_num), sep);
    return sql;
}

int
pg_sample_parse(int part, const PGresult *res, struct pg_sample *s)
{
    if (part < 0 || part >= PG_SAMPLE_PARTS || PQresultStatus(res) != PGRES_TUPLES_OK)
        return -1;
    sql_parts[part].parse(res, s);
    return 0;
}
