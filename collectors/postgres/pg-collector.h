/*
 * postgres/pg-collector: the PostgreSQL collector's raw sample and its pure
 * parts (query.c, derive.c), private to collectors/postgres/ and its unit
 * tests.
 *
 * A sample holds only numbers and fixed arrays (no pointers), so the
 * engine copies samples with memcpy and tests build them by hand.
 */
#ifndef BENCHTOP_POSTGRES_COLLECTOR_H
#define BENCHTOP_POSTGRES_COLLECTOR_H

#include <stdint.h>

#include "engine/collector.h"

/* pg_stat_activity.state of a client session; HIDDEN: another user's, without pg_monitor. */
enum pg_state {
    PG_ACTIVE,
    PG_IDLE,
    PG_IDLE_TX,
    PG_IDLE_TX_ABORTED,
    PG_OTHER_STATE, /* fastpath function call, disabled (track_activities off) */
    PG_HIDDEN,
    PG_NSTATES,
};

/*
 * shared_buffers, max_connections, synchronous_commit, wal_level, checkpoint_timeout, work_mem,
 * max_wal_size.
 */
enum { PG_NSETTINGS = 8, PG_SETTING_LEN = 32 };

enum { PG_TOP_WAITS = 5, PG_WAIT_LEN = 48 };

/* Sessions of one state: benchtop's own (application_name "benchtop") and the rest. */
struct pg_count {
    int ours;
    int others;
};

struct pg_wait {
    char name[PG_WAIT_LEN]; /* "type:event", e.g. "Lock:transactionid" */
    int count;
};

/* Client sessions other than the collector's own (pg_stat_activity). */
struct pg_sessions {
    struct pg_count state[PG_NSTATES];
    int lock_waiters;      /* wait_event_type = 'Lock' */
    int active;            /* state = 'active' */
    int on_cpu;            /* active and not waiting */
    int lwlock_waiters;    /* LWLock waits other than the WAL's */
    int io_waiters;        /* IO waits other than the WAL's */
    int commit_waiters;    /* waiting on the WAL write/sync of a commit */
    int own_lock_waiters;  /* ... of lock_waiters, benchtop's */
    int own_commit_io;     /* ... of commit and IO waiters, benchtop's */
    int own_io_waiters;    /* ... of io_waiters, benchtop's */
    int sleepers;          /* active in a sleep the statement asked for (pg_sleep) */
    int own_sleepers;      /* ... of them, benchtop's */
    int waiting;           /* not idle and waiting on any event */
    double oldest_query_s; /* age of the oldest active query; -1 when none runs */
    int nwaits;
    struct pg_wait waits[PG_TOP_WAITS]; /* most frequent first */
};

/*
 * pg_stat_database for the current database: cumulative counters, each
 * named as its column. Listed once: the list makes the struct's fields and
 * the parser's table (postgres/query.c).
 */
#define PG_DATABASE_COUNTERS(X)                                                                    \
    X(xact_commit)                                                                                 \
    X(xact_rollback)                                                                               \
    X(blks_read)                                                                                   \
    X(blks_hit)                                                                                    \
    X(tup_returned)                                                                                \
    X(tup_fetched)                                                                                 \
    X(tup_inserted)                                                                                \
    X(tup_updated)                                                                                 \
    X(tup_deleted)                                                                                 \
    X(deadlocks)                                                                                   \
    X(temp_files)                                                                                  \
    X(temp_bytes)

struct pg_database {
#define PG_DATABASE_FIELD(name) int64_t name;
    PG_DATABASE_COUNTERS(PG_DATABASE_FIELD)
#undef PG_DATABASE_FIELD
};

/* pg_stat_bgwriter (up to 16) or pg_stat_checkpointer + pg_stat_bgwriter (17+). */
struct pg_checkpoints {
    int64_t timed;
    int64_t requested;
    double write_ms;
    double sync_ms;
    int64_t buffers_checkpoint;
    int64_t buffers_clean;
    int64_t buffers_backend; /* -1: not counted any more (17+) */
    /* requested checkpoints over the last PG_CKPT_WINDOW_S (pg_ckpt_window); win_s 0: unknown */
    int64_t win_requested;
    double win_s;
};

/*
 * The requested-checkpoint counter at each sample of the last minute, so a
 * rate is a count over seconds: one checkpoint in a 1 s sample is not 1/s.
 */
enum { PG_CKPT_WINDOW_S = 60, PG_CKPT_RING = 256 };
struct pg_ckpt_ring {
    int n, head;
    struct {
        uint64_t t_us;
        int64_t requested;
    } at[PG_CKPT_RING];
};

/*
 * Adds the reading (requested at t_us) to r and sets c's win_requested and
 * win_s from the oldest reading within PG_CKPT_WINDOW_S; a counter that went
 * backwards (a reset) starts the window again. Pure.
 */
