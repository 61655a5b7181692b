/*
 * sqlite/driver: SQLite targets, the load driver and `benchtop init`.
 *
 * SQLite's calls block (they read and sync the file), so each connection
 * runs on a thread of its own (src/base/jobthread.c) and the worker waits on
 * that thread's eventfd as on a socket. A transaction is BEGIN (IMMEDIATE
 * when the script writes, so writers queue for the lock up front instead
 * of failing to upgrade it), --batch rounds of the script, COMMIT. A
 * connection that finds the database locked waits and retries (counted as
 * lock waits) for up to busy_timeout ms, then the transaction fails as
 * "database is locked".
 *
 * Built-in workloads run on bench_rows (id, k, v), made by init with --rows
 * rows, and bench_log, which -w insert appends to:
 *   point-select  SELECT v FROM bench_rows WHERE id = random
 *   update        UPDATE bench_rows SET k = k + 1 WHERE id = random
 *   insert        INSERT INTO bench_log (client, v) VALUES (...)
 */
#include "sqlite.h"

#include <errno.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/shared/batch.h"
#include "engine/driver.h"
#include "engine/target.h"
#include "base/jobthread.h"
#include "engine/optdef.h"
#include "base/progress.h"
#include "engine/runconf.h"
#include "engine/mix.h"
#include "engine/script.h"
#include "base/util.h"

enum { SQ_BUSY_TIMEOUT_MS = 5000, SQ_ROWS_DEFAULT = 10000 };

static const char *const sq_schemes[] = {"sqlite://", NULL};
static const char *const sq_workloads[] = {"point-select", "update", "insert", NULL};
static const char *const sq_modes[] = {"prepared", NULL};
static const char *const sq_predef[] = {"rows", "client_id", NULL};
static const char *const sq_workload_text[] = {
    "\\set id random(1, :rows)\nSELECT v FROM bench_rows WHERE id = :id;\n",
    "\\set id random(1, :rows)\nUPDATE bench_rows SET k = k + 1 WHERE id = :id;\n",
    "INSERT INTO bench_log (client, v) VALUES (:client_id, 'benchtop');\n",
};

struct sq_opts {
    struct batch_conf batch;
    long long rows; /* --rows */
};

struct sq_shared {
    struct sqlite_target t;
    struct script *script;
    int64_t rows;
    int batch;
    int writes; /* some statement writes: BEGIN IMMEDIATE */
};

struct sq_conn {
    struct sq_shared *sh;
    struct jobthread *th;
    struct rng *rng;
    int client_id;
    sqlite3 *db;
    sqlite3_stmt **stmts; /* per script command (NULL for \set) */
    int64_t vars[SCRIPT_MAX_VARS];
    struct sqlite_stats *stats;
    int busy_waited_ms;         /* in the current lock wait */
    _Atomic int leaving;        /* the worker disconnects: a lock wait gives up at once */
    struct sqlite_counts delta; /* this transaction's, added to stats at its end */
    int failed;                 /* the job's outcome: 0, or -1 with err/res */
    char err[BT_ERRLEN];
    struct txn_result res;
};

/* ---- targets ---- */

static int
target_param(struct sqlite_target *t, const char *key, const char *value, char *err)
{
    if (strcmp(key, "journal_mode") == 0)
        snprintf(t->journal_mode, sizeof t->journal_mode, "%s", value);
    else if (strcmp(key, "synchronous") == 0)
        snprintf(t->synchronous, sizeof t->synchronous, "%s", value);
    else if (strcmp(key, "busy_timeout") == 0) {
        long long ms;
        if (safe_strtoll(value, &ms) < 0 || ms < 0 || ms > 3600000)
            return seterr(err,
                          "busy_timeout=%s in the sqlite target is not a number of ms "
                          "from 0 to 3600000 (e.g. busy_timeout=5000)",
                          value);
        t->busy_timeout_ms = (int)ms;
    } else
        return seterr(err,
                      "unknown sqlite target parameter '%s' (use journal_mode, synchronous "
                      "or busy_timeout)",
                      key);
    return 0;
}

