/*
 * collector: the server-side view of one target. A database backend plugs
 * in one const struct collector_class (listed in collectors/registry.c,
 * found by the same name as its driver class).
 *
 * Threads: every callback except derive runs on the collector's own thread
 * (src/engine/collect.c), on its own connection: never on a load thread, never on
 * the UI thread, so a slow server never freezes the screen. derive is pure
 * (no I/O, no globals) so tests feed it captured samples.
 *
 * Call order: open -> { sample [read_settings] }* -> close, with open
 * again after a sample failed (the connection is re-opened at the next
 * tick). After each sample after the first, derive(prev, cur) turns the two
 * raw samples into rows. apply_setting runs between two samples, only when
 * the user asked for it (a dashboard key), never on its own.
 */
#ifndef BENCHTOP_COLLECTOR_H
#define BENCHTOP_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define COLL_MAX_ROWS 48
#define COLL_MAX_EVENTS 4
#define COLL_MAX_SETTINGS 24
#define COLL_MAX_CHANGES 8
#define COLL_MAX_SESSIONS 64
#define COLL_MAX_STATEMENTS 32
/*
 * A stall's description, wherever it is kept: "4242 billing-batch (idle in
 * transaction 35 s): " and the statement, escaped, up to COLL_STALL_SQL
 * bytes (a longer one ends in "…", never cut in the middle), fit whole.
 */
#define COLL_STALL_SQL 240
#define COLL_STALL_WHAT (COLL_STALL_SQL + 112)

enum row_level {
    ROW_NORMAL,
    ROW_GOOD, /* e.g. a high cache hit ratio */
    ROW_WARN, /* worth a look: waits, idle in transaction, temp files */
    ROW_BAD,  /* likely a problem: deadlocks, locks not granted */
    ROW_DIM,  /* not available (missing privilege, older server) */
};

/* One line of the server pane: "label  value", grouped by section. */
struct coll_row {
    char section[16]; /* e.g. "sessions", "database", "checkpoints", "wal", "locks", "settings" */
    char label[32];
    char value[64];
    double num; /* the value as a number (rates per second, counts, %); NAN if none */
    enum row_level level;
    unsigned char sql_at; /* value from here on is another session's statement (0: none) */
};

/*
 * Where the server's time goes, for the verdict (src/analysis/verdict.h): each field
 * is NAN when this collector cannot tell. Session counts are of client
 * sessions at the sample's instant, the collector's own excluded.
 */
/* In other_stall_what: the root holds its locks idle in a transaction ("12 (idle in transaction 9
 * s): UPDATE"). */
#define LOCK_IDLE_WHAT "idle in transaction"
/* ... another process holds a file's lock (SQLite: "pid 12 (python3): read transaction on the
 * file"). */
#define LOCK_FILE_WHAT "transaction on the file"
#define LOCK_FILE_READ "read transaction"

/* What lock waiters wait for, for the lock advice (a hot row is not a table lock). */
enum lock_kind {
    LK_UNKNOWN,
    LK_ROW,      /* rows another transaction writes (PostgreSQL transactionid/tuple, InnoDB) */
    LK_TABLE,    /* a whole table (MyISAM's table lock, LOCK TABLE, DDL's relation lock) */
    LK_METADATA, /* MySQL's metadata lock: DDL, or a long transaction on the table */
    LK_ADVISORY, /* the application's own (pg_advisory_lock, GET_LOCK) */
    LK_FILE,     /* a file's one writer (SQLite) */
    LK__COUNT
};

