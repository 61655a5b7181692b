/*
 * Lock chains (collectors/shared/locks.c): each waiter counted by what the
 * session at its chain's root does, through chains of any length, with
 * cycles and vanished blockers counted as other; benchtop's waiters on
 * another application's running statement named, escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "collectors/shared/locks.h"

/*
 * pgbench at scale 1 with slow commits: the branch row's holder waits on
 * the WAL's sync, 3 wait for it directly and 2 behind one of those.
 */
static void
test_root_is_the_commit(void **state)
{
    (void)state;
    struct lock_node s[] = {
        {.id = 100, .ours = 1, .commit = 1},    {.id = 101, .ours = 1, .blocker = 100},
        {.id = 102, .ours = 1, .blocker = 100}, {.id = 103, .ours = 1, .blocker = 100},
        {.id = 104, .ours = 1, .blocker = 101}, {.id = 105, .ours = 1, .blocker = 104},
    };
    struct lock_roots r;

    lock_roots(s, 6, &r);
    assert_int_equal(r.commit, 5);
    assert_int_equal(r.client + r.other, 0);
    assert_int_equal(r.own_by_other, 0);
}

/* A holder idle in its transaction: its waiters wait for its client. */
static void
test_root_is_the_client(void **state)
{
    (void)state;
    struct lock_node s[] = {
        {.id = 7, .ours = 1, .idle = 1},
        {.id = 8, .ours = 1, .blocker = 7},
        {.id = 9, .ours = 0, .blocker = 8},
    };
    struct lock_roots r;

    lock_roots(s, 3, &r);
    assert_int_equal(r.client, 2);
    assert_int_equal(r.commit + r.other, 0);
}

/*
 * Another application's session idle in its transaction (a psql left
 * open after an UPDATE) holds the row: benchtop's waiters are stalled by
 * it, not waiting for benchtop's own client; its own waiter waits for it.
 */
static void
test_root_is_another_idle_transaction(void **state)
{
    (void)state;
    struct lock_node s[] = {
        {.id = 70, .ours = 0, .idle = 1, .running_s = 9, .query = "UPDATE b"},
        {.id = 71, .ours = 1, .blocker = 70},
        {.id = 72, .ours = 1, .blocker = 71},
        {.id = 73, .ours = 0, .blocker = 70},
    };
    struct lock_roots r;

    lock_roots(s, 4, &r);
    assert_int_equal(r.other, 2);
    assert_int_equal(r.client, 1);
    assert_int_equal(r.own_by_other, 2);
    assert_string_equal(r.what, "70 (idle in transaction 9 s): UPDATE b");
    assert_string_equal(r.what + lock_what_sql_at(r.what), "UPDATE b");
    /* MariaDB shows no statement for an idle session: none is quoted */
    s[0].query[0] = '\0';
    lock_roots(s, 4, &r);
    assert_string_equal(r.what, "70 (idle in transaction 9 s)");
    assert_string_equal(r.what + lock_what_sql_at(r.what), "");
    /*
     * issue 47: the holder's whole statement and its application, not its
     * first 39 bytes ("UPDATE pgbench_branches SET bbalance = ;")
     */
    s[0].running_s = 1234;
    snprintf(s[0].query, sizeof s[0].query,
             "UPDATE pgbench_branches\n  SET bbalance = bbalance + 5 WHERE bid = 1;");
    snprintf(s[0].app, sizeof s[0].app, "billing-batch");
    lock_roots(s, 4, &r);
    assert_string_equal(r.what,
                        "70 billing-batch (idle in transaction 1234 s): "
                        "UPDATE pgbench_branches SET bbalance = bbalance + 5 WHERE bid = 1;");
    assert_string_equal(r.what + lock_what_sql_at(r.what),
                        "UPDATE pgbench_branches SET bbalance = bbalance + 5 WHERE bid = 1;");
}

