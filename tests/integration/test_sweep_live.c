/*
 * benchtop sweep against the throwaway servers: a 1,2,4-client sweep on
 * PostgreSQL and on Redis (the steps' and warm-ups' transactions against
 * the server's own counters, each step against its interval lines), a
 * find-rate against a known capacity, and bad lists and combinations.
 */
#include "itest-redis.h"
#include "itest-try.h"

#define DB "bt_sweep"

static PGconn *admin; /* database DB, for its tables */
static PGconn *stats; /* database postgres: counting must not commit in DB */

/* The n-th line (from 0) of text that contains needle, copied; NULL if there are fewer. */
static const char *
nth_line(const char *text, const char *needle, int n)
{
    static char line[65536];
    const char *p = text;

    for (;;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > 0 && len < sizeof(line)) {
            memcpy(line, p, len);
            line[len] = '\0';
            if (strstr(line, needle) != NULL && n-- == 0)
                return line;
        }
        if (eol == NULL)
            return NULL;
        p = eol + 1;
    }
}

/*
 * Transactions of the interval lines that end in (from, to]: tps times
 * length, rounded; *secs gets the lengths' sum.
 */
static double
interval_txns(const char *out, double from, double to, double *secs)
{
    const char *l;
    double sum = 0;

    *secs = 0;
    for (int i = 0; (l = nth_line(out, "\"type\":\"interval\"", i)) != NULL; i++) {
        double t = itest_num(l, "t");
        if (t > from + 1e-6 && t <= to + 1e-6) {
            sum += round(itest_num(l, "tps") * itest_num(l, "interval_s"));
            *secs += itest_num(l, "interval_s");
        }
    }
    return sum;
}

static int
setup(void **state)
{
    if (itest_pg_fresh_db(DB, "1") < 0)
        return -1;
    admin = itest_pg(DB);
    stats = itest_pg("postgres");
    return 0;
}

static int
teardown(void **state)
{
    PQfinish(admin);
    PQfinish(stats);
    return 0;
}

static struct run
run_ok(char **args)
{
    struct run r = itest_runv(args);

    if (r.status != 0 || itest_line(r.out, "\"type\":\"sweep\"") == NULL)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(itest_line(r.out, "\"type\":\"sweep\""));
    return r;
}

/*
 * The three step lines of a 1,2,4 sweep: their clients, no errors, each
 * step's count equal to its interval lines' (within 1%: those print tps
 * rounded). Returns every transaction the steps and their warm-ups ran.
 */
static double
check_steps(const struct run *r)
{
    const int want[] = {1, 2, 4};
    double all = 0;

    if (itest_count_lines(r->out, "\"type\":\"step\"") != 3)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r->out, r->err);
    assert_int_equal(itest_count_lines(r->out, "\"type\":\"step\""), 3);
    for (int i = 0; i < 3; i++) {
        char l[8192]; /* nth_line's buffer is reused by interval_txns */
        snprintf(l, sizeof(l), "%s", nth_line(r->out, "\"type\":\"step\"", i));
        double txns = itest_num(l, "transactions"), from = itest_num(l, "start_t"),
               to = itest_num(l, "end_t"), ivl, secs;
        assert_int_equal((int)itest_num(l, "index"), i);
        assert_int_equal((int)itest_num(l, "clients"), want[i]);
        assert_int_equal((long long)itest_num(l, "errors"), 0);
        assert_true(itest_num(l, "p99") >= itest_num(l, "p50"));
        ivl = interval_txns(r->out, from, to, &secs);
        /* the step is made of whole intervals (how many depends on the ticks' timing) */
        assert_true(fabs(secs - (to - from)) < 0.01);
        fprintf(stderr, "  step %d: %d clients, %.0f transactions (intervals %.0f), warm-up %.0f\n",
                i, want[i], txns, ivl, itest_num(l, "warmup_transactions"));
        assert_true(txns > 0 && fabs(ivl - txns) <= 0.01 * txns + 1);
        assert_true(fabs(itest_num(l, "tps") - txns / (to - from)) < 0.01 * txns);
        all += txns + itest_num(l, "warmup_transactions");
    }
    assert_int_equal((int)itest_num(itest_line(r->out, "\"type\":\"sweep\""), "steps"), 3);
    /* the table on stderr: a header and a row per step, p95 beside p50 and p99 */
    assert_non_null(strstr(r->err, "clients"));
    assert_non_null(strstr(r->err, "p50 ms     p95 ms     p99 ms"));
    assert_non_null(strstr(r->err, "most tps: "));
    return all;
}

