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
 * For a try's undo: the context, whether the command line set it, and the
 * source to put back: postgresql.auto.conf's last line for the name as
 * written (pg_file_settings reads the file now: applied or pending, in the
 * admin's spelling), NULL when it has none. sourcefile needs
 * pg_read_all_settings, which ALTER SYSTEM's superuser has.
 */
static const char undo_sql[] =
    "SELECT s.name, s.context, s.source = 'command line',"
    " (SELECT f.setting FROM pg_file_settings f WHERE f.name = s.name"
    "  AND f.sourcefile LIKE '%/postgresql.auto.conf' ORDER BY f.seqno DESC LIMIT 1)"
    " FROM pg_settings s WHERE s.name = lower($1)";

/*
 * ALTER ROLE / ALTER DATABASE settings of name that the target's sessions
 * (this connection's role and database) take over the server-wide value:
 * the role (or "ALL") and database of the first, "" for none.
 */
static const char mask_sql[] =
    "SELECT CASE WHEN s.setrole = 0 THEN 'ALL' ELSE quote_ident(r.rolname) END,"
    " coalesce(quote_ident(d.datname), '')"
    " FROM pg_db_role_setting s LEFT JOIN pg_roles r ON r.oid = s.setrole"
    " LEFT JOIN pg_database d ON d.oid = s.setdatabase"
    " WHERE (s.setrole = 0 OR r.rolname = current_user)"
    " AND (s.setdatabase = 0 OR d.datname = current_database())"
    " AND EXISTS (SELECT 1 FROM unnest(s.setconfig) c WHERE lower(split_part(c, '=', 1)) = "
    "lower($1))"
    " ORDER BY s.setrole DESC, s.setdatabase DESC LIMIT 1";

/*
 * The settings whose value is a list of quoted items (GUC_LIST_QUOTE, as
 * pg_dump lists them): ALTER SYSTEM takes them as several literals, one
 * per item, and a single literal would become one item.
 */
static const char *const list_settings[] = {
    "local_preload_libraries",  "search_path",      "session_preload_libraries",
    "shared_preload_libraries", "temp_tablespaces", "unix_socket_directories",
};

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

static int
is_list(const char *name)
{
    for (size_t i = 0; i < sizeof list_settings / sizeof list_settings[0]; i++)
        if (strcasecmp(name, list_settings[i]) == 0)
            return 1;
    return 0;
}

/*
 * A list's text as postgresql.auto.conf holds it ("$user", public) into
 * its items, each a quoted literal, comma-separated: ALTER SYSTEM quotes
 * each item back the way it was. NULL with err.
 */
static char *
list_literals(PGconn *conn, const char *text, char *err)
{
    char *out = xstrdup(""), *item = xmalloc(strlen(text) + 1), *lit, *next;
    const char *p = text;
    size_t n;

    while (out != NULL) {
        while (*p == ' ' || *p == '\t')
            p++;
        n = 0;
        if (*p == '"') /* a quoted item: "" is one quote */
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++)
                item[n++] = *p == '"' ? *++p : *p;
        else
            while (*p && *p != ',')
                item[n++] = *p++;
        if (*p == '"')
            p++;
        while (n > 0 && (item[n - 1] == ' ' || item[n - 1] == '\t'))
            n--;
        item[n] = '\0';
        if ((lit = PQescapeLiteral(conn, item, n)) == NULL) {
            failed(conn, NULL, "quote the setting", err);
            free(out);
            out = NULL;
            break;
        }
        next = xasprintf("%s%s%s", out, out[0] ? ", " : "", lit);
        PQfreemem(lit);
        free(out);
        out = next;
        p += strcspn(p, ",");
        if (*p++ != ',')
            break;
    }
    free(item);
    return out;
}

