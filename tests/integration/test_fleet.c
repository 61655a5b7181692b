/*
 * Three agents against the throwaway redis-server as one run (--instance
 * i/3, one --start-at), merged with `benchtop merge`: the merged count is
 * the sum of the agents' and the server's own within 1%; every merged
 * interval holds all three agents; the server's samples are kept once; the
 * merged p99 is the p99 of the union of the agents' raw histograms, and
 * `benchtop report` reads the merged record. The key ranges split as one
 * run's: six seq clients over 600 keys write all 600. `watch --records`
 * follows the growing records and shows the same count live; before the
 * agents' --start-at it counts down with the agents ready, it shows the
 * server samples the records carry, and it says "done" and exits 0 once
 * every agent's record ended. Records of another workload, or the same
 * agent twice, are refused with one line.
 */
#include "itest-redis.h"

#include <time.h>

#include "base/hist.h"
#include "records/record.h"

#define AGENTS 3

static redisContext *admin;
static char dir[] = "/tmp/itest-fleet-XXXXXX";
static char paths[AGENTS][300];
static char merged[300];

static long long
calls(void)
{
    return rtest_calls(admin, "get") + rtest_calls(admin, "set");
}

/* Starts benchtop with its stdout into path (the file grows as it runs). */
static pid_t
spawn_to(const char *path, char *const args[])
{
    char *argv[40];
    pid_t pid;
    int i;

    argv[0] = itest_env("BENCHTOP_BIN");
    for (i = 0; args[i] != NULL && i < 38; i++)
        argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    pid = fork();
    if (pid == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* Runs AGENTS agents at once, each into its file paths[i] (or a scratch one); their txns. */
static long long
run_fleet(char *const extra[], int nextra, int save)
{
    char start[32], inst[AGENTS][8], scratch[AGENTS][300];
    pid_t pid[AGENTS];
    long long sum = 0;
    int i, j, st;

    snprintf(start, sizeof start, "%lld", (long long)time(NULL) + 2);
    for (i = 0; i < AGENTS; i++) {
        char *args[32] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                          "--headless", "-q",
                          "--instance", inst[i],
                          "--start-at", start,
                          "-c",         "2"};
        snprintf(inst[i], sizeof inst[i], "%d/%d", i, AGENTS);
        snprintf(scratch[i], sizeof scratch[i], "%s/scratch-%d.jsonl", dir, i);
        for (j = 0; j < nextra; j++)
            args[10 + j] = extra[j];
        pid[i] = spawn_to(save ? paths[i] : scratch[i], args);
    }
    for (i = 0; i < AGENTS; i++) {
        char *out = (waitpid(pid[i], &st, 0), itest_read_file(save ? paths[i] : scratch[i]));
        const char *sum_line = itest_line(out, "\"type\":\"summary\"");
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || sum_line == NULL)
            fprintf(stderr, "agent %d: status %d\n%s\n", i, st, out);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        assert_non_null(sum_line);
        sum += (long long)itest_num(sum_line, "transactions");
        free(out);
    }
    return sum;
}

/* The transactions of every interval line of text, summed. */
static long long
interval_txns(const char *text)
{
    const char *p = text;
    long long sum = 0;

    while ((p = strstr(p, "{\"type\":\"interval\"")) != NULL) {
        const char *end = strchr(p, '\n');
        char *line = end ? strndup(p, (size_t)(end - p)) : strdup(p);
        sum += (long long)itest_num(line, "transactions");
        free(line);
        p = end ? end : p + strlen(p);
    }
    return sum;
}

static struct run
merge(char *a, char *b, char *c)
{
    char *args[] = {"merge", a, b, c, NULL};

    return itest_runv(args);
}

/* The p99 of every agent's raw interval histograms together. */
static uint64_t
union_p99(void)
{
    struct hist *h = hist_new();
    struct record r;
    char err[BT_ERRLEN];
    uint64_t p99;
    int i;

    for (i = 0; i < AGENTS; i++) {
        assert_int_equal(record_load(paths[i], &r, err), 0);
        assert_int_equal(record_merge_hist(&r, 0, 0, h, err), 0);
        record_free(&r);
    }
    p99 = hist_percentile(h, 99);
    hist_free(h);
    return p99;
}