static void
test_pg_clients_sweep(void **state)
{
    char *args[] = {"sweep", itest_target(DB), "--headless", "--clients", "1,2,4", "--warmup",
                    "1",     "--step-time",    "3",          "-j",        "2",     "--no-collect",
                    "-w",    "select-only",    NULL};
    long long before = itest_pg_commits(stats, DB, PQbackendPID(admin)), after;
    struct run r = run_ok(args);
    double all = check_steps(&r), sum;

    after = itest_pg_commits(stats, DB, PQbackendPID(admin));
    fprintf(stderr, "  postgres: steps and warm-ups %.0f transactions, server commits +%lld\n", all,
            after - before);
    assert_true(fabs((double)(after - before) - all) <= 0.01 * all);
    /* the run's total also holds the sliver between the last step's end and the stop */
    sum = itest_num(itest_line(r.out, "\"type\":\"summary\""), "transactions");
    assert_true(sum >= all && sum - all <= 0.01 * all);
    itest_free(&r);
}

static void
test_redis_clients_sweep(void **state)
{
    redisContext *rd = rtest_connect();
    char *args[] = {"sweep",      itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "--clients",
                    "1,2,4",      "-w",
                    "get",        "--warmup",
                    "1",          "--step-time",
                    "3",          NULL};
    long long before = rtest_calls(rd, "get"), delta;
    struct run r = run_ok(args);
    double steps = check_steps(&r);
    double all = itest_num(itest_line(r.out, "\"type\":\"summary\""), "transactions");

    delta = rtest_calls(rd, "get") - before;
    fprintf(stderr,
            "  redis: steps and warm-ups %.0f requests, the run %.0f, server GET calls +%lld\n",
            steps, all, delta);
    /*
     * The steps and warm-ups are the run's whole intervals; the run also
     * counts the ticks between them (a loaded host stretches those).
     * Requests cut off in flight at the end reached the server uncounted.
     */
    assert_true(steps <= all && steps >= 0.9 * all);
    assert_true(fabs((double)delta - all) <= 0.01 * all);
    redisFree(rd);
    itest_free(&r);
}

/*
 * 16 clients whose transaction sleeps 100 ms on the server can do at most
 * 160/s: the highest rate with p90 under 300 ms (3 sleeps) lies within 15%
 * below. Long sleeps and a low rate, because this machine is shared by
 * many test runs: with 10 ms sleeps the client's own round trip cost a
 * tenth of the capacity, and at 640/s (32 clients, 50 ms) the loaded
 * machine could not start the transactions on time. p90 rather than p99:
 * a stall in 1% of a probe would decide a p99. Slightly above capacity a
 * probe's backlog (5 s) grows by hundreds of ms, so those rates fail.
 */
