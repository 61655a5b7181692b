/*
 * Redis Cluster against tests/run-integration's throwaway cluster of three
 * masters (`benchtop serve redis-cluster`, BENCHTOP_RC_TARGET): the slot
 * map read from CLUSTER SLOTS, keys routed by redis_key_slot landing on
 * the node that owns them (no MOVED), and `benchtop run` refusing a
 * cluster node in one line (exit 2) with no key written, until the load
 * routes keys across nodes.
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

/* The load refuses a cluster node in one line, exit 2, and writes nothing. */
static void
test_run_refused(void **state)
{
    char *args[] = {"run", itest_env("BENCHTOP_RC_TARGET"), "--headless", "-T", "1", "-w", "set",
                    NULL};
    long long before = keys_on_all();
    struct run r;

    (void)state;
    r = itest_runv(args);
    fprintf(stderr, "  stderr: %s", r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "Redis Cluster node"));
    assert_non_null(strstr(r.err, "cluster_enabled:1"));
    assert_non_null(strchr(r.err, '\n'));
    assert_null(strchr(strchr(r.err, '\n') + 1, '\n')); /* one line */
    assert_int_equal(keys_on_all(), before);
    free(r.out);
    free(r.err);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_map),
        cmocka_unit_test(test_routed_sets),
        cmocka_unit_test(test_run_refused),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
