/*
 * A try puts back exactly what was there (issue 46), on the suite's
 * throwaway PostgreSQL, MariaDB, Redis and Redis Cluster, each value read
 * with the server's own SHOW, pg_file_settings, @@GLOBAL or CONFIG GET:
 * values longer than 63 bytes; a PostgreSQL list; postgresql.auto.conf's
 * line as written (pending or applied, the admin's spelling); a role's
 * setting that masks the global one refused; one try at a time per server
 * and a value someone else changed during the try left alone; the undo
 * file found whatever the target's spelling; a refused setting leaves
 * nothing to undo; secrets refused; a cluster refused. Then the property:
 * for a seeded sample of each server's changeable settings, a try killed
 * at a random moment and `try --undo` leave the configuration byte for
 * byte as it was (BENCHTOP_TRY_SEED repeats a run; the seed is printed).
 */
#include "itest-try.h"
#include "itest-mysql.h"
#include "itest-redis.h"

#include <sys/stat.h>
#include <time.h>

static char state_dir[] = "/tmp/itest-try-undo-XXXXXX";
static char script_pg[] = "/tmp/itest-try-undo-pg-XXXXXX";
static char script_my[] = "/tmp/itest-try-undo-my-XXXXXX";

static void
write_script(char *path, const char *text)
{
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static int
setup(void **state)
{
    if (mkdtemp(state_dir) == NULL)
        return -1;
    setenv("XDG_STATE_HOME", state_dir, 1);
    write_script(script_pg, "SELECT 1;\n");
    write_script(script_my, "SELECT 1;\n");
    return 0;
}

static int
teardown(void **state)
{
    char cmd[700];

    unlink(script_pg);
    unlink(script_my);
    snprintf(cmd, sizeof cmd, "rm -rf %s", state_dir);
    return system(cmd);
}

/* Each test starts without another's undo file (a failed one's would stop every later try). */
static int
fresh(void **state)
{
    char cmd[700];

    snprintf(cmd, sizeof cmd, "rm -f %s/benchtop/undo-*.json", state_dir);
    return system(cmd);
}

/* ---- reading the servers, not through benchtop ---- */

/* The first cell of sql on PostgreSQL ("<null>" for NULL, "<none>" for no row); static. */
static const char *
pg_cell(const char *sql)
{
    static char value[4096];
    PGconn *c = itest_pg("postgres");
    PGresult *r = PQexec(c, sql);

    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    snprintf(value, sizeof value, "%s",
             PQntuples(r) == 0      ? "<none>"
             : PQgetisnull(r, 0, 0) ? "<null>"
                                    : PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(c);
    return value;
}

static void
pg_do(const char *sql)
{
    PGconn *c = itest_pg("postgres");

    itest_exec(c, sql);
    PQfinish(c);
}

/* postgresql.auto.conf's line for name, as written ("<none>" without one). */
static const char *
pg_auto(const char *name)
{
    char sql[300];

    snprintf(sql, sizeof sql,
             "SELECT setting FROM pg_file_settings WHERE name = '%s' AND sourcefile LIKE "
             "'%%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1",
             name);
    return pg_cell(sql);
}

static const char *
pg_show(const char *name)
{
    char sql[200];

    snprintf(sql, sizeof sql, "SELECT current_setting('%s')", name);
    return pg_cell(sql);
}

/* postgresql.auto.conf's whole text. */
static char *
pg_auto_text(void)
{
    return strdup(pg_cell("SELECT pg_read_file('postgresql.auto.conf')"));
}

static char *
my_global(MYSQL *m, const char *name)
{
    char sql[200];
    MYSQL_RES *r;
    MYSQL_ROW row;
    char *v;

    snprintf(sql, sizeof sql, "SELECT @@GLOBAL.%s", name);
    assert_int_equal(mysql_query(m, sql), 0);
    r = mysql_store_result(m);
    assert_non_null(r);
    row = mysql_fetch_row(r);
    v = strdup(row && row[0] ? row[0] : "<null>");
    mysql_free_result(r);
    return v;
}

static char *
rd_get(redisContext *c, const char *name)
{
    redisReply *r = rtest_cmd(c, "CONFIG GET %s", name);
    char *v;

    assert_int_equal(r->elements, 2);
    v = strdup(r->element[1]->str);
    freeReplyObject(r);
    return v;
}

/* CONFIG GET * as one text, names sorted: the whole configuration. */
static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *
rd_all(redisContext *c)
{
    redisReply *r = rtest_cmd(c, "CONFIG GET *");
    size_t n = r->elements / 2, len = 1;
    char **pairs = calloc(n, sizeof *pairs), *out;

    for (size_t i = 0; i < n; i++) {
        if (asprintf(&pairs[i], "%s=%s\n", r->element[2 * i]->str, r->element[2 * i + 1]->str) < 0)
            abort();
        len += strlen(pairs[i]);
    }
    qsort(pairs, n, sizeof *pairs, cmp_str);
    out = calloc(1, len);
    for (size_t i = 0; i < n; i++) {
        strcat(out, pairs[i]);
        free(pairs[i]);
    }
    free(pairs);
    freeReplyObject(r);
    return out;
}

/* ---- running try ---- */

/* A short try: one pair of rounds of a second each, SELECT 1 on SQL servers. */
static struct run
try_short(const char *target, const char *set)
{
    const char *script = strncmp(target, "mysql", 5) == 0      ? script_my
                         : strncmp(target, "postgres", 8) == 0 ? script_pg
                                                               : NULL;
    char *args[] = {"try",
                    (char *)target,
                    "--set",
                    (char *)set,
                    "--rounds",
                    "1",
                    "--for",
                    "1",
                    "-P",
                    "0.5",
                    "--warmup",
                    "0",
                    script ? "-f" : NULL,
                    (char *)script,
                    NULL};

    return itest_runv(args);
}

static struct run
try_undo(const char *target)
{
    char *args[] = {"try", "--undo", (char *)target, NULL};

    return itest_runv(args);
}

/* Starts a longer try (4 pairs of 2 s rounds); returns once check(arg) says B is on. */
static pid_t
spawn_until(const char *target, const char *set, int (*b_on)(void *), void *arg, int *o, int *e)
{
    const char *script = strncmp(target, "mysql", 5) == 0      ? script_my
                         : strncmp(target, "postgres", 8) == 0 ? script_pg
                                                               : NULL;
    char *args[] = {"try",
                    (char *)target,
                    "--set",
                    (char *)set,
                    "--rounds",
                    "4",
                    "--for",
                    "2",
                    "-P",
                    "0.5",
                    "--warmup",
                    "0",
                    script ? "-f" : NULL,
                    (char *)script,
                    NULL};
    pid_t pid = itest_spawn(args, o, e);
    int i;

    for (i = 0; i < 300 && !b_on(arg); i++)
        itest_sleep_ms(50);
    assert_true(i < 300);
    return pid;
}

/* The Redis target with its host spelled as host instead of 127.0.0.1. */
static char *
rd_target_as(const char *host)
{
    static char buf[512];
    const char *t = itest_env("BENCHTOP_RD_TARGET"), *at = strstr(t, "127.0.0.1");

    assert_non_null(at);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - t), t, host, at + strlen("127.0.0.1"));
    return buf;
}

