/*
 * postgres/settings: the PostgreSQL settings that matter for tuning, read
 * for the collector, and setting one from the dashboard.
 *
 * Reading: a server-wide setting changes only when the server re-reads its
 * configuration (a reload, which also moves pg_conf_load_time(), or a
 * restart, which is a new connection). The sample's query already returns
 * pg_conf_load_time() (cache->seen), so a read costs no round trip and no
 * transaction while it stays put, and one query when it moved: about 1 ms
 * (current_setting() per name; a pg_settings scan builds every row and
 * costs 2-3 ms; psql \timing on the throwaway PostgreSQL 15 of the tests).
 * The collector so still adds one commit per sample to xact_commit, and one
 * more per reload.
 *
 * Setting: ALTER SYSTEM SET, then pg_reload_conf(), so every session sees
 * the value without a restart. A setting whose pg_settings.context is
 * 'postmaster' is refused before anything is written: a reload would not
 * apply it, and postgresql.auto.conf would hold a value the server does not
 * run with.
 */
#include "postgres.h"
#include "pg-collector.h"
#include "conn.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Names as pg_settings spells them; one the server does not know is left out. */
static const char read_sql[] =
    "SELECT n, current_setting(n, true) FROM unnest(ARRAY["
    "'shared_buffers', 'synchronous_commit', 'fsync', 'full_page_writes', 'wal_buffers',"
    " 'wal_writer_delay', 'commit_delay', 'commit_siblings', 'checkpoint_timeout',"
    " 'max_wal_size', 'checkpoint_completion_target', 'work_mem', 'maintenance_work_mem',"
    " 'effective_io_concurrency', 'max_connections', 'wal_level', 'wal_compression',"
    " 'wal_sync_method', 'random_page_cost', 'effective_cache_size', 'jit', 'huge_pages',"
    " 'max_parallel_workers_per_gather', 'autovacuum']) AS n";

static const char context_sql[] = "SELECT name, context FROM pg_settings WHERE name = lower($1)";

/*
 * For a try's undo: the context, the value now, and whether ALTER SYSTEM
 * set it (postgresql.auto.conf; sourcefile needs pg_read_all_settings,
 * which ALTER SYSTEM's superuser has).
 */
static const char undo_sql[] =
    "SELECT name, context, current_setting(name),"
    " coalesce(sourcefile LIKE '%postgresql.auto.conf', false), source = 'command line'"
    " FROM pg_settings WHERE name = lower($1)";

static int
failed(PGconn *conn, PGresult *res, const char *what, char *err)
{
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    char line[BT_ERRLEN];

    first_line(line, sizeof line, msg ? msg : PQerrorMessage(conn));
    PQclear(res);
    return seterr(err, "could not %s: %s", what, line);
}

/* Runs sql (no parameters, or one); the result when its status is `want`, else NULL and err. */
static PGresult *
run(PGconn *conn, const char *sql, const char *param, ExecStatusType want, const char *what,
    char *err)
{
    PGresult *res = pg_exec_timed(conn, sql, param, err); /* never waits on a frozen server */

    if (res == NULL)
        return NULL;
    if (PQresultStatus(res) != want) {
        failed(conn, res, what, err);
        return NULL;
    }
    return res;
}

int
pg_settings_read(struct pg_conn *conn, struct pg_settings_cache *cache, struct coll_settings *out,
                 char *err)
{
    PGresult *res;
    int i;

    if (cache->valid && cache->seen[0] != '\0' && strcmp(cache->load_time, cache->seen) == 0) {
        *out = cache->last;
        return 0;
    }
    if ((res = run(conn, read_sql, NULL, PGRES_TUPLES_OK, "read the settings", err)) == NULL)
        return -1;
    memcpy(cache->load_time, cache->seen, sizeof cache->load_time);
    for (i = 0; i < PQntuples(res); i++)
        if (!PQgetisnull(res, i, 1))
            coll_setting_add(out, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1));
    PQclear(res);
    cache->last = *out;
    cache->valid = 1;
    return 0;
}

/* The refusal for a context a reload (or, restart, a restart) does not apply; NULL if it does. */
static const char *
refusal(const char *context, int restart)
{
    if (strcmp(context, "postmaster") == 0 && !restart)
        return "needs a restart (set it in postgresql.conf)";
    if (strcmp(context, "internal") == 0)
        return "cannot be changed (fixed at initdb or build)";
    return NULL;
}

