/*
 * Tests for redis-script: a command line's words as RESP, a whole script
 * rendered (its \set lines run, its commands counted), and the sizes
 * redis_script_longest promises are never exceeded.
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

#ifdef HAVE_REDIS

#include "collectors/redis/redis.h"
#include "base/util.h"

static void
test_resp(void **state)
{
    char out[128];
    size_t n;

    (void)state;
    n = redis_script_resp("INCR  counter:7", 15, out);
    assert_int_equal(n, 29);
    assert_memory_equal(out, "*2\r\n$4\r\nINCR\r\n$9\r\ncounter:7\r\n", 29);
    n = redis_script_resp("\tSET k\tvalue ", 13, out);
    assert_memory_equal(out, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n", n);
}

static struct script *
lines(const char *text)
{
    char err[BT_ERRLEN];
    struct script *s = script_parse_lines("t.txt", text, redis_script_predef, err);

    if (s == NULL)
        fail_msg("%s", err);
    return s;
}

/*
 * \set runs, each command is one RESP array, and the bytes fit what longest
 * promised; "c-:id" with a negative id is one word, "c--N" (no SQL space).
 */
static void
test_render(void **state)
{
    struct script *s = lines("\\set id random(1, 3) * -1000000000000\n"
                             "INCRBY c-:id :id\n"
                             "HSET h::client_id f :keys\n");
    size_t line = 0, request = 0;
    int64_t vars[SCRIPT_MAX_VARS] = {[0] = 5, [1] = 100};
    char err[BT_ERRLEN], *lbuf, *out, want[256];
    struct rng r;
    long n;
    int ncmds;

    (void)state;
    assert_int_equal(redis_script_longest(s, &line, &request, err), 0);
    lbuf = malloc(line);
    out = malloc(request);
    rng_seed(&r, 9);
    n = redis_script_render(s, vars, &r, lbuf, line, out, &ncmds, err);
    assert_true(n > 0 && (size_t)n <= request);
    assert_int_equal(ncmds, 2);
    snprintf(want, sizeof want,
             "*3\r\n$6\r\nINCRBY\r\n$%zu\r\nc-%lld\r\n$%zu\r\n%lld\r\n"
             "*4\r\n$4\r\nHSET\r\n$3\r\nh:5\r\n$1\r\nf\r\n$3\r\n100\r\n",
             (size_t)snprintf(NULL, 0, "c-%lld", (long long)vars[2]), (long long)vars[2],
             (size_t)snprintf(NULL, 0, "%lld", (long long)vars[2]), (long long)vars[2]);
    assert_true(vars[2] <= -1000000000000LL);
    assert_int_equal((size_t)n, strlen(want));
    assert_memory_equal(out, want, (size_t)n);
    free(lbuf);
    free(out);
    script_free(s);
}

static void
test_errors(void **state)
{
    struct script *s = lines("\\set x 1 / 0\nGET a\n");
    size_t line = 0, request = 0;
    int64_t vars[SCRIPT_MAX_VARS] = {0};
    char err[BT_ERRLEN], lbuf[64], out[256];
    struct rng r;
    int ncmds;

    (void)state;
    rng_seed(&r, 1);
    assert_int_equal(redis_script_longest(s, &line, &request, err), 0);
    assert_int_equal(redis_script_render(s, vars, &r, lbuf, sizeof lbuf, out, &ncmds, err), -1);
    assert_non_null(strstr(err, "division by zero"));
    script_free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resp),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int
main(void)
{
    test_skip_program("built without hiredis (libhiredis-dev; the redis backend)");
    return 0;
}

#endif
