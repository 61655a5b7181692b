/*
 * postgres/collector: the server pane for PostgreSQL (12 to 17; 10 and 11
 * answer the same queries).
 *
 * One sample is one round trip: the statements of pg_collector_sql() go
 * out as one simple query, which the server runs as one implicit
 * transaction. The collector so adds exactly one commit per sample to
 * xact_commit (1/s at the default interval), small enough next to any
 * load that derive reports the server's own count as it is rather than
 * guessing when the collector's commit was flushed. Its own session is
 * left out of every session count (pg_backend_pid()).
 *
 * This file is the class: it opens the connection, sends the sample's query
 * and the glances between samples, and follows lock chains; the statements
 * and their parsers are in query.c, the pure derive in derive.c, the timed
 * I/O in conn.c.
 */
#include "postgres.h"
#include "pg-collector.h"
#include "conn.h"
#include "collectors/shared/locks.h"
#include "engine/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    CONNECT_TIMEOUT_S = 3,
    MIN_VERSION = 100000, /* backend_type and pg_monitor appeared in 10 */
};

static const char app_name[] = "benchtop-collector";

enum { PG_CHAIN_MAX = 64 };

struct pg_coll {
    PGconn *conn;
    struct coll_glances probed; /* glances since the last sample */
    double stall_own;           /* benchtop's waiters on other sessions, summed over glances */
    char stall_what[COLL_STALL_WHAT];
    struct lock_node chain[PG_CHAIN_MAX];
    int version;
    int privileged;
    char role[72]; /* quote_ident(current_user) */
    char *sql;     /* pg_collector_sql(version) */
    struct pg_settings_cache settings;
    int restart;              /* restart-only settings taken (try --restart restarts the server) */
    struct pg_ckpt_ring ckpt; /* requested checkpoints over the last minute */
};

/* Reads the version and whether we see every session; 0 or -1 with err. */
static int
read_privileges(struct pg_coll *c, char *err)
{
    PGresult *res;
    const char *priv, *role;

    if (PQsetnonblocking(c->conn, 1) != 0)
        return pg_result_error(c->conn, NULL, "make the connection non-blocking", err);
    if ((res = pg_exec_timed(c->conn, pg_privilege_sql, NULL, err)) == NULL)
        return -1;

    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
        pg_result_error(c->conn, res, "read the server version", err);
        PQclear(res);
        return -1;
    }
    c->version = (int)pg_cell_i64(res, 0, "version", 0);
    priv = pg_cell_text(res, 0, "privileged");
    c->privileged = priv != NULL && strcmp(priv, "t") == 0;
    role = pg_cell_text(res, 0, "role");
    snprintf(c->role, sizeof c->role, "%s", role != NULL ? role : "CURRENT_USER");
    PQclear(res);
    if (c->version < MIN_VERSION)
        return seterr(err, "PostgreSQL %d.%d is too old for the server pane (it needs 10 or newer)",
                      c->version / 10000, c->version / 100 % 100);
    return 0;
}

static void
pg_coll_close(void *conn)
{
    struct pg_coll *c = conn;

    PQfinish(c->conn);
    free(c->sql);
    free(c);
}

static void *
pg_coll_open(const struct target *target, char *err)
{
    struct pg_coll *c = xcalloc(1, sizeof *c);

    if (pg_connect_as(target->raw, app_name, CONNECT_TIMEOUT_S, &c->conn, err) < 0 ||
        read_privileges(c, err) < 0) {
        pg_coll_close(c);
        return NULL;
    }
    c->sql = pg_collector_sql(c->version);
    return c;
}

