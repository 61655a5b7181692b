/* Foreign text: escaped for terminals, valid UTF-8 and finite numbers in JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/collect.h"
#include "records/output.h"
#include "records/run-output.h"
#include "base/hist.h"
#include "base/json.h"
#include "base/text.h"
#include "base/util.h"

/* A statement shown on one line: line breaks and tabs as spaces, runs of spaces as one. */
static void
test_one_line(void **state)
{
    char out[16];

    (void)state;
    text_one_line(out, sizeof(out), "  SELECT\n\t 1,\r\n  2  ");
    assert_string_equal(out, "SELECT 1, 2 ");
    text_one_line(out, 8, "UPDATE   accounts");
    assert_string_equal(out, "UPDATE "); /* cut at len - 1 */
}

static void
test_clean(void **state)
{
    char out[64];

    (void)state;
    text_clean(out, sizeof(out), "ERR \x1b]0;pwned\x07 \x1b[2J");
    assert_string_equal(out, "ERR \\x1b]0;pwned\\x07 \\x1b[2J");
    /* C1 CSI as UTF-8, a lone continuation byte, an overlong '/', DEL */
    text_clean(out, sizeof(out),
               "a\xc2\x9b"
               "b\x80"
               "c\xc0\xaf"
               "d\x7f");
    assert_string_equal(out, "a\\xc2\\x9bb\\x80c\\xc0\\xafd\\x7f");
    text_clean(out, sizeof(out), "caf\xc3\xa9 \xe2\x9c\x93");
    assert_string_equal(out, "caf\xc3\xa9 \xe2\x9c\x93");
    /* cut at a whole escape, never inside one */
    text_clean(out, 7, "ab\x1b\x1b");
    assert_string_equal(out, "ab\\x1b");
    first_line(out, sizeof(out), "  boom \x1b[31m\nsecond line");
    assert_string_equal(out, "boom \\x1b[31m");
}

static char *
json_of(const char *s)
{
    static char buf[256];
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    text_json(f, s);
    fclose(f);
    return buf;
}

static void
test_json_string(void **state)
{
    (void)state;
    assert_string_equal(json_of("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    assert_string_equal(json_of("x\xff"
                                "y\xe2\x9c"),
                        "\"x\\ufffdy\\ufffd\\ufffd\"");
    assert_string_equal(json_of("\xc2\x9b\xc3\xa9"), "\"\\u009b\xc3\xa9\"");
}

static char *
json_sql_of(const char *s, const char *sql)
{
    static char buf[256];
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    text_json_sql(f, s, sql);
    fclose(f);
    return buf;
}

/* Another session's statement: first word and digest, equal text equal digest, cut text too. */
static void
test_sql_digest(void **state)
{
    char a[32], b[32];

    (void)state;
    text_sql_digest(a, sizeof a, "  UPDATE t SET pw = 'hunter2'");
    text_sql_digest(b, sizeof b, "  UPDATE t SET pw = 'hunter3'");
    assert_int_equal(strlen(a), strlen("UPDATE #123456"));
    assert_memory_equal(a, "UPDATE #", 8);
    assert_string_not_equal(a, b);
    text_sql_digest(b, sizeof b, "  UPDATE t SET pw = 'hunter2'");
    assert_string_equal(a, b);
    text_sql_digest(a, sizeof a, "42");
    assert_int_equal(a[0], '#');
    assert_null(strstr(json_sql_of("9 s select 'x'", "select 'x'"), "'x'"));
    assert_non_null(strstr(json_sql_of("9 s select 'x'", "select 'x'"), "\"9 s select #"));
    /* the evidence cut the statement short: the rest of its part is digested */
    assert_null(strstr(json_sql_of("stall: 12 (3 s): DELETE FROM se | b", "DELETE FROM secret"),
                       "FROM se"));
    assert_non_null(
        strstr(json_sql_of("stall: 12 (3 s): DELETE FROM se | b", "DELETE FROM secret"), " | b\""));
    assert_string_equal(json_sql_of("no statement", NULL), "\"no statement\"");
}

static void
server_json(const struct collect_result *res, double t, char *buf, size_t len)
{
    FILE *f = fmemopen(buf, len, "w");

    report_server(f, t, "redis", "redis://x", res, NULL, 0);
    fclose(f);
}

static char *
number_of(double v)
{
    static char buf[64];
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    json_number(f, v);
    fclose(f);
    return buf;
}

/* An integer whole (a 20 MiB key's bytes read back exact); a float with the digits it needs. */
static void
test_json_number_digits(void **state)
{
    (void)state;
    assert_string_equal(number_of(20971520), "20971520");
    assert_string_equal(number_of(-3), "-3");
    assert_string_equal(number_of(9007199254740991.0), "9007199254740991");
    assert_string_equal(number_of(0.1), "0.1");
    assert_string_equal(number_of(1234.5678912), "1234.5678912");
    assert_string_equal(number_of(2.5e-7), "2.5e-07");
    assert_string_equal(number_of(1e20), "1e+20");
    assert_string_equal(number_of(NAN), "null");
}

