/*
 * pgbouncer-settings: a try's settings on PgBouncer's admin console.
 *
 * SHOW CONFIG lists every setting with its value and a `changeable`
 * column; SET name = 'value' changes one at once for every pool. A pool's
 * size is checked when it opens a server connection: a larger
 * default_pool_size lets waiting clients through at once, and `try`'s
 * rounds (a load each, its clients gone between them) start under the
 * size put back. Under a load that goes on (the dashboard's t), the
 * connections a larger size opened stay busy after it is put back
 * (measured: pool 2 -> 4 -> 2 served on at 4, about 380 tps against 200),
 * so there A is not the pool it was; RECONNECT did not mend it on 1.18
 * (the next B round then finished no transaction). So a pool size set
 * below the server connections a database holds is followed by PAUSE and
 * RESUME of that database: PAUSE returns once each server connection is
 * released and closed (in transaction or statement pooling, at the end of
 * its transaction: measured 1.4 s under 16 clients, no client error), and
 * the pool then reopens at the new size. It is bounded (pgb_pause_wait_ms):
 * past it the database is resumed from a second console connection and
 * the first reopened. In session pooling a server connection is released
 * only when its client leaves, never under a running load: no PAUSE there,
 * and A runs at the larger pool until the clients reconnect. A setting that
 * is not changeable is read at start only: refused before anything is
 * written. The console's SET takes a quoted value with no escape (a quote
 * cannot be written inside one), so a value with a quote, a backslash or a
 * control character is refused, not quoted.
 */
#include "pgbouncer.h"
#include "postgres.h"

#include <ctype.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int
pgb_setting_check(const char *name, const char *value, char *err)
{
    const unsigned char *c;

    if (name[0] == '\0')
        return seterr(err, "an empty name is not a PgBouncer setting (see SHOW CONFIG)");
    for (c = (const unsigned char *)name; *c; c++)
        if (!isalnum(*c) && *c != '_')
            return seterr(err, "'%.60s' is not a PgBouncer setting (see SHOW CONFIG)", name);
    for (c = (const unsigned char *)value; *c; c++)
        if (*c == '\'' || *c == '\\' || *c < 0x20 || *c == 0x7f)
            return seterr(err,
                          "%s: PgBouncer's console cannot take a value with a quote, a "
                          "backslash or a control character",
                          name);
    return 0;
}

/* SHOW CONFIG's row of name: 1 with its value and changeable column copied, 0 when none. */
static int
config_row(PGconn *conn, const char *name, char *value, size_t len, int *changeable, char *err)
{
    PGresult *res = PQexec(conn, "SHOW CONFIG");
    char msg[BT_ERRLEN];
    int found = 0;

    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        first_line(msg, sizeof msg, PQerrorMessage(conn));
        PQclear(res);
        return seterr(err, "pgbouncer SHOW CONFIG: %s", msg);
    }
    for (int r = 0; r < PQntuples(res) && !found; r++) {
        const char *key = pg_cell_text(res, r, "key"), *v = pg_cell_text(res, r, "value");
        const char *ch = pg_cell_text(res, r, "changeable");

        if (key == NULL || strcasecmp(key, name) != 0)
            continue;
        found = 1;
        snprintf(value, len, "%s", v ? v : "");
        *changeable = ch == NULL || strcmp(ch, "no") != 0; /* no column: SET says */
    }
    PQclear(res);
    return found;
}

int
pgb_has_setting(struct pg_conn *conn, const char *name, const char *value, char *err)
{
    char now[128];
    int changeable, rv = config_row(conn, name, now, sizeof now, &changeable, err);

    if (rv == 1 && value != NULL && pgb_setting_check(name, value, err) < 0)
        return -1;
    return rv;
}

/* PgBouncer's SET takes at most a short value (sql[256] below): a longer one is refused. */
char *
pgb_undo_value(struct pg_conn *conn, const char *name, char *err)
{
    char value[256];
    int changeable, rv = config_row(conn, name, value, sizeof value, &changeable, err);

    if (rv < 0)
        return NULL;
    if (rv == 0)
        seterr(err, "%.60s is not a PgBouncer setting (see SHOW CONFIG)", name);
    else if (!changeable)
        seterr(err, "%s needs a PgBouncer restart (set it in pgbouncer.ini)", name);
    else if (strlen(value) >= sizeof value - 1 || pgb_setting_check(name, value, err) < 0)
        /* what puts it back must be writable too */
        seterr(err, "%s's value now could not be put back by SET: not tried", name);
    else
        return xstrdup(value);
    return NULL;
}

/* How long PAUSE may wait for a database's transactions to end. */
static const int pgb_pause_wait_ms = 5000;

