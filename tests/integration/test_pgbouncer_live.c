/*
 * PgBouncer in the loop: a throwaway PgBouncer (BENCHTOP_PB_TARGET) in front
 * of its own throwaway PostgreSQL (BENCHTOP_PB_BEHIND). Transactions through
 * the pooler, in transaction and session pooling, equal the server's
 * xact_commit delta; the pooler's collector runs beside the server's and
 * sees clients wait when the pool is too small; a new connection per
 * transaction is cheap through the pooler and costly straight to the server.
 */
#include "itest.h"

#define DB "bt_pgb"

static PGconn *server;  /* the PostgreSQL behind, database postgres: its queries are not DB's */
static PGconn *console; /* PgBouncer's admin console */
static char pooled[512], direct[512];

/* target with its database replaced by db. */
static void
retarget(char *out, size_t len, const char *target, const char *db)
{
    const char *slash = strrchr(target, '/');

    snprintf(out, len, "%.*s/%s", (int)(slash - target), target, db);
}

static PGconn *
connect_to(const char *target, const char *db)
{
    const char *keys[] = {"dbname", "dbname", NULL};
    const char *vals[] = {target, db, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);

    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "cannot connect to %s: %s", db, PQerrorMessage(c));
        exit(1);
    }
    return c;
}

/* Runs a console command such as SET or KILL; the console answers without rows. */
static void
say(const char *cmd)
{
    PGresult *r = PQexec(console, cmd);

    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
        fprintf(stderr, "%s: %s", cmd, PQresultErrorMessage(r));
        exit(1);
    }
    PQclear(r);
}

/*
 * xact_commit of DB once every server connection the pooler held is gone:
 * KILL drops them (their backends flush their statistics as they exit),
 * RESUME lets clients in again.
 */
static long long
commits(void)
{
    say("KILL " DB);
    say("RESUME " DB);
    return itest_pg_commits(server, DB, 0);
}

static int
setup(void **state)
{
    const char *behind = itest_env("BENCHTOP_PB_BEHIND");
    PGconn *c = connect_to(behind, "postgres");
    char *args[] = {"init", direct, "--scale", "1", "-q", NULL};
    struct run r;

    itest_exec(c, "DROP DATABASE IF EXISTS " DB);
    itest_exec(c, "CREATE DATABASE " DB);
    PQfinish(c);
    retarget(direct, sizeof direct, behind, DB);
    retarget(pooled, sizeof pooled, itest_env("BENCHTOP_PB_TARGET"), DB);
    r = itest_runv(args);
    if (r.status != 0) {
        fprintf(stderr, "init failed: %s", r.err);
        return -1;
    }
    itest_free(&r);
    server = connect_to(behind, "postgres");
    console = connect_to(itest_env("BENCHTOP_PB_TARGET"), "pgbouncer");
    return 0;
}

static int
teardown(void **state)
{
    PQfinish(server);
    PQfinish(console);
    return 0;
}

/*
 * -t 500 per client through the pooler in pool_mode: the server commits as
 * many within 1% (PgBouncer's own SET and DISCARD ALL on its server
 * connections add a few dozen; measured +24 and +34).
 */
