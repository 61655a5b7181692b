/* Tests for trystat: A/B rounds judged, the sentence, the verdict's prediction; tryset_parse. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/trystat.h"
#include "base/util.h"
#include "run/tryset.h"

/* ABAB... rounds from tps pairs, A's verdict k, clients 4 (B: b_clients). */
static int
rounds(struct try_round *r, const double *a, const double *b, int pairs, enum verdict_kind k,
       int b_clients)
{
    int i;

    memset(r, 0, sizeof(*r) * (size_t)pairs * 2);
    for (i = 0; i < pairs; i++) {
        r[2 * i] =
            (struct try_round){.b = 0, .clients = 4, .tps = a[i], .p99_ms = 10, .verdict = k};
        r[2 * i + 1] = (struct try_round){.b = 1,
                                          .clients = b_clients,
                                          .tps = b[i],
                                          .p99_ms = 5,
                                          .errors = 1,
                                          .verdict = VK_SERVER_CPU};
    }
    return 2 * pairs;
}

static void
test_large_effect_beyond_noise(void **state)
{
    const double a[] = {100, 104, 98}, b[] = {310, 318, 305};
    struct try_round r[6];
    struct try_result res;

    try_judge(r, rounds(r, a, b, 3, VK_COMMIT, 4), TRY_SETTING, NULL, &res);
    assert_int_equal(res.pairs, 3);
    assert_true(fabs(res.a.tps - 302.0 / 3) < 1e-9);
    assert_int_equal(res.b.errors, 3);
    assert_true(res.diff > 2.0 && res.diff < 2.2);
    assert_true(res.beyond);
    assert_non_null(strstr(res.sentence, "B is faster by 2"));
    assert_non_null(strstr(res.sentence, "%, beyond noise"));
    assert_int_equal(res.verdict, VK_COMMIT); /* A's verdict, not B's */
    assert_int_equal(res.held, TRY_HELD);
    assert_string_equal(try_held_key(res.held), "held");
    /* a pool-bound A: the pool's size is a setting (the pooler's), its advice */
    try_judge(r, rounds(r, a, b, 3, VK_POOL, 4), TRY_SETTING, NULL, &res);
    assert_int_equal(res.held, TRY_HELD);
    assert_non_null(strstr(res.prediction, "its advice expected B faster: held"));
    /* ... and with the pool verdict's own advice, which names the setting */
    for (int i = 0; i < 6; i++) {
        memset(&r[i].adv, 0, sizeof r[i].adv);
        r[i].adv.n = 1;
        advice_setting(&r[i].adv.a[0], 1, "default_pool_size", ""); /* raise it */
    }
    try_judge(r, 6, TRY_SETTING, "default_pool_size=8", &res);
    assert_int_equal(res.held, TRY_HELD);
}

static void
test_same_values_no_difference(void **state)
{
    const double a[] = {100, 90, 110}, b[] = {95, 104, 99};
    struct try_round r[6];
    struct try_result res;

    try_judge(r, rounds(r, a, b, 3, VK_COMMIT, 4), TRY_SETTING, NULL, &res);
    assert_false(res.beyond);
    assert_non_null(strstr(res.sentence, "no difference beyond noise ("));
    assert_int_equal(res.held, TRY_NOT_HELD); /* commit-bound expected B faster */
}

static void
test_slower_and_band(void **state)
{
    /* log tps: A 0 spread, B ln 50 and ln 40; pooled over 2 df, t(2) = 4.303 */
    const double a[] = {100, 100}, b[] = {50, 40};
    double d = (log(50) + log(40)) / 2 - log(100), m = (log(50) - log(40)) / 2;
    double h = 4.303 * sqrt(2 * m * m / 2 * (0.5 + 0.5));
    struct try_round r[4];
    struct try_result res;

    try_judge(r, rounds(r, a, b, 2, VK_NONE, 4), TRY_SETTING, NULL, &res);
    assert_true(fabs(res.diff - (exp(d) - 1)) < 1e-9);
    assert_true(fabs(res.band - (exp(d + h) - exp(d))) < 1e-4); /* the end nearer no change */
    assert_true(fabs(res.diff) > res.band);
    assert_true(res.beyond);
    assert_non_null(strstr(res.sentence, "B is slower by 55% "));
    assert_int_equal(res.held, TRY_UNTESTED);
    assert_non_null(strstr(res.prediction, "no verdict"));
}