static void
fleet_merges_exactly(void **state)
{
    char *extra[] = {"-w", "mixed", "-T", "3"};
    char glob[320], *watch[] = {"watch", "--records", glob, "--headless", "-q", "-T", "10", NULL};
    long long before = calls(), agents, server;
    struct run w;
    int wo, we;
    pid_t wpid;

    snprintf(glob, sizeof glob, "%s/agent-*.jsonl", dir);
    wpid = itest_spawn(watch, &wo, &we); /* follows the records as they grow */
    agents = run_fleet(extra, 4, 1);
    server = calls() - before;
    struct run m = merge(paths[0], paths[1], paths[2]);
    const char *sum = itest_line(m.out, "\"type\":\"summary\""); /* a static buffer */
    long long txns = sum ? (long long)itest_num(sum, "transactions") : -1;
    uint64_t p99 = sum ? (uint64_t)itest_num(sum, "p99") : 0;
    struct record r;
    struct rec_summary s;
    char err[BT_ERRLEN];

    if (m.status != 0)
        fprintf(stderr, "merge: %s\n", m.err);
    assert_int_equal(m.status, 0);
    assert_non_null(sum);
    itest_write_file(merged, m.out);
    /* counts summed: exactly the agents', and the server's within 1% */
    assert_true(agents > 1000);
    assert_int_equal(txns, agents);
    assert_true(llabs(server - agents) <= agents / 100);
    assert_int_equal((int)itest_num(itest_line(m.out, "\"type\":\"run\""), "clients"), 6);
    /* aligned: every merged interval holds the three agents */
    if (itest_count_lines(m.out, "\"agents\":3,\"clients\"") !=
        itest_count_lines(m.out, "\"type\":\"interval\""))
        fprintf(stderr, "merged:\n%s\n", m.out);
    assert_int_equal(itest_count_lines(m.out, "\"type\":\"interval\""),
                     itest_count_lines(m.out, "\"agents\":3,\"clients\""));
    /* the server's samples once, from agent 0 */
    {
        struct run a0 = {.out = itest_read_file(paths[0])};
        assert_int_equal(itest_count_lines(m.out, "\"type\":\"server\""),
                         itest_count_lines(a0.out, "\"type\":\"server\""));
        itest_free(&a0);
    }
    /* histograms added: the merged p99 is the union's, as report reads it too */
    assert_int_equal(p99, union_p99());
    assert_int_equal(record_load(merged, &r, err), 0);
    assert_int_equal(record_summarize(&r, 0, 0, &s, err), 0);
    assert_int_equal((uint64_t)s.p99, union_p99());
    assert_int_equal((long long)s.txns, agents);
    record_free(&r);
    itest_free(&m);
    /* watch --records showed the same fleet live: the same intervals, the same count */
    w = itest_finish(wpid, wo, we);
    assert_int_equal(w.status, 0);
    assert_int_equal(interval_txns(w.out), agents);
    itest_free(&w);
}

/* Waits (at most 30 s) until each of the agents' records holds its ready line. */
static void
wait_ready(char paths_[][300], int n)
{
    for (int tries = 0, ready = 0; ready < n; tries++) {
        assert_true(tries < 300);
        itest_sleep_ms(100);
        ready = 0;
        for (int i = 0; i < n; i++) {
            int fd = open(paths_[i], O_RDONLY);
            char *text = fd >= 0 ? itest_slurp(fd) : strdup("");
            ready += strstr(text, "{\"type\":\"ready\"") != NULL;
            free(text);
            if (fd >= 0)
                close(fd);
        }
    }
}

/* The rows of a server line: from "rows" up to its events, the figures as shown. */
static char *
rows_of(const char *line)
{
    const char *a = strstr(line, "\"rows\":"), *b = a ? strstr(a, ",\"events\":") : NULL;

    assert_non_null(b);
    return strndup(a, (size_t)(b - a));
}

