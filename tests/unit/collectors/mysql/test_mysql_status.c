/*
 * The MySQL collector's pure half: SHOW GLOBAL STATUS parsing on output
 * captured from MariaDB 10.11 and on a MySQL 8.0 sample, malformed and
 * cut-off input, and the rows derive makes from two samples.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/skip.h"

#ifdef HAVE_MYSQL

#include "collectors/mysql/mysql.h"
#include "mysql-status-samples.h"

static void
parse_ok(const char *text, struct my_sample *s)
{
    char err[BT_ERRLEN] = "";

    memset(s, 0, sizeof *s);
    if (my_status_parse(text, s, err) != 0)
        fail_msg("parse failed: %s", err);
}

static int
has(const struct my_sample *s, enum my_status_var v)
{
    return (int)((s->status_present >> v) & 1);
}

static const struct coll_row *
row(const struct coll_view *v, const char *section, const char *label)
{
    const struct coll_row *r = coll_row_find(v, section, label);

    if (r == NULL)
        fail_msg("no row %s / %s", section, label);
    return r;
}

static void
test_parse_mariadb(void **state)
{
    struct my_sample s;

    parse_ok(mariadb_10_11_status, &s);
    assert_true(has(&s, MY_UPTIME));
    assert_int_equal((long long)s.status[MY_UPTIME], 593);
    assert_int_equal((long long)s.status[MY_QUESTIONS], 1231040);
    assert_int_equal((long long)s.status[MY_COM_COMMIT], 38878);
    assert_int_equal((long long)s.status[MY_COM_SELECT], 1004728);
    assert_int_equal((long long)s.status[MY_THREADS_CONNECTED], 9);
    assert_int_equal((long long)s.status[MY_BP_READ_REQUESTS], 3928875);
    assert_int_equal((long long)s.status[MY_ROW_LOCK_WAITS], 14952);
    assert_int_equal((long long)s.status[MY_SQL_ROWS_READ], 5898398);
    /* MariaDB 10.11 has neither of these */
    assert_false(has(&s, MY_LOG_FSYNCS));
    assert_false(has(&s, MY_ROWS_READ));
    assert_false(has(&s, MY_ROWS_INSERTED));
}

static void
test_parse_mysql8(void **state)
{
    struct my_sample s;

    parse_ok(mysql_8_0_status, &s);
    assert_int_equal((long long)s.status[MY_UPTIME], 1834);
    assert_int_equal((long long)s.status[MY_LOG_FSYNCS], 104112);
    assert_int_equal((long long)s.status[MY_ROWS_READ], 11284004);
    assert_int_equal((long long)s.status[MY_ROWS_UPDATED], 104003);
    assert_false(has(&s, MY_SQL_ROWS_READ));
}

/* The interactive client's table, as someone might paste it. */
static void
test_parse_table_format(void **state)
{
    static const char text[] = "+---------------+-------+\n"
                               "| Variable_name | Value |\n"
                               "+---------------+-------+\n"
                               "| Questions     | 77    |\n"
                               "| Uptime        | 5     |\n"
                               "+---------------+-------+\n";
    struct my_sample s;

    parse_ok(text, &s);
    assert_int_equal((long long)s.status[MY_QUESTIONS], 77);
    assert_int_equal((long long)s.status[MY_UPTIME], 5);
}

static void
expect_error(const char *text, const char *want)
{
    struct my_sample s;
    char err[BT_ERRLEN] = "";

    memset(&s, 0, sizeof s);
    assert_int_equal(my_status_parse(text, &s, err), -1);
    if (strstr(err, want) == NULL)
        fail_msg("'%s' not in '%s'", want, err);
}

static void
test_malformed(void **state)
{
    expect_error("", "empty");
    expect_error("Uptime\t5\nQuestions 7\n", "line 2");
    expect_error("Uptime\t5\nQuestions\tabc\n", "Questions is not a number");
    expect_error("Uptime\t5\nQuestions\t\n", "Questions is not a number");
    expect_error("Uptime\t5\nQuestions\t12", "cut off");
    expect_error("Questions\t12\nCom_select\t3\n", "no Uptime");
    expect_error("Uptime\t1e999\n", "Uptime is not a number");
}

/*
 * Every cut of the captured output: never a crash, and success exactly
 * when the cut falls at the end of a line after the Uptime line.
 */
