/*
 * rediss:// end to end: the throwaway redis-server gets a TLS port at run
 * time (CONFIG SET tls-port, with a certificate this test makes) beside its
 * plain one, and benchtop's load, collector and inspect talk to that port.
 * The server's CLIENT LIST (laddr) shows that the load's connections and the
 * collector's came in on the TLS port; its command counts show the load's
 * requests arrived. A CA that did not sign the certificate, an address the
 * certificate does not hold, and the plain port named as rediss:// fail in
 * one line that says what to change; ?insecure goes through.
 */
#include "config.h"

#include "itest.h"

#if defined HAVE_REDIS && defined HAVE_REDIS_TLS

#include "itest-redis.h"

#include <sys/stat.h>

enum { POLL_MS = 100, POLL_TRIES = 100 };

static redisContext *admin;
static char certdir[] = "/tmp/bt-rtls-XXXXXX";
static char ca[600], other_ca[600];
static int tls_port, plain_port;

/* The test server's TLS port on, with the server's certificate and another CA's beside it. */
static int
setup(void **state)
{
    struct redis_target t;
    char err[BT_ERRLEN];

    assert_int_equal(redis_target_parse(itest_env("BENCHTOP_RD_TARGET"), &t, err), 0);
    plain_port = t.port;
    itest_certdir_make(certdir, ca, sizeof ca, other_ca, sizeof other_ca);
    itest_make_cert(certdir, "server", itest_env("BENCHTOP_RD_DIR"));
    admin = rtest_connect();
    freeReplyObject(rtest_cmd(admin,
                              "CONFIG SET tls-cert-file %s tls-key-file %s/server.key "
                              "tls-ca-cert-file %s tls-auth-clients no",
                              ca, certdir, ca));
    tls_port = itest_free_port();
    freeReplyObject(rtest_cmd(admin, "CONFIG SET tls-port %d", tls_port));
    return 0;
}

static int
teardown(void **state)
{
    rtest_do(admin, "CONFIG SET tls-port 0");
    redisFree(admin);
    itest_certdir_remove(certdir);
    return 0;
}

/* rediss:// to port with ?params (a static buffer of two). */
static char *
target(int port, const char *params)
{
    static char buf[2][1200];
    static int k;
    char *out = buf[k++ % 2];

    snprintf(out, 1200, "rediss://127.0.0.1:%d/0?%s", port, params);
    return out;
}

static char *
verified(void)
{
    char params[700];

    snprintf(params, sizeof params, "cacert=%s", ca);
    return target(tls_port, params);
}

/* The server's connections that came in on the TLS port now. */
static int
tls_clients(void)
{
    char needle[64];

    snprintf(needle, sizeof needle, " laddr=127.0.0.1:%d ", tls_port);
    return rtest_clients_with(admin, needle);
}

/*
 * A 3 s GET load of 2 clients over TLS: both clients and the collector are
 * on the TLS port while it runs, every request the load counted reached
 * the server, none failed, and the collector's lines carry INFO's figures.
 */
static void
test_rd_tls_load(void **state)
{
    char *args[] = {"run", verified(), "--headless", "-T", "3", "-c", "2", "-w", "get", NULL};
    long long before = rtest_calls(admin, "get"), calls;
    int o, e, on_tls = 0;
    pid_t pid = itest_spawn(args, &o, &e);
    const char *sum, *srv;
    struct run r;

    for (int i = 0; i < POLL_TRIES && on_tls < 3; i++) {
        itest_sleep_ms(POLL_MS);
        on_tls = tls_clients();
    }
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    calls = rtest_calls(admin, "get") - before;
    assert_int_equal(on_tls, 3); /* 2 clients and the collector */
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    assert_int_equal(r.status, 0);
    assert_true(itest_num(sum, "transactions") > 0);
    assert_true(itest_num(sum, "errors") == 0);
    assert_true(calls >= itest_num(sum, "transactions")); /* the server saw each of them */
    itest_assert_tls_used(&r, sum);
    itest_assert_tls_used(&r, itest_line(r.out, "\"type\":\"run\""));
    srv = itest_line(r.out, "\"type\":\"server\"");
    assert_non_null(srv);
    assert_non_null(strstr(srv, "\"ok\":true"));
    assert_non_null(strstr(srv, "\"label\":\"commands\""));
    assert_non_null(strstr(srv, "\"section\":\"memory\",\"label\":\"used\""));
    itest_free(&r);
}

/*
 * --fill sends its SETs in batches of megabytes through prepare's pump, and
 * --pipeline 32 keeps many replies in each TLS record: every key is there
 * afterwards, and the pipelined load has no error.
 */
static void
test_rd_tls_fill_pipeline(void **state)
{
    char *args[] = {"run",        verified(), "--headless",   "-T",     "2",
                    "-c",         "2",        "--fill",       "--keys", "30000",
                    "--pipeline", "32",       "--value-size", "200",    NULL};
    const char *sum;
    struct run r;

    rtest_do(admin, "FLUSHALL");
    r = itest_run_ok(args, &sum);
    assert_int_equal(r.status, 0);
    assert_int_equal(rtest_integer(admin, "DBSIZE"), 30000);
    assert_true(itest_num(sum, "transactions") > 0);
    assert_true(itest_num(sum, "errors") == 0);
    itest_free(&r);
}

