/*
 * Bad input for MySQL targets and a server restart mid-run, against the
 * throwaway MariaDB. Every bad input gets one line on stderr naming the
 * problem and the fix, exit code 2, no password anywhere, and leaves
 * nothing behind on the server.
 */
#include "config.h"

#include "itest.h"

#ifdef HAVE_MYSQL

#include "itest-mysql.h"

#define DB "bt_my_err"

static MYSQL *admin;

static int
setup(void **state)
{
    MYSQL *m = itest_my(NULL);

    itest_my_exec(m, "DROP DATABASE IF EXISTS bt_my_empty");
    itest_my_exec(m, "CREATE DATABASE bt_my_empty");
    itest_my_exec(m, "DROP USER IF EXISTS 'bt_pw'@'127.0.0.1'");
    itest_my_exec(m, "CREATE USER 'bt_pw'@'127.0.0.1' IDENTIFIED BY 'rightpw'");
    itest_my_exec(m, "GRANT SELECT ON " DB ".* TO 'bt_pw'@'127.0.0.1'");
    mysql_close(m);
    if (itest_my_fresh_db(DB, "1", "2000") < 0)
        return -1;
    admin = itest_my(DB);
    return 0;
}

static int
teardown(void **state)
{
    mysql_close(admin);
    return 0;
}

/* Runs benchtop, expects exit 2 and exactly one stderr line containing every word in want. */
static void
expect_error(char **args, const char *const *want)
{
    struct run r = itest_runv(args);
    int i;

    fprintf(stderr, "  %s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_int_equal(strlen(r.out), 0);
    assert_non_null(strstr(r.err, "benchtop: "));
    for (i = 0; want[i] != NULL; i++)
        if (strstr(r.err, want[i]) == NULL)
            fail_msg("'%s' not in: %s", want[i], r.err);
    itest_free(&r);
}

static void
test_wrong_password(void **state)
{
    char *args[] = {"run", itest_my_target_as("bt_pw:sekrit99", DB), "-T", "1", NULL};
    const char *want[] = {"Access denied for user 'bt_pw'", "password", NULL};
    struct run r;

    expect_error(args, want);
    r = itest_runv(args);
    assert_null(strstr(r.err, "sekrit99"));
    itest_free(&r);
}

static void
test_unknown_database(void **state)
{
    char *args[] = {"run", itest_my_target("no_such_db"), "-T", "1", NULL};
    const char *want[] = {"Unknown database 'no_such_db'", "CREATE DATABASE", NULL};
    expect_error(args, want);
}

static void
test_missing_tables(void **state)
{
    char *args[] = {"run", itest_my_target("bt_my_empty"), "-T", "1", NULL};
    const char *want[] = {"sysbench tables not found", "bt_my_empty", "benchtop init", NULL};

    expect_error(args, want);
    assert_int_equal(itest_my_scalar(admin, "SELECT COUNT(*) FROM information_schema.TABLES "
                                            "WHERE TABLE_SCHEMA = 'bt_my_empty'"),
                     0);
}

static void
test_missing_counter_table(void **state)
{
    char *args[] = {"run", itest_my_target("bt_my_empty"), "-T", "1", "-w", "counter", NULL};
    const char *want[] = {"benchtop_counter not found", "benchtop init", NULL};
    expect_error(args, want);
}

/* --tables asks for more than init made. */
static void
test_too_many_tables(void **state)
{
    char *args[] = {"run", itest_my_target(DB), "-T", "1", "--tables", "3", NULL};
    const char *want[] = {"sbtest2 not found", "--tables 3", NULL};
    expect_error(args, want);
}

static void
test_no_database_in_target(void **state)
{
    char target[128];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"names no database", "dbname", NULL};

    snprintf(target, sizeof target, "mysql://root@127.0.0.1:%u", itest_my_port());
    expect_error(args, want);
}

static void
test_malformed_uri(void **state)
{
    char *args[] = {"run", "mysql://u:hunter2@[::1:3306/x", "-T", "1", NULL};
    const char *want[] = {"invalid target", "mysql://u:***@", NULL};
    struct run r = itest_runv(args);

    expect_error(args, want);
    assert_null(strstr(r.err, "hunter2"));
    itest_free(&r);
}

static void
test_unknown_parameter(void **state)
{
    char target[160];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"unknown parameter 'sslmode'", "ssl-mode", NULL};

    snprintf(target, sizeof target, "mysql://root@127.0.0.1:%u/%s?sslmode=on", itest_my_port(), DB);
    expect_error(args, want);
}

/* The test server has no TLS: a target that requires it is refused, not silently in the clear. */
static void
test_tls_required(void **state)
{
    char target[160];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"offers no TLS", "ssl-mode", NULL};

    snprintf(target, sizeof target, "mysql://root@127.0.0.1:%u/%s?ssl-mode=REQUIRED",
             itest_my_port(), DB);
    expect_error(args, want);
}