/* ALTER SYSTEM SET "name" = 'value' (RESET for DEFAULT); newly allocated, NULL and err. */
static char *
alter_sql(PGconn *conn, const char *name, const char *value, char *err)
{
    char *id = PQescapeIdentifier(conn, name, strlen(name)), *lit = NULL, *sql = NULL;

    if (id != NULL && strcasecmp(value, "default") == 0)
        sql = xasprintf("ALTER SYSTEM RESET %s", id);
    else if (id != NULL && (lit = PQescapeLiteral(conn, value, strlen(value))) != NULL)
        sql = xasprintf("ALTER SYSTEM SET %s = %s", id, lit);
    if (sql == NULL)
        failed(conn, NULL, "quote the setting", err);
    PQfreemem(id);
    PQfreemem(lit);
    return sql;
}

/*
 * A role that may not set it (not a superuser): the two grants that would
 * let it, at once, since ALTER SYSTEM granted alone would write a value that
 * pg_reload_conf() then may not apply. Returns -1 for the caller.
 */
static int
grant_hint(PGconn *conn, const char *name, char *err)
{
    size_t n = strlen(err);

    if (strstr(err, "permission denied") != NULL)
        snprintf(err + n, BT_ERRLEN - n,
                 " (GRANT ALTER SYSTEM ON PARAMETER %s TO %s; GRANT EXECUTE ON FUNCTION "
                 "pg_reload_conf() TO %s)",
                 name, PQuser(conn), PQuser(conn));
    return -1;
}

int
pg_settings_apply(struct pg_conn *conn, const char *name, const char *value, int restart, char *err)
{
    PGresult *res = run(conn, context_sql, name, PGRES_TUPLES_OK, "look the setting up", err);
    char real[64], *sql;
    const char *no;

    if (res == NULL)
        return -1;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return seterr(err, "%s is not a setting (see SHOW ALL)", name);
    }
    snprintf(real, sizeof real, "%s", PQgetvalue(res, 0, 0));
    no = refusal(PQgetvalue(res, 0, 1), restart);
    PQclear(res);
    if (no != NULL)
        return seterr(err, "%s %s", real, no);
    if ((sql = alter_sql(conn, real, value, err)) == NULL)
        return -1;
    res = run(conn, sql, NULL, PGRES_COMMAND_OK, "set it", err);
    free(sql);
    if (res == NULL)
        return grant_hint(conn, real, err);
    PQclear(res);
    if ((res = run(conn, "SELECT pg_reload_conf()", NULL, PGRES_TUPLES_OK, "reload", err)) == NULL)
        return grant_hint(conn, real, err);
    PQclear(res);
    return 0;
}

int
pg_settings_has(struct pg_conn *conn, const char *name, char *err)
{
    PGresult *res = run(conn, context_sql, name, PGRES_TUPLES_OK, "look the setting up", err);
    int n;

    if (res == NULL)
        return -1;
    n = PQntuples(res);
    PQclear(res);
    return n == 1;
}

int
pg_settings_undo_value(struct pg_conn *conn, const char *name, char *value, size_t len, int restart,
                       char *err)
{
    PGresult *res = run(conn, undo_sql, name, PGRES_TUPLES_OK, "look the setting up", err);
    const char *no;
    int rv = 0;

    if (res == NULL)
        return -1;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return seterr(err, "%s is not a setting (see SHOW ALL)", name);
    }
    if ((no = refusal(PQgetvalue(res, 0, 1), restart)) != NULL)
        rv = seterr(err, "%s %s", PQgetvalue(res, 0, 0), no);
    else if (restart && strcmp(PQgetvalue(res, 0, 4), "t") == 0) /* it outranks auto.conf */
        rv = seterr(err, "%s is set on the server's command line: a restart keeps that value",
                    PQgetvalue(res, 0, 0));
    else if (strcmp(PQgetvalue(res, 0, 3), "t") == 0)
        snprintf(value, len, "%s", PQgetvalue(res, 0, 2));
    else /* RESET on the way back: postgresql.conf's value comes back, and auto.conf stays clean */
        snprintf(value, len, "default");
    PQclear(res);
    return rv;
}
