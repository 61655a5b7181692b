/*
 * The Redis collector against the throwaway redis-server: a known number of
 * commands between two samples comes out as rate * seconds = that number,
 * hits and misses as their exact ratio, a user without +slowlog as a note
 * rather than a failure, and a restart as a failed sample, a reopen and an
 * event.
 */
#include "itest-redis.h"

#include "engine/collector.h"

extern const struct collector_class redis_collector_class;

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

/* Sends n copies of cmd pipelined and takes their replies. */
static void
pipeline(redisContext *c, const char *cmd, int n)
{
    redisReply *r;
    int i;

    for (i = 0; i < n; i++)
        redisAppendCommand(c, cmd);
    for (i = 0; i < n; i++) {
        assert_int_equal(redisGetReply(c, (void **)&r), REDIS_OK);
        freeReplyObject(r);
    }
}

static void *
open_ok(const char *target)
{
    char err[BT_ERRLEN];
    void *conn = redis_collector_class.open(itest_parsed(target), err);

    if (conn == NULL)
        fail_msg("open: %s", err);
    return conn;
}

static void
sample_ok(void *conn, struct redis_sample *s)
{
    char err[BT_ERRLEN];

    memset(s, 0, sizeof *s);
    if (redis_collector_class.sample(conn, s, err) != 0)
        fail_msg("sample: %s", err);
}

static double
row_num(const struct coll_view *v, const char *section, const char *label)
{
    const struct coll_row *r = coll_row_find(v, section, label);

    if (r == NULL)
        fail_msg("no row %s/%s", section, label);
    return r->num;
}

/* N INCRs between two samples: commands/s * seconds = N (the collector's own commands out). */
static void
test_commands_rate(void **state)
{
    const int n = 20000;
    void *conn = open_ok(itest_env("BENCHTOP_RD_TARGET"));
    struct redis_sample a, b;
    struct coll_view v;
    uint64_t t0, t1;
    double secs, cmds;

    rtest_do(admin, "DEL collector:counter");
    sample_ok(conn, &a);
    t0 = now_us();
    pipeline(admin, "INCR collector:counter", n);
    sample_ok(conn, &b);
    t1 = now_us();
    secs = (double)(t1 - t0) / 1e6;
    redis_collector_class.derive(&a, &b, secs, &v);
    cmds = row_num(&v, "throughput", "commands");
    fprintf(stderr, "  %d INCRs: %.1f commands/s over %.3f s = %.1f\n", n, cmds, secs, cmds * secs);
    assert_true(fabs(cmds * secs - n) <= 0.01 * n);
    assert_true(fabs(v.server_tps * secs - n) <= 0.01 * n);
    /* the top-commands table: incr alone, exactly n calls */
    assert_true(fabs(row_num(&v, "commands", "incr") * secs - n) < 1e-6 * n);
    assert_null(coll_row_find(&v, "commands", "info"));
    assert_int_equal(rtest_integer(admin, "GET collector:counter"), n);
    assert_true(row_num(&v, "clients", "connected") >= 2);
    assert_false(isnan(row_num(&v, "cpu", "redis cpu")));
    assert_string_equal(b.info.version, a.info.version);
    assert_true(b.info.version[0] == '7' || b.info.version[0] == '6' || b.info.version[0] == '5');
    redis_collector_class.close(conn);
}

/* 3,000 GETs that hit and 1,000 that miss: a 75.0% hit ratio, hits/s * s = 3,000. */
static void
test_hit_ratio(void **state)
{
    void *conn = open_ok(itest_env("BENCHTOP_RD_TARGET"));
    struct redis_sample a, b;
    struct coll_view v;

    rtest_do(admin, "SET collector:present 1");
    rtest_do(admin, "DEL collector:absent");
    sample_ok(conn, &a);
    pipeline(admin, "GET collector:present", 3000);
    pipeline(admin, "GET collector:absent", 1000);
    sample_ok(conn, &b);
    redis_collector_class.derive(&a, &b, 2.0, &v);
    assert_true(row_num(&v, "keyspace", "hit ratio") == 75.0);
    assert_true(row_num(&v, "keyspace", "hits") * 2.0 == 3000.0);
    assert_true(row_num(&v, "keyspace", "misses") * 2.0 == 1000.0);
    redis_collector_class.close(conn);
}

/* An ACL user without SLOWLOG: samples still work; the view says what is missing. */
static void
test_missing_privilege(void **state)
{
    char target[512];
    const char *t = itest_env("BENCHTOP_RD_TARGET") + strlen("redis://");
    void *conn;
    struct redis_sample a, b;
    struct coll_view v;

    rtest_do(admin, "ACL SETUSER bt_watch on >watchpw ~* +@all -slowlog");
    snprintf(target, sizeof target, "redis://bt_watch:watchpw@%s", t);
    conn = open_ok(target);
    sample_ok(conn, &a);
    sample_ok(conn, &b);
    assert_int_equal(b.slowlog_len, -1);
    assert_non_null(strstr(b.refused, "SLOWLOG"));
    redis_collector_class.derive(&a, &b, 1.0, &v);
    assert_int_equal(coll_row_find(&v, "slowlog", "entries")->level, ROW_DIM);
    assert_non_null(strstr(v.note, "NOPERM"));
    /* what it may read is still there */
    assert_false(isnan(row_num(&v, "throughput", "commands")));
    redis_collector_class.close(conn);
    rtest_do(admin, "ACL DELUSER bt_watch");
}

