/*
 * Ten thousand connections from one process, on one worker thread per core:
 * against the throwaway Redis (maxclients 11000) and memcached (-c 11000),
 * every client connects once (benchtop's count and the server's own), each
 * runs its -t transactions, the server counted exactly as many, and the run
 * ends cleanly (exit 0, no error, no reconnect).
 */
#include "itest-memcached.h"
#include "itest-redis.h"

#define MANY "10000"
#define MANY_N 10000
#define PER_CLIENT 3

static char *
run_many(const char *target, const char *workload, struct run *r)
{
    char *args[] = {
        "run", (char *)target, "--headless",     "-q",     "-c", MANY,           "-j", "2", "-t",
        "3",   "-w",           (char *)workload, "--keys", "1",  "--no-collect", NULL};
    char *sum;

    *r = itest_runv(args);
    sum = (char *)itest_line(r->out, "\"type\":\"summary\"");
    if (r->status != 0 || sum == NULL)
        fprintf(stderr, "status %d\nstderr:\n%s\n", r->status, r->err);
    assert_int_equal(r->status, 0);
    assert_non_null(sum);
    fprintf(stderr, "  %s: %.0f transactions, %.0f connects, %.0f/s\n", target,
            itest_num(sum, "transactions"), itest_num(sum, "connects"), itest_num(sum, "tps"));
    assert_int_equal((long long)itest_num(sum, "transactions"), (long long)MANY_N * PER_CLIENT);
    assert_int_equal((long long)itest_num(sum, "connects"), MANY_N);
    assert_int_equal((long long)itest_num(sum, "errors"), 0);
    assert_int_equal((long long)itest_num(sum, "reconnects"), 0);
    return sum;
}

static long long
redis_info_field(redisContext *c, const char *name)
{
    redisReply *r = rtest_cmd(c, "INFO stats");
    const char *p = strstr(r->str, name);
    long long v;

    assert_non_null(p);
    v = strtoll(p + strlen(name) + 1, NULL, 10);
    freeReplyObject(r);
    return v;
}

static void
test_redis_10000(void **state)
{
    redisContext *admin = rtest_connect();
    long long conns;
    struct run r;

    rtest_do(admin, "FLUSHALL");
    conns = redis_info_field(admin, "total_connections_received");
    run_many(itest_env("BENCHTOP_RD_TARGET"), "incr", &r);
    /* every INCR reached the one key; prepare's own connection is the one more */
    assert_int_equal(rtest_counter(admin, 0), (long long)MANY_N * PER_CLIENT);
    conns = redis_info_field(admin, "total_connections_received") - conns;
    fprintf(stderr, "  redis: %lld connections received\n", conns);
    assert_true(conns >= MANY_N && conns <= MANY_N + 2);
    itest_free(&r);
    redisFree(admin);
}

static void
test_memcached_10000(void **state)
{
    struct mc_counts before = mc_counts(), after;
    long long conns;
    struct run r;

    run_many(mc_target(), "set", &r);
    after = mc_counts();
    assert_int_equal(after.cmd_set - before.cmd_set, (long long)MANY_N * PER_CLIENT);
    /* ours, prepare's, and mc_counts' own readings in between */
    conns = after.total_connections - before.total_connections;
    fprintf(stderr, "  memcached: %lld connections received\n", conns);
    assert_true(conns >= MANY_N && conns <= MANY_N + 3);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redis_10000),
        cmocka_unit_test(test_memcached_10000),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
