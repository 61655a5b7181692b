/* Tests for the PostgreSQL collector's pure parts: derive on hand-built samples, SQL by version. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/collector.h"
#include "collectors/postgres/pg-collector.h"

/* A PostgreSQL 15 server, seen by a superuser, with nothing going on. */
static struct pg_sample
base_sample(void)
{
    struct pg_sample s;
    static const char *const settings[PG_NSETTINGS] = {"128MB", "100", "on",  "replica",
                                                       "5min",  "4MB", "1GB", "0"};
    int i;

    memset(&s, 0, sizeof s);
    s.version = 150004;
    s.privileged = 1;
    s.sessions.oldest_query_s = -1;
    s.ckpt.buffers_backend = 0;
    s.wal.have = 1;
    s.wal.have_sync = 1;
    for (i = 0; i < PG_NSETTINGS; i++)
        snprintf(s.settings[i], sizeof s.settings[i], "%s", settings[i]);
    return s;
}

static struct coll_view
derive(const struct pg_sample *prev, const struct pg_sample *cur, double secs)
{
    struct coll_view v;

    memset(&v, 0xa5, sizeof v); /* derive must fill every field */
    postgres_collector_class.derive(prev, cur, secs, &v);
    return v;
}

static const struct coll_row *
row(const struct coll_view *v, const char *section, const char *label)
{
    const struct coll_row *r = coll_row_find(v, section, label);

    if (r == NULL)
        fail_msg("no row %s / %s", section, label);
    return r;
}

static void
test_rates_exact(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    a.db.xact_commit = 1000;
    b.db.xact_commit = 3000;
    a.db.tup_inserted = 100;
    b.db.tup_inserted = 600;
    b.db.tup_updated = 24690; /* 12345/s */
    v = derive(&a, &b, 2.0);
    assert_true(v.server_tps == 1000.0);
    assert_true(row(&v, "database", "transactions/s")->num == 1000.0);
    assert_string_equal(row(&v, "database", "transactions/s")->value, "1.0k/s");
    assert_true(row(&v, "database", "rows inserted/s")->num == 250.0);
    assert_string_equal(row(&v, "database", "rows inserted/s")->value, "250/s");
    assert_string_equal(row(&v, "database", "rows updated/s")->value, "12.3k/s");
    assert_string_equal(row(&v, "database", "rollbacks/s")->value, "0/s");
    assert_int_equal(v.nevents, 0);
    assert_string_equal(v.note, "");
}

/* Rollbacks are transactions too. */
static void
test_tps_counts_rollbacks(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    b.db.xact_commit = 900;
    b.db.xact_rollback = 100;
    v = derive(&a, &b, 4.0);
    assert_true(v.server_tps == 250.0);
    assert_true(row(&v, "database", "rollbacks/s")->num == 25.0);
}

static void
test_cache_hit(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    /* Only the interval counts: 990 hits and 10 reads, whatever came before. */
    a.db.blks_hit = 5000;
    a.db.blks_read = 5000;
    b.db.blks_hit = 5990;
    b.db.blks_read = 5010;
    v = derive(&a, &b, 1.0);
    assert_true(fabs(row(&v, "database", "cache hit")->num - 99.0) < 1e-9);
    assert_string_equal(row(&v, "database", "cache hit")->value, "99.0 %");
    assert_int_equal(row(&v, "database", "cache hit")->level, ROW_GOOD);

    b.db.blks_read = 5500; /* 990 of 1490 */
    v = derive(&a, &b, 1.0);
    assert_string_equal(row(&v, "database", "cache hit")->value, "66.4 %");
    assert_int_equal(row(&v, "database", "cache hit")->level, ROW_WARN);

    v = derive(&a, &a, 1.0); /* no block touched: no ratio */
    assert_true(isnan(row(&v, "database", "cache hit")->num));
    assert_string_equal(row(&v, "database", "cache hit")->value, "-");
}

