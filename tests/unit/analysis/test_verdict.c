/*
 * The verdict rules on hand-made inputs: each limit is named when its
 * signals dominate, a new verdict needs two intervals in a row
 * (hysteresis), close scores give "mixed", and no load gives none.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/collector.h"
#include "analysis/verdict.h"

/* verdict_check of two steps whose host split is unknown. */
static enum verdict_check
check(enum verdict_kind k, int clo, double tlo, int chi, double thi, int hi_locked)
{
    struct verdict_point lo, hi;

    verdict_point_init(&lo, k, clo, tlo, 0);
    verdict_point_init(&hi, VK_NONE, chi, thi, hi_locked);
    return verdict_check(&lo, &hi);
}

/* A healthy closed loop: nothing busy, nothing waiting, loopback round trips. */
static struct verdict_input
calm(void)
{
    struct verdict_input in;
    struct coll_view v;

    memset(&in, 0, sizeof(in));
    coll_view_reset(&v);
    in.load = 1;
    in.tps = 500;
    in.lat_mean_ms = 2.0;
    in.connect_share = NAN;
    in.worker_cpu_max = 20;
    in.worker_wait_max = 0;
    in.own_cpu_pct = 25;
    in.host_busy_pct = 30;
    in.cores = 4;
    in.clients = 1;
    in.connected = 1;
    in.server_host_pct = NAN;
    in.gain_per_doubling = NAN;
    in.ops_per_txn = 1;
    in.have_server = 1;
    in.sig = v.sig;
    in.sig.sessions = 1;
    /* the one session sampled busy 30% of the time: the rest it waits for the client */
    in.sig.active = 0.3;
    in.sig.on_cpu = 0.3;
    in.sig.lock_wait = 0;
    in.sig.lwlock_wait = 0;
    in.sig.io_wait = 0;
    in.sig.commit_wait = 0;
    in.sig.rtt_ms = 0.1;
    return in;
}

/*
 * Steps n intervals with the same input; returns the last verdict. A
 * closed loop's clients are in flight all the time unless the input says
 * otherwise (the engine measures it: flight_s).
 */
static struct verdict
run(struct verdict_state *st, const struct verdict_input *in, int n)
{
    struct verdict_input x = *in;
    struct verdict v;
    int i;

    if (x.connected == 1 && x.clients > 1)
        x.connected = x.clients; /* calm()'s one client, when a test set more */
    if (!(x.flight_s > 0) && x.rate <= 0)
        x.flight_s = x.clients * (isnan(x.connect_share) ? 1 : 1 - x.connect_share);
    for (i = 0; i < n; i++)
        verdict_step(st, &x, &v);
    if (getenv("VDEBUG"))
        fprintf(stderr, "  -> %s: %s\n", verdict_key(v.kind), v.evidence);
    return v;
}

static enum verdict_kind
steady(const struct verdict_input *in)
{
    struct verdict_state st;

    verdict_init(&st);
    return run(&st, in, 4).kind;
}

static void
test_underloaded(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_UNDERLOADED);
    assert_non_null(strstr(v.evidence, "add clients"));
    /*
     * the same light run on a host others fill: the clients' time holds no
     * wait for a CPU, so still light, but more load would compete, not
     * "add clients"
     */
    in.host_busy_pct = 97;
    in.server_host_pct = 5;
    in.own_cpu_pct = 6;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_non_null(strstr(v.evidence, "more load would compete for a full host"));
    assert_null(strstr(v.evidence, "add clients"));
}

static void
test_client_bound(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.worker_cpu_max = 98;
    in.own_cpu_pct = 99;
    in.host_busy_pct = 60; /* 4 cores: the server uses little */
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_CLIENT);
    assert_string_equal(v.confidence, "clear");
    assert_non_null(strstr(v.evidence, "98% CPU"));
}

static void
test_server_cpu_bound_by_sessions_and_by_process(void **state)
{
    struct verdict_input in = calm();

    in.sig.sessions = 16;
    in.sig.active = 16;
    in.sig.on_cpu = 12; /* 4 cores */
    in.host_busy_pct = NAN;
    assert_int_equal(steady(&in), VK_SERVER_CPU);

    in = calm();
    in.sig.server_cpu_pct = 97; /* a Redis at one full core */
    in.sig.server_cpu_limit = 100;
    in.host_busy_pct = NAN;
    assert_int_equal(steady(&in), VK_SERVER_CPU);

    /*
     * Redis INCR at 4 clients: its one thread at 83% still sleeps between
     * requests, and more ready clients per wakeup make each request cheaper:
     * not the limit yet (4 -> 16 clients gave +63%). Sessions on 83% of many
     * cores are.
     */
    in = calm();
    in.sig.server_cpu_pct = 83;
    in.sig.server_cpu_limit = 100;
    in.host_busy_pct = NAN;
    assert_int_not_equal(steady(&in), VK_SERVER_CPU);
    in = calm();
    in.sig.sessions = in.sig.active = 16;
    in.sig.on_cpu = 0.88 * 4;
    in.host_busy_pct = NAN;
    assert_int_equal(steady(&in), VK_SERVER_CPU);

    /* a busy host alone is not the server: other programs may be running */
    in = calm();
    in.host_busy_pct = 98;
    in.own_cpu_pct = 20;
    assert_int_not_equal(steady(&in), VK_SERVER_CPU);
    /* ... and sessions on CPU on it, the server's own CPU unknown: the host */
    in.sig.active = in.sig.on_cpu = 0.9;
    assert_int_equal(steady(&in), VK_HOST);
}

/* Clients queue in a pooler whose 8 server connections are all busy; the server is idle. */
static void
test_pool_bound(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.clients = 24;
    in.sig.pool_waiting = 16;
    in.sig.pool_servers = 8;
    in.sig.pool_size = 8;
    in.sig.pool_maxwait_ms = 40;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_POOL);
    assert_non_null(strstr(v.evidence, "16 clients wait for 8 server connections (pool size 8"));
    /* a queue of 13 for a pool of 2 on a 2-core host the run fills: still the pool */
    in.cores = 2;
    in.sig.pool_waiting = 13;
    in.sig.pool_servers = 2;
    in.sig.pool_size = 2;
    in.host_busy_pct = 97;
    in.server_host_pct = 120;
    in.server_names = "pgbouncer, postgres";
    in.own_cpu_pct = 60;
    in.worker_cpu_max = 60;
    assert_int_equal(steady(&in), VK_POOL);
    in = calm();
    in.clients = 24;
    in.sig.pool_waiting = 16;
    in.sig.pool_servers = 8;
    in.sig.pool_size = 8;
    /* the same queue before a server whose sessions wait on locks: the locks are the limit */
    in.sig.sessions = in.sig.active = 8;
    in.sig.lock_wait = 7;
    in.sig.on_cpu = 1;
    assert_int_not_equal(steady(&in), VK_POOL);
    /* no one waits in the pool: never pool-bound */
    in = calm();
    in.sig.pool_waiting = 0;
    in.sig.pool_servers = 8;
    in.sig.pool_size = 8;
    assert_int_not_equal(steady(&in), VK_POOL);
    assert_int_equal(check(VK_POOL, 16, 1000, 32, 1010, 0), VC_CONFIRMED);
}

/*
 * A page load (no collector of its own) with MySQL watched behind it: 3 of
 * 40 sessions active, no waits, CPU to spare, while each request takes
 * 25 ms: the latency is spent above the database.
 */
static struct verdict_input
behind_mysql(void)
{
    struct verdict_input in = calm();

    in.behind = "MySQL";
    in.clients = 16;
    in.lat_mean_ms = 25;
    in.tps = 640;
    in.sig.sessions = 40;
    in.sig.active = 3;
    in.sig.on_cpu = 1;
    in.sig.server_cpu_pct = 20;
    in.sig.server_cpu_limit = 400;
    return in;
}

static void
test_app_bound(void **state)
{
    struct verdict_input in = behind_mysql();
    struct verdict_state st;
    struct verdict v;

    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_APP);
    assert_non_null(strstr(v.evidence, "MySQL has spare capacity (3 of 40 sessions active); "
                                       "latency is spent above it; 16 clients' time: transit"));
    /* the same load on the target's own server is not the app's: nothing names an app */
    in.behind = NULL;
    assert_int_not_equal(steady(&in), VK_APP);
    /* benchtop itself at its limit: client-bound, not app-bound */
    in = behind_mysql();
    in.worker_cpu_max = 99;
    assert_int_equal(steady(&in), VK_CLIENT);
}