/* The one undo file's text ("" when none). */
static char *
undo_text(void)
{
    char cmd[700];
    FILE *p;
    char *text = calloc(1, 1 << 16);
    size_t n;

    snprintf(cmd, sizeof cmd, "cat %s/benchtop/undo-*.json 2>/dev/null", state_dir);
    p = popen(cmd, "r");
    n = fread(text, 1, (1 << 16) - 1, p);
    text[n] = '\0';
    pclose(p);
    return text;
}

/* ---- 1. values longer than 63 bytes ---- */

static void
test_long_mysql_sql_mode(void **state)
{
    MYSQL *m = itest_my(NULL);
    char *before = my_global(m, "sql_mode"), *after;
    struct run r;

    assert_true(strlen(before) > 63); /* MariaDB's default: 87 characters */
    r = try_short(itest_my_target("mysql"), "sql_mode=ANSI_QUOTES");
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    after = my_global(m, "sql_mode");
    assert_string_equal(after, before);
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
    free(before);
    free(after);
    mysql_close(m);
}

static int
rd_is(void *arg)
{
    const char **nv = arg;
    redisContext *c = rtest_connect();
    char *v = rd_get(c, nv[0]);
    int on = strcmp(v, nv[1]) == 0;

    free(v);
    redisFree(c);
    return on;
}