/*
 * Checks every countdown line of watch's stderr: "watch: starts in N s, 3
 * of 3 agents ready" with 1 <= N <= most, N never rising; the count.
 */
static int
check_countdown(const char *err, int most)
{
    const char *p = err;
    int n = 0, prev = most, secs, ready, of;

    while ((p = strstr(p, "watch: starts in ")) != NULL) {
        assert_int_equal(
            sscanf(p, "watch: starts in %d s, %d of %d agents ready", &secs, &ready, &of), 3);
        assert_true(secs >= 1 && secs <= prev);
        assert_int_equal(ready, AGENTS); /* every agent wrote its ready line before watch began */
        assert_int_equal(of, AGENTS);
        prev = secs;
        n++;
        p++;
    }
    return n;
}

/*
 * watch --records headless over agents that wait for --start-at: a line a
 * second counts down with 3 of 3 agents ready; the agents' server samples
 * come out as in the record they are kept from (agent 0's, as merge keeps
 * them), each row's figures the same; the merged count is the agents'; and
 * once every record ended, "done" is the last line, said once, and watch
 * exits 0 by itself (its -T is far away).
 */
static void
watch_counts_down_shows_server_and_ends(void **state)
{
    char start[32], inst[AGENTS][8], run[AGENTS][300], glob[320];
    char *watch[] = {"watch", "--records", glob, "--headless", "-T", "120", NULL};
    pid_t pid[AGENTS], wpid;
    long long agents = 0;
    int i, st, wo, we;

    snprintf(start, sizeof start, "%lld", (long long)time(NULL) + 8);
    for (i = 0; i < AGENTS; i++) {
        char *args[] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                        "--headless", "-q",
                        "--instance", inst[i],
                        "--start-at", start,
                        "-c",         "2",
                        "-T",         "3",
                        NULL};
        snprintf(inst[i], sizeof inst[i], "%d/%d", i, AGENTS);
        snprintf(run[i], sizeof run[i], "%s/count-%d.jsonl", dir, i);
        pid[i] = spawn_to(run[i], args);
    }
    snprintf(glob, sizeof glob, "%s/count-*.jsonl", dir);
    wait_ready(run, AGENTS);
    wpid = itest_spawn(watch, &wo, &we);
    for (i = 0; i < AGENTS; i++) {
        char *out = (waitpid(pid[i], &st, 0), itest_read_file(run[i]));
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        agents += (long long)itest_num(itest_line(out, "\"type\":\"summary\""), "transactions");
        free(out);
    }
    struct run w = itest_finish(wpid, wo, we);
    fprintf(stderr, "  watch said:\n%s", w.err);
    assert_int_equal(w.status, 0);
    assert_true(check_countdown(w.err, 8) >= 1);
    assert_int_equal(itest_count_lines(w.err, "watch: done"), 1);
    assert_non_null(strstr(w.err, "watch: done: 3 of 3 agents ended\n"));
    assert_int_equal(strlen(strstr(w.err, "watch: done")),
                     strlen("watch: done: 3 of 3 agents ended\n"));
    assert_int_equal(interval_txns(w.out), agents);
    /* the server lines: agent 0's, every row's figures as recorded */
    char *a0 = itest_read_file(run[0]);
    int nsrv = itest_count_lines(w.out, "\"type\":\"server\"");
    assert_true(nsrv >= 3);
    assert_int_equal(nsrv, itest_count_lines(a0, "\"type\":\"server\""));
    for (const char *p = w.out; (p = strstr(p, "{\"type\":\"server\"")) != NULL; p++) {
        char *rows = rows_of(p);
        if (strstr(a0, rows) == NULL)
            fail_msg("watch showed server rows that agent 0's record does not hold: %.300s", rows);
        free(rows);
    }
    free(a0);
    itest_free(&w);
}

