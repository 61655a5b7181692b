/*
 * benchtop try against real servers: a PostgreSQL whose every fsync takes
 * 20 ms more (the slow-fsync shim), where synchronous_commit=off must win
 * by far and be put back; an A/A try (never faster or slower with an
 * advice that "did not hold"); SIGTERM during a B round (reverted
 * before exit) and SIGKILL (try --undo reverts); a restart-only setting
 * and --read-only refused; Redis appendfsync put back. Each server value
 * is read with the server's own SHOW / CONFIG GET, not through benchtop.
 * No timing is asserted: a round is found running by polling the server.
 */
#include "itest-try.h"
#include "itest-mysql.h"
#include "itest-redis.h"

#include <sys/stat.h>

static char slow[600]; /* the slow-fsync PostgreSQL's target */
static pid_t slow_pid;
static int slow_keep;
static char state_dir[] = "/tmp/itest-try-XXXXXX";

static int
setup(void **state)
{
    char *init[] = {"init", slow, "-q", NULL};
    struct run r;

    if (mkdtemp(state_dir) == NULL)
        return -1;
    setenv("XDG_STATE_HOME", state_dir, 1); /* the undo files of this test's tries */
    slow_pid = itest_slow_pg(slow, sizeof slow, 20, &slow_keep);
    if (slow[0] == '\0')
        return -1;
    r = itest_runv(init);
    itest_free(&r);
    return r.status;
}