/* A statement longer than is shown ends in "…" after a whole character, never cut inside. */
static void
test_long_statement_cut_at_its_end(void **state)
{
    (void)state;
    struct lock_node s[] = {
        {.id = 70, .idle = 1, .running_s = 9},
        {.id = 71, .ours = 1, .blocker = 70},
    };
    struct lock_roots r;
    const char *sql;
    size_t n = 0;

    /* "é" is two bytes: 239 of them cannot end on a whole one at 240 bytes */
    n += (size_t)snprintf(s[0].query, sizeof s[0].query, "SELECT '");
    while (n + 2 < sizeof s[0].query - 1) {
        memcpy(s[0].query + n, "\xc3\xa9", 2);
        n += 2;
    }
    s[0].query[n] = '\0';
    lock_roots(s, 2, &r);
    sql = r.what + lock_what_sql_at(r.what);
    assert_true(strlen(sql) <= COLL_STALL_SQL);
    assert_true(strlen(sql) > COLL_STALL_SQL - 4);
    assert_string_equal(sql + strlen(sql) - 5, "\xc3\xa9\xe2\x80\xa6"); /* é… */
    assert_null(strstr(sql, "\\x")); /* no half character escaped */
    /* one that fits is whole, with no ellipsis */
    snprintf(s[0].query, sizeof s[0].query, "COMMIT");
    lock_roots(s, 2, &r);
    assert_string_equal(r.what, "70 (idle in transaction 9 s): COMMIT");
}

/*
 * Another application's long UPDATE holds the rows benchtop's sessions
 * want: other, and named (its text escaped: it came from the server).
 */
static void
test_root_is_another_statement(void **state)
{
    (void)state;
    struct lock_node s[] = {
        {.id = 50, .ours = 0, .running_s = 12, .query = "UPDATE t\x1b[2J"},
        {.id = 51, .ours = 0, .running_s = 30, .query = "LOCK TABLE t"},
        {.id = 60, .ours = 1, .blocker = 50},
        {.id = 61, .ours = 1, .blocker = 60},
        {.id = 62, .ours = 0, .blocker = 50}, /* another application's waiter: not a stall */
    };
    struct lock_roots r;

    lock_roots(s, 5, &r);
    assert_int_equal(r.other, 3);
    assert_int_equal(r.own_by_other, 2);
    assert_string_equal(r.what, "50 (12 s): UPDATE t\\x1b[2J");
}

/* A cycle (a deadlock the server has not broken yet) and a blocker that left: other. */
static void
test_cycles_and_gone(void **state)
{
    (void)state;
    struct lock_node s[] = {
        {.id = 1, .blocker = 2},
        {.id = 2, .blocker = 1},
        {.id = 3, .blocker = 99},
    };
    struct lock_roots r;

    lock_roots(s, 3, &r);
    assert_int_equal(r.other, 3);
    assert_int_equal(r.commit + r.client + r.own_by_other, 0);
    lock_roots(s, 0, &r);
    assert_int_equal(r.commit + r.client + r.other, 0);
    assert_string_equal(r.what, "");
}

/*
 * A root that waits itself, its holder gone a moment ago (pgbench at
 * scale 1: the branch row passed on after a commit): not a root of its
 * own; its waiters are left out, and the chains seen stand for them.
 */
static void
test_handoff_is_no_root(void **state)
{
    (void)state;
    struct lock_node s[] = {
        {.id = 1, .ours = 1, .handoff = 1}, {.id = 2, .ours = 1, .blocker = 1},
        {.id = 3, .ours = 1, .blocker = 2}, {.id = 4, .ours = 1, .commit = 1},
        {.id = 5, .ours = 1, .blocker = 4},
    };
    struct lock_roots r;

    lock_roots(s, 5, &r);
    assert_int_equal(r.commit, 1);
    assert_int_equal(r.client + r.other, 0);
    s[0].handoff = 0; /* a running root: its waiters are the locks' own */
    lock_roots(s, 5, &r);
    assert_int_equal(r.other, 2);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handoff_is_no_root),
        cmocka_unit_test(test_root_is_the_commit),
        cmocka_unit_test(test_root_is_the_client),
        cmocka_unit_test(test_root_is_another_statement),
        cmocka_unit_test(test_root_is_another_idle_transaction),
        cmocka_unit_test(test_long_statement_cut_at_its_end),
        cmocka_unit_test(test_cycles_and_gone),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