/* The database behind the app is the limit: its own reason, named as the one behind. */
static void
test_behind_lock_bound(void **state)
{
    struct verdict_input in = behind_mysql();
    struct verdict_state st;
    struct verdict v;

    in.sig.sessions = in.sig.active = 16;
    in.sig.lock_wait = 14;
    in.sig.on_cpu = 2;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_LOCK);
    assert_non_null(strstr(v.evidence, "MySQL behind the app: 14 of 16 active client sessions "
                                       "wait on locks"));
}

/*
 * The lock advice follows what the waiters wait for (field trial 3: an
 * advisory lock and a MyISAM table lock were told "a larger scale").
 */
static void
test_lock_advice_by_kind(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;
    const struct {
        enum lock_kind k;
        const char *says;
    } t[] = {{LK_ROW, "for rows others write: spread the writes over more rows"},
             {LK_TABLE, "for a whole table: row locks instead (a storage engine that has them"},
             {LK_METADATA, "metadata lock: DDL, or a long transaction"},
             {LK_ADVISORY, "for an advisory lock the application takes: a finer key"},
             {LK_FILE, "for the file's one writer: fewer, larger transactions (--batch N)"},
             {LK_UNKNOWN, "wait on locks: shorter transactions, or fewer clients writing"}};

    (void)state;
    in.clients = 16;
    in.connected = 16;
    in.sig.sessions = in.sig.active = 16;
    in.sig.lock_wait = 14;
    in.sig.on_cpu = 2;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        in.sig.lock_kind = t[i].k;
        verdict_init(&st);
        v = run(&st, &in, 4);
        assert_int_equal(v.kind, VK_LOCK);
        if (strstr(v.evidence, t[i].says) == NULL)
            fail_msg("kind %d: %s", (int)t[i].k, v.evidence);
        assert_true(t[i].k == LK_ROW || strstr(v.evidence, "a larger scale") == NULL);
    }
}

/* Clients a server refused are said beside whatever limits the others (trial 3, C7). */
static void
test_refused_clients_said(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;
    char msg[32] = "Too many connections"; /* the interval's buffer, which the next one reuses */

    (void)state;
    in.clients = 16;
    in.connected = 10;
    in.never_done = 6;
    in.last_error = msg;
    in.sig.sessions = in.sig.active = 10;
    in.sig.lock_wait = 8;
    in.sig.on_cpu = 2;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_LOCK);
    assert_non_null(strstr(v.evidence, "; 6 of 16 clients not connected: Too many connections"));
    msg[0] = '\0';
    verdict_finish(&st, &v); /* quotes the message the interval named, not the buffer now */
    assert_non_null(strstr(v.evidence, "; 6 of 16 clients not connected: Too many connections"));
    in.connected = 16;
    verdict_init(&st);
    assert_null(strstr(run(&st, &in, 4).evidence, "not connected"));
}

/*
 * The final verdict counts the clients refused all run, not those of the
 * last tick: max_connections 20 at -c 32, 13 never got in, 2 of them in a
 * retry's connect at the tick. The interval said "11 of 32" and so did
 * the final; through a delayed link one interval in nine said "the server
 * refuses 4 of 32 clients ... (-c 28 only ends the errors)" with 21 refused.
 */
static void
test_final_refused_are_the_runs(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    (void)state;
    in.clients = 32;
    in.connected = 19;
    in.connecting = 2;
    in.never_done = 13;
    in.errors = 40;
    in.last_error = "FATAL: sorry, too many clients already";
    in.sig.sessions = in.sig.active = 19;
    in.sig.lock_wait = 15;
    in.sig.on_cpu = 2;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_LOCK);
    assert_non_null(strstr(v.evidence, "; 11 of 32 clients not connected: FATAL"));
    verdict_finish(&st, &v);
    assert_int_equal(v.kind, VK_LOCK);
    assert_non_null(strstr(v.evidence, "; 13 of 32 clients not connected: FATAL"));
    in.retrying = 2; /* the worker knows the two connects are retries of refused clients */
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_non_null(strstr(v.evidence, "; 13 of 32 clients not connected: FATAL"));
    in.retrying = 0;
    in.never_done = 0; /* all had finished transactions: those away at the end were not refused */
    verdict_init(&st);
    run(&st, &in, 4);
    verdict_finish(&st, &v);
    assert_null(strstr(v.evidence, "not connected"));
}

/*
 * A role's connection limit 12 at -c 32 through a 60 ms link: the 21
 * refused clients' retries (18/s) outnumbered the transactions (6/s) and
 * every interval said "no verdict: 72% of transactions fail". Retries are
 * the refusal's, not failed transactions: the refusal is named.
 */
static void
test_refused_retries_are_not_failures(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    (void)state;
    in.clients = 32;
    in.connected = 11;
    in.never_done = 21;
    in.tps = 6;
    in.lat_mean_ms = 1200;
    in.errors = 20;
    in.retry_errors = 18;
    in.last_error = "FATAL: too many connections for role \"lim\"";
    in.sig.sessions = 11;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_CONNECTION);
    assert_non_null(strstr(v.evidence, "the server refuses 21 of 32 clients"));
    in.retry_errors = 0; /* the same errors as failed transactions: the run is failing */
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_NONE);
    assert_non_null(strstr(v.evidence, "no verdict: 77% of transactions fail"));
}

/*
 * Field trial 4, C2: max_connections 12 at -c 16, 11 connected, the 5
 * refused in their reconnect backoff. Their time was counted as
 * benchtop's (33% with its thread at 5% and 10% waiting) and two
 * intervals said host-bound at a host 32% busy. The account holds the
 * connected clients only: the locks lead.
 */
static void
test_refused_clients_are_not_benchtops(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.clients = 16;
    in.connected = 11;
    in.errors = 5; /* the refused try again */
    in.flight_s = 10.5;
    in.cores = 2;
    in.host_busy_pct = 32;
    in.server_host_pct = 49;
    in.own_cpu_pct = 11;
    in.worker_cpu_max = 5;
    in.worker_wait_max = 10;
    in.sig.sessions = 11;
    in.sig.active = 9;
    in.sig.lock_wait = 6;
    in.sig.commit_wait = 1;
    in.sig.on_cpu = 1;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_LOCK);
    assert_non_null(strstr(v.evidence, "11 clients' time"));
    assert_non_null(strstr(v.evidence, "5 of 16 clients not connected"));
    assert_true(account_share(&v.acct, AS_BENCHTOP) + account_share(&v.acct, AS_RUNQ) < 0.1);
}

/* A cache that evicts is said beside another limit (field trial 3, C15: a 7% hit ratio). */
static void
test_evicting_cache_said(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    (void)state;
    in.clients = 16;
    in.connected = 16;
    in.sig.sessions = in.sig.active = 16;
    in.sig.lock_wait = 14;
    in.sig.on_cpu = 2;
    in.sig.evictions_s = 7700;
    in.sig.hit_ratio = 0.07;
    snprintf(in.sig.mem_limit_setting, sizeof in.sig.mem_limit_setting, "-m");
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_LOCK);
    assert_non_null(strstr(v.evidence, "; the cache evicts 7,700/s, hit ratio 7%: raise -m"));
    in.sig.evictions_s = 0;
    verdict_init(&st);
    assert_null(strstr(run(&st, &in, 4).evidence, "evicts"));
    /* sorts spilling to temporary files (trial 3, C2: work_mem 64MB gave +114%) */
    in.sig.temp_bytes_s = 21e6;
    snprintf(in.sig.temp_setting, sizeof in.sig.temp_setting, "work_mem");
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_non_null(strstr(v.evidence,
                           "; sorts and hashes spill 21.0 MB/s to temporary files: test a larger "
                           "work_mem (benchtop try --set work_mem=...)"));
    /* the same advice as data, the lock's first, then the note's setting (what try checks) */
    assert_int_equal(v.advice.n, 2);
    assert_int_equal(v.advice.a[0].kind, ADV_TRIPS);
    assert_int_equal(v.advice.a[1].kind, ADV_SETTING);
    assert_string_equal(v.advice.a[1].name, "work_mem");
    assert_string_equal(v.advice.a[1].value, "");
    in.sig.temp_bytes_s = 0.5e6; /* a little spill is not named */
    verdict_init(&st);
    assert_null(strstr(run(&st, &in, 4).evidence, "temporary files"));
}