static int
teardown(void **state)
{
    char cmd[700];

    close(slow_keep);
    waitpid(slow_pid, NULL, 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", state_dir);
    return system(cmd);
}

/* SHOW name on the slow server, from a connection of the test's own. */
static char *
show(const char *name)
{
    static char value[64];
    char sql[128];
    PGconn *c = PQconnectdb(slow);
    PGresult *r;

    assert_int_equal(PQstatus(c), CONNECTION_OK);
    snprintf(sql, sizeof sql, "SHOW %s", name);
    r = PQexec(c, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    snprintf(value, sizeof value, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(c);
    return value;
}

/* Times needle occurs in text. */
static int
occurrences(const char *text, const char *needle)
{
    int n = 0;

    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/*
 * report --html of a try's record: the table (its sentence escaped in a
 * pre), then tps and p99 over time, a line per round and each round's
 * measured part shaded: 3 rounds a side on 2 charts.
 */
static void
check_html(const char *rec)
{
    char html[700], *page;
    char *args[] = {"report", (char *)rec, "--html", html, NULL};
    struct run r;
    int fd;

    snprintf(html, sizeof html, "%s/try.html", state_dir);
    r = itest_runv(args);
    assert_int_equal(r.status, 0);
    itest_free(&r);
    fd = open(html, O_RDONLY);
    assert_true(fd >= 0);
    page = itest_slurp(fd);
    close(fd);
    assert_non_null(strstr(page, "<pre id=\"try\">"));
    assert_non_null(strstr(page, "B is faster: +"));
    assert_null(strstr(page, "\\x0a")); /* the table's lines, not escaped newlines */
    assert_non_null(strstr(page, "<svg class=\"chart\" id=\"tps\""));
    assert_int_equal(occurrences(page, "<rect class=\"round a\""), 6);
    assert_int_equal(occurrences(page, "<rect class=\"round b\""), 6);
    assert_int_equal(occurrences(page, "<polyline class=\"series\""), 12);
    assert_int_equal(occurrences(page, ">B2</text>"), 2);
    free(page);
}

/*
 * Three pairs (the first look, at --rounds 3 the only one): a x5 is
 * faster with its interval, and the commit-bound advice held. report of
 * the record prints the same table; two records give the advice's
 * record.
 */
static void
test_sync_commit_off_wins(void **state)
{
    char rec[700];
    char *args[] = {
        "try",      slow, "-w",    "tpcb-like", "-c",       "4", "--set", "synchronous_commit=off",
        "--rounds", "3",  "--for", "3",         "--warmup", "1", "-o",    rec,
        NULL};
    char *twice[] = {"report", rec, rec, NULL};
    char *report[] = {"report", rec, NULL};
    struct run r, rep;
    double a, b;

    snprintf(rec, sizeof rec, "%s/try.jsonl", state_dir);
    r = itest_runv(args);
    fprintf(stderr, "%s%s", r.err, r.out);
    assert_int_equal(r.status, 0);
    a = itest_row_tps(r.out, "\nA ");
    b = itest_row_tps(r.out, "\nB ");
    assert_true(b > a); /* 20 ms per commit's fsync against none: a x5+ effect */
    assert_non_null(strstr(r.out, "\nB is faster: +"));
    assert_non_null(strstr(r.out, "], 3 pairs (beyond \u00b15%)\n"));
    /* scored against the model's range: "expected B faster by +90% to ... (measured ...): held" */
    assert_non_null(strstr(r.out, "its advice expected B faster by +"));
    assert_non_null(strstr(r.out, "]): held\n"));
    assert_non_null(
        strstr(r.out, "\nstopped: decisive after 3 pairs; each pair AB or BA by seed "));
    assert_string_equal(show("synchronous_commit"), "on");
    assert_int_equal(itest_undo_files(state_dir), 0);
    rep = itest_runv(report); /* the record's try line gives the same table */
    assert_int_equal(rep.status, 0);
    assert_string_equal(rep.out, r.out);
    itest_free(&rep);
    rep = itest_runv(twice); /* each table, then the advice's record */
    assert_int_equal(rep.status, 0);
    assert_non_null(strstr(rep.out, "\nthe advice's record: 2 tries: 2 held, 0 did not, "
                                    "0 inconclusive\n  commit/I/O-bound: 2 tries: 2 held"));
    itest_free(&rep);
    itest_free(&r);
    check_html(rec);
}

static void
test_same_value_no_difference(void **state)
{
    char *args[] = {
        "try",      slow, "-w",    "tpcb-like", "-c",       "2", "--set", "synchronous_commit=on",
        "--rounds", "2",  "--for", "2",         "--warmup", "1", NULL};
    struct run r = itest_runv(args);

    fprintf(stderr, "%s", r.out);
    assert_int_equal(r.status, 0);
    /* at 2 pairs (t = 12.7) an A/A is inconclusive or no effect: not decided either way */
    assert_true(strstr(r.out, "\ninconclusive: ") != NULL ||
                strstr(r.out, "\nno meaningful effect: ") != NULL);
    assert_non_null(strstr(r.out, "], 2 pairs ("));
    assert_null(strstr(r.out, "did not hold")); /* B sets what A has: nothing to score */
    assert_string_equal(show("synchronous_commit"), "on");
    itest_free(&r);
}

/* Starts a try and returns once its B round has changed the server (polled, at most 60 s). */
static pid_t
start_until_b(int *o, int *e)
{
    char *args[] = {
        "try",      slow, "-w",    "tpcb-like", "-c",       "2", "--set", "synchronous_commit=off",
        "--rounds", "2",  "--for", "3",         "--warmup", "1", NULL};
    pid_t pid = itest_spawn(args, o, e);

    /* B set and still set 300 ms later: inside a B round, not at its revert (AB BA: B, B) */
    for (int i = 0, seen = 0; i < 600 && seen < 4; i++) {
        seen = strcmp(show("synchronous_commit"), "off") == 0 ? seen + 1 : 0;
        itest_sleep_ms(100);
    }
    assert_string_equal(show("synchronous_commit"), "off");
    return pid;
}

static void
test_sigterm_in_b_reverts(void **state)
{
    int o, e;
    pid_t pid = start_until_b(&o, &e);
    struct run r;

    kill(pid, SIGTERM);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 128 + SIGTERM);
    assert_non_null(strstr(r.err, "put back"));
    assert_string_equal(show("synchronous_commit"), "on");
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

static void
test_sigkill_then_undo(void **state)
{
    char *again[] = {"try", slow, "--set", "synchronous_commit=off", NULL};
    char *undo[] = {"try", "--undo", slow, NULL};
    int o, e;
    pid_t pid = start_until_b(&o, &e);
    struct run r;

    kill(pid, SIGKILL);
    r = itest_finish(pid, o, e);
    itest_free(&r);
    assert_string_equal(show("synchronous_commit"), "off"); /* nothing could revert it */
    assert_int_equal(itest_undo_files(state_dir), 1);
    r = itest_runv(again); /* a leftover stops a new try, in one line */
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "try --undo"));
    assert_int_equal(itest_lines(r.err), 1);
    itest_free(&r);
    r = itest_runv(undo);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "put synchronous_commit back to default"));
    assert_string_equal(show("synchronous_commit"), "on");
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

static void
test_restart_only_refused(void **state)
{
    char before[64];
    char *args[] = {"try", slow, "--set", "shared_buffers=64MB", NULL};
    struct run r;

    snprintf(before, sizeof before, "%s", show("shared_buffers"));
    r = itest_runv(args);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "shared_buffers needs a restart"));
    assert_int_equal(itest_lines(r.err), 1);
    assert_string_equal(show("shared_buffers"), before);
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

