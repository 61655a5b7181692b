/*
 * Redis Cluster against tests/run-integration's throwaway cluster of three
 * masters (`benchtop serve redis-cluster`, BENCHTOP_RC_TARGET): the slot
 * map read from CLUSTER SLOTS, keys routed by redis_key_slot landing on
 * the node that owns them (no MOVED), and `benchtop run` against one node
 * loading the whole cluster: each client pinned to a master and drawing
 * only its keys (no MOVED), a slot migrated mid-run counted as MOVED while
 * the load goes on, -f scripts' commands routed by their key (EVAL's
 * first), an ASK followed with ASKING, and the collector showing every
 * master.
 */
#include "config.h"

#include "itest-redis.h"

enum { KEYS = 300 };

static struct redis_slot_map map;
static redisContext *node[REDIS_CLUSTER_MAX_NODES];

/* The slot map from the served node, and a connection to each master. */
static int
setup(void **state)
{
    struct redis_target t;
    char err[BT_ERRLEN];
    redisContext *c;
    redisReply *r;

    (void)state;
    assert_int_equal(redis_target_parse(itest_env("BENCHTOP_RC_TARGET"), &t, err), 0);
    c = redisConnect(t.host, t.port);
    assert_true(c != NULL && !c->err);
    r = rtest_cmd(c, "CLUSTER SLOTS");
    assert_int_equal(redis_slot_map_parse(r, &map, err), 0);
    freeReplyObject(r);
    redisFree(c);
    for (int i = 0; i < map.nnodes; i++) {
        node[i] = redisConnect(map.node[i].host, map.node[i].port);
        assert_true(node[i] != NULL && !node[i]->err);
    }
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    for (int i = 0; i < map.nnodes; i++)
        redisFree(node[i]);
    return 0;
}

static long long
keys_on_all(void)
{
    long long sum = 0;

    for (int i = 0; i < map.nnodes; i++)
        sum += rtest_integer(node[i], "DBSIZE");
    return sum;
}

/* Three masters, every slot covered, and the server's CLUSTER KEYSLOT agrees. */
static void
test_slot_map(void **state)
{
    static const char *const keys[] = {"foo", "bar", "{user1000}.following", "key:123", "a{b}c"};

    (void)state;
    assert_int_equal(map.nnodes, 3);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        redisReply *r = rtest_cmd(node[0], "CLUSTER KEYSLOT %s", keys[i]);

        assert_int_equal(r->integer, redis_key_slot(keys[i], strlen(keys[i])));
        freeReplyObject(r);
    }
}

/* SETs sent where the map says: each answered OK (a wrong slot gets MOVED), spread over all. */
static void
test_routed_sets(void **state)
{
    long long before = keys_on_all(), per[REDIS_CLUSTER_MAX_NODES] = {0};

    (void)state;
    for (int i = 0; i < map.nnodes; i++)
        per[i] = rtest_integer(node[i], "DBSIZE");
    for (int k = 0; k < KEYS; k++) {
        char key[32];
        int n = snprintf(key, sizeof key, "cluster:key:%d", k);
        redisReply *r =
            redisCommand(node[map.slot[redis_key_slot(key, (size_t)n)]], "SET %s v", key);

        assert_non_null(r);
        assert_int_equal(r->type, REDIS_REPLY_STATUS);
        assert_string_equal(r->str, "OK");
        freeReplyObject(r);
    }
    for (int i = 0; i < map.nnodes; i++) {
        long long now = rtest_integer(node[i], "DBSIZE");

        fprintf(stderr, "  node %s:%d: %lld keys\n", map.node[i].host, map.node[i].port,
                now - per[i]);
        assert_true(now - per[i] > 0);
    }
    assert_int_equal(keys_on_all() - before, KEYS);
}

/* redis://HOST:PORT of master i (of the map's order). */
static char *
master_target(int i, char *buf, size_t len)
{
    snprintf(buf, len, "redis://%s:%d", map.node[i].host, map.node[i].port);
    return buf;
}