/* php-fpm at pm.max_children 5 with 37 requests queued: the app's pool is the limit. */
static void
test_app_pool_full(void **state)
{
    struct verdict_input in = behind_mysql();
    struct verdict_state st;
    struct verdict v;

    in.clients = 42;
    in.sig.app_queue = 37;
    in.sig.app_busy = 5;
    in.sig.app_workers = 5;
    snprintf(in.sig.app_name, sizeof in.sig.app_name, "php-fpm");
    snprintf(in.sig.app_limit, sizeof in.sig.app_limit, "pm.max_children");
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_APP);
    assert_non_null(strstr(v.evidence, "php-fpm at pm.max_children 5, 37 requests queued"));
    /* with no database watched, the full pool still is the limit */
    in.behind = NULL;
    in.have_server = 0;
    assert_int_equal(steady(&in), VK_APP);
    /* the app tier watched is seen: no "add --watch" (field trial n13 had it) */
    in.unseen_hint = "add --watch with the app tier's status URLs";
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_null(strstr(v.evidence, "not seen"));
    assert_non_null(strstr(v.evidence, "raise pm.max_children if the host has room"));
    /*
     * a page that burns its CPU: the workers fill the host themselves (a
     * 6 ms page, 16 children, nginx and php-fpm at 190% of 2 cores: 2
     * children gave +11%, field trial 7, case 12b)
     */
    in.cores = 2;
    in.host_busy_pct = 99;
    in.server_host_pct = 190;
    in.server_names = "nginx, php-fpm8.2";
    in.own_cpu_pct = 8;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_APP);
    assert_non_null(strstr(v.evidence, "37 requests queued, and the server side (nginx, "
                                       "php-fpm8.2) takes 190% of the host's 2 cores: more "
                                       "workers only share them"));
    assert_null(strstr(v.evidence, "raise"));
    /* a pool that can still grow (its limit unknown) or has idle workers is no limit */
    in = behind_mysql();
    in.sig.app_queue = 0;
    in.sig.app_busy = 3;
    in.sig.app_workers = 5;
    snprintf(in.sig.app_name, sizeof in.sig.app_name, "php-fpm");
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_null(strstr(v.evidence, "php-fpm"));
}

/*
 * php-fpm's 5 workers all inside MySQL's scans of an unindexed table, 11
 * requests queued behind them, MySQL's CPU near full: the queue is the
 * database's, not the app's (field trial 3, C23: the index gave the gain,
 * more workers none). With the database's CPU to spare, it stays the app's.
 */
static void
test_app_queue_behind_a_busy_database(void **state)
{
    struct verdict_input in = behind_mysql();
    struct verdict_state st;
    struct verdict v;

    in.sig.app_queue = 11;
    in.sig.app_busy = 5;
    in.sig.app_workers = 5;
    snprintf(in.sig.app_name, sizeof in.sig.app_name, "php-fpm");
    snprintf(in.sig.app_limit, sizeof in.sig.app_limit, "pm.max_children");
    in.sig.active = 5;
    in.sig.on_cpu = 4.6;
    in.sig.server_cpu_pct = 370;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_SERVER_CPU);
    assert_non_null(strstr(v.evidence, "MySQL behind the app"));
    in.sig.server_cpu_pct = 120;
    in.sig.on_cpu = 1.2; /* the rest of the 5 wait on other things */
    assert_int_equal(steady(&in), VK_APP);
    /* sessions on CPU filling the cores say it without a CPU figure (MySQL's collector has none) */
    in.sig.server_cpu_pct = in.sig.server_cpu_limit = NAN;
    in.sig.on_cpu = 4.6;
    assert_int_equal(steady(&in), VK_SERVER_CPU);
}

static void
test_lock_bound(void **state)
{
    struct verdict_input in = calm();

    in.clients = in.sig.sessions = in.sig.active = 8;
    in.sig.lock_wait = 7;
    assert_int_equal(steady(&in), VK_LOCK);
}

static void
test_commit_bound(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.sig.active = in.sig.commit_wait = 1; /* the one session waits on the WAL sync */
    in.sig.on_cpu = 0;
    assert_int_equal(steady(&in), VK_COMMIT);

    in = calm();
    in.sig.active = 0.9;
    in.sig.commit_wait = 0.8;
    in.sig.on_cpu = 0.1;
    in.sig.log_sync_ms_s = 850; /* the server timed its syncs */
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_int_equal(v.kind, VK_COMMIT);
    assert_non_null(strstr(v.evidence, "850 ms/s"));

    /* an InnoDB redo log at 95% of its room: its size first, before the flush setting */
    in.sig.redo_fill = 0.95;
    snprintf(in.sig.redo_setting, sizeof in.sig.redo_setting, "innodb_log_file_size");
    snprintf(in.sig.commit_try, sizeof in.sig.commit_try, "innodb_flush_log_at_trx_commit=2");
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_int_equal(v.kind, VK_COMMIT);
    assert_non_null(strstr(v.evidence, "the redo log is 95% full (checkpoint age): raise "
                                       "innodb_log_file_size"));
    assert_int_equal(v.advice.a[0].kind, ADV_SETTING);
    assert_string_equal(v.advice.a[0].name, "innodb_log_file_size");
    assert_string_equal(v.model.findings[0].advice.name, "innodb_log_file_size");
}

/*
 * SQLite in WAL with synchronous=normal: the collector's "try --batch N";
 * a run batching 100 statements a commit already is told a larger batch
 * (field trial 4, C6: --batch 100 still read "try --batch N").
 */
static void
test_commit_batch_advice(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.sig.active = in.sig.commit_wait = 1;
    in.sig.on_cpu = 0;
    snprintf(in.sig.commit_advice, sizeof in.sig.commit_advice,
             "--batch N (one commit writes the WAL for N transactions' rows)");
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_int_equal(v.kind, VK_COMMIT);
    assert_non_null(strstr(v.evidence, "; try --batch N (one commit writes the WAL"));
    in.ops_per_txn = 100;
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_non_null(
        strstr(v.evidence, "; try a larger --batch (each commit holds 100 statements now)"));
    assert_null(strstr(v.evidence, "--batch N"));
}

static void
test_connection_bound(void **state)
{
    struct verdict_input in = calm();

    in.connect_share = 0.8;
    assert_int_equal(steady(&in), VK_CONNECTION);
}

static void
test_network_bound(void **state)
{
    struct verdict_input in = calm();

    in.lat_mean_ms = 21;
    in.sig.rtt_ms = 20;
    assert_int_equal(steady(&in), VK_NETWORK);
    /*
     * a few ms to a local server on a saturated host that jitter from one
     * interval to the next are waits for a CPU; 20 ms, or a steady 3 ms
     * (a delaying proxy), are the wire
     */
    in.host_busy_pct = 97;
    assert_int_equal(steady(&in), VK_NETWORK);
    in.sig.rtt_ms = 3;
    in.lat_mean_ms = 4;
    assert_int_equal(steady(&in), VK_NETWORK);
    {
        struct verdict_state st;
        struct verdict v;

        verdict_init(&st);
        for (int i = 0; i < 6; i++) {
            in.sig.rtt_ms = i % 2 ? 3.5 : 2;
            v = run(&st, &in, 1);
        }
        assert_int_not_equal(v.kind, VK_NETWORK);
        /* ... unless even the fastest transactions took the round trip: a floor is a wire */
        in.lat_floor_ms = 2.2;
        verdict_init(&st);
        for (int i = 0; i < 6; i++) {
            in.sig.rtt_ms = i % 2 ? 3.5 : 2;
            v = run(&st, &in, 1);
        }
        assert_int_equal(v.kind, VK_NETWORK);
        /* a floor far under the ping is not the ping's wire */
        in.lat_floor_ms = 1.2;
        in.sig.rtt_ms = 3.5;
        in.ops_per_txn = 1;
        verdict_init(&st);
        for (int i = 0; i < 6; i++) {
            in.sig.rtt_ms = i % 2 ? 3.5 : 2.6;
            v = run(&st, &in, 1);
        }
        assert_int_not_equal(v.kind, VK_NETWORK);
        in.lat_floor_ms = 0;
    }
    in.host_busy_pct = NAN;
    in.sig.rtt_ms = 20;
    in.lat_mean_ms = 21;
    /* the same latency on loopback round trips is not the network */
    in.sig.rtt_ms = 0.2;
    assert_int_not_equal(steady(&in), VK_NETWORK);
}