struct coll_signals {
    double sessions;         /* client sessions connected */
    double active;           /* ... running a statement */
    double on_cpu;           /* ... of those, not waiting on anything: using (or queued for) CPU */
    double lock_wait;        /* ... waiting on row or table locks */
    double lwlock_wait;      /* ... waiting on the server's internal locks (not the commit's) */
    double io_wait;          /* ... waiting on data file I/O */
    double commit_wait;      /* ... waiting for the commit's log write or sync */
    double log_sync_ms_s;    /* ms spent in log syncs per second, when the server times them */
    double server_cpu_pct;   /* the server's own CPU, % of one core */
    double server_cpu_limit; /* the % at which it is saturated (Redis 100: one main thread) */
    double rtt_ms;           /* one trivial round trip on the collector's own connection */
    /*
     * benchtop's own sessions (its load connections), when the collector can
     * tell them apart; NAN otherwise. Lock, commit and I/O waits count for
     * them: other sessions' waits are evidence, not benchtop's limit.
     */
    double own_sessions;
    double own_active;
    double own_lock_wait;
    double own_commit_wait; /* commit's log sync and data file I/O */
    double idle_tx;         /* client sessions idle in a transaction: waiting for the client */
    double samples;         /* session-state samples averaged into the counts above (1: a glance) */
    double commits_s;       /* commits (and autocommit statements) per second, server-wide */
    double log_syncs_s;     /* fsyncs of the commit log per second (WAL, InnoDB log, AOF) */
    char sync_untimed[32];  /* the setting that would time the syncs, when off; "" */
    char sync_each_commit[32]; /* the setting that makes every commit wait for a log sync, when */
                               /* the server counts no syncs (Redis "appendfsync always"); "" */
    char commit_advice[80];    /* what lowers the syncs per commit on this server */
    char commit_try[48];       /* the one setting the dashboard's t tries for a commit-bound */
                               /* run, "NAME=VALUE" ("synchronous_commit=off"); "" none */
    /* another process that keeps commits slow ("a read transaction in pid 80 (sqlite3) keeps */
    /* the WAL's checkpoints from finishing (WAL 50 MiB)"); "" none */
    char commit_held[COLL_STALL_WHAT];
    double rows_per_txn;     /* rows read per transaction */
    double blocks_per_txn;   /* blocks (pages) accessed per transaction */
    double seq_scans_s;      /* sequential scans per second */
    char seq_scan_table[40]; /* ... most of them on this table; "" */
    double max_sessions;     /* the server's connection limit */
    /* A connection pooler in front of the server (NAN for a server): */
    double pool_waiting;    /* clients waiting for a server connection */
    double pool_servers;    /* server connections busy with a client */
    double pool_size;       /* server connections a pool may open */
    double pool_maxwait_ms; /* the longest a waiting client has waited */
    char pool_mode[12];     /* "session": a client holds its server connection until it leaves, */
                            /* so clients past the pool wait for others to disconnect; "" */
    char pool_setting[24];  /* the setting that sizes the pool ("default_pool_size"); "" */
    /* An application tier's worker pool (php-fpm), from its status page (NAN elsewhere): */
    double app_queue;   /* requests waiting for a free worker */
    double app_busy;    /* workers busy with a request */
    double app_workers; /* workers that may run at once */
    char app_name[16];  /* the tier's name ("php-fpm") */
    char app_limit[24]; /* the setting that caps the workers ("pm.max_children") */
    /*
     * For the time accounting (issue 25): NAN (or "") when the server does
     * not say. Counts are averaged over the interval's session samples, as
     * on_cpu and the waits above are.
     */
    double own_on_cpu;  /* benchtop's sessions running, not waiting on anything */
    double own_io_wait; /* ... reading data files (not the commit's I/O) */
    double own_idle;    /* ... connected but idle: the server waits for the client */
    double own_sleep;   /* ... in a sleep the statement asked for (pg_sleep, SLEEP()) */
    double sleep_wait;  /* every session's such sleeps */
    double
        lock_root_commit; /* lock waiters whose blocker (at the chain's root) waits on the commit */
    double lock_root_client;  /* ... whose blocker is idle in a transaction: waits for its client */
    double lock_root_other;   /* ... whose blocker is another application's session */
    double other_stall_share; /* of the interval, the share the server was stalled by other */
                              /* sessions' commands (Redis DEBUG SLEEP, a long KEYS, ...) */
    /* ... what stalled it ("DEBUG SLEEP 0.3 from 127.0.0.1:5123") */
    char other_stall_what[COLL_STALL_WHAT];
    unsigned short other_stall_sql_at; /* other_stall_what from here on is the command's text */
    double cmd_top_busy;               /* an event loop's costliest command: its share of a core */
    double cmd_top_usec;               /* ... its time per call, µs */
    char cmd_top[24];                  /* ... its name ("lrange"); "" */
    double evictions_s;                /* a cache's evictions per second */
    double hit_ratio;                  /* a cache's (or buffer pool's) hits / lookups, 0..1 */
    double mem_used;                   /* bytes the cache holds */
    double mem_limit;                  /* bytes it may hold (maxmemory, memcached -m) */
    double keys;                       /* keys (items) it holds, as redis-cli --stat counts */
    char mem_limit_setting[24];        /* the setting that raises it ("maxmemory", "-m") */
    double
        pool_fill; /* the share of the buffer pool holding pages, 0..1 (under 0.9: warming); NAN */
    enum lock_kind lock_kind; /* what most lock waiters wait for; LK_UNKNOWN */
    double disk_reads_s;      /* data pages read from disk per second (buffer pool misses) */
    double temp_bytes_s;      /* bytes/s that sorts and hashes spill to temporary files */
    char temp_setting[16];    /* the setting that keeps them in memory ("work_mem") */
    double server_threads;    /* the server's worker threads (memcached -t); NAN */
    double thread_max_pct;    /* the busiest of them, % of one core */
    double thread_wait_pct;   /* ... and its wait for a CPU (run queue), %; NAN */
    char threads_setting[24]; /* the setting that adds threads ("-t", "io-threads") */
    /*
     * Those threads only read and write sockets (Redis's io-threads): they
     * take none of the busy thread's commands, and on a full host they
     * only add to its wait (io-threads 2 cost 83% under a Lua loop, 97%
     * under 100 KB SETs, on 2 busy cores).
     */
    unsigned char threads_io_only;
    double checkpoints_req_s;   /* checkpoints forced by the log's size, per second */
    double redo_fill;           /* the redo log's room in use: checkpoint age / its max, 0..1 */
    char redo_setting[24];      /* the setting that sizes it ("innodb_log_file_size"); "" */
    double server_cpu_self_pct; /* the server's CPU as it reports it (INFO, rusage): */
                                /* for a server whose processes this host cannot see */
};

