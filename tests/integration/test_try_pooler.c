/*
 * benchtop try on a pooler's settings: the throwaway PgBouncer
 * (BENCHTOP_PB_TARGET) in front of its PostgreSQL (BENCHTOP_PB_BEHIND),
 * its pool cut to 2 server connections. 16 clients each running
 * SELECT pg_sleep(0.01) get through 2 at a time (about 200 tps at most),
 * so default_pool_size=16 must win by far (8x the connections); afterwards
 * SHOW CONFIG on the console says 2 again. A setting PgBouncer reads only
 * at start, a name both or neither know, and a value the console cannot
 * quote are refused with exit 2 and nothing changed; SIGTERM in a B round
 * and SIGKILL then try --undo put the pool back. Every value is read with
 * the test's own SHOW CONFIG.
 */
#include "itest-try.h"

#define DB "bt_pgbtry"

static PGconn *console; /* PgBouncer's admin console, the test's own */
static char pooled[512], console_target[512], script[64];
static char state_dir[] = "/tmp/itest-trypool-XXXXXX";

/* target with its database replaced by db. */
static void
retarget(char *out, size_t len, const char *target, const char *db)
{
    const char *slash = strrchr(target, '/');

    snprintf(out, len, "%.*s/%s", (int)(slash - target), target, db);
}

static void
say(const char *cmd)
{
    PGresult *r = PQexec(console, cmd);

    assert_true(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK);
    PQclear(r);
}

/* SHOW CONFIG's value of key, on the test's own console connection. */
static const char *
config(const char *key)
{
    static char value[128];
    PGresult *r = PQexec(console, "SHOW CONFIG");

    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    value[0] = '\0';
    for (int i = 0; i < PQntuples(r); i++)
        if (strcmp(PQgetvalue(r, i, 0), key) == 0)
            snprintf(value, sizeof value, "%s", PQgetvalue(r, i, 1));
    PQclear(r);
    assert_true(value[0] != '\0');
    return value;
}

static int
setup(void **state)
{
    PGconn *c = PQconnectdb(itest_env("BENCHTOP_PB_BEHIND"));

    if (mkdtemp(state_dir) == NULL || PQstatus(c) != CONNECTION_OK)
        return -1;
    setenv("XDG_STATE_HOME", state_dir, 1); /* the undo files of this test's tries */
    itest_exec(c, "DROP DATABASE IF EXISTS " DB);
    itest_exec(c, "CREATE DATABASE " DB);
    PQfinish(c);
    retarget(pooled, sizeof pooled, itest_env("BENCHTOP_PB_TARGET"), DB);
    retarget(console_target, sizeof console_target, itest_env("BENCHTOP_PB_TARGET"), "pgbouncer");
    console = PQconnectdb(console_target);
    if (PQstatus(console) != CONNECTION_OK)
        return -1;
    snprintf(script, sizeof script, "/tmp/bt-trypool-%d.sql", (int)getpid());
    itest_write_file(script, "SELECT pg_sleep(0.01);\n");
    say("SET pool_mode = 'transaction'");
    say("SET default_pool_size = 2");
    say("KILL " DB); /* server connections of a larger pool would go on serving */
    say("RESUME " DB);
    return 0;
}

static int
teardown(void **state)
{
    char cmd[700];

    say("SET default_pool_size = 8"); /* the harness's pool, for the tests after these */
    PQfinish(console);
    unlink(script);
    snprintf(cmd, sizeof cmd, "rm -rf %s", state_dir);
    return system(cmd);
}