static void
counts_in_mode(const char *mode)
{
    char set[64], *args[] = {"run", pooled, "--headless", "-t",        "500",          "-c", "8",
                             "-j",  "2",    "-w",         "tpcb-like", "--no-collect", "-q", NULL};
    long long before, after;
    struct run r;
    const char *sum;

    snprintf(set, sizeof set, "SET pool_mode = '%s'", mode);
    say(set);
    before = commits();
    r = itest_runv(args);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    if (r.status != 0 || sum == NULL)
        fprintf(stderr, "status %d\n%s\n%s\n", r.status, r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(sum);
    assert_int_equal((long long)itest_num(sum, "transactions"), 4000);
    assert_int_equal((long long)itest_num(sum, "errors"), 0);
    after = commits();
    fprintf(stderr, "  %s pooling: 4000 transactions, server commits +%lld\n", mode,
            after - before);
    assert_true(llabs(after - before - 4000) <= 40);
    itest_free(&r);
}

static void
test_transaction_pooling_counts(void **state)
{
    counts_in_mode("transaction");
}

static void
test_session_pooling_counts(void **state)
{
    counts_in_mode("session");
    say("SET pool_mode = 'transaction'");
}

/* Mean connection set-up of a -C run, in microseconds. */
static double
connect_cost(const char *target)
{
    char *args[] = {"run", (char *)target, "--headless",  "-T",           "3",  "-C", "-c",
                    "4",   "-w",           "select-only", "--no-collect", "-q", NULL};
    struct run r = itest_runv(args);
    const char *sum = itest_line(r.out, "\"type\":\"summary\"");
    double us;

    if (r.status != 0 || sum == NULL)
        fprintf(stderr, "status %d\n%s\n%s\n", r.status, r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(sum);
    assert_true(itest_num(sum, "transactions") > 0);
    us = itest_num(sum, "connect_us_mean");
    itest_free(&r);
    return us;
}

/* The seed's point: a new connection per transaction costs a backend fork only without a pooler. */
static void
test_connect_per_transaction_is_cheap_through_the_pooler(void **state)
{
    double straight = connect_cost(direct), through = connect_cost(pooled);

    fprintf(stderr, "  -C set-up: %.0f us straight, %.0f us through pgbouncer\n", straight,
            through);
    assert_true(through > 0);
    assert_true(through < straight / 2);
}

/* Transaction pooling cannot keep prepared statements (PgBouncer 1.18): refused before the run. */
static void
test_prepared_refused_in_transaction_pooling(void **state)
{
    char *args[] = {"run", pooled, "--headless", "-T", "2", "-M", "prepared", NULL};
    struct run r = itest_runv(args);

    if (r.status != 2)
        fprintf(stderr, "status %d\n%s\n", r.status, r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "-M prepared cannot work through PgBouncer"));
    assert_non_null(strstr(r.err, "transaction pooling"));
    assert_int_equal(itest_lines(r.err), 1);
    assert_null(strstr(r.out, "\"type\":\"interval\""));
    itest_free(&r);
}

/*
 * The pooler is found at the target's port and watched beside the server
 * (--server): with 2 server connections for 16 clients, clients wait, and
 * the verdict is pool-bound (the server behind has spare capacity).
 */
static void
test_pooler_found_and_clients_wait(void **state)
{
    char *args[] = {"run", pooled,        "--headless", "-T",   "8",  "-c", "16",
                    "-w",  "select-only", "--server",   direct, "-q", NULL};
    struct run r;
    double waiting, servers;

    say("SET default_pool_size = 2");
    say("KILL " DB); /* server connections opened for a larger pool would go on serving */
    say("RESUME " DB);
    r = itest_runv(args);
    say("SET default_pool_size = 8");
    if (r.status != 0)
        fprintf(stderr, "status %d\n%s\n", r.status, r.err);
    assert_int_equal(r.status, 0);
    assert_true(itest_count_lines(r.out, "\"collector\":\"postgres\"") >= 3);
    assert_true(itest_count_lines(r.out, "\"collector\":\"pgbouncer\"") >= 3);
    waiting = itest_max_row(r.out, "\"collector\":\"pgbouncer\"", "clients waiting");
    servers = itest_max_row(r.out, "\"collector\":\"pgbouncer\"", "server conns");
    fprintf(stderr, "  pool of 2, 16 clients: %.0f waiting, %.0f server connections\n", waiting,
            servers);
    assert_true(waiting >= 8);
    assert_true(servers <= 2);
    assert_true(itest_count_lines(r.out, "\"verdict\":{\"kind\":\"pool\"") >= 3);
    assert_non_null(strstr(itest_line(r.out, "\"type\":\"interval\""), "pool-bound"));
    /* The server's collector read the server, not the pooler: its sessions are benchtop's 2. */
    assert_non_null(strstr(itest_line(r.out, "\"collector\":\"postgres\""), direct + 11));
    itest_free(&r);
}

/*
 * Session pooling, a pool of 4, 16 clients: a client keeps its server
 * connection for its whole session, so 12 wait for one. The pooler's
 * collector says so, with the mode, whatever the run makes of it.
 */
static void
test_session_pool_clients_wait(void **state)
{
    char *args[] = {"run", pooled,        "--headless", "-T",   "5",  "-c", "16",
                    "-w",  "select-only", "--server",   direct, "-q", NULL};
    struct run r;
    double waiting;
    const char *sum;

    say("SET pool_mode = 'session'");
    say("SET default_pool_size = 4");
    say("KILL " DB);
    say("RESUME " DB);
    r = itest_runv(args);
    say("SET pool_mode = 'transaction'");
    say("SET default_pool_size = 8");
    say("KILL " DB);
    say("RESUME " DB);
    waiting = itest_max_row(r.out, "\"collector\":\"pgbouncer\"", "clients waiting");
    fprintf(stderr, "  session pool of 4, 16 clients: status %d, %.0f waiting\n", r.status,
            waiting);
    assert_true(waiting >= 8);
    assert_non_null(strstr(itest_line(r.out, "\"collector\":\"pgbouncer\""), "session"));
    /* the 12 that never got a server connection are said, with their wait: not hidden */
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    fprintf(stderr, "  never done: %.0f, oldest wait %.1f s\n",
            itest_num(sum, "clients_never_done"), itest_num(sum, "oldest_in_flight_s"));
    assert_int_equal((int)itest_num(sum, "clients_never_done"), 12);
    assert_true(itest_num(sum, "oldest_in_flight_s") > 3);
    itest_free(&r);
}

/* --pooler none: no pooler collector, and no refusal either. */
static void
test_pooler_none(void **state)
{
    char *args[] = {"run", pooled, "--headless", "-T", "2", "--pooler", "none", "-q", NULL};
    struct run r = itest_runv(args);

    assert_int_equal(r.status, 0);
    assert_int_equal(itest_count_lines(r.out, "\"collector\":\"pgbouncer\""), 0);
    itest_free(&r);
}

/*
 * A run on PostgreSQL itself finds no pooler without asking that server for a
 * database "pgbouncer": the FATAL it would log is counted in its log.
 */
static void
test_server_itself_not_probed(void **state)
{
    char log[512], script[64], *args[] = {"run",        (char *)itest_env("BENCHTOP_PG_TARGET"),
                                          "--headless", "-T",
                                          "2",          "-f",
                                          script,       "-q",
                                          NULL};
    const char *fatal = "database \"pgbouncer\" does not exist";
    char *before, *after;
    struct run r;

    snprintf(log, sizeof log, "%s/postgres.log", itest_env("BENCHTOP_PG_DIR"));
    snprintf(script, sizeof script, "/tmp/bt-pgb-select-%d.sql", (int)getpid());
    itest_write_file(script, "SELECT 1;\n"); /* database postgres has no pgbench tables */
    before = itest_read_file(log);
    r = itest_runv(args);
    after = itest_read_file(log);
    unlink(script);
    if (r.status != 0)
        fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_int_equal(itest_count_lines(r.out, "\"collector\":\"pgbouncer\""), 0);
    assert_true(itest_count_lines(r.out, "\"collector\":\"postgres\"") >= 1);
    assert_int_equal(itest_count_lines(after, fatal), itest_count_lines(before, fatal));
    free(before);
    free(after);
    itest_free(&r);
}

/* demo pgbouncer: both servers up, both collectors, both folders gone afterwards. */
static void
test_demo(void **state)
{
    char *args[] = {"demo", "pgbouncer", "-T", "3", "--headless", NULL};
    struct run r = itest_runv(args);
    const char *folder = strstr(r.err, "(folder "),
               *sum = itest_line(r.out, "\"type\":\"summary\"");
    char dir[128];

    if (r.status != 0)
        fprintf(stderr, "status %d\n%s\n", r.status, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(sum);
    assert_true(itest_num(sum, "transactions") > 0);
    assert_true(itest_count_lines(r.out, "\"collector\":\"pgbouncer\"") >= 2);
    assert_true(itest_count_lines(r.out, "\"collector\":\"postgres\"") >= 2);
    assert_non_null(folder);
    snprintf(dir, sizeof dir, "%.*s", (int)strcspn(folder + 8, ")"), folder + 8);
    assert_int_equal(access(dir, F_OK), -1);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transaction_pooling_counts),
        cmocka_unit_test(test_session_pooling_counts),
        cmocka_unit_test(test_session_pool_clients_wait),
        cmocka_unit_test(test_connect_per_transaction_is_cheap_through_the_pooler),
        cmocka_unit_test(test_prepared_refused_in_transaction_pooling),
        cmocka_unit_test(test_pooler_found_and_clients_wait),
        cmocka_unit_test(test_pooler_none),
        cmocka_unit_test(test_server_itself_not_probed),
        cmocka_unit_test(test_demo),
    };

    if (getenv("BENCHTOP_PB_TARGET") == NULL) {
        test_skip_program("no PgBouncer server in this run (pgbouncer is not installed)");
        return 0;
    }
    return cmocka_run_group_tests(tests, setup, teardown);
}
