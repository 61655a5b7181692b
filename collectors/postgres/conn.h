/*
 * postgres/conn: the collector's connection, timed (postgres/conn.c). The
 * collector, the sessions list, the top statements and the settings all
 * query through it, so none of them calls back into another.
 */
#ifndef BENCHTOP_POSTGRES_CONN_H
#define BENCHTOP_POSTGRES_CONN_H

#include "postgres.h"

/* A statement of the collector's waits no longer for the server (a frozen one fails). */
enum { PG_PANE_TIMEOUT_S = 3 };

/*
 * One statement (no parameter, or one) on the collector's non-blocking
 * connection, waiting at most PG_PANE_TIMEOUT_S for the answer: the first
 * result (the others read and dropped), or NULL with err.
 */
PGresult *pg_exec_timed(PGconn *conn, const char *sql, const char *param, char *err);

/* pg_exec_timed for a statement whose rows are not wanted: 0, or -1 with err (what it did). */
int pg_exec_ok(PGconn *conn, const char *sql, const char *what, char *err);

/*
 * After PQsendQuery (sent is its return): the statements' rows to be read
 * one at a time by pg_next_result. Returns sent.
 */
int pg_send_rows(PGconn *conn, int sent);

/*
 * PQgetResult by deadline (now_us()): *res the next result, NULL when
 * there are no more; -1 with err on timeout or when a statement's rows pass
 * PG_PANE_REPLY_MAX (the connection is then unusable: close it).
 */
int pg_next_result(PGconn *conn, uint64_t deadline, PGresult **res, char *err);

/*
 * A protocol round trip with no statement in it (a lone Sync in pipeline
 * mode), in milliseconds: 0, or -1 with err.
 */
int pg_measure_rtt(PGconn *conn, double *rtt_ms, char *err);

#endif
