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
    assert_string_equal(record_head(&r, "server synchronous_commit"), "off");
    assert_string_equal(record_head(&r, "host cores"), "2");
    assert_string_equal(record_head(&r, "host kernel"), "6.1");
    assert_string_equal(record_head(&r, "option clients"), "1");
    assert_string_equal(r.head[0].key, "benchtop");
    assert_string_equal(r.head[r.nhead - 1].key, "server synchronous_commit");
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
    assert_string_equal(record_head(&r, "server synchronous_commit"), "off");
    assert_string_equal(record_head(&r, "server wal_buffers"), "4MB");
    assert_null(record_head(&r, "server fsync"));
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

/* A record made of the given text, loaded; returns record_load's answer. */
static int
load_text(const char *text, struct record *r, char *err)
{
    char p[] = "/tmp/test-record-txt-XXXXXX";
    int fd = mkstemp(p), rv;
    size_t len = strlen(text);

    assert_true(write(fd, text, len) == (ssize_t)len);
    close(fd);
    rv = record_load(p, r, err);
    unlink(p);
    return rv;
}

/* An interval line at t (1 s long) with n transactions and an empty histogram. */
static void
add_interval(char **text, double t, int n, const char *verdict)
{
    struct hist *h = hist_new();
    char *b64 = hdrlog_encode(h), *old = *text;

    *text = xasprintf("%s{\"type\":\"interval\",\"t\":%.3f,\"interval_s\":1,\"transactions\":%d,"
                      "\"verdict\":{\"kind\":\"%s\"},\"hist_us\":{\"hdr\":\"%s\"}}\n",
                      old ? old : "", t, n, verdict, b64);
    free(old);
    free(b64);
    hist_free(h);
}

/* Every setting reaches the report whole: none cut at 512 bytes, none lost. */
static void
test_settings_whole(void **state)
{
    char *text = xstrdup("{\"type\":\"settings\",\"t\":0,\"settings\":{"), *old, longv[700];
    struct record r;
    char err[BT_ERRLEN], key[64];
    int i;

    memset(longv, 'x', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    for (i = 0; i < 60; i++) {
        old = text;
        text = xasprintf("%s\"s%02d\":\"%s\",", old, i, i == 30 ? longv : "fdatasync");
        free(old);
    }
    old = text;
    text = xasprintf("%s\"jit\":\"on\"}}\n", old);
    free(old);
    add_interval(&text, 1, 10, "lock");
    assert_int_equal(load_text(text, &r, err), 0);
    for (i = 0; i < 60; i++) {
        snprintf(key, sizeof key, "server s%02d", i);
        assert_string_equal(record_head(&r, key), i == 30 ? longv : "fdatasync");
    }
    assert_string_equal(record_head(&r, "server jit"), "on");
    record_free(&r);
    free(text);
}

/* The server's figures after the last interval (the load ended) are not the run's. */
static void
test_load_window(void **state)
{
    char *text = NULL, *old;
    struct record r;
    char err[BT_ERRLEN];
    int i;

    for (i = 1; i <= 4; i++) {
        add_interval(&text, i, 100, "lock");
        old = text;
        text = xasprintf("%s{\"type\":\"server\",\"t\":%d.5,\"server_tps\":%d,\"rows\":[]}\n", old,
                         i - 1, i <= 4 ? 100 : 0);
        free(old);
    }
    for (i = 5; i <= 12; i++) { /* a dashboard waiting for q: an idle server */
        old = text;
        text =
            xasprintf("%s{\"type\":\"server\",\"t\":%d.5,\"server_tps\":0,\"rows\":[]}\n", old, i);
        free(old);
    }
    assert_int_equal(load_text(text, &r, err), 0);
    assert_true(r.load_to == 4.0);
    assert_true(record_series_mean(&r, 0, 0, 0) == 100.0);
    record_free(&r);
    free(text);
}

/* Wrong types are skipped, never dereferenced (report died on "events":[null]). */
static void
test_wrong_types_skipped(void **state)
{
    char *text = NULL, *old;
    struct record r;
    char err[BT_ERRLEN];

    add_interval(&text, 1, 10, "lock");
    old = text;
    text = xasprintf("%s{\"type\":\"server\",\"t\":1,\"rows\":[],\"events\":[null]}\n"
                     "{\"type\":\"server\",\"t\":1,\"rows\":[],\"events\":[1,\"ok\",{}]}\n"
                     "{\"type\":\"server\",\"t\":1,\"rows\":{\"a\":1},\"events\":7}\n"
                     "{\"type\":\"server\",\"t\":1,\"rows\":[null,1,{\"num\":2}]}\n"
                     "{\"type\":\"settings\",\"settings\":[1]}\n"
                     "{\"type\":\"run\",\"options\":[1],\"host\":7,\"clients\":\"x\"}\n"
                     "{\"type\":\"event\",\"t\":\"x\",\"kind\":1}\n"
                     "{\"type\":\"step\",\"start_t\":null,\"end_t\":[]}\n"
                     "[1]\n",
                     old);
    free(old);
    assert_int_equal(load_text(text, &r, err), 0);
    assert_int_equal(r.nevent, 1);
    assert_string_equal(r.ev[0].text, "ok");
    assert_int_equal(r.nstep, 0);
    record_free(&r);
    free(text);
}

/* A last line cut while written: the lines before it are kept, and it is said. */
static void
test_cut_last_line(void **state)
{
    char *text = NULL, *old;
    struct record r;
    char err[BT_ERRLEN];

    add_interval(&text, 1, 10, "lock");
    add_interval(&text, 2, 20, "lock");
    old = text;
    text = xasprintf("%s{\"type\":\"interval\",\"t\":3,\"inter", old);
    free(old);
    assert_int_equal(load_text(text, &r, err), 0);
    assert_int_equal(r.ninterval, 2);
    assert_int_equal(r.cut_line, 3);
    record_free(&r);
    /* the same cut in the middle is damage: refused with its line */
    old = text;
    text = xasprintf("%s\n", old);
    free(old);
    add_interval(&text, 4, 20, "lock");
    assert_int_equal(load_text(text, &r, err), -1);
    assert_non_null(strstr(err, ":3:"));
    record_free(&r);
    free(text);
}

/* Out-of-range times and counts are refused with the line, never summed. */
static void
test_out_of_range_refused(void **state)
{
    static const char *const bad[] = {
        "\"t\":1,\"interval_s\":-5,\"transactions\":1",
        "\"t\":1e13,\"interval_s\":1,\"transactions\":1",
        "\"t\":1,\"interval_s\":1e-300,\"transactions\":1e300",
        "\"t\":1,\"interval_s\":1,\"transactions\":-3",
        "\"t\":1,\"interval_s\":1,\"transactions\":18446744073709551615",
        "\"t\":1,\"interval_s\":1,\"tps\":1e300",
        "\"t\":1,\"interval_s\":\"1\",\"transactions\":1",
    };
    struct record r;
    char err[BT_ERRLEN], *text;

    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        text = xasprintf("{\"type\":\"run\"}\n{\"type\":\"interval\",%s}\n", bad[i]);
        assert_int_equal(load_text(text, &r, err), -1);
        assert_non_null(strstr(err, ":2:"));
        record_free(&r);
        free(text);
    }
}

