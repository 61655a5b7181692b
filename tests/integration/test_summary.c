/*
 * What a run says when it ends (issue 27): the exit status of a run whose
 * server went away (2, as pgbench) and of one whose reader left (`| head
 * -1`: 1, not SIGPIPE); the outage and the tps over the time the server
 * answered; p95 beside p99; the client counts a run went through; the
 * progress lines on stderr (per interval, per sweep step, none with -q);
 * the warning when -j exceeds -c; the unknown command's list. Against the
 * harness's Redis (BENCHTOP_RD_TARGET), and a redis-server of this test's
 * own for the outage, since it is shut down mid-run.
 */
#include "itest-redis.h"

#include <signal.h>

/* Starts redis-server on a free loopback port, without persistence; its target in target. */
static pid_t
own_redis(char *target, size_t len)
{
    char port[16];
    int i, port_n = itest_free_port();
    pid_t pid;

    snprintf(port, sizeof port, "%d", port_n);
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    snprintf(target, len, "redis://127.0.0.1:%s", port);
    for (i = 0; i < 100; i++) { /* ready when it accepts, within 10 s */
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)port_n),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        int fd = socket(AF_INET, SOCK_STREAM, 0), ok;
        ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
        close(fd);
        if (ok)
            return pid;
        itest_sleep_ms(100);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fail_msg("redis-server did not start on port %s", port);
    return -1;
}

/*
 * A Redis shut down 2 s into a 6 s run: exit 2, the summary opens with the
 * outage, and says the tps over the time the server answered beside the
 * run's (which averages in seconds of nothing). Before: exit 0, `tps =`.
 */
static void
test_outage_exits_2_and_is_told_first(void **state)
{
    char target[64];
    char *args[] = {"run", target, "--headless", "-T", "6", "-c", "2", "--no-collect", NULL};
    pid_t server = own_redis(target, sizeof target);
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);
    struct run r;
    const char *sum, *head;
    double outage, tps, answered;

    (void)state;
    itest_sleep_ms(2000);
    kill(server, SIGKILL);
    waitpid(server, NULL, 0);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    outage = itest_num(sum, "outage_s");
    tps = itest_num(sum, "tps");
    answered = itest_num(sum, "tps_answered");
    assert_true(outage > 0 && outage < itest_num(sum, "duration_s"));
    assert_true(answered > tps);
    head = itest_after_progress(r.err);
    /* failures (above 1% in capitals) come first, with their messages, then the outage */
    if (strncmp(head, "FAILED: ", 8) == 0 || strncmp(head, "failed: ", 8) == 0)
        head = strstr(head, "\nOUTAGE: ") + 1;
    assert_true(strncmp(head, "OUTAGE: the server answered nothing for ", 40) == 0);
    assert_non_null(strstr(r.err, "the server answered)\n"));
    itest_free(&r);
}

/*
 * A Redis stopped (SIGSTOP) for 5 s of a 9 s run with --stall-timeout 2:
 * the outage is the stop, not only the intervals where a stall ended a
 * wait (2 s before), and the tps "over the time the server answered" is
 * over the rest.
 */
static void
test_stopped_server_outage_whole(void **state)
{
    char target[64];
    char *args[] = {"run", target, "--headless", "-T",           "9", "-c", "2", "--stall-timeout",
                    "2",   "-P",   "1",          "--no-collect", NULL};
    pid_t server = own_redis(target, sizeof target);
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);
    struct run r;
    const char *sum;
    double outage, duration;
    char want[96];

    (void)state;
    itest_sleep_ms(1500);
    kill(server, SIGSTOP);
    itest_sleep_ms(5000);
    kill(server, SIGCONT);
    r = itest_finish(pid, o, e);
    kill(server, SIGKILL);
    waitpid(server, NULL, 0);
    fprintf(stderr, "%s", r.err);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    outage = itest_num(sum, "outage_s");
    duration = itest_num(sum, "duration_s");
    assert_true(outage >= 3.5 && outage <= 6.5);
    snprintf(want, sizeof want, "OUTAGE: the server answered nothing for %.1f s", outage);
    assert_non_null(strstr(r.err, want));
    snprintf(want, sizeof want, " over the %.1f s the server answered)", duration - outage);
    assert_non_null(strstr(r.err, want));
    itest_free(&r);
}