int
sqlite_target_parse(const char *target, struct sqlite_target *t, char *err)
{
    const char *p = target + strlen("sqlite://"), *q;
    char buf[PATH_MAX * 2], *save = NULL, *kv;

    memset(t, 0, sizeof *t);
    t->busy_timeout_ms = SQ_BUSY_TIMEOUT_MS;
    if (strncmp(target, "sqlite://", 9) != 0)
        return seterr(err, "'%s' is not a sqlite target (use sqlite:///path/file.db)", target);
    q = strchr(p, '?');
    if ((q ? (size_t)(q - p) : strlen(p)) == 0 || (q ? (size_t)(q - p) : strlen(p)) >= PATH_MAX)
        return seterr(err, "the sqlite target names no file (use sqlite:///path/file.db)");
    snprintf(t->path, sizeof t->path, "%.*s", (int)(q ? q - p : (ptrdiff_t)strlen(p)), p);
    if (q == NULL)
        return 0;
    snprintf(buf, sizeof buf, "%s", q + 1);
    for (kv = strtok_r(buf, "&", &save); kv != NULL; kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        if (eq == NULL)
            return seterr(err, "sqlite target parameter '%s' has no value (use KEY=VALUE)", kv);
        *eq = '\0';
        if (target_param(t, kv, eq + 1, err) < 0)
            return -1;
    }
    return 0;
}

/* The driver class's parse and free_parsed: a struct sqlite_target of its own, or NULL and err. */
static void *
sqlite_target_new(const char *target, char *err)
{
    struct sqlite_target *t = xmalloc(sizeof *t);

    if (sqlite_target_parse(target, t, err) == 0)
        return t;
    free(t);
    return NULL;
}

static void
sqlite_target_delete(void *t)
{
    free(t);
}

/* ---- one connection's SQLite calls (run on its job thread, or the main thread) ---- */

static const int busy_delays_ms[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};

/* Waits as SQLite's own busy timeout does, counting each wait as a lock wait. */
static int
on_busy(void *arg, int attempt)
{
    struct sq_conn *c = arg;
    int n = (int)(sizeof busy_delays_ms / sizeof busy_delays_ms[0]);
    int delay = busy_delays_ms[attempt < n ? attempt : n - 1];
    struct sqlite_counts d = {.busy_retries = 1};
    uint64_t t0 = now_us();

    if (attempt == 0)
        c->busy_waited_ms = 0;
    if (c->busy_waited_ms >= c->sh->t.busy_timeout_ms || c->leaving)
        return 0;
    sqlite3_sleep(delay);
    c->busy_waited_ms += delay;
    /*
     * Published at once, not with the transaction: a writer the lock keeps
     * passing over may wait for seconds, and its waits belong to the
     * intervals they happened in.
     */
    d.busy_us = now_us() - t0;
    if (c->stats != NULL)
        sqlite_stats_add(c->stats, &d);
    return 1;
}

/* Replaces SQLite's automatic checkpoint (same threshold) to count and time it. */
static int
on_wal_commit(void *arg, sqlite3 *db, const char *name, int frames)
{
    struct sq_conn *c = arg;
    uint64_t t0;
    int log = 0, done = 0;

    if (frames < SQ_CHECKPOINT_FRAMES)
        return SQLITE_OK;
    t0 = now_us();
    /*
     * A reader's snapshot stops the copy short of the WAL's end: counted.
     * SQLITE_BUSY (another connection's checkpoint runs) says nothing of readers.
     */
    if (sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, &log, &done) == SQLITE_OK) {
        c->delta.checkpoints_short += done < log;
        c->delta.checkpoints_whole += done >= log;
    }
    c->delta.checkpoints++;
    c->delta.checkpoint_us += now_us() - t0;
    return SQLITE_OK;
}