static void
test_first_sample(void **state)
{
    struct pg_sample b = base_sample();
    struct coll_view v;
    int i;

    (void)state;
    b.db.xact_commit = 123456;
    b.sessions.state[PG_ACTIVE].ours = 3;
    b.ckpt.timed = 7;
    v = derive(NULL, &b, 0);
    assert_true(isnan(v.server_tps));
    assert_true(isnan(row(&v, "database", "transactions/s")->num));
    assert_string_equal(row(&v, "database", "transactions/s")->value, "-");
    assert_string_equal(row(&v, "wal", "bytes/s")->value, "-");
    assert_string_equal(row(&v, "checkpoints", "write time")->value, "-");
    /* Gauges are there from the start. */
    assert_true(row(&v, "sessions", "active")->num == 3);
    assert_string_equal(row(&v, "checkpoints", "timed")->value, "7");
    assert_string_equal(row(&v, "settings", "shared_buffers")->value, "128MB");
    assert_string_equal(row(&v, "sessions", "oldest query")->value, "-");
    assert_int_equal(v.nevents, 0);
    assert_string_equal(v.note, "");
    assert_true(v.nrows > 0 && v.nrows <= COLL_MAX_ROWS);
    for (i = 0; i < v.nrows; i++)
        assert_true(strlen(v.rows[i].label) <= 24);
}

static void
test_zero_interval(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    b.db.xact_commit = 10;
    v = derive(&a, &b, 0);
    assert_true(isnan(v.server_tps));
    assert_string_equal(row(&v, "database", "transactions/s")->value, "-");
}

static void
test_counter_reset(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    a.db.xact_commit = 5000;
    b.db.xact_commit = 100;
    a.db.tup_fetched = 10;
    b.db.tup_fetched = 30;
    v = derive(&a, &b, 1.0);
    assert_true(isnan(v.server_tps));
    assert_string_equal(row(&v, "database", "transactions/s")->value, "-");
    /* Counters that did not go backwards keep their rate. */
    assert_true(row(&v, "database", "rows fetched/s")->num == 20.0);
    assert_int_equal(v.nevents, 1);
    assert_string_equal(v.events[0],
                        "counters went backwards: statistics reset or server restarted");
}

static void
test_checkpoint_event(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    a.ckpt.timed = 3;
    b.ckpt.timed = 4;
    a.ckpt.buffers_checkpoint = 100;
    b.ckpt.buffers_checkpoint = 1334;
    a.ckpt.write_ms = 1000;
    b.ckpt.write_ms = 3345;
    a.ckpt.sync_ms = 10;
    b.ckpt.sync_ms = 22;
    v = derive(&a, &b, 1.0);
    assert_int_equal(v.nevents, 1);
    assert_string_equal(v.events[0], "checkpoint (timed): 1234 buffers, write 2345 ms, sync 12 ms");
    assert_string_equal(row(&v, "checkpoints", "write time")->value, "2.3 s");
    assert_string_equal(row(&v, "checkpoints", "sync time")->value, "12 ms");
    assert_string_equal(row(&v, "checkpoints", "buffers written/s")->value, "1.2k/s");
    assert_int_equal(row(&v, "checkpoints", "requested")->level, ROW_NORMAL);

    b.ckpt.timed = 3;
    b.ckpt.requested = 2;
    v = derive(&a, &b, 1.0);
    assert_int_equal(v.nevents, 2);
    /* 2 a second: a storm, named with the setting that makes room between them */
    assert_string_equal(v.events[0],
                        "checkpoint storm: 2 requested in 1 s (one every 0.5 s), max_wal_size 1GB");
    assert_string_equal(v.events[1],
                        "2 checkpoints (requested): 1234 buffers, write 2345 ms, sync 12 ms");
    assert_int_equal(row(&v, "checkpoints", "requested")->level, ROW_WARN);
    assert_string_equal(row(&v, "checkpoints", "requested")->value, "2 (2 in 1 s)");
    assert_float_equal(v.sig.checkpoints_req_s, 2.0, 1e-9);

    /* the same 2 over 10 s: still closer than 30 s apart, a storm */
    v = derive(&a, &b, 10.0);
    assert_int_equal(v.nevents, 2);
    assert_float_equal(v.sig.checkpoints_req_s, 0.2, 1e-9);
    /* over 80 s: one every 40 s, requested but not a storm */
    v = derive(&a, &b, 80.0);
    assert_int_equal(v.nevents, 1);
    assert_float_equal(v.sig.checkpoints_req_s, 0.025, 1e-9);

    v = derive(&a, &a, 1.0);
    assert_int_equal(v.nevents, 0);
}

/*
 * Issue 47: pg_stat_bgwriter went 25 -> 28 in 20 s, sampled each second;
 * the span with one of them said "1.0/s". The rate is the window's count
 * over its seconds: 3 in 20 s, 0.15/s; after a reset the window restarts.
 */
