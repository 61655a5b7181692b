/*
 * Bad memcached targets and options, and a server restart mid-run. Every
 * bad input gets one line "benchtop: problem (fix)" on stderr and exit
 * code 2, before any load; a restart is survived, counted and recovered
 * from.
 */
#include "itest-memcached.h"

#include <sys/wait.h>

static void
test_postgres_port(void **state)
{
    const char *pg = itest_env("BENCHTOP_PG_TARGET");
    const char *colon = strrchr(pg, ':');
    char target[128], where[64];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {where, "memcached", "check the port", NULL};

    /* postgres://postgres@127.0.0.1:PORT/postgres -> memcached://127.0.0.1:PORT */
    snprintf(target, sizeof target, "memcached://127.0.0.1:%d", atoi(colon + 1));
    snprintf(where, sizeof where, "127.0.0.1:%d", atoi(colon + 1));
    mc_expect_error(args, want);
}

static void
test_nothing_listening(void **state)
{
    char target[64];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"cannot connect to memcached", "Connection refused",
                          "is memcached running there", NULL};

    snprintf(target, sizeof target, "memcached://127.0.0.1:%d", itest_free_port());
    mc_expect_error(args, want);
}

/*
 * A Redis server answers "version" with an error in its own protocol; a
 * child plays that part with the bytes Redis 7 sends.
 */
static void
test_redis_port(void **state)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int lfd = socket(AF_INET, SOCK_STREAM, 0), status;
    char target[64], hint[64];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"does not speak the memcached protocol", "-ERR unknown command",
                          "is it redis?", hint, NULL};
    pid_t child;

    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 1), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
    child = fork();
    if (child == 0) {
        const char reply[] = "-ERR unknown command 'version', with args beginning with: \r\n";
        char buf[256];
        int fd = accept(lfd, NULL, NULL);
        if (fd >= 0 && read(fd, buf, sizeof buf) > 0 &&
            write(fd, reply, sizeof reply - 1) == (ssize_t)sizeof reply - 1)
            read(fd, buf, sizeof buf); /* until benchtop hangs up */
        _exit(0);
    }
    close(lfd);
    snprintf(target, sizeof target, "memcached://127.0.0.1:%d", ntohs(a.sin_port));
    snprintf(hint, sizeof hint, "use redis://127.0.0.1:%d", ntohs(a.sin_port));
    mc_expect_error(args, want);
    waitpid(child, &status, 0);
}

/* Waits until 127.0.0.1:port accepts, up to 10 s. */
static int
wait_listening(int port)
{
    for (int i = 0; i < 200; i++) {
        int fd = mc_dial(port);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        itest_sleep_ms(50);
    }
    return -1;
}

/*
 * The same against a real Redis: the redis backend's test server when
 * run-integration starts one (BENCHTOP_RD_TARGET), else redis-server when
 * it is installed, else skipped.
 */
static void
test_real_redis(void **state)
{
    const char *rd = getenv("BENCHTOP_RD_TARGET");
    const char *prog = access("/usr/bin/redis-server", X_OK) == 0 ? "/usr/bin/redis-server"
                       : access("/usr/local/bin/redis-server", X_OK) == 0
                           ? "/usr/local/bin/redis-server"
                           : NULL;
    char target[64], hint[64], portstr[16];
    char *args[] = {"run", target, "-T", "1", NULL};
    const char *want[] = {"does not speak the memcached protocol", "is it redis?", hint, NULL};
    pid_t child = 0;
    int port, status;

    if (rd != NULL && *rd != '\0' && strrchr(rd, ':') != NULL) {
        port = atoi(strrchr(rd, ':') + 1);
    } else {
        if (prog == NULL)
            test_skip("no redis server in this run and no redis-server installed");
        port = itest_free_port();
        snprintf(portstr, sizeof portstr, "%d", port);
        child = fork();
        if (child == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            execl(prog, "redis-server", "--port", portstr, "--bind", "127.0.0.1", "--save", "",
                  "--appendonly", "no", (char *)NULL);
            _exit(127);
        }
        assert_int_equal(wait_listening(port), 0);
    }
    snprintf(target, sizeof target, "memcached://127.0.0.1:%d", port);
    snprintf(hint, sizeof hint, "use redis://127.0.0.1:%d", port);
    mc_expect_error(args, want);
    if (child > 0) {
        kill(child, SIGTERM);
        waitpid(child, &status, 0);
    }
}