/* A database name the console takes as it is (PAUSE's argument has no quoting). */
static int
plain_name(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* The command's result within ms: 0 when it came (and was read), -1 when not. */
static int
result_within(PGconn *c, int ms)
{
    uint64_t end = now_us() + (uint64_t)ms * 1000;
    PGresult *res;

    while (PQisBusy(c)) {
        struct pollfd p = {.fd = PQsocket(c), .events = POLLIN};
        int64_t left = (int64_t)(end - now_us()) / 1000;

        if (left <= 0 || poll(&p, 1, (int)left) < 0 || !PQconsumeInput(c))
            return -1;
    }
    while ((res = PQgetResult(c)) != NULL)
        PQclear(res);
    return 0;
}

/* RESUME db from a console connection of its own (the first is waiting on PAUSE). */
static void
resume_beside(PGconn *c, const char *db)
{
    PQconninfoOption *opts = PQconninfo(c);
    const char *keys[40], *values[40];
    char sql[96];
    int n = 0;
    PGconn *other;

    for (PQconninfoOption *o = opts; o && o->keyword && n < 39; o++)
        if (o->val != NULL && o->val[0])
            keys[n] = o->keyword, values[n++] = o->val;
    keys[n] = values[n] = NULL;
    other = PQconnectdbParams(keys, values, 0);
    snprintf(sql, sizeof sql, "RESUME %.63s", db);
    if (PQstatus(other) == CONNECTION_OK)
        PQclear(PQexec(other, sql));
    PQfinish(other);
    PQconninfoFree(opts);
}

/* Server connections of db still logging in (SHOW POOLS' sv_login); -1 unknown. */
static int
logins(PGconn *c, const char *db)
{
    PGresult *res = PQexec(c, "SHOW POOLS");
    int n = PQresultStatus(res) == PGRES_TUPLES_OK ? 0 : -1;

    for (int r = 0; n >= 0 && r < PQntuples(res); r++) {
        const char *name = pg_cell_text(res, r, "database");

        if (name != NULL && strcmp(name, db) == 0)
            n += (int)pg_cell_i64(res, r, "sv_login", 0);
    }
    PQclear(res);
    return n;
}

/*
 * PAUSE then RESUME db, bounded: the database's server connections
 * closed, its clients kept. Not while a server connection logs in: PAUSE
 * closing it counts as a failed login, and PgBouncer then refuses every
 * client for server_login_retry (measured: "server login has been
 * failing" after a B round of 16).
 */
static int
pause_resume(PGconn *c, const char *db, char *err)
{
    char sql[96];
    uint64_t end = now_us() + 2000000;
    int n;

    while ((n = logins(c, db)) != 0 && now_us() < end)
        usleep(50000);
    if (n != 0)
        return seterr(err, "PgBouncer's pool %.63s kept logging in: not paused", db);

    snprintf(sql, sizeof sql, "PAUSE %.63s", db);
    if (!PQsendQuery(c, sql))
        return seterr(err, "PgBouncer PAUSE %s: not sent", db);
    if (result_within(c, pgb_pause_wait_ms) < 0) {
        resume_beside(c, db);
        if (result_within(c, 1000) < 0)
            PQreset(c); /* the console still owes PAUSE's reply: a connection of its own again */
        return seterr(err,
                      "PgBouncer PAUSE %s took over %d s (transactions that do not end): resumed, "
                      "its pool may stay larger until its clients reconnect",
                      db, pgb_pause_wait_ms / 1000);
    }
    snprintf(sql, sizeof sql, "RESUME %.63s", db);
    PQclear(PQexec(c, sql));
    return 0;
}

/* SHOW DATABASES' pool size of db (a database's own, else the default): size when not listed. */
static long
db_pool_size(PGconn *c, const char *db, long size)
{
    PGresult *res = PQexec(c, "SHOW DATABASES");

    for (int r = 0; PQresultStatus(res) == PGRES_TUPLES_OK && r < PQntuples(res); r++) {
        const char *name = pg_cell_text(res, r, "name");

        if (name != NULL && strcmp(name, db) == 0)
            size = (long)pg_cell_i64(res, r, "pool_size", size);
    }
    PQclear(res);
    return size;
}

/*
 * After the pool size is set to size: PAUSE and RESUME each database
 * that holds more server connections than its pool now allows, outside
 * session pooling.
 */
static int
shrink_pools(PGconn *c, long size, char *err)
{
    PGresult *res = PQexec(c, "SHOW POOLS");
    char dbs[8][64];
    int64_t servers[8];
    int n = 0, rv = 0;

    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        PQclear(res);
        return 0; /* the size is set; only its reach is unknown */
    }
    for (int r = 0; r < PQntuples(res) && n < 8; r++) {
        const char *db = pg_cell_text(res, r, "database"),
                   *mode = pg_cell_text(res, r, "pool_mode");
        int64_t sv = pg_cell_i64(res, r, "sv_active", 0) + pg_cell_i64(res, r, "sv_idle", 0) +
                     pg_cell_i64(res, r, "sv_used", 0) + pg_cell_i64(res, r, "sv_tested", 0) +
                     pg_cell_i64(res, r, "sv_login", 0);

        if (db == NULL || strcmp(db, "pgbouncer") == 0 || sv <= size || !plain_name(db) ||
            strlen(db) >= sizeof dbs[0] || (mode != NULL && strcmp(mode, "session") == 0))
            continue;
        servers[n] = sv;
        snprintf(dbs[n++], sizeof dbs[0], "%s", db);
    }
    PQclear(res);
    for (int i = 0; i < n && rv == 0; i++)
        if (servers[i] > db_pool_size(c, dbs[i], size))
            rv = pause_resume(c, dbs[i], err);
    return rv;
}

int
pgb_apply_setting(struct pg_conn *conn, const char *name, const char *value, char *err)
{
    PGconn *c = conn;
    char sql[256], msg[BT_ERRLEN];
    PGresult *res;
    int ok;

    if (pgb_setting_check(name, value, err) < 0)
        return -1;
    if ((size_t)snprintf(sql, sizeof sql, "SET %s = '%s'", name, value) >= sizeof sql)
        return seterr(err, "%s: the value is too long", name);
    res = PQexec(c, sql);
    ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    if (!ok)
        first_line(msg, sizeof msg, PQerrorMessage(c));
    PQclear(res);
    if (!ok)
        return seterr(err, "PgBouncer refused SET %s = '%s': %s", name, value, msg);
    if (strcasecmp(name, "default_pool_size") == 0)
        return shrink_pools(c, strtol(value, NULL, 10), err);
    return 0;
}