static void
test_read_only_refused(void **state)
{
    char *args[] = {"try", slow, "--read-only", "--set", "synchronous_commit=off", NULL};
    struct run r = itest_runv(args);

    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--read-only refuses try"));
    assert_string_equal(show("synchronous_commit"), "on");
    itest_free(&r);
}

static char *
redis_appendfsync(redisContext *c)
{
    static char value[32];
    redisReply *r = rtest_cmd(c, "CONFIG GET appendfsync");

    assert_int_equal(r->elements, 2);
    snprintf(value, sizeof value, "%s", r->element[1]->str);
    freeReplyObject(r);
    return value;
}

static void
test_redis_appendfsync_put_back(void **state)
{
    char *args[] = {"try",      itest_env("BENCHTOP_RD_TARGET"),
                    "--set",    "appendfsync=always",
                    "--rounds", "2",
                    "--for",    "2",
                    "--warmup", "1",
                    NULL};
    redisContext *c = rtest_connect();
    char before[32];
    struct run r;

    rtest_do(c, "CONFIG SET appendfsync everysec");
    snprintf(before, sizeof before, "%s", redis_appendfsync(c));
    r = itest_runv(args);
    fprintf(stderr, "%s", r.out);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "], 2 pairs ("));
    assert_string_equal(redis_appendfsync(c), before);
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
    redisFree(c);
}

static void
test_sweep_set_values(void **state)
{
    char *args[] = {"sweep",       slow, "-w",           "tpcb-like",
                    "-c",          "4",  "--set-values", "synchronous_commit=on,off",
                    "--step-time", "2",  "--warmup",     "1",
                    NULL};
    struct run r = itest_runv(args);
    const char *on, *off;

    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 0);
    on = strstr(r.out, "\"value\":\"on\"");
    off = strstr(r.out, "\"value\":\"off\"");
    assert_non_null(on);
    assert_non_null(off);
    assert_true(itest_num(off, "tps") > itest_num(on, "tps"));
    assert_non_null(strstr(r.out, "\"type\":\"sweep\",\"sweep\":\"setting\""));
    assert_non_null(strstr(r.err, "most tps: synchronous_commit=off"));
    assert_string_equal(show("synchronous_commit"), "on");
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
}

static void
test_mysql_flush_log_put_back(void **state)
{
    char *args[] = {"try",      itest_my_target("bt_my_try"),
                    "-c",       "2",
                    "--set",    "innodb_flush_log_at_trx_commit=0",
                    "--rounds", "2",
                    "--for",    "2",
                    "--warmup", "1",
                    NULL};
    char *ro[] = {"try", itest_my_target("bt_my_try"), "--set", "innodb_page_size=8192", NULL};
    MYSQL *m = itest_my(NULL);
    struct run r;

    assert_int_equal(itest_my_fresh_db("bt_my_try", "1", "1000"), 0);
    itest_my_exec(m, "SET GLOBAL innodb_flush_log_at_trx_commit = 1");
    r = itest_runv(args);
    fprintf(stderr, "%s", r.out);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "], 2 pairs ("));
    assert_int_equal(itest_my_scalar(m, "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit"), 1);
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
    r = itest_runv(ro); /* a read-only variable: refused before anything changes */
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "innodb_page_size is read-only"));
    assert_int_equal(itest_undo_files(state_dir), 0);
    itest_free(&r);
    mysql_close(m);
}

