/*
 * postgres/sessions: pg_stat_activity as pg_activity lists it, for the
 * dashboard's sessions list, and pg_cancel_backend / pg_terminate_backend
 * on the user's confirmed keystroke.
 *
 * The list is read inside the glances' transaction (pg_coll_probe opens
 * it, the next sample commits it), so it adds no commit to the server's
 * count; pg_stat_clear_snapshot() makes it see the sessions as they are now.
 */
#include "postgres.h"
#include "conn.h"
#include "engine/collector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * Client sessions, longest-running first (idle ones last), the collector's
 * own included and marked: in watch it is benchtop's one session. A query's
 * age is since its start while active, since its state last changed
 * otherwise (how long it has been idle in its transaction, say).
 */
static const char list_sql[] =
    "SELECT " PG_OWN "pid, coalesce(usename, '') AS usr, coalesce(application_name, '') AS app,"
    " coalesce(host(client_addr) || ':' || client_port, 'local') AS client,"
    " coalesce(datname, '') AS db, coalesce(state, '') AS state,"
    " coalesce(wait_event_type || ':' || wait_event, '') AS wait,"
    " extract(epoch FROM clock_timestamp() - xact_start) AS xact_s,"
    " extract(epoch FROM clock_timestamp() - CASE WHEN state = 'active' THEN query_start"
    " ELSE state_change END) AS query_s,"
    " left(coalesce(query, ''), 239) AS query,"
    " (pid = pg_backend_pid() OR application_name = 'benchtop') AS own,"
    " cardinality(pg_blocking_pids(pid)) > 0 AS blocked,"
    " count(*) OVER () AS total"
    " FROM pg_stat_activity"
    " WHERE backend_type = 'client backend'"
    " OR (backend_type IS NULL AND datid IS NOT NULL AND usesysid IS NOT NULL)"
    " ORDER BY state = 'idle', query_start LIMIT 64";

static void
copy_cell(char *dst, size_t len, const PGresult *res, int row, const char *col)
{
    const char *v = pg_cell_text(res, row, col);

    snprintf(dst, len, "%s", v ? v : "");
}

static void
parse_row(const PGresult *res, int row, struct coll_session *s)
{
    const char *own = pg_cell_text(res, row, "own");
    const char *blocked = pg_cell_text(res, row, "blocked");

    copy_cell(s->id, sizeof s->id, res, row, "pid");
    copy_cell(s->user, sizeof s->user, res, row, "usr");
    copy_cell(s->app, sizeof s->app, res, row, "app");
    copy_cell(s->client, sizeof s->client, res, row, "client");
    copy_cell(s->db, sizeof s->db, res, row, "db");
    copy_cell(s->state, sizeof s->state, res, row, "state");
    copy_cell(s->wait, sizeof s->wait, res, row, "wait");
    copy_cell(s->query, sizeof s->query, res, row, "query");
    s->xact_s = pg_cell_f64(res, row, "xact_s", NAN);
    s->query_s = pg_cell_f64(res, row, "query_s", NAN);
    s->own = own != NULL && strcmp(own, "t") == 0;
    s->blocked = blocked != NULL && strcmp(blocked, "t") == 0;
    if (s->state[0] == '\0')
        snprintf(s->state, sizeof s->state, "hidden");
}

/* A statement whose rows are not wanted, on the collector's connection with its deadline. */
static int
run(PGconn *conn, const char *sql, const char *what, char *err)
{
    PGresult *res = pg_exec_timed(conn, sql, NULL, err);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    int rc = 0;

    if (res == NULL)
        return -1;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        rc = pg_result_error(conn, res, what, err);
    PQclear(res);
    return rc;
}

int
pg_sessions_read(PGconn *conn, int privileged, const char *role, struct coll_sessions *out,
                 char *err)
{
    PGresult *res;
    int i;

    if (PQtransactionStatus(conn) == PQTRANS_IDLE && run(conn, "BEGIN", "list sessions", err) < 0)
        return -1;
    if (run(conn, "SELECT " PG_OWN "pg_stat_clear_snapshot()", "list sessions", err) < 0 ||
        (res = pg_exec_timed(conn, list_sql, NULL, err)) == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        pg_result_error(conn, res, "list sessions", err);
        PQclear(res);
        return -1;
    }
    for (i = 0; i < PQntuples(res) && i < COLL_MAX_SESSIONS; i++)
        parse_row(res, i, &out->s[i]);
    out->n = i;
    out->total = i > 0 ? (int)pg_cell_i64(res, 0, "total", i) : 0;
    PQclear(res);
    snprintf(out->xact_head, sizeof out->xact_head, "xact");
    snprintf(out->query_head, sizeof out->query_head, "query");
    if (!privileged)
        snprintf(out->note, sizeof out->note,
                 "other users' queries hidden: GRANT pg_monitor TO %.60s", role);
    return 0;
}

int
pg_sessions_kill(PGconn *conn, const char *id, int terminate, char *err)
{
    const char *fn = terminate ? "pg_terminate_backend" : "pg_cancel_backend";
    char sql[64];
    uint64_t pid;
    PGresult *res;
    const char *ok;
    int rc = 0;

    if (safe_strtoull(id, &pid) < 0 || pid == 0 || pid > INT32_MAX)
        return seterr(err, "%.23s is not a PostgreSQL pid", id);
    /* its own transaction: a refusal must not abort the glances' one */
    if (PQtransactionStatus(conn) != PQTRANS_IDLE && run(conn, "COMMIT", "end a session", err) < 0)
        return -1;
    snprintf(sql, sizeof sql, "SELECT %s(%llu) AS ok", fn, (unsigned long long)pid);
    if ((res = pg_exec_timed(conn, sql, NULL, err)) == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK)
        rc = pg_result_error(conn, res, terminate ? "terminate the session" : "cancel the query",
                             err);
    else if ((ok = pg_cell_text(res, 0, "ok")) == NULL || strcmp(ok, "t") != 0)
        rc =
            seterr(err, "%s(%llu) did nothing: the session has ended", fn, (unsigned long long)pid);
    PQclear(res);
    return rc;
}
