/*
 * pgbouncer: the PgBouncer collector's raw sample and its pure parts,
 * private to collectors/pgbouncer-*.c and their unit tests.
 *
 * PgBouncer is read on its admin console (the "pgbouncer" database), which
 * speaks only the simple query protocol and answers SHOW commands. A sample
 * holds only numbers and fixed arrays, summed over every pool but the
 * console's own, so derive is pure and tests build samples by hand.
 */
#ifndef BENCHTOP_PGBOUNCER_H
#define BENCHTOP_PGBOUNCER_H

#include <stddef.h>
#include <stdint.h>

#include "engine/collector.h"

enum { PGB_MODE_LEN = 16, PGB_VERSION_LEN = 48 };

struct pgb_sample {
    char version[PGB_VERSION_LEN]; /* SHOW VERSION, e.g. "PgBouncer 1.18.0" */
    int pools;                     /* pools counted (the admin console's own excluded) */
    int cl_active;                 /* clients linked to a server connection, or idle */
    int cl_waiting;                /* clients that sent a query and wait for a server */
    int sv_active;                 /* server connections linked to a client */
    int sv_idle;                   /* server connections ready for a client */
    int sv_used;                   /* idle too long, to be checked before reuse */
    int sv_login;                  /* server connections logging in */
    double maxwait_s;              /* the longest a waiting client has waited, over pools */
    char pool_mode[PGB_MODE_LEN];  /* of the busiest pool: session, transaction, statement */
    int pool_size;                 /* server connections allowed per pool (busiest pool) */
    int max_client_conn;           /* SHOW CONFIG */
    int64_t xact_count;            /* SHOW STATS totals, cumulative */
    int64_t query_count;
    int64_t xact_time_us;  /* time in transactions, server side */
    int64_t query_time_us; /* time in queries */
    int64_t wait_time_us;  /* time clients waited for a server connection */
    double rtt_ms;         /* SHOW VERSION round trip on the console */
};

/* The admin console's target for a target on PgBouncer's port: same URI, database pgbouncer. */
char *pgb_console_target(const char *target);

struct pg_conn; /* libpq's PGconn */

/*
 * Pure: 0 when SET name = 'value' can be written on the console as it is
 * (a name of letters, digits and _; a value with no quote, backslash or
 * control character: the console's quoted value has no escape), else -1
 * with a one-line err.
 */
int pgb_setting_check(const char *name, const char *value, char *err);
/* The collector class's settings hooks (collector.h) on the console's connection: SHOW CONFIG
 * and SET. */
int pgb_has_setting(struct pg_conn *conn, const char *name, const char *value, char *err);
char *pgb_undo_value(struct pg_conn *conn, const char *name, char *err);
int pgb_apply_setting(struct pg_conn *conn, const char *name, const char *value, char *err);

extern const struct collector_class pgbouncer_collector_class;

#endif
