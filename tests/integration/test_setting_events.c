/*
 * Settings as events, headless: a setting changed from another connection
 * while `benchtop watch --headless -P 0.5` runs must appear as a
 * {"type":"event","kind":"setting"} line naming the old and new value
 * within two samples (server lines) of the change; the run's first
 * settings line holds the value before. PostgreSQL (ALTER SYSTEM and a
 * reload), Redis (CONFIG SET) and MySQL (SET GLOBAL).
 */
#include "itest.h"
#include "itest-mysql.h"
#include "itest-redis.h"

/* What benchtop has written to fd so far (pread: the child's offset is shared). */
static char *
peek(int fd, size_t *len)
{
    static char buf[1 << 20];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

    *len = n > 0 ? (size_t)n : 0;
    buf[*len] = '\0';
    return buf;
}

/* Waits (up to 10 s) for the first settings line, then returns the output's length. */
static size_t
wait_settings(int fd)
{
    size_t len = 0;

    for (int i = 0; i < 100; i++) {
        if (strstr(peek(fd, &len), "\"type\":\"settings\"") != NULL)
            return len;
        itest_sleep_ms(100);
    }
    fail_msg("no settings line after 10 s: %s", peek(fd, &len));
    return 0;
}

/* Server lines that start at or after `from` and before the line holding `event`. */
static int
samples_until(const char *out, size_t from, const char *event)
{
    const char *ev = strstr(out + from, event), *p;
    int n = 0;

    if (ev == NULL)
        fail_msg("no '%s' after the change in:\n%s", event, out + from);
    for (p = out + from; p < ev; p = strchr(p, '\n') + 1)
        n += strncmp(p, "{\"type\":\"server\"", 16) == 0;
    return n;
}

typedef void change_fn(void);

/* Runs watch on target, makes the change after the first settings read, checks the event. */
static void
check_event(const char *target, change_fn *change, const char *before, const char *event)
{
    char *args[] = {"watch", (char *)target, "--headless", "-T", "6", "-P", "0.5", NULL};
    int o, e, n;
    pid_t pid = itest_spawn(args, &o, &e);
    size_t at = wait_settings(o);
    struct run r;

    change();
    r = itest_finish(pid, o, e);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(itest_line(r.out, "\"type\":\"settings\""), before));
    n = samples_until(r.out, at, event);
    fprintf(stderr, "  %s: seen %d sample(s) after the change\n", target, n);
    assert_true(n <= 2);
    itest_free(&r);
}

static void
pg_change(void)
{
    PGconn *c = itest_pg("postgres");

    itest_exec(c, "ALTER SYSTEM SET synchronous_commit = off");
    itest_exec(c, "SELECT pg_reload_conf()");
    PQfinish(c);
}

static void
test_postgres(void **state)
{
    check_event(itest_env("BENCHTOP_PG_TARGET"), pg_change, "\"synchronous_commit\":\"on\"",
                "\"kind\":\"setting\",\"collector\":\"postgres\",\"name\":\"synchronous_commit\","
                "\"from\":\"on\",\"to\":\"off\"");
    PGconn *c = itest_pg("postgres");
    itest_exec(c, "ALTER SYSTEM RESET synchronous_commit");
    itest_exec(c, "SELECT pg_reload_conf()");
    PQfinish(c);
}

static void
redis_change(void)
{
    redisContext *c = rtest_connect();

    rtest_do(c, "CONFIG SET maxmemory-policy allkeys-lru");
    redisFree(c);
}

static void
test_redis(void **state)
{
    redisContext *c = rtest_connect();

    rtest_do(c, "CONFIG SET maxmemory-policy noeviction");
    check_event(itest_env("BENCHTOP_RD_TARGET"), redis_change,
                "\"maxmemory-policy\":\"noeviction\"",
                "\"kind\":\"setting\",\"collector\":\"redis\",\"name\":\"maxmemory-policy\","
                "\"from\":\"noeviction\",\"to\":\"allkeys-lru\"");
    rtest_do(c, "CONFIG SET maxmemory-policy noeviction");
    redisFree(c);
}

static void
my_change(void)
{
    MYSQL *m = itest_my(NULL);

    itest_my_exec(m, "SET GLOBAL innodb_io_capacity = 321");
    mysql_close(m);
}

static void
test_mysql(void **state)
{
    MYSQL *m = itest_my(NULL);

    itest_my_exec(m, "SET GLOBAL innodb_io_capacity = 200");
    check_event(itest_my_target("benchtop"), my_change, "\"innodb_io_capacity\":\"200\"",
                "\"kind\":\"setting\",\"collector\":\"mysql\",\"name\":\"innodb_io_capacity\","
                "\"from\":\"200\",\"to\":\"321\"");
    itest_my_exec(m, "SET GLOBAL innodb_io_capacity = 200");
    mysql_close(m);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_postgres),
        cmocka_unit_test(test_redis),
        cmocka_unit_test(test_mysql),
    };
    return cmocka_run_group_tests_name("settings", tests, NULL, NULL);
}