static void
test_truncated(void **state)
{
    size_t n = strlen(mariadb_10_11_status), len;
    char *buf = malloc(n + 1);
    const char *uptime = strstr(mariadb_10_11_status, "\nUptime\t");
    size_t need = (size_t)(strchr(uptime + 1, '\n') - mariadb_10_11_status) + 1;
    int ok = 0;

    for (len = 0; len <= n; len++) {
        struct my_sample s;
        char err[BT_ERRLEN];
        int expect;

        if (len % 7 != 0 && mariadb_10_11_status[len - 1] != '\n' && len != n)
            continue; /* every 7th cut, and every line end */
        memcpy(buf, mariadb_10_11_status, len);
        buf[len] = '\0';
        memset(&s, 0, sizeof s);
        expect = len >= need && len > 0 && buf[len - 1] == '\n' ? 0 : -1;
        assert_int_equal(my_status_parse(buf, &s, err), expect);
        ok += expect == 0;
    }
    assert_true(ok > 10);
    free(buf);
}

/* Bytes that are not text at all, including NULs cutting lines short. */
static void
test_garbage(void **state)
{
    char buf[4096];
    unsigned x = 12345;
    int round, i;

    for (round = 0; round < 200; round++) {
        struct my_sample s;
        char err[BT_ERRLEN];

        for (i = 0; i < (int)sizeof buf - 1; i++) {
            x = x * 1103515245u + 12345u;
            buf[i] = (char)(x >> 16);
            if (buf[i] == 0)
                buf[i] = '\n';
        }
        buf[sizeof buf - 1] = '\0';
        memset(&s, 0, sizeof s);
        assert_int_equal(my_status_parse(buf, &s, err), -1);
    }
}

/* cur = prev plus the given deltas, secs apart. */
static void
advance_sample(struct my_sample *cur, const struct my_sample *prev)
{
    *cur = *prev;
    cur->status[MY_UPTIME] += 2;
    cur->status[MY_QUESTIONS] += 1000;
    cur->status[MY_COM_COMMIT] += 250;
    cur->status[MY_COM_ROLLBACK] += 5;
    cur->status[MY_COM_SELECT] += 600;
    cur->status[MY_BP_READ_REQUESTS] += 10000;
    cur->status[MY_BP_READS] += 100;
    cur->status[MY_ROW_LOCK_WAITS] += 4;
    cur->status[MY_ROW_LOCK_TIME] += 10;
    cur->status[MY_SQL_ROWS_READ] += 3000;
    cur->status[MY_THREADS_CONNECTED] = 12;
}

static void
test_derive_rates(void **state)
{
    struct my_sample prev, cur;
    struct coll_view v;
    const struct coll_row *r;

    parse_ok(mariadb_10_11_status, &prev);
    advance_sample(&cur, &prev);
    my_derive(&prev, &cur, 2.0, &v);
    assert_true(fabs(row(&v, "queries", "questions/s")->num - 500) < 1e-9);
    assert_true(fabs(row(&v, "queries", "commit/s")->num - 125) < 1e-9);
    assert_true(fabs(row(&v, "queries", "select/s")->num - 300) < 1e-9);
    r = row(&v, "queries", "rollback/s");
    assert_true(fabs(r->num - 2.5) < 1e-9);
    assert_int_equal(r->level, ROW_WARN);
    assert_string_equal(r->value, "2.5");
    assert_true(fabs(v.server_tps - 127.5) < 1e-9);
    /* 100 disk reads for 10,000 requests: 99.00 % */
    r = row(&v, "innodb", "buffer pool hit %");
    assert_true(fabs(r->num - 99.0) < 1e-9);
    assert_string_equal(r->value, "99.00%"); /* issue 27: hit ratios carry % */
    assert_int_equal(r->level, ROW_GOOD);
    assert_true(fabs(row(&v, "innodb", "row lock ms/wait")->num - 2.5) < 1e-9);
    assert_true(fabs(row(&v, "innodb", "row lock waits/s")->num - 2) < 1e-9);
    /* MariaDB: rows read from Rows_read; the log fsyncs and rows inserted are not there */
    assert_true(fabs(row(&v, "innodb", "rows read/s")->num - 1500) < 1e-9);
    r = row(&v, "innodb", "log fsyncs/s");
    assert_int_equal(r->level, ROW_DIM);
    assert_string_equal(r->value, "n/a");
    assert_true(isnan(r->num));
    assert_int_equal(row(&v, "innodb", "rows inserted/s")->level, ROW_DIM);
    assert_int_equal((long long)row(&v, "sessions", "connected")->num, 12);
    assert_non_null(strstr(v.note, "Innodb_os_log_fsyncs"));
    assert_non_null(strstr(v.note, "Innodb_rows_inserted"));
    assert_null(strstr(v.note, "Innodb_rows_read"));
    assert_null(strstr(v.note, "Rows_read"));
    assert_int_equal(v.nevents, 0);
    assert_true(v.nrows <= COLL_MAX_ROWS);
    /* the redo log's room: checkpoint age 64,669,005 of 80,819,529 bytes */
    assert_true(fabs(v.sig.redo_fill - 64669005.0 / 80819529.0) < 1e-9);
    assert_string_equal(v.sig.redo_setting, "innodb_log_file_size");
}