/* A try that is refused before anything changes: exit 2, one line with want, pool still 2. */
static void
refused(const char *set, const char *want)
{
    char *args[] = {"try", pooled, "--pooler", console_target, "--set", (char *)set, NULL};
    struct run r = itest_runv(args);

    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(itest_lines(r.err), 1);
    assert_string_equal(config("default_pool_size"), "2");
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

static void
test_pool_size_wins_and_is_put_back(void **state)
{
    char *args[] = {"try",      pooled,
                    "--pooler", console_target,
                    "-c",       "16",
                    "-f",       script,
                    "--set",    "default_pool_size=16",
                    "--rounds", "3",
                    "--for",    "3",
                    "--warmup", "1",
                    NULL};
    struct run r = itest_runv(args);
    double a, b;

    fprintf(stderr, "%s%s", r.err, r.out);
    assert_int_equal(r.status, 0);
    a = itest_row_tps(r.out, "\nA ");
    b = itest_row_tps(r.out, "\nB ");
    assert_true(a < 250);   /* 2 connections x 10 ms: 200 tps at most */
    assert_true(b > 3 * a); /* 16 connections: up to 8x */
    assert_non_null(strstr(r.out, "default_pool_size=16"));
    assert_non_null(strstr(r.out, "\nB is faster: +"));
    assert_non_null(strstr(r.out, ", 3 pairs (beyond \u00b15%)\n"));
    assert_non_null(strstr(r.out, "A was pool-bound; its advice expected B faster by +"));
    assert_non_null(strstr(r.out, "]): held\n"));
    assert_string_equal(config("default_pool_size"), "2");
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

/* Server connections DB's pool holds now (SHOW POOLS: active, idle, used, tested, login). */
static int
pool_servers(void)
{
    static const char *const cols[] = {"sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login"};
    PGresult *r = PQexec(console, "SHOW POOLS");
    int n = 0;

    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    for (int i = 0; i < PQntuples(r); i++)
        if (strcmp(PQgetvalue(r, i, PQfnumber(r, "database")), DB) == 0)
            for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
                n += atoi(PQgetvalue(r, i, PQfnumber(r, cols[c])));
    PQclear(r);
    return n;
}

/*
 * Under a load that goes on (as the dashboard's t runs), the pool put
 * back from 16 to 2 is 2 at once: the connections B's pool opened stay
 * busy, so each revert PAUSEs and RESUMEs the database (bounded), and
 * the load beside it loses no transaction to it. Without the PAUSE the
 * pool served on at 3 to 16 for seconds after the revert.
 */
static void
test_pool_lowered_under_load(void **state)
{
    char *load[] = {"run", pooled, "-f", script, "-c", "16", "-T", "40", "--headless", "-q", NULL};
    char *args[] = {"try",      pooled,
                    "--pooler", console_target,
                    "-c",       "4",
                    "-f",       script,
                    "--set",    "default_pool_size=16",
                    "--rounds", "3",
                    "--for",    "2",
                    "--warmup", "1",
                    NULL};
    int o, e, n, servers;
    pid_t pid = itest_spawn(load, &o, &e);
    struct run r;

    itest_sleep_ms(2000);
    r = itest_runv(args);
    servers = pool_servers(); /* read at once: the background load still runs */
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.err, "PAUSE"));
    assert_string_equal(config("default_pool_size"), "2");
    assert_true(servers <= 2);
    itest_free(&r);
    r = itest_finish(pid, o, e);
    assert_int_equal(r.status, 0);
    n = 0; /* every line's errors 0 */
    for (const char *p = r.out; (p = strstr(p, "\"errors\":")) != NULL; p++)
        n += p[9] == '0' ? 1 : -1000;
    assert_true(n > 0);
    itest_free(&r);
}

static void
test_restart_only_refused(void **state)
{
    char port[16];

    snprintf(port, sizeof port, "%s", config("listen_port"));
    refused("listen_port=33999", "listen_port needs a PgBouncer restart");
    assert_string_equal(config("listen_port"), port);
}

static void
test_names_both_or_neither_refused(void **state)
{
    refused("log_connections=0", "log_connections is both a PgBouncer and a PostgreSQL setting");
    assert_string_equal(config("log_connections"), "1");
    refused("no_such_setting=1", "no_such_setting is neither a PgBouncer nor a PostgreSQL setting");
}

static void
test_quote_refused(void **state)
{
    char before[128];

    snprintf(before, sizeof before, "%s", config("server_check_query"));
    refused("server_check_query=select 1'; SET default_pool_size = '40",
            "cannot take a value with a quote");
    assert_string_equal(config("server_check_query"), before);
}

