/* Tests for script: pgbench's tpcb-like script, expressions, SQL scanning, every parse error. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rand.h"
#include "engine/script.h"
#include "base/util.h"

/* pgbench 15's built-in "tpcb-like" script, byte for byte (naccounts, nbranches, ntellers). */
static const char TPCB[] =
    "\\set aid random(1, 100000 * :scale)\n"
    "\\set bid random(1, 1 * :scale)\n"
    "\\set tid random(1, 10 * :scale)\n"
    "\\set delta random(-5000, 5000)\n"
    "BEGIN;\n"
    "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
    "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
    "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n"
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, "
    "CURRENT_TIMESTAMP);\n"
    "END;\n";

static const char *const PREDEF[] = {"scale", "client_id", NULL};

enum {
    V_SCALE,
    V_CLIENT,
    V_AID,
    V_BID,
    V_TID,
    V_DELTA,
};

static struct script *
parse_ok(const char *text, const char *const *predef)
{
    char err[BT_ERRLEN] = "";
    struct script *s = script_parse("t.sql", text, predef, err);

    if (s == NULL)
        fail_msg("unexpected parse error: %s", err);
    return s;
}

/* Parses text that must fail; checks the message is one line and contains each fragment. */
static void
expect_error(const char *text, const char *const *predef, const char *frag1, const char *frag2)
{
    char err[BT_ERRLEN] = "";
    struct script *s = script_parse("t.sql", text, predef, err);

    if (s != NULL) {
        script_free(s);
        fail_msg("parse of \"%s\" should have failed", text);
    }
    if (strncmp(err, "t.sql:", 6) != 0 || strchr(err, '\n') != NULL || strstr(err, frag1) == NULL ||
        (frag2 != NULL && strstr(err, frag2) == NULL))
        fail_msg("message \"%s\" lacks \"%s\" / \"%s\"", err, frag1, frag2 ? frag2 : "");
}

/* Parses "\set x EXPR" (plus a statement) with :a = 6, :b = -4 and returns x. */
static int64_t
eval_expr(const char *expr)
{
    static const char *const predef[] = {"a", "b", NULL};
    char text[256], err[BT_ERRLEN] = "";
    int64_t vars[SCRIPT_MAX_VARS] = {6, -4};
    struct rng r;
    struct script *s;

    snprintf(text, sizeof(text), "\\set x %s\nSELECT 1;\n", expr);
    s = parse_ok(text, predef);
    rng_seed(&r, 1);
    if (script_eval(&s->cmds[0], vars, &r, err) != 0)
        fail_msg("eval of %s: %s", expr, err);
    script_free(s);
    return vars[2];
}

static void
test_tpcb_structure(void **state)
{
    static const int kinds[] = {SCRIPT_SET, SCRIPT_SET, SCRIPT_SET, SCRIPT_SET,
                                SCRIPT_SQL, SCRIPT_SQL, SCRIPT_SQL, SCRIPT_SQL,
                                SCRIPT_SQL, SCRIPT_SQL, SCRIPT_SQL};
    struct script *s = parse_ok(TPCB, PREDEF);

    (void)state;
    assert_int_equal(s->ncmds, 11);
    for (int i = 0; i < 11; i++) {
        assert_int_equal(s->cmds[i].kind, kinds[i]);
        assert_int_equal(s->cmds[i].line, i + 1);
    }
    assert_int_equal(s->nvars, 6);
    assert_int_equal(script_var(s, "scale"), V_SCALE);
    assert_int_equal(script_var(s, "client_id"), V_CLIENT);
    assert_int_equal(script_var(s, "aid"), V_AID);
    assert_int_equal(script_var(s, "delta"), V_DELTA);
    assert_int_equal(script_var(s, "nope"), -1);
    assert_int_equal(s->cmds[0].var, V_AID);
    assert_int_equal(s->cmds[3].var, V_DELTA);
    assert_string_equal(s->cmds[4].sql, "BEGIN");
    assert_int_equal(s->cmds[4].nparams, 0);
    assert_string_equal(s->cmds[10].sql, "END");
    assert_string_equal(s->name, "t.sql");
    script_free(s);
}

