/*
 * mysql/conn: a MySQL load connection, shared by driver.c (statements and
 * the transaction's steps) and the one connection model configure chose,
 * as tmux's compat/ chooses an implementation per file:
 *   io/nonblocking.c  Connector/C's non-blocking calls on the worker loops;
 *   io/threads.c      a thread per connection running the blocking calls
 *                     (libmysqlclient, or --disable-mysql-nonblocking).
 */
#ifndef BENCHTOP_MYSQL_CONN_H
#define BENCHTOP_MYSQL_CONN_H

#include "mysql.h"

#include "base/jobthread.h"
#include "engine/mix.h"
#include "engine/script.h"

/* A job thread's set-up for the client library (init.c; io/threads.c uses it too). */
extern const struct jobthread_hooks my_jobthread_hooks;

enum my_mode { MY_MODE_TEXT, MY_MODE_PREPARED };

/* The statements of the built-in workloads. */
enum my_stmt {
    ST_BEGIN,
    ST_COMMIT,
    ST_POINT,
    ST_SIMPLE_RANGE,
    ST_SUM_RANGE,
    ST_ORDER_RANGE,
    ST_DISTINCT_RANGE,
    ST_INDEX_UPDATE,
    ST_NON_INDEX_UPDATE,
    ST_DELETE,
    ST_INSERT,
    ST_INSERT_AUTO,
    ST_COUNTER_UPDATE,
    ST_COUNTER_SELECT,
    ST__COUNT
};

/* Long enough for the longest built-in statement with its values written in. */
enum { TEXT_MAX = 512 };

/* A -f script statement's references (each a '?' when prepared). */
enum { MY_SCRIPT_REFS = 32 };

/* Where a connection is inside the current operation. */
enum my_phase {
    PH_QUERY,      /* a text statement was sent: waiting for its reply */
    PH_STORE,      /* reading a text statement's result set */
    PH_PREPARE,    /* preparing the statement on this connection */
    PH_EXECUTE,    /* executing the prepared statement */
    PH_STMT_STORE, /* reading the prepared statement's result set */
    PH_ROLLBACK,   /* an error left a transaction open: ROLLBACK sent */
};

/* A -f script's statement, as MySQL runs it. */
struct my_script_stmt {
    int text;                    /* sent as text even with -M prepared: the server cannot
                                    prepare it (BEGIN) */
    char *marks;                 /* the text with '?' for each reference, to prepare */
    int nrefs;                   /* references, each a '?' in order */
    int ref_var[MY_SCRIPT_REFS]; /* the variable of each */
};

struct my_shared {
    const struct my_target *target; /* the run's target's (target.parsed) */
    enum my_mode mode;
    struct mix mix;     /* -b/-w built-ins and -f scripts, with their weights */
    int first[MIX_MAX]; /* a script's first command in sstmt[] and a connection's sstmts */
    int nscript_cmds;   /* the scripts' commands together */
    struct my_script_stmt *sstmt; /* [first[e] + command] */
    int *stmt_id;                 /* -r: [first[e] + command] its label, -1 for \set */
    int op_label[MIX_MAX];        /* -r: a built-in's first operation's label */
    struct stmt_label *labels;    /* -r: the scripts' statements, then the built-ins' operations */
    int nlabels;
    size_t render_len; /* text mode: the longest script statement with its values */
    int tables;
    int64_t table_size;
    enum rng_dist dist;  /* --rand-type */
    int slot[ST__COUNT]; /* prepared mode: index in a connection's statements; -1: text */
    int nslots;
    unsigned job_connect_timeout_s; /* a job thread's connect: --stall-timeout, rounded up */
    struct drv_tls tls;             /* how prepare's connection was secured */
};

/* The values of the current statement; prepared statements are bound to these fields. */
struct my_values {
    int32_t id, id_end, k;
    char c[MY_C_LEN];
    char pad[MY_PAD_LEN];
    unsigned long c_len, pad_len;
};