/*
 * A server that answers with errors answered: no outage, and no "time the
 * server answered" that leaves those seconds out (INCR on a key made a
 * string 1 s into the run: every later transaction fails).
 */
static void
test_errors_are_answers(void **state)
{
    char target[300], script[] = "/tmp/itest-incr-XXXXXX";
    char *args[] = {"run", target, "--headless", "-T",           "3", "-c",
                    "2",   "-f",   script,       "--no-collect", NULL};
    int fd = mkstemp(script), o, e;
    redisContext *c;
    pid_t pid;
    struct run r;
    const char *sum;

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "INCR btcounter\n", 15), 15);
    close(fd);
    snprintf(target, sizeof target, "%s/12", itest_env("BENCHTOP_RD_TARGET"));
    c = rtest_connect();
    rtest_do(c, "SELECT 12");
    rtest_do(c, "DEL btcounter");
    pid = itest_spawn(args, &o, &e);
    itest_sleep_ms(1000);
    rtest_do(c, "SET btcounter abc");
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    assert_true(itest_num(sum, "errors") > 0);
    assert_true(itest_num(sum, "outage_s") == 0);
    assert_null(strstr(r.err, "OUTAGE"));
    assert_null(strstr(r.err, "the server answered"));
    rtest_do(c, "DEL btcounter");
    redisFree(c);
    unlink(script);
    itest_free(&r);
}