static void
test_tpcb_params(void **state)
{
    struct script *s = parse_ok(TPCB, PREDEF);
    const struct script_cmd *upd = &s->cmds[5], *sel = &s->cmds[6], *ins = &s->cmds[9];

    (void)state;
    assert_string_equal(
        upd->sql, "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid");
    assert_string_equal(upd->sql_params,
                        "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2");
    assert_int_equal(upd->nparams, 2);
    assert_int_equal(upd->param_var[0], V_DELTA);
    assert_int_equal(upd->param_var[1], V_AID);
    assert_string_equal(sel->sql_params, "SELECT abalance FROM pgbench_accounts WHERE aid = $1");
    assert_int_equal(sel->nparams, 1);
    assert_int_equal(sel->param_var[0], V_AID);
    assert_string_equal(ins->sql_params,
                        "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
                        "VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)");
    assert_int_equal(ins->nparams, 4);
    assert_int_equal(ins->param_var[0], V_TID);
    assert_int_equal(ins->param_var[1], V_BID);
    assert_int_equal(ins->param_var[2], V_AID);
    assert_int_equal(ins->param_var[3], V_DELTA);
    script_free(s);
}

static void
test_tpcb_render(void **state)
{
    struct script *s = parse_ok(TPCB, PREDEF);
    int64_t vars[SCRIPT_MAX_VARS] = {
        [V_SCALE] = 1, [V_AID] = 123, [V_BID] = 1, [V_TID] = 7, [V_DELTA] = -42};
    const char *want = "UPDATE pgbench_accounts SET abalance = abalance + -42 WHERE aid = 123";
    char buf[512];
    int rc;

    (void)state;
    assert_int_equal(script_render(&s->cmds[5], vars, buf, sizeof(buf)), (int)strlen(want));
    assert_string_equal(buf, want);
    rc = script_render(&s->cmds[9], vars, buf, sizeof(buf));
    assert_int_equal(rc, (int)strlen(buf));
    assert_string_equal(buf, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
                             "VALUES (7, 1, 123, -42, CURRENT_TIMESTAMP)");
    assert_int_equal(script_render(&s->cmds[4], vars, buf, sizeof(buf)), 5);
    assert_string_equal(buf, "BEGIN");
    script_free(s);
}

static void
test_tpcb_eval_ranges(void **state)
{
    struct script *s = parse_ok(TPCB, PREDEF);
    int64_t vars[SCRIPT_MAX_VARS] = {[V_SCALE] = 3};
    int64_t aid_min = INT64_MAX, aid_max = INT64_MIN, bid_seen[5] = {0};
    char err[BT_ERRLEN];
    struct rng r;

    (void)state;
    rng_seed(&r, 42);
    for (int n = 0; n < 20000; n++) {
        for (int i = 0; i < 4; i++)
            assert_int_equal(script_eval(&s->cmds[i], vars, &r, err), 0);
        assert_true(vars[V_AID] >= 1 && vars[V_AID] <= 300000);
        assert_true(vars[V_BID] >= 1 && vars[V_BID] <= 3);
        assert_true(vars[V_TID] >= 1 && vars[V_TID] <= 30);
        assert_true(vars[V_DELTA] >= -5000 && vars[V_DELTA] <= 5000);
        aid_min = vars[V_AID] < aid_min ? vars[V_AID] : aid_min;
        aid_max = vars[V_AID] > aid_max ? vars[V_AID] : aid_max;
        bid_seen[vars[V_BID]]++;
    }
    /* :scale really multiplies: with scale 1 aid could never exceed 100000. */
    assert_true(aid_max > 200000);
    assert_true(aid_min < 100000);
    assert_int_equal(bid_seen[0], 0);
    assert_true(bid_seen[1] > 0 && bid_seen[2] > 0 && bid_seen[3] > 0);
    script_free(s);
}