static void
test_derive_first(void **state)
{
    struct my_sample s;
    struct coll_view v;
    const struct coll_row *r;

    parse_ok(mariadb_10_11_status, &s);
    my_derive(NULL, &s, 0, &v);
    r = row(&v, "queries", "questions/s");
    assert_true(isnan(r->num));
    assert_string_equal(r->value, "-");
    assert_true(isnan(v.server_tps));
    assert_int_equal((long long)row(&v, "sessions", "connected")->num, 9);
    assert_int_equal((long long)row(&v, "sessions", "running")->num, 2);
    /* the first hit ratio is over the server's life: 170 reads for 3,928,875 requests */
    assert_true(
        fabs(row(&v, "innodb", "buffer pool hit %")->num - 100.0 * (1 - 170.0 / 3928875.0)) < 1e-9);
}

static void
test_derive_restart(void **state)
{
    struct my_sample prev, cur;
    struct coll_view v;

    parse_ok(mariadb_10_11_status, &prev);
    advance_sample(&cur, &prev);
    cur.status[MY_UPTIME] = 3;
    cur.status[MY_QUESTIONS] = 10;
    my_derive(&prev, &cur, 2.0, &v);
    assert_int_equal(v.nevents, 1);
    assert_non_null(strstr(v.events[0], "restarted"));
    assert_true(isnan(row(&v, "queries", "questions/s")->num));
    assert_true(isnan(v.server_tps));
}

/* A counter that went down without a restart (FLUSH STATUS): no negative rate. */
static void
test_derive_counter_reset(void **state)
{
    struct my_sample prev, cur;
    struct coll_view v;

    parse_ok(mariadb_10_11_status, &prev);
    advance_sample(&cur, &prev);
    cur.status[MY_COM_SELECT] = 5;
    my_derive(&prev, &cur, 2.0, &v);
    assert_true(isnan(row(&v, "queries", "select/s")->num));
    assert_true(fabs(row(&v, "queries", "questions/s")->num - 500) < 1e-9);
}

static void
test_derive_mysql8(void **state)
{
    struct my_sample prev, cur;
    struct coll_view v;
    int i;

    parse_ok(mysql_8_0_status, &prev);
    cur = prev;
    cur.status[MY_UPTIME] += 1;
    cur.status[MY_LOG_FSYNCS] += 40;
    cur.status[MY_ROWS_READ] += 900;
    my_derive(&prev, &cur, 1.0, &v);
    assert_true(fabs(row(&v, "innodb", "log fsyncs/s")->num - 40) < 1e-9);
    assert_true(fabs(row(&v, "innodb", "rows read/s")->num - 900) < 1e-9);
    for (i = 0; i < v.nrows; i++)
        if (strcmp(v.rows[i].section, "queries") == 0 || strcmp(v.rows[i].section, "innodb") == 0)
            assert_int_not_equal(v.rows[i].level, ROW_DIM);
    assert_string_equal(v.note, ""); /* no checkpoint age in MySQL's status: none missing */
    assert_true(isnan(v.sig.redo_fill));
}

