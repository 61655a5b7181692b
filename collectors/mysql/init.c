/*
 * mysql/init: blocking connections, error hints, the checks a run makes
 * before it starts, and `benchtop init` for MySQL and MariaDB.
 *
 * init reproduces sysbench 1.0's oltp_common.lua prepare: the same
 * sbtestN tables (columns, engine, primary key, the secondary index k_N
 * created after the load), the same values (k uniform in [1, table_size],
 * c and pad as groups of random digits), loaded with multi-row INSERTs, so
 * sysbench and benchtop can run on the same data. MySQL cannot roll DDL
 * back, so init remembers which tables it created and drops them again when
 * it fails or is interrupted (SIGINT, SIGTERM).
 */
#include "mysql.h"
#include "base/jobthread.h"
#include "collectors/mysql/conn.h"
#include "base/progress.h"
#include "base/text.h"

#include <errmsg.h>
#include <mysqld_error.h>
#include <signal.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/optdef.h"
#include "base/rand.h"
#include "engine/runconf.h"

/* Blocking connects give up after this long, so a port where nothing speaks MySQL fails soon. */
enum { CONNECT_TIMEOUT_S = 5 };

/* INSERT statements of init are at most this big (and below the server's max_allowed_packet). */
enum { BATCH_MAX = 4 << 20, ROW_MAX = 256 };

const char my_c_template[MY_C_LEN + 1] =
    "###########-###########-###########-###########-###########-"
    "###########-###########-###########-###########-###########";
const char my_pad_template[MY_PAD_LEN + 1] =
    "###########-###########-###########-###########-###########";

/*
 * Fixes for the errors users actually meet, by error number; first match
 * wins. needle narrows an entry to messages containing it (NULL: any).
 */
static const struct my_hint {
    unsigned errnum;
    const char *needle;
    const char *hint;
} my_hints[] = {
    {ER_ACCESS_DENIED_ERROR, NULL, "(check the user and password, or ~/.my.cnf)"},
    {ER_DBACCESS_DENIED_ERROR, NULL, "(grant the user access to this database, or name another)"},
    {ER_BAD_DB_ERROR, NULL,
     "(create it with CREATE DATABASE, or name an existing database in the target)"},
    {ER_HOST_NOT_PRIVILEGED, NULL, "(create the user for this client's host, e.g. 'user'@'%')"},
    {ER_CON_COUNT_ERROR, NULL, "(raise max_connections or close other sessions)"},
    {ER_TOO_MANY_USER_CONNECTIONS, NULL, "(raise the user's connection limit)"},
    {ER_SERVER_SHUTDOWN, NULL, "(wait until the server accepts connections)"},
    {ER_NO_SUCH_TABLE, NULL, "(run: benchtop init TARGET)"},
    {ER_TABLEACCESS_DENIED_ERROR, NULL, "(grant the user the privileges it needs on the tables)"},
    {ER_SPECIFIC_ACCESS_DENIED_ERROR, NULL, "(connect as a user with the needed privileges)"},
    {ER_RECORD_FILE_FULL, NULL, "(free disk space on the server)"},
    /* Connector/C reports refused TCP connections as 2002 too, with a host in the message. */
    {CR_CONNECTION_ERROR, "socket", "(is the server running? check the socket path)"},
    {CR_CONNECTION_ERROR, NULL, "(is the server running and is host:port right?)"},
    {CR_CONN_HOST_ERROR, NULL, "(is the server running and is host:port right?)"},
    {CR_UNKNOWN_HOST, NULL, "(check the host name)"},
    {CR_SERVER_LOST, "handshake", "(is host:port a MySQL or MariaDB server?)"},
    {CR_SERVER_LOST, "initial communication", "(is host:port a MySQL or MariaDB server?)"},
    {CR_SERVER_LOST, NULL, "(check the server log)"},
    {CR_SERVER_GONE_ERROR, NULL, "(check the server log)"},
    {CR_VERSION_ERROR, NULL, "(is host:port a MySQL or MariaDB server?)"},
    {CR_MALFORMED_PACKET, NULL, "(is host:port a MySQL or MariaDB server?)"},
    {CR_SERVER_HANDSHAKE_ERR, NULL, "(is host:port a MySQL or MariaDB server?)"},
    {CR_SSL_CONNECTION_ERROR, NULL, "(check the ssl-* parameters of the target)"},
    {CR_AUTH_PLUGIN_CANNOT_LOAD, NULL,
     "(the server asks for an authentication plugin this client lacks)"},
};

