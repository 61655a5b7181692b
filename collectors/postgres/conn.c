/*
 * postgres/conn: the collector's connection, timed. Every statement the
 * collector, the sessions list, the top statements and the settings send
 * goes through here: sent non-blocking, answered within
 * PG_PANE_TIMEOUT_S (a frozen server fails the call), rows read one at a
 * time and cut at PG_PANE_REPLY_MAX.
 */
#include "conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

/*
 * Waits until libpq has sent everything and PQgetResult would not block, or
 * until the deadline (the connection is non-blocking): 0, or -1 with err.
 */
static int
wait_ready(PGconn *conn, uint64_t deadline, char *err)
{
    for (;;) {
        int flush = PQflush(conn);
        struct pollfd p = {.fd = PQsocket(conn), .events = POLLIN};
        uint64_t now = now_us();
        int rv;

        if (flush < 0)
            return pg_result_error(conn, NULL, "send to the server", err);
        if (flush == 0 && !PQisBusy(conn))
            return 0;
        if (flush == 1)
            p.events |= POLLOUT;
        if (now >= deadline)
            return seterr(err,
                          "no answer from the server within %d s (is it stopped or "
                          "overloaded?)",
                          PG_PANE_TIMEOUT_S);
        rv = poll(&p, 1, (int)((deadline - now + 999) / 1000));
        if (rv < 0 && errno != EINTR)
            return seterr(err, "poll: %s", strerror(errno));
        if (rv > 0 && (p.revents & (POLLIN | POLLERR | POLLHUP)) && !PQconsumeInput(conn))
            return pg_result_error(conn, NULL, "read from the server", err);
    }
}

/*
 * Adds row, a single-row result, to *all (made from the first): -1 once
 * the rows together pass PG_PANE_REPLY_MAX bytes (values and a word per
 * column).
 */
static int
add_row(PGresult **all, const PGresult *row, size_t *bytes)
{
    int f, n = PQnfields(row), at = *all ? PQntuples(*all) : 0;

    for (f = 0; f < n; f++)
        *bytes += (size_t)PQgetlength(row, 0, f) + sizeof(void *);
    if (*bytes > PG_PANE_REPLY_MAX)
        return -1;
    if (*all == NULL)
        return (*all = PQcopyResult(row, PG_COPYRES_ATTRS | PG_COPYRES_TUPLES)) ? 0 : -1;
    for (f = 0; f < n; f++)
        if (!PQsetvalue(*all, at, f, PQgetisnull(row, 0, f) ? NULL : PQgetvalue(row, 0, f),
                        PQgetisnull(row, 0, f) ? -1 : PQgetlength(row, 0, f)))
            return -1;
    return 0;
}

/*
 * PQgetResult with a deadline: *res may be NULL (no more results); -1 with
 * err on timeout. A statement sent in single-row mode (pg_send_rows) comes
 * back whole all the same, its rows put together here, so that a server
 * streaming rows is cut at PG_PANE_REPLY_MAX instead of filling memory for
 * the whole deadline (libpq keeps a result's rows until it ends).
 */
int
pg_next_result(PGconn *conn, uint64_t deadline, PGresult **res, char *err)
{
    PGresult *all = NULL, *r;
    size_t bytes = 0;

    for (*res = NULL;; PQclear(r)) {
        if (wait_ready(conn, deadline, err) < 0) {
            if (all != NULL) /* not silence: rows that did not end in time */
                seterr(err,
                       "the server sent %zu kB of rows for one of the server pane's statements "
                       "and no end within %d s (is this a PostgreSQL server?)",
                       bytes >> 10, PG_PANE_TIMEOUT_S);
            break;
        }
        r = PQgetResult(conn);
        if (r == NULL || PQresultStatus(r) != PGRES_SINGLE_TUPLE) {
            if (all != NULL && PQresultStatus(r) == PGRES_TUPLES_OK) { /* the rows' end */
                PQclear(r);
                r = all;
            } else {
                PQclear(all); /* an error after rows: the error is the result */
            }
            *res = r;
            return 0;
        }
        if (add_row(&all, r, &bytes) < 0) {
            seterr(err,
                   "the server sent more than %d MiB of rows for one of the server pane's "
                   "statements (is this a PostgreSQL server?)",
                   PG_PANE_REPLY_MAX >> 20);
            PQclear(r);
            break;
        }
    }
    PQclear(all);
    return -1;
}

/* Statements whose rows pg_next_result reads: one at a time (single-row mode), put together. */
int
pg_send_rows(PGconn *conn, int sent)
{
    if (sent)
        PQsetSingleRowMode(conn);
    return sent;
}

PGresult *
pg_exec_timed(struct pg_conn *conn, const char *sql, const char *param, char *err)
{
    uint64_t deadline = now_us() + PG_PANE_TIMEOUT_S * 1000000u;
    PGresult *res, *extra;

    if (!pg_send_rows(conn, PQsendQueryParams(conn, sql, param ? 1 : 0, NULL, param ? &param : NULL,
                                              NULL, NULL, 0))) {
        pg_result_error(conn, NULL, "send a query", err);
        return NULL;
    }
    if (pg_next_result(conn, deadline, &res, err) < 0)
        return NULL;
    while (pg_next_result(conn, deadline, &extra, err) == 0 && extra != NULL)
        PQclear(extra);
    return res;
}

/* Statements outside the sample's query, with the deadline: 0, or -1 with err. */
int
pg_exec_ok(PGconn *conn, const char *sql, const char *what, char *err)
{
    PGresult *res = pg_exec_timed(conn, sql, NULL, err);
    int ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;

    if (res != NULL && !ok)
        pg_result_error(conn, res, what, err);
    PQclear(res);
    return ok ? 0 : -1;
}

/*
 * A protocol round trip with no statement in it (a lone Sync, sent in
 * pipeline mode): the network and protocol cost with no server work and
 * no transaction, which the verdict compares with the clients' latency.
 */
int
pg_measure_rtt(PGconn *conn, double *rtt_ms, char *err)
{
    uint64_t t0 = now_us();
    PGresult *res;
    int ok;

    if (!PQenterPipelineMode(conn) || !PQpipelineSync(conn))
        return pg_result_error(conn, NULL, "measure a round trip", err);
    if (pg_next_result(conn, t0 + PG_PANE_TIMEOUT_S * 1000000u, &res, err) < 0)
        return -1;
    ok = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
    *rtt_ms = (double)(now_us() - t0) / 1000.0;
    PQclear(res);
    if (!ok || !PQexitPipelineMode(conn))
        return pg_result_error(conn, NULL, "measure a round trip", err);
    return 0;
}