static void
test_processlist(void **state)
{
    struct my_sample s;
    struct coll_view v;
    const struct coll_row *r;

    parse_ok(mariadb_10_11_status, &s);
    s.proc_ok = 1;
    my_proc_add(&s, "Daemon", "InnoDB purge worker", 900, NULL);
    my_proc_add(&s, "Sleep", "", 3, NULL);
    my_proc_add(&s, "Query", "Sending data", 2, "SELECT c FROM sbtest1 WHERE id=5");
    my_proc_add(&s, "Query", "Sending data", 14, "SELECT SUM(k) FROM sbtest2");
    my_proc_add(&s, "Query", "Updating", 1, "UPDATE sbtest1 SET k=k+1 WHERE id=9");
    my_proc_add(&s, "Sleep", "", 1, NULL);
    my_proc_add(&s, "Sleep", "", 0, NULL);
    assert_int_equal(s.proc_total, 6); /* the daemon is not a session */
    my_derive(NULL, &s, 0, &v);
    assert_int_equal((long long)row(&v, "sessions", "Sleep")->num, 3);
    assert_int_equal((long long)row(&v, "sessions", "Query: Sending data")->num, 2);
    assert_int_equal((long long)row(&v, "sessions", "Query: Updating")->num, 1);
    /* the groups are listed largest first */
    assert_true(row(&v, "sessions", "Sleep") < row(&v, "sessions", "Query: Sending data"));
    r = row(&v, "sessions", "longest query");
    assert_int_equal((long long)r->num, 14);
    assert_int_equal(r->level, ROW_WARN);
    assert_string_equal(r->value, "14 s SELECT SUM(k) FROM sbtest2");
    assert_null(coll_row_find(&v, "sessions", "Daemon: InnoDB purge worker"));
}

/* Each processlist row's state, as MariaDB 10.11 and MySQL 8 show them. */
static void
test_session_states(void **state)
{
    assert_int_equal(my_state_of("Daemon", "InnoDB purge worker", NULL), MY_ST_SKIP);
    assert_int_equal(my_state_of("Sleep", "", NULL), MY_ST_IDLE);
    assert_int_equal(my_state_of("Sleep", "", "RUNNING"), MY_ST_IDLE_TX);
    assert_int_equal(my_state_of("Execute", "Updating", "LOCK WAIT"), MY_ST_LOCK);
    assert_int_equal(my_state_of("Query", "Waiting for table metadata lock", NULL), MY_ST_LOCK);
    assert_int_equal(my_state_of("Query", "Waiting for table level lock", "RUNNING"), MY_ST_LOCK);
    assert_int_equal(my_state_of("Query", "Commit", "RUNNING"), MY_ST_COMMIT);
    assert_int_equal(my_state_of("Query", "waiting for handler commit", "RUNNING"), MY_ST_COMMIT);
    assert_int_equal(my_state_of("Execute", "Updating", "RUNNING"), MY_ST_CPU);
    assert_int_equal(my_state_of("Query", NULL, NULL), MY_ST_CPU);
    assert_int_equal(my_state_of("Query", "User sleep", NULL), MY_ST_SLEEP); /* SELECT SLEEP(1) */
    /* what a lock waiter waits for (field trial 3: a MyISAM table lock advised "a larger scale") */
    assert_int_equal(my_lock_kind_of("Updating", "LOCK WAIT"), LK_ROW);
    assert_int_equal(my_lock_kind_of("Waiting for table level lock", NULL), LK_TABLE);
    assert_int_equal(my_lock_kind_of("Table lock", NULL), LK_TABLE);
    assert_int_equal(my_lock_kind_of("Waiting for table metadata lock", "RUNNING"), LK_METADATA);
    assert_int_equal(my_lock_kind_of("User lock", NULL), LK_ADVISORY);
    assert_int_equal(my_lock_kind_of("Waiting for table flush", NULL), LK_UNKNOWN);
    assert_int_equal(my_lock_kind_of(NULL, NULL), LK_UNKNOWN);
}

/*
 * Glances between samples become the verdict's averages; benchtop's own
 * sessions (by connection id) are told apart when every glance knew them.
 */
