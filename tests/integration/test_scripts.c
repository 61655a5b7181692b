/*
 * -f scripts beyond PostgreSQL, weighted mixes and -r, against the
 * throwaway servers. A MySQL script adds 1 to one of N counter rows chosen
 * by \set: the rows' sum is the transaction count, in text and prepared
 * mode. A Redis script's INCRs add up to its transaction count in the
 * keys. A 3:1 mix over 10^5 Redis transactions lands within 2% of its
 * weights by the server's own counts. -r's per-statement counts equal the
 * server's (Com_* for MySQL, commandstats for Redis) and, for PostgreSQL,
 * the rows a script inserted. A memcached script's incrs add up in its
 * counters. A bad script exits 2 naming file:line.
 */
#include "config.h"

#include "itest.h"

#ifdef HAVE_MYSQL
#include "itest-mysql.h"
#endif
#ifdef HAVE_REDIS
#include "itest-redis.h"
#endif
#ifdef HAVE_MEMCACHED
#include "itest-memcached.h"
#endif

#define MY_DB "bt_scripts"
#define COUNTERS 10

static char dir[] = "/tmp/bt-scripts-XXXXXX";

/* Writes text to dir/name; returns the path (a static buffer per call, 4 in turn). */
static const char *
write_script(const char *name, const char *text)
{
    static char paths[4][128];
    static int k;
    char *p = paths[k++ % 4];
    FILE *f;

    snprintf(p, 128, "%s/%s", dir, name);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* -r: the count of the statement whose text is text, from the summary's "statements". */
static long long
stmt_count(const char *sum, const char *text)
{
    char key[256];
    const char *p;

    snprintf(key, sizeof key, "\"text\":\"%s\",\"count\":", text);
    p = strstr(sum, key);
    if (p == NULL)
        fprintf(stderr, "no statement %s in %s\n", text, sum);
    assert_non_null(p);
    return strtoll(p + strlen(key), NULL, 10);
}

/* A bad script: exit 2 and one line on stderr that holds want (e.g. "bad.sql:3:"). */
static void
refused(char **args, const char *want)
{
    struct run r = itest_runv(args);

    if (r.status != 2 || strstr(r.err, want) == NULL || itest_lines(r.err) != 1)
        fprintf(stderr, "status %d, want '%s' in:\n%s\n", r.status, want, r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(itest_lines(r.err), 1);
    itest_free(&r);
}

static int
setup(void **state)
{
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
    char cmd[64];

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- MySQL ---- */

#ifdef HAVE_MYSQL

static const char my_counter_script[] = "-- one of N counters, chosen by \\set\n"
                                        "\\set id random(1, 10)\n"
                                        "BEGIN;\n"
                                        "UPDATE ctr SET n = n + 1\n"
                                        "  WHERE id = :id;\n"
                                        "COMMIT;\n";

static MYSQL *
my_counters(void)
{
    MYSQL *m = itest_my(NULL);

    itest_my_exec(m, "DROP DATABASE IF EXISTS " MY_DB);
    itest_my_exec(m, "CREATE DATABASE " MY_DB);
    itest_my_exec(m, "CREATE TABLE " MY_DB ".ctr (id INT PRIMARY KEY, n BIGINT NOT NULL)");
    itest_my_exec(m, "INSERT INTO " MY_DB ".ctr VALUES (1,0),(2,0),(3,0),(4,0),(5,0),(6,0),(7,0),"
                     "(8,0),(9,0),(10,0)");
    return m;
}

/* The counters' sum is the transaction count, prepared and as text; -r matches Com_update. */
static void
test_my_counter_script(void **state)
{
    static const char *const modes[] = {"prepared", "text"};
    const char *path = write_script("counter.sql", my_counter_script);
    MYSQL *m = my_counters();
    long long total = 0;

    for (int i = 0; i < 2; i++) {
        /* clang-format off */
        char *args[] = {"run", itest_my_target(MY_DB), "--headless", "-q", "--no-collect", "-r",
                        "-f", (char *)path, "-M", (char *)modes[i], "-c", "4", "-t", "300", NULL};
        /* clang-format on */
        long long upd0 = itest_my_status(m, "Com_update");
        long long commit0 = itest_my_status(m, "Com_commit");
        const char *sum;
        struct run r = itest_run_ok(args, &sum);

        assert_int_equal((long long)itest_num(sum, "transactions"), 1200);
        assert_int_equal((long long)itest_num(sum, "errors"), 0);
        total += 1200;
        assert_int_equal(itest_my_scalar(m, "SELECT SUM(n) FROM " MY_DB ".ctr"), total);
        /* every counter was hit: the draw covers 1..N */
        assert_int_equal(itest_my_scalar(m, "SELECT COUNT(*) FROM " MY_DB ".ctr WHERE n > 0"),
                         COUNTERS);
        assert_int_equal(stmt_count(sum, "UPDATE ctr SET n = n + 1\\u000a  WHERE id = :id"),
                         itest_my_status(m, "Com_update") - upd0);
        assert_int_equal(stmt_count(sum, "COMMIT"), itest_my_status(m, "Com_commit") - commit0);
        itest_free(&r);
    }
    mysql_close(m);
}

/* A script's :table_size is sysbench's table as it is (10 rows), not --table-size's 10000. */
static void
test_my_script_table_size(void **state)
{
    const char *path =
        write_script("size.sql", "UPDATE sbtest1 SET k = :table_size WHERE id = 1;\n");
    char *args[] = {"run",
                    itest_my_target("bt_my_ten"),
                    "--headless",
                    "-q",
                    "--no-collect",
                    "-f",
                    (char *)path,
                    "-t",
                    "1",
                    NULL};
    MYSQL *m;
    struct run r;

    assert_int_equal(itest_my_fresh_db("bt_my_ten", "1", "10"), 0);
    r = itest_runv(args);
    assert_int_equal(r.status, 0);
    itest_free(&r);
    m = itest_my("bt_my_ten");
    assert_int_equal(itest_my_scalar(m, "SELECT k FROM sbtest1 WHERE id = 1"), 10);
    mysql_close(m);
}

/* A mix of a built-in and a script on MySQL: the script's share of the commits is its weight's. */
static void
test_my_mix(void **state)
{
    const char *path = write_script("counter.sql", my_counter_script);
    MYSQL *m = my_counters();
    /* clang-format off */
    char *args[] = {"run", itest_my_target(MY_DB), "--headless", "-q", "--no-collect", "-b",
                    "counter@1", "-f", (char *)path, "-c", "2", "-t", "500", "--seed", "5", NULL};
    /* clang-format on */
    char sql[] = "CREATE TABLE " MY_DB ".benchtop_counter (id INT PRIMARY KEY, n BIGINT)";
    const char *sum;
    struct run r;

    itest_my_exec(m, sql);
    itest_my_exec(m, "INSERT INTO " MY_DB ".benchtop_counter VALUES (1, 0)");
    r = itest_run_ok(args, &sum);
    /* each transaction ran one of the two: the two tables' counts add up to all of them */
    assert_int_equal(itest_my_scalar(m, "SELECT SUM(n) FROM " MY_DB ".ctr") +
                         itest_my_scalar(m, "SELECT n FROM " MY_DB ".benchtop_counter"),
                     1000);
    assert_true(itest_my_scalar(m, "SELECT SUM(n) FROM " MY_DB ".ctr") > 350);
    assert_true(itest_my_scalar(m, "SELECT n FROM " MY_DB ".benchtop_counter") > 350);
    itest_free(&r);
    mysql_close(m);
}

static void
test_my_bad_script(void **state)
{
    const char *bad = write_script("bad.sql", "\\set id random(1, 10)\n"
                                              "BEGIN;\n"
                                              "UPDATE nosuchtable SET n = n + 1 WHERE id = :id;\n"
                                              "COMMIT;\n");
    const char *unset = write_script("unset.sql", "SELECT :nope;\n");
    char *args[] = {"run", itest_my_target(MY_DB), "-q", "-f", (char *)bad, "-t", "1", NULL};

    refused(args, "bad.sql:3: the server rejects this statement");
    args[4] = (char *)unset;
    refused(args, "unset.sql:1: variable 'nope' is used but never set");
}

#endif

/* ---- Redis ---- */

#ifdef HAVE_REDIS

/* A script's INCRs over 10 keys add up to its transactions, pipelined or not. */
static void
test_rd_incr_script(void **state)
{
    const char *path = write_script("incr.txt", "# one of 10 counters\n"
                                                "\\set id random(1, 10)\n"
                                                "INCR sc::id\n");
    static const char *const depths[] = {"1", "8"};
    redisContext *c = rtest_connect();
    long long want = 0;

    rtest_do(c, "DEL sc:1 sc:2 sc:3 sc:4 sc:5 sc:6 sc:7 sc:8 sc:9 sc:10");
    for (int i = 0; i < 2; i++) {
        /* clang-format off */
        char *args[] = {"run", itest_env("BENCHTOP_RD_TARGET"), "--headless", "-q", "--no-collect",
                        "-f", (char *)path, "--pipeline", (char *)depths[i], "-c", "4", "-t",
                        "2000", NULL};
        /* clang-format on */
        const char *sum;
        struct run r = itest_run_ok(args, &sum);
        redisReply *v;
        long long got = 0;

        want += 8000;
        assert_int_equal((long long)itest_num(sum, "transactions"), 8000);
        v = rtest_cmd(c, "MGET sc:1 sc:2 sc:3 sc:4 sc:5 sc:6 sc:7 sc:8 sc:9 sc:10");
        for (size_t k = 0; k < v->elements; k++) {
            assert_int_equal(v->element[k]->type, REDIS_REPLY_STRING); /* every key was hit */
            got += strtoll(v->element[k]->str, NULL, 10);
        }
        freeReplyObject(v);
        assert_int_equal(got, want);
        itest_free(&r);
    }
    redisFree(c);
}

/* -b get@3 -b set@1 over 10^5 transactions: the server's counts are within 2% of 3:1. */
static void
test_rd_weights(void **state)
{
    /* clang-format off */
    char *args[] = {"run", itest_env("BENCHTOP_RD_TARGET"), "--headless", "-q", "--no-collect",
                    "-b", "get@3", "-b", "set@1", "-c", "4", "-t", "25000", NULL};
    /* clang-format on */
    redisContext *c = rtest_connect();
    long long get0 = rtest_calls(c, "get"), set0 = rtest_calls(c, "set");
    const char *sum;
    struct run r = itest_run_ok(args, &sum);
    double gets = (double)(rtest_calls(c, "get") - get0);
    double sets = (double)(rtest_calls(c, "set") - set0);

    assert_int_equal((long long)(gets + sets), 100000);
    assert_true(fabs(gets / 100000 - 0.75) / 0.75 < 0.02);
    assert_true(fabs(sets / 100000 - 0.25) / 0.25 < 0.02);
    assert_non_null(strstr(sum, "\"workload\":\"get@3,set@1\""));
    itest_free(&r);
    redisFree(c);
}

/* -r: each command's count (a script's two, a built-in's GET and SET) is the server's. */
static void
test_rd_per_command(void **state)
{
    const char *path = write_script("two.txt", "\\set id random(1, 100)\n"
                                               "INCRBY pc::id 2\n"
                                               "HINCRBY pch f 1\n");
    /* clang-format off */
    char *args[] = {"run", itest_env("BENCHTOP_RD_TARGET"), "--headless", "-q", "--no-collect",
                    "-r", "-f", (char *)path, "-b", "mixed", "--pipeline", "4", "-c", "4", "-t",
                    "3000", NULL};
    /* clang-format on */
    redisContext *c = rtest_connect();
    long long incrby0 = rtest_calls(c, "incrby"), hincrby0 = rtest_calls(c, "hincrby");
    long long get0 = rtest_calls(c, "get"), set0 = rtest_calls(c, "set");
    const char *sum;
    struct run r = itest_run_ok(args, &sum);
    long long incrby = stmt_count(sum, "INCRBY pc::id 2");

    assert_int_equal(incrby, rtest_calls(c, "incrby") - incrby0);
    assert_int_equal(stmt_count(sum, "HINCRBY pch f 1"), rtest_calls(c, "hincrby") - hincrby0);
    assert_int_equal(stmt_count(sum, "GET key:N"), rtest_calls(c, "get") - get0);
    assert_int_equal(stmt_count(sum, "SET key:N VALUE"), rtest_calls(c, "set") - set0);
    assert_true(incrby > 0 && incrby < 12000);
    itest_free(&r);
    redisFree(c);
}

static void
test_rd_bad_script(void **state)
{
    const char *bad = write_script("bad.txt", "INCR a\nINCRX b\n");
    char *args[] = {"run", itest_env("BENCHTOP_RD_TARGET"), "-q", "-f", (char *)bad, "-t", "1",
                    NULL};

    refused(args, "bad.txt:2: unknown command 'INCRX'");
}

#endif

/* ---- memcached ---- */

#ifdef HAVE_MEMCACHED

/* The sum of mc:1..5, read with plain gets on a socket of our own. */
static long long
mc_counter_sum(int fd)
{
    char req[32], buf[256];
    long long sum = 0;

    for (int i = 1; i <= 5; i++) {
        const char *v;
        snprintf(req, sizeof req, "get mc:%d\r\n", i);
        mc_send(fd, req, strlen(req));
        mc_read_until(fd, buf, sizeof buf, "END\r\n");
        v = strstr(buf, "\r\n");
        assert_non_null(v);
        sum += strtoll(v + 2, NULL, 10);
    }
    return sum;
}

/* incr by 3 on one of 5 counters, with a get, a set and a delete of a missing key beside it. */
static void
test_mc_incr_script(void **state)
{
    const char *path = write_script("mc.txt", "\\set id random(1, 5)\n"
                                              "incr mc::id 3\n"
                                              "get mc::id\n"
                                              "set other:client_id x\n"
                                              "delete missing::id\n");
    /* clang-format off */
    char *args[] = {"run", (char *)mc_target(), "--headless", "-q", "--no-collect", "-f",
                    (char *)path, "-c", "4", "-t", "500", NULL};
    /* clang-format on */
    int fd = mc_dial(mc_port());
    char buf[64];
    const char *sum;
    struct run r;

    assert_true(fd >= 0);
    for (int i = 1; i <= 5; i++) {
        char req[48];
        snprintf(req, sizeof req, "set mc:%d 0 0 1\r\n0\r\n", i);
        mc_send(fd, req, strlen(req));
        mc_read_until(fd, buf, sizeof buf, "STORED\r\n");
    }
    r = itest_run_ok(args, &sum);
    assert_int_equal((long long)itest_num(sum, "transactions"), 2000);
    assert_int_equal((long long)itest_num(sum, "errors"), 0);
    assert_int_equal((long long)itest_num(sum, "ops_total"), 8000);
    assert_int_equal(mc_counter_sum(fd), 3 * 2000);
    close(fd);
    itest_free(&r);
}

static void
test_mc_bad_script(void **state)
{
    const char *bad = write_script("mcbad.txt", "get a\nINCR b 1\n");
    char *args[] = {"run", (char *)mc_target(), "-q", "-f", (char *)bad, "-t", "1", NULL};

    refused(args, "mcbad.txt:2: unknown command 'INCR' (use get, set, incr, decr or delete");
}

#endif

/* ---- PostgreSQL ---- */

/* A built-in and a script in one run; -r's count of the script's INSERT is the rows it made. */
static void
test_pg_mix_per_statement(void **state)
{
    const char *path = write_script("ins.sql", "\\set v random(1, 1000)\n"
                                               "INSERT INTO bt_script_rows VALUES (:v);\n");
    /* clang-format off */
    char *args[] = {"run", itest_target("bt_scripts"), "--headless", "-q", "--no-collect", "-r",
                    "-b", "select-only@1", "-f", (char *)path, "-c", "2", "-t", "400", NULL};
    /* clang-format on */
    PGconn *c;
    const char *sum;
    struct run r;
    long long rows, selects;

    assert_int_equal(itest_pg_fresh_db("bt_scripts", "1"), 0);
    c = itest_pg("bt_scripts");
    itest_exec(c, "CREATE TABLE bt_script_rows (v int)");
    r = itest_run_ok(args, &sum);
    rows = itest_scalar(c, "SELECT count(*) FROM bt_script_rows");
    selects = stmt_count(sum, "SELECT abalance FROM pgbench_accounts WHERE aid = :aid");
    assert_int_equal(stmt_count(sum, "INSERT INTO bt_script_rows VALUES (:v)"), rows);
    assert_int_equal(rows + selects, 800);
    assert_true(rows > 300 && selects > 300);
    itest_free(&r);
    PQfinish(c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#ifdef HAVE_MYSQL
        cmocka_unit_test(test_my_counter_script),    cmocka_unit_test(test_my_mix),
        cmocka_unit_test(test_my_bad_script),        cmocka_unit_test(test_my_script_table_size),
#endif
#ifdef HAVE_REDIS
        cmocka_unit_test(test_rd_incr_script),       cmocka_unit_test(test_rd_weights),
        cmocka_unit_test(test_rd_per_command),       cmocka_unit_test(test_rd_bad_script),
#endif
#ifdef HAVE_MEMCACHED
        cmocka_unit_test(test_mc_incr_script),       cmocka_unit_test(test_mc_bad_script),
#endif
        cmocka_unit_test(test_pg_mix_per_statement),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
