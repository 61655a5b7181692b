/*
 * Every MySQL workload in both protocols, headless for a few seconds
 * against the throwaway MariaDB: tps > 0, no errors but the occasional
 * deadlock (which must then match the server's rollbacks), and benchtop's
 * counts equal the server's own:
 *  - BEGIN..COMMIT workloads (read-only, read-write, write-only, counter):
 *    Com_commit grows by the transactions, within 1%;
 *  - autocommit workloads (point-select, insert), where the server counts
 *    no commit: Com_select or Com_insert grow by the transactions (plus the
 *    few SELECTs benchtop's start-up check makes), within 1%;
 *  - prepared mode really executes prepared statements (Com_stmt_execute
 *    grows by the statements but BEGIN/COMMIT), text mode none.
 */
#include "config.h"

#include "itest.h"

#ifdef HAVE_MYSQL

#include "itest-mysql.h"

#define DB "bt_my_work"

static MYSQL *admin;

/* The server's counters that a run should move, before and after. */
struct counters {
    long long commit, rollback, select, insert, execute, prepare;
};

static void
read_counters(struct counters *c)
{
    c->commit = itest_my_status(admin, "Com_commit");
    c->rollback = itest_my_status(admin, "Com_rollback");
    c->select = itest_my_status(admin, "Com_select");
    c->insert = itest_my_status(admin, "Com_insert");
    c->execute = itest_my_status(admin, "Com_stmt_execute");
    c->prepare = itest_my_status(admin, "Com_stmt_prepare");
}

static int
setup(void **state)
{
    if (itest_my_fresh_db(DB, "2", "10000") < 0)
        return -1;
    admin = itest_my(DB);
    return 0;
}

static int
teardown(void **state)
{
    mysql_close(admin);
    return 0;
}

/*
 * The server's count against benchtop's: within 1%, or within one a client
 * (the 4 of workload_mode's runs) when that is more: a transaction the
 * server finished as -T ended may never have had its reply read. At the
 * tens of tps of a loaded host, four in a hundred is not a miscount.
 */
static int
within_1pct(long long server, double client)
{
    return fabs((double)server - client) <= fmax(0.01 * client, 4);
}

/* What one workload looks like from the server. */
struct expect {
    const char *workload;
    int statements;       /* per transaction, BEGIN and COMMIT included */
    int transactional;    /* BEGIN..COMMIT */
    int prepared_per_txn; /* statements executed as prepared ones per transaction */
};

static const struct expect expects[] = {
    {"point-select", 1, 0, 1}, {"read-only", 16, 1, 14}, {"read-write", 20, 1, 18},
    {"write-only", 6, 1, 4},   {"counter", 4, 1, 2},     {"insert", 1, 0, 1},
};

static const struct expect *
expect_of(const char *workload)
{
    size_t i;

    for (i = 0; i < sizeof expects / sizeof expects[0]; i++)
        if (strcmp(expects[i].workload, workload) == 0)
            return &expects[i];
    fail_msg("no expectations for %s", workload);
    return NULL;
}

static void
check_server(const struct expect *e, const char *mode, const struct counters *b,
             const struct counters *a, double txns, double deadlocks)
{
    if (e->transactional) {
        assert_true(within_1pct(a->commit - b->commit, txns));
        /* a ROLLBACK cut off by the end of the run may be uncounted: at most one a client */
        assert_true(a->rollback - b->rollback >= (long long)deadlocks &&
                    a->rollback - b->rollback <= (long long)deadlocks + 4);
    } else if (strcmp(e->workload, "insert") == 0) {
        assert_true(within_1pct(a->insert - b->insert, txns));
    } else {
        assert_true(within_1pct(a->select - b->select, txns));
    }
    if (strcmp(mode, "prepared") == 0)
        assert_true(a->execute - b->execute >= (long long)txns * e->prepared_per_txn);
    else /* none, but for the last statements of the previous run, cut off mid-way (one a client) */
        assert_true(a->execute - b->execute <= 4);
}

