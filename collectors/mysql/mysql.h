/*
 * mysql: the MySQL / MariaDB backend's private interface, shared by the
 * files in collectors/ that talk to MySQL or MariaDB through MariaDB
 * Connector/C (or, without its non-blocking API, libmysqlclient). Nothing
 * outside collectors/ and the tests includes it; the engine sees only the
 * class structs.
 *
 * mysql/target.c owns targets (parsing, masking, applying them to a
 * connection handle); mysql/init.c connecting (blocking), error hints, the
 * checks before a run and `benchtop init`; mysql-thread.c the threads of
 * the blocking fallback. mysql/collector.c owns the SHOW STATUS parser and
 * the rows derived from two samples; both are pure so tests feed them
 * captured text.
 *
 * (<mysql.h> below is the client library's header: quoted includes find
 * this file first, angle brackets only the library's include path.)
 */
#ifndef BENCHTOP_MYSQL_H
#define BENCHTOP_MYSQL_H

#include <mysql.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/collector.h"
#include "engine/driver.h"
#include "base/util.h"

/*
 * Oracle's libmysqlclient (the thread-per-connection build): MySQL 8
 * dropped my_bool for bool, and the wait bits exist only in Connector/C
 * (blocking calls never return them).
 */
#if !defined(LIBMARIADB) && defined(MYSQL_VERSION_ID) && MYSQL_VERSION_ID >= 80000
typedef bool my_bool;
#endif
#ifndef MYSQL_WAIT_READ
enum { MYSQL_WAIT_READ = 1, MYSQL_WAIT_WRITE = 2 };
#endif

/* --- targets (mysql/target.c) --- */

enum { MY_MAX_OPTS = 12 };

/* One mysql_options() call taken from the target's ?key=value parameters. */
struct my_option {
    enum mysql_option opt;
    int is_bool;  /* value is a my_bool (flag) rather than a string */
    char *str;    /* string options */
    my_bool flag; /* boolean options */
};

/*
 * A parsed mysql://user:password@host:port/dbname?param=value target. A
 * string is NULL when the target leaves it out: the library's defaults and
 * the [client] group of the option files (~/.my.cnf) then apply, as with
 * the mysql command-line client.
 */
struct my_target {
    char *user;
    char *password;
    char *host;   /* NULL or "localhost": the unix socket */
    char *socket; /* ?socket=PATH, or a host starting with '/' */
    char *db;
    unsigned port;    /* 0: the default (3306 or the option files') */
    int tls_required; /* ssl-mode=REQUIRED or VERIFY_*: a plain connection is an error */
    int nopts;
    struct my_option opts[MY_MAX_OPTS];
};

/*
 * Parses target into t (percent-escapes decoded). 0, or -1 with a one-line
 * "invalid target 'MASKED': why (use ...)" in err; t is then empty.
 */
int my_target_parse(const char *target, struct my_target *t, char *err);
void my_target_free(struct my_target *t);
/* The driver class's parse and free_parsed: a struct my_target of its own, or NULL and err. */
void *my_target_new(const char *target, char *err);
void my_target_delete(void *t);
/*
 * Sets up m (from mysql_init) for t: the option files' [client] and
 * [benchtop] groups, the target's TLS options, and a connect timeout when
 * timeout_s > 0 (blocking connections only). 0, or -1 with err.
 */
int my_target_apply(MYSQL *m, const struct my_target *t, unsigned timeout_s, char *err);

/*
 * After connecting: 0, or -1 with err when t requires TLS and the
 * connection has none (Connector/C only insists when it verifies the
 * certificate, so ssl-mode=REQUIRED is checked here).
 */
int my_target_check_tls(MYSQL *m, const struct my_target *t, char *err);
/* Whether m's connection is TLS, with its protocol and cipher. */
void my_tls_read(MYSQL *m, struct drv_tls *out);

/* A newly xmalloc'ed copy of target with its password replaced by "***". */
char *my_mask_target(const char *target);

/* --- errors (mysql/init.c) --- */

/*
 * A parenthesised fix for a client or server error number (and, for a few,
 * its message), such as "(check the user and password, or ~/.my.cnf)";
 * "" when no fix is known. Never NULL.
 */
const char *my_error_hint(unsigned errnum, const char *message);
/* 1 if errnum means the connection is gone (server restarted, killed, network). */
int my_error_is_conn_lost(unsigned errnum);

/* --- connecting (mysql/init.c) --- */