/* State of one `benchtop init`. Times are in microseconds. */
struct init_run {
    MYSQL *m;
    const struct init_conf *ic;
    const struct my_opts *o; /* ic->opts */
    struct rng rng;
    char *created; /* [i] for sbtest(i+1), [tables] for the counter table: made by this run */
    char *kept;    /* indexed the same: there already, left alone (without --force) */
    char *batch;   /* one INSERT statement */
    char db[80];   /* the target's database, for messages */
    size_t batch_max;
    int64_t rows_total;
    int64_t rows_done;
    struct progress progress;
    uint64_t drop_us, create_us, insert_us, index_us;
};

/* ---- errors ---- */

const char *
my_error_hint(unsigned errnum, const char *message)
{
    size_t i;

    for (i = 0; i < sizeof my_hints / sizeof my_hints[0]; i++) {
        const struct my_hint *h = &my_hints[i];
        if (h->errnum == errnum &&
            (h->needle == NULL || (message != NULL && strstr(message, h->needle) != NULL)))
            return h->hint;
    }
    return "";
}

int
my_error_is_conn_lost(unsigned errnum)
{
    /*
     * Client-side errors (2000-2999) mean the client no longer knows the
     * connection's state: reconnecting is the only safe move. The server
     * errors are its "going away" ones (shutdown, killed, idle timeout).
     */
    if (errnum >= CR_MIN_ERROR && errnum <= 2999)
        return 1;
    switch (errnum) {
    case ER_SERVER_SHUTDOWN:
    case ER_ABORTING_CONNECTION:
    case ER_NET_READ_ERROR:
    case ER_NET_READ_INTERRUPTED:
    case ER_NET_ERROR_ON_WRITE:
    case ER_NET_WRITE_INTERRUPTED:
    case 1927: /* MariaDB ER_CONNECTION_KILLED */
    case 4031: /* MySQL 8 ER_CLIENT_INTERACTION_TIMEOUT */
        return 1;
    default:
        return 0;
    }
}

/* Replaces every copy of the password in line by ***: defensive, servers do not echo it. */
static void
scrub(char *line, size_t size, const char *password)
{
    size_t plen = password ? strlen(password) : 0;
    char *p;

    if (plen < 3)
        return; /* scrubbing "a" would mangle the message and protect nothing */
    while ((p = strstr(line, password)) != NULL) {
        size_t tail = strlen(p + plen);
        if ((size_t)(p - line) + 3 + tail >= size)
            break;
        memmove(p + 3, p + plen, tail + 1);
        memcpy(p, "***", 3);
    }
}

static int
connect_error(MYSQL *m, const struct my_target *t, char *err)
{
    char line[BT_ERRLEN], where[300];
    const char *hint = my_error_hint(mysql_errno(m), mysql_error(m));

    first_line(line, sizeof line, mysql_error(m));
    scrub(line, sizeof line, t->password);
    if (t->socket != NULL)
        snprintf(where, sizeof where, "%s", t->socket);
    else if (t->port != 0)
        snprintf(where, sizeof where, "%s:%u", t->host ? t->host : "localhost", t->port);
    else
        snprintf(where, sizeof where, "%s", t->host ? t->host : "localhost");
    return seterr(err, "could not connect to %s: %s%s%s", where, line, *hint ? " " : "", hint);
}

int
my_connect_timed(const struct my_target *t, unsigned io_timeout_s, MYSQL **out, char *err)
{
    MYSQL *m;
    int rc = 0;

    *out = NULL;
    mysql_library_init(0, NULL, NULL);
    m = mysql_init(NULL);
    if (m == NULL)
        return seterr(err, "could not connect: out of memory");
    if (my_target_apply(m, t, CONNECT_TIMEOUT_S, err) < 0)
        rc = -1;
    else if (io_timeout_s > 0 && (mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &io_timeout_s) != 0 ||
                                  mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &io_timeout_s) != 0))
        rc = seterr(err, "the client library rejected a read or write timeout");
    else if (mysql_real_connect(m, t->host, t->user, t->password, t->db, t->port, t->socket, 0) ==
             NULL)
        rc = connect_error(m, t, err);
    else
        rc = my_target_check_tls(m, t, err);
    if (rc < 0) {
        mysql_close(m);
        return -1;
    }
    *out = m;
    return 0;
}

int
my_sql_error(MYSQL *m, const char *verb, const char *object, char *err)
{
    char line[BT_ERRLEN];
    const char *hint = my_error_hint(mysql_errno(m), mysql_error(m));

    first_line(line, sizeof line, mysql_error(m));
    return seterr(err, "could not %s %s: %s%s%s", verb, object, line, *hint ? " " : "", hint);
}