static void
test_x10_with_unsteady_b(void **state)
{
    /* the loaded machine's run that a paired interval called no difference */
    const double a[] = {36.0, 37.4}, b[] = {512, 322};
    struct try_round r[4];
    struct try_result res;

    try_judge(r, rounds(r, a, b, 2, VK_COMMIT, 4), TRY_SETTING, NULL, &res);
    assert_true(res.beyond);
    assert_true(res.diff > 9);
    assert_true(res.diff > res.band);
}

/*
 * A host whose other load grows round by round: B wins every pair by
 * 9-12%, far less than the drift between pairs. Each B against its own A
 * finds it; the sides' means alone called it no difference.
 */
static void
test_drift_paired(void **state)
{
    const double a[] = {100, 80, 60}, b[] = {110, 89, 67}, same[] = {101, 79, 61};
    struct try_round r[6];
    struct try_result res;

    try_judge(r, rounds(r, a, b, 3, VK_COMMIT, 4), TRY_SETTING, NULL, &res);
    assert_true(res.beyond);
    assert_true(res.diff > 0.09 && res.diff < 0.12);
    assert_non_null(strstr(res.sentence, "B is faster by 1"));
    try_judge(r, rounds(r, a, same, 3, VK_COMMIT, 4), TRY_SETTING, NULL, &res);
    assert_false(res.beyond);
}

/* A/A tries with 5% noise per round and a drifting host: "beyond noise" in under 10% of them. */
static void
test_aa_false_alarms(void **state)
{
    double a[3], b[3];
    struct try_round r[6];
    struct try_result res;
    unsigned seed = 12345;
    int trial, i, alarms = 0;

    for (trial = 0; trial < 2000; trial++) {
        for (i = 0; i < 3; i++) {
            double drift = 100 * (1 - 0.15 * i), u1, u2, g;

            seed = seed * 1103515245 + 12345;
            u1 = ((seed >> 8) + 1) / 16777217.0;
            seed = seed * 1103515245 + 12345;
            u2 = ((seed >> 8) + 1) / 16777217.0;
            g = sqrt(-2 * log(u1));
            a[i] = drift * exp(0.05 * g * cos(2 * M_PI * u2));
            b[i] = drift * exp(0.05 * g * sin(2 * M_PI * u2));
        }
        try_judge(r, rounds(r, a, b, 3, VK_COMMIT, 4), TRY_SETTING, NULL, &res);
        alarms += res.beyond;
    }
    print_message("A/A alarms: %d of 2000\n", alarms);
    assert_true(alarms < 200);
}

static void
test_more_clients_prediction(void **state)
{
    const double a[] = {100, 101, 99}, b[] = {101, 99, 100};
    struct try_round r[6];
    struct try_result res;

    try_judge(r, rounds(r, a, b, 3, VK_SERVER_CPU, 8), TRY_CLIENTS, NULL, &res);
    assert_int_equal(res.held, TRY_NO_GAIN); /* server-bound: more clients gain nothing */
    try_judge(r, rounds(r, a, b, 3, VK_UNDERLOADED, 8), TRY_CLIENTS, NULL, &res);
    assert_int_equal(res.held, TRY_NOT_HELD);
    try_judge(r, rounds(r, a, b, 3, VK_LOCK, 4), TRY_THREADS, NULL, &res);
    assert_int_equal(res.held, TRY_UNTESTED);
    assert_null(strstr(res.prediction, " rounds ("));
    /* a neighbour in one A round of three: the prediction says the rounds disagreed */
    rounds(r, a, b, 3, VK_SERVER_CPU, 8);
    r[2].verdict = VK_HOST;
    try_judge(r, 6, TRY_CLIENTS, NULL, &res);
    assert_int_equal(res.verdict, VK_SERVER_CPU);
    assert_non_null(strstr(res.prediction, "A was server CPU-bound in 2 of 3 rounds (1 host"));
}

/*
 * An A/A try on a server whose second round of each pair is 12% slower
 * (a table that grows until vacuum): in the order ABABAB it was "B is
 * slower by 14% ± 11%, beyond noise"; AB BA AB puts the drift on both.
 */
