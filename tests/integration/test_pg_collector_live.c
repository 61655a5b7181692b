/*
 * The PostgreSQL collector against the throwaway server: its counts match
 * what the test did on other connections, and its SQL runs on this server
 * for every version branch.
 *
 * The load runs in its own database, read by a collector connected to it;
 * the test's own bookkeeping connects to "postgres", so that it never adds
 * to the counters under test.
 */
#include "itest.h"

#include "engine/collector.h"
#include "collectors/postgres/pg-collector.h"
#include "base/util.h"

#define DB "bt_coll"
#define NOMON "bt_nomon"

enum { N = 2000, POLL_MS = 50, POLL_TRIES = 200, SAMPLES = 10 };

static PGconn *admin; /* to the "postgres" database */

static int
setup(void **state)
{
    admin = itest_pg("postgres");
    itest_exec(admin, "SET client_min_messages = warning");
    itest_exec(admin, "DROP DATABASE IF EXISTS " DB);
    itest_exec(admin, "CREATE DATABASE " DB);
    itest_exec(admin, "DROP ROLE IF EXISTS " NOMON);
    itest_exec(admin, "CREATE ROLE " NOMON " LOGIN");
    {
        PGconn *c = itest_pg(DB);
        /* No autovacuum work in the database whose transactions we count. */
        itest_exec(c, "CREATE TABLE t (x int) WITH (autovacuum_enabled = off)");
        itest_exec(c, "GRANT SELECT ON t TO " NOMON);
        PQfinish(c);
    }
    return 0;
}

static int
teardown(void **state)
{
    PQfinish(admin);
    return 0;
}

/* A connection to dbname as user (NULL: the target's) with this application_name. */
static PGconn *
connect_as(const char *dbname, const char *user, const char *app)
{
    const char *keys[] = {"dbname", "dbname", "application_name", user ? "user" : NULL, NULL};
    const char *vals[] = {itest_env("BENCHTOP_PG_TARGET"), dbname, app, user, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);

    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("cannot connect to %s: %s", dbname, PQerrorMessage(c));
    return c;
}

/* The target of DB with the user replaced: postgres://USER@127.0.0.1:PORT/DB. */
static char *
target_as(const char *user)
{
    static char buf[512];
    const char *t = itest_target(DB);
    const char *at = strchr(t, '@');

    snprintf(buf, sizeof buf, "postgres://%s%s", user, at);
    return buf;
}

static void *
open_collector(const char *target)
{
    char err[BT_ERRLEN] = "";
    void *c = postgres_collector_class.open(itest_parsed(target), err);

    if (c == NULL)
        fail_msg("open %s: %s", target, err);
    return c;
}

static void
take(void *c, struct pg_sample *s, uint64_t *t_us)
{
    char err[BT_ERRLEN] = "";

    memset(s, 0, sizeof *s);
    if (postgres_collector_class.sample(c, s, err) < 0)
        fail_msg("sample: %s", err);
    *t_us = now_us();
}