static void
test_random_covers_both_ends(void **state)
{
    struct script *s = parse_ok("\\set x random(1, 3)\n\\set y random(-2, -2)\nSELECT 1;\n", NULL);
    int64_t vars[SCRIPT_MAX_VARS] = {0};
    int seen[3] = {0};
    char err[BT_ERRLEN];
    struct rng r;

    (void)state;
    rng_seed(&r, 7);
    for (int n = 0; n < 3000; n++) {
        assert_int_equal(script_eval(&s->cmds[0], vars, &r, err), 0);
        assert_true(vars[0] >= 1 && vars[0] <= 3);
        seen[vars[0] - 1]++;
        assert_int_equal(script_eval(&s->cmds[1], vars, &r, err), 0);
        assert_int_equal(vars[1], -2);
    }
    assert_true(seen[0] > 800 && seen[1] > 800 && seen[2] > 800);
    script_free(s);
}

static void
test_arithmetic(void **state)
{
    (void)state;
    /* C semantics: 10/3 = 3, 3%2 = 1, so 2 + 12 - 1. */
    assert_int_equal(eval_expr("2+3*4-10/3%2"), 13);
    assert_int_equal(eval_expr("(2 + 3) * 4"), 20);
    assert_int_equal(eval_expr("2 + 3 * 4"), 14);
    assert_int_equal(eval_expr("100 - 10 - 1"), 89); /* left associative */
    assert_int_equal(eval_expr("100 / 10 / 5"), 2);
    assert_int_equal(eval_expr("-(2 + 3) * 4"), -20);
    assert_int_equal(eval_expr("- -7"), 7);
    assert_int_equal(eval_expr("+5 - -5"), 10);
    assert_int_equal(eval_expr("-7 / 2"), -3); /* truncates toward zero */
    assert_int_equal(eval_expr("-7 % 3"), -1);
    assert_int_equal(eval_expr("7 % -3"), 1);
    assert_int_equal(eval_expr(":a * 2 + :b"), 8);
    assert_int_equal(eval_expr("(:a - :b) * (:a + :b)"), 20);
    assert_int_equal(eval_expr("random(:a, :a) * 10"), 60);
    assert_int_equal(eval_expr("((((1))))"), 1);
    assert_int_equal(eval_expr("9223372036854775807"), INT64_MAX);
}

/* Evaluates "\set x EXPR" that must fail at run time with a message naming file and line. */
static void
expect_eval_error(const char *expr, const char *frag)
{
    char text[256], err[BT_ERRLEN] = "";
    int64_t vars[SCRIPT_MAX_VARS] = {0};
    struct rng r;
    struct script *s;

    snprintf(text, sizeof(text), "SELECT 1;\n\\set x %s\nSELECT 2;\n", expr);
    s = parse_ok(text, NULL);
    rng_seed(&r, 1);
    if (script_eval(&s->cmds[1], vars, &r, err) != -1)
        fail_msg("eval of %s should have failed, gave %lld", expr, (long long)vars[0]);
    script_free(s);
    if (strstr(err, "t.sql:2: \\set x: ") != err || strstr(err, frag) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err, frag);
}