static void
test_pairs_in_both_orders(void **state)
{
    struct try_round r[6];
    struct try_result res;
    const int b[6] = {0, 1, 1, 0, 0, 1};
    const double tps[6] = {1730, 1520, 1700, 1500, 1760, 1550};

    memset(r, 0, sizeof r);
    for (int i = 0; i < 6; i++)
        r[i] = (struct try_round){.b = b[i], .clients = 8, .tps = tps[i], .verdict = VK_COMMIT};
    try_judge(r, 6, TRY_SETTING, NULL, &res);
    assert_int_equal(res.pairs, 3);
    assert_false(res.beyond);
    assert_non_null(strstr(res.sentence, "no difference beyond noise"));
    /* the BA pair's ratio is B over its own A (the round after it) */
    r[2].tps = 1500 * 1.5;
    r[4].tps = 1500; /* AB: -12%, BA: +50%, AB: +3%: the geometric mean +10.8% */
    try_judge(r, 6, TRY_SETTING, NULL, &res);
    assert_true(res.diff > 0.10 && res.diff < 0.115);
}

/* The A rounds' advice as data, on each of them: a setting (value "": raise it), or a kind. */
static void
advise(struct try_round *r, int n, enum advice_kind k, const char *name, const char *value)
{
    for (int i = 0; i < n; i++) {
        memset(&r[i].adv, 0, sizeof r[i].adv);
        r[i].adv.n = 1;
        advice_setting(&r[i].adv.a[0], 0, name, value);
        r[i].adv.a[0].kind = k;
    }
}

/*
 * A setting's prediction is the advice's: an A/A try of
 * synchronous_commit=on under "try synchronous_commit = off" predicted
 * nothing (it printed "did not hold"); the advised value, a named setting
 * without one, and "try NAME VALUE" are predictions.
 */
static void
test_setting_prediction_from_advice(void **state)
{
    const double a[] = {100, 101, 99}, same[] = {99, 100, 101}, b[] = {300, 310, 305};
    struct try_round r[6];
    struct try_result res;
    int n;

    n = rounds(r, a, same, 3, VK_COMMIT, 4);
    advise(r, n, ADV_SETTING, "synchronous_commit", "off");
    try_judge(r, n, TRY_SETTING, "synchronous_commit=on", &res);
    assert_int_equal(res.held, TRY_UNTESTED);
    assert_string_equal(res.prediction, "A was commit/I/O-bound; its advice was "
                                        "synchronous_commit = off, B sets on: untested");
    try_judge(r, n, TRY_SETTING, "track_wal_io_timing=on", &res); /* measuring, not relief */
    assert_int_equal(res.held, TRY_UNTESTED);
    assert_non_null(strstr(res.prediction, "names no such change"));
    try_judge(r, n, TRY_SETTING, "work_mem=64MB\nSynchronous_Commit=OFF", &res);
    assert_int_equal(res.held, TRY_NOT_HELD); /* advised, and B was no faster */
    n = rounds(r, a, b, 3, VK_COMMIT, 4);
    advise(r, n, ADV_SETTING, "synchronous_commit", "off");
    try_judge(r, n, TRY_SETTING, "synchronous_commit=off", &res);
    assert_int_equal(res.held, TRY_HELD);
    n = rounds(r, a, b, 3, VK_MEMORY, 4);
    advise(r, n, ADV_SETTING, "shared_buffers", "");
    try_judge(r, n, TRY_SETTING, "shared_buffers=1GB", &res);
    assert_int_equal(res.held, TRY_HELD);
    try_judge(r, n, TRY_SETTING, "buffers=1GB", &res); /* a part of a name is not the name */
    assert_int_equal(res.held, TRY_UNTESTED);
    n = rounds(r, a, b, 3, VK_SERVER_CPU, 4);
    advise(r, n, ADV_SETTING, "io-threads", "1");
    try_judge(r, n, TRY_SETTING, "io-threads=1", &res);
    assert_int_equal(res.held, TRY_HELD); /* a kind no setting relieves, but the advice names it */
    try_judge(r, n, TRY_SETTING, "io-threads=8", &res);
    assert_int_equal(res.held, TRY_UNTESTED);
    assert_non_null(strstr(res.prediction, "io-threads = 1, B sets 8"));
    advise(r, n, ADV_HARDWARE, "", ""); /* advice that names no setting */
    try_judge(r, n, TRY_SETTING, "io-threads=1", &res);
    assert_int_equal(res.held, TRY_UNTESTED);
    assert_non_null(strstr(res.prediction, "names no such change"));
}

static void
test_one_pair_and_empty_a(void **state)
{
    const double a[] = {0, 0}, b[] = {10, 10}, a1[] = {10}, b1[] = {20};
    struct try_round r[4];
    struct try_result res;

    try_judge(r, rounds(r, a, b, 2, VK_NONE, 4), TRY_SETTING, NULL, &res);
    assert_int_equal(res.pairs, 0);
    assert_non_null(strstr(res.sentence, "nothing to compare"));
    try_judge(r, rounds(r, a1, b1, 1, VK_NONE, 4), TRY_SETTING, NULL, &res);
    assert_non_null(strstr(res.sentence, "no noise band"));
}