static void
test_probe_signals(void **state)
{
    struct my_sample s;
    struct coll_view v;
    int i;

    parse_ok(mariadb_10_11_status, &s);
    for (i = 0; i < 4; i++) { /* four glances: 2 of ours wait on a row, 1 commits; 6 others */
        my_probe_add(&s.probed, MY_ST_LOCK, 1);
        my_probe_add(&s.probed, MY_ST_LOCK, 1);
        my_probe_add(&s.probed, i < 2 ? MY_ST_COMMIT : MY_ST_CPU, 1);
        my_probe_add(&s.probed, MY_ST_IDLE, 1);
        my_probe_add(&s.probed, MY_ST_SKIP, 0);
        my_probe_add(&s.probed, MY_ST_LOCK, 0);
        my_probe_add(&s.probed, MY_ST_LOCK, 0);
        my_probe_add(&s.probed, MY_ST_IDLE_TX, 0);
        my_probe_add(&s.probed, MY_ST_IDLE, 0);
        my_probe_add(&s.probed, MY_ST_IDLE, 0);
        my_probe_add(&s.probed, MY_ST_IDLE, 0);
        s.probed.n++;
    }
    s.probed.own_known = 1;
    my_derive(NULL, &s, 0, &v);
    assert_true(v.sig.samples == 4);
    assert_true(v.sig.sessions == 10);
    assert_true(v.sig.active == 5);
    assert_true(v.sig.lock_wait == 4);
    assert_true(v.sig.commit_wait == 0.5);
    assert_true(v.sig.on_cpu == 0.5);
    assert_true(v.sig.idle_tx == 1);
    assert_true(v.sig.own_sessions == 4);
    assert_true(v.sig.own_active == 3);
    assert_true(v.sig.own_lock_wait == 2);
    assert_true(v.sig.own_commit_wait == 0.5);
    /* more connections than ownids holds: no session can be called another's */
    s.probed.own_known = 0;
    my_derive(NULL, &s, 0, &v);
    assert_true(isnan(v.sig.own_active));
    assert_true(v.sig.lock_wait == 4);
}

/* More (command, state) pairs than groups: the rest is counted, not dropped. */
static void
test_processlist_overflow(void **state)
{
    struct my_sample s;
    struct coll_view v;
    char st[16];
    int i;

    parse_ok(mariadb_10_11_status, &s);
    s.proc_ok = 1;
    for (i = 0; i < MY_PROC_GROUPS + 3; i++) {
        snprintf(st, sizeof st, "state %d", i);
        my_proc_add(&s, "Query", st, 0, "SELECT 1");
    }
    assert_int_equal(s.proc_total, MY_PROC_GROUPS + 3);
    my_derive(NULL, &s, 0, &v);
    assert_int_equal((long long)row(&v, "sessions", "other")->num, 3);
}

/* Without PROCESS only their own sessions are visible: those rows are dimmed and the note says so.
 */
static void
test_processlist_partial(void **state)
{
    struct my_sample s;
    struct coll_view v;

    parse_ok(mariadb_10_11_status, &s);
    s.proc_ok = 1;
    s.proc_partial = 1;
    my_proc_add(&s, "Sleep", "", 0, NULL);
    my_derive(NULL, &s, 0, &v);
    assert_int_equal(row(&v, "sessions", "Sleep")->level, ROW_DIM);
    assert_int_equal(row(&v, "sessions", "longest query")->level, ROW_DIM);
    assert_int_not_equal(row(&v, "sessions", "connected")->level, ROW_DIM);
    assert_non_null(strstr(v.note, "PROCESS"));
}

static void
test_settings(void **state)
{
    struct my_sample s;
    struct coll_view v;
    const struct coll_row *r;

    parse_ok(mariadb_10_11_status, &s);
    my_setting_set(&s, "innodb_buffer_pool_size", "134217728");
    my_setting_set(&s, "innodb_flush_log_at_trx_commit", "2");
    my_setting_set(&s, "sync_binlog", "0");
    my_setting_set(&s, "log_bin", "OFF");
    my_setting_set(&s, "max_connections", "10");
    my_setting_set(&s, "no_such_variable", "1");
    snprintf(s.version, sizeof s.version, "10.11.19-MariaDB");
    my_derive(NULL, &s, 0, &v);
    assert_string_equal(row(&v, "settings", "buffer pool")->value, "128 MiB");
    r = row(&v, "settings", "flush log at commit");
    assert_int_equal((long long)r->num, 2);
    assert_int_equal(r->level, ROW_WARN);
    r = row(&v, "settings", "sync_binlog");
    assert_string_equal(r->value, "0 (binlog off)");
    assert_int_equal(r->level, ROW_NORMAL);
    assert_string_equal(row(&v, "settings", "version")->value, "10.11.19-MariaDB");
    /* 9 of 10 connections in use */
    assert_int_equal(row(&v, "sessions", "connected")->level, ROW_BAD);
    /* binlog on and not synced at every commit */
    my_setting_set(&s, "log_bin", "ON");
    my_derive(NULL, &s, 0, &v);
    assert_int_equal(row(&v, "settings", "sync_binlog")->level, ROW_WARN);
    assert_string_equal(row(&v, "settings", "sync_binlog")->value, "0");
}