static void
test_overflow_is_an_error(void **state)
{
    (void)state;
    expect_eval_error("9223372036854775807 + 1", "bigint out of range");
    expect_eval_error("-9223372036854775807 - 2", "bigint out of range");
    expect_eval_error("(-9223372036854775807 - 1) / -1", "bigint out of range");
    expect_eval_error("-(-9223372036854775807 - 1)", "bigint out of range");
    expect_eval_error("4611686018427387904 * 2", "bigint out of range");
    expect_eval_error("-9223372036854775808 * -1", "bigint out of range");
    assert_int_equal(eval_expr("(-9223372036854775807 - 1) % -1"), 0);
    assert_true(eval_expr("-9223372036854775808") == INT64_MIN);
    assert_true(eval_expr("-9223372036854775808 + 1") == INT64_MIN + 1);
    assert_true(eval_expr("9223372036854775807 - 1 + 1") == INT64_MAX);
    assert_int_equal(eval_expr("-3 / -1"), 3);
    expect_error("\\set x 9223372036854775808\n", NULL, "t.sql:1: ", "too large");
    expect_error("\\set x 1 - 9223372036854775808\n", NULL, "t.sql:1: ", "too large");
}

static void
test_eval_runtime_errors(void **state)
{
    struct script *s = parse_ok("\\set z 0\n\\set x 10 / :z\n\\set y 10 % :z\n"
                                "\\set r random(5, 1)\nSELECT 1;\n",
                                NULL);
    int64_t vars[SCRIPT_MAX_VARS] = {0};
    char err[BT_ERRLEN];
    struct rng r;

    (void)state;
    rng_seed(&r, 1);
    assert_int_equal(script_eval(&s->cmds[0], vars, &r, err), 0);
    assert_int_equal(script_eval(&s->cmds[1], vars, &r, err), -1);
    assert_non_null(strstr(err, "t.sql:2: \\set x: division by zero"));
    assert_int_equal(script_eval(&s->cmds[2], vars, &r, err), -1);
    assert_non_null(strstr(err, "t.sql:3: \\set y: modulo by zero"));
    assert_int_equal(script_eval(&s->cmds[3], vars, &r, err), -1);
    assert_non_null(strstr(err, "t.sql:4: \\set r: random(5, 1) has lo > hi"));
    script_free(s);
}

static void
test_same_var_same_param(void **state)
{
    static const char *const predef[] = {"a", "b", NULL};
    struct script *s = parse_ok("SELECT :a, :b, :a + :b, :a;\n", predef);

    (void)state;
    assert_string_equal(s->cmds[0].sql_params, "SELECT $1, $2, $1 + $2, $1");
    assert_int_equal(s->cmds[0].nparams, 2);
    assert_int_equal(s->cmds[0].param_var[0], 0);
    assert_int_equal(s->cmds[0].param_var[1], 1);
    script_free(s);
}

