/*
 * The dashboard in a real terminal: tmux (detached, fixed size) runs
 * benchtop; capture-pane reads the screen. Checks that tps is shown,
 * non-zero and changing, that '+' adds a client, that a resize to 60x15
 * shows the too-small notice and back restores the panes, and that 'q'
 * exits 0 with the summary; the same for `benchtop demo`, and that a demo
 * outside the terminal's foreground (under timeout) is refused.
 */
#include "itest.h"
#include "itest-redis.h"

#include <time.h>

/* One tmux server per test process: test runs of other checkouts on the machine use their own. */
static char sock[64];
#define DB "bt_tui"

static char dir[64];

static void
tmux(const char *fmt, ...)
{
    char cmd[2048], args[1800];
    va_list ap;
    int i, rv = -1;

    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof(cmd), "tmux %s %s", sock, args);
    /* a tmux server that is still exiting (kill-server) refuses for a moment */
    for (i = 0; i < 20 && rv != 0; i++) {
        if (i > 0)
            itest_sleep_ms(100);
        rv = system(cmd);
    }
    assert_int_equal(rv, 0);
}

/* The visible screen as text. */
static char *
capture(void)
{
    char cmd[128];
    FILE *p;
    char *text;

    snprintf(cmd, sizeof(cmd), "tmux %s capture-pane -p -t bt", sock);
    p = popen(cmd, "r");
    assert_non_null(p);
    text = itest_slurp(fileno(p));
    pclose(p);
    return text;
}

/*
 * Every wait for the screen lasts at least this long before it fails: a
 * wait ends as soon as the screen shows what it waits for, so the bound
 * costs nothing when it passes, and a host that other programs keep busy
 * can take seconds to start benchtop, tmux or a frame.
 */
#define WAIT_FLOOR_MS 10000

/* Waits up to ms (at least WAIT_FLOOR_MS) for `needle` on screen; returns the screen. */
static char *
wait_for(const char *needle, int ms)
{
    char *s = NULL;
    int waited;

    ms = ms < WAIT_FLOOR_MS ? WAIT_FLOOR_MS : ms;

    for (waited = 0; waited <= ms; waited += 200) {
        free(s);
        s = capture();
        if (strstr(s, needle) != NULL)
            return s;
        itest_sleep_ms(200);
    }
    fprintf(stderr, "%s", s); /* whole: cmocka's message is cut */
    fail_msg("'%s' not on screen after %d ms", needle, ms);
    return s;
}

static char *wait_gone(const char *needle, int ms);

/* The number after `label` on the screen ("tps 1234.5"), or -1. */
static double
figure(const char *screen, const char *label)
{
    const char *p = strstr(screen, label);

    return p ? strtod(p + strlen(label), NULL) : -1;
}

static char *
slurp_file(const char *name)
{
    char path[128];
    int fd;
    char *s;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_RDONLY);
    if (fd < 0)
        return strdup("");
    s = itest_slurp(fd);
    close(fd);
    return s;
}

static int term_w = 120, term_h = 40; /* the next session's size */

/* Starts `ENV benchtop ARGS` in a fresh tmux session; stderr and the exit code go to dir. */
static void
start_env(const char *env, const char *args)
{
    char path[128];

    snprintf(path, sizeof(path), "%s/rc", dir);
    unlink(path); /* a stale exit code would end the next wait at once */
    snprintf(path, sizeof(path), "%s/err", dir);
    unlink(path);
    snprintf(path, sizeof(path), "tmux %s kill-server 2>/dev/null", sock);
    system(path);
    tmux("new-session -d -s bt -x %d -y %d \"sh -c '%s %s %s 2>%s/err; echo \\$? >%s/rc; "
         "sleep 600'\"",
         term_w, term_h, env, itest_env("BENCHTOP_BIN"), args, dir, dir);
}

static void
start(const char *args)
{
    start_env("", args);
}

static int
exit_code(void)
{
    char *rc = NULL;
    int i, v = -1;

    for (i = 0; i < 100 && (rc == NULL || rc[0] == '\0'); i++) {
        free(rc);
        itest_sleep_ms(100);
        rc = slurp_file("rc");
    }
    if (rc[0] != '\0')
        v = atoi(rc);
    free(rc);
    return v;
}

static int
setup(void **state)
{
    PGconn *c = itest_pg("postgres");
    char *args[] = {"init", itest_target(DB), "-q", NULL};
    struct run r;

    snprintf(sock, sizeof(sock), "-L benchtop-itest-%d", (int)getpid());
    snprintf(dir, sizeof(dir), "/tmp/itest-tui-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    itest_exec(c, "DROP DATABASE IF EXISTS " DB);
    itest_exec(c, "CREATE DATABASE " DB);
    PQfinish(c);
    r = itest_runv(args);
    itest_free(&r);
    return r.status;
}

static int
teardown(void **state)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "tmux %s kill-server 2>/dev/null", sock);
    system(cmd);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd);
}