/*
 * A 3 s step whose times were printed to milliseconds keeps its 3
 * intervals (a 1e-6 tolerance lost one: "2.0 s" for a 3 s step); an
 * interval that finished nothing is counted as an outage.
 */
static void
test_step_window_rounded(void **state)
{
    char *text = NULL, *old;
    struct record r;
    struct rec_summary s;
    char err[BT_ERRLEN];
    int i;

    for (i = 0; i < 6; i++)
        add_interval(&text, 1.0004 + i, i == 4 ? 0 : 100, "lock");
    old = text;
    text = xasprintf("%s{\"type\":\"step\",\"clients\":1,\"start_t\":0.001,\"end_t\":3.001}\n"
                     "{\"type\":\"step\",\"clients\":2,\"start_t\":3.001,\"end_t\":6.001}\n",
                     old);
    free(old);
    assert_int_equal(load_text(text, &r, err), 0);
    assert_string_equal(r.steps[0].label, "1 client");
    assert_string_equal(r.steps[1].label, "2 clients");
    assert_int_equal(record_summarize(&r, r.steps[0].from, r.steps[0].to, &s, err), 0);
    assert_int_equal(s.n, 3);
    assert_true(fabs(s.secs - 3) < 1e-9);
    assert_true(s.outage_s == 0);
    assert_int_equal(record_summarize(&r, r.steps[1].from, r.steps[1].to, &s, err), 0);
    assert_int_equal(s.n, 3);
    assert_true(s.outage_s == 1);
    record_free(&r);
    free(text);
}

/*
 * 100k intervals and 3000 series: the verdict counted once, the series
 * capped. The ASan build reads 20k: its allocator makes each of the 100k
 * lines' small allocations costly, and the plain build already shows
 * the load is linear (0.6 s).
 */
#ifdef __SANITIZE_ADDRESS__
enum { LONG_INTERVALS = 20000 };
#else
enum { LONG_INTERVALS = 100000 };
#endif

static void
test_long_record(void **state)
{
    FILE *f;
    char p[] = "/tmp/test-record-long-XXXXXX";
    struct record r;
    struct rec_summary s;
    struct hist *h = hist_new();
    char err[BT_ERRLEN], *b64 = hdrlog_encode(h);
    int i, fd = mkstemp(p);

    f = fdopen(fd, "w");
    for (i = 1; i <= LONG_INTERVALS; i++)
        fprintf(f,
                "{\"type\":\"interval\",\"t\":%d,\"interval_s\":1,\"transactions\":1,"
                "\"verdict\":{\"kind\":\"%s\"},\"hist_us\":{\"hdr\":\"%s\"}}\n",
                i, i % 4 ? "lock" : "cpu", b64);
    for (i = 0; i < 3000; i++)
        fprintf(f,
                "{\"type\":\"server\",\"t\":%d,\"rows\":[{\"section\":\"s\",\"label\":\"l%d\","
                "\"value\":\"1/s\",\"num\":%d}]}\n",
                i, i, i);
    fclose(f);
    assert_int_equal(record_load(p, &r, err), 0);
    assert_int_equal(record_summarize(&r, 0, 0, &s, err), 0);
    assert_string_equal(s.verdict, "lock");
    assert_true(fabs(s.verdict_share - 0.75) < 1e-9);
    assert_int_equal(r.nseries, RECORD_MAX_SERIES);
    assert_true(r.series_capped);
    assert_int_equal(record_series(&r, "s: l5"), 6);
    assert_true(record_sample(&r, 5, 6) == 5.0);
    assert_true(isnan(record_sample(&r, 5, 7)));
    record_free(&r);
    unlink(p);
    free(b64);
    hist_free(h);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_exact),         cmocka_unit_test(test_header_events_steps),
        cmocka_unit_test(test_settings_line),        cmocka_unit_test(test_bad_line_refused),
        cmocka_unit_test(test_settings_whole),       cmocka_unit_test(test_load_window),
        cmocka_unit_test(test_wrong_types_skipped),  cmocka_unit_test(test_cut_last_line),
        cmocka_unit_test(test_out_of_range_refused), cmocka_unit_test(test_step_window_rounded),
        cmocka_unit_test(test_long_record),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