static void
test_long_redis_killed_then_undo(void **state)
{
    const char *target = itest_env("BENCHTOP_RD_TARGET");
    const char *nv[] = {"client-output-buffer-limit", "normal 1 1 1 slave 268435456 67108864 60 "
                                                      "pubsub 33554432 8388608 60"};
    redisContext *c = rtest_connect();
    char *before = rd_get(c, nv[0]), *after, *text;
    int o, e;
    pid_t pid;
    struct run r;

    assert_true(strlen(before) > 63);
    pid = spawn_until(target, "client-output-buffer-limit=normal 1 1 1", rd_is, nv, &o, &e);
    kill(pid, SIGKILL);
    r = itest_finish(pid, o, e);
    itest_free(&r);
    text = undo_text();
    assert_non_null(strstr(text, before)); /* the undo file keeps the whole value */
    free(text);
    r = try_undo(target);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    after = rd_get(c, nv[0]);
    assert_string_equal(after, before);
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
    free(before);
    free(after);
    redisFree(c);
}

static void
test_long_pg_log_line_prefix(void **state)
{
    const char *prefix =
        "%m [%p] %q%u@%d app=%a client=%h line=%l txid=%x vxid=%v sess=%c tag=%i state=%e ...";
    struct run r;
    char want[200];

    assert_int_equal(strlen(prefix), 84);
    snprintf(want, sizeof want, "%s%s", prefix, "ABCDEF"); /* 90 bytes */
    {
        char sql[400];
        snprintf(sql, sizeof sql, "ALTER SYSTEM SET log_line_prefix = '%s'", want);
        pg_do(sql);
        pg_do("SELECT pg_reload_conf()");
    }
    r = try_short(itest_env("BENCHTOP_PG_TARGET"), "log_line_prefix=%m ");
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_string_equal(pg_auto("log_line_prefix"), want);
    itest_sleep_ms(200); /* the revert's reload */
    assert_string_equal(pg_show("log_line_prefix"), want);
    itest_free(&r);
    pg_do("ALTER SYSTEM RESET log_line_prefix");
    pg_do("SELECT pg_reload_conf()");
}

/* ---- 2. a PostgreSQL list ---- */

static void
test_pg_list_setting(void **state)
{
    struct run r;

    pg_do("ALTER SYSTEM SET search_path = public, foo, '$user'");
    pg_do("SELECT pg_reload_conf()");
    assert_string_equal(pg_auto("search_path"), "public, foo, \"$user\"");
    r = try_short(itest_env("BENCHTOP_PG_TARGET"), "search_path=public");
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_string_equal(pg_auto("search_path"), "public, foo, \"$user\"");
    itest_sleep_ms(200);
    assert_string_equal(pg_show("search_path"), "public, foo, \"$user\"");
    itest_free(&r);
    pg_do("ALTER SYSTEM RESET search_path");
    pg_do("SELECT pg_reload_conf()");
}

/* ---- 3. the source put back, not the shown value ---- */

static void
test_pg_pending_line_and_spelling_kept(void **state)
{
    struct run r;

    pg_do("ALTER SYSTEM SET work_mem = '16384kB'"); /* written, not reloaded */
    r = try_short(itest_env("BENCHTOP_PG_TARGET"), "work_mem=64MB");
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_string_equal(pg_auto("work_mem"), "16384kB");
    itest_free(&r);
    pg_do("ALTER SYSTEM RESET work_mem");
    pg_do("SELECT pg_reload_conf()");
}