static void
test_dashboard(void **state)
{
    char args[600], *s1, *s2, *s3;
    double tps1, tps2;

    snprintf(args, sizeof(args), "%s -c 2 -j 2 -w select-only --record %s/rec.jsonl",
             itest_target(DB), dir);
    start(args);
    s1 = wait_for("clients 2/2", 8000);
    itest_sleep_ms(1500);
    free(s1);
    s1 = capture();
    tps1 = figure(s1, "tps ");
    s2 = NULL;
    /* a new interval's figure: 2 s quiet; a busy host may draw later (bounded at 10 s) */
    for (int waited = 0; waited < WAIT_FLOOR_MS; waited += 500) {
        itest_sleep_ms(500);
        free(s2);
        s2 = capture();
        tps2 = figure(s2, "tps ");
        if (waited >= 2000 && tps2 != tps1)
            break;
    }
    fprintf(stderr, "  tps on screen: %.1f then %.1f\n", tps1, tps2);
    assert_true(tps1 > 0 && tps2 > 0);
    assert_true(tps1 != tps2);
    assert_non_null(strstr(s2, "3 server"));
    assert_non_null(strstr(s2, "client sessions")); /* the collector's rows */

    tmux("send-keys -t bt +");
    free(s1);
    s1 = wait_for("clients 3/3", 5000);
    /* three intervals later the events pane says how tps moved against the verdict's prediction */
    free(s1);
    s1 = wait_for("added 1 client: tps ", 9000);

    /* the latency pane: every percentile at 120x40; at 80x24 p90 gives way, p95 and max stay */
    assert_non_null(strstr(s1, " p90 "));
    assert_non_null(strstr(s1, " p95 "));
    tmux("resize-window -t bt -x 80 -y 24");
    free(s2);
    s2 = capture();
    /* until benchtop has drawn for the new size: the latency pane back, without p90 */
    for (int i = 0;
         i < WAIT_FLOOR_MS / 200 && (strstr(s2, " p90 ") != NULL || !strstr(s2, "2 latency"));
         i++) {
        itest_sleep_ms(200);
        free(s2);
        s2 = capture();
    }
    if (strstr(s2, " p95 ") == NULL || strstr(s2, " max ") == NULL)
        fprintf(stderr, "%s", s2);
    assert_non_null(strstr(s2, " p95 "));
    assert_non_null(strstr(s2, " max "));
    assert_null(strstr(s2, " p90 "));
    tmux("resize-window -t bt -x 60 -y 15");
    free(s2);
    s2 = wait_for("terminal too small", 3000);
    tmux("resize-window -t bt -x 120 -y 40");
    s3 = wait_for("1 throughput", 3000);
    assert_true(figure(s3, "tps ") > 0);

    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    free(s1);
    s1 = slurp_file("err");
    assert_non_null(strstr(s1, "number of transactions:"));
    assert_non_null(strstr(s1, "-> 3")); /* the clients as they went: "clients: 2 -> 3" */
    assert_non_null(strstr(s1, "verdict: final: "));
    free(s1);
    /* --record: the headless lines, server samples included, written while the TUI ran */
    s1 = slurp_file("rec.jsonl");
    assert_true(itest_count_lines(s1, "\"type\":\"interval\"") >= 4);
    assert_true(itest_count_lines(s1, "\"type\":\"server\"") >= 4);
    assert_int_equal(itest_count_lines(s1, "\"type\":\"summary\""), 1);
    assert_non_null(strstr(s1, "\"label\":\"client sessions\""));
    free(s1);
    free(s2);
    free(s3);
}

/*
 * --record on a full disk: the first failed write shows at once in the
 * header and the events pane, recording stops, the load goes on; q exits 1
 * (lines were lost) with one line saying so.
 */
static void
test_record_full_disk(void **state)
{
    char args[600], *s1, *s2;

    if (itest_tmpfs_full(itest_full, 8) < 0)
        test_skip("cannot mount a tmpfs to fill (needs root and CAP_SYS_ADMIN)");
    snprintf(args, sizeof(args), "%s -c 2 -w select-only -T 60 --record %s/rec.jsonl",
             itest_target(DB), itest_full);
    start(args);
    s1 = wait_for("recording stopped: No space left on device", 20000);
    assert_non_null(strstr(s1, "NOT RECORDING"));
    assert_non_null(strstr(s1, "ends here; the run goes on"));
    assert_non_null(strstr(s1, " running ")); /* the load goes on */
    s2 = NULL;
    /* the next frames: the clock moves within a second or two, later on a busy host */
    for (int waited = 0; waited < WAIT_FLOOR_MS; waited += 500) {
        itest_sleep_ms(500);
        free(s2);
        s2 = capture();
        if (waited >= 2000 && strcmp(strstr(s1, "elapsed"), strstr(s2, "elapsed") ?: "") != 0)
            break;
    }
    assert_non_null(strstr(s2, " running "));
    assert_true(figure(s2, "elapsed ") >= 0);
    assert_string_not_equal(strstr(s1, "elapsed"), strstr(s2, "elapsed")); /* the clock moved */
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 1);
    free(s1);
    s1 = slurp_file("err");
    fprintf(stderr, "  stderr: %s", s1);
    assert_non_null(strstr(s1, "rec.jsonl: No space left on device (lines were lost)"));
    assert_int_equal(itest_count_lines(s1, "cannot write"), 1);
    free(s1);
    free(s2);
}

/* The help overlay lists every key, and pause shows on the header. */
static void
test_help_and_pause(void **state)
{
    char args[600], *s;

    snprintf(args, sizeof(args), "%s -c 1 -w select-only", itest_target(DB));
    start(args);
    free(wait_for("clients 1/1", 8000));
    tmux("send-keys -t bt ?");
    s = wait_for("pause / resume", 3000);
    assert_non_null(strstr(s, "add / remove a client"));
    assert_non_null(strstr(s, "zoom"));
    free(s);
    tmux("send-keys -t bt x"); /* any key closes the help */
    tmux("send-keys -t bt Space");
    free(wait_for("PAUSED", 3000));
    itest_sleep_ms(1200);
    s = wait_for("tps 0.0", 3000); /* paused: no transactions in the last interval */
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
}

/* SHOW name on a fresh connection, polled until it is `want` (a reload reaches new sessions soon).
 */