static void
workload_mode(const char *workload, const char *mode)
{
    char *args[] = {"run", itest_my_target(DB), "--headless", "-T", "2",  "-w", (char *)workload,
                    "-M",  (char *)mode,        "-c",         "4",  "-j", "2",  "-q",
                    NULL};
    const struct expect *e = expect_of(workload);
    struct counters before, after;
    struct run r;
    const char *sum;
    double txns, deadlocks;

    read_counters(&before);
    r = itest_runv(args);
    read_counters(&after);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    if (r.status != 0 || sum == NULL)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(sum);
    txns = itest_num(sum, "transactions");
    deadlocks = itest_num(strstr(sum, "errors_by_kind"), "deadlock");
    fprintf(stderr,
            "  %-12s %-8s %6.0f transactions, %4.0f deadlocks, commits +%lld, "
            "selects +%lld, inserts +%lld, executes +%lld, %.0f tps\n",
            workload, mode, txns, deadlocks, after.commit - before.commit,
            after.select - before.select, after.insert - before.insert,
            after.execute - before.execute, itest_num(sum, "tps"));
    assert_true(txns > 0);
    assert_true(itest_num(sum, "tps") > 0);
    /* only deadlocks are allowed (read-write and write-only may meet one), nothing else */
    assert_int_equal((long long)itest_num(sum, "errors"), (long long)deadlocks);
    assert_int_equal((long long)itest_num(sum, "ops_total"), (long long)txns * e->statements);
    assert_true(itest_count_lines(r.out, "\"type\":\"interval\"") >= 2);
    check_server(e, mode, &before, &after, txns, deadlocks);
    itest_free(&r);
}

static void
test_point_select(void **state)
{
    workload_mode("point-select", "text");
    workload_mode("point-select", "prepared");
}

static void
test_read_only(void **state)
{
    workload_mode("read-only", "text");
    workload_mode("read-only", "prepared");
}

static void
test_read_write(void **state)
{
    long long rows = itest_my_scalar(admin, "SELECT COUNT(*) FROM sbtest1");

    workload_mode("read-write", "text");
    workload_mode("read-write", "prepared");
    /* each DELETE is followed by an INSERT of the same id: the tables keep their size */
    assert_int_equal(itest_my_scalar(admin, "SELECT COUNT(*) FROM sbtest1"), rows);
}

static void
test_write_only(void **state)
{
    workload_mode("write-only", "text");
    workload_mode("write-only", "prepared");
}

static void
test_counter(void **state)
{
    workload_mode("counter", "text");
    workload_mode("counter", "prepared");
}

static void
test_insert(void **state)
{
    workload_mode("insert", "text");
    workload_mode("insert", "prepared");
}

/* -t: exactly clients * t transactions; the counter grows by exactly as much, once per commit. */
static void
test_transaction_count(void **state)
{
    char *args[] = {"run", itest_my_target(DB), "--headless", "-t", "250", "-c", "4", "-j", "2",
                    "-w",  "counter",           "-q",         NULL};
    long long n0 = itest_my_scalar(admin, "SELECT n FROM benchtop_counter WHERE id = 1");
    long long c0 = itest_my_status(admin, "Com_commit");
    struct run r = itest_runv(args);
    const char *sum = itest_line(r.out, "\"type\":\"summary\"");

    assert_int_equal(r.status, 0);
    assert_non_null(sum);
    assert_int_equal((long long)itest_num(sum, "transactions"), 1000);
    assert_int_equal(itest_my_scalar(admin, "SELECT n FROM benchtop_counter WHERE id = 1") - n0,
                     1000);
    assert_int_equal(itest_my_status(admin, "Com_commit") - c0, 1000);
    itest_free(&r);
}

/* insert -t: the tables grow by exactly the transactions, in both protocols. */
static void
test_insert_count(void **state)
{
    static const char count_sql[] =
        "SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)";
    char *modes[] = {"text", "prepared"};
    int i;

    for (i = 0; i < 2; i++) {
        char *args[] = {"run",        itest_my_target(DB),
                        "--headless", "-t",
                        "150",        "-c",
                        "2",          "-w",
                        "insert",     "-M",
                        modes[i],     "-q",
                        NULL};
        long long rows = itest_my_scalar(admin, count_sql);
        struct run r = itest_runv(args);

        assert_int_equal(r.status, 0);
        assert_int_equal((long long)itest_num(itest_line(r.out, "summary"), "transactions"), 300);
        assert_int_equal(itest_my_scalar(admin, count_sql) - rows, 300);
        itest_free(&r);
    }
}