static void
test_hysteresis(void **state)
{
    struct verdict_input quiet = calm(), busy = calm();
    struct verdict_state st;
    struct verdict v;
    int i;

    busy.worker_cpu_max = 99;
    verdict_init(&st);
    v = run(&st, &quiet, 3);
    assert_int_equal(v.kind, VK_UNDERLOADED);
    /* one busy interval is not enough to change the verdict */
    v = run(&st, &busy, 1);
    assert_int_equal(v.kind, VK_UNDERLOADED);
    v = run(&st, &busy, 1);
    assert_int_equal(v.kind, VK_CLIENT);
    /* alternating signals never flap it */
    for (i = 0; i < 6; i++) {
        v = run(&st, i % 2 ? &busy : &quiet, 1);
        assert_int_equal(v.kind, VK_CLIENT);
    }
}

/*
 * Benchtop's thread at 99% while its 8 sessions are all on the server's 4
 * cores: the clients' time is on the server (no "mixed" any more: the
 * account shows every share whole, and benchtop's is small).
 */
static void
test_mixed(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.worker_cpu_max = 99;
    in.clients = in.sig.sessions = in.sig.active = 8;
    in.sig.on_cpu = 8;
    in.host_busy_pct = NAN;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_SERVER_CPU);
    assert_non_null(strstr(v.evidence, "8 clients' time: server CPU 100%"));
    assert_true(v.second != VK_SERVER_CPU);
}

static void
test_no_load(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    verdict_init(&st);
    run(&st, &in, 3);
    in.load = 0;
    v = run(&st, &in, 1);
    assert_int_equal(v.kind, VK_NONE);
    assert_string_equal(verdict_key(VK_NONE), "none");
    assert_string_equal(verdict_key(VK_SERVER_CPU), "server_cpu");
}

/*
 * One fsync per commit with the sessions sampled in the sync: commit-bound,
 * untimed, with the setting to time it. The syncs alone, with the sessions
 * seen on CPU, are not the account's commit share (issue 25: a share comes
 * from what was measured).
 */
static void
test_commit_bound_from_syncs_per_commit(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.tps = 400;
    in.sig.commits_s = 401;
    in.sig.log_syncs_s = 398;
    in.sig.samples = 10;
    in.sig.own_sessions = 1;
    in.sig.own_active = 0.9;
    in.sig.own_on_cpu = 0.2;
    in.sig.own_lock_wait = 0;
    in.sig.own_commit_wait = 0.7;
    snprintf(in.sig.sync_untimed, sizeof(in.sig.sync_untimed), "track_wal_io_timing");
    snprintf(in.sig.commit_advice, sizeof(in.sig.commit_advice), "commit_delay");
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_int_equal(v.kind, VK_COMMIT);
    assert_non_null(strstr(v.evidence, "0.99 log syncs per commit"));
    assert_non_null(strstr(v.evidence, "turn track_wal_io_timing on"));
    assert_non_null(strstr(v.evidence, "try commit_delay"));
    assert_null(strstr(v.evidence, "add clients"));
    /* at a set rate with idle sessions, the syncs are not what limits */
    in.rate = 50;
    in.flight_s = 0.05;
    in.sig.own_active = 0.05;
    in.sig.own_commit_wait = 0.03;
    in.sig.own_on_cpu = 0.02;
    assert_int_not_equal(steady(&in), VK_COMMIT);
    /* an UPDATE that scans a table: 15 glances a second see the session on CPU, not syncing */
    in.rate = 0;
    in.flight_s = 0;
    in.sig.own_active = in.sig.active = 0.95;
    in.sig.own_on_cpu = 0.85;
    in.sig.own_commit_wait = 0.1;
    in.sig.samples = 15;
    assert_int_not_equal(steady(&in), VK_COMMIT);
}

/* Redis with appendfsync always: no sync count, but every write waits for one. */
static void
test_commit_bound_by_setting(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.host_busy_pct = NAN;
    in.tps = 800;
    in.sig.sessions = in.sig.active = in.sig.on_cpu = NAN;
    in.sig.server_cpu_pct = 20;
    in.sig.server_cpu_limit = 100;
    in.sig.commits_s = 800;
    snprintf(in.sig.sync_each_commit, sizeof(in.sig.sync_each_commit), "appendfsync always");
    snprintf(in.sig.commit_advice, sizeof(in.sig.commit_advice), "appendfsync everysec");
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_int_equal(v.kind, VK_COMMIT);
    assert_non_null(
        strstr(v.evidence, "each of 800 writes/s waits for a log sync (appendfsync always)"));
    assert_non_null(strstr(v.evidence, "try appendfsync everysec"));
    assert_null(strstr(v.evidence, "? active")); /* no sessions to count */
    /* the collector's round trip waits for the same sync: not the network */
    in.sig.rtt_ms = 5;
    in.lat_mean_ms = 6.8;
    assert_int_equal(steady(&in), VK_COMMIT);
    /* its one thread busy computing: the syncs are a small part of each write */
    in.sig.server_cpu_pct = 97;
    assert_int_not_equal(steady(&in), VK_COMMIT);
}

/* Other sessions' lock waits are evidence, not benchtop's limit. */
static void
test_whose_waits(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.tps = 50;
    in.sig.sessions = 10;
    in.sig.active = 7;
    in.sig.lock_wait = 6; /* another application's sessions */
    in.sig.own_sessions = 1;
    in.sig.own_active = 0.1;
    in.sig.own_lock_wait = 0;
    in.sig.own_commit_wait = 0;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_not_equal(v.kind, VK_LOCK);
    assert_non_null(strstr(v.evidence, "; other sessions: 6 waiting on locks"));
    /* and when benchtop's own sessions wait, the others are named beside them */
    in.clients = 4;
    in.sig.own_sessions = in.sig.own_active = 4;
    in.sig.own_lock_wait = 3;
    in.sig.lock_wait = 9;
    in.sig.active = 10;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_LOCK);
    assert_non_null(strstr(v.evidence, "3 of 4 active benchtop sessions"));
    assert_non_null(strstr(v.evidence, "other sessions: 6 waiting on locks"));
}

/* A shared, saturated host: HOST CPU-BOUND with the split, never client-bound or "add clients". */
static void
test_host_bound(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.cores = 2;
    in.clients = 8;
    in.host_busy_pct = 97;
    in.server_host_pct = 150;
    in.own_cpu_pct = 40;
    in.worker_cpu_max = 19;
    in.worker_wait_max = 67; /* waits for a CPU like everyone else */
    in.sig.sessions = in.sig.active = 8;
    in.sig.on_cpu = 0;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_HOST);
    assert_non_null(strstr(v.evidence, "host CPU 97% of 2 cores: server 150%, benchtop 40%, "
                                       "others 4%"));
    assert_non_null(strstr(v.evidence, "run benchtop on another machine"));
    assert_null(strstr(v.evidence, "other programs take"));
    assert_null(strstr(v.evidence, "affinity"));
    assert_non_null(strstr(v.evidence, "; benchtop's thread waits for a CPU 67% of the time"));
    /* benchtop on one CPU of two (taskset): the pin is named (field trial 7, case 20: +53%) */
    in.allowed_cpus = 1;
    in.outside_busy_pct = 50;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_HOST);
    assert_non_null(strstr(v.evidence, "; benchtop may run on 1 of the 2 CPUs only (its affinity: "
                                       "taskset, a cpuset) and its thread waits for one 67% of "
                                       "the time, the others 50% busy: a wider affinity often "
                                       "lets it run"));
    in.worker_wait_max = 21; /* one loop beside it: unpinning gained nothing (-1..-7%) */
    verdict_init(&st);
    assert_null(strstr(run(&st, &in, 4).evidence, "affinity"));
    in.worker_wait_max = 67;
    in.allowed_cpus = 2; /* all of them: nothing to widen */
    verdict_init(&st);
    assert_null(strstr(run(&st, &in, 4).evidence, "affinity"));
    in.allowed_cpus = 0;
    /* two yes at 35% beside benchtop's 40%: theirs said too (field trial 4, C13: +34% stopped) */
    in.server_host_pct = 115;
    in.own_cpu_pct = 40;
    in.host_busy_pct = 95;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_HOST);
    assert_non_null(strstr(v.evidence, "run benchtop on another machine"));
    assert_non_null(strstr(v.evidence, "; other programs take 35%: stopping them frees as much"));
    in.server_host_pct = 150;
    in.own_cpu_pct = 40;
    in.host_busy_pct = 97;
    /* the server alone filling the host is the server's CPU, not sharing */
    in.server_host_pct = 192;
    in.own_cpu_pct = 2;
    in.sig.on_cpu = 8;
    assert_int_equal(steady(&in), VK_SERVER_CPU);
}

