/*
 * Tests for mix: -b/-w/-f entries and their weights, every refusal, the
 * per-transaction draw (a mix of one draws nothing; a 3:1 mix over 10^5
 * draws lands within 2%), the label, and -r's statement labels.
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

#include "engine/mix.h"
#include "engine/runconf.h"
#include "base/util.h"

static const char *const WORKLOADS[] = {"get", "set", "incr", NULL};

static int
parse(struct mix *m, const char *builtin, const char *workload, const char *files, char *err)
{
    struct runconf rc = {
        .builtin = (char *)builtin, .workload = (char *)workload, .script_file = (char *)files};

    return mix_parse(m, &rc, "redis", WORKLOADS, err);
}

static void
test_entries_and_weights(void **state)
{
    char err[BT_ERRLEN] = "", label[256];
    struct mix m;

    (void)state;
    assert_int_equal(parse(&m, "get@9\nset", "incr@0", "a@b.sql\nx.sql@3", err), 0);
    assert_int_equal(m.n, 5);
    assert_string_equal(m.e[0].name, "get");
    assert_int_equal(m.e[0].builtin, 0);
    assert_int_equal(m.e[0].weight, 9);
    assert_int_equal(m.e[1].weight, 1); /* no @: weight 1 */
    assert_int_equal(m.e[2].builtin, 2);
    assert_int_equal(m.e[2].weight, 0);
    assert_string_equal(m.e[3].name, "a@b.sql"); /* not a number after '@': part of the name */
    assert_int_equal(m.e[3].builtin, -1);
    assert_string_equal(m.e[4].name, "x.sql");
    assert_int_equal(m.e[4].weight, 3);
    assert_int_equal(m.total, 14);
    assert_false(mix_files_only(&m));
    mix_label(&m, label, sizeof label);
    assert_string_equal(label, "get@9,set@1,incr@0,a@b.sql@1,x.sql@3");
    mix_free(&m);

    /* nothing given: the driver's default, alone, named as it is */
    assert_int_equal(parse(&m, NULL, NULL, NULL, err), 0);
    assert_int_equal(m.n, 1);
    mix_label(&m, label, sizeof label);
    assert_string_equal(label, "get");
    mix_free(&m);
    assert_int_equal(parse(&m, NULL, NULL, "only.sql", err), 0);
    assert_true(mix_files_only(&m));
    mix_free(&m);
}

static void
test_refusals(void **state)
{
    char err[BT_ERRLEN] = "", many[MIX_MAX * 4 + 8] = "";
    struct mix m;

    (void)state;
    assert_int_equal(parse(&m, "scan@2", NULL, NULL, err), -1);
    assert_string_equal(err, "unknown workload 'scan' for redis (use -w get, set or incr)");
    assert_int_equal(parse(&m, NULL, NULL, "a.sql@0\nb.sql@0", err), -1);
    assert_non_null(strstr(err, "every weight in the mix is 0"));
    assert_int_equal(parse(&m, "get@1000001", NULL, NULL, err), -1);
    assert_non_null(strstr(err, "larger than 1000000"));
    assert_int_equal(parse(&m, "get@99999999999999999999999", NULL, NULL, err), -1);
    assert_non_null(strstr(err, "larger than 1000000"));
    assert_int_equal(parse(&m, NULL, NULL, "@3", err), -1);
    assert_non_null(strstr(err, "'@3' names no file"));
    for (int i = 0; i <= MIX_MAX; i++)
        strcat(many, i ? "\nget" : "get");
    assert_int_equal(parse(&m, many, NULL, NULL, err), -1);
    assert_non_null(strstr(err, "more than 32"));
}

/* A 3:1:0 mix over 10^5 draws: within 2% of the weights; weight 0 never drawn. */
static void
test_pick(void **state)
{
    char err[BT_ERRLEN] = "";
    struct mix m;
    struct rng r, before;
    long n[3] = {0, 0, 0};

    (void)state;
    rng_seed(&r, 42);
    assert_int_equal(parse(&m, "get@3\nset@1\nincr@0", NULL, NULL, err), 0);
    for (int i = 0; i < 100000; i++)
        n[mix_pick(&m, &r)]++;
    assert_true(fabs(n[0] / 1e5 - 0.75) / 0.75 < 0.02);
    assert_true(fabs(n[1] / 1e5 - 0.25) / 0.25 < 0.02);
    assert_int_equal(n[2], 0);
    mix_free(&m);

    /* one entry: no draw, so the script's own sequence is what it was without a mix */
    assert_int_equal(parse(&m, NULL, "set", NULL, err), 0);
    before = r;
    assert_int_equal(mix_pick(&m, &r), 0);
    assert_int_equal(rng_next(&r), rng_next(&before));
    mix_free(&m);
}

/* Files load with the entry's syntax; -r labels skip \set lines and follow first[]. */
static void
test_load_and_labels(void **state)
{
    static const char *const predef[] = {"client_id", NULL};
    static const char *const text[] = {"GET k\n", NULL, NULL};
    char path[] = "/tmp/test-mix-XXXXXX", err[BT_ERRLEN] = "";
    const char body[] = "\\set x 1\nINCR a::x\nGET b\n";
    int fd = mkstemp(path), first[3] = {0, 0, 1}, ids[8];
    struct stmt_label *labels;
    struct mix m;

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, body, strlen(body)), (ssize_t)strlen(body));
    close(fd);
    assert_int_equal(parse(&m, "get\nset", NULL, path, err), 0);
    assert_int_equal(mix_load(&m, text, predef, 1, err), 0);
    assert_non_null(m.e[0].script); /* a built-in with a text */
    assert_null(m.e[1].script);     /* one without: the driver runs it by index */
    assert_int_equal(m.e[2].script->ncmds, 3);
    assert_int_equal(mix_stmt_labels(&m, first, ids, &labels), 3);
    /* entry 0's command 0 at ids[0]; entry 2's commands at ids[1..3] */
    assert_int_equal(ids[0], 0);
    assert_int_equal(ids[1], -1); /* \set */
    assert_int_equal(ids[2], 1);
    assert_int_equal(ids[3], 2);
    assert_string_equal(labels[1].text, "INCR a::x");
    assert_int_equal(labels[1].line, 2);
    assert_string_equal(labels[1].script, path);
    free(labels);
    mix_free(&m);
    unlink(path);

    /* a file that fails to parse names itself and its line */
    assert_int_equal(parse(&m, NULL, NULL, "/nonexistent/x.txt", err), 0);
    assert_int_equal(mix_load(&m, NULL, predef, 1, err), -1);
    assert_non_null(strstr(err, "cannot read script /nonexistent/x.txt"));
    mix_free(&m);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_and_weights),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_load_and_labels),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