int
my_query_cell(MYSQL *m, const char *sql, const char *name, char *out, size_t len, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;
    int rc = MY_CELL_NONE;

    out[0] = '\0';
    if (mysql_query(m, sql) != 0 || (res = mysql_store_result(m)) == NULL)
        return my_sql_error(m, "read", name, err);
    if ((row = mysql_fetch_row(res)) != NULL && mysql_num_fields(res) > 0)
        rc = row[0] != NULL ? MY_CELL_VALUE : MY_CELL_NULL;
    if (rc == MY_CELL_VALUE)
        snprintf(out, len, "%s", row[0]);
    mysql_free_result(res);
    return rc;
}

/* ---- what a run needs ---- */

/* The connection's database into db; -1 with a hint when the target names none. */
static int
current_db(MYSQL *m, char *db, size_t dblen, char *err)
{
    int rc = my_query_cell(m, "SELECT DATABASE()", "the current database", db, dblen, err);

    if (rc < 0)
        return -1;
    if (rc != MY_CELL_VALUE)
        return seterr(err, "the target names no database (add one: "
                           "mysql://user@host:port/dbname; create it with CREATE DATABASE)");
    return 0;
}

/* ---- statements whose waits are told ---- */

/* One statement run on a job thread (a blocking call), its socket shut down to cancel it. */
struct query_job {
    MYSQL *m;
    const char *sql;
    struct jobthread *th;
    int rc;
};

static void
query_job_run(void *arg)
{
    struct query_job *j = arg;

#ifdef LIBMARIADB
    jobthread_set_cancel_fd(j->th, (int)mysql_get_socket(j->m));
#else
    jobthread_set_cancel_fd(j->th, (int)j->m->net.fd); /* libmysqlclient has no getter */
#endif
    j->rc = mysql_query(j->m, j->sql);
    jobthread_set_cancel_fd(j->th, -1);
}

/* The first column of sql's first row on m into out ("" if none or on error). */
static void
side_answer(MYSQL *m, const char *sql, char *out, size_t len)
{
    char raw[512], err[BT_ERRLEN];

    out[0] = '\0';
    if (my_query_cell(m, sql, "what the statement waits for", raw, sizeof raw, err) ==
        MY_CELL_VALUE)
        text_clean(out, len, raw);
}

/*
 * What connection id's statement waits for, asked on a second connection:
 * the row lock's holder (INNODB_LOCK_WAITS), else the server's state for
 * it with the other sessions, one of which holds the lock (MariaDB names a
 * metadata lock's holder only with the metadata_lock_info plugin, which is
 * not loaded by default).
 */
static void
what_blocks(const struct my_target *target, unsigned long id, char *out, size_t len)
{
    static const char others[] =
        "SELECT GROUP_CONCAT(s SEPARATOR '; ') FROM (SELECT CONCAT('connection ', ID, ' (', "
        "USER, IF(COMMAND = 'Sleep', ', idle ', CONCAT(', ', COMMAND, ' ')), TIME, ' s)') AS s "
        "FROM information_schema.PROCESSLIST WHERE ID NOT IN (%lu, CONNECTION_ID()) AND "
        "COMMAND NOT IN ('Daemon', 'Binlog Dump') AND USER <> 'system user' ORDER BY TIME DESC "
        "LIMIT 5) AS t";
    static const char row_lock[] =
        "SELECT CONCAT('a row lock held by connection ', b.trx_mysql_thread_id, ', ', "
        "IF(b.trx_state = 'RUNNING' AND b.trx_query IS NULL, 'idle in transaction', "
        "b.trx_state)) FROM information_schema.INNODB_LOCK_WAITS w JOIN "
        "information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id JOIN "
        "information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id WHERE "
        "r.trx_mysql_thread_id = %lu LIMIT 1";
    char sql[1024], err[BT_ERRLEN], state[64], who[256];
    MYSQL *side;

    snprintf(out, len, "the server's answer");
    if (my_connect_timed(target, 2, &side, err) < 0)
        return;
    snprintf(sql, sizeof sql, row_lock, id);
    side_answer(side, sql, who, sizeof who);
    if (who[0] != '\0') {
        snprintf(out, len, "%s", who);
    } else {
        snprintf(sql, sizeof sql, "SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = %lu",
                 id);
        side_answer(side, sql, state, sizeof state);
        snprintf(sql, sizeof sql, others, id);
        side_answer(side, sql, who, sizeof who);
        if (state[0] != '\0')
            snprintf(out, len, "the server (its state: %s; other sessions: %s)", state,
                     who[0] ? who : "none");
    }
    mysql_close(side);
}

