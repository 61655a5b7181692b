/*
 * TLS end to end: the throwaway PostgreSQL and MariaDB with TLS turned on
 * and a certificate this test makes (openssl req), then load and collector
 * with sslmode=require / verify-full and ssl-mode=REQUIRED. The record's run
 * and summary lines say whether TLS was used and which protocol, and the
 * server's own view (pg_stat_ssl, Ssl_version) shows that the load's and
 * the collector's sessions were encrypted.
 *
 * PostgreSQL turns TLS on with ALTER SYSTEM and a reload; MariaDB reads its
 * certificate only at start, so the test server is restarted with DIR/tls.crt
 * in place (collectors/mysql/server.c). Both are put back at teardown, so the
 * test programs after this one meet plain servers.
 */
#include "config.h"

#include "itest.h"

#include <sys/stat.h>

#define DB "bt_tls"

enum { POLL_MS = 100, POLL_TRIES = 100 };

static char certdir[] = "/tmp/bt-tls-XXXXXX";
static char ca[600], other_ca[600];

/* ---- PostgreSQL ---- */

static PGconn *admin;

/* SHOW ssl on a new session, until it is want (a reload reaches new sessions soon, not at once). */
static void
pg_wait_ssl(const char *want)
{
    char got[16] = "";

    for (int i = 0; i < POLL_TRIES; i++) {
        PGconn *c = itest_pg("postgres");
        PGresult *r = PQexec(c, "SHOW ssl");
        snprintf(got, sizeof got, "%s",
                 PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?");
        PQclear(r);
        PQfinish(c);
        if (strcmp(got, want) == 0)
            return;
        itest_sleep_ms(POLL_MS);
    }
    fail_msg("ssl is still '%s' after the reload, not '%s'", got, want);
}

static int
pg_setup(void **state)
{
    char sql[1500];

    itest_make_cert(certdir, "server", itest_env("BENCHTOP_PG_DIR"));
    admin = itest_pg("postgres");
    snprintf(sql, sizeof sql, "ALTER SYSTEM SET ssl_cert_file = '%s/server.crt'", certdir);
    itest_exec(admin, sql);
    snprintf(sql, sizeof sql, "ALTER SYSTEM SET ssl_key_file = '%s/server.key'", certdir);
    itest_exec(admin, sql);
    itest_exec(admin, "ALTER SYSTEM SET ssl = on");
    itest_exec(admin, "SELECT pg_reload_conf()");
    pg_wait_ssl("on");
    return itest_pg_fresh_db(DB, "1");
}

static int
pg_teardown(void **state)
{
    itest_exec(admin, "ALTER SYSTEM RESET ssl");
    itest_exec(admin, "ALTER SYSTEM RESET ssl_cert_file");
    itest_exec(admin, "ALTER SYSTEM RESET ssl_key_file");
    itest_exec(admin, "SELECT pg_reload_conf()");
    pg_wait_ssl("off");
    PQfinish(admin);
    return 0;
}

/* The test database's target with ?params. */
static char *
pg_target(const char *params)
{
    static char buf[2][1200];
    static int k;
    char *out = buf[k++ % 2];

    snprintf(out, 1200, "%s?%s", itest_target(DB), params);
    return out;
}

/* Sessions of application_name app that are (ssl = 1) or are not (0) encrypted, now. */
static long long
pg_sessions(const char *app, int ssl)
{
    char sql[400];

    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)"
             " WHERE a.application_name = '%s' AND s.ssl = %s",
             app, ssl ? "true" : "false");
    return itest_scalar(admin, sql);
}

/*
 * Runs a 3 s load of 2 clients on target and, halfway, counts the load's and
 * the collector's sessions that are encrypted (want_ssl) and that are not.
 */