static void
probe_add(struct coll_glances *p, const PGresult *res)
{
    int row;

    for (row = 0; row < PQntuples(res); row++) {
        const char *ours = pg_cell_text(res, row, "ours");
        double n = (double)pg_cell_i64(res, row, "n", 0),
               active = (double)pg_cell_i64(res, row, "active", 0);
        double lock = (double)pg_cell_i64(res, row, "lock", 0);
        double commit_io = (double)pg_cell_i64(res, row, "commit_io", 0);
        double on_cpu = (double)pg_cell_i64(res, row, "on_cpu", 0);
        double io = (double)pg_cell_i64(res, row, "io", 0);
        double sleep = (double)pg_cell_i64(res, row, "sleep", 0);

        p->all += n;
        p->active += active;
        p->on_cpu += on_cpu;
        p->lock += lock;
        p->commit_io += commit_io;
        p->io += io;
        p->sleep += sleep;
        p->idle_tx += (double)pg_cell_i64(res, row, "idle_tx", 0);
        p->lock_kinds[LK_ROW] += (double)pg_cell_i64(res, row, "lock_row", 0);
        p->lock_kinds[LK_TABLE] += (double)pg_cell_i64(res, row, "lock_table", 0);
        p->lock_kinds[LK_ADVISORY] += (double)pg_cell_i64(res, row, "lock_advisory", 0);
        if (ours != NULL && strcmp(ours, "t") == 0) {
            p->own += n;
            p->own_active += active;
            p->own_lock += lock;
            p->own_commit_io += commit_io;
            p->own_cpu += on_cpu;
            p->own_io += io;
            p->own_sleep += sleep;
            p->own_idle += (double)pg_cell_i64(res, row, "idle", 0);
        }
    }
    p->own_known = 1; /* by application_name */
    p->roots++;       /* the chains are asked for whenever a glance sees a lock waiter */
    p->n++;
}

static int
cell_true(const PGresult *res, int row, const char *col)
{
    const char *v = pg_cell_text(res, row, col);

    return v != NULL && strcmp(v, "t") == 0;
}

/* "{12,34}" (pg_blocking_pids as text): the first pid, or 0. */
int
pg_first_blocker(const char *pids)
{
    if (pids == NULL || *pids != '{')
        return 0;
    return atoi(pids + 1);
}

/* The chains' rows into c->chain; how many. */
static int
chain_read(struct pg_coll *c, const PGresult *res)
{
    int row, n = PQntuples(res) < PG_CHAIN_MAX ? PQntuples(res) : PG_CHAIN_MAX;

    for (row = 0; row < n; row++) {
        struct lock_node *s = &c->chain[row];
        const char *q = pg_cell_text(res, row, "query");

        s->id = (uint64_t)pg_cell_i64(res, row, "pid", 0);
        s->ours = cell_true(res, row, "ours");
        s->idle = cell_true(res, row, "idle");
        s->commit = cell_true(res, row, "commit");
        s->blocker = (uint64_t)pg_first_blocker(pg_cell_text(res, row, "blockers"));
        s->handoff = s->blocker == 0 && cell_true(res, row, "waiting");
        s->running_s = pg_cell_f64(res, row, "running_s", 0);
        snprintf(s->query, sizeof s->query, "%s", q ? q : "");
        q = pg_cell_text(res, row, "app");
        snprintf(s->app, sizeof s->app, "%s", q ? q : "");
    }
    return n;
}

/* When the glance saw lock waiters: their chains' roots into the glances. 0, or -1 with err. */
static int
probe_chains(struct pg_coll *c, char *err)
{
    struct lock_roots r;
    PGresult *res;

    /*
     * The sessions as they are now, beside pg_blocking_pids (which reads
     * the lock manager live), not as the glance saw them: a holder seen
     * running its UPDATE at the glance and idle in its transaction by the
     * time its waiters were listed was counted as running (pgbench scale
     * 1: roots running 5.3 of 10, idle 0.1 per glance; live, idle ones
     * were the most)
     */
    if (pg_exec_ok(c->conn, "SELECT " PG_OWN "pg_stat_clear_snapshot()", "follow the lock chains",
                   err) < 0 ||
        (res = pg_exec_timed(c->conn, pg_chains_sql, NULL, err)) == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        pg_result_error(c->conn, res, "follow the lock chains", err);
        PQclear(res);
        return -1;
    }
    lock_roots(c->chain, chain_read(c, res), &r);
    PQclear(res);
    lock_roots_add(&r, &c->probed, &c->stall_own, c->stall_what, sizeof c->stall_what);
    return 0;
}

