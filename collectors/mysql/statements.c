/*
 * mysql/statements: the top statements from performance_schema's
 * events_statements_summary_by_digest, for watch's statements list: the
 * 32 digests that took the most time, with the totals of all. A server
 * started without performance_schema (MariaDB's default) gets a note
 * saying how to turn it on instead.
 */
#include "mysql.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/collector.h"

enum { C_ID, C_TEXT, C_CALLS, C_MS, C_ROWS, C_ALL_MS, C_ALL_CALLS, C_TOTAL, C_N };

/* Timers are in picoseconds: / 1e9 gives milliseconds. */
static const char top_sql[] =
    "SELECT concat(coalesce(d.SCHEMA_NAME, ''), ':', coalesce(d.DIGEST, '')),"
    " left(coalesce(d.DIGEST_TEXT, ''), 199), d.COUNT_STAR, d.SUM_TIMER_WAIT / 1e9,"
    " d.SUM_ROWS_SENT + d.SUM_ROWS_AFFECTED, a.ms, a.calls, a.n"
    " FROM performance_schema.events_statements_summary_by_digest d,"
    " (SELECT sum(SUM_TIMER_WAIT) / 1e9 AS ms, sum(COUNT_STAR) AS calls, count(*) AS n"
    " FROM performance_schema.events_statements_summary_by_digest) a"
    " ORDER BY d.SUM_TIMER_WAIT DESC LIMIT 32";

/* 1 when performance_schema is on, 0 (and the note) when not, -1 on error. */
static int
enabled(MYSQL *m, struct coll_statements *out, char *err)
{
    char v[8];
    int rc =
        my_query_cell(m, "SELECT @@performance_schema", "@@performance_schema", v, sizeof v, err);
    int on = rc == MY_CELL_VALUE && strcmp(v, "1") == 0;

    if (rc < 0)
        return -1;
    if (!on)
        snprintf(out->note, sizeof out->note,
                 "no top statements: performance_schema is off (performance_schema=ON under"
                 " [mysqld], then restart)");
    return on;
}

static void
parse_row(MYSQL_ROW row, struct coll_statements *out)
{
    struct coll_statement *s = &out->s[out->n++];

    snprintf(s->id, sizeof s->id, "%s", row[C_ID] ? row[C_ID] : "");
    snprintf(s->text, sizeof s->text, "%s", row[C_TEXT] ? row[C_TEXT] : "");
    s->calls = str_num_or_nan(row[C_CALLS]);
    s->total_ms = str_num_or_nan(row[C_MS]);
    s->rows = str_num_or_nan(row[C_ROWS]);
    out->all_ms = str_num_or_nan(row[C_ALL_MS]);
    out->all_calls = str_num_or_nan(row[C_ALL_CALLS]);
    out->total = (int)str_num_or_nan(row[C_TOTAL]);
}

int
my_statements_read(MYSQL *m, struct coll_statements *out, char *err)
{
    MYSQL_RES *res;
    MYSQL_ROW row;
    char why[BT_ERRLEN];
    int on;

    snprintf(out->source, sizeof out->source, "performance_schema");
    if ((on = enabled(m, out, err)) <= 0)
        return on;
    if (mysql_query(m, top_sql) != 0 || (res = mysql_store_result(m)) == NULL) {
        /* no SELECT on performance_schema: said in the list, not a failed sample */
        my_sql_error(m, "read", "the statement digests", why);
        snprintf(out->note, sizeof out->note, "no top statements: %.130s", why);
        return 0;
    }
    if (mysql_num_fields(res) != C_N) {
        mysql_free_result(res);
        return seterr(err, "could not read the statement digests: unexpected columns");
    }
    while ((row = mysql_fetch_row(res)) != NULL && out->n < COLL_MAX_STATEMENTS)
        parse_row(row, out);
    mysql_free_result(res);
    return 0;
}