/* An INFO field's number on master i. */
static long long
info_field(int i, const char *section, const char *field)
{
    redisReply *r = rtest_cmd(node[i], "INFO %s", section);
    const char *p = strstr(r->str, field);
    long long v = p != NULL ? strtoll(p + strlen(field) + 1, NULL, 10) : -1;

    freeReplyObject(r);
    return v;
}

/* How many of key:0 .. key:keys-1 master i serves. */
static long long
keys_served(int i, int keys)
{
    long long n = 0;

    for (int k = 0; k < keys; k++) {
        char key[32];
        int len = snprintf(key, sizeof key, "key:%012d", k);

        n += map.slot[redis_key_slot(key, (size_t)len)] == i;
    }
    return n;
}

/*
 * A SET load on the second master's address fills every master with the
 * keys it serves, and nothing else: each DBSIZE is the number of the 3000
 * keys whose slot it serves, the sum 3000, no error, no MOVED; the summary
 * says it ran on a cluster.
 */
static void
test_run_set(void **state)
{
    char target[300];
    char *args[] = {"run",        master_target(1, target, sizeof target),
                    "--headless", "-q",
                    "-w",         "set",
                    "--keys",     "3000",
                    "-T",         "2",
                    "-c",         "6",
                    NULL};
    const char *sum;
    struct run r;
    long long total = 0;

    (void)state;
    for (int i = 0; i < map.nnodes; i++)
        rtest_do(node[i], "FLUSHALL");
    r = itest_run_ok(args, &sum);
    fprintf(stderr, "  transactions %.0f, errors %.0f\n", itest_num(sum, "transactions"),
            itest_num(sum, "errors"));
    assert_true(itest_num(sum, "transactions") > 3000 * 5); /* every key drawn, surely */
    assert_int_equal(itest_num(sum, "errors"), 0);
    assert_int_equal(itest_num(strstr(sum, "errors_by_kind"), "moved"), 0);
    assert_non_null(
        strstr(sum, "\"target_note\":\"cluster: 3 masters, each client pinned to one\""));
    for (int i = 0; i < map.nnodes; i++) {
        long long n = rtest_integer(node[i], "DBSIZE");

        fprintf(stderr, "  master %d: %lld keys (serves %lld of them)\n", i, n,
                keys_served(i, 3000));
        assert_true(n > 0);
        assert_int_equal(n, keys_served(i, 3000));
        total += n;
    }
    assert_int_equal(total, 3000);
    itest_free(&r);
}

/*
 * A GET load: no MOVED, every master busy (its commands processed grow by
 * thousands), and the GETs the masters counted are the run's transactions
 * (those in flight at the end may be counted by the server only).
 */
static void
test_run_get(void **state)
{
    char target[300];
    char *args[] = {"run",        master_target(2, target, sizeof target),
                    "--headless", "-q",
                    "-w",         "get",
                    "--keys",     "3000",
                    "-T",         "2",
                    "-c",         "6",
                    NULL};
    long long cmds[REDIS_CLUSTER_MAX_NODES], gets = 0;
    const char *sum;
    struct run r;
    double txns;

    (void)state;
    for (int i = 0; i < map.nnodes; i++) {
        cmds[i] = info_field(i, "stats", "total_commands_processed");
        gets -= rtest_calls(node[i], "get");
    }
    r = itest_run_ok(args, &sum);
    txns = itest_num(sum, "transactions");
    assert_int_equal(itest_num(sum, "errors"), 0);
    assert_int_equal(itest_num(strstr(sum, "errors_by_kind"), "moved"), 0);
    for (int i = 0; i < map.nnodes; i++) {
        long long grew = info_field(i, "stats", "total_commands_processed") - cmds[i];

        fprintf(stderr, "  master %d: %lld commands\n", i, grew);
        assert_true(grew > 1000);
        gets += rtest_calls(node[i], "get");
    }
    fprintf(stderr, "  transactions %.0f, GETs counted by the masters %lld\n", txns, gets);
    assert_true(txns > 1000);
    assert_true(gets >= (long long)txns && gets <= (long long)txns + 6);
    itest_free(&r);
}