/* What derive produces for the UI, the JSON record and the verdict. */
struct coll_view {
    int nrows;
    struct coll_row rows[COLL_MAX_ROWS];
    double server_tps; /* the server's own transactions/s (commits + rollbacks); NAN if unknown */
    int nevents;       /* things that happened between the two samples, e.g. a checkpoint */
    char events[COLL_MAX_EVENTS][96];
    char note[256]; /* one line: what is degraded and why ("needs pg_monitor for ...") */
    struct coll_signals sig;
};

/* One server setting, as the server spells its name and shows its value ("128MB", "on"). */
struct coll_setting {
    char name[40];
    char value[64];
};

/* The settings that matter for tuning, in the class's order. */
struct coll_settings {
    int n;
    struct coll_setting s[COLL_MAX_SETTINGS];
};

/* One setting whose value differs between two reads ("synchronous_commit: on -> off"). */
struct coll_change {
    char name[40];
    char from[64];
    char to[64];
};

/*
 * One session of the server, as pg_activity, innotop and CLIENT LIST list
 * them. Every string is the server's raw text, cut to its field: escape it
 * (text_clean) before it reaches a terminal.
 */
struct coll_session {
    char id[24];     /* what kill takes: a pid, a thread id, a client id */
    char user[32];   /* the login; "" */
    char app[32];    /* application_name, a client's name; "" */
    char client[48]; /* address:port, or "local" */
    char db[32];     /* database (Redis: "db0") */
    char state[32];  /* "active", "idle in transaction", "Query", "multi" */
    char wait[40];   /* what it waits on ("Lock:transactionid"); "" none */
    char info[48];   /* the backend's extra column (InnoDB trx, Redis memory); "" */
    char query[240]; /* the statement, or the last command */
    double xact_s;   /* the transaction's age (Redis: the connection's); NAN */
    double query_s;  /* the statement's age (Redis: idle time); NAN */
    int own;         /* one of benchtop's (its load, or the collector itself) */
    int blocked;     /* waiting on another session's lock */
};

/* A sessions list (collector_class.sessions), at most COLL_MAX_SESSIONS of `total`. */
struct coll_sessions {
    int n;
    int total;         /* sessions on the server (n may be fewer) */
    char xact_head[8]; /* the column heads of xact_s, query_s: "xact"/"query", "age"/"idle" */
    char query_head[8];
    char info_head[8]; /* ... and of info: "trx", "mem"; "" hides it */
    char note[120];    /* what is missing ("needs pg_monitor ..."); "" */
    struct coll_session s[COLL_MAX_SESSIONS];
};

/*
 * One statement (or command) as the server totals it since its statistics
 * were reset (pg_stat_statements, performance_schema's digests, INFO
 * commandstats). The text is the server's raw normalized text: escape it
 * (text_clean) before it reaches a terminal.
 */
