/*
 * Tests for record: a record written here line by line (intervals with
 * encoded histograms, server samples, an event and a sweep step) is read
 * back; windows are re-summarised exactly (percentiles of the merged
 * intervals, trimmed by --from/--to); steps, settings and events arrive;
 * a broken line is refused with its file and line number.
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
#include "records/record.h"
#include "base/util.h"

enum { NIV = 6 };

static char path[] = "/tmp/test-record-XXXXXX";

/* Interval i holds 100*(i+1) samples of (i+1)*1000 + k us. */
static void
fill(struct hist *h, int i)
{
    int k;

    for (k = 0; k < 100 * (i + 1); k++)
        hist_record(h, (uint64_t)(i + 1) * 1000 + (uint64_t)k);
}

static void
write_interval(FILE *f, int i)
{
    struct hist *h = hist_new();
    char *b64;

    fill(h, i);
    b64 = hdrlog_encode(h);
    fprintf(f,
            "{\"type\":\"interval\",\"t\":%d.000,\"interval_s\":1.000,\"clients\":%d,"
            "\"tps\":%d.0,\"errors\":%d,\"transactions\":%d,\"verdict\":{\"kind\":\"%s\"},"
            "\"hist_us\":{\"min\":%llu,\"max\":%llu,\"sum\":%llu,\"overflow\":0,\"hdr\":\"%s\"}}\n",
            i + 1, i < 3 ? 1 : 2, 100 * (i + 1), i == 4, 100 * (i + 1), i < 4 ? "lock" : "commit",
            (unsigned long long)hist_min(h), (unsigned long long)hist_max(h),
            (unsigned long long)hist_sum(h), b64);
    free(b64);
    hist_free(h);
}

static int
setup(void **state)
{
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    int i;

    fputs("{\"type\":\"run\",\"benchtop\":\"9.9\",\"command\":\"run\",\"start\":1000.5,"
          "\"target\":\"postgres://u:***@h/db\",\"workload\":\"tpcb-like\",\"clients\":1,"
          "\"options\":{\"clients\":1},\"host\":{\"cores\":2,\"kernel\":\"6.1\"}}\n",
          f);
    fputs("{\"type\":\"server\",\"t\":0.5,\"server_tps\":null,\"rows\":["
          "{\"section\":\"settings\",\"label\":\"synchronous_commit\",\"value\":\"off\","
          "\"num\":null},{\"section\":\"wal\",\"label\":\"syncs/s\",\"value\":\"3/s\","
          "\"num\":3}],\"events\":[]}\n",
          f);
    for (i = 0; i < NIV; i++)
        write_interval(f, i);
    fputs("{\"type\":\"server\",\"t\":5.5,\"server_tps\":400,\"rows\":["
          "{\"section\":\"wal\",\"label\":\"syncs/s\",\"value\":\"9/s\",\"num\":9}],"
          "\"events\":[\"checkpoint (timed)\"]}\n",
          f);
    fputs("{\"type\":\"event\",\"t\":2.5,\"kind\":\"setting\",\"collector\":\"postgres\","
          "\"name\":\"synchronous_commit\",\"from\":\"off\",\"to\":\"on\"}\n",
          f);
    fputs("{\"type\":\"event\",\"t\":3.5,\"kind\":\"marker\",\"label\":\"batch 10\"}\n", f);
    fputs("{\"type\":\"step\",\"clients\":2,\"rate\":0,\"start_t\":3,\"end_t\":6}\n", f);
    fputs("{\"type\":\"future\",\"anything\":[1,2]}\n", f);
    fclose(f);
    return 0;
}

static int
teardown(void **state)
{
    unlink(path);
    return 0;
}

