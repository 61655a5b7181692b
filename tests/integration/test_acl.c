/*
 * Servers as managed services run them: users with only some rights.
 * Redis: an ACL user (redis://user:pass@host sends AUTH user pass) that may
 * not run CONFIG, and a server where CONFIG is renamed away: the load and
 * the collector keep working with what they may read (INFO), and the
 * server line's note says which figures are missing and why, in one line.
 * The password is never in benchtop's output or its command line.
 * PostgreSQL as a role with pg_monitor and without, MySQL as a user with
 * PROCESS and without, watched by `benchtop watch`: the collector works,
 * and without the grant its note names what is unseen and the GRANT.
 */
#include "config.h"

#include "itest.h"

#include "engine/collector.h"
#include "collectors/postgres/pg-collector.h"

#ifdef HAVE_REDIS

#include "itest-redis.h"

extern const struct collector_class redis_collector_class;

#define ACL_USER "bt_acl"
#define ACL_PASS "aclpw93417"

enum { POLL_MS = 100, POLL_TRIES = 100 };

static redisContext *admin;

static int
setup(void **state)
{
    admin = rtest_connect();
    rtest_do(admin, "ACL SETUSER " ACL_USER " reset on >" ACL_PASS " ~* &* +@all -config");
    return 0;
}

static int
teardown(void **state)
{
    rtest_do(admin, "ACL DELUSER " ACL_USER);
    redisFree(admin);
    return 0;
}

/* redis://ACL_USER:pass@ the test server (a static buffer). */
static char *
acl_target(const char *pass)
{
    static char target[512];

    snprintf(target, sizeof target, "redis://%s:%s@%s", ACL_USER, pass,
             itest_env("BENCHTOP_RD_TARGET") + strlen("redis://"));
    return target;
}

/* Connections of CLIENT LIST logged in as user. */
static int
clients_of(const char *user)
{
    char needle[64];

    snprintf(needle, sizeof needle, " user=%s ", user);
    return rtest_clients_with(admin, needle);
}

/*
 * The run went well (exit 0, transactions), every server line of it is ok
 * and the last carries note (the collector kept working with INFO).
 */
static void
assert_ran_with_note(const struct run *r, const char *note)
{
    const char *sum = itest_line(r->out, "\"type\":\"summary\"");
    int lines = itest_count_lines(r->out, "\"type\":\"server\"");
    const char *last;

    assert_non_null(sum);
    assert_int_equal(r->status, 0);
    assert_true(itest_num(sum, "transactions") > 0);
    assert_true(lines >= 2);
    assert_int_equal(itest_count_lines(r->out, "\"ok\":true"), lines);
    last = itest_line(r->out, "\"type\":\"server\"");
    if (strstr(last, note) == NULL)
        fail_msg("'%s' not in the note of: %s", note, last);
    /* INFO's figures are still there */
    assert_non_null(strstr(last, "\"label\":\"commands\""));
    assert_non_null(strstr(last, "\"section\":\"memory\",\"label\":\"used\""));
}

/*
 * The ACL user: the load's 2 connections and the collector's log in as it
 * (AUTH user pass, not the default user), CONFIG is denied, and the note
 * says what that hides and the grant that would show it.
 */
static void
test_acl_user_without_config(void **state)
{
    char cmdline[1024];
    char *args[] = {"run", acl_target(ACL_PASS), "--headless", "-T", "3", "-c", "2", NULL};
    int o, e, as_user = 0;
    pid_t pid;
    struct run r;

    pid = itest_spawn(args, &o, &e);
    itest_cmdline_masked(pid, "***", cmdline, sizeof cmdline);
    for (int i = 0; i < POLL_TRIES && as_user < 3; i++) {
        itest_sleep_ms(POLL_MS);
        as_user = clients_of(ACL_USER);
    }
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(as_user, 3); /* 2 clients and the collector */
    assert_null(strstr(cmdline, ACL_PASS));
    assert_null(strstr(r.out, ACL_PASS));
    assert_null(strstr(r.err, ACL_PASS));
    assert_ran_with_note(&r, "cannot see settings, io-threads, appendfsync: CONFIG denied to "
                             "this user by its ACL (grant +config|get)");
    /* no settings line: CONFIG GET was refused, and that is not a failure */
    assert_null(strstr(r.out, "\"type\":\"settings\""));
    itest_free(&r);
}

