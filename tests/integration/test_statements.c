/*
 * watch's top statements in its JSON lines: a statement run a known
 * number of times shows that call count (within 1%) in PostgreSQL's
 * pg_stat_statements (preloaded by the test server) and Redis's
 * commandstats, and MariaDB's performance_schema digests (the test
 * server restarted with it on); a database without the extension, and a
 * MariaDB without performance_schema, get the one line saying how to turn
 * it on.
 */
#include "itest-mysql.h"
#include "itest-redis.h"

#include <jansson.h>

enum { PG_CALLS = 3000, RD_CALLS = 2000, MY_CALLS = 2000 };

/* `benchtop watch TARGET --headless` for 2.5 s: its stdout (free it). */
static struct run
watch(const char *target)
{
    char *args[] = {"watch", (char *)target, "--headless", "-T", "2.5", "--interval", "1", NULL};
    struct run r = itest_runv(args);

    if (r.status != 0)
        fprintf(stderr, "status %d\n%s\n", r.status, r.err);
    assert_int_equal(r.status, 0);
    return r;
}

/* The "statements" member of the first (last 0) or the last server line that has one. */
static json_t *
statements_of(const char *out, int last)
{
    json_t *found = NULL;

    for (const char *p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != '\0')) {
        json_t *line = json_loadb(p, strcspn(p, "\n"), 0, NULL), *st;
        if (line != NULL && (st = json_object_get(line, "statements")) != NULL &&
            (last || found == NULL)) {
            json_decref(found);
            found = json_incref(st);
        }
        json_decref(line);
    }
    if (found == NULL)
        fail_msg("no server line with statements in:\n%s", out);
    return found;
}

/* The top statement whose text holds needle. */
static json_t *
top_with(json_t *st, const char *needle)
{
    json_t *s;
    size_t i;

    json_array_foreach(json_object_get(st, "top"), i, s)
    {
        const char *text = json_string_value(json_object_get(s, "text"));
        if (text != NULL && strstr(text, needle) != NULL)
            return s;
    }
    fail_msg("no top statement with '%s'", needle);
    return NULL;
}

/* The top statement whose text holds both needles. */
static json_t *
top_with2(json_t *st, const char *a, const char *b)
{
    json_t *s;
    size_t i;

    json_array_foreach(json_object_get(st, "top"), i, s)
    {
        const char *text = json_string_value(json_object_get(s, "text"));
        if (text != NULL && strstr(text, a) != NULL && strstr(text, b) != NULL)
            return s;
    }
    fail_msg("no top statement with '%s' and '%s'", a, b);
    return NULL;
}

