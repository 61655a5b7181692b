/*
 * postgres/statements: the top statements from pg_stat_statements, for
 * watch's statements list: the 32 that took the most time since the last
 * reset, with the totals of all. Read inside the glances' transaction, as
 * the sessions list is, so it adds no commit to the server's count; under
 * a savepoint, so that a view that refuses (the library not preloaded)
 * costs the list, not the transaction.
 */
#include "postgres.h"
#include "conn.h"
#include "engine/collector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Where the extension is (its schema, quoted), and the preload list when this user may see it. */
static const char where_sql[] =
    "SELECT (SELECT quote_ident(n.nspname) FROM pg_extension e"
    " JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements') AS nsp,"
    " (SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries') AS spl";

/* %s: the time column (total_exec_time from 13 on, total_time before), the schema. */
static const char top_sql[] =
    "SELECT " PG_OWN "coalesce(s.queryid::text, '') || ':' || s.dbid || ':' || s.userid AS id,"
    " left(coalesce(s.query, ''), 199) AS text, s.calls, s.%1$s AS total_ms, s.rows,"
    " sum(s.%1$s) OVER () AS all_ms, sum(s.calls) OVER () AS all_calls, count(*) OVER () AS total"
    " FROM %2$s.pg_stat_statements s WHERE s.query NOT LIKE '%%" PG_OWN "%%'"
    " ORDER BY s.%1$s DESC LIMIT 32";

static int
run(PGconn *conn, const char *sql, char *err)
{
    PGresult *res = pg_exec_timed(conn, sql, NULL, err);
    int rc = 0;

    if (res == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = pg_result_error(conn, res, "read the top statements", err);
    PQclear(res);
    return rc;
}

/* The schema of the extension into nsp, or a note saying how to turn it on: 1 usable, 0 not. */
static int
locate(PGconn *conn, char *nsp, size_t len, struct coll_statements *out, char *err)
{
    PGresult *res = pg_exec_timed(conn, where_sql, NULL, err);
    const char *n, *spl;
    int loaded;

    if (res == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        pg_result_error(conn, res, "find pg_stat_statements", err);
        PQclear(res);
        return -1;
    }
    n = pg_cell_text(res, 0, "nsp");
    spl = pg_cell_text(res, 0, "spl"); /* NULL: hidden from this user; then it is tried */
    loaded = spl == NULL || strstr(spl, "pg_stat_statements") != NULL;
    snprintf(nsp, len, "%s", n ? n : "");
    if (!loaded)
        snprintf(out->note, sizeof out->note,
                 "no top statements: add pg_stat_statements to shared_preload_libraries, restart,"
                 " then CREATE EXTENSION pg_stat_statements");
    else if (n == NULL)
        snprintf(out->note, sizeof out->note,
                 "no top statements: CREATE EXTENSION pg_stat_statements in this database");
    PQclear(res);
    return out->note[0] == '\0';
}

static void
parse(const PGresult *res, struct coll_statements *out)
{
    int i;

    for (i = 0; i < PQntuples(res) && i < COLL_MAX_STATEMENTS; i++) {
        struct coll_statement *s = &out->s[i];
        const char *id = pg_cell_text(res, i, "id"), *text = pg_cell_text(res, i, "text");

        snprintf(s->id, sizeof s->id, "%s", id ? id : "");
        snprintf(s->text, sizeof s->text, "%s", text ? text : "");
        s->calls = pg_cell_f64(res, i, "calls", 0);
        s->total_ms = pg_cell_f64(res, i, "total_ms", 0);
        s->rows = pg_cell_f64(res, i, "rows", NAN);
    }
    out->n = i;
    out->total = i > 0 ? (int)pg_cell_i64(res, 0, "total", i) : 0;
    out->all_ms = i > 0 ? pg_cell_f64(res, 0, "all_ms", 0) : 0;
    out->all_calls = i > 0 ? pg_cell_f64(res, 0, "all_calls", 0) : 0;
}

/* The query under a savepoint: a refusal rolls back to it and becomes the note. */
static int
read_top(PGconn *conn, const char *nsp, struct coll_statements *out, char *err)
{
    char sql[sizeof top_sql + 200], why[BT_ERRLEN];
    PGresult *res;

    snprintf(sql, sizeof sql, top_sql,
             PQserverVersion(conn) >= 130000 ? "total_exec_time" : "total_time", nsp);
    if (run(conn, "SAVEPOINT benchtop_statements", err) < 0 ||
        (res = pg_exec_timed(conn, sql, NULL, err)) == NULL)
        return -1;
    if (PQresultStatus(res) == PGRES_TUPLES_OK) {
        parse(res, out);
        PQclear(res);
        return run(conn, "RELEASE SAVEPOINT benchtop_statements", err);
    }
    pg_result_error(conn, res, "read pg_stat_statements", why);
    PQclear(res);
    snprintf(out->note, sizeof out->note, "no top statements: %.120s", why);
    return run(conn, "ROLLBACK TO SAVEPOINT benchtop_statements", err);
}

int
pg_statements_read(PGconn *conn, struct coll_statements *out, char *err)
{
    char nsp[140];
    int usable;

    snprintf(out->source, sizeof out->source, "pg_stat_statements");
    if (PQtransactionStatus(conn) == PQTRANS_IDLE && run(conn, "BEGIN", err) < 0)
        return -1;
    if ((usable = locate(conn, nsp, sizeof nsp, out, err)) <= 0)
        return usable;
    return read_top(conn, nsp, out, err);
}