/* `benchtop ... | head -1`: the reader leaves; a write error, exit 1, not SIGPIPE's 141. */
static void
test_closed_pipe_exits_1(void **state)
{
    char *argv[] = {itest_env("BENCHTOP_BIN"),
                    "run",
                    itest_env("BENCHTOP_RD_TARGET"),
                    "--headless",
                    "-T",
                    "20",
                    "-q",
                    NULL};
    int out[2], e;
    char buf[256], tmpl[] = "/tmp/itest-err-XXXXXX";
    pid_t pid;
    int st;
    char *err;

    (void)state;
    assert_int_equal(pipe(out), 0);
    e = mkstemp(tmpl);
    unlink(tmpl);
    pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(e, 2);
        close(out[0]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(out[1]);
    assert_true(read(out[0], buf, sizeof buf) > 0); /* the first line(s), as head would */
    close(out[0]);
    waitpid(pid, &st, 0);
    lseek(e, 0, SEEK_SET);
    err = itest_slurp(e);
    close(e);
    fprintf(stderr, "%s", err);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    assert_non_null(strstr(err, "cannot write to standard output"));
    free(err);
}

/* pgbench -P: a progress line per interval on stderr, with p95; the summary has p95 too. */
static void
test_progress_lines_and_p95(void **state)
{
    char *args[] = {"run", itest_env("BENCHTOP_RD_TARGET"), "--headless", "-T", "3", "-c", "1",
                    NULL};
    char *quiet[] = {"run", itest_env("BENCHTOP_RD_TARGET"), "--headless", "-T", "1", "-q", NULL};
    const char *sum, *iv;
    struct run r;

    (void)state;
    r = itest_run_ok(args, &sum);
    fprintf(stderr, "%s", r.err);
    /* 3 intervals; a host that stalls a tick may merge two (the loop skips, never bursts) */
    assert_true(itest_count_lines(r.err, "progress: ") >= 2);
    assert_non_null(strstr(r.err, " tps, lat "));
    assert_non_null(strstr(r.err, " ms p95 "));
    assert_non_null(strstr(r.err, "latency ms: mean "));
    assert_non_null(strstr(r.err, " p95 "));
    assert_true(itest_num(sum, "p95") >= itest_num(sum, "p90"));
    assert_true(itest_num(sum, "p95") <= itest_num(sum, "p99"));
    assert_non_null(strstr(sum, "\"clients_history\":[1]"));
    iv = itest_line(r.out, "\"type\":\"interval\""); /* sum's buffer is reused */
    assert_true(itest_num(iv, "p95") > 0);
    itest_free(&r);
    r = itest_run_ok(quiet, &sum);
    assert_string_equal(r.err, ""); /* -q: neither progress nor summary */
    itest_free(&r);
}

/* A sweep tells each step as it ends, with the time left; its summary has every client count. */
static void
test_sweep_steps_and_clients_history(void **state)
{
    char *args[] = {"sweep",      itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "--clients",
                    "1,2",        "--warmup",
                    "0.5",        "--step-time",
                    "1",          "--no-collect",
                    NULL};
    const char *sum;
    struct run r;

    (void)state;
    r = itest_run_ok(args, &sum);
    fprintf(stderr, "%s", r.err);
    assert_non_null(strstr(r.err, "step 1/2: 1 client, "));
    assert_non_null(strstr(r.err, " s left\n"));
    assert_non_null(strstr(r.err, "step 2/2: 2 clients, "));
    assert_int_equal(itest_count_lines(r.err, "progress: "), 0); /* steps, not intervals */
    assert_non_null(strstr(sum, "\"clients_history\":[1,2]"));
    itest_free(&r);
}

/* sysbench's --threads 8 without -c ran 1 client on 1 thread, silently. */
static void
test_threads_beyond_clients_warns(void **state)
{
    char *args[] = {
        "run", itest_env("BENCHTOP_RD_TARGET"), "--headless", "-T", "1", "--threads", "8", "-q",
        NULL};
    const char *sum;
    struct run r;

    (void)state;
    r = itest_run_ok(args, &sum);
    assert_non_null(strstr(r.err, "-j 8 but -c 1: running 1 client on 1 thread"));
    assert_non_null(strstr(r.err, "-c 8"));
    assert_int_equal((int)itest_num(itest_line(r.out, "\"type\":\"run\""), "threads"), 1);
    itest_free(&r);
}

/* The unknown-command line lists every subcommand --help does. */
static void
test_unknown_command_lists_all(void **state)
{
    char *args[] = {"frobnicate", "redis", NULL};
    const char *names[] = {"run", "init", "demo", "watch", "sweep", "report", "merge", "serve"};
    struct run r = itest_runv(args);

    (void)state;
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(r.err, names[i]) == NULL)
            fail_msg("'%s' missing from: %s", names[i], r.err);
    itest_free(&r);
}

/* postgres:// at a Redis port: the line names Redis, where it waited 5 s for "timeout expired". */
static void
test_wrong_scheme_names_what_answered(void **state)
{
    char target[128];
    char *args[] = {"run", target, "--headless", "-T", "1", NULL};
    const char *port = strrchr(itest_env("BENCHTOP_RD_TARGET"), ':') + 1;
    struct run r;

    (void)state;
    snprintf(target, sizeof target, "postgres://x@127.0.0.1:%s/db", port);
    r = itest_runv(args);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_non_null(strstr(r.err, "Redis answers at 127.0.0.1 port "));
    assert_null(strstr(r.err, "timeout"));
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outage_exits_2_and_is_told_first),
        cmocka_unit_test(test_stopped_server_outage_whole),
        cmocka_unit_test(test_errors_are_answers),
        cmocka_unit_test(test_closed_pipe_exits_1),
        cmocka_unit_test(test_progress_lines_and_p95),
        cmocka_unit_test(test_sweep_steps_and_clients_history),
        cmocka_unit_test(test_threads_beyond_clients_warns),
        cmocka_unit_test(test_unknown_command_lists_all),
        cmocka_unit_test(test_wrong_scheme_names_what_answered),
    };

    if (getenv("ITEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