static void
test_checkpoint_window(void **state)
{
    struct pg_ckpt_ring *r = calloc(1, sizeof *r);
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;
    const int64_t at[21] = {25, 25, 25, 25, 25, 25, 26, 26, 26, 26, 26,
                            26, 26, 27, 27, 27, 27, 27, 27, 28, 28};

    (void)state;
    for (int i = 0; i < 20; i++) {
        a = b;
        b.ckpt.requested = at[i];
        pg_ckpt_window(r, (uint64_t)i * 1000000u, &b.ckpt);
    }
    /* the span 18 -> 19 s holds one requested checkpoint, the window three */
    assert_int_equal(b.ckpt.win_requested, 3);
    assert_float_equal(b.ckpt.win_s, 19.0, 1e-9);
    v = derive(&a, &b, 1.0);
    assert_float_equal(v.sig.checkpoints_req_s, 3.0 / 19, 1e-9);
    assert_string_equal(row(&v, "checkpoints", "requested")->value, "28 (3 in 19 s)");
    assert_string_equal(v.events[0], "checkpoint storm: 3 requested in 19 s (one every 6.3 s), "
                                     "max_wal_size 1GB");
    /* a minute later the window holds only its last minute */
    for (int i = 20; i <= 100; i++)
        pg_ckpt_window(r, (uint64_t)i * 1000000u, &b.ckpt);
    assert_int_equal(b.ckpt.win_requested, 0);
    assert_float_equal(b.ckpt.win_s, 60.0, 1e-9);
    /* a reset (28 -> 1) starts it again rather than going negative */
    b.ckpt.requested = 1;
    pg_ckpt_window(r, 101000000u, &b.ckpt);
    assert_int_equal(b.ckpt.win_requested, 0);
    assert_float_equal(b.ckpt.win_s, 0.0, 1e-9);
    free(r);
}

static void
test_deadlock_level(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    a.db.deadlocks = 5;
    b.db.deadlocks = 5;
    v = derive(&a, &b, 1.0);
    assert_true(row(&v, "database", "deadlocks")->num == 0);
    assert_int_equal(row(&v, "database", "deadlocks")->level, ROW_NORMAL);

    b.db.deadlocks = 7;
    v = derive(&a, &b, 1.0);
    assert_true(row(&v, "database", "deadlocks")->num == 2);
    assert_string_equal(row(&v, "database", "deadlocks")->value, "2");
    assert_int_equal(row(&v, "database", "deadlocks")->level, ROW_BAD);
    assert_int_equal(v.nevents, 1);
    assert_string_equal(v.events[0], "2 deadlocks: a transaction was rolled back");
}

static void
test_temp_bytes(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    b.db.temp_files = 3;
    b.db.temp_bytes = 2 * 1258291; /* 1.2 MiB/s over 2 s */
    v = derive(&a, &b, 2.0);
    assert_string_equal(row(&v, "database", "temp bytes/s")->value, "1.2 MiB/s");
    assert_int_equal(row(&v, "database", "temp bytes/s")->level, ROW_WARN);
    assert_true(row(&v, "database", "temp files")->num == 3);
    assert_int_equal(row(&v, "database", "temp files")->level, ROW_WARN);
}