/*
 * mysql_query on a job thread while this one waits, so that a wait longer
 * than a second is told on stderr ("benchtop: waiting for a row lock held
 * by connection 42, idle in transaction"), as PostgreSQL's prepare and init
 * tell theirs, and SIGINT or SIGTERM ends it. why: what it waited for (""
 * when it took less than a second). mysql_query's return.
 */
static int
query_told(MYSQL *m, const struct my_target *target, const char *sql, char *why, size_t len)
{
    struct query_job j = {.m = m, .sql = sql, .th = jobthread_new(&my_jobthread_hooks)};
    unsigned long id = mysql_thread_id(m); /* read before the job thread has m */
    struct pollfd p = {.fd = jobthread_fd(j.th), .events = POLLIN};
    int waited = 0;

    why[0] = '\0';
    jobthread_post(j.th, query_job_run, &j);
    while (!jobthread_take(j.th)) {
        if (poll(&p, 1, 1000) != 0)
            continue;
        if (progress_interrupted()) {
            jobthread_cancel(j.th); /* the call fails as a lost connection */
            if (why[0] == '\0')
                snprintf(why, len, "the server's answer");
        } else if (++waited == 1) {
            what_blocks(target, id, why, len);
            fprintf(stderr, "benchtop: waiting for %s\n", why);
        }
    }
    jobthread_free(j.th);
    return j.rc;
}

/* my_sql_error, or for a statement that waited and lost its connection, what it waited for. */
static int
told_error(MYSQL *m, const char *why, const char *verb, const char *object, char *err)
{
    if (why[0] == '\0' || !my_error_is_conn_lost(mysql_errno(m)))
        return my_sql_error(m, verb, object, err);
    if (progress_interrupted())
        return seterr(err, "interrupted while waiting for %s", why);
    return seterr(err, "gave up waiting for %s (end that session, or check the server)", why);
}

static int
query_int64(MYSQL *m, const struct my_target *target, const char *sql, int64_t *out, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;
    char why[512];

    if (query_told(m, target, sql, why, sizeof why) != 0 || (res = mysql_store_result(m)) == NULL)
        return told_error(m, why, "run", sql, err);
    row = mysql_fetch_row(res);
    *out = row != NULL && row[0] != NULL ? strtoll(row[0], NULL, 10) : -1;
    mysql_free_result(res);
    return 0;
}

/* How many of sbtest1, sbtest2, ... exist without a gap (the highest is <= limit). */
static int
count_tables(MYSQL *m, int limit, int *count, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;
    char *have = xcalloc((size_t)limit + 2, 1);
    int n;

    if (mysql_query(m, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                       "DATABASE() AND TABLE_NAME LIKE 'sbtest%'") != 0 ||
        (res = mysql_store_result(m)) == NULL) {
        free(have);
        return my_sql_error(m, "look for", "the sbtest tables", err);
    }
    while ((row = mysql_fetch_row(res)) != NULL) {
        char *end;
        long i;
        if (row[0] == NULL || row[0][6] < '1' || row[0][6] > '9')
            continue; /* sbtest01 is not sbtest1 */
        i = strtol(row[0] + 6, &end, 10);
        if (*end == '\0' && i <= limit)
            have[i] = 1;
    }
    mysql_free_result(res);
    for (n = 0; n < limit && have[n + 1]; n++)
        ;
    free(have);
    *count = n;
    return 0;
}

/*
 * --tables as given, else every sbtestN present from 1 on. Without
 * --table-size, the smallest table's largest id: sysbench's tables hold
 * ids 1..table_size, and neither read-write nor insert leaves gaps below.
 */
static int
find_tables(MYSQL *m, const struct runconf *rc, const struct my_opts *o, int empty_ok,
            struct my_tables *out, char *err)
{
    const char *db = out->db;
    int given = options_given(rc, "tables");
    int n = 0, i;
    int64_t max, least = -1;
    char sql[96];