/* The window's percentiles are those of recording its intervals' samples together. */
static void
test_window_exact(void **state)
{
    struct record r;
    struct rec_summary s;
    struct hist *h = hist_new();
    char err[BT_ERRLEN];
    int i;

    assert_int_equal(record_load(path, &r, err), 0);
    assert_int_equal(r.ninterval, NIV);
    for (i = 1; i < 5; i++)
        fill(h, i);
    assert_int_equal(record_summarize(&r, 1, 5, &s, err), 0);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.txns, 200 + 300 + 400 + 500);
    assert_true(fabs(s.tps - 1400.0 / 4) < 1e-9);
    assert_int_equal(s.errors, 1);
    assert_true(s.p50 == (double)hist_percentile(h, 50));
    assert_true(s.p99 == (double)hist_percentile(h, 99));
    assert_true(s.p999 == (double)hist_percentile(h, 99.9));
    assert_true(s.max == (double)hist_max(h));
    assert_string_equal(s.verdict, "lock");
    assert_true(fabs(s.verdict_share - 0.75) < 1e-9);
    /* per-interval tps 200..500: sample sd of four equally spaced values */
    assert_true(fabs(s.sd_tps - sqrt(50000.0 / 3)) < 1e-6);
    hist_free(h);
    record_free(&r);
}

static void
test_header_events_steps(void **state)
{
    struct record r;
    char err[BT_ERRLEN];
    int k;

    assert_int_equal(record_load(path, &r, err), 0);
    assert_string_equal(r.target, "postgres://u:***@h/db");
    assert_string_equal(r.version, "9.9");
    assert_non_null(strstr(r.header_text, "server synchronous_commit: off"));
    assert_non_null(strstr(r.header_text, "2 cores, kernel 6.1"));
    assert_true(strstr(r.header_text, "benchtop 9.9") < strstr(r.header_text, "server "));
    assert_int_equal(r.nstep, 1);
    assert_true(r.steps[0].from == 3 && r.steps[0].to == 6);
    assert_string_equal(r.steps[0].label, "2 clients");
    /* two event lines, a collector event, a verdict change, errors beginning */
    assert_int_equal(r.nevent, 5);
    assert_string_equal(r.ev[0].text, "synchronous_commit: off -> on");
    assert_string_equal(r.ev[1].text, "marker: batch 10");
    k = record_series(&r, "wal: syncs/s");
    assert_true(k > 0);
    assert_true(r.series_rate[k]);
    assert_true(record_series_mean(&r, k, 0, 0) == 6.0);
    assert_true(record_series_mean(&r, 0, 0, 0) == 400.0);
    record_free(&r);
}

/* A {"type":"settings"} line is the settings at start, whatever the rows said. */
static void
test_settings_line(void **state)
{
    char p2[] = "/tmp/test-record-set-XXXXXX";
    int fd = mkstemp(p2);
    FILE *f = fdopen(fd, "w");
    struct record r;
    char err[BT_ERRLEN];

    fputs("{\"type\":\"server\",\"t\":0.5,\"rows\":[{\"section\":\"settings\","
          "\"label\":\"fsync\",\"value\":\"on\",\"num\":null}],\"events\":[]}\n",
          f);
    fputs("{\"type\":\"settings\",\"t\":0.01,\"collector\":\"postgres\","
          "\"settings\":{\"synchronous_commit\":\"off\",\"wal_buffers\":\"4MB\"}}\n",
          f);
    fputs("{\"type\":\"settings\",\"t\":9,\"settings\":{\"synchronous_commit\":\"on\"}}\n", f);
    write_interval(f, 0);
    fclose(f);
    assert_int_equal(record_load(p2, &r, err), 0);
    assert_non_null(
        strstr(r.header_text, "server synchronous_commit: off\nserver wal_buffers: 4MB"));
    assert_null(strstr(r.header_text, "fsync"));
    assert_null(strstr(r.header_text, "synchronous_commit: on"));
    record_free(&r);
    unlink(p2);
}

static void
test_bad_line_refused(void **state)
{
    char bad[] = "/tmp/test-record-bad-XXXXXX";
    int fd = mkstemp(bad);
    struct record r;
    char err[BT_ERRLEN];

    assert_true(write(fd, "{\"type\":\"run\"}\nnot json\n", 24) == 24);
    close(fd);
    assert_int_equal(record_load(bad, &r, err), -1);
    assert_non_null(strstr(err, ":2:"));
    record_free(&r);
    unlink(bad);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_exact),
        cmocka_unit_test(test_header_events_steps),
        cmocka_unit_test(test_settings_line),
        cmocka_unit_test(test_bad_line_refused),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