static void
test_bad_targets(void **state)
{
    char *no_host[] = {"run", "memcached://", NULL};
    const char *w1[] = {"no host", "memcached://HOST:PORT", NULL};
    char *bad_port[] = {"run", "memcached://127.0.0.1:70000", NULL};
    const char *w2[] = {"bad port", "1 to 65535", NULL};
    char *db[] = {"run", "memcached://127.0.0.1:11211/0", NULL};
    const char *w3[] = {"unexpected '0'", "no database", NULL};
    char *password[] = {"run", "memcached://user:sekrit@127.0.0.1", NULL};
    const char *w4[] = {"no user or password", NULL};
    char *sock[] = {"run", "memcached:///nonexistent/memcached.sock", NULL};
    const char *w5[] = {"/nonexistent/memcached.sock", "No such file", "-s", NULL};
    char *host[] = {"run", "memcached://no-such-host.invalid:11211", NULL};
    const char *w6[] = {"cannot resolve 'no-such-host.invalid'", "check the host name", NULL};
    struct run r;

    mc_expect_error(no_host, w1);
    mc_expect_error(bad_port, w2);
    mc_expect_error(db, w3);
    mc_expect_error(password, w4);
    mc_expect_error(sock, w5);
    mc_expect_error(host, w6);
    /* the password is never echoed */
    r = itest_runv(password);
    assert_null(strstr(r.err, "sekrit"));
    itest_free(&r);
}

static void
test_bad_options(void **state)
{
    char *t = (char *)mc_target();
    char *w[] = {"run", t, "-w", "select-only", NULL};
    const char *ww[] = {"unknown workload 'select-only' for memcached", "-w mixed, get, set", NULL};
    char *m[] = {"run", t, "-M", "prepared", NULL};
    const char *wm[] = {"unknown protocol 'prepared'", "-M text or binary", NULL};
    char *ratio[] = {"run", t, "--ratio", "9", NULL};
    const char *wr[] = {"--ratio takes SET:GET", "'9'", NULL};
    char *zero[] = {"run", t, "--ratio", "0:0", NULL};
    const char *wz[] = {"not both 0", "'0:0'", NULL};
    char *ratio_get[] = {"run", t, "-w", "get", "--ratio", "1:9", NULL};
    const char *wrg[] = {"--ratio applies to -w mixed only", NULL};
    char *batch_set[] = {"run", t, "-w", "set", "--batch", "5", NULL};
    const char *wbs[] = {"--batch applies to -w multiget only", NULL};
    char *script[] = {"run", t, "-f", "/tmp/x.txt", "-M", "binary", NULL};
    const char *ws[] = {"-f scripts in the text protocol", "-M binary", NULL};
    char *pipeline[] = {"run", t, "--pipeline", "8", NULL};
    const char *wp[] = {"--pipeline is not supported for memcached", "--batch", NULL};
    char *big[] = {"run", t, "--value-size", "2000000", NULL};
    const char *wb[] = {"--value-size 2000000", "1048576", "-I", NULL};
    char *pattern[] = {"run", t, "--key-pattern", "gauss", NULL};
    const char *wk[] = {"unknown key pattern 'gauss'", "seq, uniform or zipf", NULL};
    char *init[] = {"init", t, NULL};
    const char *wi[] = {"no tables", "--fill", NULL};

    mc_expect_error(w, ww);
    mc_expect_error(m, wm);
    mc_expect_error(ratio, wr);
    mc_expect_error(zero, wz);
    mc_expect_error(ratio_get, wrg);
    mc_expect_error(batch_set, wbs);
    mc_expect_error(script, ws);
    mc_expect_error(pipeline, wp);
    mc_expect_error(big, wb);
    mc_expect_error(pattern, wk);
    mc_expect_error(init, wi);
}

/* The server restarts mid-run: the run goes on, every client reconnects, and load resumes. */
static void
test_server_restart(void **state)
{
    char *args[] = {"run",        (char *)mc_target(),
                    "--headless", "-T",
                    "6",          "-c",
                    "4",          "-j",
                    "2",          "-w",
                    "mixed",      "-M",
                    "binary",     NULL};
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);
    struct mc_counts before = mc_counts_now(), after;
    struct run r;
    const char *sum, *last;

    itest_sleep_ms(2000);
    mc_restart();
    r = itest_finish(pid, o, e);
    after = mc_counts();
    fprintf(stderr, "%s", r.err);
    assert_true(after.pid != before.pid);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    assert_int_equal(r.status, itest_status_for(sum)); /* the restart's failures: 2 */
    /* every client lost its connection (once, or again if it reached the dying server), each
     * loss is one connection error, and every reconnect is a connection made */
    double lost = itest_num(sum, "reconnects");
    assert_true(lost >= 4);
    assert_true(itest_num(sum, "connection") == lost);
    assert_true(itest_num(sum, "connects") == 4 + lost);
    /* the requests after the restart reached the new server, and benchtop counted them */
    last = itest_line(r.out, "\"type\":\"interval\",\"t\":5.");
    assert_non_null(last);
    assert_true(itest_num(last, "tps") > 0);
    assert_int_equal((long long)itest_num(last, "connected"), 4);
    assert_true(after.cmd_get + after.cmd_set > 0);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_postgres_port),  cmocka_unit_test(test_nothing_listening),
        cmocka_unit_test(test_redis_port),     cmocka_unit_test(test_real_redis),
        cmocka_unit_test(test_bad_targets),    cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_server_restart),
    };
    return cmocka_run_group_tests_name("memcached_errors", tests, NULL, NULL);
}