/* Sum of the integer values of keys "ek0".."ek{n-1}" over the cluster (nil counts 0). */
static long long
counters_sum(int n)
{
    long long sum = 0;

    for (int k = 0; k < n; k++) {
        char key[32];
        int len = snprintf(key, sizeof key, "ek%d", k);
        redisReply *r = rtest_cmd(node[map.slot[redis_key_slot(key, (size_t)len)]], "GET %s", key);

        sum += r->type == REDIS_REPLY_STRING ? strtoll(r->str, NULL, 10) : 0;
        freeReplyObject(r);
    }
    return sum;
}

/*
 * -f with EVAL of one key, over 200 keys in every master's slots, on master
 * 0's address: each EVAL goes to the master of its key's slot (no MOVED, no
 * error), every master runs some, and the counters the script INCRs sum to
 * the run's transactions (give or take the 6 in flight at the end). A
 * script whose two SETs hash to two masters sets both keys.
 */
static void
test_run_eval(void **state)
{
    char path[] = "/tmp/itest-eval-XXXXXX", target[300];
    int fd = mkstemp(path);
    char *args[] = {"run",        master_target(0, target, sizeof target),
                    "--headless", "-q",
                    "-T",         "2",
                    "-c",         "6",
                    "-f",         path,
                    NULL};
    long long evals[REDIS_CLUSTER_MAX_NODES], sum;
    const char *sum_line;
    double txns;
    struct run r;

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    for (int i = 0; i < map.nnodes; i++) {
        rtest_do(node[i], "FLUSHALL");
        evals[i] = rtest_calls(node[i], "eval");
    }
    itest_write_file(path, "\\set k random(0, 199)\n"
                           "EVAL return(redis.call('INCR',KEYS[1])) 1 ek:k\n");
    r = itest_run_ok(args, &sum_line);
    txns = itest_num(sum_line, "transactions");
    sum = counters_sum(200);
    fprintf(stderr, "  transactions %.0f, errors %.0f, moved %.0f, INCRs summed %lld\n", txns,
            itest_num(sum_line, "errors"), itest_num(strstr(sum_line, "errors_by_kind"), "moved"),
            sum);
    assert_int_equal(itest_num(sum_line, "errors"), 0);
    assert_int_equal(itest_num(strstr(sum_line, "errors_by_kind"), "moved"), 0);
    assert_true(txns > 1000);
    assert_true(sum >= (long long)txns && sum <= (long long)txns + 6);
    for (int i = 0; i < map.nnodes; i++) {
        long long n = rtest_calls(node[i], "eval") - evals[i];

        fprintf(stderr, "  master %d: %lld EVALs\n", i, n);
        assert_true(n > txns / 10);
    }
    itest_free(&r);
    itest_write_file(path, "SET {user1}.a 1\nSET {user2}.b 2\n");
    args[5] = "0.3";
    sum = keys_on_all();
    r = itest_run_ok(args, &sum_line);
    unlink(path);
    assert_int_equal(itest_num(sum_line, "errors"), 0);
    assert_int_equal(keys_on_all(), sum + 2);
    itest_free(&r);
}

/*
 * The slot of key:000000000000 migrating from its master A to B half-way
 * (IMPORTING on B, MIGRATING on A, the key MIGRATEd): A answers ASK for
 * it, and a GET load on keys among 100 (a few per cent of them that key)
 * follows each ASK to B with ASKING: no error (each ASK counted would be
 * one), and B counted ASKINGs; with one request in flight and with 8. The slot is made stable again
 * afterwards.
 */