/*
 * A server benchtop cannot see (HTTP without --watch) on a full host: every
 * interval is judged blind, and the final verdict still reads the run's
 * host figures (CI: "client-bound: benchtop thread at nan% CPU" after nine
 * host-bound intervals, the means taken over seen intervals only). An
 * interval with no thread measured is not benchtop's.
 */
static void
test_host_bound_unseen_server(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.have_server = 0;
    in.cores = 2;
    in.clients = 16;
    in.host_busy_pct = 99;
    in.server_host_pct = 120;
    in.own_cpu_pct = 60;
    in.worker_cpu_max = 45;
    in.worker_wait_max = 49;
    verdict_init(&st);
    v = run(&st, &in, 6);
    assert_int_equal(v.kind, VK_HOST);
    verdict_finish(&st, &v);
    assert_int_equal(v.kind, VK_HOST);
    assert_null(strstr(v.evidence, "nan"));
    /* a thread not measured: not client-bound, with or without the server seen */
    in.worker_cpu_max = in.worker_wait_max = NAN;
    in.host_busy_pct = 40;
    in.server_host_pct = 20;
    assert_int_not_equal(steady(&in), VK_CLIENT);
    in.have_server = 1;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_not_equal(v.kind, VK_CLIENT);
    assert_null(strstr(v.evidence, "nan"));
}

/*
 * Redis's loop at 65% (no limit: more clients per wakeup) while another
 * client's DEBUG SLEEP stalls it 27% of the time: the stall, not "add
 * clients" (stopping the staller gave x1.57). Without the stall: light.
 */
static void
test_stall_past_an_unsaturated_server(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.clients = 16;
    in.tps = 30000;
    in.lat_mean_ms = 16 / 30000.0 * 1000;
    in.sig.active = NAN; /* an event loop: no session states */
    in.sig.sessions = 17;
    in.sig.server_cpu_pct = 65;
    in.sig.server_cpu_limit = 100;
    in.sig.other_stall_share = 0.3;
    snprintf(in.sig.other_stall_what, sizeof in.sig.other_stall_what, "DEBUG SLEEP 0.3");
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_STALL);
    assert_non_null(strstr(v.evidence, "DEBUG SLEEP"));
    in.sig.other_stall_share = 0;
    assert_int_equal(steady(&in), VK_UNDERLOADED);
}

/* A round trip longer than the whole latency is scheduling delay; a minority of it is not the wire.
 */
static void
test_network_needs_majority(void **state)
{
    struct verdict_input in = calm();

    in.sig.rtt_ms = 1.3;
    in.lat_mean_ms = 0.4;
    assert_int_not_equal(steady(&in), VK_NETWORK);
    in.sig.rtt_ms = 3;
    in.lat_mean_ms = 10;
    assert_int_not_equal(steady(&in), VK_NETWORK);
    /* a steady 8 ms round trip of 8.5 ms latency: the wire, on a host with room */
    in = calm();
    in.sig.rtt_ms = 8;
    in.lat_mean_ms = 8.5;
    in.sig.server_cpu_pct = 40;
    in.sig.server_cpu_limit = 100;
    assert_int_equal(steady(&in), VK_NETWORK);
    /* Redis's loop on a host others fill: the ping waits behind every ready client */
    in.cores = 2;
    in.clients = 250;
    in.host_busy_pct = 99;
    in.server_host_pct = 40;
    in.own_cpu_pct = 40;
    assert_int_not_equal(steady(&in), VK_NETWORK);
    /* ... and on a host with room, with the loop itself at 94% of its core (CI, Redis INCR) */
    in = calm();
    in.sig.rtt_ms = 8;
    in.lat_mean_ms = 8.5;
    in.sig.server_cpu_pct = 94;
    in.sig.server_cpu_limit = 100;
    in.cores = 2;
    in.host_busy_pct = 70;
    assert_int_not_equal(steady(&in), VK_NETWORK);
}

/* The evidence follows the figures every interval, even while the verdict holds. */
static void
test_evidence_rebuilt(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.sig.server_cpu_limit = 100;
    in.sig.server_cpu_pct = 97;
    in.host_busy_pct = NAN;
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_int_equal(v.kind, VK_SERVER_CPU);
    assert_non_null(strstr(v.evidence, "97%"));
    in.sig.server_cpu_pct = 49; /* a single calm interval: the verdict holds, the figure moves */
    v = run(&st, &in, 1);
    assert_int_equal(v.kind, VK_SERVER_CPU);
    assert_non_null(strstr(v.evidence, "49%"));
}

/* Work per transaction is named when large and when rising. */
static void
test_work_named(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;
    int i;

    in.sig.seq_scans_s = 12;
    snprintf(in.sig.seq_scan_table, sizeof(in.sig.seq_scan_table), "cache");
    verdict_init(&st);
    for (i = 0; i < 12; i++) {
        in.sig.rows_per_txn = 200 * (i + 1);
        verdict_step(&st, &in, &v);
    }
    assert_non_null(strstr(v.evidence, "rows, rising"));
    assert_non_null(strstr(v.evidence, "12 sequential scans/s on table cache"));
    in.sig.rows_per_txn = 31000;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_non_null(strstr(v.evidence, "each transaction reads 31,000 rows"));
    /*
     * a server short of CPU for them: the scans lead the advice, said once
     * (a missing index, 100,157 rows a transaction: the index gave x392,
     * field trial 7, case 14)
     */
    in.sig.rows_per_txn = 100157;
    in.sig.server_cpu_limit = 200;
    in.sig.server_cpu_pct = 196;
    in.sig.active = in.sig.on_cpu = 8;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_SERVER_CPU);
    assert_non_null(strstr(v.evidence, ": each transaction reads 100,157 rows, with 12 sequential "
                                       "scans/s on table cache: an index on what the statements "
                                       "filter by, else a faster or larger server"));
    assert_null(strstr(strstr(v.evidence, "100,157") + 1, "100,157"));
    /* MariaDB counts no scans: the rows alone, ten times as many (the index gave x156) */
    in.sig.seq_scans_s = NAN;
    in.sig.rows_per_txn = 93988;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_non_null(strstr(v.evidence, ": each transaction reads 93,988 rows: an index on what "
                                       "the statements filter by"));
    in.sig.rows_per_txn = 5000; /* a report's rows are not a missing index by themselves */
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_null(strstr(v.evidence, "an index"));
}

/*
 * The first interval names its leader at once; the end gives the final
 * verdict from the whole run's account (issue 33.6), with its figures.
 */
static void
test_undecided_and_final(void **state)
{
    struct verdict_input quiet = calm(), lock = calm();
    struct verdict_state st;
    struct verdict v;
    char text[600];

    lock.clients = lock.sig.sessions = lock.sig.active = 8;
    lock.sig.lock_wait = 7;
    lock.sig.on_cpu = 1;
    verdict_init(&st);
    v = run(&st, &lock, 1);
    assert_int_equal(v.kind, VK_LOCK);
    v = run(&st, &lock, 6);
    v = run(&st, &quiet, 3);
    verdict_finish(&st, &v);
    assert_true(v.final);
    assert_int_equal(v.kind, VK_LOCK);
    /* 7 intervals of 8 clients, 7 of 8 on locks, and 3 of one client: 49 of 59 client-seconds */
    assert_true(v.share[VK_LOCK] > 0.80 && v.share[VK_LOCK] < 0.85);
    verdict_final_text(&v, text, sizeof(text));
    assert_non_null(strstr(text, "final: lock-bound (83% of the clients' time)"));
    assert_non_null(strstr(text, "clients' time: locks 83%"));
    assert_null(strstr(text, "held"));
}