static struct run
pg_run_counting(const char *target, int want_ssl, const char **sum)
{
    char *args[] = {"run", (char *)target, "--headless",  "-T", "3", "-c",
                    "2",   "-b",           "select-only", NULL};
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);
    long long load = 0, coll = 0, plain_load = 0;
    struct run r;

    for (int i = 0; i < POLL_TRIES && (load < 2 || coll < 1); i++) {
        itest_sleep_ms(POLL_MS);
        load = pg_sessions("benchtop", want_ssl);
        coll = pg_sessions("benchtop-collector", want_ssl);
        plain_load = pg_sessions("benchtop", !want_ssl);
    }
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(load, 2);       /* both clients' sessions, as asked */
    assert_int_equal(coll, 1);       /* and the collector's */
    assert_int_equal(plain_load, 0); /* none otherwise */
    *sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(*sum);
    assert_int_equal(r.status, 0);
    assert_true(itest_num(*sum, "transactions") > 0);
    return r;
}

static void
test_pg_require(void **state)
{
    const char *sum;
    struct run r = pg_run_counting(pg_target("sslmode=require"), 1, &sum);

    itest_assert_tls_used(&r, sum);
    itest_assert_tls_used(&r, itest_line(r.out, "\"type\":\"run\""));
    /* the collector sampled over its TLS session */
    assert_non_null(strstr(itest_line(r.out, "\"type\":\"server\""), "\"ok\":true"));
    itest_free(&r);
}

static void
test_pg_disable(void **state)
{
    const char *sum;
    struct run r = pg_run_counting(pg_target("sslmode=disable"), 0, &sum);

    assert_non_null(strstr(sum, "\"tls\":{\"used\":false}"));
    assert_non_null(strstr(itest_line(r.out, "\"type\":\"run\""), "\"tls\":{\"used\":false}"));
    assert_non_null(strstr(r.err, "\ntls: none\n"));
    itest_free(&r);
}

static void
test_pg_verify_full(void **state)
{
    char params[800];
    const char *sum;
    struct run r;

    snprintf(params, sizeof params, "sslmode=verify-full&sslrootcert=%s", ca);
    r = pg_run_counting(pg_target(params), 1, &sum);
    itest_assert_tls_used(&r, sum);
    itest_free(&r);
}

/* A CA that did not sign the server's certificate: refused before the run, with the fix. */
static void
test_pg_verify_wrong_ca(void **state)
{
    char params[800];
    const char *want[] = {"certificate verify failed", "sslrootcert=", NULL};

    snprintf(params, sizeof params, "sslmode=verify-full&sslrootcert=%s", other_ca);
    itest_expect_run_error(pg_target(params), want);
}

/* verify-full checks the name too: the certificate holds 127.0.0.1 and localhost, not 127.0.0.2. */
static void
test_pg_verify_wrong_host(void **state)
{
    char target[1200], params[800];
    const char *want[] = {"does not match host name", "verify-ca", NULL};
    const char *t = pg_target("x=1"), *at = strstr(t, "@127.0.0.1:");

    snprintf(params, sizeof params, "sslmode=verify-full&sslrootcert=%s", ca);
    assert_non_null(at);
    /* 127.0.0.2 is loopback too, but the server listens on 127.0.0.1 only: use hostaddr */
    snprintf(target, sizeof target, "%.*s@127.0.0.2:%s", (int)(at - t), t, at + 11);
    *strchr(target, '?') = '\0';
    snprintf(target + strlen(target), sizeof target - strlen(target), "?%s&hostaddr=127.0.0.1",
             params);
    itest_expect_run_error(target, want);
}

/* ---- MySQL / MariaDB ---- */

#ifdef HAVE_MYSQL

#include "itest-mysql.h"

#define MYDB "bt_my_tls"

static char my_ca[600];

/* The server's certificate where collectors/mysql/server.c looks for one, and a restart. */
static int
my_setup(void **state)
{
    const char *dir = itest_env("BENCHTOP_MY_DIR");

    itest_make_cert(dir, "tls", dir);
    snprintf(my_ca, sizeof my_ca, "%s/tls.crt", dir);
    itest_restart_server("MY");
    return itest_my_fresh_db(MYDB, "1", "2000");
}

static int
my_teardown(void **state)
{
    char path[700];

    snprintf(path, sizeof path, "%s/tls.key", itest_env("BENCHTOP_MY_DIR"));
    unlink(path);
    unlink(my_ca);
    itest_restart_server("MY");
    return 0;
}

