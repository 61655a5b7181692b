/*
 * Bad input and a server restart mid-run, against the throwaway server.
 * Every bad input gets one line on stderr naming the problem and the fix,
 * exit code 2, and leaves nothing behind on the server.
 */
#include "itest.h"

#define DB "bt_err"

static PGconn *admin;

static int
setup(void **state)
{
    PGconn *c = itest_pg("postgres");
    char *args[] = {"init", itest_target(DB), "-q", NULL};
    struct run r;

    itest_exec(c, "DROP DATABASE IF EXISTS " DB);
    itest_exec(c, "DROP DATABASE IF EXISTS bt_empty");
    itest_exec(c, "CREATE DATABASE " DB);
    itest_exec(c, "CREATE DATABASE bt_empty");
    PQfinish(c);
    r = itest_runv(args);
    itest_free(&r);
    admin = itest_pg(DB);
    return r.status == 0 ? 0 : -1;
}

static int
teardown(void **state)
{
    PQfinish(admin);
    return 0;
}

/* Runs benchtop, expects exit 2 and exactly one stderr line containing every word in `want`. */
static void
expect_error(char **args, const char *const *want)
{
    struct run r = itest_runv(args);
    int i;

    fprintf(stderr, "  %s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_int_equal(strlen(r.out), 0);
    for (i = 0; want[i] != NULL; i++) {
        if (strstr(r.err, want[i]) == NULL)
            fail_msg("'%s' not in: %s", want[i], r.err);
    }
    itest_free(&r);
}

static void
test_unknown_flag(void **state)
{
    char *args[] = {"run", itest_target(DB), "--frobnicate", NULL};
    const char *want[] = {"unknown option", "--frobnicate", "--help", NULL};
    expect_error(args, want);
}

static void
test_malformed_uri(void **state)
{
    char *args[] = {"run", "postgres://u:hunter2@[::1:5432/x", "-T", "1", NULL};
    const char *want[] = {"invalid target", NULL};
    struct run r = itest_runv(args);

    expect_error(args, want);
    assert_null(strstr(r.err, "hunter2"));
    itest_free(&r);
}

static void
test_unreachable(void **state)
{
    char *args[] = {"run", "postgres://postgres@127.0.0.1:1/x", "-T", "1", NULL};
    const char *want[] = {"Connection refused", "server running", NULL};
    expect_error(args, want);
}

static void
test_missing_database(void **state)
{
    char *args[] = {"run", itest_target("no_such_db"), "-T", "1", NULL};
    const char *want[] = {"no_such_db", "does not exist", "createdb", NULL};
    expect_error(args, want);
}

static void
test_missing_tables(void **state)
{
    char *args[] = {"run", itest_target("bt_empty"), "-T", "1", NULL};
    const char *want[] = {"pgbench tables not found", "benchtop init", NULL};
    PGconn *c;

    expect_error(args, want);
    c = itest_pg("bt_empty");
    assert_int_equal(itest_scalar(c, "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench%'"),
                     0);
    PQfinish(c);
}

static void
test_zero_clients(void **state)
{
    char *args[] = {"run", itest_target(DB), "-c", "0", NULL};
    const char *want[] = {"--clients", "between 1", NULL};
    expect_error(args, want);
}

static void
test_negative_rate(void **state)
{
    char *args[] = {"run", itest_target(DB), "-R", "-5", NULL};
    const char *want[] = {"--rate", "between 0", NULL};
    expect_error(args, want);
}

static void
test_unreadable_script(void **state)
{
    char *args[] = {"run", itest_target(DB), "-f", "/nonexistent/x.sql", NULL};
    const char *want[] = {"cannot read script", "/nonexistent/x.sql", "-f", NULL};
    expect_error(args, want);
}

static void
test_script_syntax_error(void **state)
{
    char path[] = "/tmp/itest-bad-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "\\set aid random(1, 10\nSELECT :aid;\n";
    char *args[] = {"run", itest_target(DB), "-f", path, NULL};
    const char *want[] = {":1:", NULL};

    assert_true(write(fd, text, strlen(text)) > 0);
    close(fd);
    expect_error(args, want);
    unlink(path);
}

static void
test_script_server_rejects(void **state)
{
    char path[] = "/tmp/itest-bad-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "\\set aid random(1, 10)\n\nSELECT * FROM no_such_table WHERE x = :aid;\n";
    char *args[] = {"run", itest_target(DB), "-f", path, NULL};
    const char *want[] = {":3:", "no_such_table", NULL};

    assert_true(write(fd, text, strlen(text)) > 0);
    close(fd);
    expect_error(args, want);
    unlink(path);
}

static void
test_wrong_password(void **state)
{
    const char *dir = itest_env("BENCHTOP_PG_DIR");
    char hba[512], cmd[2048], target[512];
    const char *t = itest_env("BENCHTOP_PG_TARGET");
    const char *at = strchr(t, '@');
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"password authentication failed", "password", NULL};
    struct run r;

    /* a password-checked user, first in pg_hba.conf (which is first-match) */
    snprintf(hba, sizeof(hba), "%s/data/pg_hba.conf", dir);
    snprintf(cmd, sizeof(cmd),
             "grep -q bt_pwuser %s || sed -i '1i host all bt_pwuser 127.0.0.1/32 scram-sha-256' %s",
             hba, hba);
    assert_int_equal(system(cmd), 0);
    itest_exec(admin, "DROP ROLE IF EXISTS bt_pwuser");
    itest_exec(admin, "CREATE ROLE bt_pwuser LOGIN PASSWORD 'rightpw'");
    itest_exec(admin, "SELECT pg_reload_conf()");
    itest_sleep_ms(300);
    snprintf(target, sizeof(target), "postgres://bt_pwuser:sekrit99@%s", at + 1);
    expect_error(args, want);
    r = itest_runv(args);
    assert_null(strstr(r.err, "sekrit99"));
    itest_free(&r);
}

/*
 * /proc/PID/cmdline as the kernel gives it: the masked line, and no NULs
 * after it whose count would tell the password's length.
 */
static void
cmdline_tells_no_length(pid_t pid, const char *target_masked)
{
    char path[64], raw[4096], want[600];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    n = read(fd, raw, sizeof(raw) - 1);
    close(fd);
    assert_true(n > 0);
    raw[n] = '\0';
    snprintf(want, sizeof(want), "run %s --headless -T 2 -w select-only", target_masked);
    fprintf(stderr, "  /proc cmdline: %zd bytes: '%s'\n", n, raw);
    assert_int_equal(n, (ssize_t)strlen(raw) + 1); /* one NUL, at the end */
    assert_non_null(strstr(raw, want));
}

/* Whether the passwords in pid's command line are all masked: n "***" and no "rightpw". */
static int
cmdline_all_masked(pid_t pid, int n, char *buf, size_t len)
{
    const char *p;
    int found = 0;

    itest_cmdline(pid, buf, len);
    for (p = buf; (p = strstr(p, "***")) != NULL; p += 3)
        found++;
    return found == n && strstr(buf, "rightpw") == NULL;
}

/*
 * The targets of --server and --watch are parsed and masked like the load's:
 * none of the three passwords stays in `ps`, stdout or stderr.
 */
static void
test_option_passwords_hidden(void **state)
{
    char target[512], server[512], watch[512], cmdline[4096];
    const char *at = strchr(itest_target(DB), '@');
    char *args[] = {"run",         target,     "--headless", "-T",      "2",   "-w",
                    "select-only", "--server", server,       "--watch", watch, NULL};
    int o, e, i;
    pid_t pid;
    struct run r;

    (void)state;
    itest_exec(admin, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO bt_pwuser");
    snprintf(target, sizeof(target), "postgres://bt_pwuser:rightpw@%s", at + 1);
    snprintf(server, sizeof(server), "%s", target);
    snprintf(watch, sizeof(watch), "%s", target);
    pid = itest_spawn(args, &o, &e);
    for (i = 0; i < 200 && !cmdline_all_masked(pid, 3, cmdline, sizeof cmdline); i++)
        itest_sleep_ms(50);
    fprintf(stderr, "  cmdline: %s\n", cmdline);
    assert_true(cmdline_all_masked(pid, 3, cmdline, sizeof cmdline));
    r = itest_finish(pid, o, e);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "rightpw"));
    assert_null(strstr(r.err, "rightpw"));
    itest_free(&r);
}