static void
test_pg_role_setting_refused(void **state)
{
    char *before;
    struct run r;

    pg_do("ALTER SYSTEM SET random_page_cost = '1.10'");
    pg_do("SELECT pg_reload_conf()");
    pg_do("ALTER ROLE CURRENT_USER SET random_page_cost = 3");
    before = pg_auto_text();
    r = try_short(itest_env("BENCHTOP_PG_TARGET"), "random_page_cost=2");
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_non_null(strstr(r.err, "ALTER ROLE"));
    assert_non_null(strstr(r.err, "RESET random_page_cost"));
    assert_string_equal(pg_auto_text(), before);
    assert_string_equal(pg_auto("random_page_cost"), "1.10");
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
    free(before);
    pg_do("ALTER ROLE CURRENT_USER RESET random_page_cost");
    pg_do("ALTER SYSTEM RESET random_page_cost");
    pg_do("SELECT pg_reload_conf()");
}

/* ---- 4. one try at a time; a value changed by someone else is left ---- */

static void
test_one_try_at_a_time_and_drift(void **state)
{
    const char *target = itest_env("BENCHTOP_RD_TARGET");
    const char *nv[] = {"hz", "33"};
    redisContext *c = rtest_connect();
    char *after;
    int o, e;
    pid_t pid;
    struct run r, second;

    rtest_do(c, "CONFIG SET hz 10");
    pid = spawn_until(target, "hz=33", rd_is, nv, &o, &e);
    second = try_short(rd_target_as("localhost"), "hz=44"); /* another spelling, same server */
    fprintf(stderr, "%s", second.err);
    assert_int_equal(second.status, 2);
    assert_int_equal(itest_lines(second.err), 1);
    assert_non_null(strstr(second.err, "another benchtop try"));
    itest_free(&second);
    rtest_do(c, "CONFIG SET hz 21"); /* an admin's change during B */
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2); /* the next B round would overwrite it: the try stops */
    assert_non_null(strstr(r.err, "hz was changed during the try by someone else (now 21"));
    assert_non_null(strstr(r.err, "the try stops"));
    after = rd_get(c, "hz");
    assert_string_equal(after, "21");
    assert_int_equal(itest_undo_files(state_dir), 0);
    free(after);
    itest_free(&r);
    rtest_do(c, "CONFIG SET hz 10");
    redisFree(c);
}

/* ---- 5. the undo file found whatever the target's spelling ---- */

static void
test_leftover_found_by_server_identity(void **state)
{
    const char *nv[] = {"hz", "37"};
    redisContext *c = rtest_connect();
    char *after;
    int o, e;
    pid_t pid;
    struct run r;

    rtest_do(c, "CONFIG SET hz 10");
    pid = spawn_until(rd_target_as("127.0.0.1"), "hz=37", rd_is, nv, &o, &e);
    kill(pid, SIGKILL);
    r = itest_finish(pid, o, e);
    itest_free(&r);
    r = try_short(rd_target_as("localhost"), "hz=38");
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_non_null(strstr(r.err, "try --undo"));
    itest_free(&r);
    after = rd_get(c, "hz");
    assert_string_equal(after, "37"); /* the second try changed nothing */
    free(after);
    r = try_undo(rd_target_as("localhost"));
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "put hz back to 10"));
    after = rd_get(c, "hz");
    assert_string_equal(after, "10");
    assert_int_equal(itest_undo_files(state_dir), 0);
    free(after);
    itest_free(&r);
    redisFree(c);
}

/* ---- 6. a refused setting leaves nothing to undo ---- */

static void
test_refused_setting_leaves_nothing(void **state)
{
    const char *target = itest_env("BENCHTOP_RD_TARGET");
    redisContext *c = rtest_connect();
    char *before = rd_get(c, "dir"), *after;
    struct run r = try_short(target, "dir=/tmp"); /* a protected config: CONFIG SET refuses */

    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "protected"));
    assert_int_equal(itest_undo_files(state_dir), 0);
    after = rd_get(c, "dir");
    assert_string_equal(after, before);
    itest_free(&r);
    r = try_undo(target);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "nothing to put back"));
    itest_free(&r);
    free(before);
    free(after);
    redisFree(c);
}