/* Each log that syncs at every commit is named: the redo log, the binary log (trial 3, C5). */
static void
test_commit_advice_names_both_syncs(void **state)
{
    struct my_sample s;
    struct coll_view v;

    parse_ok(mariadb_10_11_status, &s);
    my_setting_set(&s, "innodb_flush_log_at_trx_commit", "1");
    my_setting_set(&s, "sync_binlog", "1");
    my_setting_set(&s, "log_bin", "ON");
    my_derive(&s, &s, 1, &v);
    assert_string_equal(v.sig.commit_advice,
                        "innodb_flush_log_at_trx_commit = 2 and sync_binlog = 0 (both sync)");
    my_setting_set(&s, "innodb_flush_log_at_trx_commit", "2");
    my_derive(&s, &s, 1, &v);
    assert_string_equal(v.sig.commit_advice, "sync_binlog = 0 (the binary log syncs every commit)");
    assert_string_equal(v.sig.commit_try, "sync_binlog=0");
    my_setting_set(&s, "log_bin", "OFF");
    my_derive(&s, &s, 1, &v);
    assert_string_equal(v.sig.commit_advice, "");
    my_setting_set(&s, "innodb_flush_log_at_trx_commit", "1");
    my_derive(&s, &s, 1, &v);
    assert_string_equal(v.sig.commit_advice, "innodb_flush_log_at_trx_commit = 2");
}

static void
test_settings_missing(void **state)
{
    struct my_sample s;
    struct coll_view v;

    parse_ok(mariadb_10_11_status, &s);
    my_derive(NULL, &s, 0, &v);
    assert_int_equal(row(&v, "settings", "buffer pool")->level, ROW_DIM);
    assert_int_equal(row(&v, "settings", "version")->level, ROW_DIM);
    assert_int_equal(row(&v, "sessions", "processlist")->level, ROW_DIM);
}

static void
test_status_names(void **state)
{
    assert_string_equal(my_status_name(MY_COM_COMMIT), "Com_commit");
    assert_string_equal(my_status_name(MY_LOG_FSYNCS), "Innodb_os_log_fsyncs");
    assert_string_equal(my_status_name(MY_NSTATUS), "?");
}

/*
 * Glances saw 4 sessions on CPU and none on a lock, but row lock time grew
 * by 7 s over 2 s: 3.5 sessions waited on rows on average, so 3.5 move
 * from CPU to locks (MariaDB's INNODB_TRX lags new connections' waits).
 */
static void
test_lock_time_corrects_glances(void **state)
{
    struct my_sample prev, cur;
    struct coll_view v;
    int i;

    parse_ok(mariadb_10_11_status, &prev);
    advance_sample(&cur, &prev);
    cur.status[MY_ROW_LOCK_TIME] = prev.status[MY_ROW_LOCK_TIME] + 7000;
    for (i = 0; i < 4; i++)
        my_probe_add(&cur.probed, MY_ST_CPU, 0);
    cur.probed.n = 1;
    my_derive(&prev, &cur, 2.0, &v);
    assert_true(fabs(v.sig.lock_wait - 3.5) < 1e-9);
    assert_true(fabs(v.sig.on_cpu - 0.5) < 1e-9);
    /* the same with every session benchtop's: the waits are its own, none another's */
    memset(&cur.probed, 0, sizeof cur.probed);
    for (i = 0; i < 4; i++)
        my_probe_add(&cur.probed, MY_ST_CPU, 1);
    cur.probed.n = 1;
    cur.probed.own_known = 1;
    my_derive(&prev, &cur, 2.0, &v);
    assert_true(fabs(v.sig.own_lock_wait - 3.5) < 1e-9);
    assert_true(fabs(v.sig.lock_wait - v.sig.own_lock_wait) < 1e-9);
    /* half of those on CPU benchtop's: half the moved waits are */
    memset(&cur.probed, 0, sizeof cur.probed);
    for (i = 0; i < 4; i++)
        my_probe_add(&cur.probed, MY_ST_CPU, i < 2);
    cur.probed.n = 1;
    cur.probed.own_known = 1;
    my_derive(&prev, &cur, 2.0, &v);
    assert_true(fabs(v.sig.own_lock_wait - 1.75) < 1e-9);
    cur.probed.own_known = 0;
    /* lock time the glances already account for (2 seen, 1 on average) changes nothing */
    memset(&cur.probed, 0, sizeof cur.probed);
    for (i = 0; i < 4; i++)
        my_probe_add(&cur.probed, i < 2 ? MY_ST_LOCK : MY_ST_CPU, 0);
    cur.probed.n = 1;
    cur.status[MY_ROW_LOCK_TIME] = prev.status[MY_ROW_LOCK_TIME] + 2000;
    my_derive(&prev, &cur, 2.0, &v);
    assert_true(v.sig.lock_wait == 2);
    assert_true(v.sig.on_cpu == 2);
}