/* The password never reaches stdout, stderr or the process's command line. */
static void
test_password_hidden(void **state)
{
    char target[512], masked[512], cmdline[4096];
    const char *at = strchr(itest_target(DB), '@');
    char *args[] = {"run", target, "--headless", "-T", "2", "-w", "select-only", NULL};
    int o, e;
    pid_t pid;
    struct run r;

    itest_exec(admin, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO bt_pwuser");
    snprintf(target, sizeof(target), "postgres://bt_pwuser:rightpw@%s", at + 1);
    snprintf(masked, sizeof(masked), "postgres://bt_pwuser:***@%s", at + 1);
    pid = itest_spawn(args, &o, &e);
    itest_cmdline_masked(pid, "***", cmdline, sizeof(cmdline));
    assert_null(strstr(cmdline, "rightpw"));
    assert_non_null(strstr(cmdline, "bt_pwuser"));
    cmdline_tells_no_length(pid, masked);
    r = itest_finish(pid, o, e);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"target\":\"postgres://bt_pwuser:***@"));
    assert_null(strstr(r.out, "rightpw"));
    assert_null(strstr(r.err, "rightpw"));
    itest_free(&r);
}

/* init refuses existing tables without --force and leaves them as they were. */
static void
test_init_refuses(void **state)
{
    char *args[] = {"init", itest_target(DB), NULL};
    const char *want[] = {"already exist", "--force", NULL};

    itest_exec(admin, "UPDATE pgbench_branches SET bbalance = 4242 WHERE bid = 1");
    expect_error(args, want);
    assert_int_equal(itest_scalar(admin, "SELECT bbalance FROM pgbench_branches WHERE bid = 1"),
                     4242);
}