/* ---- 7. secrets ---- */

static void
test_secrets_refused(void **state)
{
    const char *names[] = {"masterauth=hunter2-secret", "requirepass=hunter2-secret",
                           "masteruser_password=hunter2-secret", NULL};
    redisContext *c = rtest_connect();
    char *before = rd_get(c, "masterauth"), *after;

    for (int i = 0; names[i] != NULL; i++) {
        struct run r = try_short(itest_env("BENCHTOP_RD_TARGET"), names[i]);

        assert_int_equal(r.status, 2);
        assert_int_equal(itest_lines(r.err), 1);
        assert_non_null(strstr(r.err, "secrets"));
        assert_null(strstr(r.err, "hunter2"));
        assert_null(strstr(r.out, "hunter2"));
        assert_int_equal(itest_undo_files(state_dir), 0);
        itest_free(&r);
    }
    after = rd_get(c, "masterauth");
    assert_string_equal(after, before);
    free(before);
    free(after);
    redisFree(c);
}

/* ---- 8. a Redis Cluster ---- */

static void
test_cluster_refused(void **state)
{
    const char *target = itest_env("BENCHTOP_RC_TARGET");
    char *sweep[] = {
        "sweep", (char *)target, "--set-values", "hz=20,30", "--step-time", "1", "--warmup",
        "0",     "-P",           "0.5",          NULL};
    struct run r = try_short(target, "hz=20");

    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_non_null(strstr(r.err, "Redis Cluster"));
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
    r = itest_runv(sweep);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "Redis Cluster"));
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

/* ---- the campaign's small findings ---- */

/* try -o on a full device names the file it could not write (not "(null)"), in one line. */
static void
test_output_full_named(void **state)
{
    char *args[] = {"try",
                    itest_env("BENCHTOP_RD_TARGET"),
                    "--try-clients",
                    "2",
                    "--rounds",
                    "1",
                    "--for",
                    "1",
                    "-P",
                    "0.5",
                    "--warmup",
                    "0",
                    "-o",
                    "/dev/full",
                    NULL};
    struct run r = itest_runv(args);

    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "cannot write to /dev/full"));
    assert_null(strstr(r.err, "(null)"));
    itest_free(&r);
}

/* inspect --json and report to a full device: one line naming standard output, exit 1. */
static void
test_stdout_full_said(void **state)
{
    char rec[700];
    char *tr[] = {"try",
                  itest_env("BENCHTOP_RD_TARGET"),
                  "--try-clients",
                  "2",
                  "--rounds",
                  "1",
                  "--for",
                  "1",
                  "-P",
                  "0.5",
                  "--warmup",
                  "0",
                  "-o",
                  rec,
                  NULL};
    char *inspect[] = {"inspect", itest_env("BENCHTOP_RD_TARGET"), "--json", NULL};
    char *report[] = {"report", rec, NULL};
    char *const *cmds[] = {inspect, report};
    struct run r;

    snprintf(rec, sizeof rec, "%s/try.jsonl", state_dir);
    r = itest_runv(tr);
    assert_int_equal(r.status, 0);
    itest_free(&r);
    for (int i = 0; i < 2; i++) {
        int full = open("/dev/full", O_WRONLY), o, e;
        pid_t pid = itest_spawn_to(cmds[i], full, &o, &e);

        r = itest_finish(pid, full, e);
        fprintf(stderr, "%s", r.err);
        assert_int_equal(r.status, 1);
        assert_int_equal(itest_lines(r.err), 1);
        assert_non_null(strstr(r.err, "cannot write to standard output"));
        itest_free(&r);
    }
}

/*
 * Under a memory limit (ulimit -v) a thread that cannot start ends the run
 * in one line, exit 2, whichever thread it is (a worker, the collector, a
 * SQLite connection's job thread): never an abort.
 */