/* A glance at the sessions, in the transaction the next sample commits (see pg_probe_sql). */
static int
pg_coll_probe(void *conn, char *err)
{
    struct pg_coll *c = conn;
    PGresult *res;
    int rc = 0, last = 0;
    double before = 0;
    uint64_t deadline;

    if (PQtransactionStatus(c->conn) == PQTRANS_IDLE &&
        pg_exec_ok(c->conn, "BEGIN", "begin a glance at the sessions", err) < 0)
        return -1;
    if (!pg_send_rows(c->conn, PQsendQuery(c->conn, pg_probe_sql)))
        return pg_result_error(c->conn, NULL, "glance at the sessions", err);
    deadline = now_us() + PG_PANE_TIMEOUT_S * 1000000u;
    for (;;) {
        if (pg_next_result(c->conn, deadline, &res, err) < 0)
            return -1; /* the connection is then closed: the stream is not reusable */
        if (res == NULL)
            break;
        if (rc == 0 && PQresultStatus(res) != PGRES_TUPLES_OK)
            rc = pg_result_error(c->conn, res, "glance at the sessions", err);
        else if (rc == 0 && ++last == 2) {
            before = c->probed.lock;
            probe_add(&c->probed, res);
        }
        PQclear(res);
    }
    if (rc == 0 && c->probed.lock > before)
        rc = probe_chains(c, err);
    return rc;
}

static int
pg_coll_sample(void *conn, void *out, char *err)
{
    struct pg_coll *c = conn;
    struct pg_sample *s = out;
    int in_tx = PQtransactionStatus(c->conn) == PQTRANS_INTRANS;
    PGresult *res;
    uint64_t deadline;
    int i, rc = 0;

    s->version = c->version;
    s->privileged = c->privileged;
    memcpy(s->role, c->role, sizeof s->role);
    s->probed = c->probed;
    s->stall_own = c->stall_own;
    snprintf(s->stall_what, sizeof s->stall_what, "%s", c->stall_what);
    memset(&c->probed, 0, sizeof c->probed);
    c->stall_own = 0;
    c->stall_what[0] = '\0';
    if (pg_measure_rtt(c->conn, &s->rtt_ms, err) < 0)
        return -1;
    /* after glances the sample runs in their transaction and commits it: still one commit */
    if (in_tx && pg_exec_ok(c->conn, "SELECT " PG_OWN "pg_stat_clear_snapshot()",
                            "sample the server", err) < 0)
        return -1;
    if (!pg_send_rows(c->conn, PQsendQuery(c->conn, c->sql)))
        return pg_result_error(c->conn, NULL, "sample the server", err);
    deadline = now_us() + PG_PANE_TIMEOUT_S * 1000000u;
    /* Read every result, even after an error, so the connection is ready for the next one. */
    for (i = 0;; i++) {
        if (pg_next_result(c->conn, deadline, &res, err) < 0)
            return -1; /* the connection is then closed: the stream is not reusable */
        if (res == NULL)
            break;
        if (rc == 0 && pg_sample_parse(i, res, s) < 0)
            rc = pg_result_error(c->conn, res, "sample the server", err);
        PQclear(res);
    }
    if (rc == 0 && i != PG_SAMPLE_PARTS)
        rc = seterr(err, "could not sample the server: %d results instead of %d", i,
                    PG_SAMPLE_PARTS);
    if (rc == 0 && in_tx)
        rc = pg_exec_ok(c->conn, "COMMIT", "sample the server", err);
    if (rc == 0)
        pg_ckpt_window(&c->ckpt, now_us(), &s->ckpt);
    if (rc == 0) /* tells read_settings whether the server re-read its configuration */
        snprintf(c->settings.seen, sizeof c->settings.seen, "%s", s->conf_load_time);
    return rc;
}