static void
test_set_parse(void **state)
{
    struct tryset t = {0};
    char err[BT_ERRLEN];

    assert_int_equal(tryset_parse(&t, "synchronous_commit=off\nwork_mem=64MB", err), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.want[1].name, "work_mem");
    assert_string_equal(t.want[1].value, "64MB");
    memset(&t, 0, sizeof t);
    assert_int_equal(tryset_parse(&t, "work_mem", err), -1);
    assert_non_null(strstr(err, "NAME=VALUE"));
    assert_int_equal(tryset_parse(&t, "=1", err), -1);
    assert_int_equal(tryset_parse(&t, "a=", err), -1);
}

/* A situation on signals reset to "unknown" (every figure NAN, no names). */
static void
situation(struct try_situation *in, struct coll_view *v, enum verdict_kind k)
{
    coll_view_reset(v);
    memset(in, 0, sizeof *in);
    in->kind = k;
    in->sig = &v->sig;
    in->clients = 4;
    in->threads = 2;
}

static void
test_propose_commit_and_clients(void **state)
{
    struct try_situation in;
    struct try_proposal p;
    struct coll_view v;

    situation(&in, &v, VK_COMMIT);
    snprintf(v.sig.commit_try, sizeof v.sig.commit_try, "synchronous_commit=off");
    try_propose(&in, &p);
    assert_true(p.ok);
    assert_int_equal(p.change, TRY_SETTING);
    assert_string_equal(p.set, "synchronous_commit=off");
    assert_non_null(strstr(p.text, "synchronous_commit=off (commit-bound"));
    v.sig.commit_try[0] = '\0'; /* already off, or a server without one */
    try_propose(&in, &p);
    assert_false(p.ok);
    assert_non_null(strstr(p.text, "no commit setting"));

    situation(&in, &v, VK_NETWORK);
    try_propose(&in, &p);
    assert_true(p.ok);
    assert_int_equal(p.change, TRY_CLIENTS);
    assert_int_equal(p.clients, 8);
    assert_string_equal(p.text, "-c 8 (network-bound: clients x2)");

    situation(&in, &v, VK_CLIENT); /* no spare thread in this load: one line why */
    try_propose(&in, &p);
    assert_false(p.ok);
    assert_non_null(strstr(p.text, "--try-threads 3"));
    in.max_threads = 3; /* the dashboard's load has a spare worker */
    try_propose(&in, &p);
    assert_true(p.ok);
    assert_int_equal(p.change, TRY_THREADS);
    assert_int_equal(p.threads, 3);
    assert_string_equal(p.text, "-j 3 (client-bound: one more thread)");
    in.quota_held = 1; /* a quota holds it: threads share it, the advice is the quota */
    try_propose(&in, &p);
    assert_false(p.ok);
    assert_non_null(strstr(p.text, "raise the quota"));

    situation(&in, &v, VK_SERVER_CPU);
    try_propose(&in, &p);
    assert_false(p.ok);
    assert_string_equal(p.text, "no experiment for this verdict (server CPU-bound)");
}

/* The verdict's advice as data is the proposal: its setting and value, its clients. */
static void
test_propose_from_advice(void **state)
{
    struct try_situation in;
    struct try_proposal p;
    struct coll_view v;
    struct advice a;

    situation(&in, &v, VK_SERVER_CPU); /* a note's setting beside a kind that has none */
    advice_setting(&a, 0, "io-threads", "1");
    in.advice = &a;
    try_propose(&in, &p);
    assert_true(p.ok);
    assert_int_equal(p.change, TRY_SETTING);
    assert_string_equal(p.set, "io-threads=1");
    assert_string_equal(p.text, "io-threads=1 (server CPU-bound)");

    situation(&in, &v, VK_HOST); /* many sessions on few cores: fewer is not more */
    memset(&a, 0, sizeof a);
    a.kind = ADV_CLIENTS;
    a.n = 16;
    in.advice = &a;
    try_propose(&in, &p);
    assert_true(p.ok);
    assert_int_equal(p.change, TRY_CLIENTS);
    assert_int_equal(p.clients, 16);
    assert_string_equal(p.text, "-c 16 (host CPU-bound: clients x4)");

    situation(&in, &v, VK_MEMORY); /* "raise shared_buffers": the kind doubles the size */
    advice_setting(&a, 0, "shared_buffers", "");
    in.advice = &a;
    try_propose(&in, &p);
    assert_false(p.ok);
    assert_non_null(strstr(p.text, "no cache size setting"));
}