static void
wait_show(const char *sql, const char *want)
{
    char got[64] = "";

    for (int i = 0; i < 50; i++) {
        PGconn *c = itest_pg("postgres");
        PGresult *r = PQexec(c, sql);

        snprintf(got, sizeof(got), "%s",
                 PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?");
        PQclear(r);
        PQfinish(c);
        if (strcmp(got, want) == 0)
            return;
        itest_sleep_ms(100);
    }
    fail_msg("%s: '%s', not '%s'", sql, got, want);
}

/* Lines of the screen that contain needle. */
static int
screen_lines(const char *screen, const char *needle)
{
    return itest_count_lines(screen, needle);
}

/*
 * s sets a setting on the server (ALTER SYSTEM + reload, checked with
 * SHOW), the events pane logs it and the change, the panes show before /
 * since; a restart-only setting is refused in one line and not written;
 * m adds a marker; the record holds all of it.
 */
static void
test_set_setting(void **state)
{
    char args[600], *s;
    PGconn *c;

    snprintf(args, sizeof(args), "%s -c 2 -w select-only --record %s/set.jsonl", itest_target(DB),
             dir);
    start(args);
    free(wait_for("clients 2/2", 8000));
    tmux("send-keys -t bt s");
    free(wait_for("set (NAME = VALUE", 3000));
    tmux("send-keys -t bt -l 'work_mem = 7MB'");
    tmux("send-keys -t bt Enter");
    s = wait_for("postgres: set work_mem = 7MB", 5000);
    free(s);
    wait_show("SHOW work_mem", "7MB");
    s = wait_for("work_mem: 4MB -> 7MB", 5000);
    free(s);
    itest_sleep_ms(1200);
    s = wait_for("since", 3000);
    assert_non_null(strstr(s, "before"));
    free(s);

    tmux("send-keys -t bt s");
    tmux("send-keys -t bt -l 'shared_buffers = 64MB'");
    tmux("send-keys -t bt Enter");
    s = wait_for("postgres: shared_buffers needs a restart (set it in postgresql.conf)", 5000);
    assert_int_equal(screen_lines(s, "needs a restart"), 1);
    free(s);
    c = itest_pg("postgres");
    assert_int_equal(itest_scalar(c, "SELECT count(*) FROM pg_file_settings WHERE name = "
                                     "'shared_buffers' AND sourcefile LIKE '%auto.conf'"),
                     0);
    PQfinish(c);
    wait_show("SHOW shared_buffers", "128MB");

    tmux("send-keys -t bt m");
    tmux("send-keys -t bt -l 'batch 10'");
    tmux("send-keys -t bt Enter");
    free(wait_for("marker: batch 10", 3000));
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    s = slurp_file("set.jsonl");
    assert_int_equal(itest_count_lines(s, "\"type\":\"settings\""), 1);
    assert_non_null(strstr(s, "\"kind\":\"set\",\"collector\":\"postgres\",\"name\":\"work_mem\","
                              "\"value\":\"7MB\",\"ok\":true"));
    assert_non_null(strstr(s, "\"name\":\"work_mem\",\"from\":\"4MB\",\"to\":\"7MB\""));
    assert_non_null(strstr(s, "\"name\":\"shared_buffers\",\"value\":\"64MB\",\"ok\":false"));
    assert_non_null(strstr(s, "\"kind\":\"marker\",\"label\":\"batch 10\""));
    free(s);
    c = itest_pg("postgres");
    itest_exec(c, "ALTER SYSTEM RESET work_mem");
    itest_exec(c, "SELECT pg_reload_conf()");
    PQfinish(c);
}

/* --read-only: s opens no prompt and sets nothing. */
static void
test_read_only(void **state)
{
    char args[600], *s;

    snprintf(args, sizeof(args), "%s -c 1 -w select-only --read-only", itest_target(DB));
    start(args);
    free(wait_for("clients 1/1", 8000));
    tmux("send-keys -t bt s");
    s = wait_for("not changed with --read-only", 3000);
    assert_null(strstr(s, "set (NAME = VALUE"));
    free(s);
    itest_sleep_ms(500);
    s = capture();
    assert_null(strstr(s, "set (NAME = VALUE"));
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
}

/* Starts agent i of 3 (-c 2, -T 6) in the background, its record into dir/fleet-i.jsonl. */
static void
start_agent(int i, long long at)
{
    char cmd[1024];

    snprintf(cmd, sizeof cmd,
             "%s run %s --headless -q --instance %d/3 --start-at %lld -c 2 -T 6 "
             ">%s/fleet-%d.jsonl 2>/dev/null &",
             itest_env("BENCHTOP_BIN"), itest_env("BENCHTOP_RD_TARGET"), i, at, dir, i);
    assert_int_equal(system(cmd), 0);
}

/* The countdown's seconds on screen ("starts in N s"): 1..most, or -1 when it has started. */
static int
countdown_secs(const char *screen, int most)
{
    const char *p = strstr(screen, "starts in ");
    int secs = p ? atoi(p + strlen("starts in ")) : -1;

    if (p != NULL && (secs < 1 || secs > most))
        fail_msg("countdown at %d s, not within 1..%d", secs, most);
    return secs;
}

/* The value of the last "commands" row in a record's server lines ("31435/s"). */
static void
last_commands(const char *record, char *value, size_t len)
{
    const char *p = NULL, *q = record;

    while ((q = strstr(q, "\"label\":\"commands\",\"value\":\"")) != NULL)
        p = q++;
    assert_non_null(p);
    p = strchr(p + strlen("\"label\":\"commands\",\"value"), '"') + 2;
    snprintf(value, len, "%.*s", (int)strcspn(p, "\""), p);
}

/*
 * watch --records: three Redis agents (--instance i/3, one --start-at)
 * write growing records. Before the start the dashboard counts down with
 * the agents ready (1 of 3, then 3 of 3); then it follows them as one run
 * of 6 clients with a tps and the server pane filled from agent 0's server
 * samples (the commands row as its record's last has it); "done" shows once
 * every agent ended, not before; q ends it with exit 0.
 */
static void
test_watch_records(void **state)
{
    long long at = (long long)time(NULL) + 15;
    char cmd[1024], value[64], *s, *rec;
    const char *row;
    int i;

    start_agent(0, at);
    for (i = 0, s = NULL; i < 100 && (s == NULL || strstr(s, "\"ready\"") == NULL); i++) {
        free(s);
        itest_sleep_ms(100);
        s = slurp_file("fleet-0.jsonl");
    }
    free(s);
    snprintf(cmd, sizeof cmd, "watch --records %s/fleet-\\*.jsonl", dir);
    start(cmd);
    s = wait_for("1 of 3 agents ready", 10000);
    countdown_secs(s, 15);
    assert_null(strstr(s, "done:"));
    free(s);
    start_agent(1, at);
    start_agent(2, at);
    s = wait_for("3 of 3 agents ready", 10000);
    countdown_secs(s, 15);
    free(s);
    s = wait_for("clients 6/6", 30000);
    assert_true(figure(s, "tps ") > 0);
    assert_null(strstr(s, "starts in"));
    assert_null(strstr(s, "done:")); /* the agents run for 6 s */
    free(s);
    s = wait_for("done: 3 of 3 agents ended", 30000);
    rec = slurp_file("fleet-0.jsonl");
    last_commands(rec, value, sizeof value);
    row = strstr(s, "commands");
    if (row == NULL || strstr(row, value) == NULL || strstr(row, value) > strchr(row, '\n'))
        fail_msg("the server pane's commands row is not %s, agent 0's last:\n%s", value, s);
    free(rec);
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
}

static void
test_demo(void **state)
{
    char *s;

    start("demo -c 2");
    s = wait_for("clients 2/2", 60000);
    /* the first intervals with transactions: 2.5 s quiet, later on a busy host */
    for (int waited = 0; waited < WAIT_FLOOR_MS && figure(s, "tps ") <= 0; waited += 500) {
        itest_sleep_ms(500);
        free(s);
        s = capture();
    }
    assert_true(figure(s, "tps ") > 0);
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    s = slurp_file("err");
    assert_non_null(strstr(s, "number of transactions:"));
    assert_non_null(strstr(s, "demo: stopping the postgres server"));
    /* the private folder is gone */
    {
        const char *f = strstr(s, "(folder ");
        char folder[128];
        assert_non_null(f);
        snprintf(folder, sizeof(folder), "%.*s", (int)strcspn(f + 8, ")"), f + 8);
        if (access(folder, F_OK) == 0)
            fail_msg("%s is still there after the demo", folder);
    }
    free(s);
}

/* The n-th (from 0) line of text holding needle, copied into line; 0 if there are fewer. */
static int
nth_line(const char *text, const char *needle, int n, char *line, size_t len)
{
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++) {
        const char *b = p, *e = p + strcspn(p, "\n");
        if (n-- > 0)
            continue;
        while (b > text && b[-1] != '\n')
            b--;
        snprintf(line, len, "%.*s", (int)(e - b), b);
        return 1;
    }
    return 0;
}