static void
test_thread_start_under_ulimit(void **state)
{
    char db[700], target[800], *init[] = {"init", target, "--rows", "1000", "-q", NULL};
    struct run r;

    snprintf(db, sizeof db, "%s/ulimit.db", state_dir);
    snprintf(target, sizeof target, "sqlite://%s", db);
    r = itest_runv(init);
    assert_int_equal(r.status, 0);
    itest_free(&r);
    for (int kb = 30000; kb <= 120000; kb += 10000) {
        char cmd[1200];
        int st;

        snprintf(cmd, sizeof cmd,
                 "ulimit -v %d; exec %s run %s -c 8 -j 2 -T 1 --headless >/dev/null "
                 "2>%s/ulimit.err",
                 kb, itest_env("BENCHTOP_BIN"), target, state_dir);
        st = system(cmd);
        snprintf(cmd, sizeof cmd, "%s/ulimit.err", state_dir);
        int fd = open(cmd, O_RDONLY);
        char *err = itest_slurp(fd);
        close(fd);
        fprintf(stderr, "ulimit -v %d: status %d: %s", kb, WEXITSTATUS(st), err);
        assert_true(WIFEXITED(st));
        assert_true(WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 2);
        assert_null(strstr(err, "internal error"));
        /* a thread refused: that one line; else the run started (its summary, where SQLite out
         * of memory may say "cannot start a transaction within a transaction") */
        if (strncmp(err, "benchtop: cannot start ", 23) == 0)
            assert_int_equal(itest_lines(err), 1);
        free(err);
    }
}

/* ---- the property: killed at a random moment, --undo puts everything back ---- */

static unsigned long long prop_state;

static unsigned
prop_rand(unsigned n)
{
    prop_state = prop_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((prop_state >> 33) % n);
}

/* Kills try at a random moment of its run (or lets it end), then try --undo. */
static void
kill_and_undo(const char *target, const char *set)
{
    const char *script = strncmp(target, "mysql", 5) == 0      ? script_my
                         : strncmp(target, "postgres", 8) == 0 ? script_pg
                                                               : NULL;
    char *args[] = {"try",
                    (char *)target,
                    "--set",
                    (char *)set,
                    "--rounds",
                    "1",
                    "--for",
                    "1",
                    "-P",
                    "0.5",
                    "--warmup",
                    "0",
                    script ? "-f" : NULL,
                    (char *)script,
                    NULL};
    int o, e, ms = (int)prop_rand(2600);
    pid_t pid = itest_spawn(args, &o, &e);
    struct run r;

    itest_sleep_ms(ms);
    kill(pid, SIGKILL);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "property: %s --set %s killed at %d ms (status %d)\n", target, set, ms,
            r.status);
    itest_free(&r);
    r = try_undo(target);
    if (r.status != 0)
        fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

/* A value other than v for a PostgreSQL setting of vartype, within [min, max]; 0 if none. */
static int
pg_other(const char *vartype, const char *v, const char *min, const char *max, const char *enums,
         char *out, size_t len)
{
    if (strcmp(vartype, "bool") == 0)
        return snprintf(out, len, "%s", strcmp(v, "on") == 0 ? "off" : "on") > 0;
    if (strcmp(vartype, "enum") == 0) { /* {a,b,c}: the first other than v */
        char list[1024], *tok, *save;
        snprintf(list, sizeof list, "%s", enums + 1);
        list[strcspn(list, "}")] = '\0';
        for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            if (strcmp(tok, v) != 0 && tok[0] != '"')
                return snprintf(out, len, "%s", tok) > 0;
        return 0;
    }
    double x = strtod(v, NULL), step = strcmp(vartype, "real") == 0 ? 0.5 : 1;
    double y = x + step <= strtod(max, NULL) ? x + step : x - step;

    if (y < strtod(min, NULL))
        return 0;
    return snprintf(out, len, strcmp(vartype, "real") == 0 ? "%g" : "%.0f", y) > 0;
}