/* The same user with CONFIG granted: the note is gone and the settings are read. */
static void
test_acl_user_with_config(void **state)
{
    char *args[] = {"run", acl_target(ACL_PASS), "--headless", "-T", "2", "-c", "1", NULL};
    const char *sum;
    struct run r;

    rtest_do(admin, "ACL SETUSER " ACL_USER " +config|get");
    r = itest_run_ok(args, &sum);
    rtest_do(admin, "ACL SETUSER " ACL_USER " -config");
    assert_null(strstr(r.out, "cannot see settings"));
    assert_non_null(strstr(r.out, "\"type\":\"settings\""));
    assert_non_null(strstr(r.out, "\"maxmemory-policy\":"));
    itest_free(&r);
}

/* A wrong password for the ACL user: one line, exit 2, no password in it. */
static void
test_acl_user_wrong_password(void **state)
{
    char *args[] = {"run", acl_target("wrong" ACL_PASS), "--headless", "-T", "1", NULL};
    struct run r;

    r = itest_runv(args);
    fprintf(stderr, "  %s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_non_null(strstr(r.err, "WRONGPASS"));
    assert_null(strstr(r.err, ACL_PASS));
    itest_free(&r);
}

/* `s` in the dashboard as a user without CONFIG: refused with the grant that would allow it. */
static void
test_acl_user_config_set_refused(void **state)
{
    char err[BT_ERRLEN];
    void *conn = redis_collector_class.open(itest_parsed(acl_target(ACL_PASS)), err);

    assert_non_null(conn);
    assert_int_equal(redis_collector_class.apply_setting(conn, "hz", "20", err), -1);
    fprintf(stderr, "  %s\n", err);
    assert_non_null(strstr(err, "CONFIG SET hz refused: NOPERM"));
    assert_non_null(strstr(err, "(grant the user +config|set)"));
    redis_collector_class.close(conn);
}

/* ---- a redis-server of the test's own, with CONFIG renamed away ---- */

static char rdir[] = "/tmp/bt-acl-XXXXXX";

/* redis-server on 127.0.0.1:port with rename-command CONFIG "", no persistence. */
static pid_t
start_renamed_redis(int port)
{
    char p[16];
    pid_t pid;

    snprintf(p, sizeof p, "%d", port);
    assert_non_null(mkdtemp(rdir));
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execlp("redis-server", "redis-server", "--port", p, "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--dir", rdir, "--rename-command", "CONFIG", "", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < POLL_TRIES; i++) {
        redisContext *c = redisConnect("127.0.0.1", port);
        int up = c != NULL && c->err == 0;
        redisFree(c);
        if (up)
            return pid;
        itest_sleep_ms(POLL_MS);
    }
    kill(pid, SIGKILL);
    fail_msg("redis-server did not listen on 127.0.0.1:%d", port);
    return -1;
}

static void
stop_renamed_redis(pid_t pid)
{
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    rmdir(rdir);
}

static void
test_config_renamed(void **state)
{
    int port = itest_free_port();
    pid_t server = start_renamed_redis(port);
    char target[64];
    char *args[] = {"run", target, "--headless", "-T", "2", "-c", "1", NULL};
    struct run r;

    snprintf(target, sizeof target, "redis://127.0.0.1:%d", port);
    r = itest_runv(args);
    stop_renamed_redis(server);
    fprintf(stderr, "%s", r.err);
    assert_ran_with_note(&r, "cannot see settings, io-threads, appendfsync: CONFIG renamed or "
                             "disabled on this server (rename-command)");
    itest_free(&r);
}

#endif

/* ---- PostgreSQL: pg_monitor ---- */

#define PG_MON "bt_acl_mon"
#define PG_NOMON "bt_acl_nomon"

static PGconn *pg_admin, *pg_other;

static int
pg_setup(void **state)
{
    pg_admin = itest_pg("postgres");
    itest_exec(pg_admin, "DROP ROLE IF EXISTS " PG_MON);
    itest_exec(pg_admin, "DROP ROLE IF EXISTS " PG_NOMON);
    itest_exec(pg_admin, "CREATE ROLE " PG_MON " LOGIN IN ROLE pg_monitor");
    itest_exec(pg_admin, "CREATE ROLE " PG_NOMON " LOGIN");
    /* another user's session idle in a transaction: only pg_monitor shows its state */
    pg_other = itest_pg("postgres");
    itest_exec(pg_other, "BEGIN");
    itest_exec(pg_other, "SELECT 1");
    return 0;
}

static int
pg_teardown(void **state)
{
    itest_exec(pg_admin, "REVOKE ALTER SYSTEM ON PARAMETER work_mem FROM " PG_MON);
    itest_exec(pg_admin, "REVOKE EXECUTE ON FUNCTION pg_reload_conf() FROM " PG_MON);
    itest_exec(pg_admin, "ALTER SYSTEM RESET work_mem");
    itest_exec(pg_admin, "SELECT pg_reload_conf()");
    PQfinish(pg_other);
    itest_exec(pg_admin, "DROP ROLE " PG_MON);
    itest_exec(pg_admin, "DROP ROLE " PG_NOMON);
    PQfinish(pg_admin);
    return 0;
}

/* `benchtop watch` as role for 2 s; fails unless every server line is ok. */
static struct run
pg_watch_as(const char *role)
{
    char target[512];
    const char *t = itest_env("BENCHTOP_PG_TARGET"), *at = strchr(t + strlen("postgres://"), '@');
    char *args[] = {"watch", target, "--headless", "-T", "2", "-P", "0.5", NULL};
    struct run r;
    int lines;

    assert_non_null(at);
    snprintf(target, sizeof target, "postgres://%s%s", role, at);
    r = itest_runv(args);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    lines = itest_count_lines(r.out, "\"type\":\"server\"");
    assert_true(lines >= 2);
    assert_int_equal(itest_count_lines(r.out, "\"ok\":true"), lines);
    return r;
}

static void
test_pg_role_without_pg_monitor(void **state)
{
    struct run r = pg_watch_as(PG_NOMON);
    const char *last = itest_line(r.out, "\"type\":\"server\"");

    assert_non_null(strstr(last, "\"note\":\"cannot see other sessions' state, query or wait "
                                 "events: GRANT pg_monitor TO " PG_NOMON "\""));
    assert_true(itest_max_row(r.out, "\"type\":\"server\"", "state hidden") >= 1);
    assert_true(itest_max_row(r.out, "\"type\":\"server\"", "idle in transaction") == 0);
    /* the server-wide counters are there all the same */
    assert_true(itest_max_row(r.out, "\"type\":\"server\"", "transactions/s") >= 0);
    itest_free(&r);
}

static void
test_pg_role_with_pg_monitor(void **state)
{
    struct run r = pg_watch_as(PG_MON);
    const char *last = itest_line(r.out, "\"type\":\"server\"");

    assert_non_null(strstr(last, "\"note\":\"\""));
    assert_true(itest_max_row(r.out, "\"type\":\"server\"", "idle in transaction") >= 1);
    itest_free(&r);
}

/*
 * `s` in the dashboard as a role that is no superuser: refused with the two
 * grants that would allow it; with them granted, the same request works.
 */
static void
test_pg_role_may_not_set(void **state)
{
    char target[512], err[BT_ERRLEN];
    const char *t = itest_env("BENCHTOP_PG_TARGET"), *at = strchr(t + strlen("postgres://"), '@');
    void *conn;

    snprintf(target, sizeof target, "postgres://%s%s", PG_MON, at);
    conn = postgres_collector_class.open(itest_parsed(target), err);
    assert_non_null(conn);
    assert_int_equal(postgres_collector_class.apply_setting(conn, "work_mem", "8MB", err), -1);
    fprintf(stderr, "  %s\n", err);
    assert_non_null(strstr(err, "permission denied"));
    assert_non_null(strstr(err, "(GRANT ALTER SYSTEM ON PARAMETER work_mem TO " PG_MON
                                "; GRANT EXECUTE ON FUNCTION pg_reload_conf() TO " PG_MON ")"));
    itest_exec(pg_admin, "GRANT ALTER SYSTEM ON PARAMETER work_mem TO " PG_MON);
    itest_exec(pg_admin, "GRANT EXECUTE ON FUNCTION pg_reload_conf() TO " PG_MON);
    assert_int_equal(postgres_collector_class.apply_setting(conn, "work_mem", "8MB", err), 0);
    postgres_collector_class.close(conn);
}

/* ---- MySQL: PROCESS ---- */

#ifdef HAVE_MYSQL

#include "itest-mysql.h"

static int
my_setup(void **state)
{
    MYSQL *m = itest_my(NULL);

    itest_my_exec(m, "DROP USER IF EXISTS 'bt_acl_proc'@'127.0.0.1'");
    itest_my_exec(m, "DROP USER IF EXISTS 'bt_acl_noproc'@'127.0.0.1'");
    itest_my_exec(m, "CREATE USER 'bt_acl_proc'@'127.0.0.1' IDENTIFIED BY 'procpw'");
    itest_my_exec(m, "CREATE USER 'bt_acl_noproc'@'127.0.0.1' IDENTIFIED BY 'noprocpw'");
    itest_my_exec(m, "GRANT PROCESS ON *.* TO 'bt_acl_proc'@'127.0.0.1'");
    mysql_close(m);
    return 0;
}

static int
my_teardown(void **state)
{
    MYSQL *m = itest_my(NULL);

    itest_my_exec(m, "DROP USER 'bt_acl_proc'@'127.0.0.1'");
    itest_my_exec(m, "DROP USER 'bt_acl_noproc'@'127.0.0.1'");
    mysql_close(m);
    return 0;
}

/* `benchtop watch` as userinfo for 2 s; the last server line (every one ok). */
static struct run
my_watch_as(const char *userinfo, const char **last)
{
    char *args[] = {"watch", itest_my_target_as(userinfo, ""), "--headless", "-T", "2", NULL};
    struct run r = itest_runv(args);
    int lines;

    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    lines = itest_count_lines(r.out, "\"type\":\"server\"");
    assert_true(lines >= 2);
    assert_int_equal(itest_count_lines(r.out, "\"ok\":true"), lines);
    assert_null(strstr(r.out, "procpw"));
    *last = itest_line(r.out, "\"type\":\"server\"");
    return r;
}

static void
test_my_user_without_process(void **state)
{
    const char *last;
    struct run r = my_watch_as("bt_acl_noproc:noprocpw", &last);

    assert_non_null(strstr(last, "\"note\":\"cannot see other sessions' state, query or lock "
                                 "waits: GRANT PROCESS ON *.* TO 'bt_acl_noproc'@'127.0.0.1'\""));
    assert_true(itest_max_row(r.out, "\"type\":\"server\"", "questions/s") > 0);
    itest_free(&r);
}

static void
test_my_user_with_process(void **state)
{
    const char *last;
    struct run r = my_watch_as("bt_acl_proc:procpw", &last);

    assert_null(strstr(last, "PROCESS"));
    assert_true(itest_max_row(r.out, "\"type\":\"server\"", "questions/s") > 0);
    itest_free(&r);
}

#endif

int
main(void)
{
    int failed = 0;

    if (getenv("ITEST_FILTER") != NULL) /* e.g. ITEST_FILTER='test_acl_*' */
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
#ifdef HAVE_REDIS
    const struct CMUnitTest redis[] = {
        cmocka_unit_test(test_acl_user_without_config),
        cmocka_unit_test(test_acl_user_with_config),
        cmocka_unit_test(test_acl_user_wrong_password),
        cmocka_unit_test(test_acl_user_config_set_refused),
        cmocka_unit_test(test_config_renamed),
    };

    failed += cmocka_run_group_tests_name("acl_redis", redis, setup, teardown);
#else
    test_skip_say("acl_redis", "the redis backend is not built");
#endif
    const struct CMUnitTest pg[] = {
        cmocka_unit_test(test_pg_role_without_pg_monitor),
        cmocka_unit_test(test_pg_role_with_pg_monitor),
        cmocka_unit_test(test_pg_role_may_not_set),
    };

    failed += cmocka_run_group_tests_name("acl_postgres", pg, pg_setup, pg_teardown);
#ifdef HAVE_MYSQL
    const struct CMUnitTest my[] = {
        cmocka_unit_test(test_my_user_without_process),
        cmocka_unit_test(test_my_user_with_process),
    };

    failed += cmocka_run_group_tests_name("acl_mysql", my, my_setup, my_teardown);
#endif
    return failed;
}