static void
test_casts_left_alone(void **state)
{
    static const char *const predef[] = {"a", NULL};
    struct script *s = parse_ok("SELECT :a::int, '5'::bigint, x::text;\n", predef);
    int64_t vars[1] = {9};
    char buf[128];

    (void)state;
    assert_string_equal(s->cmds[0].sql_params, "SELECT $1::int, '5'::bigint, x::text");
    assert_int_equal(s->cmds[0].nparams, 1);
    assert_true(script_render(&s->cmds[0], vars, buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "SELECT 9::int, '5'::bigint, x::text");
    script_free(s);
}

static void
test_quotes(void **state)
{
    static const char *const predef[] = {"a", NULL};
    struct script *s = parse_ok("SELECT ';' AS semi, ':a' AS lit, 'it''s -- no comment', :a;\n"
                                "SELECT 'x;\n"
                                "  y  ' AS v;\n"
                                "SELECT 2;\n",
                                predef);

    (void)state;
    assert_int_equal(s->ncmds, 3);
    assert_string_equal(s->cmds[0].sql,
                        "SELECT ';' AS semi, ':a' AS lit, 'it''s -- no comment', :a");
    assert_string_equal(s->cmds[0].sql_params,
                        "SELECT ';' AS semi, ':a' AS lit, 'it''s -- no comment', $1");
    assert_int_equal(s->cmds[0].nparams, 1);
    /* A ';' ending a line inside quotes does not end the statement; quoted spaces stay. */
    assert_string_equal(s->cmds[1].sql, "SELECT 'x;\n  y  ' AS v");
    assert_int_equal(s->cmds[1].line, 2);
    assert_string_equal(s->cmds[2].sql, "SELECT 2");
    assert_int_equal(s->cmds[2].line, 4);
    script_free(s);
}

static void
test_multiline_and_comments(void **state)
{
    static const char *const predef[] = {"a", NULL};
    struct script *s = parse_ok("-- leading comment\n"
                                "\n"
                                "  SELECT a,   \n"
                                "         b -- trailing comment\n"
                                "\n"
                                "    FROM t\n"
                                "   WHERE x = :a;   -- done\n"
                                "   \t\n"
                                "-- only a comment\n"
                                "  \\set n :a * 2 -- why\n"
                                "SELECT :n;\r\n",
                                predef);
    int64_t vars[SCRIPT_MAX_VARS] = {5};
    char err[BT_ERRLEN], buf[64];
    struct rng r;

    (void)state;
    rng_seed(&r, 1);
    assert_int_equal(s->ncmds, 3);
    assert_int_equal(s->cmds[0].line, 3);
    assert_string_equal(s->cmds[0].sql, "SELECT a,\n         b\n    FROM t\n   WHERE x = :a");
    assert_string_equal(s->cmds[0].sql_params,
                        "SELECT a,\n         b\n    FROM t\n   WHERE x = $1");
    assert_int_equal(s->cmds[1].kind, SCRIPT_SET);
    assert_int_equal(s->cmds[1].line, 10);
    assert_int_equal(s->cmds[2].line, 11);
    assert_string_equal(s->cmds[2].sql, "SELECT :n");
    assert_int_equal(script_eval(&s->cmds[1], vars, &r, err), 0);
    assert_int_equal(vars[1], 10);
    assert_int_equal(script_render(&s->cmds[2], vars, buf, sizeof(buf)), 9);
    assert_string_equal(buf, "SELECT 10");
    script_free(s);
}

static void
test_render_buffer_size(void **state)
{
    static const char *const predef[] = {"a", NULL};
    struct script *s = parse_ok("SELECT :a;\nSELECT 1-:a;\n", predef);
    int64_t vars[1] = {12345};
    char buf[64];

    (void)state;
    assert_int_equal(script_render(&s->cmds[0], vars, buf, 13), 12);
    assert_string_equal(buf, "SELECT 12345");
    assert_int_equal(script_render(&s->cmds[0], vars, buf, 12), -1); /* no room for the NUL */
    assert_int_equal(script_render(&s->cmds[0], vars, buf, 9), -1);  /* cut inside the value */
    assert_int_equal(script_render(&s->cmds[0], vars, buf, 3), -1);  /* cut inside the text */
    assert_int_equal(script_render(&s->cmds[0], vars, buf, 0), -1);
    /* "1--5" would start a SQL comment. */
    vars[0] = -5;
    assert_int_equal(script_render(&s->cmds[1], vars, buf, sizeof(buf)), 12);
    assert_string_equal(buf, "SELECT 1- -5");
    vars[0] = INT64_MIN;
    assert_true(script_render(&s->cmds[0], vars, buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "SELECT -9223372036854775808");
    script_free(s);
}

static void
test_error_meta_commands(void **state)
{
    (void)state;
    expect_error("SELECT 1;\n\\sleep 10 ms\n", NULL,
                 "t.sql:2: ", "unknown meta command '\\sleep' (only \\set is supported)");
    expect_error("\\setshell x echo 1\n", NULL, "t.sql:1: ", "unknown meta command '\\setshell'");
    expect_error("SELECT 1;\n\\set\n", NULL,
                 "t.sql:2: ", "\\set needs a variable name and an expression");
    expect_error("\\set x\nSELECT 1;\n", NULL, "t.sql:1: ", "\\set needs a variable name");
    expect_error("\\set x   -- comment only\nSELECT 1;\n", NULL, "t.sql:1: ", "\\set needs");
    expect_error("\\set :x 1\nSELECT 1;\n", NULL, "t.sql:1: ", "\\set name EXPR");
}

static void
test_error_bad_expressions(void **state)
{
    (void)state;
    expect_error("SELECT 1;\n\\set x random(1,\n", NULL,
                 "t.sql:2: \\set x: ", "ends too early at column 17");
    expect_error("\\set x 1 +\n", NULL, "t.sql:1: \\set x: ", "ends too early at column 11");
    expect_error("\\set x (1\n", NULL,
                 "t.sql:1: \\set x: ", "expected ')' at column 10 but found the end of the line");
    expect_error("\\set x 3 $ 4\n", NULL,
                 "t.sql:1: \\set x: ", "unexpected character '$' at column 10");
    expect_error("\\set x 1 2\n", NULL, "t.sql:1: ", "unexpected '2' at column 10");
    expect_error("\\set x 1)\n", NULL, "t.sql:1: ", "unexpected ')' at column 9");
    expect_error("\\set x * 2\n", NULL, "t.sql:1: ", "unexpected '*' at column 8");
    expect_error("\\set x random(1)\n", NULL, "t.sql:1: ", "expected ',' at column 16");
    expect_error("\\set x random(1, 2, 3)\n", NULL, "t.sql:1: ", "expected ')' at column 19");
    expect_error("\\set x 99999999999999999999\n", NULL, "t.sql:1: ", "too large");
    expect_error("\\set x 1 + :\n", NULL, "t.sql:1: ", "':' at column 12");
    expect_error(
        "\\set x "
        "((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))\n",
        NULL, "t.sql:1: ", "nests too deeply");
}

static void
test_error_functions_and_names(void **state)
{
    (void)state;
    expect_error("\\set x rnd(1, 2)\nSELECT 1;\n", NULL,
                 "t.sql:1: ", "unknown function 'rnd' at column 8 (use random(lo, hi))");
    expect_error("\\set n 5\n\\set x n + 1\n", NULL, "t.sql:2: ", "(write ':n' to use a variable)");
}

static void
test_error_undefined_variables(void **state)
{
    (void)state;
    expect_error("\\set x :y + 1\nSELECT 1;\n", PREDEF,
                 "t.sql:1: ", "variable 'y' is used but never set (add '\\set y ...' before it)");
    /* The target is not set until its expression has been evaluated. */
    expect_error("\\set x :x + 1\n", NULL, "t.sql:1: ", "variable 'x' is used but never set");
    /* Reported on the line of the reference, not the statement's first line. */
    expect_error("SELECT 1;\nSELECT a\n  FROM t\n WHERE id = :nope;\n", PREDEF,
                 "t.sql:4: ", "variable 'nope' is used but never set");
    /* Set later in the script does not count. */
    expect_error("SELECT :x;\n\\set x 1\n", NULL, "t.sql:1: ", "variable 'x'");
}

static void
test_error_statement_structure(void **state)
{
    (void)state;
    expect_error("SELECT 1;\nSELECT 2\n  FROM t\n", NULL,
                 "t.sql:3: ", "statement starting on line 2 has no ending ';'");
    expect_error("SELECT 2 -- no semicolon; here\n\\set x 1\nSELECT 1;\n", NULL,
                 "t.sql:1: ", "has no ending ';'");
    expect_error("SELECT 1;\nSELECT 'abc;\nSELECT 3;\n", NULL,
                 "t.sql:2: ", "quoted string is never closed");
    expect_error("", NULL, "t.sql:1: ", "script has no commands");
    expect_error("-- nothing here\n\n   \n", NULL, "t.sql:1: ", "script has no commands");
}

static void
test_error_too_many_variables(void **state)
{
    char text[4096], *p = text;
    struct script *s;

    (void)state;
    /* 2 predefined + 62 set = 64, the maximum. */
    for (int i = 1; i <= 62; i++)
        p += sprintf(p, "\\set v%d %d\n", i, i);
    p += sprintf(p, "SELECT :v62;\n");
    s = parse_ok(text, PREDEF);
    assert_int_equal(s->nvars, SCRIPT_MAX_VARS);
    assert_int_equal(script_var(s, "v62"), 63);
    script_free(s);
    sprintf(p, "\\set v63 1\n");
    expect_error(text, PREDEF,
                 "t.sql:64: ", "too many variables: 'v63' would be number 65 (at most 64");
}

static void
test_error_too_many_params(void **state)
{
    char text[4096], *p = text;
    struct script *s;
    size_t len;

    (void)state;
    for (int i = 1; i <= 33; i++)
        p += sprintf(p, "\\set v%d %d\n", i, i);
    p += sprintf(p, "SELECT :v1");
    for (int i = 2; i <= 32; i++)
        p += sprintf(p, ", :v%d", i);
    strcpy(p, ", :v1;\n");
    s = parse_ok(text, NULL);
    assert_int_equal(s->cmds[33].nparams, SCRIPT_MAX_PARAMS);
    len = strlen(s->cmds[33].sql_params);
    assert_string_equal(s->cmds[33].sql_params + len - 7, "$32, $1");
    script_free(s);
    strcpy(p, ",\n :v33;\n");
    expect_error(text, NULL, "t.sql:35: ", "more than 32 different variables");
}

static void
test_load(void **state)
{
    char path[] = "/tmp/test_script_XXXXXX", err[BT_ERRLEN];
    int fd = mkstemp(path);
    struct script *s;

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, TPCB, strlen(TPCB)), (ssize_t)strlen(TPCB));
    close(fd);
    s = script_load(path, PREDEF, 0, err);
    unlink(path);
    assert_non_null(s);
    assert_string_equal(s->name, path);
    assert_int_equal(s->ncmds, 11);
    script_free(s);

    assert_null(script_load("/nonexistent/benchtop/x.sql", PREDEF, 0, err));
    assert_string_equal(err, "cannot read script /nonexistent/benchtop/x.sql: No such file or "
                             "directory (check the path given to -f)");
    assert_null(script_load("/tmp", PREDEF, 0, err));
    assert_string_equal(err,
                        "cannot read script /tmp: Is a directory (check the path given to -f)");
}