static void
property_pg(int k)
{
    const char *target = itest_env("BENCHTOP_PG_TARGET");
    PGconn *c = itest_pg("postgres");
    PGresult *res =
        PQexec(c, "SELECT name, vartype, setting, coalesce(min_val, ''), coalesce(max_val, ''),"
                  " coalesce(enumvals::text, '') FROM pg_settings WHERE context IN ('user', "
                  "'superuser', 'sighup') AND vartype IN ('bool', 'enum', 'integer', 'real')"
                  " AND name !~ '(timeout|pass|auth|secret|read_only|deferrable|exit_on_error|"
                  "replication_role|^ssl|isolation|^debug_|^trace_|^log_|client_min_messages|db_"
                  "user_namespace|krb_)'"
                  " ORDER BY name");
    int n = PQntuples(res);

    assert_true(n > 50);
    for (int i = 0; i < k; i++) {
        int row = (int)prop_rand((unsigned)n);
        const char *name = PQgetvalue(res, row, 0);
        char b[200], set[300], *auto_before, *show_before = NULL;

        if (!pg_other(PQgetvalue(res, row, 1), PQgetvalue(res, row, 2), PQgetvalue(res, row, 3),
                      PQgetvalue(res, row, 4), PQgetvalue(res, row, 5), b, sizeof b))
            continue;
        snprintf(set, sizeof set, "%s=%s", name, b);
        auto_before = pg_auto_text();
        show_before = strdup(pg_show(name));
        kill_and_undo(target, set);
        itest_sleep_ms(200); /* the revert's reload */
        assert_string_equal(pg_auto_text(), auto_before);
        assert_string_equal(pg_show(name), show_before);
        free(auto_before);
        free(show_before);
    }
    PQclear(res);
    PQfinish(c);
}

static void
property_mysql(int k)
{
    MYSQL *m = itest_my(NULL);
    MYSQL_RES *res;
    MYSQL_ROW row;
    int n;

    assert_int_equal(
        mysql_query(m,
                    "SELECT LOWER(VARIABLE_NAME), VARIABLE_TYPE, GLOBAL_VALUE, NUMERIC_MIN_VALUE,"
                    " NUMERIC_MAX_VALUE, ENUM_VALUE_LIST FROM information_schema.SYSTEM_VARIABLES"
                    " WHERE READ_ONLY = 'NO' AND VARIABLE_SCOPE IN ('GLOBAL', 'SESSION')"
                    " AND GLOBAL_VALUE IS NOT NULL AND (VARIABLE_TYPE IN ('BOOLEAN', 'ENUM')"
                    " OR VARIABLE_TYPE LIKE '%INT%') AND VARIABLE_NAME NOT REGEXP"
                    " '(READ_ONLY|WSREP|GTID|BUFFER_POOL_SIZE|MAX_USER_CONNECTIONS|TIMEOUT|"
                    "PASS|AUTH|SECRET|DEBUG|SQL_LOG|OFFLINE|INNODB_FAST_SHUTDOWN|SLAVE|"
                    "REPLICA|BINLOG|LOG_BIN|RPL|SERVER_ID|AUTOCOMMIT|MAX_CONNECT)'"
                    " ORDER BY 1"),
        0);
    res = mysql_store_result(m);
    n = (int)mysql_num_rows(res);
    assert_true(n > 50);
    for (int i = 0; i < k; i++) {
        char b[200], set[300], *before, *after;
        const char *name, *type, *v;

        mysql_data_seek(res, prop_rand((unsigned)n));
        row = mysql_fetch_row(res);
        name = row[0];
        type = row[1];
        v = row[2];
        if (strcmp(type, "BOOLEAN") == 0)
            snprintf(b, sizeof b, "%s", strcmp(v, "ON") == 0 ? "OFF" : "ON");
        else if (strcmp(type, "ENUM") == 0) {
            char list[1024], *tok, *save;
            b[0] = '\0';
            snprintf(list, sizeof list, "%s", row[5] ? row[5] : "");
            for (tok = strtok_r(list, ",", &save); tok && !b[0]; tok = strtok_r(NULL, ",", &save))
                if (strcasecmp(tok, v) != 0)
                    snprintf(b, sizeof b, "%s", tok);
            if (!b[0])
                continue;
        } else {
            double x = strtod(v, NULL), max = row[4] ? strtod(row[4], NULL) : x + 1;
            snprintf(b, sizeof b, "%.0f", x + 1 <= max ? x + 1 : x - 1);
        }
        snprintf(set, sizeof set, "%s=%s", name, b);
        before = my_global(m, name);
        kill_and_undo(itest_my_target("mysql"), set);
        after = my_global(m, name);
        assert_string_equal(after, before);
        free(before);
        free(after);
    }
    mysql_free_result(res);
    mysql_close(m);
}

