/*
 * The verdict rules on hand-made inputs: each limit is named when its
 * signals dominate, a new verdict needs two intervals in a row
 * (hysteresis), close scores give "mixed", and no load gives none.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "collector.h"
#include "verdict.h"

/* A healthy closed loop: nothing busy, nothing waiting, loopback round trips. */
static struct verdict_input
calm(void)
{
    struct verdict_input in;
    struct coll_view v;

    memset(&in, 0, sizeof(in));
    coll_view_reset(&v);
    in.load = 1;
    in.tps = 500;
    in.lat_mean_ms = 2.0;
    in.connect_share = NAN;
    in.worker_cpu_max = 20;
    in.worker_wait_max = 0;
    in.own_cpu_pct = 25;
    in.host_busy_pct = 30;
    in.cores = 4;
    in.clients = 1;
    in.have_server = 1;
    in.sig = v.sig;
    in.sig.sessions = 1;
    in.sig.active = 1;
    in.sig.on_cpu = 0;
    in.sig.lock_wait = 0;
    in.sig.lwlock_wait = 0;
    in.sig.io_wait = 0;
    in.sig.commit_wait = 0;
    in.sig.rtt_ms = 0.1;
    return in;
}

/* Steps n intervals with the same input; returns the last verdict. */
static struct verdict
run(struct verdict_state *st, const struct verdict_input *in, int n)
{
    struct verdict v;
    int i;

    for (i = 0; i < n; i++)
        verdict_step(st, in, &v);
    return v;
}

static enum verdict_kind
steady(const struct verdict_input *in)
{
    struct verdict_state st;

    verdict_init(&st);
    return run(&st, in, 4).kind;
}

static void
test_underloaded(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_UNDERLOADED);
    assert_non_null(strstr(v.evidence, "add clients"));
}

static void
test_client_bound(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.worker_cpu_max = 98;
    in.own_cpu_pct = 99;
    in.host_busy_pct = 60; /* 4 cores: the server uses little */
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_CLIENT);
    assert_string_equal(v.confidence, "clear");
    assert_non_null(strstr(v.evidence, "98% CPU"));
}

static void
test_server_cpu_bound_by_sessions_and_by_process(void **state)
{
    struct verdict_input in = calm();

    in.sig.sessions = 16;
    in.sig.active = 16;
    in.sig.on_cpu = 12; /* 4 cores */
    in.host_busy_pct = NAN;
    assert_int_equal(steady(&in), VK_SERVER_CPU);

    in = calm();
    in.sig.server_cpu_pct = 97; /* a Redis at one full core */
    in.sig.server_cpu_limit = 100;
    in.host_busy_pct = NAN;
    assert_int_equal(steady(&in), VK_SERVER_CPU);

    /* a busy host alone is not the server: other programs may be running; the host is the limit */
    in = calm();
    in.host_busy_pct = 98;
    in.own_cpu_pct = 20;
    assert_int_equal(steady(&in), VK_HOST);
}

static void
test_lock_bound(void **state)
{
    struct verdict_input in = calm();

    in.clients = in.sig.sessions = in.sig.active = 8;
    in.sig.lock_wait = 7;
    assert_int_equal(steady(&in), VK_LOCK);
}

static void
test_commit_bound(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.sig.commit_wait = 1; /* the one session waits on the WAL sync */
    assert_int_equal(steady(&in), VK_COMMIT);

    in = calm();
    in.sig.log_sync_ms_s = 850; /* the server timed its syncs */
    verdict_init(&st);
    v = run(&st, &in, 3);
    assert_int_equal(v.kind, VK_COMMIT);
    assert_non_null(strstr(v.evidence, "850 ms/s"));
}

static void
test_connection_bound(void **state)
{
    struct verdict_input in = calm();

    in.connect_share = 0.8;
    assert_int_equal(steady(&in), VK_CONNECTION);
}

static void
test_network_bound(void **state)
{
    struct verdict_input in = calm();

    in.lat_mean_ms = 21;
    in.sig.rtt_ms = 20;
    assert_int_equal(steady(&in), VK_NETWORK);
    /* a few ms to a local server on a saturated host are not the network; 20 ms are */
    in.host_busy_pct = 97;
    assert_int_equal(steady(&in), VK_NETWORK);
    in.sig.rtt_ms = 3;
    in.lat_mean_ms = 4;
    assert_int_not_equal(steady(&in), VK_NETWORK);
    in.host_busy_pct = NAN;
    in.sig.rtt_ms = 20;
    in.lat_mean_ms = 21;
    /* the same latency on loopback round trips is not the network */
    in.sig.rtt_ms = 0.2;
    assert_int_not_equal(steady(&in), VK_NETWORK);
}

static void
test_hysteresis(void **state)
{
    struct verdict_input quiet = calm(), busy = calm();
    struct verdict_state st;
    struct verdict v;
    int i;

    busy.worker_cpu_max = 99;
    verdict_init(&st);
    v = run(&st, &quiet, 3);
    assert_int_equal(v.kind, VK_UNDERLOADED);
    /* one busy interval is not enough to change the verdict */
    v = run(&st, &busy, 1);
    assert_int_equal(v.kind, VK_UNDERLOADED);
    v = run(&st, &busy, 1);
    assert_int_equal(v.kind, VK_CLIENT);
    /* alternating signals never flap it */
    for (i = 0; i < 6; i++) {
        v = run(&st, i % 2 ? &busy : &quiet, 1);
        assert_int_equal(v.kind, VK_CLIENT);
    }
}

static void
test_mixed(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    in.worker_cpu_max = 99;        /* client saturated */
    in.sig.sessions = in.sig.active = 8;
    in.sig.on_cpu = 8;             /* and the server too */
    in.host_busy_pct = NAN;
    verdict_init(&st);
    v = run(&st, &in, 4);
    assert_int_equal(v.kind, VK_MIXED);
    assert_true((v.first == VK_CLIENT && v.second == VK_SERVER_CPU) ||
                (v.first == VK_SERVER_CPU && v.second == VK_CLIENT));
    assert_non_null(strstr(v.evidence, "client-bound"));
    assert_non_null(strstr(v.evidence, "server CPU-bound"));
}

static void
test_no_load(void **state)
{
    struct verdict_input in = calm();
    struct verdict_state st;
    struct verdict v;

    verdict_init(&st);
    run(&st, &in, 3);
    in.load = 0;
    v = run(&st, &in, 1);
    assert_int_equal(v.kind, VK_NONE);
    assert_string_equal(verdict_key(VK_NONE), "none");
    assert_string_equal(verdict_key(VK_SERVER_CPU), "server_cpu");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_underloaded),
        cmocka_unit_test(test_client_bound),
        cmocka_unit_test(test_server_cpu_bound_by_sessions_and_by_process),
        cmocka_unit_test(test_lock_bound),
        cmocka_unit_test(test_commit_bound),
        cmocka_unit_test(test_connection_bound),
        cmocka_unit_test(test_network_bound),
        cmocka_unit_test(test_hysteresis),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_no_load),
    };
    return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