/* -C: a connection per transaction; the server saw them all (and benchtop's check). */
static void
test_connect_per_txn(void **state)
{
    /* no collector: its own connection would count in the server's Connections */
    char *args[] = {"run", itest_my_target(DB), "--headless", "-T",           "2", "-C", "-c", "2",
                    "-w",  "point-select",      "-q",         "--no-collect", NULL};
    long long c0 = itest_my_status(admin, "Connections");
    struct run r = itest_runv(args);
    const char *sum = itest_line(r.out, "\"type\":\"summary\"");
    double txns = itest_num(sum, "transactions"), connects = itest_num(sum, "connects");
    long long server = itest_my_status(admin, "Connections") - c0;

    fprintf(stderr, "  -C: %.0f transactions, %.0f connects, server connections +%lld\n", txns,
            connects, server);
    assert_int_equal(r.status, 0);
    assert_true(txns > 10);
    assert_int_equal((long long)itest_num(sum, "errors"), 0);
    /* one connect per transaction (a couple more: the ones cut off at the end) */
    assert_true(connects >= txns && connects <= txns + 2);
    assert_true(itest_num(sum, "connect_us_mean") > 0);
    /*
     * The server's count: the run's connections, benchtop's start-up check,
     * and up to one per client that the end of the run cut off mid-handshake.
     */
    assert_true(server >= (long long)connects + 1 && server <= (long long)connects + 1 + 2);
    itest_free(&r);
}

/* A unix socket target (?socket=) reaches the same server. */
static void
test_unix_socket(void **state)
{
    char target[512];
    char *args[] = {"run", target, "--headless", "-t", "50", "-c",
                    "2",   "-w",   "counter",    "-q", NULL};
    long long n0 = itest_my_scalar(admin, "SELECT n FROM benchtop_counter WHERE id = 1");
    struct run r;

    snprintf(target, sizeof target, "mysql://root@localhost/%s?socket=%s/mysqld.sock", DB,
             itest_env("BENCHTOP_MY_DIR"));
    r = itest_runv(args);
    if (r.status != 0)
        fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_int_equal(itest_my_scalar(admin, "SELECT n FROM benchtop_counter WHERE id = 1") - n0,
                     100);
    itest_free(&r);
}

/*
 * 16 clients on 20 rows deadlock all the time: each deadlock is counted as
 * one (and nothing else fails), rolled back (the server's rollbacks match
 * exactly), and the run goes on; the table keeps its 20 rows.
 */
static void
test_deadlocks(void **state)
{
    char *modes[] = {"text", "prepared"};
    MYSQL *m;
    int i;

    assert_int_equal(itest_my_fresh_db("bt_my_tiny", "1", "20"), 0);
    m = itest_my("bt_my_tiny");
    for (i = 0; i < 2; i++) {
        char *args[] = {"run",        itest_my_target("bt_my_tiny"),
                        "--headless", "-T",
                        "2",          "-w",
                        "read-write", "-M",
                        modes[i],     "-c",
                        "16",         "-j",
                        "2",          "-q",
                        NULL};
        long long rb = itest_my_status(m, "Com_rollback");
        struct run r = itest_runv(args);
        const char *sum = itest_line(r.out, "\"type\":\"summary\"");
        double deadlocks = itest_num(strstr(sum, "errors_by_kind"), "deadlock");

        fprintf(stderr, "  %s: %.0f transactions, %.0f deadlocks, rollbacks +%lld\n", modes[i],
                itest_num(sum, "transactions"), deadlocks, itest_my_status(m, "Com_rollback") - rb);
        assert_int_equal(r.status, 2); /* deadlocked transactions failed: as pgbench, exit 2 */
        assert_true(deadlocks > 0);
        assert_true(itest_num(sum, "transactions") > 0);
        assert_int_equal((long long)itest_num(sum, "errors"), (long long)deadlocks);
        /* plus at most one a client: a ROLLBACK the end of the run cut off before its reply */
        rb = itest_my_status(m, "Com_rollback") - rb;
        assert_true(rb >= (long long)deadlocks && rb <= (long long)deadlocks + 16);
        assert_int_equal(itest_my_scalar(m, "SELECT COUNT(*) FROM sbtest1"), 20);
        itest_free(&r);
    }
    mysql_close(m);
}