/* issue 17: no transactions, or most of them failing, is no verdict but the errors. */
static void
test_failing_load(void **state)
{
    struct verdict_input in = calm();
    struct verdict v;
    struct verdict_state st;

    in.tps = 0;
    in.errors = 0;
    in.clients = 8;
    in.connected = 0;
    in.last_error = "connection refused";
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_int_equal(v.kind, VK_NONE);
    assert_non_null(strstr(v.evidence, "8 of 8 clients not connected"));
    assert_non_null(strstr(v.evidence, "connection refused"));
    assert_null(strstr(v.evidence, "add clients"));
    in.connected = 8;
    in.errors = 9000;
    v = run(&st, &in, 3);
    assert_non_null(strstr(v.evidence, "100% of transactions fail"));
}

static void
test_check(void **state)
{
    struct verdict_point lo, hi;
    char text[160];

    /* group commit: more clients share each log sync */
    assert_int_equal(check(VK_COMMIT, 4, 1000, 8, 1010, 0), VC_CONTRADICTED);
    assert_int_equal(check(VK_COMMIT, 4, 1000, 8, 1800, 0), VC_CONFIRMED);
    /* the added clients waited on row locks held across the sync: group commit untested */
    assert_int_equal(check(VK_COMMIT, 1, 44, 2, 43, 1), VC_UNTESTED);
    verdict_point_init(&lo, VK_COMMIT, 1, 44, 0);
    verdict_point_init(&hi, VK_NONE, 2, 43, 1);
    verdict_check_text(VC_UNTESTED, &lo, &hi, text, sizeof(text));
    assert_string_equal(text, "commit/I/O-bound: the added clients waited on row locks, so "
                              "group commit was not tested");
    /* ... but locks excuse no other verdict's prediction */
    assert_int_equal(check(VK_UNDERLOADED, 1, 44, 2, 43, 1), VC_CONTRADICTED);
    assert_int_equal(check(VK_UNDERLOADED, 4, 1000, 8, 1800, 0), VC_CONFIRMED);
    assert_int_equal(check(VK_UNDERLOADED, 4, 1000, 8, 1050, 0), VC_CONTRADICTED);
    assert_int_equal(check(VK_HOST, 8, 5000, 16, 5100, 0), VC_CONFIRMED);
    assert_int_equal(check(VK_MIXED, 8, 5000, 16, 5100, 0), VC_UNTESTED);
    assert_int_equal(check(VK_LOCK, 8, 5000, 8, 5100, 0), VC_UNTESTED);
    verdict_point_init(&lo, VK_COMMIT, 4, 1000, 0);
    verdict_point_init(&hi, VK_COMMIT, 8, 1800, 0);
    verdict_check_text(VC_CONFIRMED, &lo, &hi, text, sizeof(text));
    assert_string_equal(text, "consistent with commit/I/O-bound");
}

/* Two steps of a host-bound run, 2 cores at 95%: others, server and benchtop % of one core. */
static void
host_points(struct verdict_point *lo, struct verdict_point *hi, double gain, const double a[3],
            const double b[3])
{
    verdict_point_init(lo, VK_HOST, 8, 1000, 0);
    verdict_point_init(hi, VK_HOST, 16, 1000 * (1 + gain), 0);
    host_split_make(95, 2, a[1], a[2], NAN, &lo->host);
    host_split_make((b[0] + b[1] + b[2]) / 2, 2, b[1], b[2], NAN, &hi->host);
}

/*
 * The busy shared host of the suite: other programs hold 120% of 2 cores.
 * More clients (more server backends) win CPU from them: a gain paid by
 * their CPU is what host-bound predicts; a gain they did not pay for is not.
 * Where the server and benchtop fill the host, a gain must give the server
 * more CPU (taken from benchtop, cheaper per transaction with more clients).
 */
static void
test_check_host_others(void **state)
{
    static const double busy[3] = {120, 50, 20}, gave[3] = {60, 100, 30}, kept[3] = {125, 50, 20};
    static const double own[3] = {5, 150, 35}, own_hi[3] = {0, 160, 30};
    static const double shift[3] = {3, 140, 47}, shift_hi[3] = {3, 165, 22};
    struct verdict_point lo, hi;
    char text[160];

    host_points(&lo, &hi, 0.5, busy, gave);
    assert_true(host_split_others_hold(&lo.host));
    assert_int_equal(verdict_check(&lo, &hi), VC_CONFIRMED);
    verdict_check_text(VC_CONFIRMED, &lo, &hi, text, sizeof(text));
    assert_non_null(strstr(text, "other programs' CPU 120% -> 60%, the run's 70% -> 130%"));
    host_points(&lo, &hi, 0.5, busy, kept);
    assert_int_equal(verdict_check(&lo, &hi), VC_CONTRADICTED);
    verdict_check_text(VC_CONTRADICTED, &lo, &hi, text, sizeof(text));
    assert_non_null(strstr(text, "contradicts host CPU-bound"));
    /* +185% from a run that grew 43%: the others' CPU does not pay for it */
    host_points(&lo, &hi, 1.85, busy, gave);
    assert_int_equal(verdict_check(&lo, &hi), VC_CONTRADICTED);
    /* no gain: consistent whatever the split */
    host_points(&lo, &hi, 0.02, busy, kept);
    assert_int_equal(verdict_check(&lo, &hi), VC_CONFIRMED);
    /* the next step's split unknown: a gain tells nothing */
    host_points(&lo, &hi, 0.5, busy, gave);
    host_split_make(NAN, 2, NAN, NAN, NAN, &hi.host);
    assert_int_equal(verdict_check(&lo, &hi), VC_UNTESTED);
    /* Redis's event loop: more clients per wakeup make requests cheaper; no test on the same CPU */
    host_points(&lo, &hi, 0.27, busy, kept);
    lo.host.event_loop = 1;
    assert_int_equal(verdict_check(&lo, &hi), VC_UNTESTED);
    verdict_check_text(VC_UNTESTED, &lo, &hi, text, sizeof(text));
    assert_non_null(strstr(text, "an event loop's requests get cheaper"));
    host_points(&lo, &hi, 0.5, busy, gave);
    lo.host.event_loop = 1;
    assert_int_equal(verdict_check(&lo, &hi), VC_CONFIRMED);
    /* server and benchtop fill the host: a gain contradicts, even with the others' 5% gone */
    host_points(&lo, &hi, 0.5, own, own_hi);
    assert_false(host_split_others_hold(&lo.host));
    assert_int_equal(verdict_check(&lo, &hi), VC_CONTRADICTED);
    /* ... unless the server is an event loop (Redis and benchtop filling it: +56% on one CPU) */
    lo.host.event_loop = 1;
    assert_int_equal(verdict_check(&lo, &hi), VC_UNTESTED);
    /* select-only on 2 cores: benchtop's CPU went to the server, +18% of it paid +20% tps */
    host_points(&lo, &hi, 0.2, shift, shift_hi);
    assert_false(host_split_others_hold(&lo.host));
    assert_int_equal(verdict_check(&lo, &hi), VC_CONFIRMED);
    verdict_check_text(VC_CONFIRMED, &lo, &hi, text, sizeof(text));
    assert_non_null(strstr(text, "server's CPU 140% -> 165%, benchtop's 47% -> 22%"));
    /* the same gain with the server's CPU flat: the host was not the limit */
    host_points(&lo, &hi, 0.2, shift, (const double[3]){28, 140, 22});
    assert_int_equal(verdict_check(&lo, &hi), VC_CONTRADICTED);
    verdict_check_text(VC_CONTRADICTED, &lo, &hi, text, sizeof(text));
    assert_non_null(strstr(text, "a gain must give the server more CPU"));
    /* no local server (its CPU unknown): more clients on this host cannot help */
    host_points(&lo, &hi, 0.5, own, own_hi);
    host_split_make(95, 2, NAN, 35, NAN, &lo.host);
    assert_int_equal(verdict_check(&lo, &hi), VC_CONTRADICTED);
}

/* The verdict's text for a host others fill: the split, others first, and what to do. */
static void
test_host_bound_by_others(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.cores = 2;
    in.clients = 8;
    in.host_busy_pct = 95;
    in.server_host_pct = 50;
    in.server_names = "postgres";
    in.own_cpu_pct = 20;
    in.worker_cpu_max = 15;
    in.worker_wait_max = 40;
    in.sig.sessions = in.sig.active = 8;
    in.sig.on_cpu = 1;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_HOST);
    assert_non_null(
        strstr(v.evidence, "server 50% (postgres), benchtop 20%, others 120%; other programs"));
    assert_non_null(strstr(v.evidence, "other programs take the CPU: results are not the "
                                       "database's capacity; stop them or run on a quiet host"));
    assert_null(strstr(v.evidence, "add clients"));
    assert_true(host_split_others_hold(&v.host));
    assert_true(fabs(v.host.others - 120) < 1e-9);
}