/* ALTER SYSTEM SET "name" = 'value' (RESET for DEFAULT); newly allocated, NULL and err. */
static char *
alter_sql(PGconn *conn, const char *name, const char *value, char *err)
{
    char *id = PQescapeIdentifier(conn, name, strlen(name)), *lit = NULL, *sql = NULL;

    if (id != NULL && strcasecmp(value, "default") == 0)
        sql = xasprintf("ALTER SYSTEM RESET %s", id);
    else if (id != NULL && is_list(name)) {
        if ((lit = list_literals(conn, value, err)) != NULL)
            sql = xasprintf("ALTER SYSTEM SET %s = %s", id, lit);
        free(lit);
        PQfreemem(id);
        return sql;
    } else if (id != NULL && (lit = PQescapeLiteral(conn, value, strlen(value))) != NULL)
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

/* A role's or database's setting of name masks the global one for our sessions: -1 with err. */
static int
masked_for_us(struct pg_conn *conn, const char *name, char *err)
{
    PGresult *res = run(conn, mask_sql, name, PGRES_TUPLES_OK, "look the setting up", err);
    char who[200];
    const char *role, *db;

    if (res == NULL)
        return -1;
    if (PQntuples(res) == 0) {
        PQclear(res);
        return 0;
    }
    role = PQgetvalue(res, 0, 0);
    db = PQgetvalue(res, 0, 1);
    if (db[0] != '\0' && strcmp(role, "ALL") == 0)
        snprintf(who, sizeof who, "DATABASE %s", db);
    else
        snprintf(who, sizeof who, "ROLE %s%s%s", role, db[0] ? " IN DATABASE " : "", db);
    seterr(err,
           "%s is set by ALTER %s, which the load's sessions take over the server-wide value: B "
           "would not reach them (ALTER %s RESET %s first, or try it with another role)",
           name, who, who, name);
    PQclear(res);
    return -1;
}

char *
pg_settings_undo_value(struct pg_conn *conn, const char *name, int restart, char *err)
{
    PGresult *res = run(conn, undo_sql, name, PGRES_TUPLES_OK, "look the setting up", err);
    const char *no;
    char *value = NULL;

    if (res == NULL) {
        if (strstr(err, "permission denied") != NULL)
            snprintf(err + strlen(err), BT_ERRLEN - strlen(err),
                     " (GRANT pg_read_all_settings TO %s)", PQuser(conn));
        return NULL;
    }
    if (PQntuples(res) != 1) {
        PQclear(res);
        seterr(err, "%s is not a setting (see SHOW ALL)", name);
        return NULL;
    }
    if ((no = refusal(PQgetvalue(res, 0, 1), restart)) != NULL)
        seterr(err, "%s %s", PQgetvalue(res, 0, 0), no);
    else if (restart && strcmp(PQgetvalue(res, 0, 2), "t") == 0) /* it outranks auto.conf */
        seterr(err, "%s is set on the server's command line: a restart keeps that value",
               PQgetvalue(res, 0, 0));
    else if (masked_for_us(conn, PQgetvalue(res, 0, 0), err) == 0)
        /* auto.conf's line as written, or RESET on the way back: auto.conf stays clean */
        value = xstrdup(PQgetisnull(res, 0, 3) ? "default" : PQgetvalue(res, 0, 3));
    PQclear(res);
    return value;
}

/* One try at a time per server: a session-level advisory lock on the collector's connection. */
#define PG_TRY_LOCK_KEY "7071368297313809521" /* "benchtop" as a number; any fixed key */

int
pg_settings_try_lock(struct pg_conn *conn, char *err)
{
    PGresult *res = run(
        conn,
        "SELECT CASE WHEN current_setting('port') = $1 THEN pg_try_advisory_lock(" PG_TRY_LOCK_KEY
        ") END, current_setting('port') = $1",
        PQport(conn) && *PQport(conn) ? PQport(conn) : "5432", PGRES_TUPLES_OK, "take the try lock",
        err);
    int got, direct;

    if (res == NULL)
        return -1;
    got = strcmp(PQgetvalue(res, 0, 0), "t") == 0; /* a killed holder's session ends: no stale */
    /*
     * Another port than the server's: a pooler between (PgBouncer), whose
     * transaction pooling would hand the session's lock to other clients:
     * none is taken there.
     */
    direct = strcmp(PQgetvalue(res, 0, 1), "t") == 0;
    PQclear(res);
    return direct ? got : 2;
}

void
pg_settings_try_unlock(struct pg_conn *conn)
{
    char err[BT_ERRLEN];
    PGresult *res = run(conn, "SELECT pg_advisory_unlock(" PG_TRY_LOCK_KEY ")", NULL,
                        PGRES_TUPLES_OK, "let the try lock go", err);

    PQclear(res);
}

int
pg_settings_identity(struct pg_conn *conn, char *buf, size_t len, char *err)
{
    PGresult *res = run(conn,
                        "SELECT system_identifier::text || ':' || current_setting('port') FROM "
                        "pg_control_system()",
                        NULL, PGRES_TUPLES_OK, "read the server's identity", err);

    if (res == NULL)
        return -1;
    snprintf(buf, len, "postgres:%s", PQgetvalue(res, 0, 0));
    PQclear(res);
    return 0;
}
