/*
 * Tests for settings as events and the dashboard's before / since: the
 * pure diff of two settings reads, memcached's `stats settings` parser,
 * the prompt's editing and NAME = VALUE split, and segment figures.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/collector.h"
#include "base/hist.h"
#include "collectors/memcached/memcached.h"
#include "ui/prompt.h"
#include "ui/screen.h"
#include "ui/segment.h"
#include "base/util.h"

static void
test_diff_names_changes_only(void **state)
{
    (void)state;
    struct coll_settings a = {0}, b = {0};
    struct coll_change ch[COLL_MAX_CHANGES];

    coll_setting_add(&a, "synchronous_commit", "on");
    coll_setting_add(&a, "work_mem", "4MB");
    coll_setting_add(&a, "fsync", "on");
    coll_setting_add(&b, "synchronous_commit", "off");
    coll_setting_add(&b, "work_mem", "4MB");
    coll_setting_add(&b, "jit", "off"); /* new name: not a change */
    assert_int_equal(coll_settings_diff(&a, &b, ch, COLL_MAX_CHANGES), 1);
    assert_string_equal(ch[0].name, "synchronous_commit");
    assert_string_equal(ch[0].from, "on");
    assert_string_equal(ch[0].to, "off");
    assert_int_equal(coll_settings_diff(&a, &a, ch, COLL_MAX_CHANGES), 0);
    /* max is respected */
    coll_setting_add(&a, "x", "1");
    coll_setting_add(&b, "x", "2");
    assert_int_equal(coll_settings_diff(&a, &b, ch, 1), 1);
    assert_int_equal(coll_settings_diff(&a, &b, ch, COLL_MAX_CHANGES), 2);
    assert_string_equal(ch[1].to, "2");
    assert_string_equal(coll_setting_get(&b, "jit"), "off");
    assert_null(coll_setting_get(&b, "fsync"));
}

static void
test_memcached_settings_parse(void **state)
{
    (void)state;
    static const char reply[] = "STAT maxbytes 67108864\r\nSTAT maxconns 1024\r\n"
                                "STAT tcpport 11211\r\nSTAT evictions on\r\n"
                                "STAT binding_protocol auto-negotiate\r\n"
                                "STAT num_threads 4\r\nEND\r\n";
    struct coll_settings s = {0};

    mc_settings_parse(reply, sizeof(reply) - 1, &s);
    assert_int_equal(s.n, 5); /* tcpport is not one of ours */
    /* the class's order, not the reply's */
    assert_string_equal(s.s[0].name, "maxbytes");
    assert_string_equal(s.s[0].value, "67108864");
    assert_string_equal(s.s[1].name, "maxconns");
    assert_string_equal(s.s[2].name, "num_threads");
    assert_string_equal(s.s[2].value, "4");
    assert_string_equal(coll_setting_get(&s, "evictions"), "on");
    assert_string_equal(coll_setting_get(&s, "binding_protocol"), "auto-negotiate");
}

static void
type(struct prompt *p, const char *text)
{
    for (; *text; text++)
        assert_int_equal(prompt_key(p, (unsigned char)*text), PROMPT_EDITING);
}

static void
test_prompt_edits_and_splits(void **state)
{
    (void)state;
    struct prompt p;
    char name[40], value[64], err[BT_ERRLEN], line[200];

    prompt_open(&p, PROMPT_SETTING);
    type(&p, "work_mem = 64MBx");
    assert_int_equal(prompt_key(&p, SCREEN_BACKSPACE), PROMPT_EDITING);
    assert_string_equal(p.text, "work_mem = 64MB");
    prompt_line(&p, line, sizeof(line));
    assert_non_null(strstr(line, "work_mem = 64MB_"));
    assert_int_equal(prompt_key(&p, '\n'), PROMPT_DONE);
    assert_int_equal(p.kind, PROMPT_NONE);
    assert_int_equal(prompt_split_setting(p.text, name, sizeof(name), value, sizeof(value), err),
                     0);
    assert_string_equal(name, "work_mem");
    assert_string_equal(value, "64MB");
    assert_int_equal(prompt_split_setting("  appendfsync always ", name, sizeof(name), value,
                                          sizeof(value), err),
                     0);
    assert_string_equal(name, "appendfsync");
    assert_string_equal(value, "always");
    assert_int_equal(prompt_split_setting("save = ", name, sizeof(name), value, sizeof(value), err),
                     -1);
    assert_non_null(strstr(err, "NAME = VALUE"));
    assert_int_equal(prompt_split_setting("a b = c", name, sizeof(name), value, sizeof(value), err),
                     -1);
    prompt_open(&p, PROMPT_MARKER);
    type(&p, "batch 10");
    assert_int_equal(prompt_key(&p, 27), PROMPT_CANCELLED);
    assert_int_equal(p.kind, PROMPT_NONE);
}