    if (count_tables(m, given ? o->tables : 10000, &n, err) < 0)
        return -1;
    if (n == 0)
        return seterr(err,
                      "sysbench tables not found in database %s: no table sbtest1 (run: "
                      "benchtop init TARGET --tables N --table-size M)",
                      db);
    if (given && n < o->tables)
        return seterr(err,
                      "table sbtest%d not found in database %s (run: benchtop init TARGET "
                      "--tables %d --table-size M --force)",
                      n + 1, db, o->tables);
    out->tables = given ? o->tables : n;
    out->table_size = o->table_size;
    if (options_given(rc, "table-size"))
        return 0;
    for (i = 1; i <= out->tables; i++) {
        snprintf(sql, sizeof sql, "SELECT MAX(id) FROM sbtest%d", i);
        if (query_int64(m, rc->tgt.parsed, sql, &max, err) < 0)
            return -1;
        if (least < 0 || max < least)
            least = max;
    }
    if (least > 0)
        out->table_size = least;
    else if (!empty_ok)
        return seterr(err,
                      "table sbtest%d is empty in database %s (run: benchtop init TARGET "
                      "--force)",
                      out->tables, db);
    return 0;
}

static int
find_counter(MYSQL *m, const struct my_target *target, const char *db, char *err)
{
    int64_t n;

    if (query_int64(m, target, "SELECT COUNT(*) FROM " MY_COUNTER_TABLE " WHERE id = 1", &n, err) <
        0) {
        if (mysql_errno(m) == ER_NO_SUCH_TABLE)
            return seterr(err,
                          "table " MY_COUNTER_TABLE " not found in database %s (run: "
                          "benchtop init TARGET)",
                          db);
        return -1;
    }
    if (n != 1)
        return seterr(err,
                      MY_COUNTER_TABLE " has no row with id 1 in database %s (run: benchtop "
                                       "init TARGET --force)",
                      db);
    return 0;
}

int
my_find_tables(MYSQL *m, const struct runconf *rc, const struct my_opts *o, int uses_sbtest,
               int empty_ok, struct my_tables *out, char *err)
{
    memset(out, 0, sizeof *out);
    out->tables = 1;
    out->table_size = o->table_size;
    if (current_db(m, out->db, sizeof out->db, err) < 0)
        return -1;
    if (uses_sbtest)
        return find_tables(m, rc, o, empty_ok, out, err);
    return find_counter(m, rc->tgt.parsed, out->db, err);
}

/* ---- random values ---- */

void
my_rand_digits(char *out, const char *tmpl, struct rng *rng)
{
    /* 18 digits per draw, uniform: rng_range rejects rather than folds, so no digit is favoured. */
    static const int64_t per_draw = 999999999999999999LL;
    uint64_t r = 0;
    int left = 0;

    for (; *tmpl != '\0'; tmpl++, out++) {
        if (*tmpl != '#') {
            *out = *tmpl;
            continue;
        }
        if (left == 0) {
            r = (uint64_t)rng_range(rng, 0, per_draw);
            left = 18;
        }
        *out = (char)('0' + r % 10);
        r /= 10;
        left--;
    }
}

/* ---- `benchtop init` ---- */

/* DDL and the counter's row: their waits told (a DROP waits for a session idle in a transaction).
 */
static int
run_sql(struct init_run *r, const char *sql, const char *verb, const char *object, char *err)
{
    char why[512];

    if (query_told(r->m, r->ic->target->parsed, sql, why, sizeof why) != 0)
        return told_error(r->m, why, verb, object, err);
    return 0;
}

/*
 * The index into created[] and kept[] of a table this init would create
 * (sbtestN at N-1, the counter table at tables), or -1.
 */
static int
ours(const struct init_run *r, const char *name)
{
    char *end;
    long n;

    if (strcmp(name, MY_COUNTER_TABLE) == 0)
        return r->o->tables;
    if (strncmp(name, "sbtest", 6) != 0 || name[6] < '1' || name[6] > '9')
        return -1;
    n = strtol(name + 6, &end, 10);
    return *end == '\0' && n >= 1 && n <= r->o->tables ? (int)n - 1 : -1;
}

/* "sbtest1, sbtest2, sbtest3, ..." from the table names seen, the first three of them. */
static void
add_name(char *names, size_t size, int nth, const char *name)
{
    size_t len = strlen(names);

    if (nth < 3)
        snprintf(names + len, size - len, "%s%s", len ? ", " : "", name);
    else if (nth == 3)
        snprintf(names + len, size - len, ", ...");
}

/*
 * Existing tables may hold someone's data (sysbench's sbtest1, say): without
 * --force they are kept and only the missing ones are created; when none
 * is missing there is nothing to do, which is an error worth a hint.
 */