/*
 * The kernel's interrupt work is not other programs': memcached at -c 500
 * on loopback, softirqs 58% of a core. With it counted as others the
 * text said "other programs take the CPU: stop them"; apart, the
 * run and its packets hold the host.
 */
static void
test_host_kernel_is_not_others(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    (void)state;
    in.cores = 2;
    in.clients = 500;
    in.host_busy_pct = 100;
    in.host_irq_pct = 29; /* of all cores: 58% of one */
    in.server_host_pct = 60;
    in.server_names = "memcached";
    in.own_cpu_pct = 60;
    in.worker_cpu_max = 60;
    in.worker_wait_max = 25;
    in.sig.server_cpu_pct = 60;
    in.sig.server_cpu_limit = 400;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_true(fabs(v.host.kernel - 58) < 1e-9);
    assert_true(fabs(v.host.others - 22) < 1e-9);
    assert_false(host_split_others_hold(&v.host));
    assert_int_equal(v.kind, VK_HOST);
    assert_non_null(strstr(v.evidence, "others 22%, kernel (interrupts, packets) 58%"));
    assert_null(strstr(v.evidence, "other programs take the CPU"));
    /* the same host without the kernel's share known: all of it is others' */
    in.host_irq_pct = NAN;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_true(isnan(v.host.kernel));
    assert_true(fabs(v.host.others - 80) < 1e-9);
    assert_true(host_split_others_hold(&v.host));
}

/*
 * Field trial 3, C1: a missing index at 8 clients on a host others kept
 * busy, server 139% of 200%, others 59%. The server's CPU is the limit
 * (the index gave x294; stopping the others could give x1.4 at most), said
 * with the others' share; the final verdict's split is the run's mean, and
 * it keeps the evidence of the work (rows per transaction).
 */
static void
test_server_holds_a_shared_host(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    (void)state;
    in.cores = 2;
    in.clients = 8;
    in.connected = 8;
    in.host_busy_pct = 100;
    in.server_host_pct = 139;
    in.server_names = "postgres";
    in.own_cpu_pct = 1;
    in.worker_cpu_max = 1;
    in.sig.sessions = in.sig.active = in.sig.on_cpu = 8;
    in.sig.rows_per_txn = 195207;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_SERVER_CPU);
    assert_non_null(strstr(v.evidence, "other programs take 60% of the host's 2 cores"));
    /* others holding more than the server: the host, as before */
    in.server_host_pct = 70;
    verdict_init(&st);
    assert_int_equal(run(&st, &in, 4).kind, VK_HOST);
    /* the final split is the run's: three intervals at others 60%, one at others 129% */
    in.server_host_pct = 139;
    verdict_init(&st);
    run(&st, &in, 3);
    in.server_host_pct = 70;
    run(&st, &in, 1);
    verdict_finish(&st, &v);
    assert_true(fabs(v.host.server - (3 * 139 + 70) / 4.0) < 1e-9);
    assert_int_equal(v.kind, VK_SERVER_CPU);
    assert_non_null(strstr(v.evidence, "each transaction reads 195,207 rows"));
}

/* An event loop below its core: the host-bound text says more clients per wakeup can still gain. */
static void
test_host_bound_event_loop(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    (void)state;
    in.cores = 2;
    in.clients = 4;
    in.host_busy_pct = 96;
    in.server_host_pct = 60;
    in.server_names = "redis-server";
    in.own_cpu_pct = 30;
    in.worker_cpu_max = 30;
    in.sig.server_cpu_pct = 60;
    in.sig.server_cpu_limit = 100;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_HOST);
    assert_true(v.host.event_loop);
    assert_non_null(strstr(v.evidence, "its event loop at 60% of 100% can still gain from more "
                                       "clients per wakeup"));
    assert_true(strlen(v.evidence) < sizeof(v.evidence) - 1); /* not cut */
    /* a loop at its core gains nothing more: no such words */
    in.server_host_pct = in.sig.server_cpu_pct = 92;
    in.host_busy_pct = 99;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_null(strstr(v.evidence, "event loop"));
}

/*
 * select-only at 2 clients on 2 cores: the server and benchtop fill the host
 * though its sessions are sampled on CPU a quarter of the time and each
 * worker runs at 39% (ping-pong): host-bound, not "not enough load".
 */
static void
test_host_filled_by_the_run(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    (void)state;
    in.cores = 2;
    in.clients = 2;
    in.tps = 89000;
    in.lat_mean_ms = 0.022;
    in.host_busy_pct = 100;
    in.server_host_pct = 121;
    in.server_names = "postgres";
    in.own_cpu_pct = 78;
    in.worker_cpu_max = 39;
    in.worker_wait_max = 4;
    in.sig.sessions = in.sig.own_sessions = 2;
    in.sig.active = in.sig.own_active = 0.5;
    in.sig.on_cpu = 0.5;
    in.sig.rtt_ms = 0.01;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_HOST);
    assert_non_null(strstr(v.evidence, "server 121% (postgres), benchtop 78%"));
}

/*
 * A new leader shows after two intervals, and the evidence is always the
 * interval's: Redis INCR at 4 clients, its loop at 80% (room: a request
 * gets cheaper with more clients ready per wakeup), then a loop at 99%.
 */
static void
test_stale_verdict_gives_way(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    (void)state;
    in.cores = 2;
    in.clients = 4;
    in.host_busy_pct = NAN;
    in.worker_cpu_max = 40;
    in.sig.sessions = in.sig.active = in.sig.on_cpu = NAN;
    in.sig.server_cpu_pct = 50;
    in.sig.server_cpu_limit = 100;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_UNDERLOADED);
    in.sig.server_cpu_pct = 99;
    v = run(&st, &in, 1);
    assert_int_equal(v.kind, VK_UNDERLOADED);            /* one interval is not yet a change */
    assert_non_null(strstr(v.evidence, "server CPU 7")); /* but its figures are the interval's */
    v = run(&st, &in, 1);
    assert_int_equal(v.kind, VK_SERVER_CPU);
    assert_non_null(strstr(v.evidence, "server CPU 99% of 100%"));
}

/* --- properties over generated inputs --- */

static unsigned long long prng = 0x9e3779b97f4a7c15ULL;

static double
uni(double lo, double hi)
{
    prng ^= prng << 13;
    prng ^= prng >> 7;
    prng ^= prng << 17;
    return lo + (hi - lo) * (double)(prng >> 11) / 9007199254740992.0;
}

/* A value, or NAN one time in `nan_in`. */
static double
maybe(double lo, double hi, int nan_in)
{
    return uni(0, 1) < 1.0 / nan_in ? NAN : uni(lo, hi);
}

static struct verdict_input
generated(void)
{
    struct verdict_input in = calm();
    double sessions = floor(uni(0, 300));

    in.tps = uni(0, 1) < 0.1 ? 0 : uni(1, 50000);
    in.lat_mean_ms = uni(0.05, 100);
    in.errors = uni(0, 1) < 0.1 ? uni(0, 1000) : 0;
    in.connect_share = maybe(0, 1, 2);
    in.worker_cpu_max = uni(0, 100);
    in.worker_wait_max = maybe(0, 60, 4);
    in.own_cpu_pct = uni(0, 200);
    in.cores = (int)uni(1, 9);
    in.host_busy_pct = maybe(0, 100, 3);
    in.server_host_pct = maybe(0, 100.0 * in.cores, 2);
    in.clients = (int)uni(1, 257);
    in.connected = uni(0, 1) < 0.1 ? (int)uni(0, in.clients) : in.clients;
    in.rate = uni(0, 1) < 0.2 ? uni(1, 1000) : 0;
    in.gain_per_doubling = maybe(-0.2, 1, 2);
    in.sig.sessions = sessions;
    /* collectors' figures are not always coherent (a glance between two states): never N > M out */
    in.sig.active = floor(uni(0, sessions * 1.2 + 1));
    in.sig.on_cpu = maybe(0, in.sig.active + 2, 4);
    in.sig.lock_wait = maybe(0, in.sig.active + 2, 4);
    in.sig.commit_wait = maybe(0, in.sig.active + 2, 4);
    in.sig.io_wait = maybe(0, 3, 3);
    in.sig.own_sessions = maybe(0, in.clients, 3);
    in.sig.own_active = isnan(in.sig.own_sessions) ? NAN : uni(0, in.sig.own_sessions + 1);
    in.sig.own_lock_wait = maybe(0, in.sig.active + 1, 4);
    in.sig.own_commit_wait = maybe(0, in.sig.active + 1, 4);
    in.sig.rtt_ms = maybe(0.01, 30, 3);
    in.sig.server_cpu_pct = maybe(0, 400, 2);
    in.sig.server_cpu_limit = uni(0, 1) < 0.5 ? 100 : NAN;
    in.sig.commits_s = maybe(0, 50000, 2);
    in.sig.log_syncs_s = maybe(0, 50000, 2);
    in.sig.log_sync_ms_s = maybe(0, 1000, 3);
    in.sig.rows_per_txn = maybe(0, 100000, 2);
    return in;
}