static double
member(json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static void
test_pg_known_statement(void **state)
{
    PGconn *c = itest_pg("postgres");
    json_t *st, *s;
    struct run r;

    itest_exec(c, "DROP DATABASE IF EXISTS bt_stmts");
    itest_exec(c, "CREATE DATABASE bt_stmts");
    PQfinish(c);
    c = itest_pg("bt_stmts");
    itest_exec(c, "CREATE EXTENSION pg_stat_statements");
    itest_exec(c, "CREATE TABLE bt_top_probe (i int)");
    itest_exec(c, "INSERT INTO bt_top_probe SELECT generate_series(1, 100)");
    itest_exec(c, "SELECT pg_stat_statements_reset()");
    for (int i = 0; i < PG_CALLS; i++)
        itest_exec(c, "SELECT count(*) FROM bt_top_probe");
    PQfinish(c);
    r = watch(itest_target("bt_stmts"));
    st = statements_of(r.out, 1);
    assert_string_equal(json_string_value(json_object_get(st, "source")), "pg_stat_statements");
    s = top_with(st, "FROM bt_top_probe");
    assert_in_range((long)member(s, "calls"), PG_CALLS * 99 / 100, PG_CALLS * 101 / 100);
    assert_true(member(s, "rows_per_call") == 1.0); /* a count returns one row */
    /* no calls since the previous read: none per second, none of the interval's time */
    assert_true(member(s, "calls_s") == 0 && member(s, "share") == 0);
    /* issue 47: benchtop's own polling (its collector's statements) is left out */
    {
        json_t *o;
        size_t i;

        json_array_foreach(json_object_get(st, "top"), i, o)
        {
            const char *text = json_string_value(json_object_get(o, "text"));

            if (text != NULL && (strstr(text, "pg_stat_clear_snapshot") != NULL ||
                                 strstr(text, "pg_stat_activity") != NULL ||
                                 strstr(text, ".pg_stat_statements s") != NULL))
                fail_msg("benchtop's own statement listed: %s", text);
        }
    }
    json_decref(st);
    /* the first read: its share of all the time since the reset */
    st = statements_of(r.out, 0);
    s = top_with(st, "FROM bt_top_probe");
    assert_true(member(s, "share") > 0.05 && member(s, "share") <= 1);
    assert_true(member(s, "mean_ms") > 0);
    assert_true(json_is_null(json_object_get(s, "calls_s")));
    json_decref(st);
    itest_free(&r);
}

static void
test_pg_without_extension(void **state)
{
    PGconn *c = itest_pg("postgres");
    json_t *st;
    struct run r;

    itest_exec(c, "DROP DATABASE IF EXISTS bt_stmts_none");
    itest_exec(c, "CREATE DATABASE bt_stmts_none");
    PQfinish(c);
    r = watch(itest_target("bt_stmts_none"));
    st = statements_of(r.out, 1);
    assert_non_null(strstr(json_string_value(json_object_get(st, "note")),
                           "CREATE EXTENSION pg_stat_statements"));
    assert_int_equal(json_array_size(json_object_get(st, "top")), 0);
    json_decref(st);
    itest_free(&r);
}

static void
test_redis_commandstats(void **state)
{
    redisContext *c = rtest_connect();
    json_t *st, *s;
    struct run r;

    rtest_do(c, "CONFIG RESETSTAT");
    for (int i = 0; i < RD_CALLS; i++)
        freeReplyObject(rtest_cmd(c, "ECHO probe"));
    r = watch(itest_env("BENCHTOP_RD_TARGET"));
    st = statements_of(r.out, 1);
    assert_string_equal(json_string_value(json_object_get(st, "source")), "commandstats");
    s = top_with(st, "echo");
    assert_in_range((long)member(s, "calls"), RD_CALLS * 99 / 100, RD_CALLS * 101 / 100);
    assert_true(json_is_null(json_object_get(s, "rows_per_call")));
    json_decref(st);
    itest_free(&r);
    redisFree(c);
}

/* MariaDB's default: performance_schema off, and the line says how to turn it on. */
static void
test_mysql_digests_or_note(void **state)
{
    MYSQL *m = itest_my(NULL);
    long long on = itest_my_scalar(m, "SELECT @@performance_schema");
    json_t *st;
    struct run r;

    mysql_close(m);
    r = watch(itest_my_target("mysql"));
    st = statements_of(r.out, 1);
    assert_string_equal(json_string_value(json_object_get(st, "source")), "performance_schema");
    if (on == 0)
        assert_non_null(
            strstr(json_string_value(json_object_get(st, "note")), "performance_schema=ON"));
    else /* the collector's own SHOW GLOBAL STATUS is among the digests */
        assert_true(json_array_size(json_object_get(st, "top")) > 0);
    json_decref(st);
    itest_free(&r);
}

/* The test MariaDB restarted with DIR/server.opts (collectors/mysql/server.c): opts or none. */
static void
my_restart_with(const char *opts)
{
    char path[700];
    FILE *f;

    snprintf(path, sizeof path, "%s/server.opts", itest_env("BENCHTOP_MY_DIR"));
    if (opts == NULL) {
        unlink(path);
    } else {
        assert_non_null(f = fopen(path, "w"));
        fputs(opts, f);
        assert_int_equal(fclose(f), 0);
    }
    itest_restart_server("MY");
}

/* With performance_schema on, a statement run a known number of times shows that count. */
static void
test_mysql_digests_live(void **state)
{
    MYSQL *m;
    json_t *st, *s;
    struct run r;

    my_restart_with("--performance-schema=ON\n");
    m = itest_my(NULL);
    assert_int_equal(itest_my_scalar(m, "SELECT @@performance_schema"), 1);
    itest_my_exec(m, "DROP DATABASE IF EXISTS bt_digest");
    itest_my_exec(m, "CREATE DATABASE bt_digest");
    itest_my_exec(m, "CREATE TABLE bt_digest.bt_digest_probe (i int)");
    itest_my_exec(m, "INSERT INTO bt_digest.bt_digest_probe VALUES (1), (2), (3)");
    for (int i = 0; i < MY_CALLS; i++)
        itest_my_exec(m, "SELECT i FROM bt_digest.bt_digest_probe");
    mysql_close(m);
    r = watch(itest_my_target("mysql"));
    st = statements_of(r.out, 1);
    assert_string_equal(json_string_value(json_object_get(st, "source")), "performance_schema");
    s = top_with2(st, "SELECT", "bt_digest_probe"); /* not the CREATE or the INSERT */
    assert_in_range((long)member(s, "calls"), MY_CALLS * 99 / 100, MY_CALLS * 101 / 100);
    assert_true(member(s, "rows_per_call") == 3.0); /* three rows each time */
    json_decref(st);
    itest_free(&r);
    my_restart_with(NULL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pg_known_statement), cmocka_unit_test(test_pg_without_extension),
        cmocka_unit_test(test_redis_commandstats), cmocka_unit_test(test_mysql_digests_or_note),
        cmocka_unit_test(test_mysql_digests_live),
    };
    return cmocka_run_group_tests_name("statements", tests, NULL, NULL);
}
