/*
 * Redis Cluster failover against tests/run-integration's throwaway cluster
 * of three masters with a replica each and a node timeout of 1 s
 * (`benchtop serve redis-cluster-replicas`, BENCHTOP_RCR_TARGET). A GET
 * load goes on through a CLUSTER FAILOVER (the clients of the master that
 * became a replica follow its MOVED to the replica that took over: no
 * connection error) and through a master killed with SIGKILL (its
 * clients' connections are lost and counted; they ask another master for
 * the map until the replica is promoted, then load it). The collector
 * shows the master killed as not answering, then the new map's masters.
 */
#include "config.h"

#include "itest-redis.h"

enum { SHARDS = 3, POLL_MS = 100, PROMOTE_MS = 20000, LAST_FROM_MS = 9500 };

/* A master and its replica, as CLUSTER SLOTS names them (all on 127.0.0.1). */
struct shard {
    int master, replica;
};

static int target_port;

static long long
ms_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static redisContext *
node(int port)
{
    redisContext *c = redisConnect("127.0.0.1", port);

    assert_true(c != NULL && !c->err);
    return c;
}

/*
 * The port of the replica of the master whose id is id (CLUSTER REPLICAS:
 * CLUSTER SLOTS lists no replica whose offset is still 0, none before the
 * first write or replication PING); 0 when it has none.
 */
static int
replica_of(redisContext *c, const char *id)
{
    redisReply *r = rtest_cmd(c, "CLUSTER REPLICAS %s", id);
    const char *at = r->elements > 0 ? strstr(r->element[0]->str, " 127.0.0.1:") : NULL;
    int port = at != NULL ? atoi(at + 11) : 0;

    freeReplyObject(r);
    return port;
}

/* The shards from the target's CLUSTER SLOTS (one slot range each, as redis-cli makes them). */
static int
read_shards(struct shard *s)
{
    redisContext *c = node(target_port);
    redisReply *r = rtest_cmd(c, "CLUSTER SLOTS");
    int n = 0;

    for (size_t i = 0; i < r->elements && n < SHARDS; i++) {
        const redisReply *m = r->element[i]->element[2];

        s[n].master = (int)m->element[1]->integer;
        s[n].replica = replica_of(c, m->element[2]->str);
        n++;
    }
    freeReplyObject(r);
    redisFree(c);
    return n;
}

/*
 * The first (or last) shard whose master is not the target's node, which
 * the collector reads and prepare asks: the target stays up.
 */
static const struct shard *
other_shard(const struct shard *s, int n, int last)
{
    for (int k = 0; k < n; k++) {
        int i = last ? n - 1 - k : k;

        if (s[i].master != target_port)
            return &s[i];
    }
    fail_msg("every master is the target");
    return NULL;
}

static long long
gets_at(int port)
{
    redisContext *c = node(port);
    long long n = rtest_calls(c, "get");

    redisFree(c);
    return n;
}

/* An INFO field of the node at port, as text (static buffer). */
static const char *
info_at(int port, const char *section, const char *field)
{
    static char value[64];
    redisContext *c = node(port);
    redisReply *r = rtest_cmd(c, "INFO %s", section);
    const char *p = strstr(r->str, field);

    value[0] = '\0';
    if (p != NULL)
        sscanf(p + strlen(field), ":%63[^\r\n]", value);
    freeReplyObject(r);
    redisFree(c);
    return value;
}

/* Waits (bounded) until the node at port is a master; 0, or -1 after PROMOTE_MS. */
static int
wait_master(int port)
{
    for (int waited = 0; waited < PROMOTE_MS; waited += POLL_MS) {
        if (strcmp(info_at(port, "replication", "role"), "master") == 0)
            return 0;
        itest_sleep_ms(POLL_MS);
    }
    return -1;
}

/* The summary's error_messages counts of the messages that hold needle, summed. */
static double
messages_with(const char *sum, const char *needle)
{
    const char *p = strstr(sum, "\"error_messages\":[");
    const char *end = p != NULL ? strchr(p, ']') : NULL;
    double n = 0;

    while (p != NULL && (p = strstr(p + 1, "{\"message\":")) != NULL && p < end) {
        const char *close = strstr(p, "\",\"count\":"), *at = strstr(p, needle);

        if (close != NULL && at != NULL && at < close)
            n += strtod(close + 10, NULL);
    }
    return n;
}