/*
 * What each processlist state stands for: our reading of MariaDB's
 * General Thread States, row by row. The trial's MariaDB showed
 * "Statistics" (InnoDB's range estimates reading pages from disk) and
 * "Updating status" as on CPU.
 */
static void
test_state_table(void **state)
{
    static const struct {
        const char *command, *state, *trx;
        enum my_state want;
    } rows[] = {
        {"Sleep", "", NULL, MY_ST_IDLE},
        {"Sleep", "", "RUNNING", MY_ST_IDLE_TX},
        {"Query", "Sending data", "RUNNING", MY_ST_CPU},
        {"Query", "Updating", "RUNNING", MY_ST_CPU},
        {"Query", "Searching rows for update", NULL, MY_ST_CPU},
        {"Execute", "executing", NULL, MY_ST_CPU},
        {"Query", "Creating sort index", NULL, MY_ST_CPU},
        {"Query", "Statistics", "RUNNING", MY_ST_READ},
        {"Query", "statistics", NULL, MY_ST_READ},
        {"Query", "Copying to tmp table on disk", NULL, MY_ST_READ},
        {"Query", "converting HEAP to Aria", NULL, MY_ST_READ},
        {"Query", "Updating status", "RUNNING", MY_ST_COMMIT},
        {"Query", "Opening tables", NULL, MY_ST_OTHER},
        {"Query", "closing tables", NULL, MY_ST_OTHER},
        {"Query", "Sending to client", NULL, MY_ST_OTHER},
        {"Query", "Writing to net", NULL, MY_ST_OTHER},
        {"Query", "Waiting for lock", NULL, MY_ST_LOCK},
        {"Query", "Waiting for table metadata lock", NULL, MY_ST_LOCK},
        {"Query", "Waiting for commit lock", NULL, MY_ST_LOCK}, /* FTWRL's, not the log's */
        {"Query", "System lock", NULL, MY_ST_LOCK},
        {"Query", "Locked", NULL, MY_ST_LOCK},
        {"Query", "User lock", NULL, MY_ST_LOCK},
        {"Query", "Waiting for table flush", NULL, MY_ST_LOCK},
        {"Query", "Updating", "LOCK WAIT", MY_ST_LOCK},
        {"Query", "Statistics", "LOCK WAIT", MY_ST_LOCK},
        {"Query", "Commit", "RUNNING", MY_ST_COMMIT},
        {"Query", "Commit implicit", NULL, MY_ST_COMMIT},
        {"Query", "Waiting for prior transaction to commit", NULL, MY_ST_COMMIT},
        {"Query", "waiting for handler commit", NULL, MY_ST_COMMIT},
        {"Query", "Sending data", "COMMITTING", MY_ST_COMMIT},
        {"Query", "Sending data", "ROLLING BACK", MY_ST_OTHER},
        {"Daemon", "InnoDB purge coordinator", NULL, MY_ST_SKIP},
        {"Killed", "", NULL, MY_ST_SKIP},
    };

    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (my_state_of(rows[i].command, rows[i].state, rows[i].trx) != rows[i].want)
            fail_msg("%s / %s / %s: %d, want %d", rows[i].command, rows[i].state,
                     rows[i].trx ? rows[i].trx : "-",
                     my_state_of(rows[i].command, rows[i].state, rows[i].trx), rows[i].want);
}

/* Reads apart from commits, and benchtop's sessions on CPU, reading and idle. */
static void
test_probe_reads_apart(void **state)
{
    struct my_sample s;
    struct coll_view v;

    parse_ok(mariadb_10_11_status, &s);
    my_probe_add(&s.probed, MY_ST_READ, 1);
    my_probe_add(&s.probed, MY_ST_READ, 1);
    my_probe_add(&s.probed, MY_ST_COMMIT, 1);
    my_probe_add(&s.probed, MY_ST_CPU, 1);
    my_probe_add(&s.probed, MY_ST_OTHER, 1);
    my_probe_add(&s.probed, MY_ST_IDLE, 1);
    my_probe_add(&s.probed, MY_ST_IDLE_TX, 1);
    my_probe_add(&s.probed, MY_ST_READ, 0);
    s.probed.n = 1;
    s.probed.own_known = 1;
    my_derive(NULL, &s, 0, &v);
    assert_true(v.sig.io_wait == 3);
    assert_true(v.sig.commit_wait == 1);
    assert_true(v.sig.on_cpu == 1);
    assert_true(v.sig.active == 6);
    assert_true(v.sig.own_io_wait == 2);
    assert_true(v.sig.own_on_cpu == 1);
    assert_true(v.sig.own_idle == 2);
    assert_true(v.sig.own_commit_wait == 3);    /* the commit's and the reads' I/O, as before */
    assert_true(isnan(v.sig.lock_root_commit)); /* no glance looked at the chains */
}