/*
 * benchtop sweep on the dashboard: the sweep pane is there from the start,
 * and each step's row (its clients, p50 and p99 as the --record line says)
 * shows as soon as the step's line is recorded; then the finding.
 */
static void
test_sweep_pane(void **state)
{
    char args[600], line[8192], want[128], *rec = NULL, *s;
    int step;

    snprintf(args, sizeof(args),
             "sweep %s --clients 1,2,3 --warmup 1 --step-time 2 -w select-only --record "
             "%s/sweep.jsonl",
             itest_target(DB), dir);
    start(args);
    free(wait_for("6 sweep: clients", 8000));
    for (step = 0; step < 3; step++) {
        int found = 0;
        for (int i = 0; i < 600 && !found; i++) { /* a step takes 3 s; the loaded machine, more */
            free(rec);
            rec = slurp_file("sweep.jsonl");
            found = nth_line(rec, "\"type\":\"step\"", step, line, sizeof(line));
            if (!found)
                itest_sleep_ms(100);
        }
        if (!found) {
            s = capture();
            fail_msg("no line for step %d after 60 s; the screen:\n%s\nstderr:\n%s", step + 1, s,
                     slurp_file("err"));
        }
        assert_int_equal((int)itest_num(line, "clients"), step + 1);
        /* x, tps, then p50 and p99 in ms as the pane prints them */
        snprintf(want, sizeof(want), "%10.3f%10.3f", itest_num(line, "p50") / 1000.0,
                 itest_num(line, "p99") / 1000.0);
        s = wait_for(want, 2000);
        assert_true(nth_line(s, want, 0, line, sizeof(line)));
        snprintf(want, sizeof(want), "%9d", step + 1);
        if (strstr(line, want) == NULL)
            fail_msg("step %d's row lacks its clients: %s", step + 1, line);
        if (step < 2)
            assert_true(strstr(s, "warming up") != NULL || strstr(s, "measuring") != NULL);
        free(s);
    }
    s = wait_for("knee", 5000); /* "knee at ..." or "no knee: ..." */
    free(s);
    tmux("send-keys -t bt 6");           /* zoomed: the pane alone */
    s = wait_gone("1 throughput", 3000); /* "p50 ms" was on screen before the zoom's frame */
    assert_null(strstr(s, "1 throughput"));
    assert_non_null(strstr(s, "p50 ms"));
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    s = slurp_file("err");
    assert_non_null(strstr(s, "most tps: "));
    assert_int_equal(itest_count_lines(rec, "\"type\":\"step\""), 3);
    free(s);
    free(rec);
}

/* watch: the server-side verdict on the dashboard's verdict line (issue 25.9: it was blank). */
static void
test_watch_verdict_line(void **state)
{
    char args[600], *s;

    snprintf(args, sizeof(args), "watch %s", itest_target(DB));
    start(args);
    s = wait_for("limit: server-side: ", 10000);
    assert_non_null(strstr(s, "limit: server-side: "));
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
}

/*
 * watch's throughput header under another benchtop's load: the server's
 * rate beside "server tps" (it said "server tps -" while the chart and
 * the server pane had the rate: issue 47, item 6).
 */
static void
test_watch_server_tps(void **state)
{
    char args[600], *s = NULL;
    char *load[] = {
        "run", itest_target(DB), "--headless", "-q", "--no-collect", "-T", "12", "-c", "2",
        "-w",  "select-only",    NULL};
    double tps = -1;
    int o, e;
    pid_t pid = itest_spawn(load, &o, &e);
    struct run r;

    snprintf(args, sizeof(args), "watch %s", itest_target(DB));
    start(args);
    for (int i = 0; i < 40 && !(tps > 0); i++) { /* the second sample has the first rate */
        itest_sleep_ms(250);
        free(s);
        s = capture();
        tps = figure(s, "server tps ");
    }
    fprintf(stderr, "  header: server tps %.1f\n", tps);
    assert_true(tps > 10);
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    r = itest_finish(pid, o, e);
    assert_int_equal(r.status, 0);
    itest_free(&r);
}

/* Two application sessions in known states: one idle in its transaction, one waiting on its lock.
 */
struct lock_pair {
    PGconn *holder, *waiter;
    int holder_pid, waiter_pid;
};

static void
lock_pair_start(struct lock_pair *p)
{
    PGconn *c = itest_pg(DB);

    itest_exec(c, "DROP TABLE IF EXISTS sess_t");
    itest_exec(c, "CREATE TABLE sess_t (id int PRIMARY KEY, v int)");
    itest_exec(c, "INSERT INTO sess_t VALUES (1, 0)");
    PQfinish(c);
    p->holder = itest_pg(DB);
    itest_exec(p->holder, "SET application_name = 'holder'");
    itest_exec(p->holder, "BEGIN");
    itest_exec(p->holder, "UPDATE sess_t SET v = 1 WHERE id = 1");
    p->holder_pid = PQbackendPID(p->holder);
    itest_sleep_ms(1500); /* the holder's idle time stays ahead of the waiter's query time */
    p->waiter = itest_pg(DB);
    itest_exec(p->waiter, "SET application_name = 'waiter'");
    p->waiter_pid = PQbackendPID(p->waiter);
    assert_int_equal(PQsendQuery(p->waiter, "UPDATE sess_t SET v = 2 WHERE id = 1"), 1);
}

/* The waiter's answer within 10 s: its error message, or "" when it succeeded. */
static char *
waiter_answer(PGconn *w)
{
    PGresult *r;
    char *msg;
    int i;

    for (i = 0; i < 100 && (PQconsumeInput(w), PQisBusy(w)); i++)
        itest_sleep_ms(100);
    assert_false(PQisBusy(w));
    r = PQgetResult(w);
    msg = strdup(PQresultStatus(r) == PGRES_FATAL_ERROR ? PQresultErrorMessage(r) : "");
    PQclear(r);
    while ((r = PQgetResult(w)) != NULL)
        PQclear(r);
    return msg;
}