static void
test_refused(void **state)
{
    char *args[] = {"run", "mysql://root@127.0.0.1:1/x", "-T", "1", NULL};
    const char *want[] = {"127.0.0.1:1", "is the server running", NULL};
    expect_error(args, want);
}

/* A port where another kind of server listens (the PostgreSQL test server): it never greets. */
static void
test_not_mysql(void **state)
{
    const char *pg = itest_env("BENCHTOP_PG_TARGET");
    const char *colon = strrchr(pg, ':');
    char target[128];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"is host:port a MySQL or MariaDB server?", NULL};

    snprintf(target, sizeof target, "mysql://root@127.0.0.1:%d/x", atoi(colon + 1));
    expect_error(args, want);
}

static void
test_unknown_workload(void **state)
{
    char *args[] = {"run", itest_my_target(DB), "-w", "tpcb-like", NULL};
    const char *want[] = {"unknown workload 'tpcb-like'", "point-select", NULL};
    expect_error(args, want);
}

static void
test_unknown_protocol(void **state)
{
    char *args[] = {"run", itest_my_target(DB), "-M", "extended", NULL};
    const char *want[] = {"unknown protocol 'extended'", "prepared", NULL};
    expect_error(args, want);
}

/* A script that cannot be read is named with what to fix (test_scripts has the running ones). */
static void
test_script_refused(void **state)
{
    char *args[] = {"run", itest_my_target(DB), "-f", "/nonexistent/x.sql", NULL};
    const char *want[] = {"cannot read script /nonexistent/x.sql", "-f", NULL};
    expect_error(args, want);
}

/* bt_pw may only SELECT: a writing workload is refused before the run, naming the statement. */
static void
test_missing_privilege(void **state)
{
    char *args[] = {"run", itest_my_target_as("bt_pw:rightpw", DB), "-T", "1", "-w", "write-only",
                    NULL};
    const char *want[] = {"the server rejects UPDATE sbtest1", "command denied", NULL};
    expect_error(args, want);
}

/* The password never reaches stdout, stderr or the process's command line. */
static void
test_password_hidden(void **state)
{
    char *args[] = {"run", itest_my_target_as("bt_pw:rightpw", DB), "--headless", "-T", "2", NULL};
    char cmdline[4096];
    int o, e;
    pid_t pid;
    struct run r;

    pid = itest_spawn(args, &o, &e);
    itest_cmdline_masked(pid, "***", cmdline, sizeof(cmdline));
    assert_null(strstr(cmdline, "rightpw"));
    assert_non_null(strstr(cmdline, "bt_pw"));
    r = itest_finish(pid, o, e);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"target\":\"mysql://bt_pw:***@"));
    assert_null(strstr(r.out, "rightpw"));
    assert_null(strstr(r.err, "rightpw"));
    itest_free(&r);
}

/* init refuses existing tables without --force and leaves them as they were. */
static void
test_init_refuses(void **state)
{
    char *args[] = {"init", itest_my_target(DB), NULL};
    const char *want[] = {"already exist", "sbtest1", "--force", NULL};

    itest_my_exec(admin, "UPDATE sbtest1 SET k = 4242 WHERE id = 1");
    expect_error(args, want);
    assert_int_equal(itest_my_scalar(admin, "SELECT k FROM sbtest1 WHERE id = 1"), 4242);
}

/* init --force rebuilds: sysbench's columns, keys and values. */
static void
test_init_force(void **state)
{
    char *args[] = {"init", itest_my_target(DB), "--force", "--table-size", "1500", "-q", NULL};
    struct run r = itest_runv(args);

    assert_int_equal(r.status, 0);
    itest_free(&r);
    assert_int_equal(itest_my_scalar(admin, "SELECT COUNT(*) FROM sbtest1"), 1500);
    assert_int_equal(itest_my_scalar(admin, "SELECT MAX(id) FROM sbtest1"), 1500);
    assert_int_equal(itest_my_scalar(admin, "SELECT COUNT(*) FROM sbtest1 WHERE k < 1 OR k > 1500 "
                                            "OR LENGTH(c) <> 119 OR LENGTH(pad) <> 59 "
                                            "OR c NOT REGEXP '^([0-9]{11}-){9}[0-9]{11}$'"),
                     0);
    assert_int_equal(itest_my_scalar(admin,
                                     "SELECT COUNT(*) FROM information_schema.STATISTICS "
                                     "WHERE TABLE_SCHEMA = '" DB "' AND TABLE_NAME = "
                                     "'sbtest1' AND INDEX_NAME = 'k_1' AND COLUMN_NAME = 'k'"),
                     1);
    assert_int_equal(itest_my_scalar(admin, "SELECT n FROM benchtop_counter WHERE id = 1"), 0);
}