static void
property_redis(int k)
{
    static const char *const skip[] = {
        "maxmemory", "timeout", "min-replicas", "min-slaves", "appendonly", "maxmemory-clients",
        "port",      "tls",     "cluster",      "replica",    "slave",      "save",
        NULL};
    redisContext *c = rtest_connect();
    redisReply *all = rtest_cmd(c, "CONFIG GET *");
    size_t n = all->elements / 2;

    for (int i = 0; i < k;) {
        size_t at = prop_rand((unsigned)n);
        const char *name = all->element[2 * at]->str, *v = all->element[2 * at + 1]->str;
        char b[100], set[300], *before, *after, *end;
        int bad = 0;

        for (int s = 0; skip[s]; s++)
            bad |= strstr(name, skip[s]) == name || strcmp(name, skip[s]) == 0;
        if (bad || strstr(name, "pass") || strstr(name, "auth"))
            continue;
        if (strcmp(v, "yes") == 0 || strcmp(v, "no") == 0)
            snprintf(b, sizeof b, "%s", v[0] == 'y' ? "no" : "yes");
        else if (strtoll(v, &end, 10), *v && *end == '\0')
            snprintf(b, sizeof b, "%lld", strtoll(v, NULL, 10) + 1);
        else
            continue;
        i++;
        snprintf(set, sizeof set, "%s=%s", name, b);
        before = rd_all(c);
        kill_and_undo(itest_env("BENCHTOP_RD_TARGET"), set);
        after = rd_all(c);
        assert_string_equal(after, before);
        free(before);
        free(after);
    }
    freeReplyObject(all);
    redisFree(c);
}

static void
test_property_killed_then_undo(void **state)
{
    const char *env = getenv("BENCHTOP_TRY_SEED");
    unsigned long long seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL);

    fprintf(stderr, "property seed %llu (BENCHTOP_TRY_SEED=%llu repeats it)\n", seed, seed);
    prop_state = seed;
    property_redis(4);
    property_pg(3);
    property_mysql(3);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_secrets_refused, fresh),
        cmocka_unit_test_setup(test_cluster_refused, fresh),
        cmocka_unit_test_setup(test_refused_setting_leaves_nothing, fresh),
        cmocka_unit_test_setup(test_long_mysql_sql_mode, fresh),
        cmocka_unit_test_setup(test_long_redis_killed_then_undo, fresh),
        cmocka_unit_test_setup(test_long_pg_log_line_prefix, fresh),
        cmocka_unit_test_setup(test_pg_list_setting, fresh),
        cmocka_unit_test_setup(test_pg_pending_line_and_spelling_kept, fresh),
        cmocka_unit_test_setup(test_pg_role_setting_refused, fresh),
        cmocka_unit_test_setup(test_one_try_at_a_time_and_drift, fresh),
        cmocka_unit_test_setup(test_leftover_found_by_server_identity, fresh),
        cmocka_unit_test_setup(test_output_full_named, fresh),
        cmocka_unit_test_setup(test_stdout_full_said, fresh),
        cmocka_unit_test_setup(test_thread_start_under_ulimit, fresh),
        cmocka_unit_test_setup(test_property_killed_then_undo, fresh),
    };

    if (getenv("ITEST_FILTER") != NULL) /* e.g. ITEST_FILTER='test_pg_*' */
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
