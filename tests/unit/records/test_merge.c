/*
 * Tests for merge on synthetic agents' records, built skewed on purpose:
 * two fast agents (1000 samples of ~100 us per interval) and one slow one
 * (100 samples of ~20 ms), the last starting 0.3 s later. Merged, each
 * interval holds the three, counts are summed, and the p99 is the p99 of
 * the union of the raw histograms (20 ms), far from the average of the
 * agents' p99s (~6.7 ms), which is what averaging percentiles would give.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hdrlog.h"
#include "base/hist.h"
#include "records/merge.h"
#include "records/record.h"
#include "base/util.h"

enum { AGENTS = 3, NIV = 4 };

static char dir[] = "/tmp/test-merge-XXXXXX";
static char paths[AGENTS][64], merged[64];

/* Agent a's samples in one interval: fast agents ~100 us, the slow one ~20 ms. */
static void
fill(struct hist *h, int a)
{
    int k, n = a == 2 ? 100 : 1000;

    for (k = 0; k < n; k++)
        hist_record(h, (a == 2 ? 20000 : 100) + (uint64_t)(k % 10));
}

static void
write_agent(int a, double start)
{
    FILE *f = fopen(paths[a], "w");
    struct hist *h = hist_new();
    int i;

    assert_non_null(f);
    fprintf(f,
            "{\"type\":\"run\",\"command\":\"run\",\"start\":%.3f,\"target\":\"redis://h\","
            "\"workload\":\"get\",\"protocol\":\"resp2\",\"clients\":2,\"rate\":0,"
            "\"interval_s\":1,\"options\":{\"instance\":\"%d/3\"},\"instance\":%d,"
            "\"instances\":3}\n",
            start, a, a);
    if (a == 0)
        fputs("{\"type\":\"server\",\"t\":1.0,\"server_tps\":2100,\"rows\":[]}\n", f);
    for (i = 0; i < NIV; i++) {
        char *b64;
        hist_reset(h);
        fill(h, a);
        b64 = hdrlog_encode(h);
        fprintf(f,
                "{\"type\":\"interval\",\"t\":%d.001,\"interval_s\":1,\"clients\":2,"
                "\"transactions\":%llu,\"errors\":%d,\"verdict\":{\"kind\":\"%s\"},"
                "\"hist_us\":{\"min\":%llu,\"max\":%llu,\"sum\":%llu,\"overflow\":0,"
                "\"hdr\":\"%s\"}}\n",
                i + 1, (unsigned long long)hist_count(h), a == 2, a == 2 ? "server" : "client",
                (unsigned long long)hist_min(h), (unsigned long long)hist_max(h),
                (unsigned long long)hist_sum(h), b64);
        free(b64);
    }
    hist_free(h);
    fclose(f);
}

static int
setup(void **state)
{
    FILE *out;
    int a;

    assert_non_null(mkdtemp(dir));
    for (a = 0; a < AGENTS; a++) {
        snprintf(paths[a], sizeof paths[a], "%s/a%d.jsonl", dir, a);
        write_agent(a, a == 2 ? 1000.3 : 1000.0);
    }
    snprintf(merged, sizeof merged, "%s/m.jsonl", dir);
    out = fopen(merged, "w");
    assert_non_null(out);
    {
        char *p[AGENTS] = {paths[0], paths[1], paths[2]}, err[BT_ERRLEN];
        assert_int_equal(merge_records(out, p, AGENTS, 1, err), 0);
    }
    fclose(out);
    return 0;
}

static int
teardown(void **state)
{
    int a;

    for (a = 0; a < AGENTS; a++)
        unlink(paths[a]);
    if (getenv("KEEP") == NULL)
        unlink(merged);
    rmdir(dir);
    return 0;
}

static void
test_counts_summed_and_aligned(void **state)
{
    struct record r;
    char err[BT_ERRLEN];
    int i;

    assert_int_equal(record_load(merged, &r, err), 0);
    assert_int_equal(r.ninterval, NIV);
    for (i = 0; i < NIV; i++) {
        assert_int_equal(r.iv[i].txns, 2100);
        assert_int_equal(r.iv[i].errors, 1);
        assert_int_equal(r.iv[i].clients, 6);
        assert_string_equal(r.iv[i].verdict, "client"); /* two agents of three */
    }
    assert_int_equal(r.nsample, 1); /* the server's samples once */
    assert_true(fabs(r.start - 1000.0) < 1e-6);
    record_free(&r);
}

static void
test_p99_is_the_unions(void **state)
{
    struct hist *u = hist_new(), *one = hist_new();
    struct record r;
    struct rec_summary s;
    char err[BT_ERRLEN];
    double avg = 0;
    int a, i;

    for (a = 0; a < AGENTS; a++) {
        hist_reset(one);
        for (i = 0; i < NIV; i++) {
            fill(u, a);
            fill(one, a);
        }
        avg += (double)hist_percentile(one, 99) / AGENTS;
    }
    assert_int_equal(record_load(merged, &r, err), 0);
    assert_int_equal(record_summarize(&r, 0, 0, &s, err), 0);
    assert_true(s.p99 == (double)hist_percentile(u, 99));
    assert_true(s.p50 == (double)hist_percentile(u, 50));
    assert_true(s.max == (double)hist_max(u));
    assert_true(s.p99 >= 20000);
    assert_true(avg < 7000); /* what averaging the agents' p99s would have said */
    record_free(&r);
    hist_free(u);
    hist_free(one);
}

/* 300 agents that agree are counted as 300 (the evidence said "64 of 300 agents"). */
static void
test_all_agents_counted(void **state)
{
    struct hist *h = hist_new(), *acc = hist_new();
    struct merge_bin b;
    char err[BT_ERRLEN], *b64, *line;
    json_t *o[300]; /* the kinds point into the lines: kept until the bin is done */
    int agree;

    hist_record(h, 1000);
    b64 = hdrlog_encode(h);
    merge_bin_start(&b, acc);
    for (int i = 0; i < 300; i++) {
        line = xasprintf("{\"type\":\"interval\",\"t\":1,\"interval_s\":1,\"transactions\":1,"
                         "\"verdict\":{\"kind\":\"%s\"},\"hist_us\":{\"hdr\":\"%s\"}}",
                         i < 200 ? "lock" : "client", b64);
        o[i] = json_loads(line, 0, NULL);
        assert_int_equal(merge_bin_add(&b, o[i], 1, acc, err), 0);
        free(line);
    }
    assert_int_equal(b.agents, 300);
    assert_int_equal(b.nkind, 2);
    assert_int_equal(b.kind_agents[0], 200);
    merge_bin_verdict(&b, &agree);
    assert_int_equal(agree, 200);
    merge_bin_free(&b);
    for (int i = 0; i < 300; i++)
        json_decref(o[i]);
    free(b64);
    hist_free(h);
    hist_free(acc);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_summed_and_aligned),
        cmocka_unit_test(test_p99_is_the_unions),
        cmocka_unit_test(test_all_agents_counted),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