struct coll_statement {
    char id[48];    /* the server's key: queryid:dbid:userid, a digest, a command's name */
    char text[200]; /* "SELECT abalance FROM pgbench_accounts WHERE aid = $1", "get" */
    double calls, total_ms, rows; /* since the reset; rows NAN where the server keeps none */
    /* coll_statements_derive, from two reads: NAN on the first read and for a new statement */
    double calls_s;       /* calls per second between the reads */
    double interval_ms;   /* its time between the reads */
    double mean_ms;       /* per call between the reads; since the reset on the first */
    double share;         /* of every statement's time, 0..1, likewise */
    double rows_per_call; /* since the reset */
};

/* The statements that took the most time (collector_class.statements). */
struct coll_statements {
    int n;
    int total;                /* statements the server keeps (n may be fewer) */
    double all_ms, all_calls; /* every statement's, not only these n */
    char source[40];          /* "pg_stat_statements", "performance_schema", "commandstats" */
    char note[160];           /* when the server keeps none: how to turn it on (n is 0) */
    struct coll_statement s[COLL_MAX_STATEMENTS];
};

/*
 * Pure: cur's per-interval figures from prev, read secs earlier (prev
 * NULL: the first read), then cur's statements ordered by their time in
 * the interval (since the reset on the first read), most first.
 */
void coll_statements_derive(const struct coll_statements *prev, struct coll_statements *cur,
                            double secs);

/*
 * What a collector's signals stand for in the verdict: session.c merges
 * the run's collectors by role (see verdict.h, struct verdict_input).
 */
enum coll_role {
    COLL_SERVER, /* the load target's own server (or the one behind its pooler; watch) */
    COLL_POOLER, /* a connection pooler in front of it: its pool_* fields */
    COLL_BEHIND, /* a database watched behind the load's target (--watch) */
    COLL_APP,    /* an application tier's status page (--watch): its app_* fields */
};

/* "server", "pooler", "behind", "app" for JSON. */
const char *coll_role_key(enum coll_role r);

/* Empties v: no rows, no events, server_tps and every signal NAN. Derives start with it. */
void coll_view_reset(struct coll_view *v);

struct runconf;
struct target;

/* `benchtop inspect`: what the user asked for (runconf's inspect options). */
struct inspect_conf {
    double budget_s;       /* the scan stops after this long */
    uint64_t sample;       /* ... or after this many keys (0: none) */
    const char *separator; /* a key's prefix ends at its first separator */
    int json;              /* one JSON object instead of text */
    FILE *out;
};

struct collector_class {
    const char *name;  /* same as the driver's: "postgres" */
    const char *title; /* the server's name in the verdict's sentences ("PostgreSQL"); NULL: name */
    size_t sample_size; /* bytes of one raw sample (a class-private struct) */
    /*
     * A connection pooler's collector: the driver whose targets it stands in
     * front of ("postgres"); NULL for a server's. --pooler finds it by this,
     * and it runs beside the server's collector, never instead of it.
     */
    const char *pools;
    /*
     * Optional, for --watch: 1 when this class reads target although no load
     * driver's class does (an application tier's status page at an http://
     * URL). Such a class is never started for a load's own target, and its
     * signals are an application tier's (COLL_APP).
     */
    int (*claims)(const char *target);

    /*
     * Connects (blocking, with a short timeout) to target, parsed once
     * (target_parse: a class whose driver has a parse callback reads its
     * own struct from target->parsed; the others target->raw). target
     * outlives the connection. NULL and a one-line err on failure.
     */
    void *(*open)(const struct target *target, char *err);
    /* Only with what open returned: never NULL (the callers check, not each class). */
    void (*close)(void *conn);
    /*
     * Reads the raw counters into out (sample_size bytes, zeroed by the
     * caller). 0, or -1 with err when the connection failed (it is closed
     * and re-opened at the next tick). Missing privileges are not failures:
     * the sample records what is missing and derive shows it dimmed.
     */
    int (*sample)(void *conn, void *out, char *err);
    /*
     * Optional (NULL: none). Glances at the sessions' states between samples,
     * probe_hz times a second, on the same connection, and keeps the counts
     * in conn; the next sample averages them into its signals (samples > 1).
     * 0, or -1 with err as for sample.
     */
    int (*probe)(void *conn, char *err);
    int probe_hz;
    /*
     * Pure: rows from two samples secs apart (prev NULL for the first one:
     * gauges only, rates shown as "-"). Fills every field of view.
     */
    void (*derive)(const void *prev, const void *cur, double secs, struct coll_view *view);