static void
test_run_ask(void **state)
{
    static const char key[] = "key:000000000000";
    int slot = redis_key_slot(key, sizeof key - 1), a = map.slot[slot], b = (a + 1) % map.nnodes;
    char target[300];
    char *args[] = {"run",        master_target(a, target, sizeof target),
                    "--headless", "-q",
                    "-w",         "get",
                    "--keys",     "100",
                    "-T",         "2",
                    "-c",         "6",
                    NULL,         NULL,
                    NULL};
    redisReply *ida = rtest_cmd(node[a], "CLUSTER MYID"), *idb = rtest_cmd(node[b], "CLUSTER MYID");
    long long asking;
    const char *sum;
    struct run r;

    (void)state;
    freeReplyObject(rtest_cmd(node[a], "SET %s v", key));
    freeReplyObject(rtest_cmd(node[b], "CLUSTER SETSLOT %d IMPORTING %s", slot, ida->str));
    freeReplyObject(rtest_cmd(node[a], "CLUSTER SETSLOT %d MIGRATING %s", slot, idb->str));
    freeReplyObject(
        rtest_cmd(node[a], "MIGRATE %s %d %s 0 5000", map.node[b].host, map.node[b].port, key));
    for (int depth = 1; depth <= 8; depth *= 8) { /* one request in flight, then 8 */
        char d[8];

        snprintf(d, sizeof d, "%d", depth);
        args[12] = "--pipeline";
        args[13] = d;
        asking = rtest_calls(node[b], "asking");
        r = itest_run_ok(args, &sum);
        asking = rtest_calls(node[b], "asking") - asking;
        fprintf(stderr,
                "  pipeline %d: transactions %.0f, errors %.0f, ask %.0f, ASKINGs on B %lld\n",
                depth, itest_num(sum, "transactions"), itest_num(sum, "errors"),
                itest_num(strstr(sum, "errors_by_kind"), "ask"), asking);
        assert_int_equal(itest_num(sum, "errors"), 0);
        assert_int_equal(itest_num(strstr(sum, "errors_by_kind"), "ask"), 0);
        assert_true(asking > 10);
        assert_true(asking < itest_num(sum, "transactions") / 3);
        itest_free(&r);
    }
    rtest_do(node[b], "ASKING");
    freeReplyObject(rtest_cmd(node[b], "DEL %s", key));
    freeReplyObject(rtest_cmd(node[a], "CLUSTER SETSLOT %d STABLE", slot));
    freeReplyObject(rtest_cmd(node[b], "CLUSTER SETSLOT %d STABLE", slot));
    freeReplyObject(ida);
    freeReplyObject(idb);
}

/*
 * 100 slots migrated from master 0 to master 1 during a GET load: the run
 * goes to its end, counts some MOVED (the clients pinned to master 0 meet
 * them, then refresh their map and stop drawing those slots' keys), no
 * other errors but ASK (a key already moved while its slot migrates), and
 * still loads in its last second.
 */
static void
test_run_moved(void **state)
{
    char target[300], cmd[1024], *id0, *id1;
    char *args[] = {"run",        master_target(0, target, sizeof target),
                    "--headless", "-q",
                    "-w",         "get",
                    "--keys",     "30000",
                    "--fill",     "-T",
                    "8",          "-c",
                    "6",          NULL};
    redisReply *a = rtest_cmd(node[0], "CLUSTER MYID"), *b = rtest_cmd(node[1], "CLUSTER MYID");
    const char *sum, *last;
    double moved, ask, txns, last_tps;
    struct run r;
    int o, e, rc;
    pid_t pid;

    (void)state;
    id0 = a->str;
    id1 = b->str;
    pid = itest_spawn(args, &o, &e);
    itest_sleep_ms(2500); /* --fill done, the load running */
    snprintf(cmd, sizeof cmd,
             "timeout 60 redis-cli --cluster reshard %s:%d --cluster-from %s --cluster-to %s "
             "--cluster-slots 100 --cluster-yes >/dev/null 2>&1",
             map.node[0].host, map.node[0].port, id0, id1);
    rc = system(cmd);
    freeReplyObject(a);
    freeReplyObject(b);
    r = itest_finish(pid, o, e);
    last = itest_line(r.out, "\"type\":\"interval\"");
    assert_non_null(last);
    last_tps = itest_num(last, "tps");
    sum = itest_line(r.out, "\"type\":\"summary\""); /* the same static buffer */
    assert_int_equal(rc, 0);
    assert_non_null(sum);
    moved = itest_num(strstr(sum, "errors_by_kind"), "moved");
    ask = itest_num(strstr(sum, "errors_by_kind"), "ask");
    txns = itest_num(sum, "transactions");
    fprintf(stderr,
            "  %.1f s, transactions %.0f, moved %.0f, ask %.0f, errors %.0f, last tps %.0f\n",
            itest_num(sum, "duration_s"), txns, moved, ask, itest_num(sum, "errors"), last_tps);
    assert_int_equal(r.status, 2); /* failed transactions: the MOVED */
    assert_true(moved > 0);
    assert_true(moved <= 6 * 100); /* at most once per client and slot */
    assert_int_equal(itest_num(sum, "errors"), moved + ask);
    assert_true(txns > 100 * (moved + ask));
    assert_true(last_tps > 1000); /* still loading after the migration */
    itest_free(&r);
}