static int
check_existing(struct init_run *r, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;
    char names[160] = "";
    int found = 0, i;

    if (mysql_query(r->m,
                    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                    "DATABASE() AND (TABLE_NAME LIKE 'sbtest%' OR TABLE_NAME = '" MY_COUNTER_TABLE
                    "') ORDER BY LENGTH(TABLE_NAME), TABLE_NAME") != 0 ||
        (res = mysql_store_result(r->m)) == NULL)
        return my_sql_error(r->m, "look for", "existing tables", err);
    while ((row = mysql_fetch_row(res)) != NULL) {
        if (row[0] == NULL || (i = ours(r, row[0])) < 0)
            continue;
        add_name(names, sizeof names, found++, row[0]);
        r->kept[i] = !r->ic->force;
    }
    mysql_free_result(res);
    if (r->ic->force || found == 0)
        return 0;
    if (found == r->o->tables + 1)
        return seterr(err,
                      "%d of the tables already exist (%s) in database %s (use --force to "
                      "drop and recreate them)",
                      found, names, r->db);
    progress_say(
        r->ic->quiet,
        "keeping %d existing table%s (%s); creating the missing ones (--force recreates all)",
        found, found > 1 ? "s" : "", names);
    return 0;
}

/*
 * A kept table must be whole: an init cut off by SIGKILL (or a lost
 * connection) leaves one with part of its rows and no k_N index, which a
 * run would measure as if it were complete. MAX(id) reads the primary key's
 * end, not every row; init writes ids 1..table-size in order.
 */
static int
check_kept(struct init_run *r, char *err)
{
    char sql[256];
    int64_t rows, index;

    for (int n = 1; n <= r->o->tables; n++) {
        if (!r->kept[n - 1])
            continue;
        snprintf(sql, sizeof sql, "SELECT COALESCE(MAX(id), 0) FROM sbtest%d", n);
        if (query_int64(r->m, r->ic->target->parsed, sql, &rows, err) < 0)
            return -1;
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "
                 "DATABASE() AND TABLE_NAME = 'sbtest%d' AND INDEX_NAME = 'k_%d'",
                 n, n);
        if (query_int64(r->m, r->ic->target->parsed, sql, &index, err) < 0)
            return -1;
        if (rows < r->o->table_size || index < 1)
            return seterr(err,
                          "sbtest%d is not complete: %lld of %lld rows%s (an init cut off?); "
                          "recreate the tables with: benchtop init TARGET --force",
                          n, (long long)rows, (long long)r->o->table_size,
                          index < 1 ? ", no secondary index" : "");
    }
    return 0;
}

static int
drop_table(struct init_run *r, const char *name, char *err)
{
    char sql[96];

    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", name);
    return run_sql(r, sql, "drop", name, err);
}

static int
drop_old(struct init_run *r, char *err)
{
    char name[32];
    int i;

    progress_say(r->ic->quiet, "dropping old tables...");
    for (i = 1; i <= r->o->tables; i++) {
        snprintf(name, sizeof name, "sbtest%d", i);
        if (drop_table(r, name, err) < 0)
            return -1;
    }
    return drop_table(r, MY_COUNTER_TABLE, err);
}

/* sysbench 1.0's CREATE TABLE, word for word (auto_inc on, secondary off). */
static int
create_table(struct init_run *r, int n, char *err)
{
    char sql[512], name[32];

    snprintf(name, sizeof name, "sbtest%d", n);
    snprintf(sql, sizeof sql,
             "CREATE TABLE sbtest%d(\n"
             "  id INTEGER NOT NULL AUTO_INCREMENT,\n"
             "  k INTEGER DEFAULT '0' NOT NULL,\n"
             "  c CHAR(120) DEFAULT '' NOT NULL,\n"
             "  pad CHAR(60) DEFAULT '' NOT NULL,\n"
             "  PRIMARY KEY (id)\n"
             ") /*! ENGINE = innodb */ ",
             n);
    if (run_sql(r, sql, "create", name, err) < 0)
        return -1;
    r->created[n - 1] = 1;
    return 0;
}

static size_t
put_row(struct init_run *r, char *dst, int first)
{
    size_t n = 0;

    if (!first)
        dst[n++] = ',';
    n += (size_t)sprintf(dst + n, "(%lld,'", (long long)rng_range(&r->rng, 1, r->o->table_size));
    my_rand_digits(dst + n, my_c_template, &r->rng);
    n += sizeof my_c_template - 1;
    memcpy(dst + n, "','", 3);
    n += 3;
    my_rand_digits(dst + n, my_pad_template, &r->rng);
    n += sizeof my_pad_template - 1;
    memcpy(dst + n, "')", 2);
    return n + 2;
}