    /*
     * Optional (NULL: the class shows no settings). Fills out (zeroed by
     * the caller) with the server-wide settings that matter for tuning,
     * at most COLL_MAX_SETTINGS, always the same names in the same order.
     * Called after every successful sample, so it must be cheap: a class
     * may keep the last read on conn and re-read only when a change
     * detector says so. 0, or -1 with err: the settings are then shown as
     * unavailable and sampling goes on; the connection is not dropped.
     */
    int (*read_settings)(void *conn, struct coll_settings *out, char *err);
    /*
     * Optional (NULL: settings cannot be changed from benchtop). Sets one
     * setting server-wide to value, both as the user typed them, so that
     * the load's sessions see it without a restart (PostgreSQL: ALTER
     * SYSTEM and a reload). Only ever called on the user's keystroke. A
     * setting that needs a restart is refused, not written: -1 with err
     * "NAME needs a restart". 0, or -1 with a one-line err (the server's
     * own message when it refused); the connection stays usable either way.
     */
    int (*apply_setting)(void *conn, const char *name, const char *value, char *err);
    /*
     * Optional (NULL: `benchtop try` cannot change this server's settings).
     * Before apply_setting changes name for a try: the value that puts it
     * back as it was, the server's source text whole (no length limit), to
     * be given to apply_setting later (PostgreSQL: postgresql.auto.conf's
     * line as written, or "default" when it has none, so the revert is a
     * RESET). A setting a reload or SET GLOBAL cannot change (restart-only,
     * read-only), one that B would not reach the load's sessions with (a
     * role's setting that masks it), or an unknown name is refused here,
     * before anything is written: NULL with a one-line err naming it.
     * Returns a new string (free it). Also read again before each revert,
     * to see that B is still what the server holds.
     */
    char *(*undo_value)(void *conn, const char *name, char *err);
    /*
     * Optional (NULL: no lock, no identity). try_lock takes the server's
     * one-try-at-a-time lock on conn, held while conn stays open: 1 taken
     * (or, renew, kept), 0 another try holds it (holder: who, when the
     * server can say: "HOST:PID" of that benchtop), -1 with err. token is
     * this benchtop's "HOST:PID". A class whose lock expires on its own
     * sets try_lock_renew_s: tryset renews it that often from a thread
     * (conn is then used by one thread at a time, under tryset's mutex).
     * try_unlock lets it go (best effort). identity: the server's own
     * identity, whatever the target's spelling (PostgreSQL's
     * system_identifier and port, Redis's run_id), into buf: the undo
     * file's key. 0, or -1 with err.
     */
    int (*try_lock)(void *conn, const char *token, int renew, char *holder, size_t len, char *err);
    void (*try_unlock)(void *conn, const char *token);
    int try_lock_renew_s;
    int (*identity)(void *conn, char *buf, size_t len, char *err);
    /*
     * Optional (NULL: not asked). 1 when the server has a setting of that
     * name (changeable or not), 0 when it has none; -1 with a one-line err
     * when it could not be read, or when value (NULL: not asked) could
     * never be given to apply_setting (a quote the server's syntax cannot
     * carry). Reads only. A try with a pooler asks the pooler's class and
     * the server's which of the two a --set names, before anything changes.
     */
    int (*has_setting)(void *conn, const char *name, const char *value, char *err);
    /*
     * Optional (NULL: none). From now on apply_setting and undo_value on
     * conn take restart-only settings too, written for the next start:
     * `try --restart` on a throwaway server, which then restarts it.
     */
    void (*allow_restart)(void *conn);
    /*
     * Optional, poolers only; main thread, blocking, before the run.
     * detect: 1 when a load target of the pooled driver reaches such a
     * pooler (it answers on the target's port), so it is watched without
     * --pooler. vet: refuses, with -1 and a one-line err, a run the pooler
     * at pooler_target cannot carry (e.g. prepared statements where it
     * pools transactions), instead of failing every transaction mid-run.
     */
    int (*detect)(const char *target);
    int (*vet)(const char *pooler_target, const struct runconf *rc, char *err);
    /*
     * Optional (NULL: no sessions list). Lists the server's sessions into
     * out (zeroed by the caller), longest-running first when there are
     * more than COLL_MAX_SESSIONS. Called before a sample, only while a
     * front end shows the list (collect_want_sessions). 0, or -1 with err:
     * the list is then shown as unavailable and the sample goes on.
     */
    int (*sessions)(void *conn, struct coll_sessions *out, char *err);
    /*
     * Optional (NULL: sessions cannot be ended from benchtop). Cancels the
     * statement of session id (terminate 0), or ends the session
     * (terminate 1). Only ever called on the user's confirmed keystroke.
     * 0, or -1 with a one-line err (the server's refusal, or "no such
     * session"); the connection stays usable either way.
     */
    int (*kill)(void *conn, const char *id, int terminate, char *err);
    /*
     * Optional (NULL: no top statements). The statements that took the
     * most time since the server's statistics were reset, at most
     * COLL_MAX_STATEMENTS, into out (zeroed by the caller), with the
     * totals of all. A server that keeps none is not a failure: out->note
     * says how to turn it on. Called before a sample while a front end
     * shows them (collect_want_statements), in the same transaction as
     * the sessions list where there is one. 0, or -1 with err.
     */
    int (*statements)(void *conn, struct coll_statements *out, char *err);
    /*
     * Optional (NULL: `benchtop inspect` refuses the target). One pass over
     * the server's contents on a connection of its own (main thread,
     * blocking), that never blocks the server: incremental commands only,
     * within ic->budget_s. Writes its report to ic->out. 0, or -1 with a
     * one-line err. target as for open.
     */
    int (*inspect)(const struct target *target, const struct inspect_conf *ic, char *err);
};