/* Ctrl-C during init: the tables it made so far are dropped again. */
static void
test_init_interrupted(void **state)
{
    char *args[] = {
        "init", itest_my_target("bt_my_empty"), "--tables", "2", "--table-size", "3000000", NULL};
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);
    struct run r;

    itest_sleep_ms(1500); /* inserting by then: 2 x 3,000,000 rows take far longer */
    assert_int_equal(kill(pid, SIGINT), 0);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "  init after SIGINT: status %d\n", r.status);
    assert_int_not_equal(r.status, 0);
    assert_int_equal(itest_my_scalar(admin, "SELECT COUNT(*) FROM information_schema.TABLES "
                                            "WHERE TABLE_SCHEMA = 'bt_my_empty'"),
                     0);
    itest_free(&r);
}

/* The server restarts mid-run: the run goes on, reconnects, and ends with a summary. */
static void
test_server_restart(void **state)
{
    char *args[] = {"run", itest_my_target(DB), "--headless", "-T", "12", "-c", "4", "-j", "2",
                    "-w",  "read-write",        NULL};
    const char *sum, *last;
    struct run r = itest_run_through_restart(args, "MY", 2500, 4, 1, &sum);

    assert_true(itest_num(sum, "transactions") > 0);
    /* the intervals after the restart carry load again */
    last = itest_line(r.out, "\"type\":\"interval\",\"t\":11.");
    assert_non_null(last);
    assert_true(itest_num(last, "tps") > 0);
    assert_int_equal((long long)itest_num(last, "connected"), 4);
    itest_free(&r);
}

/* Starts build/tools/delay-proxy in front of the server; returns its pid and its port. */
static pid_t
start_proxy(char *const extra[], int *port)
{
    char bin[600], target_port[16], line[64];
    char *argv[10] = {bin, "0", "127.0.0.1", target_port};
    int fds[2], n = 4;
    pid_t pid;
    FILE *f;

    itest_tool("delay-proxy", bin, sizeof bin);
    snprintf(target_port, sizeof target_port, "%u", itest_my_port());
    for (; *extra != NULL && n < 9; extra++)
        argv[n++] = *extra;
    argv[n] = NULL;
    assert_int_equal(pipe(fds), 0);
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execv(bin, argv);
        _exit(127);
    }
    close(fds[1]);
    f = fdopen(fds[0], "r");
    if (fgets(line, sizeof line, f) == NULL || sscanf(line, "port=%d", port) != 1)
        fail_msg("delay-proxy did not start: %s", bin);
    fclose(f);
    return pid;
}

/*
 * A stream that turns to garbage mid-run (every byte from the server
 * inverted 1 s into each connection): the client waits for a packet that
 * never ends. Each stalled connection is counted as a connection error,
 * closed and reconnected after --stall-timeout, and the run goes on.
 */
static void
test_corrupt_stream(void **state)
{
    char *extra[] = {"0", "60", "1000", NULL};
    char target[200];
    int port;
    pid_t proxy = start_proxy(extra, &port);
    char *args[] = {"run",        target,
                    "--headless", "-T",
                    "7",          "-c",
                    "2",          "--table-size",
                    "1500",       "--stall-timeout",
                    "1",          "--no-collect",
                    NULL};
    const char *sum;
    struct run r;

    snprintf(target, sizeof target, "mysql://root@127.0.0.1:%d/" DB, port);
    r = itest_runv(args);
    kill(proxy, SIGTERM);
    waitpid(proxy, NULL, 0);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    fprintf(stderr, "%s", r.err);
    assert_non_null(sum);
    assert_int_equal(r.status, itest_status_for(sum)); /* stalled transactions failed: 2 */
    /* each connection stalls about every 2 s (1 s of service, 1 s of stall) */
    assert_true(itest_num(sum, "reconnects") >= 2);
    assert_true(itest_num(strstr(sum, "errors_by_kind"), "connection") >= 2);
    assert_non_null(strstr(r.err, "no progress for 1 s"));
    assert_true(itest_num(sum, "transactions") > 0);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrong_password),    cmocka_unit_test(test_unknown_database),
        cmocka_unit_test(test_missing_tables),    cmocka_unit_test(test_missing_counter_table),
        cmocka_unit_test(test_too_many_tables),   cmocka_unit_test(test_no_database_in_target),
        cmocka_unit_test(test_malformed_uri),     cmocka_unit_test(test_unknown_parameter),
        cmocka_unit_test(test_tls_required),      cmocka_unit_test(test_refused),
        cmocka_unit_test(test_not_mysql),         cmocka_unit_test(test_unknown_workload),
        cmocka_unit_test(test_unknown_protocol),  cmocka_unit_test(test_script_refused),
        cmocka_unit_test(test_missing_privilege), cmocka_unit_test(test_password_hidden),
        cmocka_unit_test(test_init_refuses),      cmocka_unit_test(test_init_force),
        cmocka_unit_test(test_init_interrupted),  cmocka_unit_test(test_server_restart),
        cmocka_unit_test(test_corrupt_stream),
    };
    return cmocka_run_group_tests_name("mysql_errors", tests, setup, teardown);
}

#else

int
main(void)
{
    test_skip_program("the mysql backend is not built");
    return 0;
}

#endif