/* Every "X of Y" in the text has X <= Y. */
static void
assert_coherent(const char *text)
{
    const char *p = text;

    while ((p = strstr(p, " of ")) != NULL) {
        const char *start = p;
        double n, m;
        char *end;

        while (start > text && (start[-1] == '.' || (start[-1] >= '0' && start[-1] <= '9')))
            start--;
        if (start < p) {
            n = strtod(start, NULL);
            m = strtod(p + 4, &end);
            if (end != p + 4 && n > m) {
                print_error("incoherent: %s\n", text);
                fail();
            }
        }
        p += 4;
    }
}

static void
test_properties(void **state)
{
    struct verdict_state st;
    struct verdict v;
    int run_i, step;

    for (run_i = 0; run_i < 400; run_i++) {
        verdict_init(&st);
        for (step = 0; step < 25; step++) {
            struct verdict_input in = generated();
            int host_full = !isnan(in.host_busy_pct) && in.host_busy_pct >= 90;

            verdict_step(&st, &in, &v);
            assert_true(v.kind >= VK_NONE && v.kind < VK__COUNT);
            assert_non_null(v.confidence);
            assert_true(v.evidence[0] != '\0');
            assert_coherent(v.evidence);
            assert_null(strstr(v.evidence, "nan")); /* a figure not measured is not printed */
            /* the text is this interval's: nothing stale from a kind no longer leading */
            if (host_full || in.gain_per_doubling < 0.10) {
                assert_null(strstr(v.evidence, "add clients"));
            }
            if (host_full && in.own_cpu_pct < 0.5 * in.host_busy_pct * in.cores &&
                v.kind != VK_MIXED && st.streak >= 2)
                assert_int_not_equal(v.kind, VK_CLIENT);
            if (in.tps <= 0 && in.errors > 0)
                assert_int_equal(v.kind, VK_NONE);
        }
        verdict_finish(&st, &v);
        {
            double sum = 0;
            int k;

            for (k = 0; k < VK__COUNT; k++)
                sum += v.share[k];
            assert_true(fabs(sum - 1) < 1e-9);
        }
    }
}

/* A host split of `cores` cores from generated parts, % of one core. */
static void
generated_split(int cores, struct host_split *h)
{
    double server = uni(0, 100.0 * cores), own = uni(0, 100.0 * cores - server);
    double others = uni(0, 100.0 * cores - server - own);

    host_split_make((server + own + others) / cores, cores, server, own, NAN, h);
    h->event_loop = uni(0, 1) < 0.3;
}

/*
 * Over generated steps: no doubling that gained under 10% is ever taken as
 * confirming "not enough load", or as contradicting a host- or server-bound
 * verdict; a host-bound-by-others step is confirmed by a gain only when the
 * others' CPU fell and the run's grew with it, on a host that the run
 * fills only when the server's CPU grew with it; the check's text is coherent.
 */
static void
test_check_properties(void **state)
{
    int i;

    for (i = 0; i < 20000; i++) {
        int lo_c = (int)uni(1, 200), hi_c = lo_c * (int)uni(2, 5), cores = (int)uni(1, 9);
        double doublings = log2((double)hi_c / lo_c), tps = uni(1, 100000), gain = uni(-0.5, 2);
        double per = gain / doublings, run_lo, run_hi;
        enum verdict_kind kinds[] = {VK_UNDERLOADED, VK_SERVER_CPU, VK_HOST};
        struct verdict_point lo, hi;
        enum verdict_check c[3];
        char text[200];
        int k;

        for (k = 0; k < 3; k++) {
            verdict_point_init(&lo, kinds[k], lo_c, tps, 0);
            verdict_point_init(&hi, VK_NONE, hi_c, tps * (1 + gain), 0);
            generated_split(cores, &lo.host);
            if (uni(0, 1) < 0.9)
                generated_split(cores, &hi.host);
            c[k] = verdict_check(&lo, &hi);
            verdict_check_text(c[k], &lo, &hi, text, sizeof(text));
            assert_coherent(text);
        }
        if (per < 0.099 && gain < 0.099) {
            assert_int_equal(c[0], VC_CONTRADICTED);
            assert_int_equal(c[1], VC_CONFIRMED);
            assert_int_equal(c[2], VC_CONFIRMED);
            continue;
        }
        if (per <= 0.101 || gain <= 0.101)
            continue;
        assert_int_equal(c[0], VC_CONFIRMED);
        assert_int_equal(c[1], VC_CONTRADICTED);
        run_lo = lo.host.server + lo.host.benchtop;
        run_hi = hi.host.server + hi.host.benchtop;
        if (isnan(hi.host.others) || !(lo.host.server > 0))
            assert_int_equal(c[2], VC_UNTESTED);
        else if (host_split_others_hold(&lo.host)
                     ? hi.host.others < lo.host.others && run_hi / run_lo - 1 >= 0.5 * gain
                     : hi.host.server / lo.host.server - 1 >= 0.5 * gain)
            assert_int_equal(c[2], VC_CONFIRMED);
        else
            assert_int_equal(c[2], lo.host.event_loop ? VC_UNTESTED : VC_CONTRADICTED);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_underloaded),
        cmocka_unit_test(test_client_bound),
        cmocka_unit_test(test_server_cpu_bound_by_sessions_and_by_process),
        cmocka_unit_test(test_lock_bound),
        cmocka_unit_test(test_pool_bound),
        cmocka_unit_test(test_commit_bound),
        cmocka_unit_test(test_commit_batch_advice),
        cmocka_unit_test(test_connection_bound),
        cmocka_unit_test(test_network_bound),
        cmocka_unit_test(test_hysteresis),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_no_load),
        cmocka_unit_test(test_commit_bound_from_syncs_per_commit),
        cmocka_unit_test(test_whose_waits),
        cmocka_unit_test(test_host_bound),
        cmocka_unit_test(test_host_bound_unseen_server),
        cmocka_unit_test(test_network_needs_majority),
        cmocka_unit_test(test_stall_past_an_unsaturated_server),
        cmocka_unit_test(test_evidence_rebuilt),
        cmocka_unit_test(test_work_named),
        cmocka_unit_test(test_undecided_and_final),
        cmocka_unit_test(test_failing_load),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_commit_bound_by_setting),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_app_bound),
        cmocka_unit_test(test_behind_lock_bound),
        cmocka_unit_test(test_app_pool_full),
        cmocka_unit_test(test_app_queue_behind_a_busy_database),
        cmocka_unit_test(test_check_properties),
        cmocka_unit_test(test_check_host_others),
        cmocka_unit_test(test_host_bound_by_others),
        cmocka_unit_test(test_host_kernel_is_not_others),
        cmocka_unit_test(test_server_holds_a_shared_host),
        cmocka_unit_test(test_lock_advice_by_kind),
        cmocka_unit_test(test_refused_clients_said),
        cmocka_unit_test(test_final_refused_are_the_runs),
        cmocka_unit_test(test_refused_retries_are_not_failures),
        cmocka_unit_test(test_refused_clients_are_not_benchtops),
        cmocka_unit_test(test_evicting_cache_said),
        cmocka_unit_test(test_host_bound_event_loop),
        cmocka_unit_test(test_host_filled_by_the_run),
        cmocka_unit_test(test_stale_verdict_gives_way),
    };
    return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
