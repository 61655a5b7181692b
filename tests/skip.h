/*
 * tests/skip.h: the one way a test says it cannot run here (unit and
 * integration tests alike). Each skip prints one line on stdout,
 *     skip: PROGRAM/TEST: REASON      (a test: then cmocka's skip())
 *     skip: PROGRAM: REASON           (a whole program: it then returns 0)
 * which tests/run-check counts, lists at the end and checks against
 * tests/expected-skips. A bare cmocka skip() has no such line: run-check
 * counts it a failure, so a skip is never silent. REASON names what this
 * machine lacks (a backend, root, a cgroup controller), not the test.
 * Include after cmocka.h.
 */
#ifndef BENCHTOP_TESTS_SKIP_H
#define BENCHTOP_TESTS_SKIP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

static inline void
test_skip_line(const char *test, const char *fmt, va_list ap)
{
    printf("skip: %s%s%s: ", program_invocation_short_name, test ? "/" : "", test ? test : "");
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout); /* before cmocka's own lines, whatever stdout is */
}

static inline void __attribute__((format(printf, 2, 3)))
test_skip_say(const char *test, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    test_skip_line(test, fmt, ap);
    va_end(ap);
}

/* Skips the calling test: test_skip("no %s here", what). */
#define test_skip(...)                                                                             \
    do {                                                                                           \
        test_skip_say(__func__, __VA_ARGS__);                                                      \
        skip();                                                                                    \
    } while (0)

/* The same for a test's helper that skips on its caller's behalf (name: the test). */
#define test_skip_for(name, ...)                                                                   \
    do {                                                                                           \
        test_skip_say(name, __VA_ARGS__);                                                          \
        skip();                                                                                    \
    } while (0)

/* A program none of whose tests can run here: one line; main then returns 0. */
#define test_skip_program(...) test_skip_say(NULL, __VA_ARGS__)

#endif
