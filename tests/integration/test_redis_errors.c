/*
 * Bad input and a server restart mid-run, against the throwaway redis-server.
 * Every bad input gets one line on stderr naming the problem and the fix,
 * exit code 2, nothing on stdout, and never the password. Targets that are
 * not Redis (the PostgreSQL test server, a memcached, a closed port) are
 * recognised as such.
 */
#include "config.h"

#include "itest-redis.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>

static redisContext *admin;

static int
setup(void **state)
{
    admin = rtest_connect();
    return 0;
}

static int
teardown(void **state)
{
    redisFree(admin);
    return 0;
}

/* redis://[userinfo@]127.0.0.1:PORT[/db] for the test server. */
static char *
target_with(const char *userinfo, const char *db)
{
    static char buf[4][512];
    static int k;
    const char *t = itest_env("BENCHTOP_RD_TARGET") + strlen("redis://");
    char *out = buf[k++ % 4];

    snprintf(out, 512, "redis://%s%s%s%s", userinfo, userinfo[0] ? "@" : "", t, db);
    return out;
}

/* Runs benchtop, expects exit 2 and exactly one stderr line containing every word in `want`. */
static void
expect_error(char **args, const char *const *want, const char *secret)
{
    struct run r = itest_runv(args);
    int i;

    fprintf(stderr, "  %s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_int_equal(strlen(r.out), 0);
    for (i = 0; want[i] != NULL; i++)
        if (strstr(r.err, want[i]) == NULL)
            fail_msg("'%s' not in: %s", want[i], r.err);
    if (secret != NULL)
        assert_null(strstr(r.err, secret));
    itest_free(&r);
}

static void
test_bad_options(void **state)
{
    const char *t = itest_env("BENCHTOP_RD_TARGET");
    char *w[] = {"run", (char *)t, "-w", "scan", NULL};
    char *ratio_get[] = {"run", (char *)t, "--ratio", "1:2", NULL};
    char *ratio_bad[] = {"run", (char *)t, "-w", "mixed", "--ratio", "1-2", NULL};
    char *pattern[] = {"run", (char *)t, "--key-pattern", "hot", NULL};
    char *c_pipe[] = {"run", (char *)t, "-C", "--pipeline", "4", NULL};
    char *script[] = {"run", (char *)t, "-f", "/dev/null", NULL};
    char *mode[] = {"run", (char *)t, "-M", "resp3", NULL};
    char *init[] = {"init", (char *)t, NULL};
    const char *want_w[] = {"unknown workload 'scan'", "-w get, set, incr or mixed", NULL};
    const char *want_rg[] = {"--ratio", "-w mixed", NULL};
    const char *want_rb[] = {"--ratio", "'1-2'", "1:10", NULL};
    const char *want_p[] = {"key pattern 'hot'", "seq, uniform or zipf", NULL};
    const char *want_c[] = {"-C", "--pipeline", "drop one", NULL};
    const char *want_s[] = {"/dev/null:1: script has no commands", "command line", NULL};
    const char *want_m[] = {"'resp3'", "resp2", NULL};
    const char *want_i[] = {"needs no init", "--fill", NULL};

    expect_error(w, want_w, NULL);
    expect_error(ratio_get, want_rg, NULL);
    expect_error(ratio_bad, want_rb, NULL);
    expect_error(pattern, want_p, NULL);
    expect_error(c_pipe, want_c, NULL);
    expect_error(script, want_s, NULL);
    expect_error(mode, want_m, NULL);
    expect_error(init, want_i, NULL);
}

static void
test_malformed_target(void **state)
{
    char *args[] = {"run", "redis://:hunter2@127.0.0.1:notaport/0", "-T", "1", NULL};
    const char *want[] = {"invalid target", "redis://:***@", "port", NULL};

    expect_error(args, want, "hunter2");
}

/* rediss:// nobody answers (or a build without TLS): one line, no password (test_redis_tls). */
static void
test_rediss_not_listening(void **state)
{
    char target[64];
    char *args[] = {"run", target, "-T", "1", NULL};
#ifdef HAVE_REDIS_TLS
    const char *want[] = {"Connection refused", NULL};
#else
    const char *want[] = {"rediss://", "without OpenSSL", "redis://", NULL};
#endif

    snprintf(target, sizeof target, "rediss://:hunter2@127.0.0.1:%d", itest_free_port());
    expect_error(args, want, "hunter2");
}

static void
test_not_listening(void **state)
{
    char *args[] = {"run", "redis://127.0.0.1:1", "-T", "1", NULL};
    const char *want[] = {"127.0.0.1:1", "Connection refused", "redis-server running", NULL};

    expect_error(args, want, NULL);
}

/* The PostgreSQL test server's port: not Redis, and said so. */
static void
test_postgres_port(void **state)
{
    const char *pg = itest_env("BENCHTOP_PG_TARGET");
    const char *colon = strrchr(pg, ':');
    char target[64];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"not a Redis server", "PostgreSQL", "check the port", NULL};

    snprintf(target, sizeof target, "redis://127.0.0.1:%d", atoi(colon + 1));
    expect_error(args, want, NULL);
}