static int
exec_sql(sqlite3 *db, const char *sql, char *err)
{
    char *msg = NULL;

    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    seterr(err, "%s: %s", sql, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
}

/*
 * Opens the file with the target's settings; the caller closes db even on
 * failure. A load connection (c) counts its lock waits from here on: the
 * journal_mode pragma and the schema read wait for another process's lock
 * as a transaction does (29 of 32 clients sat there beside a reader).
 */
static int
open_db(const struct sqlite_target *t, sqlite3 **db, struct sq_conn *c, char *err)
{
    char sql[64];
    int rc = sqlite3_open_v2(
        t->path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);

    if (rc != SQLITE_OK)
        return seterr(err, "cannot open %s: %s (check the path and its folder's permissions)",
                      t->path, *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
    if (c != NULL)
        sqlite3_busy_handler(*db, on_busy, c);
    else
        sqlite3_busy_timeout(*db, t->busy_timeout_ms);
    if (t->journal_mode[0] != '\0') {
        snprintf(sql, sizeof sql, "PRAGMA journal_mode = %s", t->journal_mode);
        if (exec_sql(*db, sql, err) < 0)
            return -1;
    }
    if (t->synchronous[0] != '\0') {
        snprintf(sql, sizeof sql, "PRAGMA synchronous = %s", t->synchronous);
        if (exec_sql(*db, sql, err) < 0)
            return -1;
    }
    return 0;
}

static int
prepare_statements(struct sq_conn *c, char *err)
{
    const struct script *s = c->sh->script;

    c->stmts = xcalloc((size_t)s->ncmds, sizeof *c->stmts);
    for (int i = 0; i < s->ncmds; i++) {
        if (s->cmds[i].kind != SCRIPT_SQL)
            continue;
        if (sqlite3_prepare_v2(c->db, s->cmds[i].sql_params, -1, &c->stmts[i], NULL) != SQLITE_OK)
            return seterr(err, "%s:%d: %s (fix the script, or run benchtop init TARGET)", s->name,
                          s->cmds[i].line, sqlite3_errmsg(c->db));
    }
    return 0;
}

static void
close_db(struct sq_conn *c)
{
    if (c->stmts != NULL)
        for (int i = 0; i < c->sh->script->ncmds; i++)
            sqlite3_finalize(c->stmts[i]);
    free(c->stmts);
    c->stmts = NULL;
    sqlite3_close(c->db);
    c->db = NULL;
    if (c->stats != NULL)
        sqlite_stats_detach(c->stats);
    c->stats = NULL;
}

static void
job_open(void *arg)
{
    struct sq_conn *c = arg;

    c->failed = 0;
    c->stats = sqlite_stats_attach(c->sh->t.path);
    if (open_db(&c->sh->t, &c->db, c, c->err) == 0) {
        sqlite3_wal_hook(c->db, on_wal_commit, c);
        if (prepare_statements(c, c->err) == 0)
            return;
    }
    c->failed = -1;
    close_db(c);
}

static void
job_close(void *arg)
{
    close_db(arg);
}

/* Binds the statement's $N parameters from the variables. */
static void
bind_params(struct sq_conn *c, const struct script_cmd *cmd, sqlite3_stmt *st)
{
    char name[16];

    for (int p = 0; p < cmd->nparams; p++) {
        snprintf(name, sizeof name, "$%d", p + 1);
        sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, name), c->vars[cmd->param_var[p]]);
    }
}

/* Runs one statement to its end; 0, or the SQLite error code. */
static int
step_all(sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : rc;
}

static void
txn_fail(struct sq_conn *c, int rc, const struct script_cmd *cmd)
{
    struct txn_result *r = &c->res;

    r->err = ERR_OTHER; /* a lock wait that timed out too: "database is locked" */
    if (rc == SQLITE_BUSY)
        c->delta.busy_timeouts++;
    snprintf(r->msg, sizeof r->msg, "%.200s%s%.40s", sqlite3_errmsg(c->db), cmd ? " in " : "",
             cmd ? c->sh->script->name : "");
    if (!sqlite3_get_autocommit(c->db))
        exec_sql(c->db, "ROLLBACK", c->err);
}

/* --batch rounds of the script; 0, or -1 after txn_fail. */
static int
run_rounds(struct sq_conn *c)
{
    const struct script *s = c->sh->script;
    char err[BT_ERRLEN];

    for (int b = 0; b < c->sh->batch; b++) {
        for (int i = 0; i < s->ncmds; i++) {
            const struct script_cmd *cmd = &s->cmds[i];
            int rc;

            if (cmd->kind == SCRIPT_SET) {
                if (script_eval(cmd, c->vars, c->rng, err) < 0) {
                    c->res.err = ERR_OTHER;
                    snprintf(c->res.msg, sizeof c->res.msg, "%.200s", err);
                    exec_sql(c->db, "ROLLBACK", err);
                    return -1;
                }
                continue;
            }
            bind_params(c, cmd, c->stmts[i]);
            if ((rc = step_all(c->stmts[i])) != 0) {
                txn_fail(c, rc, cmd);
                return -1;
            }
            c->res.ops++;
        }
    }
    return 0;
}

