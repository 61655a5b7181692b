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
 * (the next B round then finished no transaction). A setting that
 * is not changeable is read at start only: refused before anything is
 * written. The console's SET takes a quoted value with no escape (a quote
 * cannot be written inside one), so a value with a quote, a backslash or a
 * control character is refused, not quoted.
 */
#include "pgbouncer.h"
#include "postgres.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    return ok ? 0 : seterr(err, "PgBouncer refused SET %s = '%s': %s", name, value, msg);
}