void pg_ckpt_window(struct pg_ckpt_ring *r, uint64_t t_us, struct pg_checkpoints *c);

/* pg_stat_wal (14+). */
struct pg_wal {
    int have;      /* 0 before PostgreSQL 14 */
    int have_sync; /* wal_sync and wal_sync_time exist (14 to 17) */
    int io_timing; /* track_wal_io_timing is on, so sync_ms means something */
    int64_t records;
    int64_t bytes;
    int64_t syncs;
    double sync_ms;
};

enum { PG_TOP_SCANS = 5, PG_RELNAME_LEN = 40 };

/* pg_stat_user_tables: the tables read by most rows in sequential scans. */
struct pg_scans {
    int64_t total; /* sequential scans on every user table */
    int n;
    struct {
        char name[PG_RELNAME_LEN];
        int64_t scans;
        int64_t rows;
    } top[PG_TOP_SCANS];
};

/* "{12,34}" (pg_blocking_pids as text): the first pid, or 0. */
int pg_first_blocker(const char *pids);

struct pg_sample {
    int version;    /* server_version_num, e.g. 150004 */
    int privileged; /* superuser or member of pg_monitor: sees every session */
    char role[72];  /* current_user as GRANT takes it (quote_ident): the note's grant */
    struct pg_sessions sessions;
    struct pg_database db;
    struct pg_checkpoints ckpt;
    struct pg_wal wal;
    int locks_not_granted;      /* pg_locks, whole server */
    double rtt_ms;              /* a SELECT 1 round trip before the sample */
    struct coll_glances probed; /* glances since the last sample */
    double stall_own;           /* benchtop's lock waiters stalled by other sessions, summed */
    char stall_what[COLL_STALL_WHAT]; /* ... by what, escaped (pg_lock_roots) */
    struct pg_scans scans;
    char settings[PG_NSETTINGS][PG_SETTING_LEN]; /* as SHOW prints them */
    char conf_load_time[48];                     /* pg_conf_load_time(): moves on a reload */
};

/*
 * The text of one sample's query for a server_version_num: several
 * statements, sent in one round trip, run as one implicit transaction.
 * Newly xmalloc'ed; the caller frees it.
 */
char *pg_collector_sql(int server_version_num);

/* The statements of one sample's query, so its results (pg_sample_parse's part). */
enum { PG_SAMPLE_PARTS = 8 };

struct pg_result; /* libpq's PGresult */
/*
 * Reads the result of the sample's statement number part (from 0) into s:
 * 0, or -1 when part is out of range or res holds no rows (an error).
 */
int pg_sample_parse(int part, const struct pg_result *res, struct pg_sample *s);

/* The pane from two samples (prev NULL at the first), secs apart: the class's derive. */
void pg_derive(const void *prev, const void *cur, double secs, struct coll_view *v);

/* postgres/query.c: pg_settings_* names (SHOW's), pg_state names, the class's statements. */
extern const char *const pg_setting_names[PG_NSETTINGS];
extern const char *const pg_state_names[PG_NSTATES];
extern const char pg_privilege_sql[], pg_probe_sql[], pg_chains_sql[];

/*
 * postgres/settings.c: the last settings read and what pg_conf_load_time()
 * said then; `seen` is what the latest sample says (pg_coll_sample sets it).
 */
struct pg_settings_cache {
    int valid;
    char load_time[48], seen[48];
    struct coll_settings last;
};

struct pg_conn; /* libpq's PGconn */
/* The collector class's read_settings: a query only when `seen` moved (a reload) or at first. */
int pg_settings_read(struct pg_conn *conn, struct pg_settings_cache *cache,
                     struct coll_settings *out, char *err);
/*
 * The collector class's apply_setting: ALTER SYSTEM and a reload; refuses
 * restart-only ones unless restart (a try --restart restarts the server).
 */
int pg_settings_apply(struct pg_conn *conn, const char *name, const char *value, int restart,
                      char *err);
/* The collector class's has_setting: 1 when pg_settings has name, 0 when not, -1 with err. */
int pg_settings_has(struct pg_conn *conn, const char *name, char *err);
/*
 * The collector class's undo_value: postgresql.auto.conf's line for name as
 * written, or "default" when it has none; a role's or database's setting
 * that masks it for the target's sessions refused. A new string, or NULL.
 */
char *pg_settings_undo_value(struct pg_conn *conn, const char *name, int restart, char *err);
/* try_lock: a session-level advisory lock (1 taken, 0 held elsewhere); try_unlock; identity. */
int pg_settings_try_lock(struct pg_conn *conn, char *err);
void pg_settings_try_unlock(struct pg_conn *conn);
int pg_settings_identity(struct pg_conn *conn, char *buf, size_t len, char *err);

extern const struct collector_class postgres_collector_class;

#endif