static void
test_find_rate_known_capacity(void **state)
{
    char path[] = "/tmp/itest-sweep-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "SELECT pg_sleep(0.1);\n";
    char *args[] = {"sweep",       itest_target(DB),
                    "--headless",  "-f",
                    path,          "-c",
                    "16",          "-j",
                    "2",           "--find-rate",
                    "--slo",       "p90<300ms",
                    "-R",          "40",
                    "--warmup",    "2",
                    "--step-time", "3",
                    NULL};
    char l[8192], saw[512];
    struct run r;
    double found, failing;

    assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    /* a host others keep busy starts the transactions late: tried again, then skipped */
    for (int attempt = 0;; attempt++) {
        r = run_ok(args);
        snprintf(l, sizeof(l), "%s",
                 strstr(itest_line(r.out, "\"type\":\"sweep\""), "\"find_rate\""));
        found = itest_num(l, "rate");
        failing = itest_num(l, "failing_rate");
        snprintf(saw, sizeof saw, "find-rate found %.0f/s of 160/s", found);
        fprintf(stderr,
                "  find-rate: %.0f/s meets p90 < 300 ms, %.0f/s did not, after %.0f probes\n",
                found, failing, itest_num(l, "probes"));
        if (found >= 0.85 * 160 && found <= 160)
            break;
        fprintf(stderr, "%s", r.err);
        if (attempt > 0)
            unlink(path); /* the retry may skip */
        if (!itest_busy_retry(__func__, attempt, saw))
            break;
        itest_free(&r);
    }
    unlink(path);
    assert_true(found >= 0.85 * 160 && found <= 160);
    assert_true(failing > found && failing <= found * 1.05 + 1);
    /* a step per probe, after the closed-loop step that measured the capacity */
    assert_int_equal(itest_count_lines(r.out, "\"type\":\"step\""),
                     (int)itest_num(l, "probes") + 1);
    assert_non_null(strstr(r.err, "highest rate meeting p90 < 300 ms: "));
    itest_free(&r);
}

/* One line naming the problem, exit 2, before anything connects. */
static void
expect_usage(char **args, const char *needle)
{
    struct run r = itest_runv(args);

    if (r.status != 2 || strstr(r.err, needle) == NULL)
        fprintf(stderr, "status %d, stderr: %s", r.status, r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, needle));
    assert_int_equal(itest_lines(r.err), 1);
    assert_int_equal(r.out[0], '\0');
    itest_free(&r);
}

static void
test_bad_input(void **state)
{
    char *t = itest_target(DB);
    char *a1[] = {"sweep", t, "--clients", "1,4,2", NULL};
    char *a2[] = {"sweep", t, "--find-rate", "--clients", "1,2", "--slo", "p99<5ms", NULL};
    char *a3[] = {"sweep", t, "--find-rate", "--slo", "p99<5", NULL};
    char *a4[] = {"sweep", t, "--find-rate", NULL};
    char *a5[] = {"sweep", t, NULL};
    char *a6[] = {"sweep", t, "--rates", "10..5", NULL};
    char *a7[] = {"sweep", t, "--clients", "1,2", "-R", "100", NULL};
    char *a8[] = {"sweep", t, "--clients", "1,2", "--step-time", "0.5", NULL};
    char *a9[] = {"sweep", t, "--rates", "100,200", "--slo", "p99<5ms", NULL};

    expect_usage(a1, "not increasing");
    expect_usage(a2, "give one of --clients, --rates, --set-values and --find-rate");
    expect_usage(a3, "is not a latency target");
    expect_usage(a4, "--find-rate needs a latency target");
    expect_usage(a5, "sweep needs what to step through");
    expect_usage(a6, "end above its start");
    expect_usage(a7, "closed loop");
    expect_usage(a8, "shorter than the interval");
    expect_usage(a9, "--slo is the target of --find-rate");
}

/*
 * Two sweeps in one report: a step is compared with the step before it
 * (1 client, not "1 clients"), but a later sweep's step with the first
 * sweep's step at the same load when it ran one.
 */