/* Starts a try (the pooler found at the target's port) and returns inside a B round. */
static pid_t
start_until_b(int *o, int *e)
{
    char *args[] = {
        "try",      pooled, "-c",    "16", "-f",       script, "--set", "default_pool_size=16",
        "--rounds", "2",    "--for", "3",  "--warmup", "1",    NULL};
    pid_t pid = itest_spawn(args, o, e);

    /* B set and still set 300 ms later: inside a B round, not at its revert */
    for (int i = 0, seen = 0; i < 600 && seen < 4; i++) {
        seen = strcmp(config("default_pool_size"), "16") == 0 ? seen + 1 : 0;
        itest_sleep_ms(100);
    }
    assert_string_equal(config("default_pool_size"), "16");
    return pid;
}

static void
test_sigterm_in_b_reverts(void **state)
{
    int o, e;
    pid_t pid = start_until_b(&o, &e);
    struct run r;

    kill(pid, SIGTERM);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 128 + SIGTERM);
    assert_non_null(strstr(r.err, "put back"));
    assert_string_equal(config("default_pool_size"), "2");
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

static void
test_sigkill_then_undo(void **state)
{
    char *blind[] = {"try", "--undo", pooled, "--pooler", "none", NULL};
    char *undo[] = {"try", "--undo", pooled, "--pooler", console_target, NULL};
    int o, e;
    pid_t pid = start_until_b(&o, &e);
    struct run r;

    kill(pid, SIGKILL);
    r = itest_finish(pid, o, e);
    itest_free(&r);
    assert_string_equal(config("default_pool_size"), "16"); /* nothing could revert it */
    assert_int_equal(itest_undo_files(state_dir), 1);
    r = itest_runv(blind); /* the undo file names the pooler it needs */
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "settings of the pooler"));
    assert_non_null(strstr(r.err, "--pooler"));
    assert_int_equal(itest_lines(r.err), 1);
    assert_string_equal(config("default_pool_size"), "16");
    assert_int_equal(itest_undo_files(state_dir), 1);
    itest_free(&r);
    r = itest_runv(undo);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "put default_pool_size back to 2"));
    assert_string_equal(config("default_pool_size"), "2");
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

/*
 * A script's check before each run prepared its statements under names
 * (benchtop_check_0, ...), which stay on PgBouncer's server connection
 * after the client leaves: a try's second round met them there ("prepared
 * statement \"benchtop_check_0\" already exists"). With one server
 * connection holding that name, the check still passes.
 */
static void
test_script_check_beside_a_prepared_name(void **state)
{
    char *args[] = {"run", pooled, "-f", script, "-c", "1", "-T", "1", "--headless", "-q", NULL};
    PGconn *c;
    struct run r;

    say("SET default_pool_size = 1");
    say("KILL " DB);
    say("RESUME " DB);
    c = PQconnectdb(pooled);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    itest_exec(c, "PREPARE benchtop_check_0 AS SELECT 1");
    PQfinish(c);
    r = itest_runv(args);
    if (r.status != 0)
        fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.err, "already exists"));
    itest_free(&r);
    say("SET default_pool_size = 2");
    say("KILL " DB);
    say("RESUME " DB);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_size_wins_and_is_put_back),
        cmocka_unit_test(test_pool_lowered_under_load),
        cmocka_unit_test(test_restart_only_refused),
        cmocka_unit_test(test_names_both_or_neither_refused),
        cmocka_unit_test(test_quote_refused),
        cmocka_unit_test(test_sigterm_in_b_reverts),
        cmocka_unit_test(test_sigkill_then_undo),
        cmocka_unit_test(test_script_check_beside_a_prepared_name),
    };

    if (getenv("BENCHTOP_PB_TARGET") == NULL) {
        test_skip_program("no PgBouncer server in this run (pgbouncer is not installed)");
        return 0;
    }
    return cmocka_run_group_tests(tests, setup, teardown);
}