/* The run's errors of one kind. */
static double
errors_of(const char *sum, const char *kind)
{
    return itest_num(strstr(sum, "errors_by_kind"), kind);
}

/* "127.0.0.1:PORT" as the collector labels a master's row (a static buffer of two). */
static const char *
row_label(int port)
{
    static char buf[2][48];
    static int k;
    char *out = buf[k++ % 2];

    snprintf(out, 48, "\"label\":\"127.0.0.1:%d\"", port);
    return out;
}

static char *
target(void)
{
    static char buf[64];

    snprintf(buf, sizeof buf, "redis://127.0.0.1:%d", target_port);
    return buf;
}

static int
setup(void **state)
{
    struct redis_target t;
    char err[BT_ERRLEN];

    (void)state;
    assert_int_equal(redis_target_parse(itest_env("BENCHTOP_RCR_TARGET"), &t, err), 0);
    target_port = t.port;
    return 0;
}

/* Three masters, each with a replica; the node timeout that makes a failover quick. */
static void
test_shape(void **state)
{
    struct shard s[SHARDS];
    redisContext *c = node(target_port);
    redisReply *r = rtest_cmd(c, "CONFIG GET cluster-node-timeout");

    (void)state;
    assert_int_equal(read_shards(s), SHARDS);
    for (int i = 0; i < SHARDS; i++) {
        fprintf(stderr, "  master %d, replica %d\n", s[i].master, s[i].replica);
        assert_true(s[i].replica > 0);
        assert_string_equal(info_at(s[i].replica, "replication", "master_link_status"), "up");
    }
    assert_string_equal(r->element[1]->str, "1000");
    freeReplyObject(r);
    redisFree(c);
}

/*
 * CLUSTER FAILOVER on a replica 2 s into a 6 s GET load: the master's two
 * clients meet MOVED, read the map and move to the replica, which runs
 * thousands of their GETs; no connection error, every error a MOVED; the
 * collector's last sample has a row for the new master and none for the
 * old one (a replica now).
 */
static void
test_planned_failover(void **state)
{
    struct shard s[SHARDS];
    char *args[] = {"run",  target(), "--headless", "-w", "get", "--keys",
                    "3000", "-T",     "6",          "-c", "6",   NULL};
    const struct shard *sh;
    long long before;
    const char *sum, *last;
    redisContext *c;
    struct run r;
    int o, e;
    pid_t pid;

    (void)state;
    assert_int_equal(read_shards(s), SHARDS);
    sh = other_shard(s, SHARDS, 0);
    before = gets_at(sh->replica);
    pid = itest_spawn(args, &o, &e);
    itest_sleep_ms(2000);
    c = node(sh->replica);
    rtest_do(c, "CLUSTER FAILOVER");
    redisFree(c);
    assert_int_equal(wait_master(sh->replica), 0);
    r = itest_finish(pid, o, e);
    last = itest_line(r.out, "\"type\":\"server\"");
    assert_non_null(last);
    fprintf(stderr, "  new master %d: %s, old %d: %s\n", sh->replica,
            strstr(last, row_label(sh->replica)) ? "in the last sample" : "missing", sh->master,
            strstr(last, row_label(sh->master)) ? "still there" : "gone");
    assert_non_null(strstr(last, row_label(sh->replica)));
    assert_null(strstr(last, row_label(sh->master)));
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    fprintf(stderr,
            "  transactions %.0f, errors %.0f (connection %.0f, moved %.0f), GETs on the new "
            "master %lld\n",
            itest_num(sum, "transactions"), itest_num(sum, "errors"), errors_of(sum, "connection"),
            errors_of(sum, "moved"), gets_at(sh->replica) - before);
    assert_int_equal(r.status, itest_status_for(sum));
    assert_int_equal(errors_of(sum, "connection"), 0);
    assert_true(errors_of(sum, "moved") > 0);
    assert_int_equal(itest_num(sum, "errors"), errors_of(sum, "moved"));
    assert_true(gets_at(sh->replica) - before > 1000);
    itest_free(&r);
}