/* -C: a new connection (and TLS session, resumed) per request, all of them answered. */
static void
test_rd_tls_connect_per_request(void **state)
{
    char *args[] = {"run", verified(), "--headless", "-T", "2", "-c", "2", "-C", NULL};
    const char *sum;
    struct run r = itest_run_ok(args, &sum);

    assert_int_equal(r.status, 0);
    assert_true(itest_num(sum, "transactions") > 10);
    assert_true(itest_num(sum, "connects") >= itest_num(sum, "transactions"));
    assert_true(itest_num(sum, "errors") == 0);
    itest_free(&r);
}

/* inspect over TLS: the keys --fill wrote are all counted. */
static void
test_rd_tls_inspect(void **state)
{
    char *fill[] = {"run", verified(), "--headless", "-T",  "1", "-c",
                    "1",   "--fill",   "--keys",     "500", NULL};
    char *args[] = {"inspect", verified(), NULL};
    const char *sum;
    struct run r;

    rtest_do(admin, "FLUSHALL");
    r = itest_run_ok(fill, &sum);
    itest_free(&r);
    r = itest_runv(args);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "500 of 500 keys looked at"));
    itest_free(&r);
}

/* watch over TLS: every sample is read (INFO's figures in each server line). */
static void
test_rd_tls_watch(void **state)
{
    char *args[] = {"watch", verified(), "--headless", "-T", "2", "-P", "0.5", NULL};
    struct run r = itest_runv(args);
    int lines = itest_count_lines(r.out, "\"type\":\"server\"");

    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(lines >= 2);
    assert_int_equal(itest_count_lines(r.out, "\"ok\":true"), lines);
    assert_int_equal(itest_count_lines(r.out, "\"section\":\"memory\",\"label\":\"used\""), lines);
    itest_free(&r);
}

/* A CA that did not sign the server's certificate: refused before the run, with the fix. */
static void
test_rd_tls_wrong_ca(void **state)
{
    char params[700];
    const char *want[] = {"certificate verify failed", "cacert=", "insecure", NULL};

    snprintf(params, sizeof params, "cacert=%s", other_ca);
    itest_expect_run_error(target(tls_port, params), want);
}

/* The system's CAs do not know the test's: the same, without cacert=. */
static void
test_rd_tls_no_ca(void **state)
{
    const char *want[] = {"certificate verify failed", "self-signed", "cacert=", NULL};

    itest_expect_run_error(target(tls_port, "insecure=0"), want);
}

/* The certificate holds 127.0.0.1, not ::ffff:127.0.0.1 (the same server, another address). */
static void
test_rd_tls_wrong_address(void **state)
{
    char t[1200];
    const char *want[] = {"IP address mismatch", "insecure", NULL};

    snprintf(t, sizeof t, "rediss://[::ffff:127.0.0.1]:%d?cacert=%s", tls_port, ca);
    itest_expect_run_error(t, want);
}

/* ?insecure: no verification, so a certificate no CA vouches for goes through. */
static void
test_rd_tls_insecure(void **state)
{
    char *args[] = {"run", target(tls_port, "insecure"), "--headless", "-T", "1", NULL};
    const char *sum;
    struct run r = itest_run_ok(args, &sum);

    assert_int_equal(r.status, 0);
    assert_true(itest_num(sum, "transactions") > 0);
    itest_assert_tls_used(&r, sum);
    itest_free(&r);
}

/* rediss:// to the plain port: Redis waits for the rest of a command; the line says use redis://.
 */
static void
test_rd_tls_plain_port(void **state)
{
    const char *want[] = {"TLS", "redis://", NULL};

    itest_expect_run_error(target(plain_port, "insecure"), want);
}

/* redis:// takes no TLS parameters; a typo in rediss://'s is named. */
static void
test_rd_tls_bad_params(void **state)
{
    char plain[300];
    const char *want_plain[] = {"rediss://", NULL}, *want_typo[] = {"cacert=PATH", NULL};

    snprintf(plain, sizeof plain, "redis://127.0.0.1:%d?insecure", plain_port);
    itest_expect_run_error(plain, want_plain);
    itest_expect_run_error(target(tls_port, "cafile=/x"), want_typo);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rd_tls_load),
        cmocka_unit_test(test_rd_tls_fill_pipeline),
        cmocka_unit_test(test_rd_tls_connect_per_request),
        cmocka_unit_test(test_rd_tls_inspect),
        cmocka_unit_test(test_rd_tls_watch),
        cmocka_unit_test(test_rd_tls_wrong_ca),
        cmocka_unit_test(test_rd_tls_no_ca),
        cmocka_unit_test(test_rd_tls_wrong_address),
        cmocka_unit_test(test_rd_tls_insecure),
        cmocka_unit_test(test_rd_tls_plain_port),
        cmocka_unit_test(test_rd_tls_bad_params),
    };

    if (getenv("ITEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests_name("redis_tls", tests, setup, teardown);
}

#else

int
main(void)
{
    test_skip_program("no redis backend, or built without OpenSSL");
    return 0;
}

#endif