/* Runs a short counter load with HOME holding a .my.cnf with these [client] lines. */
static struct run
run_with_my_cnf(const char *lines)
{
    char home[] = "/tmp/itest-home-XXXXXX", path[600], target[512];
    char *old_home = getenv("HOME");
    char *args[] = {"run", target, "--headless", "-t", "20", "-c",
                    "1",   "-w",   "counter",    "-q", NULL};
    FILE *f;
    struct run r;

    assert_non_null(mkdtemp(home));
    snprintf(path, sizeof path, "%s/.my.cnf", home);
    f = fopen(path, "w");
    fprintf(f, "[client]\n%s", lines);
    fclose(f);
    /* no user in the target: it comes from the file */
    snprintf(target, sizeof target, "mysql://127.0.0.1:%u/%s", itest_my_port(), DB);
    setenv("HOME", home, 1);
    r = itest_runv(args);
    if (old_home != NULL)
        setenv("HOME", old_home, 1);
    unlink(path);
    rmdir(home);
    return r;
}

/* ~/.my.cnf [client] supplies what the target leaves out (here the user and its password). */
static void
test_my_cnf(void **state)
{
    struct run r;

    itest_my_exec(admin, "DROP USER IF EXISTS 'bt_cnf'@'127.0.0.1'");
    itest_my_exec(admin, "CREATE USER 'bt_cnf'@'127.0.0.1' IDENTIFIED BY 'cnfpw'");
    itest_my_exec(admin, "GRANT ALL ON " DB ".* TO 'bt_cnf'@'127.0.0.1'");
    r = run_with_my_cnf("user=bt_cnf\npassword=cnfpw\n");
    if (r.status != 0)
        fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_int_equal((long long)itest_num(itest_line(r.out, "summary"), "transactions"), 20);
    itest_free(&r);
    /* the same with a wrong password in the file: refused as bt_cnf, so the file was read */
    r = run_with_my_cnf("user=bt_cnf\npassword=wrong\n");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "Access denied for user 'bt_cnf'"));
    assert_null(strstr(r.err, "wrong"));
    itest_free(&r);
}

/*
 * Without --tables and --table-size benchtop uses what init made: here 3
 * tables of 500 rows. Every table is read, and every point select finds
 * its row (with the default size of 10,000, 95% would find none).
 */
static void
test_finds_tables(void **state)
{
    char *args[] = {"run",
                    itest_my_target("bt_my_small"),
                    "--headless",
                    "-t",
                    "300",
                    "-c",
                    "1",
                    "-w",
                    "point-select",
                    "-q",
                    "--no-collect", /* its SHOW STATUS rows would count in Rows_sent */
                    NULL};
    long long touched, sent;
    struct run r;

    assert_int_equal(itest_my_fresh_db("bt_my_small", "3", "500"), 0);
    itest_my_exec(admin, "SET GLOBAL userstat = 1");
    itest_my_exec(admin, "FLUSH TABLE_STATISTICS");
    sent = itest_my_status(admin, "Rows_sent");
    r = itest_runv(args);
    /* rows sent: 300 found rows, a few from the start-up check and our own SHOW STATUS */
    sent = itest_my_status(admin, "Rows_sent") - sent;
    touched = itest_my_scalar(admin, "SELECT COUNT(*) FROM information_schema.TABLE_STATISTICS "
                                     "WHERE TABLE_SCHEMA = 'bt_my_small' AND ROWS_READ > 0");
    itest_my_exec(admin, "SET GLOBAL userstat = 0");
    fprintf(stderr, "  3 x 500 rows: %lld tables read, %lld rows sent\n", touched, sent);
    assert_int_equal(r.status, 0);
    assert_int_equal((long long)itest_num(itest_line(r.out, "summary"), "transactions"), 300);
    assert_int_equal(touched, 3);
    assert_true(sent >= 300 && sent <= 315);
    itest_free(&r);
}

/*
 * sysbench prepared the database (sbtest1 only, here with a row of ours in
 * it), so -w counter lacks benchtop_counter: init creates what is missing
 * (sbtest2 and the counter table), leaves sbtest1 as it was and says so,
 * and the counter workload then runs.
 */