static void
test_sessions(void **state)
{
    struct pg_sample b = base_sample();
    struct coll_view v;

    (void)state;
    b.sessions.state[PG_ACTIVE].ours = 10;
    b.sessions.state[PG_ACTIVE].others = 2;
    b.sessions.state[PG_IDLE].others = 4;
    b.sessions.state[PG_IDLE_TX].others = 1;
    b.sessions.lock_waiters = 1;
    b.sessions.waiting = 3;
    b.sessions.oldest_query_s = 75;
    b.sessions.nwaits = 2;
    snprintf(b.sessions.waits[0].name, PG_WAIT_LEN, "Lock:transactionid");
    b.sessions.waits[0].count = 2;
    snprintf(b.sessions.waits[1].name, PG_WAIT_LEN, "LWLock:WALWrite");
    b.sessions.waits[1].count = 1;
    b.locks_not_granted = 1;
    v = derive(NULL, &b, 0);
    assert_string_equal(row(&v, "sessions", "client sessions")->value, "17 (10 benchtop)");
    assert_string_equal(row(&v, "sessions", "active")->value, "12 (10 benchtop)");
    assert_string_equal(row(&v, "sessions", "idle")->value, "4");
    assert_int_equal(row(&v, "sessions", "idle")->level, ROW_NORMAL);
    assert_true(row(&v, "sessions", "idle in transaction")->num == 1);
    assert_int_equal(row(&v, "sessions", "idle in transaction")->level, ROW_WARN);
    assert_int_equal(row(&v, "sessions", "idle in xact (aborted)")->level, ROW_NORMAL);
    assert_int_equal(row(&v, "sessions", "waiting on a lock")->level, ROW_WARN);
    assert_string_equal(row(&v, "sessions", "oldest query")->value, "1m 15s");
    assert_int_equal(row(&v, "sessions", "oldest query")->level, ROW_WARN);
    assert_true(row(&v, "waits", "sessions waiting")->num == 3);
    assert_int_equal(row(&v, "waits", "Lock:transactionid")->level, ROW_WARN);
    assert_true(row(&v, "waits", "LWLock:WALWrite")->num == 1);
    assert_int_equal(row(&v, "waits", "LWLock:WALWrite")->level, ROW_NORMAL);
    assert_true(row(&v, "locks", "not granted")->num == 1);
    assert_int_equal(row(&v, "locks", "not granted")->level, ROW_WARN);
    assert_null(coll_row_find(&v, "sessions", "state hidden"));
}

/* Without pg_monitor: the note, and only the rows that depend on others' state dimmed. */
static void
test_hidden_sessions(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    a.privileged = b.privileged = 0;
    snprintf(b.role, sizeof b.role, "%s", "\"Mon Role\""); /* as quote_ident gives it */
    b.sessions.state[PG_HIDDEN].others = 3;
    b.sessions.state[PG_IDLE_TX].others = 1;
    b.db.xact_commit = 50;
    v = derive(&a, &b, 1.0);
    assert_string_equal(v.note, "cannot see other sessions' state, query or wait events: "
                                "GRANT pg_monitor TO \"Mon Role\"");
    assert_true(row(&v, "sessions", "state hidden")->num == 3);
    assert_int_equal(row(&v, "sessions", "state hidden")->level, ROW_DIM);
    assert_int_equal(row(&v, "sessions", "active")->level, ROW_DIM);
    assert_int_equal(row(&v, "sessions", "waiting on a lock")->level, ROW_DIM);
    assert_int_equal(row(&v, "waits", "sessions waiting")->level, ROW_DIM);
    /* What we do see still counts. */
    assert_int_equal(row(&v, "sessions", "idle in transaction")->level, ROW_WARN);
    assert_true(row(&v, "sessions", "client sessions")->num == 4);
    assert_int_equal(row(&v, "sessions", "client sessions")->level, ROW_NORMAL);
    assert_true(row(&v, "database", "transactions/s")->num == 50);
    assert_int_equal(row(&v, "database", "transactions/s")->level, ROW_NORMAL);

    b.sessions.state[PG_HIDDEN].others = 0; /* nobody else connected: nothing to miss */
    v = derive(&a, &b, 1.0);
    assert_string_equal(v.note, "");
    assert_int_equal(row(&v, "sessions", "active")->level, ROW_NORMAL);
}

static void
test_version_rows(void **state)
{
    struct pg_sample b = base_sample();
    struct coll_view v;

    (void)state;
    b.version = 130010;
    b.wal.have = b.wal.have_sync = 0;
    v = derive(NULL, &b, 0);
    assert_string_equal(row(&v, "wal", "pg_stat_wal")->value, "needs PostgreSQL 14+");
    assert_int_equal(row(&v, "wal", "pg_stat_wal")->level, ROW_DIM);
    assert_null(coll_row_find(&v, "wal", "bytes/s"));

    b = base_sample();
    b.version = 170002;
    b.ckpt.buffers_backend = -1;
    v = derive(NULL, &b, 0);
    assert_string_equal(row(&v, "checkpoints", "backend buffers/s")->value, "n/a in 17+");
    assert_int_equal(row(&v, "checkpoints", "backend buffers/s")->level, ROW_DIM);
    assert_string_equal(row(&v, "wal", "avg sync time")->value, "off (track_wal_io_timing)");
    assert_int_equal(row(&v, "wal", "avg sync time")->level, ROW_DIM);
}