static void
test_report_pairs_steps(void **state)
{
    char a[64], b[64], row[8192], want[96];
    char *sa[] = {"sweep",      itest_env("BENCHTOP_RD_TARGET"),
                  "--headless", "--clients",
                  "1,2",        "-w",
                  "get",        "--warmup",
                  "1",          "--step-time",
                  "2",          NULL};
    char *sb[] = {"sweep",      itest_env("BENCHTOP_RD_TARGET"),
                  "--headless", "--clients",
                  "2,4",        "-w",
                  "set",        "--warmup",
                  "1",          "--step-time",
                  "2",          NULL};
    char *rep[] = {"report", "--format", "json", a, b, NULL};
    char *text[] = {"report", a, b, NULL};
    struct run r;
    double tps_a2, tps_b2;

    snprintf(a, sizeof(a), "/tmp/bt-sweep-%d-a.jsonl", (int)getpid());
    snprintf(b, sizeof(b), "/tmp/bt-sweep-%d-b.jsonl", (int)getpid());
    r = run_ok(sa);
    itest_write_file(a, r.out);
    itest_free(&r);
    r = run_ok(sb);
    itest_write_file(b, r.out);
    itest_free(&r);
    r = itest_runv(rep);
    assert_int_equal(r.status, 0);
    snprintf(want, sizeof(want), "\"run\":\"bt-sweep-%d-a.jsonl 2 clients\"", (int)getpid());
    snprintf(row, sizeof(row), "%s", nth_line(r.out, want, 0));
    tps_a2 = itest_num(row, "tps");
    snprintf(want, sizeof(want), "\"vs\":\"bt-sweep-%d-a.jsonl 1 client\"", (int)getpid());
    assert_non_null(strstr(row, want));
    snprintf(want, sizeof(want), "\"run\":\"bt-sweep-%d-b.jsonl 2 clients\"", (int)getpid());
    snprintf(row, sizeof(row), "%s", nth_line(r.out, want, 0));
    tps_b2 = itest_num(row, "tps");
    snprintf(want, sizeof(want), "\"vs\":\"bt-sweep-%d-a.jsonl 2 clients\"", (int)getpid());
    assert_non_null(strstr(row, want));
    assert_true(tps_a2 > 0 && tps_b2 > 0);
    assert_true(fabs(itest_num(strstr(row, "\"vs_first\""), "pct") - (tps_b2 / tps_a2 - 1) * 100) <
                0.01);
    /* a step the first sweep did not run: against the step before it */
    snprintf(want, sizeof(want), "\"run\":\"bt-sweep-%d-b.jsonl 4 clients\"", (int)getpid());
    snprintf(row, sizeof(row), "%s", nth_line(r.out, want, 0));
    snprintf(want, sizeof(want), "\"vs\":\"bt-sweep-%d-b.jsonl 2 clients\"", (int)getpid());
    assert_non_null(strstr(row, want));
    itest_free(&r);
    r = itest_runv(text);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "against the first record's step at the same load"));
    itest_free(&r);
    unlink(a);
    unlink(b);
}

/* hz as CONFIG GET says it, copied. */
static void
redis_hz(char *buf, size_t len)
{
    redisContext *c = rtest_connect();
    redisReply *r = rtest_cmd(c, "CONFIG GET hz");

    assert_int_equal((int)r->elements, 2);
    snprintf(buf, len, "%s", r->element[1]->str);
    freeReplyObject(r);
    redisFree(c);
}

/* A signalled sweep --set-values says the sweep stopped (not "try"), and puts hz back. */
static void
test_signal_says_sweep(void **state)
{
    char dir[] = "/tmp/itest-sweep-state-XXXXXX", before[32], after[32], cmd[80];
    char *args[] = {"sweep",
                    itest_env("BENCHTOP_RD_TARGET"),
                    "--set-values",
                    "hz=21,31",
                    "--step-time",
                    "10",
                    "--warmup",
                    "0",
                    "-P",
                    "0.5",
                    NULL};
    int o, e;
    pid_t pid;
    struct run r;

    assert_non_null(mkdtemp(dir));
    setenv("XDG_STATE_HOME", dir, 1); /* its undo file out of the user's state */
    redis_hz(before, sizeof before);
    pid = itest_spawn(args, &o, &e);
    itest_sleep_ms(2000);
    kill(pid, SIGTERM);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 128 + SIGTERM);
    assert_non_null(strstr(r.err, "benchtop: sweep stopped by "));
    assert_null(strstr(r.err, "try stopped"));
    redis_hz(after, sizeof after);
    assert_string_equal(after, before);
    itest_free(&r);
    assert_int_equal(itest_undo_files(dir), 0);
    unsetenv("XDG_STATE_HOME");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),           cmocka_unit_test(test_pg_clients_sweep),
        cmocka_unit_test(test_redis_clients_sweep), cmocka_unit_test(test_find_rate_known_capacity),
        cmocka_unit_test(test_report_pairs_steps),  cmocka_unit_test(test_signal_says_sweep),
    };

    if (getenv("ITEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