/*
 * The largest packet benchtop takes from a server: Connector/C's default (1
 * GB) let a server chain 16 MB packets into a gigabyte per connection. A
 * reply over it is the error kind "reply_too_large" (my_target_apply).
 */
#define MY_PACKET_MAX (16UL << 20)

/*
 * Blocking connect for the main thread (prepare, init) or the collector's
 * thread, with a connect timeout so that a port where no MySQL server
 * speaks fails in seconds. Returns 0 with *out connected (the caller
 * mysql_close()s it), or -1 with a one-line "problem (fix)" in err that
 * never contains the password. Every later read or write on it fails
 * after io_timeout_s (0: none): prepare's statements are small (a server
 * that takes the login and never answers must not hang a run), init's
 * index builds take as long as the data.
 */
enum { MY_ANSWER_TIMEOUT_S = 15, MY_INIT_TIMEOUT_S = 600 };
int my_connect_timed(const struct my_target *t, unsigned io_timeout_s, MYSQL **out, char *err);

/* "could not VERB OBJECT: server message (fix)" for the last error on m; returns -1. */
int my_sql_error(MYSQL *m, const char *verb, const char *object, char *err);
/*
 * The first column of sql's first row into out: MY_CELL_VALUE, MY_CELL_NULL
 * (out ""), MY_CELL_NONE (no row; out ""), or -1 with "could not read NAME"
 * in err.
 */
enum { MY_CELL_NONE = 0, MY_CELL_VALUE = 1, MY_CELL_NULL = 2 };
int my_query_cell(MYSQL *m, const char *sql, const char *name, char *out, size_t len, char *err);

/* --- the sessions list (mysql/sessions.c), on the collector's connection --- */

struct coll_sessions;
/* The processlist with InnoDB transactions into out; ids: room for OWNIDS_MAX (scratch). */
int my_sessions_read(MYSQL *m, uint64_t *ids, struct coll_sessions *out, char *err);
/* KILL QUERY id (terminate 0) or KILL id. 0, or -1 with err. */
int my_sessions_kill(MYSQL *m, const char *id, int terminate, char *err);
/* performance_schema's top statement digests into out, or out->note saying how to turn it on. */
struct coll_statements;
int my_statements_read(MYSQL *m, struct coll_statements *out, char *err);

/* --- settings (mysql/settings.c) --- */

struct coll_settings;
/* The collector class's read_settings: one SHOW GLOBAL VARIABLES. */
int my_settings_read(MYSQL *m, struct coll_settings *out, char *err);
/* The collector class's apply_setting: SET GLOBAL (not persisted). */
int my_settings_apply(MYSQL *m, const char *name, const char *value, char *err);
/* The collector class's undo_value: SELECT @@GLOBAL.name whole; read-only variables refused. */
char *my_settings_undo_value(MYSQL *m, const char *name, char *err);
/* try_lock: GET_LOCK('benchtop_try', 0) (holder: its connection); try_unlock; identity. */
int my_settings_try_lock(MYSQL *m, char *holder, size_t len, char *err);
void my_settings_try_unlock(MYSQL *m);
int my_settings_identity(MYSQL *m, char *buf, size_t len, char *err);

/* --- what a run needs in the database (mysql/init.c) --- */

struct runconf;

/* The MySQL driver's options (mysql/driver.c declares their table). */
struct my_opts {
    int tables;           /* --tables: sbtest1..N */
    long long table_size; /* --table-size: rows per table */
    char *rand_type;      /* --rand-type: how ids and k are drawn (rand.h's names) */
};

struct my_tables {
    char db[80];        /* the target's database */
    int tables;         /* sbtest1..tables */
    int64_t table_size; /* their ids: 1..table_size */
};

/*
 * Blocking, before a run: the target must name a database that holds what
 * the workload needs. With uses_sbtest: sbtest1..N, N from --tables or else
 * every table present from sbtest1 on; the size from --table-size or else
 * the smallest table's largest id (empty tables only when empty_ok).
 * Without: the counter table and its row. 0, or -1 with a one-line
 * "problem (run: benchtop init ...)" in err.
 */
int my_find_tables(MYSQL *m, const struct runconf *rc, const struct my_opts *o, int uses_sbtest,
                   int empty_ok, struct my_tables *out, char *err);

/* --- `benchtop init` (mysql/init.c) --- */

/* The counter workload's table: one row (id 1) whose n each transaction increments. */
#define MY_COUNTER_TABLE "benchtop_counter"