/* A second sample after a, and the view of the two; secs gets the interval. */
static struct coll_view
view_since(void *c, const struct pg_sample *a, uint64_t ta, double *secs)
{
    struct pg_sample b;
    struct coll_view v;
    uint64_t tb;

    take(c, &b, &tb);
    *secs = (double)(tb - ta) / 1e6;
    postgres_collector_class.derive(a, &b, *secs, &v);
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

/*
 * Backends report their counters at most once a second; 15 can be told to
 * report at the end of the next statement. Older servers report when the
 * session ends, so there *c is closed and set to NULL.
 */
static void
flush_stats(PGconn **c)
{
    long long before, now;
    int i;

    if (PQserverVersion(*c) >= 150000) {
        itest_exec(*c, "SELECT pg_stat_force_next_flush()");
        return;
    }
    PQfinish(*c);
    *c = NULL;
    before = -1;
    for (i = 0; i < POLL_TRIES; i++) {
        itest_sleep_ms(POLL_MS * 4);
        now = itest_scalar(admin, "SELECT xact_commit FROM pg_stat_database"
                                  " WHERE datname = '" DB "'");
        if (now == before)
            return;
        before = now;
    }
}

static void
test_open_failure(void **state)
{
    char err[BT_ERRLEN] = "";
    void *c = postgres_collector_class.open(
        itest_parsed("postgres://postgres:hunter2@127.0.0.1:1/x"), err);

    assert_null(c);
    fprintf(stderr, "  %s\n", err);
    assert_non_null(strstr(err, "Connection refused"));
    assert_null(strstr(err, "hunter2"));
}

/* N one-statement transactions on another connection show up as N commits. */
static void
test_commits_add_up(void **state)
{
    void *c = open_collector(itest_target(DB));
    PGconn *load = connect_as(DB, NULL, "bt-load");
    struct pg_sample a;
    struct coll_view v;
    uint64_t ta;
    double secs, commits;
    int i;

    take(c, &a, &ta);
    for (i = 0; i < N; i++)
        itest_exec(load, "SELECT 1");
    flush_stats(&load);
    v = view_since(c, &a, ta, &secs);
    commits = v.server_tps * secs;
    fprintf(stderr, "  %d transactions, the collector saw %.1f over %.3f s\n", N, commits, secs);
    assert_true(fabs(commits - N) <= N / 100.0);
    assert_true(row(&v, "database", "transactions/s")->num == v.server_tps);
    assert_string_equal(v.note, "");
    PQfinish(load); /* NULL is fine */
    postgres_collector_class.close(c);
}

/* A session left in a transaction, from benchtop's own application_name. */
static void
test_idle_in_transaction(void **state)
{
    void *c = open_collector(itest_target(DB));
    PGconn *x = connect_as(DB, NULL, "benchtop");
    const struct coll_row *r;
    struct pg_sample a;
    struct coll_view v;
    uint64_t ta;
    double secs;

    take(c, &a, &ta);
    itest_exec(x, "BEGIN");
    itest_exec(x, "SELECT 1");
    v = view_since(c, &a, ta, &secs);
    r = row(&v, "sessions", "idle in transaction");
    fprintf(stderr, "  idle in transaction: %s\n", r->value);
    assert_true(r->num == 1);
    assert_string_equal(r->value, "1 (1 benchtop)");
    assert_int_equal(r->level, ROW_WARN);
    assert_true(row(&v, "sessions", "client sessions")->num >= 2); /* x and admin */
    itest_exec(x, "ROLLBACK");

    take(c, &a, &ta);
    v = view_since(c, &a, ta, &secs);
    assert_true(row(&v, "sessions", "idle in transaction")->num == 0);
    assert_int_equal(row(&v, "sessions", "idle in transaction")->level, ROW_NORMAL);
    PQfinish(x);
    postgres_collector_class.close(c);
}

/* Waits until the server has n lock requests waiting; fails after ~10 s. */
static void
wait_for_waiters(int n)
{
    int i;

    for (i = 0; i < POLL_TRIES; i++) {
        if (itest_scalar(admin, "SELECT count(*) FROM pg_locks WHERE NOT granted") == n)
            return;
        itest_sleep_ms(POLL_MS);
    }
    fail_msg("no lock waiter after %d ms", POLL_TRIES * POLL_MS);
}

static void
test_lock_waiter(void **state)
{
    void *c = open_collector(itest_target(DB));
    PGconn *holder = connect_as(DB, NULL, "bt-holder");
    PGconn *waiter = connect_as(DB, NULL, "bt-waiter");
    const struct coll_row *r;
    struct pg_sample a;
    struct coll_view v;
    PGresult *res;
    uint64_t ta;
    double secs;

    itest_exec(holder, "BEGIN");
    itest_exec(holder, "LOCK TABLE t IN ACCESS EXCLUSIVE MODE");
    assert_int_equal(PQsendQuery(waiter, "SELECT count(*) FROM t"), 1);
    wait_for_waiters(1);
    take(c, &a, &ta);
    v = view_since(c, &a, ta, &secs);

    r = row(&v, "locks", "not granted");
    fprintf(stderr, "  locks not granted: %s\n", r->value);
    assert_true(r->num == 1);
    assert_int_equal(r->level, ROW_WARN);
    r = row(&v, "sessions", "waiting on a lock");
    assert_true(r->num == 1);
    assert_int_equal(r->level, ROW_WARN);
    r = row(&v, "waits", "Lock:relation");
    assert_true(r->num == 1);
    assert_int_equal(r->level, ROW_WARN);
    assert_true(row(&v, "sessions", "idle in transaction")->num == 1); /* the holder */
    assert_true(row(&v, "sessions", "oldest query")->num >= 0);

    itest_exec(holder, "ROLLBACK");
    while ((res = PQgetResult(waiter)) != NULL) {
        assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
        PQclear(res);
    }
    PQfinish(waiter);
    PQfinish(holder);
    postgres_collector_class.close(c);
}

/* Without pg_monitor others' sessions are hidden: a note, and the rest still works. */
static void
test_without_pg_monitor(void **state)
{
    void *c = open_collector(target_as(NOMON));
    PGconn *other = connect_as(DB, NULL, "bt-other");
    const struct coll_row *r;
    struct pg_sample a;
    struct coll_view v;
    uint64_t ta;
    double secs;
    int i;

    take(c, &a, &ta);
    assert_int_equal(a.privileged, 0);
    for (i = 0; i < 100; i++)
        itest_exec(other, "SELECT 1");
    itest_exec(other, "BEGIN");
    itest_exec(other, "SELECT 1"); /* idle in transaction, but we cannot see that */
    v = view_since(c, &a, ta, &secs);

    fprintf(stderr, "  note: %s\n", v.note);
    assert_string_equal(v.note, "cannot see other sessions' state, query or wait events: "
                                "GRANT pg_monitor TO " NOMON);
    {
        static struct coll_sessions list;
        char err[BT_ERRLEN];

        assert_int_equal(postgres_collector_class.sessions(c, &list, err), 0);
        assert_string_equal(list.note, "other users' queries hidden: GRANT pg_monitor TO " NOMON);
    }
    r = row(&v, "sessions", "state hidden");
    assert_true(r->num >= 1); /* other and admin */
    assert_int_equal(r->level, ROW_DIM);
    assert_true(row(&v, "sessions", "client sessions")->num >= 2);
    assert_true(row(&v, "sessions", "idle in transaction")->num == 0);
    assert_int_equal(row(&v, "sessions", "idle in transaction")->level, ROW_DIM);
    /* Counters are not per user. */
    r = row(&v, "database", "transactions/s");
    assert_false(isnan(r->num));
    assert_int_equal(r->level, ROW_NORMAL);
    assert_int_not_equal(row(&v, "database", "cache hit")->level, ROW_DIM);
    assert_false(isnan(row(&v, "wal", "bytes/s")->num));
    assert_true(row(&v, "settings", "max_connections")->value[0] != '-');
    itest_exec(other, "ROLLBACK");
    PQfinish(other);
    postgres_collector_class.close(c);
}

/*
 * DB's commit count once every session that touched it has gone and
 * reported: a backend reports its last counters while exiting, after it
 * left pg_stat_activity, so wait for the count to stay put too.
 */
static long long
settled_commits(void)
{
    long long before = -1, now;
    int i, same = 0;

    for (i = 0; i < POLL_TRIES && same < 3; i++) {
        itest_sleep_ms(POLL_MS * 2);
        if (itest_scalar(admin, "SELECT count(*) FROM pg_stat_activity WHERE datname = '" DB "'") >
            0)
            continue;
        now = itest_scalar(admin,
                           "SELECT xact_commit FROM pg_stat_database WHERE datname = '" DB "'");
        same = now == before ? same + 1 : 0;
        before = now;
    }
    return before;
}

/* The commits of opening a collector, taking `samples` samples and closing it. */
static long long
collector_commits(int samples)
{
    long long before = settled_commits();
    void *c = open_collector(itest_target(DB));
    struct pg_sample s;
    uint64_t t;
    int i;

    for (i = 0; i < samples; i++)
        take(c, &s, &t);
    postgres_collector_class.close(c);
    return settled_commits() - before;
}

/*
 * A sample is one implicit transaction however many statements it has, so
 * the collector barely shows in the server's transactions/s. An autovacuum
 * worker visiting DB meanwhile may add a commit or two.
 */
static void
test_one_commit_per_sample(void **state)
{
    long long none = collector_commits(0), some = collector_commits(SAMPLES);

    fprintf(stderr, "  open+close: %lld commits; with %d samples: %lld\n", none, SAMPLES, some);
    assert_in_range(some - none, SAMPLES, SAMPLES * 3 / 2); /* two a sample would be 20 */
}

/*
 * Glances at the sessions between samples run in the transaction the next
 * sample commits: still one commit per sample, however many glances.
 */
static void
test_glances_add_no_commit(void **state)
{
    long long before = settled_commits();
    void *c = open_collector(itest_target(DB));
    struct pg_sample s;
    char err[BT_ERRLEN];
    uint64_t t;
    int i, j;

    for (i = 0; i < SAMPLES; i++) {
        for (j = 0; j < 5; j++)
            assert_int_equal(postgres_collector_class.probe(c, err), 0);
        take(c, &s, &t);
        assert_int_equal(s.probed.n, 5);
    }
    postgres_collector_class.close(c);
    fprintf(stderr, "  %d samples with 5 glances each: %lld commits\n", SAMPLES,
            settled_commits() - before);
    /* autovacuum's visits add a few (14 once, in CI); a commit a glance would add 50 */
    assert_in_range(settled_commits() - before, SAMPLES, SAMPLES * 3 / 2);
}

/*
 * The top statements, read before each sample, run in the sample's
 * transaction: still one commit per sample, with pg_stat_statements there
 * (its savepoint) and without it (the note).
 */
static void
test_statements_add_no_commit(void **state)
{
    static const char *const ext[] = {"DROP EXTENSION IF EXISTS pg_stat_statements",
                                      "CREATE EXTENSION pg_stat_statements"};
    struct coll_statements *l = calloc(1, sizeof *l);
    struct pg_sample s;
    char err[BT_ERRLEN];
    uint64_t t;

    for (int with = 0; with < 3; with++) {
        PGconn *db = itest_pg(DB);
        long long before;
        void *c;

        itest_exec(db, with < 2 ? ext[with] : "DROP EXTENSION pg_stat_statements");
        PQfinish(db); /* settled_commits waits for DB to have no session */
        if (with == 2)
            break;
        before = settled_commits();
        c = open_collector(itest_target(DB));
        for (int i = 0; i < SAMPLES; i++) {
            memset(l, 0, sizeof *l);
            assert_int_equal(postgres_collector_class.statements(c, l, err), 0);
            assert_true(with ? l->n > 0 && l->note[0] == '\0' : l->note[0] != '\0');
            take(c, &s, &t);
        }
        postgres_collector_class.close(c);
        fprintf(stderr, "  %d samples with the statements (%s): %lld commits\n", SAMPLES,
                with ? "installed" : "missing", settled_commits() - before);
        /*
         * one commit per sample; the database's other commits (autovacuum,
         * the harness) add a few (14 seen once); a commit per sample more
         * would be twice SAMPLES
         */
        assert_in_range(settled_commits() - before, SAMPLES, SAMPLES * 3 / 2);
    }
    free(l);
}

/* Glances count lock waiters, and tell benchtop's own (application_name) from others'. */
static void
test_glances_whose_waits(void **state)
{
    void *c = open_collector(itest_target(DB));
    PGconn *holder = connect_as(DB, NULL, "billing-batch");
    PGconn *other = connect_as(DB, NULL, "bt-other");
    PGconn *ours = connect_as(DB, NULL, "benchtop");
    PGconn *waiters[2] = {other, ours};
    /* issue 47: its whole statement (cut at 39 bytes it read "SET bbalance = ;") */
    static const char lock_sql[] =
        "LOCK TABLE t IN ACCESS EXCLUSIVE MODE /* billing run 2026-12-07 */";
    char err[BT_ERRLEN];
    struct pg_sample a;
    struct coll_view v;
    PGresult *res;
    uint64_t ta;
    double secs;
    int i;

    itest_exec(holder, "BEGIN");
    itest_exec(holder, lock_sql);
    assert_int_equal(PQsendQuery(other, "SELECT count(*) FROM t"), 1);
    assert_int_equal(PQsendQuery(ours, "SELECT count(*) FROM t"), 1);
    wait_for_waiters(2);
    take(c, &a, &ta);
    for (i = 0; i < 6; i++)
        assert_int_equal(postgres_collector_class.probe(c, err), 0);
    v = view_since(c, &a, ta, &secs);
    fprintf(stderr, "  glances %.0f: lock waits %.1f, benchtop's %.1f of %.1f active\n",
            v.sig.samples, v.sig.lock_wait, v.sig.own_lock_wait, v.sig.own_active);
    assert_true(v.sig.samples == 6);
    assert_true(v.sig.lock_wait == 2);
    assert_true(v.sig.own_lock_wait == 1 && v.sig.own_active == 1);
    /*
     * the holder, another application's, is idle in its transaction: the
     * other application's waiter waits for that client; benchtop's waiter
     * is stalled by it, all of the time, and it is named
     */
    assert_true(v.sig.lock_root_client == 1 && v.sig.lock_root_other == 1);
    assert_true(v.sig.lock_root_commit == 0);
    assert_true(v.sig.other_stall_share == 1);
    assert_non_null(strstr(v.sig.other_stall_what, " billing-batch (idle in transaction "));
    assert_string_equal(v.sig.other_stall_what + v.sig.other_stall_sql_at, lock_sql);
    coll_row_states(&v);
    assert_non_null(strchr(row(&v, "sessions", "time (sampled)")->value, 'L')); /* the bar */
    itest_exec(holder, "ROLLBACK");
    for (i = 0; i < 2; i++) {
        while ((res = PQgetResult(waiters[i])) != NULL)
            PQclear(res);
        PQfinish(waiters[i]);
    }
    PQfinish(holder);
    postgres_collector_class.close(c);
}

/*
 * Another application's statement holds the table benchtop's session
 * wants, and a second of benchtop's sessions queues behind the first: the
 * chains' root is that statement (other), it stalls all of benchtop's
 * waiting time, and it is named. An idle session of benchtop's is idle.
 */
static void
test_glances_chain_to_another_statement(void **state)
{
    void *c = open_collector(itest_target(DB));
    PGconn *holder = connect_as(DB, NULL, "bt-holder");
    PGconn *ours[3] = {connect_as(DB, NULL, "benchtop"), connect_as(DB, NULL, "benchtop"),
                       connect_as(DB, NULL, "benchtop")};
    char err[BT_ERRLEN];
    struct pg_sample a;
    struct coll_view v;
    PGresult *res;
    uint64_t ta, t0;
    double secs;
    int i;

    take(c, &a, &ta); /* glances without a lock waiter, for the cost's comparison */
    t0 = now_us();
    for (i = 0; i < 4; i++)
        assert_int_equal(postgres_collector_class.probe(c, err), 0);
    fprintf(stderr, "  a glance without waiters: %.2f ms\n", (double)(now_us() - t0) / 4000.0);
    itest_exec(holder, "BEGIN");
    itest_exec(holder, "LOCK TABLE t IN ACCESS SHARE MODE");
    assert_int_equal(PQsendQuery(holder, "SELECT pg_sleep(30)"), 1);
    assert_int_equal(PQsendQuery(ours[0], "BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE"), 1);
    wait_for_waiters(1);
    assert_int_equal(PQsendQuery(ours[1], "SELECT count(*) FROM t"), 1);
    wait_for_waiters(2);
    take(c, &a, &ta);
    t0 = now_us();
    for (i = 0; i < 4; i++)
        assert_int_equal(postgres_collector_class.probe(c, err), 0);
    fprintf(stderr, "  a glance that follows the chains: %.2f ms\n",
            (double)(now_us() - t0) / 4000.0);
    v = view_since(c, &a, ta, &secs);
    fprintf(stderr, "  roots: other %.1f, client %.1f, commit %.1f; stalled %.2f by %s\n",
            v.sig.lock_root_other, v.sig.lock_root_client, v.sig.lock_root_commit,
            v.sig.other_stall_share, v.sig.other_stall_what);
    assert_true(v.sig.lock_root_other == 2);
    assert_true(v.sig.lock_root_client == 0 && v.sig.lock_root_commit == 0);
    assert_true(fabs(v.sig.other_stall_share - 2.0 / 3) < 1e-9); /* 2 of benchtop's 3 */
    assert_non_null(strstr(v.sig.other_stall_what, "SELECT pg_sleep(30)"));
    assert_true(v.sig.own_idle == 1);
    assert_true(v.sig.own_on_cpu == 0 && v.sig.own_io_wait == 0);
    PQrequestCancel(holder);
    while ((res = PQgetResult(holder)) != NULL)
        PQclear(res);
    itest_exec(holder, "ROLLBACK");
    for (i = 0; i < 3; i++) {
        while ((res = PQgetResult(ours[i])) != NULL)
            PQclear(res);
        PQfinish(ours[i]);
    }
    PQfinish(holder);
    postgres_collector_class.close(c);
}

/* Three CHECKPOINTs between two samples: requested ones, per second, and a storm named. */
static void
test_requested_checkpoints(void **state)
{
    void *c = open_collector(itest_target(DB));
    struct pg_sample a;
    struct coll_view v;
    uint64_t ta;
    double secs;
    int storm = 0;

    take(c, &a, &ta);
    for (int i = 0; i < 3; i++)
        itest_exec(admin, "CHECKPOINT");
    /*
     * The checkpointer's counter can lag the CHECKPOINT that returned
     * (CI saw 2 of 3): it reports its statistics after it answers, later
     * still when other programs hold the CPUs. Sampled again until it shows
     * the third, up to 30 s: the count is exact once it is there.
     */
    for (int tries = 0; tries < 300; tries++) {
        v = view_since(c, &a, ta, &secs);
        if (v.sig.checkpoints_req_s * secs > 2.5)
            break;
        usleep(100000);
    }
    for (int i = 0; i < v.nevents; i++)
        storm |= strstr(v.events[i], "checkpoint storm") != NULL &&
                 strstr(v.events[i], "max_wal_size") != NULL;
    fprintf(stderr, "  3 CHECKPOINTs in %.2f s: %.2f/s requested; storm event %d\n", secs,
            v.sig.checkpoints_req_s, storm);
    /* the rate is the collector's window (from the first sample) over its own clock */
    assert_true(fabs(v.sig.checkpoints_req_s * secs / 3 - 1) < 0.1);
    assert_int_equal(storm, 1); /* 3 within seconds: closer than checkpoint_warning's 30 s */
    assert_non_null(strstr(row(&v, "checkpoints", "requested")->value, "(3 in "));
    assert_int_equal(row(&v, "checkpoints", "requested")->level, ROW_WARN);
    assert_string_not_equal(row(&v, "settings", "max_wal_size")->value, "-");
    postgres_collector_class.close(c);
}

/* The sample matches what SHOW and the server say; the session is named as the collector. */
static void
test_settings_and_version(void **state)
{
    char target[600];
    void *c;
    struct pg_sample a;
    struct coll_view v;
    uint64_t ta;
    char show[64];
    PGresult *res = PQexec(admin, "SHOW shared_buffers");

    snprintf(show, sizeof show, "%s", PQgetvalue(res, 0, 0));
    PQclear(res);
    /* Even when the target names one, so that it never counts as benchtop's load. */
    snprintf(target, sizeof target, "%s?application_name=benchtop", itest_target(DB));
    c = open_collector(target);
    assert_int_equal(itest_scalar(admin, "SELECT count(*) FROM pg_stat_activity"
                                         " WHERE application_name = 'benchtop-collector'"),
                     1);
    take(c, &a, &ta);
    assert_int_equal(a.version, PQserverVersion(admin));
    assert_int_equal(a.privileged, 1);
    postgres_collector_class.derive(NULL, &a, 0, &v);
    assert_string_equal(row(&v, "settings", "shared_buffers")->value, show);
    assert_string_equal(row(&v, "settings", "max_connections")->value, "200");
    assert_string_equal(row(&v, "database", "transactions/s")->value, "-");
    postgres_collector_class.close(c);
}

/* Runs every statement of sql on c; fails on the first error. Returns the number of results. */
static int
run_all(PGconn *c, const char *sql)
{
    PGresult *res;
    int n = 0;

    assert_int_equal(PQsendQuery(c, sql), 1);
    while ((res = PQgetResult(c)) != NULL) {
        if (PQresultStatus(res) != PGRES_TUPLES_OK)
            fail_msg("statement %d: %s", n + 1, PQresultErrorMessage(res));
        PQclear(res);
        n++;
    }
    return n;
}

/*
 * Only 15 runs here, so the 17 branch runs against a stand-in for
 * pg_stat_checkpointer with the columns PostgreSQL 17 documents; found
 * through search_path because pg_catalog has no such view before 17.
 */
static void
test_sql_every_branch(void **state)
{
    PGconn *c = itest_pg(DB);
    static const int versions[] = {120000, 140000, 150000, 170000, 180000};
    size_t i;

    itest_exec(c, "CREATE SCHEMA IF NOT EXISTS bt_pg17");
    itest_exec(c, "CREATE OR REPLACE VIEW bt_pg17.pg_stat_checkpointer AS SELECT"
                  " 1::bigint AS num_timed, 2::bigint AS num_requested,"
                  " 0::bigint AS restartpoints_timed, 0::bigint AS restartpoints_req,"
                  " 0::bigint AS restartpoints_done, 3.5::double precision AS write_time,"
                  " 0.5::double precision AS sync_time, 42::bigint AS buffers_written,"
                  " now() AS stats_reset");
    itest_exec(c, "SET search_path = bt_pg17, public");
    for (i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        char *sql = pg_collector_sql(versions[i]);
        assert_int_equal(run_all(c, sql), 8);
        free(sql);
    }
    PQfinish(c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_failure),
        cmocka_unit_test(test_commits_add_up),
        cmocka_unit_test(test_one_commit_per_sample),
        cmocka_unit_test(test_idle_in_transaction),
        cmocka_unit_test(test_lock_waiter),
        cmocka_unit_test(test_without_pg_monitor),
        cmocka_unit_test(test_settings_and_version),
        cmocka_unit_test(test_sql_every_branch),
        cmocka_unit_test(test_glances_add_no_commit),
        cmocka_unit_test(test_statements_add_no_commit),
        cmocka_unit_test(test_glances_whose_waits),
        cmocka_unit_test(test_glances_chain_to_another_statement),
        cmocka_unit_test(test_requested_checkpoints),
    };

    if (getenv("ITEST_FILTER") != NULL) /* e.g. ITEST_FILTER='test_glances_*' */

        cmocka_set_test_filter(getenv("ITEST_FILTER"));

    return cmocka_run_group_tests(tests, setup, teardown);
}
