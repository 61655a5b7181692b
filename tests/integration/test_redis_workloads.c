/*
 * Every Redis workload against the throwaway redis-server, plain, pipelined
 * and with a connection per request: benchtop's request count equals the
 * server's own (commandstats calls delta) within 1%. Then what the options
 * promise: -t is exact even with a pipeline, --fill writes exactly --keys
 * keys, and seq, uniform and zipf spread the keys as they should.
 */
#include "itest-redis.h"

#include "base/zipf.h"

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

/* Calls of the workload's commands so far (mixed: GET + SET). */
static long long
workload_calls(const char *workload)
{
    if (strcmp(workload, "mixed") == 0)
        return rtest_calls(admin, "get") + rtest_calls(admin, "set");
    return rtest_calls(admin, workload);
}

/* One workload for 2 s with extra options; its count checked against the server's. */
static void
workload_checked(const char *workload, const char *opt, const char *val)
{
    char *args[] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "-q",
                    "-T",         "2",
                    "-c",         "4",
                    "-j",         "2",
                    "-w",         (char *)workload,
                    (char *)opt,  (char *)val,
                    NULL};
    long long before = workload_calls(workload), set_before = rtest_calls(admin, "set"), delta;
    const char *sum;
    struct run r = itest_run_ok(args, &sum);
    double txns = itest_num(sum, "transactions");

    delta = workload_calls(workload) - before;
    fprintf(stderr, "  %-5s %s %s: %.0f requests, server calls +%lld, %.0f/s\n", workload, opt,
            val ? val : "", txns, delta, itest_num(sum, "tps"));
    assert_true(txns > 100);
    assert_int_equal((long long)itest_num(sum, "errors"), 0);
    assert_true(itest_count_lines(r.out, "\"type\":\"interval\"") >= 2);
    /* requests cut off in flight at the end reached the server but were not counted */
    assert_true(fabs((double)delta - txns) <= 0.01 * txns);
    if (strcmp(workload, "mixed") == 0) {
        /* --ratio 1:10 by default: 1 in 11 is a SET */
        double sets = (double)(rtest_calls(admin, "set") - set_before);
        assert_true(fabs(sets / (double)delta - 1.0 / 11) < 0.01);
    }
    if (strcmp(opt, "-C") == 0)
        assert_true(itest_num(sum, "connects") >= txns && itest_num(sum, "connects") <= txns + 4);
    else
        assert_int_equal((long long)itest_num(sum, "connects"), 4);
    itest_free(&r);
}

static void
each_workload(const char *opt, const char *val)
{
    static const char *const workloads[] = {"get", "set", "incr", "mixed"};

    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
        workload_checked(workloads[i], opt, val);
}

static void
test_workloads_plain(void **state)
{
    each_workload("--pipeline", "1");
}

static void
test_workloads_pipelined(void **state)
{
    each_workload("--pipeline", "16");
}

static void
test_workloads_connect_per_request(void **state)
{
    each_workload("-C", NULL);
}

/* -t with a pipeline: exactly clients * t requests, none left in flight, as many INCRs done. */
static void
test_exact_count_pipelined(void **state)
{
    char *args[] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "-q",
                    "-t",         "1000",
                    "-c",         "2",
                    "-j",         "2",
                    "-w",         "incr",
                    "--pipeline", "16",
                    "--keys",     "1",
                    NULL};
    const char *sum;
    struct run r;

    rtest_do(admin, "FLUSHALL");
    r = itest_run_ok(args, &sum);
    assert_int_equal((long long)itest_num(sum, "transactions"), 2000);
    assert_int_equal(rtest_counter(admin, 0), 2000);
    itest_free(&r);
}

/* --fill writes every key of the key space once, and a GET run then never misses. */
static void
test_fill(void **state)
{
    char *args[] = {"run",
                    itest_env("BENCHTOP_RD_TARGET"),
                    "--headless",
                    "-T",
                    "1",
                    "-c",
                    "2",
                    "-w",
                    "get",
                    "--keys",
                    "5000",
                    "--fill",
                    "--value-size",
                    "100",
                    NULL};
    const char *sum;
    struct run r;
    redisReply *v;

    rtest_do(admin, "FLUSHALL");
    rtest_do(admin, "CONFIG RESETSTAT");
    r = itest_run_ok(args, &sum);
    assert_int_equal(rtest_integer(admin, "DBSIZE"), 5000);
    v = rtest_cmd(admin, "GET key:000000004999");
    assert_int_equal(v->type, REDIS_REPLY_STRING);
    assert_int_equal(v->len, 100);
    freeReplyObject(v);
    /* progress on stderr (not -q): the last line says how many keys */
    assert_non_null(strstr(r.err, "fill: 5000 keys of 100 bytes"));
    v = rtest_cmd(admin, "INFO stats");
    assert_non_null(strstr(v->str, "keyspace_misses:0\r\n"));
    freeReplyObject(v);
    itest_free(&r);
}

