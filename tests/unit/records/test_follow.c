/*
 * Tests for follow (watch --records) on synthetic agents' records: the
 * countdown from the agents' ready lines (the seconds and the agents
 * ready), a late agent's two intervals in one merged interval counted as
 * one agent's clients, the server samples of the lowest instance only,
 * their rows as recorded and their escapes made harmless, and "done" once
 * every record ended, not before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hdrlog.h"
#include "base/hist.h"
#include "base/util.h"
#include "records/follow.h"

enum { AGENTS = 3 };

static char dir[] = "/tmp/test-follow-XXXXXX";
static char pattern[64];

static FILE *
agent_file(int a, const char *mode)
{
    char path[96];
    FILE *f;

    snprintf(path, sizeof path, "%s/a%d.jsonl", dir, a);
    f = fopen(path, mode);
    assert_non_null(f);
    return f;
}

static void
ready_line(int a, double start_at)
{
    FILE *f = agent_file(a, "w");

    fprintf(f, "{\"type\":\"ready\",\"start_at\":%.3f,\"instance\":%d,\"instances\":3}\n", start_at,
            a);
    fclose(f);
}

static void
interval_line(FILE *f, double t, int txns)
{
    struct hist *h = hist_new();
    char *b64;

    for (int k = 0; k < txns; k++)
        hist_record(h, 100 + (uint64_t)k);
    b64 = hdrlog_encode(h);
    fprintf(f,
            "{\"type\":\"interval\",\"t\":%.3f,\"interval_s\":1,\"clients\":2,\"connected\":2,"
            "\"transactions\":%d,\"errors\":0,\"verdict\":{\"kind\":\"client\"},"
            "\"hist_us\":{\"min\":%llu,\"max\":%llu,\"sum\":%llu,\"overflow\":0,\"hdr\":\"%s\"}}\n",
            t, txns, (unsigned long long)hist_min(h), (unsigned long long)hist_max(h),
            (unsigned long long)hist_sum(h), b64);
    free(b64);
    hist_free(h);
}

/* Agent a's run: header, a server sample per interval (commands a*1000+i), 2 intervals, summary. */
static void
whole_record(int a, double start, int late_twice, int summary)
{
    FILE *f = agent_file(a, "a");

    fprintf(f,
            "{\"type\":\"run\",\"start\":%.3f,\"target\":\"redis://h\",\"workload\":\"get\","
            "\"clients\":2,\"interval_s\":1,\"instance\":%d,\"instances\":3}\n",
            start, a);
    for (int i = 1; i <= 2; i++) {
        fprintf(
            f,
            "{\"type\":\"server\",\"t\":%d.010,\"collector\":\"redis\",\"target\":\"redis://h\","
            "\"ok\":true,\"server_tps\":%d,\"rows\":[{\"section\":\"throughput\","
            "\"label\":\"commands\",\"value\":\"%d/s\\u001b[31m\",\"num\":%d}],\"events\":[]}\n",
            i, a * 1000 + i, a * 1000 + i, a * 1000 + i);
        interval_line(f, i, 10);
    }
    if (late_twice) /* a second interval that lands in bin 2 too */
        interval_line(f, 2.4, 10);
    if (summary)
        fputs("{\"type\":\"summary\",\"transactions\":20}\n", f);
    fclose(f);
}

static int
setup(void **state)
{
    assert_non_null(mkdtemp(dir));
    snprintf(pattern, sizeof pattern, "%s/a*.jsonl", dir);
    return 0;
}

static int
teardown(void **state)
{
    char path[96];

    for (int a = 0; a < AGENTS; a++) {
        snprintf(path, sizeof path, "%s/a%d.jsonl", dir, a);
        unlink(path);
    }
    rmdir(dir);
    return 0;
}

static void
test_status_text(void **state)
{
    struct follow_state st = {.files = 2, .ready = 2, .expected = 3, .start_at = 1000};
    char buf[128];

    follow_status_text(&st, 958.5, buf, sizeof buf);
    assert_string_equal(buf, "starts in 42 s, 2 of 3 agents ready");
    follow_status_text(&st, 999.99, buf, sizeof buf);
    assert_string_equal(buf, "starts in 1 s, 2 of 3 agents ready");
    follow_status_text(&st, 1000.2, buf, sizeof buf);
    assert_string_equal(buf, "starting, 2 of 3 agents ready");
    st.shown = 1; /* running: nothing to say */
    follow_status_text(&st, 1001, buf, sizeof buf);
    assert_string_equal(buf, "");
    st.done = 1;
    st.ended = 3;
    st.files = 3;
    follow_status_text(&st, 1005, buf, sizeof buf);
    assert_string_equal(buf, "done: 3 of 3 agents ended");
}