/* The test database's target with ?params. */
static char *
my_target(const char *params)
{
    static char buf[1200];

    snprintf(buf, sizeof buf, "%s?%s", itest_my_target(MYDB), params);
    return buf;
}

/*
 * A 2 s load of 2 clients on target; *tls_sessions: the TLS handshakes the
 * server accepted meanwhile (Ssl_accepts): the load's, the collector's and
 * prepare's, or none.
 */
static struct run
my_run(const char *target, long long *tls_sessions, const char **sum)
{
    char *args[] = {"run", (char *)target, "--headless", "-T", "2", "-c", "2", NULL};
    MYSQL *m = itest_my(NULL);
    long long before = itest_my_status(m, "Ssl_accepts");
    struct run r = itest_runv(args);

    fprintf(stderr, "%s", r.err);
    *tls_sessions = itest_my_status(m, "Ssl_accepts") - before;
    mysql_close(m);
    *sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(*sum);
    assert_int_equal(r.status, 0);
    assert_true(itest_num(*sum, "transactions") > 0);
    return r;
}

static void
test_my_required(void **state)
{
    long long tls_sessions;
    const char *sum;
    struct run r = my_run(my_target("ssl-mode=REQUIRED"), &tls_sessions, &sum);

    itest_assert_tls_used(&r, sum);
    itest_assert_tls_used(&r, itest_line(r.out, "\"type\":\"run\""));
    assert_true(tls_sessions >= 4); /* prepare, 2 clients, the collector */
    assert_non_null(strstr(itest_line(r.out, "\"type\":\"server\""), "\"ok\":true"));
    itest_free(&r);
}

static void
test_my_disabled(void **state)
{
    long long tls_sessions;
    const char *sum;
    struct run r = my_run(my_target("ssl-mode=DISABLED"), &tls_sessions, &sum);

    assert_non_null(strstr(sum, "\"tls\":{\"used\":false}"));
    assert_non_null(strstr(r.err, "\ntls: none\n"));
    assert_int_equal(tls_sessions, 0);
    itest_free(&r);
}

static void
test_my_verify_identity(void **state)
{
    char params[800];
    long long tls_sessions;
    const char *sum;
    struct run r;

    snprintf(params, sizeof params, "ssl-mode=VERIFY_IDENTITY&ssl-ca=%s", my_ca);
    r = my_run(my_target(params), &tls_sessions, &sum);
    itest_assert_tls_used(&r, sum);
    assert_true(tls_sessions >= 4);
    itest_free(&r);
}

/* A CA that did not sign the server's certificate: refused before the run, with the fix. */
static void
test_my_verify_wrong_ca(void **state)
{
    char params[800];
    const char *want[] = {"TLS/SSL error", "ssl-", NULL};

    snprintf(params, sizeof params, "ssl-mode=VERIFY_CA&ssl-ca=%s", other_ca);
    itest_expect_run_error(my_target(params), want);
}

#endif

int
main(void)
{
    const struct CMUnitTest pg[] = {
        cmocka_unit_test(test_pg_require),           cmocka_unit_test(test_pg_disable),
        cmocka_unit_test(test_pg_verify_full),       cmocka_unit_test(test_pg_verify_wrong_ca),
        cmocka_unit_test(test_pg_verify_wrong_host),
    };
    int failed;

    if (getenv("ITEST_FILTER") != NULL) /* e.g. ITEST_FILTER='test_my_*' */
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    itest_certdir_make(certdir, ca, sizeof ca, other_ca, sizeof other_ca);
    failed = cmocka_run_group_tests_name("tls_postgres", pg, pg_setup, pg_teardown);
#ifdef HAVE_MYSQL
    const struct CMUnitTest my[] = {
        cmocka_unit_test(test_my_required),
        cmocka_unit_test(test_my_disabled),
        cmocka_unit_test(test_my_verify_identity),
        cmocka_unit_test(test_my_verify_wrong_ca),
    };

    failed += cmocka_run_group_tests_name("tls_mysql", my, my_setup, my_teardown);
#endif
    itest_certdir_remove(certdir);
    return failed;
}