/* `watch --records DIR/many-*.jsonl` headless for 3 s in a shell that ran `limit` first. */
static char *
watch_limited(const char *limit, int *status)
{
    char cmd[900];
    FILE *p;
    char *out;

    snprintf(cmd, sizeof cmd,
             "sh -c '%s && exec %s watch --records \"%s/many-*.jsonl\" --headless -q -T 3'", limit,
             itest_env("BENCHTOP_BIN"), dir);
    p = popen(cmd, "r");
    assert_non_null(p);
    out = itest_slurp(fileno(p));
    *status = pclose(p);
    return out;
}

/*
 * 300 agents' records under `ulimit -n 128`: a hard limit that low leaves
 * records unopened, and the merged intervals say how many and why rather
 * than pass for the whole fleet; a soft one benchtop raises itself, and all
 * 300 are merged.
 */
static void
watch_records_past_fd_limit(void **state)
{
    char *args[] = {"run", itest_env("BENCHTOP_RD_TARGET"), "-T", "2", "--headless", "-q", NULL};
    struct run r = itest_runv(args);
    char path[400], *out;
    int st;

    assert_int_equal(r.status, 0);
    for (int i = 0; i < 300; i++) {
        snprintf(path, sizeof path, "%s/many-%03d.jsonl", dir, i);
        itest_write_file(path, r.out);
    }
    itest_free(&r);
    out = watch_limited("ulimit -n 128", &st);
    assert_int_equal(st, 0);
    fprintf(stderr, "  hard 128: %.200s\n", strstr(out, "\"evidence\""));
    assert_non_null(strstr(out, " of 300 records could not be opened: Too many open files "
                                "(raise ulimit -n)"));
    free(out);
    out = watch_limited("ulimit -Sn 128", &st);
    assert_int_equal(st, 0);
    fprintf(stderr, "  soft 128: %.120s\n", strstr(out, "\"evidence\""));
    assert_null(strstr(out, "could not be opened"));
    assert_non_null(strstr(out, " of 300 agents say so"));
    free(out);
}

/* Six seq clients over 600 keys, 100 SETs each: split, they write every key once. */
static void
fleet_splits_key_ranges(void **state)
{
    char *extra[] = {"-w", "set", "--key-pattern", "seq", "--keys", "600", "-t", "100"};

    rtest_do(admin, "FLUSHALL");
    assert_int_equal(run_fleet(extra, 8, 0), 600);
    assert_int_equal(rtest_integer(admin, "DBSIZE"), 600);
}

/* Another workload's record, or one agent's twice: one line, exit 2. */
static void
merge_refuses_mismatches(void **state)
{
    char *args[] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "-q",
                    "-w",         "get",
                    "-T",         "1",
                    "--instance", "1/3",
                    NULL};
    char other[320];
    struct run r = itest_runv(args), m;

    assert_int_equal(r.status, 0);
    snprintf(other, sizeof other, "%s/get.jsonl", dir);
    itest_write_file(other, r.out);
    itest_free(&r);
    m = merge(paths[0], other, paths[2]);
    assert_int_equal(m.status, 2);
    assert_int_equal(itest_lines(m.err), 1);
    assert_non_null(strstr(m.err, "workload 'mixed' against 'get'"));
    itest_free(&m);
    m = merge(paths[0], paths[1], paths[0]);
    assert_int_equal(m.status, 2);
    assert_non_null(strstr(m.err, "both instance 0"));
    itest_free(&m);
}

static int
setup(void **state)
{
    int i;

    admin = rtest_connect();
    assert_non_null(mkdtemp(dir));
    for (i = 0; i < AGENTS; i++)
        snprintf(paths[i], sizeof paths[i], "%s/agent-%d.jsonl", dir, i);
    snprintf(merged, sizeof merged, "%s/merged.jsonl", dir);
    return 0;
}

static int
teardown(void **state)
{
    char cmd[400];

    redisFree(admin);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return getenv("ITEST_KEEP") || system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fleet_merges_exactly),
        cmocka_unit_test(merge_refuses_mismatches),
        cmocka_unit_test(fleet_splits_key_ranges),
        cmocka_unit_test(watch_records_past_fd_limit),
        cmocka_unit_test(watch_counts_down_shows_server_and_ends),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