/* Whether pid's session is still there, after up to 10 s for it to go. */
static int
session_alive(int pid)
{
    PGconn *c = itest_pg("postgres");
    char sql[128];
    long long n = 1;

    snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_stat_activity WHERE pid = %d", pid);
    for (int i = 0; i < 100 && (n = itest_scalar(c, sql)) > 0; i++)
        itest_sleep_ms(100);
    PQfinish(c);
    return n > 0;
}

/* Where needle first shows on screen, as an offset; fails when it is not there. */
static long
at(const char *screen, const char *needle)
{
    const char *p = strstr(screen, needle);

    if (p == NULL)
        fail_msg("'%s' not on screen:\n%s", needle, screen);
    return p - screen;
}

/* The screen line holding needle. */
static void
line_of(const char *screen, const char *needle, char *line, size_t len)
{
    if (!nth_line(screen, needle, 0, line, len))
        fail_msg("no line with '%s':\n%s", needle, screen);
}

/*
 * watch lists the sessions in the latency pane's place: the holder (idle
 * in its transaction, longest) above the waiter by duration, the waiter
 * (marked '!', on Lock:transactionid) first by state, the collector's own
 * session marked '*'. C on the waiter asks first; n leaves it, y cancels
 * its statement (the waiter's own connection sees the cancel); K on the
 * holder ends its session.
 */
/* Whether the holder's row shows above the waiter's. */
static int
holder_leads(const char *screen)
{
    const char *h = strstr(screen, "holder"), *w = strstr(screen, "waiter");

    return h != NULL && w != NULL && h < w;
}

static void
test_watch_sessions(void **state)
{
    struct lock_pair p;
    char args[600], line[256], want[64], *s, *msg;

    lock_pair_start(&p);
    snprintf(args, sizeof(args), "watch %s", itest_target(DB));
    start(args);
    s = wait_for("waiter", 10000);
    assert_non_null(strstr(s, "7 sessions"));
    assert_null(strstr(s, "2 latency"));
    assert_true(at(s, "holder") < at(s, "waiter"));
    line_of(s, "benchtop-colle", line, sizeof line);
    assert_non_null(strstr(line, "* "));
    line_of(s, "holder", line, sizeof line);
    assert_non_null(strstr(line, "idle in trans"));
    free(s);
    tmux("send-keys -t bt 7 o Home");
    s = wait_for("o: by state", 3000);
    assert_true(at(s, "waiter") < at(s, "holder"));
    line_of(s, "waiter", line, sizeof line);
    assert_non_null(strstr(line, "! "));
    assert_non_null(strstr(line, "Lock:transactionid"));
    assert_non_null(strstr(line, "UPDATE sess_t SET v = 2"));
    free(s);

    snprintf(want, sizeof want, "cancel the query of session %d (waiter", p.waiter_pid);
    tmux("send-keys -t bt C");
    free(wait_for(want, 3000));
    tmux("send-keys -t bt n 0");
    snprintf(want, sizeof want, "left session %d alone", p.waiter_pid);
    free(wait_for(want, 3000));
    PQconsumeInput(p.waiter);
    assert_true(PQisBusy(p.waiter)); /* n did nothing: it still waits */

    tmux("send-keys -t bt 7 Home C y");
    msg = waiter_answer(p.waiter);
    assert_non_null(strstr(msg, "canceling statement due to user request"));
    free(msg);
    tmux("send-keys -t bt 0");
    snprintf(want, sizeof want, "cancelled the query of session %d", p.waiter_pid);
    free(wait_for(want, 5000));

    /*
     * by state the holder, idle in its transaction, leads once a sample shows
     * the waiter idle (a busy host samples later): k then stops at the top
     */
    for (int waited = 0; !holder_leads(s = capture()) && waited < WAIT_FLOOR_MS; waited += 200) {
        free(s);
        itest_sleep_ms(200);
    }
    free(s);
    tmux("send-keys -t bt 7 k k k k");
    snprintf(want, sizeof want, "terminate session %d (holder", p.holder_pid);
    tmux("send-keys -t bt K");
    free(wait_for(want, 3000));
    tmux("send-keys -t bt y");
    assert_false(session_alive(p.holder_pid));
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    PQfinish(p.holder);
    PQfinish(p.waiter);
}

/*
 * T turns the sessions pane into the top statements: a statement run
 * 1,234 times since pg_stat_statements' reset shows with its calls, its
 * share and its text; T again gives the sessions back.
 */
