/*
 * mysql/sessions: SHOW FULL PROCESSLIST with each session's InnoDB
 * transaction, as innotop lists them, for the dashboard's sessions list;
 * KILL QUERY / KILL on the user's confirmed keystroke. Both read
 * information_schema, so one query joins the two (MySQL 5.7+, MariaDB).
 */
#include "mysql.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/collector.h"
#include "base/ownids.h"

enum { C_ID, C_USER, C_HOST, C_DB, C_COMMAND, C_STATE, C_TIME, C_INFO, C_TRX, C_TRX_S, C_N };

/* Busy sessions first, the longest first; the transaction's age from INNODB_TRX. */
static const char list_sql[] =
    "SELECT p.ID, p.USER, p.HOST, coalesce(p.DB, ''), p.COMMAND, coalesce(p.STATE, ''),"
    " p.TIME, left(coalesce(p.INFO, ''), 239), coalesce(t.trx_state, ''),"
    " timestampdiff(SECOND, t.trx_started, now())"
    " FROM information_schema.PROCESSLIST p"
    " LEFT JOIN information_schema.INNODB_TRX t ON t.trx_mysql_thread_id = p.ID"
    " ORDER BY p.COMMAND = 'Sleep' AND t.trx_state IS NULL, p.TIME DESC LIMIT 64";

static const char *
cell(MYSQL_ROW row, int i)
{
    return row[i] ? row[i] : "";
}

static void
parse_row(MYSQL_ROW row, unsigned long own_id, const uint64_t *ids, int nids,
          struct coll_session *s)
{
    uint64_t id = 0;

    snprintf(s->id, sizeof s->id, "%s", cell(row, C_ID));
    snprintf(s->user, sizeof s->user, "%s", cell(row, C_USER));
    snprintf(s->app, sizeof s->app, "%s", cell(row, C_USER)); /* MySQL names no application */
    snprintf(s->client, sizeof s->client, "%s", cell(row, C_HOST));
    snprintf(s->db, sizeof s->db, "%s", cell(row, C_DB));
    snprintf(s->state, sizeof s->state, "%s", cell(row, C_COMMAND));
    snprintf(s->wait, sizeof s->wait, "%s", cell(row, C_STATE));
    snprintf(s->query, sizeof s->query, "%s", cell(row, C_INFO));
    snprintf(s->info, sizeof s->info, "%s", cell(row, C_TRX));
    s->query_s = str_num_or_nan(row[C_TIME]);
    s->xact_s = str_num_or_nan(row[C_TRX_S]);
    s->blocked = strcmp(s->info, "LOCK WAIT") == 0;
    if (safe_strtoull(s->id, &id) == 0)
        s->own = id == own_id || (nids > 0 && ownids_has(ids, nids, id));
}

int
my_sessions_read(MYSQL *m, uint64_t *ids, struct coll_sessions *out, char *err)
{
    int nids = ownids_copy(ids, OWNIDS_MAX);
    unsigned long own_id = mysql_thread_id(m);
    MYSQL_RES *res;
    MYSQL_ROW row;

    if (mysql_query(m, list_sql) != 0 || (res = mysql_store_result(m)) == NULL)
        return my_sql_error(m, "list", "sessions", err);
    if (mysql_num_fields(res) != C_N) {
        unsigned got = mysql_num_fields(res);

        mysql_free_result(res);
        return seterr(err, "could not list sessions: %u columns instead of %d", got, C_N);
    }
    while ((row = mysql_fetch_row(res)) != NULL) {
        if (out->n < COLL_MAX_SESSIONS)
            parse_row(row, own_id, ids, nids, &out->s[out->n++]);
        out->total++;
    }
    mysql_free_result(res);
    snprintf(out->xact_head, sizeof out->xact_head, "trx");
    snprintf(out->query_head, sizeof out->query_head, "time");
    snprintf(out->info_head, sizeof out->info_head, "trx");
    return 0;
}

int
my_sessions_kill(MYSQL *m, const char *id, int terminate, char *err)
{
    char sql[64];
    uint64_t n;

    if (safe_strtoull(id, &n) < 0 || n == 0)
        return seterr(err, "%.23s is not a MySQL connection id", id);
    snprintf(sql, sizeof sql, "KILL %s%llu", terminate ? "" : "QUERY ", (unsigned long long)n);
    if (mysql_query(m, sql) != 0)
        return my_sql_error(m, terminate ? "kill" : "kill the query of", "the session", err);
    return 0;
}