static void
test_wal_sync_time(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    a.wal.io_timing = b.wal.io_timing = 1;
    b.wal.syncs = 200;
    b.wal.sync_ms = 100;
    b.wal.bytes = 3 * 1048576;
    v = derive(&a, &b, 1.0);
    assert_string_equal(row(&v, "wal", "avg sync time")->value, "0.5 ms");
    assert_true(fabs(row(&v, "wal", "avg sync time")->num - 0.0005) < 1e-12);
    assert_string_equal(row(&v, "wal", "syncs/s")->value, "200/s");
    assert_string_equal(row(&v, "wal", "bytes/s")->value, "3.0 MiB/s");
}

/* Every row the busiest sample can produce fits. */
static void
test_rows_fit(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;
    int i;

    (void)state;
    a.privileged = b.privileged = 0;
    b.sessions.state[PG_HIDDEN].others = 1;
    b.sessions.nwaits = PG_TOP_WAITS;
    for (i = 0; i < PG_TOP_WAITS; i++) {
        snprintf(b.sessions.waits[i].name, PG_WAIT_LEN, "IPC:SomeVeryLongWaitEventName%d", i);
        b.sessions.waits[i].count = 1;
    }
    v = derive(&a, &b, 1.0);
    assert_true(v.nrows < COLL_MAX_ROWS);
    assert_non_null(coll_row_find(&v, "settings", "work_mem"));
    assert_non_null(coll_row_find(&v, "waits", "IPC:SomeVeryLongWaitEven"));
    for (i = 0; i < v.nrows; i++)
        assert_true(strlen(v.rows[i].label) <= 24);
}

static int
count_of(const char *text, const char *needle)
{
    int n = 0;

    for (; (text = strstr(text, needle)) != NULL; text++)
        n++;
    return n;
}

static void
test_sql_by_version(void **state)
{
    char *v12 = pg_collector_sql(120000), *v14 = pg_collector_sql(140000);
    char *v15 = pg_collector_sql(150000), *v17 = pg_collector_sql(170000);

    (void)state;
    /* Eight statements each, so results map to parts the same way everywhere. */
    assert_int_equal(count_of(v12, ";\n"), 8);
    assert_int_equal(count_of(v17, ";\n"), 8);

    assert_non_null(strstr(v12, "checkpoints_timed AS timed"));
    assert_non_null(strstr(v12, "buffers_backend"));
    assert_null(strstr(v12, "pg_stat_checkpointer"));
    assert_null(strstr(v12, "FROM pg_stat_wal"));
    assert_non_null(strstr(v12, "NULL::bigint AS wal_records"));

    assert_non_null(strstr(v14, "FROM pg_stat_wal"));
    assert_non_null(strstr(v14, "wal_sync_time"));
    assert_non_null(strstr(v14, "checkpoints_timed AS timed"));
    assert_string_equal(v14, v15);

    assert_non_null(strstr(v17, "FROM pg_stat_checkpointer c, pg_stat_bgwriter b"));
    assert_non_null(strstr(v17, "num_timed AS timed"));
    assert_non_null(strstr(v17, "num_requested AS requested"));
    assert_non_null(strstr(v17, "buffers_written AS buffers_checkpoint"));
    assert_non_null(strstr(v17, "NULL::bigint AS buffers_backend"));
    assert_null(strstr(v17, "checkpoints_timed"));
    assert_non_null(strstr(v17, "FROM pg_stat_wal"));

    /* Every version reads the same sessions, database, locks and settings. */
    assert_non_null(strstr(v12, "backend_type = 'client backend'"));
    assert_non_null(strstr(v17, "pid <> pg_backend_pid()"));
    assert_non_null(strstr(v12, "datname = current_database()"));
    assert_non_null(strstr(v17, "FROM pg_locks WHERE NOT granted"));
    assert_non_null(strstr(v15, "current_setting('work_mem')"));
    free(v12);
    free(v14);
    free(v15);
    free(v17);
}

/*
 * Glances: benchtop's sessions on CPU, reading data files and idle;
 * reads apart from the commit's I/O; lock waiters by their chain's root;
 * benchtop's waiters on other sessions' statements as a share.
 */
