/*
 * sqlite: the SQLite backend's private interface, shared by
 * collectors/sqlite/driver.c (targets, load driver, init), collectors/sqlite/stats.c
 * (the in-process counters) and collectors/sqlite/collector.c.
 *
 * SQLite runs inside benchtop, so there is no server to ask what it does:
 * the load connections publish their own counters (time in transactions,
 * in COMMIT, in busy waits; page cache hits; checkpoints) into one
 * sqlite_stats per database file, and the collector reads those beside the
 * file's PRAGMAs and sizes.
 */
#ifndef BENCHTOP_SQLITE_H
#define BENCHTOP_SQLITE_H

#include <limits.h>
#include <stdint.h>

#include "engine/collector.h"

/* sqlite:///ABSOLUTE/PATH.db or sqlite://RELATIVE/PATH.db, with optional ?KEY=VALUE&... */
struct sqlite_target {
    char path[PATH_MAX];
    char journal_mode[16]; /* "" = as the file has it (WAL persists; the default is delete) */
    char synchronous[16];  /* "" = SQLite's default (full) */
    int busy_timeout_ms;   /* how long a writer retries a locked database (default 5000) */
};

/* Parses target; 0, or -1 with a one-line "problem (fix)" in err. */
int sqlite_target_parse(const char *target, struct sqlite_target *t, char *err);
/* The driver class's parse and free_parsed: a struct sqlite_target of its own, or NULL and err. */
void *sqlite_target_new(const char *target, char *err);
void sqlite_target_delete(void *t);

/* --- in-process counters (sqlite/stats.c) --- */

/* Cumulative counters of every load connection to one file. */
struct sqlite_counts {
    uint64_t conns;         /* connections open now (a gauge) */
    uint64_t txns;          /* transactions finished (committed or rolled back) */
    uint64_t commits;       /* COMMITs that succeeded */
    uint64_t txn_us;        /* time inside transactions, BEGIN to the end of COMMIT */
    uint64_t commit_us;     /* time inside COMMIT (the journal's or WAL's sync) */
    uint64_t busy_retries;  /* times a connection found the database locked and waited */
    uint64_t busy_us;       /* time spent in those waits */
    uint64_t busy_timeouts; /* transactions that gave up: "database is locked" */
    uint64_t cache_hit;     /* page cache hits, misses and pages written (sqlite3_db_status) */
    uint64_t cache_miss;
    uint64_t cache_write;
    uint64_t checkpoints; /* WAL checkpoints run by the load connections */
    uint64_t checkpoint_us;
    uint64_t checkpoints_short; /* ... that ran and stopped short of the WAL's end (a reader) */
    uint64_t checkpoints_whole; /* ... that ran and copied the whole WAL */
};

struct sqlite_stats;

/* The counters of path, created at the first attach; every attach is matched by a detach. */
struct sqlite_stats *sqlite_stats_attach(const char *path);
void sqlite_stats_detach(struct sqlite_stats *st);
/* Adds d to the counters (any thread; relaxed atomics). */
void sqlite_stats_add(struct sqlite_stats *st, const struct sqlite_counts *d);
/* Copies path's counters; 0, or -1 when benchtop has no load connection to it (never had). */
int sqlite_stats_read(const char *path, struct sqlite_counts *out);

/* --- the collector's raw sample (sqlite/collector.c) --- */
/*
 * Another process that holds the file's lock in a way that keeps a writer
 * out (from /proc/locks): in a rollback journal, any lock on the lock bytes
 * (a reader's SHARED blocks the commit, a writer's RESERVED the next
 * writer); in WAL, the write lock of the -shm file (readers block no one).
 */
struct sqlite_holder {
    int pid;       /* 0: none */
    int write;     /* a write transaction (else a read transaction) */
    char comm[16]; /* its /proc/PID/comm, as read (not escaped) */
};

/* The lock bytes of a rollback journal: PENDING, RESERVED, then 510 SHARED. */
enum { SQ_PENDING_BYTE = 0x40000000, SQ_LOCK_BYTES = 512, SQ_WAL_WRITE_LOCK = 120 };
/* The WAL's size in frames (pages) at which a commit checkpoints, as SQLite's own default. */
enum { SQ_CHECKPOINT_FRAMES = 1000 };
/* The -shm file's read marks: a reader holds one of 5 bytes from 123 (WAL_READ_LOCK(0)). */
enum { SQ_WAL_READ_LOCK = 123, SQ_WAL_READ_MARKS = 5 };

/*
 * One line of /proc/locks: whether it is a lock (not a waiter's "->" line)
 * held by a process other than self on the file dev:ino (db_ino, or
 * shm_ino when wal) that keeps a writer out; then *h is filled but comm.
 */
int sqlite_lock_blocks(const char *line, unsigned dev_major, unsigned dev_minor, uint64_t db_ino,
                       uint64_t shm_ino, int wal, int self, struct sqlite_holder *h);
/*
 * The same line: whether it is another process's read mark in the -shm
 * file (shm_ino), a WAL read transaction that no checkpoint can pass.
 */
int sqlite_lock_reads_wal(const char *line, unsigned dev_major, unsigned dev_minor,
                          uint64_t shm_ino, int self, struct sqlite_holder *h);

struct sqlite_sample {
    char journal_mode[16];
    char synchronous[16]; /* as a word: off, normal, full, extra */
    int64_t page_size;
    int64_t cache_size; /* pages, or -KiB when negative, as PRAGMA cache_size says */
    int64_t page_count;
    int64_t freelist_count;
    int64_t file_bytes;
    int64_t wal_bytes; /* -1: no WAL file */
    int have_counts;   /* benchtop loads this file: counts holds its counters */
    struct sqlite_counts counts;
    struct sqlite_holder foreign;    /* another process holding the write path, or pid 0 */
    struct sqlite_holder wal_reader; /* another process in a WAL read transaction, or pid 0 */
};

extern const struct collector_class sqlite_collector_class;

#endif