/* The server restarts mid-run: the run goes on, reconnects, and ends with a summary. */
static void
test_server_restart(void **state)
{
    char *args[] = {"run", itest_target(DB), "--headless", "-T", "9", "-c", "4", "-j", "2",
                    "-w",  "select-only",    NULL};
    const char *sum, *last;
    struct run r = itest_run_through_restart(args, "PG", 2500, 4, 0, &sum);

    /* the intervals after the restart carry load again */
    last = itest_line(r.out, "\"type\":\"interval\",\"t\":8.");
    assert_non_null(last);
    assert_true(itest_num(last, "tps") > 0);
    assert_int_equal((long long)itest_num(last, "connected"), 4);
    itest_free(&r);
}

/*
 * A role at its CONNECTION LIMIT refuses the clients past it, as a server
 * at max_connections does: the run goes on with the others, and the error
 * it counts (and the verdict quotes) is the server's "FATAL: too many
 * connections for role", not libpq's 'connection to server at "...",
 * port N failed:' before it, which left the verdict's quote cut.
 */
static void
test_role_connection_limit(void **state)
{
    char target[512];
    const char *t = itest_target(DB), *at = strchr(t, '@');
    char *args[] = {"run", target, "--headless", "-T", "3", "-c", "6", "-w", "select-only", NULL};
    const char *sum;
    struct run r;

    (void)state;
    itest_exec(admin, "DO $$BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'bt_limited') "
                      "THEN DROP OWNED BY bt_limited; DROP ROLE bt_limited; END IF; END$$");
    itest_exec(admin, "CREATE ROLE bt_limited LOGIN CONNECTION LIMIT 3");
    itest_exec(admin, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO bt_limited");
    snprintf(target, sizeof target, "postgres://bt_limited@%s", at + 1);
    r = itest_run_ok(args, &sum);
    fprintf(stderr, "  %s", itest_after_progress(r.err));
    assert_true(itest_num(sum, "transactions") > 100); /* the clients it took ran */
    assert_true(itest_num(strstr(sum, "errors_by_kind"), "connection") >= 2);
    assert_non_null(strstr(sum, "\"message\":\"FATAL: too many connections for role"));
    assert_null(strstr(sum, "connection to server at"));
    assert_non_null(strstr(r.err, "last error: FATAL: too many connections for role"));
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_flag),
        cmocka_unit_test(test_malformed_uri),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_missing_database),
        cmocka_unit_test(test_missing_tables),
        cmocka_unit_test(test_zero_clients),
        cmocka_unit_test(test_negative_rate),
        cmocka_unit_test(test_unreadable_script),
        cmocka_unit_test(test_script_syntax_error),
        cmocka_unit_test(test_script_server_rejects),
        cmocka_unit_test(test_wrong_password),
        cmocka_unit_test(test_password_hidden),
        cmocka_unit_test(test_option_passwords_hidden),
        cmocka_unit_test(test_init_refuses),
        cmocka_unit_test(test_role_connection_limit),
        cmocka_unit_test(test_server_restart), /* last: the admin connection does not survive it */
    };
    return cmocka_run_group_tests_name("pg_errors", tests, setup, teardown);
}