static void
test_propose_memory_and_pool(void **state)
{
    struct coll_settings set = {.n = 2, .s = {{"work_mem", "4MB"}, {"shared_buffers", "128MB"}}};
    struct try_situation in;
    struct try_proposal p;
    struct coll_view v;

    situation(&in, &v, VK_MEMORY);
    snprintf(v.sig.mem_limit_setting, sizeof v.sig.mem_limit_setting, "shared_buffers");
    in.settings = &set;
    try_propose(&in, &p);
    assert_true(p.ok);
    assert_string_equal(p.set, "shared_buffers=256MB"); /* the unit kept */
    in.settings = NULL;
    snprintf(v.sig.mem_limit_setting, sizeof v.sig.mem_limit_setting, "maxmemory");
    v.sig.mem_limit = 1048576;
    try_propose(&in, &p);
    assert_string_equal(p.set, "maxmemory=2097152"); /* from the signal, in bytes */
    snprintf(v.sig.mem_limit_setting, sizeof v.sig.mem_limit_setting, "-m");
    try_propose(&in, &p);
    assert_false(p.ok);
    assert_non_null(strstr(p.text, "-m cannot be changed while it runs"));

    situation(&in, &v, VK_POOL);
    v.sig.pool_size = 20;
    in.pooler = "PgBouncer";
    try_propose(&in, &p);
    assert_true(p.ok); /* no server limit known: x2 */
    assert_int_equal(p.change, TRY_SETTING);
    assert_string_equal(p.set, "default_pool_size=40");
    assert_string_equal(p.text, "default_pool_size=40 (pool-bound: the pool x2)");
    v.sig.max_sessions = 33; /* 30 once the 3 reserved are kept */
    try_propose(&in, &p);
    assert_true(p.ok);
    assert_string_equal(p.set, "default_pool_size=30");
    assert_non_null(strstr(p.text, "capped by max_connections"));
    v.sig.max_sessions = 23; /* the pool is already at the limit */
    try_propose(&in, &p);
    assert_false(p.ok);
    assert_non_null(strstr(p.text, "at the server's connection limit"));
    v.sig.pool_size = NAN;
    try_propose(&in, &p);
    assert_false(p.ok);
    assert_non_null(strstr(p.text, "PgBouncer's pool size is not known"));
}

static void
test_round_from_step(void **state)
{
    struct sweep_step st = {.clients = 4, .tps = 123.5, .verdict = VK_COMMIT};
    struct try_round r;

    st.lat.p50 = 1500;
    st.lat.p99 = 9000;
    st.errors[ERR_CONN] = 2;
    st.adv.n = 1;
    advice_setting(&st.adv.a[0], 0, "synchronous_commit", "off");
    try_round_from_step(&st, 1, &r);
    assert_int_equal(r.adv.n, 1); /* the advice rides as data, not words */
    assert_string_equal(r.adv.a[0].value, "off");
    assert_int_equal(r.b, 1);
    assert_int_equal(r.clients, 4);
    assert_true(r.tps == 123.5 && r.p50_ms == 1.5 && r.p99_ms == 9.0);
    assert_int_equal(r.errors, 2);
    assert_int_equal(r.verdict, VK_COMMIT);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_effect_beyond_noise),
        cmocka_unit_test(test_same_values_no_difference),
        cmocka_unit_test(test_slower_and_band),
        cmocka_unit_test(test_drift_paired),
        cmocka_unit_test(test_aa_false_alarms),
        cmocka_unit_test(test_x10_with_unsteady_b),
        cmocka_unit_test(test_more_clients_prediction),
        cmocka_unit_test(test_setting_prediction_from_advice),
        cmocka_unit_test(test_pairs_in_both_orders),
        cmocka_unit_test(test_one_pair_and_empty_a),
        cmocka_unit_test(test_set_parse),
        cmocka_unit_test(test_propose_commit_and_clients),
        cmocka_unit_test(test_propose_from_advice),
        cmocka_unit_test(test_propose_memory_and_pool),
        cmocka_unit_test(test_round_from_step),
    };
    return cmocka_run_group_tests_name("trystat", tests, NULL, NULL);
}