/* A memcached on a free port (as nobody when we are root); 0 if there is no memcached. */
static pid_t
start_memcached(int port)
{
    char p[16];
    pid_t pid;

    if (access("/usr/bin/memcached", X_OK) != 0)
        return 0;
    snprintf(p, sizeof p, "%d", port);
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl("/usr/bin/memcached", "memcached", "-l", "127.0.0.1", "-p", p, "-U", "0", "-u",
              "nobody", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 100; i++) {
        redisContext *c = redisConnect("127.0.0.1", port);
        int ok = c != NULL && c->err == 0;
        redisFree(c);
        if (ok)
            return pid;
        itest_sleep_ms(50);
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    return 0;
}

/* memcached answers PING with ERROR: not RESP, and the message says what it looks like. */
static void
test_memcached_port(void **state)
{
    int port = itest_free_port();
    pid_t mc = start_memcached(port);
    char target[64];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"does not speak the Redis protocol", "memcached", "check the port", NULL};

    if (mc == 0) {
        test_skip("no /usr/bin/memcached (memcached)");
    }
    snprintf(target, sizeof target, "redis://127.0.0.1:%d", port);
    expect_error(args, want, NULL);
    kill(mc, SIGTERM);
    waitpid(mc, NULL, 0);
}

static int
reset_password(void **state)
{
    /* this connection authenticated before the password was set: it stays allowed */
    freeReplyObject(rtest_cmd(admin, "CONFIG SET requirepass %s", ""));
    return 0;
}

/* requirepass set by the test: a wrong password, none at all, then the right one. */
static void
test_password(void **state)
{
    char *wrong[] = {"run", target_with(":sekrit99", ""), "-T", "1", NULL};
    char *none[] = {"run", target_with("", ""), "-T", "1", NULL};
    char *right[] = {
        "run", target_with(":rightpw", "/2"), "--headless", "-t", "100", "-c", "2", "-w", "set",
        NULL};
    const char *want_wrong[] = {"refused the login", "WRONGPASS", "check the user and password",
                                NULL};
    const char *want_none[] = {"needs a password", "NOAUTH", "redis://:PASSWORD@", NULL};
    struct run r;

    rtest_do(admin, "CONFIG SET requirepass rightpw");
    expect_error(wrong, want_wrong, "sekrit99");
    expect_error(none, want_none, NULL);
    rtest_do(admin, "SELECT 2");
    rtest_do(admin, "FLUSHDB");
    r = itest_runv(right);
    assert_int_equal(r.status, 0);
    /* every connection did AUTH and SELECT 2: the 200 SETs landed in db 2 */
    assert_int_equal((long long)itest_num(itest_line(r.out, "\"summary\""), "transactions"), 200);
    assert_true(rtest_integer(admin, "DBSIZE") > 0);
    assert_non_null(strstr(r.out, "\"target\":\"redis://:***@"));
    assert_null(strstr(r.out, "rightpw"));
    assert_null(strstr(r.err, "rightpw"));
    rtest_do(admin, "SELECT 0");
    itest_free(&r);
}

/* A database the server does not have. */
static void
test_missing_database(void **state)
{
    char *args[] = {"run", target_with("", "/99"), "-T", "1", NULL};
    const char *want[] = {"refused database 99", "DB index is out of range", NULL};

    expect_error(args, want, NULL);
}

/*
 * Interval lines from t >= from (after the restart) in which every client was
 * connected and requests went through. Ticks can be skipped on a loaded
 * machine, so any such interval counts, whatever its t.
 */
static int
loaded_intervals_after(const char *out, double from, int clients)
{
    const char *p = out;
    int n = 0;

    while ((p = strstr(p, "{\"type\":\"interval\"")) != NULL) {
        char line[2048];
        size_t len = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (itest_num(line, "t") >= from && itest_num(line, "tps") > 0 &&
            (int)itest_num(line, "connected") == clients)
            n++;
        p += len;
    }
    return n;
}