/* Client-side tries need no server permission: B's clients and threads, the sentence's form. */
static void
test_client_side_tries(void **state)
{
    char *clients[] = {"try",
                       itest_env("BENCHTOP_RD_TARGET"),
                       "-c",
                       "1",
                       "--try-clients",
                       "8",
                       "--rounds",
                       "2",
                       "--for",
                       "1",
                       "--warmup",
                       "0.5",
                       NULL};
    char *threads[] = {"try",
                       itest_env("BENCHTOP_RD_TARGET"),
                       "-c",
                       "4",
                       "--try-threads",
                       "2",
                       "--rounds",
                       "2",
                       "--for",
                       "1",
                       "--warmup",
                       "0.5",
                       "--read-only",
                       NULL};
    struct run r = itest_runv(clients);

    fprintf(stderr, "%s", r.out);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "B = -c 8;"));
    assert_non_null(strstr(r.out, "], 2 pairs ("));
    assert_int_equal(itest_count_lines(r.err, "B: "), 2); /* a line per B round */
    itest_free(&r);
    r = itest_runv(threads); /* --read-only refuses every try, client-side ones too */
    assert_int_equal(r.status, 2);
    itest_free(&r);
    threads[12] = NULL;
    r = itest_runv(threads);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "B = -j 2;"));
    itest_free(&r);
}

/* The lines of the file at path that hold both a and b. */
static int
lines_with(const char *path, const char *a, const char *b)
{
    int fd = open(path, O_RDONLY), n = 0;
    char *text, *line, *save = NULL;

    assert_true(fd >= 0);
    text = itest_slurp(fd);
    close(fd);
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
        n += strstr(line, a) != NULL && strstr(line, b) != NULL;
    free(text);
    return n;
}

/* `try target -c 2 B --rounds 2 --for 1 --warmup 0.5 -o rec` (B: one or two words), exit 0. */
static struct run
try_client(const char *target, const char *rec, const char *opt, const char *value)
{
    char *args[16] = {"try", (char *)target, "-c", "2", (char *)opt};
    char *rest[] = {"--rounds", "2", "--for", "1", "--warmup", "0.5", "-o", (char *)rec, NULL};
    int n = 5;
    struct run r;

    if (value != NULL)
        args[n++] = (char *)value;
    memcpy(&args[n], rest, sizeof rest);
    r = itest_runv(args);
    fprintf(stderr, "%s%s", r.err, r.out);
    assert_int_equal(r.status, 0);
    return r;
}

/*
 * B's client side changed: each B round's own lines in the -o record say
 * it ran so (the pipeline depth in its run line, the protocol and the
 * connections in its summary), and A's rounds ran as given. A protocol
 * the driver does not speak, or a pipeline where it has none, is refused
 * in one line.
 */
static void
test_client_side_pipeline_protocol_connect(void **state)
{
    const char *rd = itest_env("BENCHTOP_RD_TARGET");
    char rec[700], *bad[] = {"try", slow, "--try-protocol", "bogus", NULL};
    char *nopipe[] = {"try", slow, "--try-pipeline", "8", NULL};
    const char *b;
    char *text;
    int fd;
    struct run r;

    snprintf(rec, sizeof rec, "%s/client.jsonl", state_dir);
    r = try_client(rd, rec, "--try-pipeline", "16");
    assert_non_null(strstr(r.out, "B = --pipeline 16;"));
    assert_int_equal(lines_with(rec, "\"type\":\"run\"", "\"pipeline\":16"), 2);
    assert_int_equal(lines_with(rec, "\"type\":\"run\"", "\"clients\""), 4);
    itest_free(&r);

    r = try_client(slow, rec, "--try-protocol", "prepared");
    assert_non_null(strstr(r.out, "B = -M prepared;"));
    assert_int_equal(lines_with(rec, "\"type\":\"summary\"", "\"protocol\":\"prepared\""), 2);
    assert_int_equal(lines_with(rec, "\"type\":\"summary\"", "\"protocol\":\"simple\""), 2);
    itest_free(&r);

    r = try_client(rd, rec, "--try-connect", NULL);
    assert_non_null(strstr(r.out, "B = -C;"));
    assert_int_equal(lines_with(rec, "\"type\":\"summary\"", "\"connect_per_txn\":true"), 2);
    assert_int_equal(lines_with(rec, "\"type\":\"summary\"", "\"connect_per_txn\":false"), 2);
    itest_free(&r);
    fd = open(rec, O_RDONLY);
    text = itest_slurp(fd);
    close(fd);
    b = itest_line(text, "\"connect_per_txn\":true"); /* B: a connection per transaction */
    assert_true(itest_num(b, "connects") >= itest_num(b, "transactions"));
    free(text);

    r = itest_runv(bad);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--try-protocol bogus: postgres speaks simple, extended, "
                                  "prepared"));
    assert_int_equal(itest_lines(r.err), 1);
    itest_free(&r);
    r = itest_runv(nopipe);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "does not pipeline requests"));
    itest_free(&r);
}