static int
insert_rows(struct init_run *r, int n, char *err)
{
    char head[64], name[32];
    long long row = 0;
    size_t hlen, len;

    snprintf(name, sizeof name, "sbtest%d", n);
    hlen = (size_t)snprintf(head, sizeof head, "INSERT INTO sbtest%d(k, c, pad) VALUES", n);
    while (row < r->o->table_size) {
        memcpy(r->batch, head, hlen);
        len = hlen;
        for (; row < r->o->table_size && len + ROW_MAX < r->batch_max; row++) {
            len += put_row(r, r->batch + len, len == hlen);
            r->rows_done++;
        }
        if (mysql_real_query(r->m, r->batch, (unsigned long)len) != 0)
            return my_sql_error(r->m, "insert into", name, err);
        if (progress_interrupted())
            return seterr(err, "interrupted; the tables created so far were dropped again");
        progress_show(&r->progress, r->rows_done);
    }
    return 0;
}

/* libmysqlclient wants mysql_thread_init in every thread that calls it (io/threads.c too). */
static void
my_thread_init_hook(void)
{
    mysql_thread_init();
}

const struct jobthread_hooks my_jobthread_hooks = {
    .thread_init = my_thread_init_hook,
    .thread_end = mysql_thread_end,
};

/*
 * One long statement (an index on 10M rows takes minutes), run on a thread
 * of its own while this one says each second how long it has run, as the
 * PostgreSQL init does for its keys: a long build is not silence.
 */
static int
run_sql_ticking(struct init_run *r, const char *sql, const char *what, const char *object,
                char *err)
{
    struct query_job j = {.m = r->m, .sql = sql, .th = jobthread_new(&my_jobthread_hooks)};
    struct pollfd p = {.fd = jobthread_fd(j.th), .events = POLLIN};
    int seconds = 0;

    jobthread_post(j.th, query_job_run, &j);
    while (!jobthread_take(j.th))
        if (poll(&p, 1, 1000) == 0)
            progress_tick(r->ic->quiet, what, ++seconds);
    jobthread_free(j.th);
    return j.rc != 0 ? my_sql_error(r->m, "index", object, err) : 0;
}

static int
create_index(struct init_run *r, int n, char *err)
{
    char sql[96], name[32], what[64];

    snprintf(name, sizeof name, "sbtest%d", n);
    snprintf(sql, sizeof sql, "CREATE INDEX k_%d ON sbtest%d(k)", n, n);
    snprintf(what, sizeof what, "creating a secondary index on sbtest%d", n);
    return run_sql_ticking(r, sql, what, name, err);
}

static int
create_counter(struct init_run *r, char *err)
{
    if (run_sql(r,
                "CREATE TABLE " MY_COUNTER_TABLE "(id INTEGER NOT NULL, n BIGINT DEFAULT 0 NOT "
                "NULL, PRIMARY KEY (id)) /*! ENGINE = innodb */",
                "create", MY_COUNTER_TABLE, err) < 0)
        return -1;
    r->created[r->o->tables] = 1;
    return run_sql(r, "INSERT INTO " MY_COUNTER_TABLE "(id, n) VALUES (1, 0)", "fill",
                   MY_COUNTER_TABLE, err);
}

/* The largest INSERT the server takes, within BATCH_MAX. */
static void
pick_batch_size(struct init_run *r)
{
    MYSQL_RES *res;
    MYSQL_ROW row;
    long long max = 0;

    if (mysql_query(r->m, "SELECT @@max_allowed_packet") == 0 &&
        (res = mysql_store_result(r->m)) != NULL) {
        row = mysql_fetch_row(res);
        if (row != NULL && row[0] != NULL)
            max = atoll(row[0]);
        mysql_free_result(res);
    }
    r->batch_max = max > 0 && max - 1024 < BATCH_MAX ? (size_t)(max - 1024) : BATCH_MAX;
    if (r->batch_max < 4 * ROW_MAX)
        r->batch_max = 4 * ROW_MAX;
}

static int
build_table(struct init_run *r, int n, char *err)
{
    uint64_t t0 = now_us();

    progress_say(r->ic->quiet, "creating table sbtest%d...", n);
    if (create_table(r, n, err) < 0)
        return -1;
    r->create_us += now_us() - t0;
    t0 = now_us();
    if (insert_rows(r, n, err) < 0)
        return -1;
    r->insert_us += now_us() - t0;
    t0 = now_us();
    progress_say(r->ic->quiet, "creating a secondary index on sbtest%d...", n);
    if (create_index(r, n, err) < 0)
        return -1;
    r->index_us += now_us() - t0;
    return progress_interrupted()
               ? seterr(err, "interrupted; the tables created so far were dropped again")
               : 0;
}

