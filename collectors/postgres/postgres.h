/*
 * postgres: the PostgreSQL backend's private interface, shared by the
 * files in collectors/ that talk to PostgreSQL through libpq. Nothing
 * outside collectors/ includes it; the engine sees only the class structs.
 *
 * postgres/init.c owns connecting (blocking), target masking, error hints
 * and `benchtop init`.
 */
#ifndef BENCHTOP_POSTGRES_H
#define BENCHTOP_POSTGRES_H

#include <libpq-fe.h>
#include "engine/driver.h"
#include "base/util.h"

/*
 * In every statement the collector sends often, after its first word (where
 * pg_stat_statements keeps it, in a statement of several too), so the top
 * statements leave benchtop's own polling out (issue 47: pg_blocking_pids
 * at 10/s and pg_stat_clear_snapshot at 23/s were listed).
 */
#define PG_OWN "/*benchtop-collector*/ "

/* --- connecting (postgres/init.c) --- */

/*
 * Blocking connect for the main thread. target is a libpq URI
 * (postgres://...) or a conninfo string; PG* variables, ~/.pgpass and
 * sslmode apply as in psql. application_name defaults to "benchtop" unless
 * the target or PGAPPNAME names one. Returns 0 with *out connected (the
 * caller PQfinish()es it), or -1 with a one-line "problem (fix)" in err
 * that never contains the password. Gives up after PG_CONNECT_TIMEOUT_S
 * unless the target or PGCONNECT_TIMEOUT sets connect_timeout (a port that
 * accepts and never answers must not hang a run).
 */
enum { PG_CONNECT_TIMEOUT_S = 5 };
int pg_connect_blocking(const char *target, PGconn **out, char *err);

/* Whether conn went over TLS, and the protocol and cipher libpq agreed. */
void pg_tls_read(PGconn *conn, struct drv_tls *out);

/*
 * pg_connect_blocking with two choices for sessions that are not load:
 * application_name, when not NULL, replaces the target's and PGAPPNAME's
 * (so the session is told apart from benchtop's own "benchtop" ones);
 * connect_timeout_s, when > 0, is the timeout unless the target sets one.
 */
int pg_connect_as(const char *target, const char *application_name, int connect_timeout_s,
                  PGconn **out, char *err);

/*
 * A statement on a blocking connection with a deadline of secs (0: none):
 * its first result (the caller PQclear()s it; the rest are read), or NULL
 * with err when the connection failed or the time ran out. A wait longer
 * than a second is told on stderr, with what it waits for ("a lock on
 * pgbench_accounts held by pid 4242, idle in transaction"); a SIGINT or
 * SIGTERM ends it. Rows are read one at a time and only the first is
 * kept: more than PG_ROWS_MAX is an error, so a server that streams rows
 * cannot fill memory; a first message announced over PG_REPLY_MAX (one
 * wide row, which libpq would read whole) is refused before it is read. On NULL the connection may
 * be busy: PQfinish it. pg_result_bounded waits for a statement already sent (PQsendPrepare).
 */
enum { PG_ANSWER_TIMEOUT_S = 15, PG_ROWS_MAX = 1000 };

/*
 * The most of one statement's rows a load connection reads (values and a
 * word per column): more is the error kind "reply_too_large", and the
 * connection is made anew. The server pane's own statements stop at
 * PG_PANE_REPLY_MAX (thousands of sessions' rows are a few MiB).
 */
enum { PG_REPLY_MAX = 64 << 20, PG_PANE_REPLY_MAX = 16 << 20 };
PGresult *pg_exec_bounded(PGconn *conn, const char *sql, int secs, char *err);
PGresult *pg_result_bounded(PGconn *conn, int secs, char *err);

/* A newly xmalloc'ed copy of target with every password replaced by "***". */
char *pg_mask_target(const char *target);

/*
 * "could not WHAT: server message (fix)" into err from a failed result (or,
 * with res NULL, the connection's last error); returns -1.
 */
int pg_result_error(PGconn *conn, const PGresult *res, const char *what, char *err);

/* --- reading result sets by column name (postgres/init.c) --- */

/* The value at row of the column named col; NULL when there is no such column, row or value. */
const char *pg_cell_text(const PGresult *res, int row, const char *col);
/* The same as a number; if_null when pg_cell_text would be NULL. */
int64_t pg_cell_i64(const PGresult *res, int row, const char *col, int64_t if_null);
double pg_cell_f64(const PGresult *res, int row, const char *col, double if_null);

/* --- the sessions list (postgres/sessions.c), on the collector's connection --- */

struct coll_sessions;
/*
 * pg_stat_activity's client sessions into out; privileged: sees other users'
 * queries, else the note names the grant for role (quote_ident'ed).
 */
int pg_sessions_read(PGconn *conn, int privileged, const char *role, struct coll_sessions *out,
                     char *err);
/* pg_cancel_backend (terminate 0) or pg_terminate_backend of pid id. 0, or -1 with err. */
int pg_sessions_kill(PGconn *conn, const char *id, int terminate, char *err);

/* --- the top statements (postgres/statements.c), on the collector's connection --- */

struct coll_statements;
/* pg_stat_statements' top statements into out, or out->note saying how to turn it on. */
int pg_statements_read(PGconn *conn, struct coll_statements *out, char *err);

/* --- `benchtop init` (postgres/init.c) --- */

/* The PostgreSQL driver's options (postgres/driver.c declares their table). */
struct pg_opts {
    int scale; /* init --scale: pgbench's scale factor */
};

/*
 * Creates and fills the pgbench tables exactly as `pgbench -i -s SCALE`
 * (PostgreSQL 15, client-side generation) does, all in one transaction,
 * then VACUUM ANALYZE. ic->opts is a struct pg_opts. Refuses existing
 * tables unless ic->force.
 * 0, or -1 with a one-line message in err.
 */
int pg_init(const struct init_conf *ic, char *err);

#endif