static int
pg_coll_settings(void *conn, struct coll_settings *out, char *err)
{
    struct pg_coll *c = conn;

    return pg_settings_read(c->conn, &c->settings, out, err);
}

static int
pg_coll_apply(void *conn, const char *name, const char *value, char *err)
{
    struct pg_coll *c = conn;

    /* ALTER SYSTEM cannot run in the glances' transaction: end it first (its one commit) */
    if (PQtransactionStatus(c->conn) == PQTRANS_INTRANS &&
        pg_exec_ok(c->conn, "COMMIT", "apply the setting", err) < 0)
        return -1;
    return pg_settings_apply(c->conn, name, value, c->restart, err);
}

/* The glances' transaction ended first: a try's statements run outside it. */
static int
out_of_glance(struct pg_coll *c, char *err)
{
    if (PQtransactionStatus(c->conn) == PQTRANS_INTRANS &&
        pg_exec_ok(c->conn, "COMMIT", "read the setting", err) < 0)
        return -1;
    return 0;
}

static char *
pg_coll_undo_value(void *conn, const char *name, char *err)
{
    struct pg_coll *c = conn;

    if (out_of_glance(c, err) < 0)
        return NULL;
    return pg_settings_undo_value(c->conn, name, c->restart, err);
}

static int
pg_coll_try_lock(void *conn, const char *token, int renew, char *holder, size_t len, char *err)
{
    struct pg_coll *c = conn;

    if (out_of_glance(c, err) < 0)
        return -1;
    return pg_settings_try_lock(c->conn, err);
}

static void
pg_coll_try_unlock(void *conn, const char *token)
{
    char err[BT_ERRLEN];

    if (out_of_glance(conn, err) == 0)
        pg_settings_try_unlock(((struct pg_coll *)conn)->conn);
}

static int
pg_coll_identity(void *conn, char *buf, size_t len, char *err)
{
    struct pg_coll *c = conn;

    if (out_of_glance(c, err) < 0)
        return -1;
    return pg_settings_identity(c->conn, buf, len, err);
}

static int
pg_coll_has_setting(void *conn, const char *name, const char *value, char *err)
{
    struct pg_coll *c = conn;

    if (PQtransactionStatus(c->conn) == PQTRANS_INTRANS &&
        pg_exec_ok(c->conn, "COMMIT", "read the setting", err) < 0)
        return -1;
    return pg_settings_has(c->conn, name, err); /* ALTER SYSTEM quotes any value */
}

static void
pg_coll_allow_restart(void *conn)
{
    ((struct pg_coll *)conn)->restart = 1;
}

static int
pg_coll_sessions(void *conn, struct coll_sessions *out, char *err)
{
    struct pg_coll *c = conn;

    return pg_sessions_read(c->conn, c->privileged, c->role, out, err);
}

static int
pg_coll_kill(void *conn, const char *id, int terminate, char *err)
{
    return pg_sessions_kill(((struct pg_coll *)conn)->conn, id, terminate, err);
}

static int
pg_coll_statements(void *conn, struct coll_statements *out, char *err)
{
    return pg_statements_read(((struct pg_coll *)conn)->conn, out, err);
}

const struct collector_class postgres_collector_class = {
    .name = "postgres",
    .title = "PostgreSQL",
    .sample_size = sizeof(struct pg_sample),
    .open = pg_coll_open,
    .close = pg_coll_close,
    .sample = pg_coll_sample,
    .derive = pg_derive,
    .probe = pg_coll_probe,
    .probe_hz = 15,
    .read_settings = pg_coll_settings,
    .apply_setting = pg_coll_apply,
    .undo_value = pg_coll_undo_value,
    .try_lock = pg_coll_try_lock,
    .try_unlock = pg_coll_try_unlock,
    .identity = pg_coll_identity,
    .has_setting = pg_coll_has_setting,
    .allow_restart = pg_coll_allow_restart,
    .sessions = pg_coll_sessions,
    .kill = pg_coll_kill,
    .statements = pg_coll_statements,
};