/*
 * Creates and fills sbtest1..N as sysbench 1.0's oltp_common.lua prepare
 * does (same columns, engine, keys, value formats; the secondary index k_N
 * after the load), plus the counter table; ic->opts is a struct my_opts.
 * Refuses existing tables unless
 * ic->force. On failure or Ctrl-C the tables it created are dropped again.
 * 0, or -1 with a one-line message in err.
 */
int my_init(const struct init_conf *ic, char *err);

/*
 * sysbench's random strings: every '#' of tmpl becomes a random digit
 * (out must hold strlen(tmpl) bytes; no NUL is written).
 */
void my_rand_digits(char *out, const char *tmpl, struct rng *rng);

/* sysbench's templates for c (10 groups of 11 digits) and pad (5 groups), '-' between groups. */
enum { MY_C_LEN = 119, MY_PAD_LEN = 59 };
extern const char my_c_template[MY_C_LEN + 1];
extern const char my_pad_template[MY_PAD_LEN + 1];

/* --- the collector's pure half (mysql/collector.c) --- */

/*
 * The SHOW GLOBAL STATUS variables the collector reads, in one list:
 * X(enum suffix, status variable name). Generates the enum and the name
 * table, so a variable is added in one place.
 */
#define MY_STATUS_VARS(X)                                                                          \
    X(UPTIME, "Uptime")                                                                            \
    X(QUESTIONS, "Questions")                                                                      \
    X(COM_SELECT, "Com_select")                                                                    \
    X(COM_INSERT, "Com_insert")                                                                    \
    X(COM_UPDATE, "Com_update")                                                                    \
    X(COM_DELETE, "Com_delete")                                                                    \
    X(COM_COMMIT, "Com_commit")                                                                    \
    X(COM_ROLLBACK, "Com_rollback")                                                                \
    X(CONNECTIONS, "Connections")                                                                  \
    X(ABORTED_CONNECTS, "Aborted_connects")                                                        \
    X(THREADS_CONNECTED, "Threads_connected")                                                      \
    X(THREADS_RUNNING, "Threads_running")                                                          \
    X(THREADS_CREATED, "Threads_created")                                                          \
    X(BP_READ_REQUESTS, "Innodb_buffer_pool_read_requests")                                        \
    X(BP_READS, "Innodb_buffer_pool_reads")                                                        \
    X(BP_WAIT_FREE, "Innodb_buffer_pool_wait_free")                                                \
    X(BP_PAGES_FREE, "Innodb_buffer_pool_pages_free")                                              \
    X(BP_PAGES_TOTAL, "Innodb_buffer_pool_pages_total")                                            \
    X(ROW_LOCK_WAITS, "Innodb_row_lock_waits")                                                     \
    X(ROW_LOCK_TIME, "Innodb_row_lock_time")                                                       \
    X(ROW_LOCK_CURRENT, "Innodb_row_lock_current_waits")                                           \
    X(DATA_FSYNCS, "Innodb_data_fsyncs")                                                           \
    X(LOG_FSYNCS, "Innodb_os_log_fsyncs")                                                          \
    X(LOG_WAITS, "Innodb_log_waits")                                                               \
    X(LOG_WRITES, "Innodb_log_writes")         /* MariaDB 10.11, without Innodb_os_log_fsyncs */   \
    X(CHECKPOINT_AGE, "Innodb_checkpoint_age") /* MariaDB: redo bytes not yet flushed */           \
    X(CHECKPOINT_MAX, "Innodb_checkpoint_max_age") /* ... the most it may reach */                 \
    X(ROWS_READ, "Innodb_rows_read")                                                               \
    X(ROWS_INSERTED, "Innodb_rows_inserted")                                                       \
    X(ROWS_UPDATED, "Innodb_rows_updated")                                                         \
    X(ROWS_DELETED, "Innodb_rows_deleted")                                                         \
    X(SQL_ROWS_READ, "Rows_read") /* MariaDB, which has no Innodb_rows_read */                     \
    X(TMP_DISK_TABLES, "Created_tmp_disk_tables")                                                  \
    X(READ_RND_NEXT, "Handler_read_rnd_next") /* rows read by full scans */                        \
    X(SLOW_QUERIES, "Slow_queries")

#define MY_STATUS_ENUM(id, name) MY_##id,
enum my_status_var { MY_STATUS_VARS(MY_STATUS_ENUM) MY_NSTATUS };
#undef MY_STATUS_ENUM