static void
test_glance_signals(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_glances *p = &b.probed;
    struct coll_view v;

    (void)state;
    /* two glances, each: 8 of ours (2 on CPU, 1 reading, 1 on the WAL, 2 waiting on a lock, */
    /* 2 idle), 2 others (1 reading) */
    p->n = 2;
    p->own_known = 1;
    p->roots = 2;
    p->all = 20;
    p->own = 16;
    p->active = 14;
    p->own_active = 12;
    p->on_cpu = p->own_cpu = 4;
    p->commit_io = 6;
    p->own_commit_io = 4;
    p->io = 4;
    p->own_io = 2;
    p->lock = p->own_lock = 4;
    p->own_idle = 4;
    p->root_commit = 3;
    p->root_client = 1;
    b.stall_own = 4;
    snprintf(b.stall_what, sizeof b.stall_what, "77 (9 s): VACUUM FULL t");
    v = derive(&a, &b, 1.0);
    assert_float_equal(v.sig.own_on_cpu, 2, 1e-9);
    assert_float_equal(v.sig.own_io_wait, 1, 1e-9);
    assert_float_equal(v.sig.own_idle, 2, 1e-9);
    assert_float_equal(v.sig.io_wait, 2, 1e-9);
    assert_float_equal(v.sig.commit_wait, 1, 1e-9); /* the WAL's only */
    assert_float_equal(v.sig.lock_root_commit, 1.5, 1e-9);
    assert_float_equal(v.sig.lock_root_client, 0.5, 1e-9);
    assert_float_equal(v.sig.lock_root_other, 0, 1e-9);
    assert_float_equal(v.sig.other_stall_share, 0.25, 1e-9);
    assert_string_equal(v.sig.other_stall_what, "77 (9 s): VACUUM FULL t");
    assert_int_equal(pg_first_blocker("{4321,12}"), 4321);
    assert_int_equal(pg_first_blocker("{}"), 0);
    assert_int_equal(pg_first_blocker(NULL), 0);
}

/* Blocks read from disk per second and the shared buffers' hit ratio, over the interval. */
static void
test_buffer_signals(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    a.db.blks_hit = 1000;
    a.db.blks_read = 100;
    b.db.blks_hit = 1000 + 9000;
    b.db.blks_read = 100 + 1000;
    v = derive(&a, &b, 2.0);
    assert_float_equal(v.sig.disk_reads_s, 500, 1e-9);
    assert_float_equal(v.sig.hit_ratio, 0.9, 1e-9);
    v = derive(NULL, &b, 2.0);
    assert_true(isnan(v.sig.hit_ratio));
}

/*
 * The commit's advice: synchronous_commit off; a commit_delay in force is
 * named first (field trial: 20000 us at 8 clients, 0 gave x3.1); none
 * when synchronous_commit is off already.
 */
static void
test_commit_advice(void **state)
{
    struct pg_sample a = base_sample(), b = base_sample();
    struct coll_view v;

    (void)state;
    v = derive(&a, &b, 1.0);
    assert_string_equal(v.sig.commit_advice, "synchronous_commit = off");
    assert_string_equal(v.sig.commit_try, "synchronous_commit=off");
    snprintf(b.settings[7], sizeof b.settings[7], "20000");
    v = derive(&a, &b, 1.0);
    assert_string_equal(v.sig.commit_advice, "commit_delay = 0 (it is 20000)");
    assert_string_equal(v.sig.commit_try, "commit_delay=0");
    snprintf(b.settings[7], sizeof b.settings[7], "0");
    snprintf(b.settings[2], sizeof b.settings[2], "off");
    v = derive(&a, &b, 1.0);
    assert_string_equal(v.sig.commit_advice, "");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates_exact),      cmocka_unit_test(test_tps_counts_rollbacks),
        cmocka_unit_test(test_cache_hit),        cmocka_unit_test(test_first_sample),
        cmocka_unit_test(test_zero_interval),    cmocka_unit_test(test_counter_reset),
        cmocka_unit_test(test_checkpoint_event), cmocka_unit_test(test_checkpoint_window),
        cmocka_unit_test(test_deadlock_level),   cmocka_unit_test(test_temp_bytes),
        cmocka_unit_test(test_sessions),         cmocka_unit_test(test_hidden_sessions),
        cmocka_unit_test(test_version_rows),     cmocka_unit_test(test_wal_sync_time),
        cmocka_unit_test(test_rows_fit),         cmocka_unit_test(test_sql_by_version),
        cmocka_unit_test(test_glance_signals),   cmocka_unit_test(test_buffer_signals),
        cmocka_unit_test(test_commit_advice),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
