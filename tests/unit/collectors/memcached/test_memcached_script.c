/*
 * Tests for memcached-script: commands checked at parse (name, argument
 * count), a script written as text-protocol requests, and each command's
 * reply taken element by element, refusals and misses told apart.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/skip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_MEMCACHED

#include "collectors/memcached/memcached.h"
#include "base/util.h"

static struct script *
lines(const char *text)
{
    char err[BT_ERRLEN];
    struct script *s = script_parse_lines("m.txt", text, mc_script_predef, err);

    if (s == NULL)
        fail_msg("%s", err);
    return s;
}

static void
test_compile_errors(void **state)
{
    static const char *const bad[][2] = {
        {"gets a\n", "m.txt:1: unknown command 'gets'"},
        {"get a\nset k\n", "m.txt:2: set takes 2 arguments, not 1 (set KEY VALUE)"},
        {"delete a b\n", "m.txt:1: delete takes 1 argument, not 2 (get KEY)"},
        {"\\set x 1\n", "m.txt has no command"},
    };
    char err[BT_ERRLEN];
    struct mc_script ms;

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct script *s = lines(bad[i][0]);
        assert_int_equal(mc_script_compile(&ms, s, err), -1);
        if (strstr(err, bad[i][1]) == NULL)
            fail_msg("'%s': got '%s'", bad[i][0], err);
        mc_script_free(&ms);
        script_free(s);
    }
}

static void
test_render(void **state)
{
    struct script *s = lines("\\set id 4\nincr c::id 2\nset k:client_id v::id\nget c::id\n"
                             "decr c::id 1\ndelete c::id\n");
    int64_t vars[SCRIPT_MAX_VARS] = {[0] = 7, [1] = 100};
    static const char want[] = "incr c:4 2\r\nset k7 0 0 3\r\nv:4\r\n"
                               "get c:4\r\ndecr c:4 1\r\ndelete c:4\r\n";
    char err[BT_ERRLEN], *line, *out;
    struct mc_script ms;
    struct rng r;
    long n;

    (void)state;
    assert_int_equal(mc_script_compile(&ms, s, err), 0);
    assert_int_equal(ms.ncmds, 5);
    line = malloc(ms.line);
    out = malloc(ms.request);
    rng_seed(&r, 1);
    n = mc_script_render(&ms, vars, &r, line, ms.line, out, err);
    assert_int_equal(n, (long)strlen(want));
    assert_true((size_t)n <= ms.request);
    assert_memory_equal(out, want, strlen(want));
    free(line);
    free(out);
    mc_script_free(&ms);
    script_free(s);
}

/* Feeds text to a command of op; returns its state after the bytes it took (all of them). */
static struct mc_sop_state
feed_all(enum mc_sop op, const char *text)
{
    struct mc_sop_state st = {0};
    size_t pos = 0, len = strlen(text), need;
    char err[BT_ERRLEN];

    while (pos < len) {
        ssize_t n = mc_script_feed(op, text + pos, len - pos, &st, &need, err);
        if (n <= 0)
            fail_msg("'%s' at %zu: %zd %s", text, pos, n, n < 0 ? err : "");
        pos += (size_t)n;
    }
    return st;
}

static void
test_replies(void **state)
{
    struct mc_sop_state st;
    char err[BT_ERRLEN];
    size_t need;

    (void)state;
    st = feed_all(MC_SOP_GET, "VALUE a 0 1\r\nx\r\nEND\r\n");
    assert_true(st.done && !st.failed);
    st = feed_all(MC_SOP_GET, "END\r\n"); /* a miss */
    assert_true(st.done && !st.failed);
    st = feed_all(MC_SOP_INCR, "12\r\n");
    assert_true(st.done && !st.failed);
    st = feed_all(MC_SOP_INCR, "NOT_FOUND\r\n");
    assert_true(st.done && st.failed);
    assert_string_equal(st.msg, "NOT_FOUND");
    st = feed_all(MC_SOP_DELETE, "NOT_FOUND\r\n");
    assert_true(st.done && !st.failed);
    st = feed_all(MC_SOP_DELETE, "DELETED\r\n");
    assert_true(st.done && !st.failed);
    st = feed_all(MC_SOP_SET, "SERVER_ERROR out of memory\r\n");
    assert_true(st.done && st.failed);
    assert_string_equal(st.msg, "SERVER_ERROR out of memory");
    /* incomplete, then out of step */
    assert_int_equal(mc_script_feed(MC_SOP_INCR, "12", 2, &st, &need, err), 0);
    assert_int_equal(mc_script_feed(MC_SOP_SET, "DELETED\r\n", 9, &st, &need, err), -1);
    assert_non_null(strstr(err, "scripted set"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_errors),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_replies),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int
main(void)
{
    test_skip_program("the memcached backend is not built");
    return 0;
}

#endif