/* Reads the serve process's answer to SIGUSR1. */
static void
wait_restarted(void)
{
    int fd = atoi(itest_env("BENCHTOP_RD_SERVE_FD"));
    char line[256];
    size_t n = 0;

    while (n + 1 < sizeof line && read(fd, line + n, 1) == 1 && line[n] != '\n')
        n++;
    line[n] = '\0';
    assert_string_equal(line, "restarted");
}

/* A restart: the next sample fails, a reopen works, and derive reports the reset counters. */
static void
test_restart(void **state)
{
    void *conn = open_ok(itest_env("BENCHTOP_RD_TARGET"));
    struct redis_sample a, b;
    struct coll_view v;
    char err[BT_ERRLEN] = "";
    int i, found = 0;

    pipeline(admin, "PING", 100);
    sample_ok(conn, &a);
    assert_int_equal(kill((pid_t)atoi(itest_env("BENCHTOP_RD_SERVE_PID")), SIGUSR1), 0);
    wait_restarted();
    assert_int_equal(redis_collector_class.sample(conn, &b, err), -1);
    assert_non_null(strstr(err, "lost the connection"));
    redis_collector_class.close(conn);
    conn = open_ok(itest_env("BENCHTOP_RD_TARGET"));
    sample_ok(conn, &b);
    redis_collector_class.derive(&a, &b, 1.0, &v);
    for (i = 0; i < v.nevents; i++)
        found |= strstr(v.events[i], "restarted") != NULL;
    assert_true(found);
    assert_true(isnan(row_num(&v, "throughput", "commands")));
    redis_collector_class.close(conn);
    redisFree(admin);
    admin = rtest_connect();
}

/* Another process's client: n DEBUG SLEEP secs, one a second (bounded), then it exits. */
static pid_t
slow_client(int n, const char *secs)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        redisContext *c = rtest_connect();

        for (int i = 0; i < n; i++) {
            redisReply *r = redisCommand(c, "DEBUG SLEEP %s", secs);
            if (r == NULL || r->type == REDIS_REPLY_ERROR)
                _exit(1);
            freeReplyObject(r);
            if (i + 1 < n)
                usleep(200000);
        }
        redisFree(c);
        _exit(0);
    }
    return pid;
}

/*
 * Another client's DEBUG SLEEP 0.3, twice: the server was stalled 0.6 s
 * of the interval, named; this process's own DEBUG SLEEP 0.2 (a load
 * connection of benchtop's: its port is ours) is not another's stall.
 */
static void
test_other_client_stall(void **state)
{
    void *conn = open_ok(itest_env("BENCHTOP_RD_TARGET"));
    struct redis_sample a, b;
    struct coll_view v;
    uint64_t t0;
    double secs;
    int status;
    pid_t pid;

    sample_ok(conn, &a);
    t0 = now_us();
    pid = slow_client(2, "0.3");
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(status, 0);
    rtest_do(admin, "DEBUG SLEEP 0.2");
    sample_ok(conn, &b);
    secs = (double)(now_us() - t0) / 1e6;
    redis_collector_class.derive(&a, &b, secs, &v);
    fprintf(stderr, "  2 x DEBUG SLEEP 0.3 from another client in %.2f s: stalled %.0f%% (%s)\n",
            secs, 100 * v.sig.other_stall_share, v.sig.other_stall_what);
    assert_true(fabs(v.sig.other_stall_share * secs - 0.6) < 0.05);
    assert_non_null(strstr(v.sig.other_stall_what, "DEBUG SLEEP 0.3 from 127.0.0.1:"));
    assert_true(row_num(&v, "slowlog", "others stalled") > 0);
    redis_collector_class.close(conn);
}

/*
 * maxmemory 2mb with allkeys-lru, then 6 MB written: keys are evicted,
 * used memory is shown of the limit, and the server's threads are read
 * from /proc (it runs here).
 */