static void
test_load_caps(void **state)
{
    char err[BT_ERRLEN], path[] = "/tmp/test_script_XXXXXX", want[160];
    const char nul[] = "SELECT 1;\n\0SELECT 2;\n";
    char *line = malloc(SCRIPT_MAX_LINE + 16);
    int fd;

    (void)state;
    assert_null(script_load("/dev/zero", PREDEF, 0, err));
    assert_string_equal(err,
                        "script /dev/zero is larger than 4194304 bytes (give -f a script file)");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, nul, sizeof(nul) - 1), (ssize_t)sizeof(nul) - 1);
    close(fd);
    assert_null(script_load(path, PREDEF, 0, err));
    unlink(path);
    snprintf(want, sizeof(want), "script %s contains a NUL byte (give -f a text file)", path);
    assert_string_equal(err, want);

    memset(line, 'x', SCRIPT_MAX_LINE + 1);
    memcpy(line + SCRIPT_MAX_LINE + 1, ";\n", 3);
    assert_null(script_parse("t.sql", line, NULL, err));
    assert_string_equal(err,
                        "t.sql:1: line is longer than 1048576 bytes (split it over several lines)");
    free(line);
}

static void
test_load_parse_error_names_file(void **state)
{
    char path[] = "/tmp/test_script_XXXXXX", err[BT_ERRLEN], want[128];
    const char *text = "SELECT 1;\n\n\\set x rnd(1, 2)\n";
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_null(script_load(path, PREDEF, 0, err));
    unlink(path);
    snprintf(want, sizeof(want), "%s:3: \\set x: unknown function 'rnd'", path);
    assert_non_null(strstr(err, want));
}