static void
test_countdown_then_done(void **state)
{
    double start = wall_now() - 100; /* long over: no interval waits for a silent agent */
    struct follow_state st;
    const struct snapshot *snap;
    const struct follow_server *fs;
    char err[BT_ERRLEN];
    struct follow *fl;
    int bins = 0, samples = 0;

    ready_line(1, 4242.5);
    ready_line(2, 4242.5);
    fl = follow_open(pattern, err);
    assert_non_null(fl);
    assert_null(follow_next(fl));
    follow_state(fl, &st);
    assert_int_equal(st.files, 2);
    assert_int_equal(st.ready, 2);
    assert_int_equal(st.expected, 3);
    assert_true(st.start_at == 4242.5);
    assert_int_equal(st.done, 0);
    ready_line(0, 4242.5);
    whole_record(1, start, 1, 1); /* agent 1 late: two intervals in bin 2 */
    whole_record(2, start, 0, 1);
    whole_record(0, start, 0, 0); /* agent 0's summary is not written yet */
    while ((snap = follow_next(fl)) != NULL) {
        bins++;
        assert_int_equal(snap->clients, 6); /* agent 1's two lines in bin 2 are one agent's */
        while ((fs = follow_server_next(fl)) != NULL) {
            samples++;
            assert_int_equal(fs->slot, 0);
            assert_string_equal(fs->name, "redis");
            assert_true(fs->res.have_view);
            assert_int_equal(fs->res.view.nrows, 1);
            /* agent 0's samples (the lowest instance), the escape made harmless */
            assert_true(fs->res.view.server_tps == samples);
            assert_true(fs->res.view.rows[0].num == samples);
            assert_null(strchr(fs->res.view.rows[0].value, '\033'));
            assert_non_null(strstr(fs->res.view.rows[0].value, "\\x1b[31m"));
        }
    }
    follow_state(fl, &st);
    assert_int_equal(st.ready, 3);
    assert_int_equal(st.started, 3);
    assert_int_equal(st.ended, 2);
    assert_int_equal(st.done, 0); /* agent 0's record has not ended */
    {
        FILE *f = agent_file(0, "a");
        fputs("{\"type\":\"summary\",\"transactions\":20}\n", f);
        fclose(f);
    }
    assert_null(follow_next(fl));
    assert_int_equal(bins, 2);
    assert_int_equal(samples, 2);
    follow_state(fl, &st);
    assert_int_equal(st.done, 1);
    assert_int_equal(st.ended, 3);
    follow_close(fl);
}

/*
 * Agent 0 wrote its header and first interval but no server sample yet
 * while agents 1 and 2 wrote theirs: no sample is shown until agent 0's
 * comes, and then they are agent 0's, as merge keeps them (a race once
 * showed agent 1's).
 */
static void
test_source_waits_for_the_lowest_agent(void **state)
{
    double start = wall_now() - 100;
    const struct follow_server *fs;
    char err[BT_ERRLEN];
    struct follow *fl;
    FILE *f;
    int samples = 0;

    for (int a = 0; a < AGENTS; a++)
        fclose(agent_file(a, "w"));
    whole_record(1, start, 0, 1);
    whole_record(2, start, 0, 1);
    f = agent_file(0, "a");
    fprintf(f,
            "{\"type\":\"run\",\"start\":%.3f,\"target\":\"redis://h\",\"workload\":\"get\","
            "\"clients\":2,\"interval_s\":1,\"instance\":0,\"instances\":3}\n",
            start);
    interval_line(f, 1, 10);
    fclose(f);
    fl = follow_open(pattern, err);
    assert_non_null(fl);
    assert_non_null(follow_next(fl));    /* bin 1: every agent wrote it */
    assert_null(follow_server_next(fl)); /* agent 0's sample may still come */
    f = agent_file(0, "a");
    fputs("{\"type\":\"server\",\"t\":1.010,\"collector\":\"redis\",\"target\":\"redis://h\","
          "\"ok\":true,\"server_tps\":7,\"rows\":[],\"events\":[]}\n",
          f);
    interval_line(f, 2, 10);
    fputs("{\"type\":\"summary\",\"transactions\":20}\n", f);
    fclose(f);
    while (follow_next(fl) != NULL)
        while ((fs = follow_server_next(fl)) != NULL) {
            samples++;
            assert_true(fs->res.view.server_tps == 7); /* agent 0's, never 1001 or 2001 */
        }
    assert_int_equal(samples, 1);
    follow_close(fl);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_text),
        cmocka_unit_test(test_countdown_then_done),
        cmocka_unit_test(test_source_waits_for_the_lowest_agent),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