/*
 * Glances at the sessions between samples (collector_class.probe), summed
 * over n glances; own_*: benchtop's sessions, when own_known (every glance
 * could tell them apart).
 */
struct coll_glances {
    int n;
    int own_known;
    double all, active, on_cpu, lock, commit_io, idle_tx;
    double own, own_active, own_lock, own_commit_io;
    /*
     * io: of commit_io, the data file reads (not the commit's); own_cpu,
     * own_io, own_idle: benchtop's sessions on CPU, reading data files, idle
     * (outside or inside a transaction); root_*: lock waiters by what their
     * chain's root blocker does (see coll_signals' lock_root_*), counted
     * only by glances that looked (roots > 0), else NAN in the signals.
     */
    double io, own_cpu, own_io, own_idle;
    double sleep, own_sleep;      /* in a sleep the statement asked for (pg_sleep, SLEEP()) */
    double lock_kinds[LK__COUNT]; /* lock waiters by what they wait for */
    double root_commit, root_client, root_other;
    int roots; /* glances that looked at the lock chains */
};

/* The glances' averages into g's session fields (samples = n); n must be > 0. */
void coll_glances_signals(const struct coll_glances *p, struct coll_signals *g);

/* Adds a row; ignored past COLL_MAX_ROWS. Returns the row for tweaks, or NULL. */
struct coll_row *coll_row_add(struct coll_view *v, const char *section, const char *label,
                              double num, enum row_level level, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/*
 * The sessions' time as one row: a bar of on CPU / lock / log sync or I/O /
 * idle in a transaction (waiting for the client) / other, and the
 * percentages, from v->sig (benchtop's sessions when known). Nothing when
 * no session ran.
 */
void coll_row_states(struct coll_view *v);
struct cpu_task;
/*
 * The server's worker threads, the setting that adds them ("-t") and the
 * busiest of them between two readings of its threads (base/cpu.h's
 * cpu_tasks_read; na or nb < 1: not read, a server on another host) into
 * v's signals and a "cpu / threads" row: "4 (-t), busiest 89%".
 */
void coll_threads(struct coll_view *v, double threads, const char *setting,
                  const struct cpu_task *a, int na, const struct cpu_task *b, int nb, double secs);
/* Adds an event line; ignored past COLL_MAX_EVENTS. */
/*
 * Marks row r (NULL: nothing) as carrying another session's statement from
 * its value's byte at on. Records keep a digest of it (text_sql_digest)
 * unless --record-queries; the screen shows it whole.
 */
void coll_row_sql(struct coll_row *r, size_t at);
void coll_event_add(struct coll_view *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * Pure: the settings whose value differs between prev and cur (a name
 * missing from one side is not a change). Returns how many were written
 * to out, at most max.
 */
int coll_settings_diff(const struct coll_settings *prev, const struct coll_settings *cur,
                       struct coll_change *out, int max);
/* Appends name = value to s; ignored past COLL_MAX_SETTINGS. */
void coll_setting_add(struct coll_settings *s, const char *name, const char *value);
/* The value of name in s, or NULL. */
const char *coll_setting_get(const struct coll_settings *s, const char *name);
/* The row with this section and label, or NULL. */
const struct coll_row *coll_row_find(const struct coll_view *v, const char *section,
                                     const char *label);

#endif