/* --key-pattern seq: one client walks 0, 1, 2, ... and wraps. */
static void
test_seq_in_order(void **state)
{
    char *args[] = {"run",
                    itest_env("BENCHTOP_RD_TARGET"),
                    "--headless",
                    "-q",
                    "-t",
                    "150",
                    "-c",
                    "1",
                    "-w",
                    "incr",
                    "--key-pattern",
                    "seq",
                    "--keys",
                    "100",
                    NULL};
    const char *sum;
    struct run r;
    long long k;

    rtest_do(admin, "FLUSHALL");
    r = itest_run_ok(args, &sum);
    /* 150 requests over 100 keys: 0..49 twice, 50..99 once */
    for (k = 0; k < 100; k++)
        assert_int_equal(rtest_counter(admin, k), k < 50 ? 2 : 1);
    itest_free(&r);
}

/* seq with two clients: each starts at its own half, so together they touch every key once. */
static void
test_seq_clients_split(void **state)
{
    char *args[] = {"run",
                    itest_env("BENCHTOP_RD_TARGET"),
                    "--headless",
                    "-q",
                    "-t",
                    "50",
                    "-c",
                    "2",
                    "-j",
                    "2",
                    "-w",
                    "incr",
                    "--key-pattern",
                    "seq",
                    "--keys",
                    "100",
                    NULL};
    const char *sum;
    struct run r;
    long long k;

    rtest_do(admin, "FLUSHALL");
    r = itest_run_ok(args, &sum);
    for (k = 0; k < 100; k++)
        assert_int_equal(rtest_counter(admin, k), 1);
    itest_free(&r);
}

/* 20,000 INCRs over 1,000 keys; returns the hottest key's (key 0) count and sets *distinct. */
static long long
spread(const char *pattern, long long *distinct)
{
    char *args[] = {"run",
                    itest_env("BENCHTOP_RD_TARGET"),
                    "--headless",
                    "-q",
                    "-t",
                    "10000",
                    "-c",
                    "2",
                    "-j",
                    "2",
                    "-w",
                    "incr",
                    "--pipeline",
                    "8",
                    "--key-pattern",
                    (char *)pattern,
                    "--keys",
                    "1000",
                    NULL};
    const char *sum;
    struct run r;
    long long hot;

    rtest_do(admin, "FLUSHALL");
    r = itest_run_ok(args, &sum);
    assert_int_equal((long long)itest_num(sum, "transactions"), 20000);
    hot = rtest_counter(admin, 0);
    *distinct = rtest_integer(admin, "DBSIZE");
    fprintf(stderr, "  %s: key 0 got %lld of 20000, %lld distinct keys\n", pattern, hot, *distinct);
    itest_free(&r);
    return hot;
}

static void
test_zipf_vs_uniform(void **state)
{
    long long ud, zd, uniform = spread("uniform", &ud), zipf = spread("zipf", &zd);
    double p0 = 1.0 / zipf_zeta(1000, ZIPF_THETA), expect = 20000 * p0;
    double sigma = sqrt(20000 * p0 * (1 - p0));

    /* uniform: 20 expected on key 0, and every key drawn (each misses with p ~ 2e-9) */
    assert_true(uniform < 100);
    assert_int_equal(ud, 1000);
    /* zipf 0.99: key 0 takes 1/zeta(1000) of the draws, and the tail leaves keys untouched */
    assert_true(fabs((double)zipf - expect) < 5 * sigma);
    assert_true(zipf > 20 * uniform);
    assert_true(zd < 1000);
}

/* Open loop with a pipeline: the asked rate is what the server sees. */
static void
test_rate_pipelined(void **state)
{
    char *args[] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "-q",
                    "-T",         "3",
                    "-R",         "2000",
                    "-c",         "2",
                    "-j",         "2",
                    "-w",         "get",
                    "--pipeline", "4",
                    NULL};
    long long before = rtest_calls(admin, "get");
    const char *sum;
    struct run r = itest_run_ok(args, &sum);
    double tps = itest_num(sum, "tps"), txns = itest_num(sum, "transactions");

    fprintf(stderr, "  -R 2000 --pipeline 4: %.1f/s, late %.0f\n", tps, itest_num(sum, "late"));
    assert_true(tps > 1700 && tps < 2300);
    assert_true(fabs((double)(rtest_calls(admin, "get") - before) - txns) <= 0.01 * txns);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workloads_plain),
        cmocka_unit_test(test_workloads_pipelined),
        cmocka_unit_test(test_workloads_connect_per_request),
        cmocka_unit_test(test_exact_count_pipelined),
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_seq_in_order),
        cmocka_unit_test(test_seq_clients_split),
        cmocka_unit_test(test_zipf_vs_uniform),
        cmocka_unit_test(test_rate_pipelined),
    };
    return cmocka_run_group_tests_name("redis_workloads", tests, setup, teardown);
}