/* A page cache counter since the last call (reset as it is read). */
static int
db_counter(sqlite3 *db, int op)
{
    int cur = 0, high = 0;

    sqlite3_db_status(db, op, &cur, &high, 1);
    return cur;
}

static void
job_txn(void *arg)
{
    struct sq_conn *c = arg;
    uint64_t t0 = now_us(), tc;
    int rc;

    memset(&c->res, 0, sizeof c->res);
    memset(&c->delta, 0, sizeof c->delta);
    c->vars[0] = c->sh->rows;
    c->vars[1] = c->client_id;
    if ((rc = sqlite3_exec(c->db, c->sh->writes ? "BEGIN IMMEDIATE" : "BEGIN", NULL, NULL, NULL)) !=
        SQLITE_OK)
        txn_fail(c, rc, NULL);
    else if (run_rounds(c) == 0) {
        tc = now_us();
        if ((rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
            txn_fail(c, rc, NULL);
        else
            c->delta.commits++;
        c->delta.commit_us += now_us() - tc;
    }
    c->delta.txns++;
    c->delta.txn_us += now_us() - t0;
    c->delta.cache_hit = (uint64_t)db_counter(c->db, SQLITE_DBSTATUS_CACHE_HIT);
    c->delta.cache_miss = (uint64_t)db_counter(c->db, SQLITE_DBSTATUS_CACHE_MISS);
    c->delta.cache_write = (uint64_t)db_counter(c->db, SQLITE_DBSTATUS_CACHE_WRITE);
    sqlite_stats_add(c->stats, &c->delta);
}

/* ---- the class's main-thread callbacks ---- */

/* SQLite runs one script: a mix of several is refused. */
static struct script *
load_script(const struct runconf *rc, int *files_only, char *err)
{
    struct mix m;
    struct script *s;

    if (mix_parse(&m, rc, "sqlite", sq_workloads, err) < 0)
        return NULL;
    if (m.n > 1) {
        mix_free(&m);
        seterr(err, "sqlite runs one script or built-in, not a mix (give one -f, -b or -w)");
        return NULL;
    }
    if (mix_load(&m, sq_workload_text, sq_predef, 0, err) < 0) {
        mix_free(&m);
        return NULL;
    }
    *files_only = mix_files_only(&m);
    s = m.e[0].script;
    m.e[0].script = NULL;
    mix_free(&m);
    return s;
}

/* The rows of bench_rows (its largest id), or 1 for a script that does not use it. */
static int
read_rows(sqlite3 *db, int files_only, int64_t *rows, char *err)
{
    sqlite3_stmt *st = NULL;
    int rv = 0;

    *rows = 1;
    if (sqlite3_prepare_v2(db, "SELECT max(id) FROM bench_rows", -1, &st, NULL) != SQLITE_OK) {
        if (!files_only)
            rv = seterr(err, "bench_rows not found in %s (run: benchtop init TARGET --rows N)",
                        sqlite3_db_filename(db, "main"));
    } else if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        *rows = sqlite3_column_int64(st, 0);
    } else if (!files_only) {
        rv = seterr(err, "bench_rows is empty (run: benchtop init TARGET --rows N --force)");
    }
    sqlite3_finalize(st);
    return rv;
}

/* Every statement compiles now (a broken script fails before the run, with its line). */
static int
check_script(sqlite3 *db, const struct script *s, int *writes, char *err)
{
    *writes = 0;
    for (int i = 0; i < s->ncmds; i++) {
        sqlite3_stmt *st = NULL;

        if (s->cmds[i].kind != SCRIPT_SQL)
            continue;
        if (sqlite3_prepare_v2(db, s->cmds[i].sql_params, -1, &st, NULL) != SQLITE_OK)
            return seterr(err, "%s:%d: sqlite rejects this statement: %s (fix the script)", s->name,
                          s->cmds[i].line, sqlite3_errmsg(db));
        *writes |= !sqlite3_stmt_readonly(st);
        sqlite3_finalize(st);
    }
    return 0;
}

static int
check_options(const struct runconf *rc, char *err)
{
    if (rc->mode != NULL && str_index(sq_modes, rc->mode) < 0)
        return seterr(err,
                      "unknown protocol '%s' for sqlite (statements are always prepared: "
                      "drop -M)",
                      rc->mode);
    if (rc->connect_per_txn)
        return seterr(err, "-C makes no sense for sqlite: opening a file is not a connection "
                           "(drop -C)");
    return 0;
}

static void
sq_release(void *shared)
{
    struct sq_shared *sh = shared;

    script_free(sh->script);
    free(sh);
}

static void *
sq_prepare(const struct runconf *rc, const void *opts, char *err)
{
    const struct sq_opts *o = opts;
    struct sq_shared *sh = xcalloc(1, sizeof *sh);
    sqlite3 *db = NULL;
    int rv, files_only = 0;

    sh->batch = o->batch.batch > 0 ? o->batch.batch : 1;
    sh->t = *(const struct sqlite_target *)rc->tgt.parsed;
    rv = check_options(rc, err) < 0 || (sh->script = load_script(rc, &files_only, err)) == NULL ||
         open_db(&sh->t, &db, NULL, err) < 0 || read_rows(db, files_only, &sh->rows, err) < 0 ||
         check_script(db, sh->script, &sh->writes, err) < 0;
    sqlite3_close(db);
    if (rv) {
        sq_release(sh);
        return NULL;
    }
    return sh;
}

static void *
sq_conn_new(void *shared, int client_id, struct rng *rng)
{
    struct sq_conn *c = xcalloc(1, sizeof *c);

    c->sh = shared;
    c->client_id = client_id;
    c->rng = rng;
    c->th = jobthread_new(NULL);
    return c;
}

static void
sq_conn_disconnect(void *conn)
{
    struct sq_conn *c = conn;

    /*
     * The run's end: a transaction waiting out busy_timeout for a lock
     * another process holds gives up at its next retry (a -T 12 run
     * lasted 15.1 s behind a held write lock).
     */
    c->leaving = 1;
    jobthread_run(c->th, job_close, c);
    c->leaving = 0;
}

static void
sq_conn_free(void *conn)
{
    struct sq_conn *c = conn;

    sq_conn_disconnect(c);
    jobthread_free(c->th);
    free(c);
}

static int
sq_conn_fd(void *conn)
{
    return jobthread_fd(((struct sq_conn *)conn)->th);
}

static enum drv_status
sq_conn_connect_start(void *conn, char *err)
{
    struct sq_conn *c = conn;

    jobthread_post(c->th, job_open, c);
    return DRV_WANT_READ;
}

static enum drv_status
sq_conn_connect_poll(void *conn, char *err)
{
    struct sq_conn *c = conn;

    if (!jobthread_take(c->th))
        return DRV_WANT_READ;
    if (c->failed < 0) {
        snprintf(err, BT_ERRLEN, "%s", c->err);
        return DRV_ERROR;
    }
    return DRV_DONE;
}

static enum drv_status
sq_conn_txn_start(void *conn, struct txn_result *res)
{
    struct sq_conn *c = conn;

    jobthread_post(c->th, job_txn, c);
    return DRV_WANT_READ;
}

static enum drv_status
sq_conn_txn_poll(void *conn, struct txn_result *res)
{
    struct sq_conn *c = conn;

    if (!jobthread_take(c->th))
        return DRV_WANT_READ;
    *res = c->res;
    return DRV_DONE;
}

/* ---- benchtop init ---- */

static const char sq_schema[] =
    "CREATE TABLE IF NOT EXISTS bench_rows (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, "
    "v TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS bench_log (id INTEGER PRIMARY KEY, client INTEGER NOT NULL, "
    "v TEXT NOT NULL);";

static int
fill_rows(sqlite3 *db, long long rows, int quiet, char *err)
{
    sqlite3_stmt *st = NULL;
    struct progress p;
    int rc = SQLITE_OK;

    if (sqlite3_prepare_v2(db, "INSERT INTO bench_rows (id, k, v) VALUES (?1, 0, ?2)", -1, &st,
                           NULL) != SQLITE_OK)
        return seterr(err, "cannot fill bench_rows: %s", sqlite3_errmsg(db));
    progress_start(&p, "filling bench_rows", rows, quiet);
    sqlite3_bind_text(st, 2, "benchtop-row-value-of-fifty-bytes-for-each-row-xyz", -1,
                      SQLITE_STATIC);
    for (long long id = 1; id <= rows && rc == SQLITE_OK; id++) {
        sqlite3_bind_int64(st, 1, id);
        rc = step_all(st) == 0 ? SQLITE_OK : SQLITE_ERROR;
        if (id % 10000 == 0 || id == rows)
            progress_show(&p, id);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : seterr(err, "cannot fill bench_rows: %s", sqlite3_errmsg(db));
}

static int
table_rows(sqlite3 *db, const char *table)
{
    char sql[96];
    sqlite3_stmt *st = NULL;
    int n = -1;

    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* Creates what is missing and fills bench_rows when it is new; --force starts afresh. */
static int
sq_init(const struct init_conf *ic, char *err)
{
    const struct sq_opts *o = ic->opts;
    const struct sqlite_target *t = ic->target->parsed;
    sqlite3 *db = NULL;
    long long rows = o->rows > 0 ? o->rows : SQ_ROWS_DEFAULT;
    int rv, existing;

    rv = open_db(t, &db, NULL, err);
    if (rv == 0 && ic->force)
        rv = exec_sql(db, "DROP TABLE IF EXISTS bench_rows; DROP TABLE IF EXISTS bench_log", err);
    existing = rv == 0 ? table_rows(db, "bench_rows") : -1;
    if (rv == 0)
        rv = exec_sql(db, "BEGIN IMMEDIATE", err);
    if (rv == 0)
        rv = exec_sql(db, sq_schema, err);
    if (rv == 0 && existing < 0)
        rv = fill_rows(db, rows, ic->quiet, err);
    if (rv == 0)
        rv = exec_sql(db, "COMMIT", err);
    if (rv == 0 && !ic->quiet)
        fprintf(stderr,
                existing < 0 ? "init: bench_rows (%lld rows) and bench_log created in %s\n"
                             : "init: kept bench_rows (%lld rows) in %s; bench_log is there\n",
                existing < 0 ? rows : (long long)existing, t->path);
    sqlite3_close(db);
    return rv;
}

static char *
sq_mask(const char *target)
{
    return xstrdup(target); /* a file has no password */
}

static const struct option_def sq_defs[] = {
    {"rows", 0, OPT_LLONG, offsetof(struct sq_opts, rows), 1, 1e12, "10000", "N",
     CMD_INIT | CMD_DEMO, "init: rows of bench_rows"},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL},
};
static const struct option_group sq_option_group = {"sqlite", sq_defs, NULL};
static const struct driver_options sq_options[] = {
    {&batch_option_group, offsetof(struct sq_opts, batch)},
    {&sq_option_group, 0},
    {NULL, 0},
};

const struct driver_class sqlite_driver_class = {
    .name = "sqlite",
    .version_note = "a thread per connection (SQLite's calls block)",
    .schemes = sq_schemes,
    .workloads = sq_workloads,
    .modes = sq_modes,
    .options = sq_options,
    .options_size = sizeof(struct sq_opts),
    .mask = sq_mask,
    .parse = sqlite_target_new,
    .free_parsed = sqlite_target_delete,
    .prepare = sq_prepare,
    .release = sq_release,
    .conn_new = sq_conn_new,
    .conn_free = sq_conn_free,
    .conn_fd = sq_conn_fd,
    .conn_connect_start = sq_conn_connect_start,
    .conn_connect_poll = sq_conn_connect_poll,
    .conn_txn_start = sq_conn_txn_start,
    .conn_txn_poll = sq_conn_txn_poll,
    .conn_disconnect = sq_conn_disconnect,
    .needs_init = 1,
    .init = sq_init,
};