/* Command lines (Redis): a line is a command, ':name' is a reference even after ':'. */
static void
test_lines(void **state)
{
    static const char *const predef[] = {"client_id", NULL};
    char err[BT_ERRLEN] = "", buf[128];
    int64_t vars[SCRIPT_MAX_VARS] = {0};
    struct script *s = script_parse_lines("t.txt",
                                          "# a comment\n"
                                          "\\set id 7 + :client_id\n"
                                          "\n"
                                          "  INCR counter::id  \n"
                                          "SET 'k:id' v--x\n",
                                          predef, err);
    struct rng r;

    (void)state;
    if (s == NULL)
        fail_msg("%s", err);
    assert_int_equal(s->ncmds, 3);
    assert_int_equal(s->cmds[1].kind, SCRIPT_SQL);
    assert_int_equal(s->cmds[1].line, 4);
    assert_string_equal(s->cmds[1].sql, "INCR counter::id");
    vars[0] = 3;
    rng_seed(&r, 1);
    assert_int_equal(script_eval(&s->cmds[0], vars, &r, err), 0);
    assert_int_equal(script_render(&s->cmds[1], vars, buf, sizeof buf), 15);
    assert_string_equal(buf, "INCR counter:10");
    /* quotes are data (':id' in them is a reference) and "--" is no comment */
    assert_int_equal(script_render(&s->cmds[2], vars, buf, sizeof buf), 14);
    assert_string_equal(buf, "SET 'k10' v--x");
    script_free(s);
    assert_null(script_parse_lines("t.txt", "# nothing\n\n", predef, err));
    assert_non_null(strstr(err, "t.txt:1: script has no commands"));
    assert_null(script_parse_lines("t.txt", "GET a\nGET :b\n", predef, err));
    assert_non_null(strstr(err, "t.txt:2: variable 'b' is used but never set"));
}