static void
test_watch_top_statements(void **state)
{
    PGconn *c = itest_pg(DB);
    char args[600], line[256], *s;

    itest_exec(c, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    itest_exec(c, "CREATE TABLE IF NOT EXISTS tui_top_probe (i int)");
    itest_exec(c, "SELECT pg_stat_statements_reset()");
    for (int i = 0; i < 1234; i++)
        itest_exec(c, "SELECT count(*) FROM tui_top_probe");
    PQfinish(c);
    snprintf(args, sizeof(args), "watch %s", itest_target(DB));
    start(args);
    free(wait_for("7 sessions", 10000));
    tmux("send-keys -t bt T");
    free(wait_for("7 top statements (pg_stat_statements)", 5000));
    tmux("send-keys -t bt 7");
    s = wait_for("tui_top_probe", 5000);
    line_of(s, "tui_top_probe", line, sizeof line);
    if (strstr(line, " 1234 ") == NULL)
        fail_msg("no 1234 calls in:\n%s", s);
    assert_non_null(strstr(s, "calls/s"));
    free(s);
    tmux("send-keys -t bt T");
    free(wait_for("7 sessions", 5000));
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
}

/* q ends the dashboard with 0; the next session is 120x40 again. */
static void
quit_ok(void)
{
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    term_w = 120;
    term_h = 40;
}

/* Waits up to ms for `needle` to leave the screen; returns the screen (checked by the caller). */
static char *
wait_gone(const char *needle, int ms)
{
    char *s = capture();

    ms = ms < WAIT_FLOOR_MS ? WAIT_FLOOR_MS : ms;

    for (int waited = 0; waited < ms && strstr(s, needle) != NULL; waited += 100) {
        free(s);
        itest_sleep_ms(100);
        s = capture();
    }
    return s;
}

/* The screen's third line (the verdict's), its trailing blanks dropped. */
static void
verdict_row(const char *screen, char *line, size_t len)
{
    const char *p = screen;
    size_t n;

    for (int i = 0; i < 2 && strchr(p, '\n') != NULL; i++)
        p = strchr(p, '\n') + 1;
    snprintf(line, len, "%.*s", (int)strcspn(p, "\n"), p);
    n = strlen(line);
    while (n > 0 && line[n - 1] == ' ')
        line[--n] = '\0';
}

/* Cells of a UTF-8 string, as the terminal shows it. */
static int
cells(const char *s)
{
    int n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/*
 * Under load at 80 and at 200 columns the verdict line is whole, or ends
 * in an ellipsis at the edge; v shows the whole verdict (its start as on
 * the line, and what the line cut), any key closes it.
 */
static void
test_verdict_line_cut_or_whole(void **state)
{
    static const int widths[] = {80, 200};
    char args[600], line[1024], start_of[40], *s;

    snprintf(args, sizeof(args), "%s -c 2 -j 1 -T 60", itest_target(DB));
    for (int k = 0; k < 2; k++) {
        term_w = widths[k];
        term_h = 30;
        start(args);
        for (int i = 0; i < 100; i++) { /* the first verdict takes a few intervals */
            s = capture();
            verdict_row(s, line, sizeof line);
            free(s);
            if (strstr(line, "limit: ") != NULL && strstr(line, "measuring") == NULL)
                break;
            itest_sleep_ms(200);
        }
        fprintf(stderr, "  %d columns: %s\n", widths[k], line);
        assert_non_null(strstr(line, "limit: "));
        if (cells(line) >= widths[k] - 1) /* at the edge: cut, and it says so */
            assert_non_null(strstr(line + strlen(line) - 3, "\u2026"));
        else
            assert_null(strstr(line, "\u2026"));
        snprintf(start_of, sizeof start_of, "%.24s", strstr(line, "limit: ") + 7);
        tmux("send-keys -t bt v");
        s = wait_for("verdict (any key closes)", 3000);
        assert_non_null(strstr(s, start_of));
        free(s);
        tmux("send-keys -t bt x");
        s = wait_gone("any key closes", 2000);
        assert_null(strstr(s, "any key closes"));
        free(s);
        quit_ok();
    }
}

/* Issue 47: at 80x24 the frame's bottom-right corner was never drawn (the last cell skipped). */
static void
test_corner_at_80x24(void **state)
{
    char args[600], *s, *last;
    size_t n;

    snprintf(args, sizeof(args), "%s -c 1 -j 1 -T 60", itest_target(DB));
    term_w = 80;
    term_h = 24;
    start(args);
    s = wait_for("limit: ", 30000);
    n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
    last = strrchr(s, '\n') != NULL ? strrchr(s, '\n') + 1 : s;
    fprintf(stderr, "  the last row: %d cells, ends in %s\n", cells(last), n >= 3 ? s + n - 3 : s);
    assert_int_equal(cells(last), 80);
    assert_string_equal(s + n - 3, "\u2518"); /* ┘ */
    free(s);
    quit_ok();
}

/*
 * Zoomed, the server pane scrolls at 80x24: j moves its rows up a line at
 * a time and says how many are above; End goes to the last, Home back.
 */
static void
test_server_pane_scrolls(void **state)
{
    char args[600], *s;

    snprintf(args, sizeof(args), "watch %s", itest_target(DB));
    term_w = 80;
    term_h = 24;
    start(args);
    free(wait_for("client sessions", 10000));
    tmux("send-keys -t bt 5 j j j");
    free(wait_for("3 rows above (k, PgUp, Home)", 3000));
    tmux("send-keys -t bt k");
    free(wait_for("2 rows above", 3000));
    tmux("send-keys -t bt End");
    s = wait_for("rows above", 3000);
    assert_null(strstr(s, "client sessions")); /* the first rows gave way */
    free(s);
    tmux("send-keys -t bt Home");
    s = wait_gone("rows above", 2000);
    assert_null(strstr(s, "rows above"));
    assert_non_null(strstr(s, "client sessions"));
    free(s);
    quit_ok();
}

/* --read-only: the list is there, C and K are not. */
static void
test_watch_sessions_read_only(void **state)
{
    char args[600], *s;

    snprintf(args, sizeof(args), "watch %s --read-only", itest_target(DB));
    start(args);
    s = wait_for("C/K off (--read-only)", 10000);
    free(s);
    tmux("send-keys -t bt C");
    s = wait_for("not cancelled with --read-only", 3000);
    assert_null(strstr(s, "y: yes"));
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
}

/*
 * watch redis://: CLIENT LIST with the collector's own connection marked;
 * C is refused (Redis cannot cancel a command), K on a named client ends it.
 */
static void
test_watch_redis_clients(void **state)
{
    redisContext *c = rtest_connect();
    char args[600], line[256], *s = NULL;
    redisReply *r;
    int i;

    rtest_do(c, "CLIENT SETNAME tui-tester");
    snprintf(args, sizeof(args), "watch %s", itest_env("BENCHTOP_RD_TARGET"));
    start(args);
    s = wait_for("tui-tester", 10000);
    line_of(s, "tui-tester", line, sizeof line);
    assert_non_null(strstr(line, "client|set")); /* its last command */
    line_of(s, "client|list", line, sizeof line);
    assert_non_null(strstr(line, "* "));
    free(s);
    tmux("send-keys -t bt 7 C");
    free(wait_for("? y: yes", 3000));
    tmux("send-keys -t bt y 0");
    free(wait_for("Redis cannot cancel a command", 3000));
    tmux("send-keys -t bt 7");
    /* walk down to the tester: its row depends on the other clients' idle times */
    for (i = 0; i < 20; i++) {
        tmux("send-keys -t bt K");
        s = wait_for("? y: yes", 3000);
        if (strstr(s, "(tui-tester") != NULL)
            break;
        free(s);
        s = NULL;
        tmux("send-keys -t bt n j");
    }
    assert_non_null(s);
    free(s);
    tmux("send-keys -t bt y");
    for (i = 0; i < 50 && (r = redisCommand(c, "PING")) != NULL; i++) {
        freeReplyObject(r);
        itest_sleep_ms(100);
    }
    assert_null(r); /* CLIENT KILL closed the connection */
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    redisFree(c);
}

/* A terminal that cannot move the cursor gets one line and exit 2, not a garbled screen. */
static void
test_dumb_terminal_refused(void **state)
{
    char args[600], *err;

    snprintf(args, sizeof(args), "watch %s", itest_target(DB));
    start_env("TERM=dumb", args);
    assert_int_equal(exit_code(), 2);
    err = slurp_file("err");
    assert_non_null(strstr(err, "TERM=dumb cannot draw the dashboard"));
    free(err);
}

/*
 * Under timeout(1), which moves itself and benchtop into a process group of
 * their own, the terminal would stop the dashboard's first tcsetattr with
 * SIGTTOU and the stopped demo would ignore timeout's SIGTERM, its server
 * and folder left behind. Refused with one line and exit 2 instead, before
 * a server starts: no "demo: postgres server at ... (folder ...)" line.
 */
static void
test_demo_not_in_foreground_refused(void **state)
{
    char *err;

    start_env("timeout 30", "demo");
    assert_int_equal(exit_code(), 2); /* 124 (or nothing within 10 s) if stopped */
    err = slurp_file("err");
    assert_non_null(strstr(err, "from outside its foreground process group"));
    assert_non_null(strstr(err, "timeout --foreground"));
    assert_int_equal(itest_count_lines(err, "\n"), 1);
    assert_null(strstr(err, "folder"));
    free(err);
    /* with --foreground it is benchtop's terminal: the dashboard comes */
    start_env("timeout --foreground 60", "demo -c 2");
    free(wait_for("clients 2/2", 60000));
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    err = slurp_file("err");
    assert_non_null(strstr(err, "demo: stopping the postgres server"));
    free(err);
}

/* SHOW name on the server at target, from a connection of the test's own. */
static void
show_on(const char *target, const char *name, char *value, size_t len)
{
    char sql[128];
    PGconn *c = PQconnectdb(target);
    PGresult *r;

    assert_int_equal(PQstatus(c), CONNECTION_OK);
    snprintf(sql, sizeof sql, "SHOW %s", name);
    r = PQexec(c, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    snprintf(value, len, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(c);
}

/* t's question on a commit-bound run, answered n: nothing is changed. */
static void
try_answer_no(const char *slow)
{
    char value[64];

    tmux("send-keys -t bt t");
    free(wait_for("try synchronous_commit=off (commit", 5000)); /* the verdict's label */
    tmux("send-keys -t bt n");
    free(wait_for("no experiment run: nothing changed", 5000));
    show_on(slow, "synchronous_commit", value, sizeof value);
    assert_string_equal(value, "on");
}

/* y: the rounds run in the load; B (synchronous_commit off) is seen on the server. */
static void
try_answer_yes(const char *slow)
{
    char value[64] = "";

    tmux("send-keys -t bt t");
    free(wait_for("try synchronous_commit=off (commit", 5000)); /* the verdict's label */
    tmux("send-keys -t bt y");
    free(wait_for("pair order", 5000)); /* the overlay's heads */
    for (int i = 0; i < 300 && strcmp(value, "off") != 0; i++) {
        show_on(slow, "synchronous_commit", value, sizeof value);
        itest_sleep_ms(100);
    }
    assert_string_equal(value, "off");
}

/* The number after key ("\"hi\":") in a record's line; NAN when absent or null. */
static double
line_num(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    char *end;
    double v;

    if (p == NULL)
        return NAN;
    v = strtod(p + strlen(key), &end);
    return end == p + strlen(key) ? NAN : v;
}

/*
 * The try's event in the record: scored against the model's predicted
 * range, and "did not hold" (not_held) only with the interval wholly
 * below the predicted minimum; an inconclusive try is "untested".
 */
static void
check_try_event(const char *rec)
{
    const char *ev = strstr(rec, "\"kind\":\"try\"");
    double hi, gain;

    assert_non_null(ev);
    hi = line_num(ev, "\"hi\":");
    gain = line_num(ev, "\"predicted_gain\":");
    assert_true(gain > 0); /* the model's range for synchronous_commit = off */
    assert_true(line_num(ev, "\"predicted_gain_hi\":") >= gain);
    if (strstr(ev, "\"held\":\"not_held\"") != NULL &&
        strstr(ev, "\"held\":\"not_held\"") < strchr(ev, '\n'))
        assert_true(hi < gain);
    if (strstr(ev, "\"outcome\":\"inconclusive\"") != NULL &&
        strstr(ev, "\"outcome\":\"inconclusive\"") < strchr(ev, '\n'))
        assert_non_null(strstr(ev, "\"held\":\"untested\""));
}

/*
 * t on a commit-bound PostgreSQL (every fsync 20 ms slower, tpcb-like):
 * the question names synchronous_commit=off; n changes nothing; y runs
 * A/B pairs in the load until decisive, the overlay shows the interval so
 * far, the events pane ends with B faster and its interval, the advice
 * held (never "did not hold" for a x5 change), the record has the try's
 * event with its outcome and score, synchronous_commit is on again and no
 * undo file is left. --read-only refuses t in one line.
 */
static void
test_try_key(void **state)
{
    char slow[600], env[200], args[900], value[64], path[200], *s;
    char *init[] = {"init", slow, "-q", NULL};
    int keep;
    pid_t pid = itest_slow_pg(slow, sizeof slow, 20, &keep);
    struct run r;

    assert_true(slow[0] != '\0');
    fcntl(keep, F_SETFD, FD_CLOEXEC); /* the tmux server must not hold serve's stdin open */
    r = itest_runv(init);
    assert_int_equal(r.status, 0);
    itest_free(&r);
    snprintf(env, sizeof env, "XDG_STATE_HOME=%s", dir);
    snprintf(args, sizeof args, "%s -w tpcb-like -c 4 --record %s/try.jsonl", slow, dir);
    start_env(env, args);
    free(wait_for("COMMIT/I/O-BOUND", 60000));
    try_answer_no(slow);
    try_answer_yes(slow);
    s = wait_for("so far: ", 60000); /* the running interval, from the second pair */
    free(s);
    s = wait_for("try synchronous_commit=off: B is faster: +", 180000);
    fprintf(stderr, "%s", s); /* the figures, for the log */
    assert_non_null(strstr(s, " pairs (beyond \u00b15%)"));
    assert_non_null(strstr(s, "expected B faster by +")); /* the model's range beside ... */
    assert_non_null(strstr(s, "(measured +"));            /* ... the interval measured */
    assert_null(strstr(s, "did not hold")); /* a x5 change: its interval excludes no gain */
    free(s);
    show_on(slow, "synchronous_commit", value, sizeof value);
    assert_string_equal(value, "on");
    snprintf(path, sizeof path, "ls %s/benchtop/undo-*.json 2>/dev/null | grep -q .", dir);
    assert_int_not_equal(system(path), 0); /* the undo file went with the revert */
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    s = slurp_file("try.jsonl");
    assert_non_null(
        strstr(s, "\"kind\":\"try\",\"text\":\"synchronous_commit=off: B is faster: +"));
    assert_non_null(strstr(s, "\"outcome\":\"faster\""));
    assert_null(strstr(s, "\"held\":\"not_held\""));
    check_try_event(s);
    free(s);

    snprintf(args, sizeof args, "%s -w tpcb-like -c 2 --read-only", slow);
    start_env(env, args);
    free(wait_for("clients 2/2", 15000));
    tmux("send-keys -t bt t");
    s = wait_for("experiments are not run with --read-only", 5000);
    assert_int_equal(screen_lines(s, "experiments are not run"), 1);
    assert_null(strstr(s, "A/B pairs"));
    free(s);
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    close(keep);
    kill(pid, SIGTERM); /* a tmux server started before the fcntl may hold the pipe too */
    waitpid(pid, NULL, 0);
}

/* SHOW CONFIG's value of key on PgBouncer's console (console: its target). */
static void
pool_config(const char *console, const char *key, char *value, size_t len)
{
    PGconn *c = PQconnectdb(console);
    PGresult *r;

    assert_int_equal(PQstatus(c), CONNECTION_OK);
    r = PQexec(c, "SHOW CONFIG");
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    value[0] = '\0';
    for (int i = 0; i < PQntuples(r); i++)
        if (strcmp(PQgetvalue(r, i, 0), key) == 0)
            snprintf(value, len, "%s", PQgetvalue(r, i, 1));
    PQclear(r);
    PQfinish(c);
}

/* A console command (SET, KILL, RESUME) on PgBouncer. */
static void
pool_say(const char *console, const char *cmd)
{
    PGconn *c = PQconnectdb(console);
    PGresult *r;

    assert_int_equal(PQstatus(c), CONNECTION_OK);
    r = PQexec(c, cmd);
    assert_true(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK);
    PQclear(r);
    PQfinish(c);
}

/*
 * t on a pool-bound run (the throwaway PgBouncer's pool cut to 2, 16
 * clients each in pg_sleep(0.01)): the question names default_pool_size=4
 * (the pool x2), y runs the rounds with PgBouncer's pool at 4 in B, the
 * events pane ends with the try's sentence, the pool is 2 again and no
 * undo file is left.
 */
static void
test_try_key_pool(void **state)
{
    const char *pb = getenv("BENCHTOP_PB_TARGET"), *behind = getenv("BENCHTOP_PB_BEHIND");
    char console[512], pooled[512], direct[512], script[200], env[200], args[1800], value[64];
    char path[200], *s;

    if (pb == NULL || behind == NULL) {
        test_skip("no PgBouncer server in this run (pgbouncer is not installed)");
    }
    snprintf(console, sizeof console, "%.*s/pgbouncer", (int)(strrchr(pb, '/') - pb), pb);
    snprintf(pooled, sizeof pooled, "%.*s/postgres", (int)(strrchr(pb, '/') - pb), pb);
    snprintf(direct, sizeof direct, "%s", behind);
    snprintf(script, sizeof script, "%s/sleep.sql", dir);
    itest_write_file(script, "SELECT pg_sleep(0.01);\n");
    pool_say(console, "SET default_pool_size = 2");
    pool_say(console, "KILL postgres"); /* server connections of a larger pool would serve on */
    pool_say(console, "RESUME postgres");
    snprintf(env, sizeof env, "XDG_STATE_HOME=%s", dir);
    snprintf(args, sizeof args, "%s --server %s -f %s -c 16", pooled, direct, script);
    start_env(env, args);
    free(wait_for("POOL-BOUND", 60000));
    tmux("send-keys -t bt t");
    free(wait_for("try default_pool_size=4 (pool-bound", 5000));
    tmux("send-keys -t bt y");
    free(wait_for("pair order", 5000));
    value[0] = '\0';
    for (int i = 0; i < 300 && strcmp(value, "4") != 0; i++) {
        pool_config(console, "default_pool_size", value, sizeof value);
        itest_sleep_ms(100);
    }
    assert_string_equal(value, "4"); /* B on PgBouncer itself */
    /*
     * No figure is asserted (pool 2 against 4 on a busy host); the A
     * rounds after a B run at 2 again: each revert PAUSEs and RESUMEs
     * the database (pgbouncer-settings.c, test_try_pooler).
     */
    s = wait_for("the server was put back", 300000); /* until decisive: 180 s budget */
    fprintf(stderr, "%s", s);                        /* the figures, for the log */
    assert_non_null(strstr(s, "try default_pool_size=4: "));
    free(s);
    pool_config(console, "default_pool_size", value, sizeof value);
    assert_string_equal(value, "2");
    snprintf(path, sizeof path, "ls %s/benchtop/undo-*.json 2>/dev/null | grep -q .", dir);
    assert_int_not_equal(system(path), 0); /* the undo file went with the revert */
    tmux("send-keys -t bt q");
    assert_int_equal(exit_code(), 0);
    pool_say(console, "SET default_pool_size = 8"); /* the harness's pool */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dashboard),
        cmocka_unit_test_teardown(test_record_full_disk, itest_full_drop),
        cmocka_unit_test(test_help_and_pause),
        cmocka_unit_test(test_watch_verdict_line),
        cmocka_unit_test(test_watch_server_tps),
        cmocka_unit_test(test_set_setting),
        cmocka_unit_test(test_read_only),
        cmocka_unit_test(test_sweep_pane),
        cmocka_unit_test(test_watch_records),
        cmocka_unit_test(test_demo),
        cmocka_unit_test(test_dumb_terminal_refused),
        cmocka_unit_test(test_demo_not_in_foreground_refused),
        cmocka_unit_test(test_watch_sessions),
        cmocka_unit_test(test_watch_sessions_read_only),
        cmocka_unit_test(test_watch_top_statements),
        cmocka_unit_test(test_verdict_line_cut_or_whole),
        cmocka_unit_test(test_corner_at_80x24),
        cmocka_unit_test(test_server_pane_scrolls),
        cmocka_unit_test(test_watch_redis_clients),
        cmocka_unit_test(test_try_key),
        cmocka_unit_test(test_try_key_pool),
    };
    if (getenv("ITEST_FILTER") != NULL) /* e.g. ITEST_FILTER='test_watch_*' */
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    /*
     * The screens asserted here are a UTF-8 terminal's ("\u2026" where a line
     * is cut, box lines), whatever locale ran the suite: with none (a fresh
     * root, no LANG) the dashboard rightly falls back to ASCII ("~"). tmux and
     * benchtop inherit this; C.UTF-8 is in every glibc since 2.35.
     */
    setenv("LC_ALL", "C.UTF-8", 1);
    return cmocka_run_group_tests_name("tui", tests, setup, teardown);
}