struct my_conn {
    const struct my_shared *sh;
    MYSQL *m;
    struct rng *rng;
    int client_id;
    const struct my_workload *w; /* the current transaction's built-in, or NULL ... */
    const struct script *script; /* ... its script (drawn from the mix) */
    int first;                   /* the script's first command in sh->sstmt and sstmts */
    int64_t vars[SCRIPT_MAX_VARS];
    long long refs[MY_SCRIPT_REFS]; /* the values of the current script statement's '?' */
    MYSQL_STMT **sstmts;            /* script statements prepared on this connection */
    char *render;                   /* text mode: a script statement with its values */
    int iop;                        /* index of the current operation (script command) */
    int entry;                      /* the mix entry the transaction runs */
    uint64_t sent_us;               /* -r: when the current statement was sent */
    int table;                      /* table of the current operation, 1-based */
    enum my_phase phase;
    int wait;            /* MYSQL_WAIT_* the library waits for */
    int connected_early; /* the connect finished inside conn_connect_start */
    int ret;             /* int results of the library calls */
    MYSQL *ret_conn;     /* mysql_real_connect's result */
    uint64_t own_id;     /* the server's id for this connection, in ownids while open; 0 */
    MYSQL_RES *res;      /* a text statement's result set */
    MYSQL_STMT *stmt;    /* the current prepared statement */
    MYSQL_STMT **stmts;  /* [slot * tables + table - 1]; NULL: not prepared on this connection */
    struct my_values v;
    char text[TEXT_MAX];
    /* without the non-blocking API: the connection's thread and its job's outcome */
    struct jobthread *th;
    struct txn_result *job_res;
    struct txn_result job;       /* the job's outcome, copied to the engine's at the take */
    struct stmt_stat *job_stmts; /* -r: what the job counted, added to the worker's at the take */
    enum drv_status job_status;
    char job_err[BT_ERRLEN];
};

/* What a finished phase leads to: another library call (its wait bits in *status) or the end. */
enum step { STEP_CALL, STEP_DONE, STEP_LOST };

/* ---- driver.c, for the connection models ---- */

/* The MYSQL_WAIT_* bits a call left waiting for, as the engine's wait. */
enum drv_status my_waiting(struct my_conn *c, int status);
/* Starts the next transaction: the first step's call, its wait bits in *status. */
enum step my_begin_txn(struct my_conn *c, struct txn_result *res, int *status);
/* Advances the transaction after step s (a call's wait bits in status) until it waits or ends. */
enum drv_status my_advance(struct my_conn *c, struct txn_result *res, enum step s, int status);
/* The connection is open: its server id goes to ownids. */
void my_note_connected(struct my_conn *c);
/* Closes the connection and its prepared statements. */
void my_close_conn(struct my_conn *c);
/* Frees a closed connection (the model's own state already gone). */
void my_conn_release(struct my_conn *c);
/* The connect failed: the library's error with a hint, in err. */
enum drv_status my_connect_failed(struct my_conn *c, char *err);
/* A handle with the target's options (non-blocking when asked); NULL with err. */
MYSQL *my_new_handle(struct my_conn *c, int nonblocking, char *err);

/* ---- the connection model (io/nonblocking.c or io/threads.c) ---- */

/* The library calls: each returns the MYSQL_WAIT_* bits to wait for, or 0 when it finished. */
int my_call_query(struct my_conn *c, const char *sql, size_t len);
int my_call_store(struct my_conn *c);
int my_call_prepare(struct my_conn *c, const char *sql, size_t len);
int my_call_execute(struct my_conn *c);
int my_call_stmt_store(struct my_conn *c);
/* A new connection's model state (its thread, for io/threads.c). */
void my_io_conn_init(struct my_conn *c);
/* Puts a handle in non-blocking mode; -1 with err where the model has none. */
int my_io_set_nonblocking(MYSQL *m, char *err);
/* The driver class's connection callbacks (driver.h). */
void my_conn_disconnect(void *conn);
void my_conn_free(void *conn);
int my_conn_fd(void *conn);
enum drv_status my_conn_connect_start(void *conn, char *err);
enum drv_status my_conn_connect_poll(void *conn, char *err);
enum drv_status my_conn_txn_start(void *conn, struct txn_result *res);
enum drv_status my_conn_txn_poll(void *conn, struct txn_result *res);
/* How connections run, for --version. */
extern const char my_io_note[];

#endif