static void
test_init_adds_missing(void **state)
{
    char *init[] = {"init", itest_my_target("bt_my_sysb"), "--tables", "2", "--table-size", "200",
                    NULL};
    char *run[] = {"run",        itest_my_target("bt_my_sysb"),
                   "--headless", "-t",
                   "50",         "-c",
                   "1",          "-w",
                   "counter",    "-q",
                   NULL};
    MYSQL *m;
    struct run r;

    assert_int_equal(itest_my_fresh_db("bt_my_sysb", "2", "300"), 0);
    m = itest_my("bt_my_sysb");
    itest_my_exec(m, "DROP TABLE benchtop_counter, sbtest2");
    itest_my_exec(m, "UPDATE sbtest1 SET k = 4242 WHERE id = 1");
    r = itest_runv(init);
    fprintf(stderr, "  %s", r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "keeping 1 existing table (sbtest1)"));
    itest_free(&r);
    assert_int_equal(itest_my_scalar(m, "SELECT k FROM sbtest1 WHERE id = 1"), 4242);
    assert_int_equal(itest_my_scalar(m, "SELECT COUNT(*) FROM sbtest1"), 300);
    assert_int_equal(itest_my_scalar(m, "SELECT COUNT(*) FROM sbtest2"), 200);
    assert_int_equal(itest_my_scalar(m, "SELECT n FROM benchtop_counter WHERE id = 1"), 0);
    r = itest_runv(run);
    assert_int_equal(r.status, 0);
    assert_int_equal(itest_my_scalar(m, "SELECT n FROM benchtop_counter WHERE id = 1"), 50);
    itest_free(&r);
    mysql_close(m);
}

/*
 * sysbench's --rand-type (issue 27): with special, about 75% of the point
 * selects ask for the middle 1% of ids (496..505 of 1000), read back from
 * the statements the server logged (-M text puts the id in them); uniform
 * asks there about 1% of the time.
 */
static long long
middle_share_pct(const char *rand_type)
{
    char *args[] = {"run",
                    itest_my_target("bt_my_dist"),
                    "--headless",
                    "-t",
                    "400",
                    "-c",
                    "1",
                    "-w",
                    "point-select",
                    "-M",
                    "text",
                    "--rand-type",
                    (char *)rand_type,
                    "-q",
                    "--no-collect",
                    NULL};
    struct run r;
    long long all, middle;

    itest_my_exec(admin, "TRUNCATE TABLE mysql.general_log");
    itest_my_exec(admin, "SET GLOBAL log_output = 'TABLE', general_log = 1");
    r = itest_runv(args);
    itest_my_exec(admin, "SET GLOBAL general_log = 0");
    assert_int_equal(r.status, 0);
    itest_free(&r);
    all = itest_my_scalar(admin, "SELECT COUNT(*) FROM mysql.general_log WHERE argument LIKE "
                                 "'SELECT c FROM sbtest1 WHERE id=%'");
    middle = itest_my_scalar(admin, "SELECT COUNT(*) FROM mysql.general_log WHERE argument LIKE "
                                    "'SELECT c FROM sbtest1 WHERE id=%' AND CAST(SUBSTRING_INDEX("
                                    "argument, '=', -1) AS UNSIGNED) BETWEEN 496 AND 505");
    fprintf(stderr, "  --rand-type %s: %lld of %lld point selects in ids 496..505\n", rand_type,
            middle, all);
    assert_true(all >= 400 && all <= 402); /* the run's 400, and the start-up check's */
    return middle * 100 / all;
}

static void
test_rand_type(void **state)
{
    char *bad[] = {
        "run", itest_my_target("bt_my_dist"), "--headless", "-t", "1", "--rand-type", "zipf", NULL};
    struct run r;

    assert_int_equal(itest_my_fresh_db("bt_my_dist", "1", "1000"), 0);
    assert_true(middle_share_pct("special") >= 65);
    assert_true(middle_share_pct("uniform") <= 10);
    r = itest_runv(bad);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown --rand-type 'zipf'"));
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rand_type),
        cmocka_unit_test(test_point_select),
        cmocka_unit_test(test_read_only),
        cmocka_unit_test(test_read_write),
        cmocka_unit_test(test_write_only),
        cmocka_unit_test(test_counter),
        cmocka_unit_test(test_insert),
        cmocka_unit_test(test_transaction_count),
        cmocka_unit_test(test_insert_count),
        cmocka_unit_test(test_connect_per_txn),
        cmocka_unit_test(test_deadlocks),
        cmocka_unit_test(test_unix_socket),
        cmocka_unit_test(test_my_cnf),
        cmocka_unit_test(test_finds_tables),
        cmocka_unit_test(test_init_adds_missing),
    };
    return cmocka_run_group_tests_name("mysql_workloads", tests, setup, teardown);
}

#else

int
main(void)
{
    test_skip_program("the mysql backend is not built");
    return 0;
}

#endif