/* MySQL's placeholders: one '?' per reference, in order, a variable used twice twice. */
static void
test_marks(void **state)
{
    struct script *s = parse_ok("\\set a 1\n\\set b 2\n"
                                "SELECT :a, :b::int, ':a', :a;\n",
                                PREDEF);
    int vars[8];
    char *marks;

    (void)state;
    marks = script_sql_marks(&s->cmds[2]);
    assert_string_equal(marks, "SELECT ?, ?::int, ':a', ?");
    assert_int_equal(script_ref_vars(&s->cmds[2], vars, 8), 3);
    assert_int_equal(vars[0], script_var(s, "a"));
    assert_int_equal(vars[1], script_var(s, "b"));
    assert_int_equal(vars[2], script_var(s, "a"));
    assert_int_equal(script_ref_vars(&s->cmds[2], vars, 2), -1);
    free(marks);
    script_free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tpcb_structure),
        cmocka_unit_test(test_tpcb_params),
        cmocka_unit_test(test_tpcb_render),
        cmocka_unit_test(test_tpcb_eval_ranges),
        cmocka_unit_test(test_random_covers_both_ends),
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_overflow_is_an_error),
        cmocka_unit_test(test_eval_runtime_errors),
        cmocka_unit_test(test_same_var_same_param),
        cmocka_unit_test(test_casts_left_alone),
        cmocka_unit_test(test_quotes),
        cmocka_unit_test(test_multiline_and_comments),
        cmocka_unit_test(test_render_buffer_size),
        cmocka_unit_test(test_error_meta_commands),
        cmocka_unit_test(test_error_bad_expressions),
        cmocka_unit_test(test_error_functions_and_names),
        cmocka_unit_test(test_error_undefined_variables),
        cmocka_unit_test(test_error_statement_structure),
        cmocka_unit_test(test_error_too_many_variables),
        cmocka_unit_test(test_error_too_many_params),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_load_parse_error_names_file),
        cmocka_unit_test(test_load_caps),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_marks),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