/* The server settings shown in the settings section. */
enum my_setting {
    MY_SET_BUFFER_POOL,  /* innodb_buffer_pool_size, bytes */
    MY_SET_FLUSH_AT_TRX, /* innodb_flush_log_at_trx_commit */
    MY_SET_SYNC_BINLOG,  /* sync_binlog */
    MY_SET_MAX_CONN,     /* max_connections */
    MY_SET_LOG_BIN,      /* log_bin: 1 ON, 0 OFF */
    MY_NSETTINGS
};

enum { MY_PROC_GROUPS = 8, MY_INFO_LEN = 80 };

/* One (command, state) pair of the processlist and how many sessions are in it. */
struct my_proc_group {
    char command[24];
    char state[40];
    int count;
};

/* A session's state in one glance at the processlist (my_state_of). */
/* Pure: what a lock-waiting session waits for, from its State and trx_state (NULL: none). */
enum lock_kind my_lock_kind_of(const char *state, const char *trx_state);

enum my_state {
    MY_ST_SKIP,    /* the server's own threads: not a client session */
    MY_ST_IDLE,    /* waits for its client between transactions */
    MY_ST_IDLE_TX, /* ... inside a transaction: the server waits for the client */
    MY_ST_CPU,     /* runs a statement and waits on nothing the server names */
    MY_ST_LOCK,    /* waits for a row (InnoDB LOCK WAIT), table or metadata lock */
    MY_ST_COMMIT,  /* commits: the log write and sync */
    MY_ST_READ,    /* reads data pages from disk (Statistics), or a temporary table's */
    MY_ST_SLEEP,   /* in SLEEP(): a wait the statement asked for */
    MY_ST_OTHER,   /* runs a statement, on something none of the above names (the network) */
};

/*
 * Pure: a processlist row's state from its Command and State columns and
 * its InnoDB transaction's trx_state (NULL without a transaction).
 */
enum my_state my_state_of(const char *command, const char *state, const char *trx_state);
/* Adds one session in state st to the current glance (ours: one of benchtop's connections). */
void my_probe_add(struct coll_glances *p, enum my_state st, int ours);

/* What one sample holds: flat, no pointers (the collector copies it). */
struct my_sample {
    struct coll_glances probed;       /* the glances at the sessions since the last sample */
    double stall_own;                 /* benchtop's lock waiters rooted at other sessions, summed */
    char stall_what[COLL_STALL_WHAT]; /* ... the root that stalled them, escaped */
    double status[MY_NSTATUS];
    uint64_t status_present; /* bit i: status[i] was in the output */
    double setting[MY_NSETTINGS];
    unsigned settings_present; /* bit i: setting[i] was read */
    char version[64];          /* SELECT VERSION() */
    int is_mariadb;

    int proc_ok;       /* the processlist was read */
    int proc_partial;  /* only our own sessions are visible (no PROCESS privilege) */
    char grantee[100]; /* 'user'@'host' of CURRENT_USER(), for the note's GRANT */
    int proc_total;    /* sessions seen, ours and daemons excluded */
    int ngroups;
    struct my_proc_group groups[MY_PROC_GROUPS]; /* in order of appearance */
    int proc_other;                              /* sessions in groups that did not fit */
    double longest_s; /* the longest-running statement, seconds (0: none) */
    double rtt_ms;    /* a ping's round trip before the sample */
    char longest_info[MY_INFO_LEN];
};

/* The SHOW GLOBAL STATUS name of a status variable. */
const char *my_status_name(enum my_status_var v);

/*
 * Parses SHOW GLOBAL STATUS output as the mysql client prints it in batch
 * mode ("Variable_name<TAB>Value" lines, an optional header line) into s:
 * known variables are stored and marked present, others skipped. -1 with
 * err ("line N: ...") for a line without a tab, a known counter whose
 * value is not a number, text cut off mid-line, or output without Uptime.
 */
int my_status_parse(const char *text, struct my_sample *s, char *err);
/*
 * Adds one processlist row to s (pure): command and state are grouped,
 * the longest-running "Query" kept. Rows with command "Daemon", "Binlog
 * Dump" or "Sleep" never count as the longest.
 */
void my_proc_add(struct my_sample *s, const char *command, const char *state, double time_s,
                 const char *info);
/* Sets a setting from its SHOW VARIABLES name and text value (ON/OFF become 1/0); unknown names
 * are ignored. */
void my_setting_set(struct my_sample *s, const char *name, const char *value);
/* The collector's derive: rows from two samples secs apart (prev NULL: the first). */
void my_derive(const struct my_sample *prev, const struct my_sample *cur, double secs,
               struct coll_view *view);

#endif
