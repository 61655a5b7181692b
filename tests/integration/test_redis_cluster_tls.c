/*
 * Redis Cluster over TLS against tests/run-integration's throwaway cluster
 * of three masters on TLS only (`benchtop serve redis-cluster-tls`,
 * BENCHTOP_RCT_TARGET: rediss://127.0.0.1:PORT?cacert=DIR/server.crt, the
 * certificate the class made): no plain port, the cluster bus on TLS too;
 * `benchtop run rediss://NODE` loads every master (each client's
 * connection to its master verified as that master's), --fill writes each
 * key on its master, and the collector reads every master over TLS.
 */
#include "config.h"

#include "itest.h"

#if defined HAVE_REDIS && defined HAVE_REDIS_TLS

#include "itest-redis.h"

enum { KEYS = 3000, CONNECT_MS = 5000 };

static struct redis_target tgt;
static struct redis_slot_map map;
static redisContext *node[REDIS_CLUSTER_MAX_NODES];

/* A TLS connection to host:port, verified with the target's cacert=. */
static redisContext *
connect_tls(const char *host, int port)
{
    struct redis_target t = tgt;
    char err[BT_ERRLEN];
    redisContext *c;

    snprintf(t.host, sizeof t.host, "%s", host);
    t.port = port;
    if (redis_connect_blocking(&t, CONNECT_MS, &c, NULL, err) < 0)
        fail_msg("%s", err);
    return c;
}

/* The slot map from the served node, and a TLS connection to each master. */
static int
setup(void **state)
{
    char err[BT_ERRLEN];
    redisContext *c;
    redisReply *r;

    (void)state;
    assert_int_equal(redis_target_parse(itest_env("BENCHTOP_RCT_TARGET"), &tgt, err), 0);
    assert_true(tgt.tls && tgt.cacert[0] != '\0');
    c = connect_tls(tgt.host, tgt.port);
    r = rtest_cmd(c, "CLUSTER SLOTS");
    assert_int_equal(redis_slot_map_parse(r, &map, err), 0);
    freeReplyObject(r);
    redisFree(c);
    for (int i = 0; i < map.nnodes; i++)
        node[i] = connect_tls(map.node[i].host, map.node[i].port);
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

/* rediss://HOST:PORT?cacert=... of master i (of the map's order). */
static char *
master_target(int i, char *buf, size_t len)
{
    snprintf(buf, len, "rediss://%s:%d?cacert=%s", map.node[i].host, map.node[i].port, tgt.cacert);
    return buf;
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

static long long
keys_on_all(void)
{
    long long sum = 0;

    for (int i = 0; i < map.nnodes; i++)
        sum += rtest_integer(node[i], "DBSIZE");
    return sum;
}

/* A CONFIG GET's value on master i (static buffer). */
static const char *
config(int i, const char *name)
{
    static char value[64];
    redisReply *r = rtest_cmd(node[i], "CONFIG GET %s", name);

    snprintf(value, sizeof value, "%s", r->elements == 2 ? r->element[1]->str : "?");
    freeReplyObject(r);
    return value;
}

/* Three masters, each with no plain port, its TLS port the map's, the cluster bus on TLS. */
static void
test_tls_only(void **state)
{
    char port[16];

    (void)state;
    assert_int_equal(map.nnodes, 3);
    for (int i = 0; i < map.nnodes; i++) {
        snprintf(port, sizeof port, "%d", map.node[i].port);
        assert_string_equal(config(i, "port"), "0");
        assert_string_equal(config(i, "tls-port"), port);
        assert_string_equal(config(i, "tls-cluster"), "yes");
    }
}

/*
 * A SET load on the second master's rediss:// address fills every master
 * with the keys it serves, and nothing else: each DBSIZE is the number of
 * the 3000 keys whose slot it serves, the sum 3000, no error, no MOVED;
 * the summary says it ran on a cluster, and over TLS.
 */
static void
test_run_set(void **state)
{
    char target[700];
    char *args[] = {"run",        master_target(1, target, sizeof target),
                    "--headless", "-w",
                    "set",        "--keys",
                    "3000",       "-T",
                    "2",          "-c",
                    "6",          NULL};
    const char *sum;
    struct run r;
    long long total = 0;

    (void)state;
    for (int i = 0; i < map.nnodes; i++)
        rtest_do(node[i], "FLUSHALL");
    r = itest_run_ok(args, &sum);
    fprintf(stderr, "  transactions %.0f, errors %.0f\n", itest_num(sum, "transactions"),
            itest_num(sum, "errors"));
    assert_true(itest_num(sum, "transactions") > KEYS * 5); /* every key drawn, surely */
    assert_int_equal(itest_num(sum, "errors"), 0);
    assert_int_equal(itest_num(strstr(sum, "errors_by_kind"), "moved"), 0);
    assert_non_null(
        strstr(sum, "\"target_note\":\"cluster: 3 masters, each client pinned to one\""));
    itest_assert_tls_used(&r, sum);
    for (int i = 0; i < map.nnodes; i++) {
        long long n = rtest_integer(node[i], "DBSIZE");

        fprintf(stderr, "  master %d: %lld keys (serves %lld of them)\n", i, n,
                keys_served(i, KEYS));
        assert_int_equal(n, keys_served(i, KEYS));
        total += n;
    }
    assert_int_equal(total, KEYS);
    itest_free(&r);
}

/*
 * --fill then a GET load on the first master's address: every key on its
 * master (3000 in all), no error; the collector's rows, read over TLS: a
 * row per master with the commands it ran (each busy), the busiest named,
 * the cluster's total keys from all three masters.
 */
static void
test_collector_every_master(void **state)
{
    char target[700], label[80];
    char *args[] = {"run",        master_target(0, target, sizeof target),
                    "--headless", "-w",
                    "get",        "--keys",
                    "3000",       "--fill",
                    "-T",         "3",
                    "-c",         "6",
                    NULL};
    const char *sum, *srv = "\"type\":\"server\"";
    struct run r;

    (void)state;
    for (int i = 0; i < map.nnodes; i++)
        rtest_do(node[i], "FLUSHALL");
    r = itest_run_ok(args, &sum);
    assert_int_equal(itest_num(sum, "errors"), 0);
    assert_int_equal(keys_on_all(), KEYS);
    for (int i = 0; i < map.nnodes; i++) {
        snprintf(label, sizeof label, "%s:%d", map.node[i].host, map.node[i].port);
        fprintf(stderr, "  master %s: %.0f commands/s at most, %lld keys\n", label,
                itest_max_row(r.out, srv, label), rtest_integer(node[i], "DBSIZE"));
        assert_true(itest_max_row(r.out, srv, label) > 1000);
    }
    assert_true(itest_max_row(r.out, srv, "busiest") > 0); /* a CPU % */
    fprintf(stderr, "  cluster keys %.0f\n", itest_max_row(r.out, srv, "total keys"));
    assert_int_equal(itest_max_row(r.out, srv, "total keys"), KEYS);
    assert_non_null(strstr(r.out, "on 3 of 3 masters"));
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tls_only),
        cmocka_unit_test(test_run_set),
        cmocka_unit_test(test_collector_every_master),
    };

    if (getenv("ITEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests_name("redis_cluster_tls", tests, setup, teardown);
}

#else

int
main(void)
{
    test_skip_program("no redis backend, or built without OpenSSL");
    return 0;
}

#endif