/* The server restarts mid-run: the run goes on, reconnects, and its later intervals carry load. */
static long long maxclients_was = -1;

/* Puts maxclients back, whatever the test did. */
static int
reset_maxclients(void **state)
{
    if (maxclients_was > 0)
        freeReplyObject(rtest_cmd(admin, "CONFIG SET maxclients %lld", maxclients_was));
    return 0;
}

/* One number of INFO (field "name:"), -1 if absent. */
static long long
info_number(const char *section, const char *name)
{
    redisReply *r = rtest_cmd(admin, "INFO %s", section);
    const char *at = strstr(r->str, name);
    long long v = at ? strtoll(at + strlen(name), NULL, 10) : -1;

    freeReplyObject(r);
    return v;
}

/*
 * A server at its client limit accepts, answers "-ERR max number of
 * clients reached" and closes. The refused clients back off (the backoff
 * ends only with a transaction that got through, not at the connect: it
 * ended there and 40 refused clients reconnected 42k times in 12 s), the
 * ones taken run, the summary says how many never ran, and the refusal is
 * said in the server's words, not as the "Broken pipe" that follows it.
 */
static void
test_client_limit(void **state)
{
    char *args[] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "-T",
                    "3",          "-c",
                    "12",         "-j",
                    "2",          "-w",
                    "get",        "--no-collect",
                    NULL};
    redisReply *was = rtest_cmd(admin, "CONFIG GET maxclients");
    long long now = info_number("clients", "connected_clients:");
    struct run r;
    const char *sum, *verdict, *kinds;

    assert_true(was->type == REDIS_REPLY_ARRAY && was->elements == 2);
    maxclients_was = strtoll(was->element[1]->str, NULL, 10);
    freeReplyObject(was);
    assert_true(now >= 1);
    /* room for 3 of the 12 */
    freeReplyObject(rtest_cmd(admin, "CONFIG SET maxclients %lld", now + 3));
    r = itest_runv(args);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    fprintf(stderr, "  %.0f connects, %.0f transactions, %.0f never done\n",
            itest_num(sum, "connects"), itest_num(sum, "transactions"),
            itest_num(sum, "clients_never_done"));
    assert_true(itest_num(sum, "transactions") > 1000);
    /* 9 refused over 3 s: about 8 tries each with the backoff, 300 each without */
    assert_true(itest_num(sum, "connects") < 200);
    assert_int_equal((int)itest_num(sum, "clients_never_done"), 9);
    assert_non_null(strstr(sum, "\"message\":\"ERR max number of clients reached\""));
    /* each refusal once, as the connection's: not again as the next request's broken pipe */
    kinds = strstr(sum, "\"errors_by_kind\":");
    assert_non_null(kinds);
    if (itest_num(kinds, "connection") < 1 || itest_num(kinds, "other") != 0)
        fail_msg("refusals counted as: %.160s", kinds);
    verdict = itest_line(r.err, "verdict: final");
    assert_non_null(verdict);
    assert_non_null(strstr(verdict, "9 of 12 clients"));
    assert_non_null(strstr(verdict, ": ERR max number of clients reached"));
    itest_free(&r);
}

static void
test_server_restart(void **state)
{
    char *args[] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "-T",
                    "6",          "-c",
                    "4",          "-j",
                    "2",          "-w",
                    "incr",       "--pipeline",
                    "4",          NULL};
    const char *sum;
    double txns;
    struct run r = itest_run_through_restart(args, "RD", 2000, 4, 0, &sum);

    assert_true(itest_num(sum, "connects") >= 8);
    txns = itest_num(sum, "transactions");
    assert_true(loaded_intervals_after(r.out, 3.5, 4) >= 1);
    /* a new server (its counters started again) that served INCRs since */
    redisFree(admin);
    admin = rtest_connect();
    assert_true(rtest_calls(admin, "incr") > 0);
    assert_true(rtest_calls(admin, "incr") < txns);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_malformed_target),
        cmocka_unit_test(test_rediss_not_listening),
        cmocka_unit_test(test_not_listening),
        cmocka_unit_test(test_postgres_port),
        cmocka_unit_test(test_memcached_port),
        cmocka_unit_test_teardown(test_password, reset_password),
        cmocka_unit_test(test_missing_database),
        cmocka_unit_test(test_server_restart),
        cmocka_unit_test_teardown(test_client_limit, reset_maxclients),
    };
    return cmocka_run_group_tests_name("redis_errors", tests, setup, teardown);
}