/* Each master's GETs now (s's masters, with the killed one's replica in its place). */
static void
gets_now(const struct shard *s, const struct shard *killed, long long *out)
{
    for (int i = 0; i < SHARDS; i++)
        out[i] = gets_at(&s[i] == killed ? s[i].replica : s[i].master);
}

/*
 * A master killed (SIGKILL) 3 s into a 12 s GET load: its replica is
 * promoted within seconds, and then runs thousands of GETs (its slots'
 * clients found it through another master's map); from 9.5 s on (or the
 * promotion, if later) each of the three masters runs GETs. The killed master's clients count their
 * lost connections; the only other errors are CLUSTERDOWN, which every
 * master answers between the master's failure and its replica's
 * promotion. The collector shows the master as not answering, and its
 * last sample has the promoted replica's row and not the killed master's.
 */
static void
test_master_killed(void **state)
{
    struct shard s[SHARDS];
    char *args[] = {"run",  target(), "--headless", "-w", "get", "--keys",
                    "3000", "-T",     "12",         "-c", "6",   NULL};
    long long at_kill, late[SHARDS], end[SHARDS], t0;
    const struct shard *sh;
    const char *sum, *last;
    double conn, down;
    char dead[96];
    struct run r;
    int o, e, victim;
    pid_t pid;

    (void)state;
    assert_int_equal(read_shards(s), SHARDS);
    sh = other_shard(s, SHARDS, 1); /* not the one failed over before */
    victim = atoi(info_at(sh->master, "server", "process_id"));
    assert_true(victim > 0);
    t0 = ms_now();
    pid = itest_spawn(args, &o, &e);
    itest_sleep_ms(3000);
    at_kill = gets_at(sh->replica);
    assert_int_equal(kill(victim, SIGKILL), 0);
    assert_int_equal(wait_master(sh->replica), 0);
    fprintf(stderr, "  replica %d promoted %.1f s after the kill\n", sh->replica,
            (double)(ms_now() - t0 - 3000) / 1000);
    if (ms_now() - t0 < LAST_FROM_MS)
        itest_sleep_ms((int)(LAST_FROM_MS - (ms_now() - t0)));
    gets_now(s, sh, late);
    r = itest_finish(pid, o, e);
    gets_now(s, sh, end);
    for (int i = 0; i < SHARDS; i++) {
        fprintf(stderr, "  master of shard %d: %lld GETs from 9.5 s on\n", i, end[i] - late[i]);
        assert_true(end[i] - late[i] > 100);
    }
    fprintf(stderr, "  promoted replica %d: %lld GETs after the kill\n", sh->replica,
            end[sh - s] - at_kill);
    assert_true(end[sh - s] - at_kill > 1000);
    snprintf(dead, sizeof dead, "%s,\"value\":\"not answering\"", row_label(sh->master));
    assert_non_null(strstr(r.out, dead));
    last = itest_line(r.out, "\"type\":\"server\"");
    assert_non_null(strstr(last, row_label(sh->replica)));
    assert_null(strstr(last, row_label(sh->master)));
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    conn = errors_of(sum, "connection");
    down = errors_of(sum, "clusterdown");
    fprintf(stderr,
            "  transactions %.0f, errors %.0f (connection %.0f, CLUSTERDOWN %.0f, moved %.0f), "
            "failed reconnects %.0f\n",
            itest_num(sum, "transactions"), itest_num(sum, "errors"), conn, down,
            errors_of(sum, "moved"), itest_num(sum, "connect_fails"));
    assert_int_equal(r.status, 2); /* transactions failed */
    assert_true(conn >= 2);        /* the killed master's two clients, at least */
    assert_int_equal(itest_num(sum, "errors"), conn + down);
    assert_int_equal(errors_of(sum, "other"), 0); /* CLUSTERDOWN has its kind */
    assert_true(down == 0 || messages_with(sum, "CLUSTERDOWN") > 0);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape), cmocka_unit_test(test_planned_failover),
        cmocka_unit_test(test_master_killed), /* last: it leaves a master dead */
    };

    if (getenv("ITEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests_name("redis_cluster_failover", tests, setup, NULL);
}