static void
test_json_numbers(void **state)
{
    struct collect_result res;
    char buf[8192];

    (void)state;
    memset(&res, 0, sizeof(res));
    res.ok = 1;
    res.have_view = 1;
    coll_view_reset(&res.view);
    res.view.server_tps = INFINITY;
    coll_row_add(&res.view, "s", "inf", INFINITY, ROW_NORMAL, "x");
    coll_row_add(&res.view, "s", "big", 1.7e308, ROW_NORMAL, "y");
    coll_row_add(&res.view, "s", "ninf", -INFINITY, ROW_NORMAL, "z\xff");
    server_json(&res, 1.0, buf, sizeof(buf));
    assert_null(strstr(buf, ":inf"));
    assert_null(strstr(buf, ":-inf"));
    assert_non_null(strstr(buf, "\"server_tps\":null"));
    assert_non_null(strstr(buf, "\"label\":\"ninf\",\"value\":\"z\\ufffd\",\"num\":null"));
    assert_non_null(strstr(buf, "\"num\":1.7e+308"));

    /* a failed sample shows no figure from before */
    res.ok = 0;
    snprintf(res.error, sizeof(res.error), "gone");
    server_json(&res, 7.5, buf, sizeof(buf));
    assert_non_null(strstr(buf, "\"t\":7.500"));
    assert_non_null(strstr(buf, "\"error\":\"gone\",\"server_tps\":null,\"rows\":[]"));
    assert_null(strstr(buf, "\"big\""));
}

static void
test_error_messages_counted(void **state)
{
    struct wstats a, b;
    const struct err_msg *top[STATS_MSGS];
    char buf[4096];
    FILE *f;
    int i, n;

    (void)state;
    wstats_init(&a);
    wstats_init(&b);
    a.txns = 10;
    a.errors[ERR_OTHER] = 990;
    wstats_count_msg(&a, "prepared statement \"P_1\" does not exist", 900);
    wstats_count_msg(&b, "division by zero", 50);
    wstats_count_msg(&b, "prepared statement \"P_1\" does not exist", 40);
    for (i = 0; i < STATS_MSGS + 3; i++) {
        snprintf(buf, sizeof(buf), "message %d", i);
        wstats_count_msg(&b, buf, 1);
    }
    wstats_merge(&a, &b);
    n = wstats_top_msgs(&a, top);
    assert_int_equal(n, STATS_MSGS);
    assert_string_equal(top[0]->text, "prepared statement \"P_1\" does not exist");
    assert_int_equal(top[0]->n, 940);
    assert_string_equal(top[1]->text, "division by zero");
    assert_int_equal(top[1]->n, 50);
    assert_int_equal(a.msgs_other, 5); /* 8 slots: 2 named above, 6 of the 11 others */
    assert_true(wstats_failed_share(&a) > 0.98);

    /* the summary leads with the failures, then the most frequent messages */
    f = fmemopen(buf, sizeof(buf), "w");
    {
        struct runconf rc = {.tgt.masked = "postgres://x", .threads = 1};
        struct report_ctx ctx = {.rc = &rc, .workload = "w", .mode = "prepared"};
        struct snapshot snap = {.t = 2.0, .clients = 1};
        snap.total = a;
        report_human_summary(f, &snap, NULL, &ctx);
    }
    fclose(f);
    assert_memory_equal(buf,
                        "FAILED: 99.0% of transactions (990 of 1000)\n"
                        "  940 x prepared statement \"P_1\" does not exist\n"
                        "  50 x division by zero\n",
                        strlen("FAILED: 99.0% of transactions (990 of 1000)\n"
                               "  940 x prepared statement \"P_1\" does not exist\n"
                               "  50 x division by zero\n"));
    wstats_free(&a);
    wstats_free(&b);
}

static char *
summary_of(struct snapshot *snap)
{
    static char buf[4096];
    struct runconf rc = {.tgt.masked = "postgres://x", .threads = 1};
    struct report_ctx ctx = {.rc = &rc, .workload = "w", .mode = "prepared"};
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    report_human_summary(f, snap, NULL, &ctx);
    fclose(f);
    return buf;
}

/* 8 failures in 47,241 are said (not only above 1%); a wait still open past the max is said. */
static void
test_summary_few_failures_and_stuck(void **state)
{
    struct snapshot snap = {.t = 10.0, .clients = 8};

    (void)state;
    wstats_init(&snap.total);
    wstats_init(&snap.cur);
    snap.total.txns = 47241;
    snap.total.errors[ERR_OTHER] = 8;
    wstats_count_msg(&snap.total, "deadlock detected", 8);
    hist_record(snap.total.lat, 570092);
    snap.cur.oldest_us = 13300000;
    char *out = summary_of(&snap);
    assert_memory_equal(
        out, "failed: 0.017% of transactions (8 of 47249)\n  8 x deadlock detected\n",
        strlen("failed: 0.017% of transactions (8 of 47249)\n  8 x deadlock detected\n"));
    assert_non_null(strstr(out, "max 570."));
    assert_non_null(
        strstr(out, "stuck at the end: a transaction still in flight had waited 13.3 s"));

    /* no failure, nothing in flight past the max: neither line */
    snap.total.errors[ERR_OTHER] = 0;
    snap.cur.oldest_us = 100000;
    out = summary_of(&snap);
    assert_memory_equal(out, "workload: w\n", strlen("workload: w\n"));
    assert_null(strstr(out, "stuck"));
    wstats_free(&snap.total);
    wstats_free(&snap.cur);
}

/* A reply quoted in a one-line message: control, DEL and high bytes as '.', cut to fit. */
static void
test_ascii(void **state)
{
    char out[8];

    (void)state;
    assert_int_equal(text_ascii(out, sizeof out, "a\r\n\x7f\xc3\xa9", 6), 6);
    assert_string_equal(out, "a.....");
    assert_int_equal(text_ascii(out, sizeof out, "0123456789", 10), 7);
    assert_string_equal(out, "0123456");
    assert_int_equal(text_ascii(out, sizeof out, "ab", 1), 1);
    assert_string_equal(out, "a");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_one_line),
        cmocka_unit_test(test_json_string),
        cmocka_unit_test(test_json_numbers),
        cmocka_unit_test(test_json_number_digits),
        cmocka_unit_test(test_summary_few_failures_and_stuck),
        cmocka_unit_test(test_error_messages_counted),
        cmocka_unit_test(test_ascii),
        cmocka_unit_test(test_sql_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
