/*
 * --max-tries, as pgbench's: a serialization failure (PostgreSQL, one hot
 * row updated at REPEATABLE READ) or a deadlock (MySQL, sysbench's
 * read-write over 4 rows) is tried again. With enough tries no transaction
 * fails and the retries are counted; with --max-tries 1 they fail as
 * before. A retry draws the same random values as its first try (every try
 * logs its draw outside the transaction) and is applied once.
 */
#include "config.h"

#include "itest.h"

#ifdef HAVE_MYSQL
#include "itest-mysql.h"
#endif

#define DB "bt_retry"

/*
 * Each try first logs its draw (autocommit, so a rolled-back try leaves it
 * too), then adds 1 to one branch at REPEATABLE READ: concurrent tries of
 * it fail with "could not serialize access".
 */
static const char hot_script[] =
    "\\set d random(1, 1000000000)\n"
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
    "VALUES (1, 1, 1, :d, now());\n"
    "BEGIN ISOLATION LEVEL REPEATABLE READ;\n"
    "UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;\n"
    "END;\n";

static char script_path[64];

static int
setup(void **state)
{
    int fd;
    FILE *f;

    if (itest_pg_fresh_db(DB, "1") < 0)
        return -1;
    snprintf(script_path, sizeof script_path, "/tmp/itest-hot-XXXXXX");
    fd = mkstemp(script_path);
    f = fdopen(fd, "w");
    fputs(hot_script, f);
    fclose(f);
    return 0;
}

static int
teardown(void **state)
{
    return unlink(script_path);
}

/* Runs benchtop to its summary; returns the summary line (static). */
static const char *
run_summary(char **args, struct run *r)
{
    const char *sum;

    *r = itest_runv(args);
    sum = itest_line(r->out, "\"type\":\"summary\"");
    if (r->status != itest_status_for(sum) || sum == NULL)
        fprintf(stderr, "status %d\nstderr:\n%s\n", r->status, r->err);
    assert_non_null(sum);
    assert_int_equal(r->status, itest_status_for(sum)); /* 2 when tries failed for good */
    return sum;
}

static const char *
pg_hot_run(const char *tries, struct run *r)
{
    char *args[] = {"run",         itest_target(DB),
                    "--headless",  "-T",
                    "3",           "-c",
                    "4",           "-j",
                    "2",           "-f",
                    script_path,   "--max-tries",
                    (char *)tries, "--no-collect",
                    NULL};

    return run_summary(args, r);
}

static void
test_pg_serialization_retried(void **state)
{
    PGconn *admin = itest_pg(DB);
    long long before, logged, distinct;
    double txns, retries;
    const char *sum;
    struct run r;

    itest_exec(admin, "TRUNCATE pgbench_history");
    before = itest_scalar(admin, "SELECT bbalance FROM pgbench_branches WHERE bid = 1");
    sum = pg_hot_run("1000", &r);
    txns = itest_num(sum, "transactions");
    retries = itest_num(sum, "retries");
    fprintf(stderr, "  %.0f transactions, %.0f retried, %.0f retries, %.0f errors\n", txns,
            itest_num(sum, "retried"), retries, itest_num(sum, "errors"));
    assert_true(txns > 0);
    assert_int_equal((long long)itest_num(sum, "errors"), 0);
    assert_true(retries > 0);
    assert_true(itest_num(sum, "retried") > 0 && itest_num(sum, "retried") <= retries);
    assert_non_null(strstr(r.err, "total number of retries"));
    /* every transaction applied once (plus any whose commit the end cut off, one per client) */
    before = itest_scalar(admin, "SELECT bbalance FROM pgbench_branches WHERE bid = 1") - before;
    assert_true(before >= (long long)txns && before <= (long long)txns + 4);
    /* one log row per try; a retry logged the same draw as its first try */
    logged = itest_scalar(admin, "SELECT count(*) FROM pgbench_history");
    distinct = itest_scalar(admin, "SELECT count(DISTINCT delta) FROM pgbench_history");
    fprintf(stderr, "  %lld tries logged, %lld distinct draws\n", logged, distinct);
    /* the run may end between a try's log and its end: up to one per client more */
    assert_true(logged >= (long long)(txns + retries) && logged <= (long long)(txns + retries) + 4);
    assert_true(distinct >= (long long)txns && distinct <= (long long)txns + 4);
    itest_free(&r);
    PQfinish(admin);
}

static void
test_pg_serialization_one_try(void **state)
{
    struct run r;
    const char *sum = pg_hot_run("1", &r);

    assert_true(itest_num(strstr(sum, "errors_by_kind"), "serialization") > 0);
    assert_int_equal((long long)itest_num(sum, "retries"), 0);
    assert_non_null(strstr(r.err, "could not serialize access"));
    itest_free(&r);
}

#ifdef HAVE_MYSQL
static const char *
my_deadlock_run(const char *tries, struct run *r)
{
    /* 8 clients updating, deleting and inserting 4 rows: InnoDB deadlocks often */
    char *args[] = {"run",         itest_my_target(DB),
                    "--headless",  "-T",
                    "4",           "-c",
                    "8",           "-j",
                    "2",           "-w",
                    "read-write",  "--table-size",
                    "4",           "--max-tries",
                    (char *)tries, "--no-collect",
                    NULL};

    return run_summary(args, r);
}

static void
test_my_deadlock_retried(void **state)
{
    struct run r;
    const char *sum;

    assert_int_equal(itest_my_fresh_db(DB, "1", "4"), 0);
    sum = my_deadlock_run("1000", &r);
    fprintf(stderr, "  %.0f transactions, %.0f retried, %.0f retries, %.0f errors\n",
            itest_num(sum, "transactions"), itest_num(sum, "retried"), itest_num(sum, "retries"),
            itest_num(sum, "errors"));
    assert_true(itest_num(sum, "transactions") > 0);
    assert_int_equal((long long)itest_num(sum, "errors"), 0);
    assert_true(itest_num(sum, "retries") > 0);
    itest_free(&r);
    sum = my_deadlock_run("1", &r);
    assert_true(itest_num(strstr(sum, "errors_by_kind"), "deadlock") > 0);
    assert_int_equal((long long)itest_num(sum, "retries"), 0);
    itest_free(&r);
}
#endif

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pg_serialization_retried),
        cmocka_unit_test(test_pg_serialization_one_try),
#ifdef HAVE_MYSQL
        cmocka_unit_test(test_my_deadlock_retried),
#endif
    };

    return cmocka_run_group_tests_name("retries", tests, setup, teardown);
}