static void
test_evictions_and_threads(void **state)
{
    void *conn = open_ok(itest_env("BENCHTOP_RD_TARGET"));
    struct redis_sample a, b;
    struct coll_view v;
    uint64_t t0;
    double secs;
    char value[1001];

    memset(value, 'v', 1000);
    value[1000] = '\0';
    rtest_do(admin, "FLUSHALL");
    rtest_do(admin, "CONFIG SET maxmemory-policy allkeys-lru");
    rtest_do(admin, "CONFIG SET maxmemory 2mb");
    sample_ok(conn, &a);
    t0 = now_us();
    for (int i = 0; i < 6000; i++)
        freeReplyObject(rtest_cmd(admin, "SET evict:%d %s", i, value));
    sample_ok(conn, &b);
    secs = (double)(now_us() - t0) / 1e6;
    rtest_do(admin, "CONFIG SET maxmemory 0");
    rtest_do(admin, "FLUSHALL");
    redis_collector_class.derive(&a, &b, secs, &v);
    fprintf(stderr, "  6 MB into maxmemory 2mb: %.0f evictions/s, %s; busiest thread %.0f%%\n",
            v.sig.evictions_s, coll_row_find(&v, "memory", "used")->value, v.sig.thread_max_pct);
    assert_true(v.sig.evictions_s * secs >= 3000);
    assert_true(v.sig.mem_limit == 2 << 20);
    assert_string_equal(v.sig.mem_limit_setting, "maxmemory");
    assert_non_null(strstr(coll_row_find(&v, "memory", "used")->value, " of 2.0 MiB"));
    assert_true(v.sig.server_threads == 1); /* io-threads 1: the main thread alone */
    assert_true(b.ntasks >= 1);             /* local: /proc/PID/task */
    assert_false(isnan(v.sig.thread_max_pct));
    assert_false(isnan(v.sig.server_cpu_self_pct));
    redis_collector_class.close(conn);
}

/* redis-benchmark with 12 clients on the throwaway server, GETs and SETs until killed. */
static pid_t
benchmark_start(void)
{
    const char *target = itest_env("BENCHTOP_RD_TARGET"), *colon = strrchr(target, ':');
    char port[16];
    pid_t pid;

    assert_non_null(colon);
    snprintf(port, sizeof port, "%d", atoi(colon + 1));
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);

        dup2(null, 1);
        dup2(null, 2);
        execlp("redis-benchmark", "redis-benchmark", "-h", "127.0.0.1", "-p", port, "-q", "-c",
               "12", "-n", "100000000", "-r", "10000", "-t", "set,get", "-l", (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    return pid;
}

/* The --stat line's figure in column col (0: the name), as text. */
static void
stat_field(const char *line, int col, char *out, size_t len)
{
    const char *p = line;

    for (int i = 0; i < col; i++) {
        p += strcspn(p, " ");
        p += strspn(p, " ");
    }
    snprintf(out, len, "%.*s", (int)strcspn(p, " \n"), p);
}

/*
 * watch under someone else's load (issue 44, item 4; issue 47, item 6):
 * redis-benchmark's 12 clients make a busy server, never "idle" (the old
 * rule said "server idle: ? sessions active" at 38,000 commands/s), with
 * its rate in the JSON; --stat counts the 12 clients and the keys.
 */
static void
test_watch_under_benchmark(void **state)
{
    char *json[] = {"watch", itest_env("BENCHTOP_RD_TARGET"), "--headless", "-T", "4", NULL};
    char *stat[] = {"watch", itest_env("BENCHTOP_RD_TARGET"), "--stat", "-T", "3", NULL};
    pid_t bench = benchmark_start();
    struct run w, s;
    const char *line, *last = NULL, *p;
    char conns[16], keys[24];

    itest_sleep_ms(1000);
    w = itest_runv(json);
    s = itest_runv(stat);
    kill(bench, SIGTERM);
    waitpid(bench, NULL, 0);
    assert_int_equal(w.status, 0);
    for (p = w.out; (line = strstr(p, "\"server_verdict\"")) != NULL; p = line + 1)
        last = line;
    assert_non_null(last);
    while (last > w.out && last[-1] != '\n')
        last--;
    fprintf(stderr, "  %.*s\n", (int)strcspn(strstr(last, "\"server_verdict\""), "\n"),
            strstr(last, "\"server_verdict\""));
    assert_true(itest_num(last, "server_tps") > 100);
    last = strstr(last, "\"server_verdict\"");
    assert_null(strstr(last, "\"kind\":\"underloaded\""));
    assert_null(strstr(last, "idle"));
    assert_null(strstr(last, "\"limit\":\"none\"")); /* its CPU at least, with its bound */
    assert_non_null(strstr(last, "commands/s; server CPU"));
    assert_int_equal(s.status, 0);
    fprintf(stderr, "%s", s.out);
    line = strrchr(s.out, '\n');
    assert_non_null(line);
    while (line > s.out && line[-1] != '\n')
        line--;
    stat_field(line, 2, conns, sizeof conns);
    stat_field(line, 7, keys, sizeof keys);
    assert_true(atoi(conns) >= 12); /* redis-benchmark's clients (others may be connected) */
    assert_true(atoi(keys) > 0);
    assert_string_not_equal(conns, "-");
    itest_free(&w);
    itest_free(&s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commands_rate),         cmocka_unit_test(test_hit_ratio),
        cmocka_unit_test(test_missing_privilege),     cmocka_unit_test(test_restart),
        cmocka_unit_test(test_other_client_stall),    cmocka_unit_test(test_evictions_and_threads),
        cmocka_unit_test(test_watch_under_benchmark),
    };
    return cmocka_run_group_tests_name("redis_collector", tests, setup, teardown);
}