static void
interval(struct segments *s, uint64_t us, uint64_t txns, double secs)
{
    struct hist *h = hist_new();

    for (uint64_t i = 0; i < txns; i++)
        hist_record(h, us);
    segments_add(s, h, txns, secs);
    hist_free(h);
}

static void
test_segments_before_and_since(void **state)
{
    (void)state;
    struct segments s;
    struct dash *d = xcalloc(1, sizeof(*d));

    segments_init(&s);
    interval(&s, 1000, 100, 1.0);
    segments_show(&s, d);
    assert_int_equal(d->nsegments, 0);
    interval(&s, 1000, 300, 1.0);
    segments_cut(&s, "synchronous_commit = off");
    interval(&s, 250, 600, 1.0);
    segments_show(&s, d);
    assert_int_equal(d->nsegments, 2);
    assert_string_equal(d->seg[0].label, "start");
    assert_string_equal(d->seg[1].label, "synchronous_commit = off");
    assert_true(d->seg[0].tps > 199.9 && d->seg[0].tps < 200.1); /* 400 in 2 s */
    assert_true(d->seg[1].tps > 599.9 && d->seg[1].tps < 600.1);
    assert_true(d->seg[0].lat.p50 >= 999 && d->seg[0].lat.p50 <= 1001);
    assert_true(d->seg[1].lat.p99 >= 249 && d->seg[1].lat.p99 <= 251);
    /* a second cut: since becomes before, and the new one starts empty */
    segments_cut(&s, "marker 2");
    segments_show(&s, d);
    assert_string_equal(d->seg[0].label, "synchronous_commit = off");
    assert_true(d->seg[0].lat.p50 >= 249 && d->seg[0].lat.p50 <= 251);
    assert_true(d->seg[1].tps == 0.0);
    segments_free(&s);
    free(d);
}

/* Two reads of the top statements 2 s apart: rates, means and shares of the interval. */
static void
test_statements_derive(void **state)
{
    struct coll_statements a = {.n = 2, .all_ms = 1000, .all_calls = 300};
    struct coll_statements b = {.n = 3, .all_ms = 1400, .all_calls = 520};

    a.s[0] = (struct coll_statement){.id = "1", .calls = 100, .total_ms = 800, .rows = 100};
    a.s[1] = (struct coll_statement){.id = "2", .calls = 200, .total_ms = 200, .rows = NAN};
    b.s[0] = (struct coll_statement){.id = "1", .calls = 110, .total_ms = 900, .rows = 110};
    b.s[1] = (struct coll_statement){.id = "2", .calls = 400, .total_ms = 500, .rows = NAN};
    b.s[2] = (struct coll_statement){.id = "3", .calls = 10, .total_ms = 1, .rows = 20};
    coll_statements_derive(NULL, &a, 0);
    assert_string_equal(a.s[0].id, "1"); /* most time since the reset first */
    assert_true(isnan(a.s[0].calls_s));
    assert_float_equal(a.s[0].share, 0.8, 1e-9);
    assert_float_equal(a.s[0].mean_ms, 8, 1e-9);
    assert_float_equal(a.s[0].rows_per_call, 1, 1e-9);
    coll_statements_derive(&a, &b, 2.0);
    assert_string_equal(b.s[0].id, "2"); /* 300 ms in the interval against 100 */
    assert_float_equal(b.s[0].calls_s, 100, 1e-9);
    assert_float_equal(b.s[0].mean_ms, 1.5, 1e-9);
    assert_float_equal(b.s[0].share, 0.75, 1e-9);
    assert_true(isnan(b.s[0].rows_per_call));
    assert_float_equal(b.s[1].share, 0.25, 1e-9);
    /* new since the last read: no interval figures, not a share of the interval */
    assert_string_equal(b.s[2].id, "3");
    assert_true(isnan(b.s[2].calls_s) && isnan(b.s[2].share));
    /* a reset between the reads (the totals went back): a first read again */
    a.all_ms = 5000;
    coll_statements_derive(&a, &b, 2.0);
    assert_true(isnan(b.s[0].calls_s));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diff_names_changes_only),
        cmocka_unit_test(test_statements_derive),
        cmocka_unit_test(test_memcached_settings_parse),
        cmocka_unit_test(test_prompt_edits_and_splits),
        cmocka_unit_test(test_segments_before_and_since),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