/*
 * The collector on a cluster: a row per master with the commands it ran
 * (each busy), the busiest named, and the server's commands the whole
 * cluster's (close to the run's rate; the target node alone would be a
 * third of it).
 */
static void
test_collector_every_master(void **state)
{
    char target[300], label[80];
    char *args[] = {"run",        master_target(0, target, sizeof target),
                    "--headless", "-w",
                    "get",        "--keys",
                    "3000",       "-T",
                    "3",          "-c",
                    "6",          NULL};
    const char *sum, *srv = "\"type\":\"server\"";
    struct run r;
    double tps, cmds;

    (void)state;
    r = itest_run_ok(args, &sum);
    tps = itest_num(sum, "tps");
    for (int i = 0; i < map.nnodes; i++) {
        snprintf(label, sizeof label, "%s:%d", map.node[i].host, map.node[i].port);
        fprintf(stderr, "  master %s: %.0f commands/s at most\n", label,
                itest_max_row(r.out, srv, label));
        assert_true(itest_max_row(r.out, srv, label) > 1000);
    }
    assert_true(itest_max_row(r.out, srv, "busiest") > 0); /* a CPU % */
    /* the cluster's keys are every master's, not the target node's third of them */
    fprintf(stderr, "  cluster keys %.0f (DBSIZE sum %lld)\n",
            itest_max_row(r.out, srv, "total keys"), keys_on_all());
    assert_true(itest_max_row(r.out, srv, "total keys") >= keys_on_all() - 10);
    assert_non_null(strstr(r.out, "on 3 of 3 masters"));
    cmds = itest_max_row(r.out, srv, "commands");
    fprintf(stderr, "  cluster commands/s %.0f, run tps %.0f\n", cmds, tps);
    assert_true(cmds > 0.7 * tps && cmds < 1.6 * tps);
    itest_free(&r);
}

/* inspect on one node says it counted that node's keys, one of the cluster's 3 masters. */
static void
test_inspect_says_one_node(void **state)
{
    char *args[] = {"inspect", itest_env("BENCHTOP_RC_TARGET"), NULL};
    char *json[] = {"inspect", itest_env("BENCHTOP_RC_TARGET"), "--json", NULL};
    struct run r;

    (void)state;
    r = itest_runv(args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "one node of a cluster of 3 masters (its keys only): "));
    itest_free(&r);
    r = itest_runv(json);
    assert_int_equal(r.status, 0);
    assert_int_equal((int)itest_num(r.out, "cluster_masters"), 3);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_map),
        cmocka_unit_test(test_routed_sets),
        cmocka_unit_test(test_run_set),
        cmocka_unit_test(test_run_get),
        cmocka_unit_test(test_run_eval),
        cmocka_unit_test(test_run_ask),
        cmocka_unit_test(test_collector_every_master),
        cmocka_unit_test(test_inspect_says_one_node),
        cmocka_unit_test(test_run_moved), /* last: it leaves master 1 with 100 more slots */
    };

    if (getenv("ITEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