/*
 * One init per database at a time: two dropped each other's tables, one
 * reporting success over a table the other dropped. GET_LOCK is held by the
 * session, so it goes with the connection however init ends.
 */
static int
hold_init_lock(struct init_run *r, char *err)
{
    int64_t got;

    if (query_int64(r->m, r->ic->target->parsed,
                    "SELECT GET_LOCK(CONCAT('benchtop init ', DATABASE()), 0)", &got, err) < 0)
        return -1;
    if (got != 1)
        return seterr(err,
                      "another benchtop init is filling database %s (wait for it to end; "
                      "SHOW PROCESSLIST shows it)",
                      r->db);
    return 0;
}

static int
build_all(struct init_run *r, char *err)
{
    uint64_t t0;
    int i;

    if (current_db(r->m, r->db, sizeof r->db, err) < 0 || hold_init_lock(r, err) < 0 ||
        check_existing(r, err) < 0 || check_kept(r, err) < 0)
        return -1;
    t0 = now_us();
    if (r->ic->force && drop_old(r, err) < 0)
        return -1;
    r->drop_us = now_us() - t0;
    pick_batch_size(r);
    r->batch = xmalloc(r->batch_max);
    for (i = 1; i <= r->o->tables; i++)
        r->rows_total += r->kept[i - 1] ? 0 : r->o->table_size;
    progress_start(&r->progress, "inserting rows", r->rows_total, r->ic->quiet);
    for (i = 1; i <= r->o->tables; i++)
        if (!r->kept[i - 1] && build_table(r, i, err) < 0)
            return -1;
    return r->kept[r->o->tables] ? 0 : create_counter(r, err);
}

/* After a failure: what this run created goes again (DDL cannot be rolled back). */
static void
undo(struct init_run *r)
{
    char name[32], ignored[BT_ERRLEN];
    int i;

    for (i = 1; i <= r->o->tables; i++) {
        snprintf(name, sizeof name, "sbtest%d", i);
        if (r->created[i - 1])
            drop_table(r, name, ignored);
    }
    if (r->created[r->o->tables])
        drop_table(r, MY_COUNTER_TABLE, ignored);
}

static void
print_summary(const struct init_run *r, uint64_t total_us)
{
    const struct progress_step steps[] = {
        {"drop", r->drop_us},
        {"create", r->create_us},
        {"insert", r->insert_us},
        {"index", r->index_us},
    };

    progress_done(r->ic->quiet, total_us, steps, 4);
}

/*
 * A server that takes the login and never answers is found in the 15 s a
 * run's prepare gives it, on a connection of its own: init's connection
 * waits up to 600 s per statement (a CREATE INDEX may take that long), with
 * SIGINT and SIGTERM held for the clean-up.
 */
static int
first_answer(const struct my_target *target, char *err)
{
    char db[80]; /* as init_run's */
    MYSQL *m;
    int rc;

    if (my_connect_timed(target, MY_ANSWER_TIMEOUT_S, &m, err) < 0)
        return -1;
    rc = current_db(m, db, sizeof db, err);
    mysql_close(m);
    return rc;
}

int
my_init(const struct init_conf *ic, char *err)
{
    const struct my_opts *o = ic->opts;
    struct init_run r = {.ic = ic, .o = o};
    sigset_t stop, old;
    uint64_t t0 = now_us();
    int rc;

    if (o->tables < 1 || o->table_size < 1)
        return seterr(err, "--tables and --table-size must be at least 1");
    if (first_answer(ic->target->parsed, err) < 0 ||
        my_connect_timed(ic->target->parsed, MY_INIT_TIMEOUT_S, &r.m, err) < 0)
        return -1;
    rng_seed(&r.rng, now_us());
    r.created = xcalloc((size_t)o->tables + 1, 1);
    r.kept = xcalloc((size_t)o->tables + 1, 1);
    /* Held until the end and looked at between statements, so a Ctrl-C still cleans up. */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP); /* a closed terminal or ssh ends init as Ctrl-C does: cleaned up */
    sigprocmask(SIG_BLOCK, &stop, &old);
    rc = build_all(&r, err);
    if (rc < 0)
        undo(&r);
    mysql_close(r.m);
    free(r.created);
    free(r.kept);
    free(r.batch);
    if (rc == 0)
        print_summary(&r, now_us() - t0);
    /* A signal that arrived is delivered here, after the clean-up, unless the caller blocks it. */
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}