/* SHOW name on the slow server, or "" while it cannot be reached (a restart). */
static const char *
show_maybe(const char *name)
{
    static char value[64];
    char sql[128];
    PGconn *c = PQconnectdb(slow);
    PGresult *r;

    value[0] = '\0';
    snprintf(sql, sizeof sql, "SHOW %s", name);
    if (PQstatus(c) == CONNECTION_OK && (r = PQexec(c, sql)) != NULL) {
        if (PQresultStatus(r) == PGRES_TUPLES_OK)
            snprintf(value, sizeof value, "%s", PQgetvalue(r, 0, 0));
        PQclear(r);
    }
    PQfinish(c);
    return value;
}

/*
 * --restart: max_locks_per_transaction (restart-only) tried on the
 * throwaway that benchtop serve keeps: B runs with it (seen with SHOW
 * while B runs), the original is back after the last restart.
 * shared_buffers, which serve's server sets on its command line, and the
 * harness's server, not kept by a serve this test started, are refused
 * in one line.
 */
static void
test_restart_on_throwaway(void **state)
{
    char before[64], *cmdline[] = {"try", slow, "--restart", "--set", "shared_buffers=48MB", NULL};
    char *elsewhere[] = {"try",   (char *)itest_target("postgres"), "--restart",
                         "--set", "max_locks_per_transaction=128",  NULL};
    char *args[] = {"try", slow,       "--restart", "--set", "max_locks_per_transaction=128",
                    "-c",  "2",        "--rounds",  "1",     "--for",
                    "3",   "--warmup", "0.5",       NULL};
    int o, e, i, seen = 0;
    pid_t pid;
    struct run r;

    snprintf(before, sizeof before, "%s", show("max_locks_per_transaction"));
    assert_string_not_equal(before, "128");
    pid = itest_spawn(args, &o, &e);
    for (i = 0; i < 600 && !seen; i++) {
        seen = strcmp(show_maybe("max_locks_per_transaction"), "128") == 0;
        itest_sleep_ms(50);
    }
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s%s", r.err, r.out);
    assert_int_equal(r.status, 0);
    assert_true(seen); /* B ran with it: a restart applied it */
    assert_non_null(strstr(r.out, "B = max_locks_per_transaction=128;"));
    itest_free(&r);
    for (i = 0; i < 300 && show_maybe("max_locks_per_transaction")[0] == '\0'; i++)
        itest_sleep_ms(100);
    assert_string_equal(show("max_locks_per_transaction"), before);
    assert_int_equal(itest_undo_files(state_dir), 0);

    r = itest_runv(cmdline);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "shared_buffers is set on the server's command line"));
    assert_int_equal(itest_lines(r.err), 1);
    itest_free(&r);
    r = itest_runv(elsewhere);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "is not a throwaway server"));
    assert_int_equal(itest_lines(r.err), 1);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_commit_off_wins),
        cmocka_unit_test(test_same_value_no_difference),
        cmocka_unit_test(test_sigterm_in_b_reverts),
        cmocka_unit_test(test_sigkill_then_undo),
        cmocka_unit_test(test_restart_only_refused),
        cmocka_unit_test(test_restart_on_throwaway),
        cmocka_unit_test(test_read_only_refused),
        cmocka_unit_test(test_redis_appendfsync_put_back),
        cmocka_unit_test(test_sweep_set_values),
        cmocka_unit_test(test_mysql_flush_log_put_back),
        cmocka_unit_test(test_client_side_tries),
        cmocka_unit_test(test_client_side_pipeline_protocol_connect),
    };
    if (getenv("ITEST_FILTER") != NULL) /* e.g. ITEST_FILTER='test_client_*' */
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests_name("try", tests, setup, teardown);
}