/*
 * MariaDB 10.11 has no Innodb_os_log_fsyncs: with
 * innodb_flush_log_at_trx_commit = 1 each log write is synced, so the
 * writes are the syncs; with 2 the syncs are not the commits' (unknown).
 * The buffer pool's misses are disk reads, and its hit ratio the rest.
 */
static void
test_log_syncs_and_pool(void **state)
{
    struct my_sample prev, cur;
    struct coll_view v;

    parse_ok(mariadb_10_11_status, &prev);
    assert_false(prev.status_present & (1ull << MY_LOG_FSYNCS));
    my_setting_set(&prev, "innodb_flush_log_at_trx_commit", "1");
    advance_sample(&cur, &prev);
    cur.status[MY_LOG_WRITES] += 300;
    my_derive(&prev, &cur, 2.0, &v);
    assert_true(v.sig.log_syncs_s == 150);
    assert_true(v.sig.disk_reads_s == 50);
    assert_true(fabs(v.sig.hit_ratio - 0.99) < 1e-9);
    assert_non_null(coll_row_find(&v, "innodb", "log writes/s"));
    my_setting_set(&cur, "innodb_flush_log_at_trx_commit", "2");
    my_derive(&prev, &cur, 2.0, &v);
    assert_true(isnan(v.sig.log_syncs_s));
}

/* benchtop's lock waiters whose chain's root is another session's statement. */
static void
test_stall_by_others(void **state)
{
    struct my_sample s;
    struct coll_view v;

    parse_ok(mariadb_10_11_status, &s);
    for (int i = 0; i < 4; i++)
        my_probe_add(&s.probed, i < 3 ? MY_ST_LOCK : MY_ST_CPU, 1);
    s.probed.n = 2; /* two glances: 4 of ours each time */
    my_probe_add(&s.probed, MY_ST_LOCK, 1);
    my_probe_add(&s.probed, MY_ST_LOCK, 1);
    my_probe_add(&s.probed, MY_ST_LOCK, 1);
    my_probe_add(&s.probed, MY_ST_CPU, 1);
    s.probed.own_known = 1;
    s.probed.roots = 2;
    s.probed.root_other = 6;
    s.stall_own = 6; /* 3 waiters on another application's UPDATE, both glances */
    snprintf(s.stall_what, sizeof s.stall_what, "42 (31 s): UPDATE t SET v = 1");
    my_derive(NULL, &s, 0, &v);
    assert_true(v.sig.lock_root_other == 3);
    assert_true(v.sig.lock_root_commit == 0);
    assert_true(fabs(v.sig.other_stall_share - 0.75) < 1e-9);
    assert_string_equal(v.sig.other_stall_what, "42 (31 s): UPDATE t SET v = 1");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_mariadb),
        cmocka_unit_test(test_parse_mysql8),
        cmocka_unit_test(test_parse_table_format),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_derive_rates),
        cmocka_unit_test(test_derive_first),
        cmocka_unit_test(test_derive_restart),
        cmocka_unit_test(test_derive_counter_reset),
        cmocka_unit_test(test_derive_mysql8),
        cmocka_unit_test(test_processlist),
        cmocka_unit_test(test_session_states),
        cmocka_unit_test(test_probe_signals),
        cmocka_unit_test(test_processlist_overflow),
        cmocka_unit_test(test_processlist_partial),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_commit_advice_names_both_syncs),
        cmocka_unit_test(test_settings_missing),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_lock_time_corrects_glances),
        cmocka_unit_test(test_state_table),
        cmocka_unit_test(test_probe_reads_apart),
        cmocka_unit_test(test_log_syncs_and_pool),
        cmocka_unit_test(test_stall_by_others),
    };
    return cmocka_run_group_tests_name("mysql_status", tests, NULL, NULL);
}

#else

int
main(void)
{
    test_skip_program("the mysql backend is not built");
    return 0;
}

#endif
