/*
 * sqlite/collector: the server pane for a SQLite file, seen from inside.
 *
 * Its own connection reads the PRAGMAs that decide how a commit reaches
 * the disk (journal_mode, synchronous) and the cache and file sizes; the
 * load connections' counters (sqlite/stats.c) give the rest: commits, time
 * in COMMIT, lock waits, cache hits, checkpoints. Without benchtop's own
 * load on the file (`watch`), only the PRAGMAs and sizes are there.
 *
 * For the verdict, time becomes sessions, as a server's sampled states
 * would be: over an interval, the mean number of connections inside a
 * transaction (active), inside COMMIT (commit_wait) and waiting for the
 * lock (lock_wait); the rest of active is on CPU.
 */
#include "sqlite.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/text.h"
#include "base/util.h"
#include "engine/target.h"

static const char FILE_[] = "file", TXNS[] = "transactions", SETTINGS[] = "settings";

struct sq_coll {
    sqlite3 *db;
    char path[PATH_MAX];
    char synchronous[16]; /* the target's, which the load connections set; "" none */
};

static const char *const sync_names[] = {"off", "normal", "full", "extra"};

static int64_t
pragma_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void
pragma_text(sqlite3 *db, const char *sql, char *out, size_t len)
{
    sqlite3_stmt *st = NULL;

    out[0] = '\0';
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_text(st, 0) != NULL)
        snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

static int64_t
file_size(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* A synchronous value as SQLite takes it (NORMAL, normal, 1) as its word; "" stays "". */
static void
sync_word(const char *v, char *out, size_t len)
{
    size_t i;

    out[0] = '\0';
    if (v[0] >= '0' && v[0] <= '3' && v[1] == '\0') {
        snprintf(out, len, "%s", sync_names[v[0] - '0']);
        return;
    }
    for (i = 0; v[i] && i + 1 < len; i++)
        out[i] = (char)tolower((unsigned char)v[i]);
    out[i] = '\0';
}

static void *
sq_coll_open(const struct target *target, char *err)
{
    const struct sqlite_target *t = target->parsed;
    struct sq_coll *c;

    c = xcalloc(1, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", t->path);
    sync_word(t->synchronous, c->synchronous, sizeof c->synchronous);
    /* Read-only: the collector never creates the file or takes a write lock. */
    if (sqlite3_open_v2(t->path, &c->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        seterr(err, "cannot open %s: %s (run benchtop init TARGET first)", t->path,
               c->db ? sqlite3_errmsg(c->db) : "out of memory");
        sqlite3_close(c->db);
        free(c);
        return NULL;
    }
    sqlite3_busy_timeout(c->db, 100);
    return c;
}

static void
sq_coll_close(void *conn)
{
    struct sq_coll *c = conn;

    sqlite3_close(c->db);
    free(c);
}

/* "MAJ:MIN:INO" (hex device numbers, as /proc/locks writes them) is the file's. */
static int
same_file(const char *dev, unsigned maj, unsigned min, uint64_t ino)
{
    unsigned a, b;
    unsigned long long i;

    return sscanf(dev, "%x:%x:%llu", &a, &b, &i) == 3 && a == maj && b == min && i == ino;
}

/* One /proc/locks line: a lock held (not a waiter's "->" line) by a process other than self. */
struct lock_line {
    char mode[16], dev[64];
    int pid;
    unsigned long long start, last;
};

static int
lock_line_parse(const char *line, int self, struct lock_line *l)
{
    char cls[16], end[24];

    if (strstr(line, "->") != NULL || sscanf(line, "%*s %15s %*s %15s %d %63s %llu %23s", cls,
                                             l->mode, &l->pid, l->dev, &l->start, end) != 6)
        return 0;
    l->last = strcmp(end, "EOF") == 0 ? UINT64_MAX : strtoull(end, NULL, 10);
    return l->pid != self && l->pid > 0 &&
           (strcmp(cls, "POSIX") == 0 || strcmp(cls, "OFDLCK") == 0);
}

static int
lock_holder(const struct lock_line *l, struct sqlite_holder *h)
{
    h->pid = l->pid;
    h->write = strcmp(l->mode, "WRITE") == 0;
    h->comm[0] = '\0';
    return 1;
}

int
sqlite_lock_blocks(const char *line, unsigned dev_major, unsigned dev_minor, uint64_t db_ino,
                   uint64_t shm_ino, int wal, int self, struct sqlite_holder *h)
{
    struct lock_line l;

    if (!lock_line_parse(line, self, &l))
        return 0;
    if (wal ? !(same_file(l.dev, dev_major, dev_minor, shm_ino) && strcmp(l.mode, "WRITE") == 0 &&
                l.start <= SQ_WAL_WRITE_LOCK && l.last >= SQ_WAL_WRITE_LOCK)
            : !(same_file(l.dev, dev_major, dev_minor, db_ino) &&
                l.start < (unsigned long long)SQ_PENDING_BYTE + SQ_LOCK_BYTES &&
                l.last >= SQ_PENDING_BYTE))
        return 0;
    return lock_holder(&l, h);
}

int
sqlite_lock_reads_wal(const char *line, unsigned dev_major, unsigned dev_minor, uint64_t shm_ino,
                      int self, struct sqlite_holder *h)
{
    struct lock_line l;

    if (!lock_line_parse(line, self, &l) || strcmp(l.mode, "READ") != 0 ||
        !same_file(l.dev, dev_major, dev_minor, shm_ino) ||
        !(l.start < SQ_WAL_READ_LOCK + SQ_WAL_READ_MARKS && l.last >= SQ_WAL_READ_LOCK))
        return 0;
    return lock_holder(&l, h);
}

static void
holder_comm(struct sqlite_holder *h)
{
    char comm_path[64];
    FILE *f;

    if (h->pid == 0)
        return;
    snprintf(comm_path, sizeof comm_path, "/proc/%d/comm", h->pid);
    if ((f = fopen(comm_path, "re")) != NULL) {
        if (fgets(h->comm, sizeof h->comm, f) != NULL)
            h->comm[strcspn(h->comm, "\n")] = '\0';
        fclose(f);
    }
}

/*
 * Other processes in s->path's way, from /proc/locks (a bounded read: the
 * file lists every lock on the host): one keeping writers out (foreign),
 * and in WAL one reading (wal_reader). pid 0: none.
 */
static void
foreign_holders(const char *path, struct sqlite_sample *s)
{
    struct stat db, shm;
    char shm_path[PATH_MAX + 8], line[256];
    int wal = strcasecmp(s->journal_mode, "wal") == 0, n = 0, self = (int)getpid();
    FILE *f;

    memset(&s->foreign, 0, sizeof s->foreign);
    memset(&s->wal_reader, 0, sizeof s->wal_reader);
    snprintf(shm_path, sizeof shm_path, "%s-shm", path);
    if (stat(path, &db) < 0 || (wal && stat(shm_path, &shm) < 0) ||
        (f = fopen("/proc/locks", "re")) == NULL)
        return;
    while (n++ < 100000 && fgets(line, sizeof line, f) != NULL) {
        if (s->foreign.pid == 0)
            sqlite_lock_blocks(line, major(db.st_dev), minor(db.st_dev), (uint64_t)db.st_ino,
                               wal ? (uint64_t)shm.st_ino : 0, wal, self, &s->foreign);
        if (wal && s->wal_reader.pid == 0)
            sqlite_lock_reads_wal(line, major(db.st_dev), minor(db.st_dev), (uint64_t)shm.st_ino,
                                  self, &s->wal_reader);
    }
    fclose(f);
    holder_comm(&s->foreign);
    holder_comm(&s->wal_reader);
}

static int
sq_coll_sample(void *conn, void *out, char *err)
{
    struct sq_coll *c = conn;
    struct sqlite_sample *s = out;
    char wal[PATH_MAX + 8];
    int64_t sync;

    pragma_text(c->db, "PRAGMA journal_mode", s->journal_mode, sizeof s->journal_mode);
    /*
     * synchronous is a connection's, not the file's: the collector's own
     * says the default (full) whatever the load's connections set (trial 3,
     * C17: "try synchronous=normal" with it set). The target's, when given.
     */
    sync = pragma_int(c->db, "PRAGMA synchronous");
    snprintf(s->synchronous, sizeof s->synchronous, "%s",
             c->synchronous[0]        ? c->synchronous
             : sync >= 0 && sync <= 3 ? sync_names[sync]
                                      : "?");
    s->page_size = pragma_int(c->db, "PRAGMA page_size");
    s->cache_size = pragma_int(c->db, "PRAGMA cache_size");
    s->page_count = pragma_int(c->db, "PRAGMA page_count");
    s->freelist_count = pragma_int(c->db, "PRAGMA freelist_count");
    s->file_bytes = file_size(c->path);
    snprintf(wal, sizeof wal, "%s-wal", c->path);
    s->wal_bytes = file_size(wal);
    s->have_counts = sqlite_stats_read(c->path, &s->counts) == 0;
    foreign_holders(c->path, s);
    if (s->file_bytes < 0)
        return seterr(err, "%s is gone", c->path);
    return 0;
}

/* --- derive: pure --- */

static void
derive_settings(const struct sqlite_sample *c, struct coll_view *v)
{
    coll_row_add(v, SETTINGS, "journal_mode", NAN, ROW_NORMAL, "%s", c->journal_mode);
    coll_row_add(v, SETTINGS, "synchronous", NAN, ROW_NORMAL, "%s", c->synchronous);
    coll_row_add(v, SETTINGS, "page_size", (double)c->page_size, ROW_NORMAL, "%lld",
                 (long long)c->page_size);
    if (c->cache_size < 0)
        coll_row_add(v, SETTINGS, "cache_size", (double)-c->cache_size, ROW_NORMAL, "%lld KiB",
                     (long long)-c->cache_size);
    else
        coll_row_add(v, SETTINGS, "cache_size", (double)c->cache_size, ROW_NORMAL, "%lld pages",
                     (long long)c->cache_size);
    coll_row_add(v, FILE_, "file size", (double)c->file_bytes, ROW_NORMAL, "%.1f MiB",
                 (double)c->file_bytes / 1048576.0);
    if (c->wal_bytes >= 0)
        coll_row_add(v, FILE_, "wal size", (double)c->wal_bytes, ROW_NORMAL, "%.1f MiB",
                     (double)c->wal_bytes / 1048576.0);
}

/* Mean number of connections inside an activity that took us microseconds over secs. */
static double
busy_share(uint64_t us, double secs)
{
    return (double)us / 1e6 / secs;
}

static void commit_advice(const struct sqlite_sample *c, struct coll_signals *g);

static void
derive_signals(const struct sqlite_counts *d, const struct sqlite_counts *c, double secs,
               struct coll_view *v)
{
    struct coll_signals *g = &v->sig;

    g->sessions = g->own_sessions = (double)c->conns;
    /* a transaction's own time is published when it ends, its lock waits as they happen */
    g->active = fmin(fmax(busy_share(d->txn_us, secs),
                          busy_share(d->commit_us, secs) + busy_share(d->busy_us, secs)),
                     g->sessions);
    g->commit_wait = fmin(busy_share(d->commit_us, secs), g->active);
    g->lock_wait = fmin(busy_share(d->busy_us, secs), g->active - g->commit_wait);
    g->on_cpu = fmax(0.0, g->active - g->commit_wait - g->lock_wait);
    g->io_wait = 0;
    g->lock_kind = g->lock_wait > 0 ? LK_FILE : LK_UNKNOWN;
    /*
     * One writer at a time holds the file's lock: the waiters' blocker is
     * whichever connection holds it, which runs or syncs as the holders do
     * (4 writers in WAL, synchronous=full: locks 68%, commit 20%, and
     * synchronous=normal gave x6.7: the chain's root was the sync).
     */
    if (g->lock_wait > 0 && g->commit_wait + g->on_cpu > 0) {
        g->lock_root_commit = g->lock_wait * g->commit_wait / (g->commit_wait + g->on_cpu);
        g->lock_root_other = g->lock_wait - g->lock_root_commit;
        g->lock_root_client = 0;
    }
}

/*
 * Another process holding the lock (a reader's SHARED in a rollback
 * journal, a writer anywhere) while benchtop's connections waited: every
 * busy wait is its doing, the commit's included (a COMMIT waits for the
 * readers to leave), and the verdict names it as a stall.
 */
static void
foreign_stall(const struct sqlite_holder *h, const struct sqlite_counts *d, double secs,
              struct coll_signals *g)
{
    char comm[16];

    if (h->pid == 0 || !(g->active > 0) || d->busy_us == 0)
        return;
    g->lock_wait = fmin(busy_share(d->busy_us, secs), g->active);
    g->commit_wait = fmin(busy_share(d->commit_us, secs), g->active - g->lock_wait);
    g->on_cpu = fmax(0.0, g->active - g->commit_wait - g->lock_wait);
    g->lock_root_other = g->lock_wait;
    g->lock_root_commit = g->lock_root_client = 0;
    g->other_stall_share = 1;
    text_clean(comm, sizeof comm, h->comm);
    snprintf(g->other_stall_what, sizeof g->other_stall_what, "pid %u (%.15s): %.5s %.23s",
             (unsigned)h->pid, comm, h->write ? "write" : "read", LOCK_FILE_WHAT);
    g->other_stall_sql_at = (unsigned char)strlen(g->other_stall_what); /* no statement */
}

/*
 * Another process's WAL read transaction that the checkpoints cannot pass
 * (9 in 10 of those that ran stopped short, and the WAL grows past twice
 * the checkpoint's threshold): each commit tries again. 8 writers beside a
 * sqlite3 reader: 2,406 tps, WAL 50 MiB; the reader gone, 4,634
 * (synchronous=normal gave 9,251 with it). Readers of 20 ms each keep the
 * WAL at 4 MiB, not growing: not said.
 */
static void
wal_held(const struct sqlite_sample *p, const struct sqlite_sample *s,
         const struct sqlite_counts *d, struct coll_view *v)
{
    const struct sqlite_holder *h = &s->wal_reader;
    char comm[16];

    if (h->pid == 0 || d->checkpoints_short == 0 ||
        d->checkpoints_short < 9 * d->checkpoints_whole ||
        !(s->wal_bytes > p->wal_bytes && s->wal_bytes > 2 * SQ_CHECKPOINT_FRAMES * s->page_size))
        return;
    text_clean(comm, sizeof comm, h->comm);
    coll_row_add(v, FILE_, "WAL held by", (double)h->pid, ROW_WARN,
                 "pid %d (%s): checkpoints stop at its read", h->pid, comm);
    snprintf(v->sig.commit_held, sizeof v->sig.commit_held,
             "a read transaction in pid %d (%s) keeps the WAL's checkpoints from finishing "
             "(WAL %.0f MiB)",
             h->pid, comm, (double)s->wal_bytes / 1048576.0);
}

static void
derive_counts(const struct sqlite_sample *prev, const struct sqlite_sample *cur, double secs,
              struct coll_view *v)
{
    const struct sqlite_counts *p = &prev->counts, *c = &cur->counts;
    const struct sqlite_holder *holder = &cur->foreign;
    struct sqlite_counts d;
    const uint64_t *a = (const uint64_t *)p, *b = (const uint64_t *)c;
    uint64_t *out = (uint64_t *)&d;
    double per_commit, hits;

    for (size_t i = 0; i < sizeof d / sizeof(uint64_t); i++)
        out[i] = b[i] >= a[i] ? b[i] - a[i] : 0;
    v->server_tps = (double)d.txns / secs;
    coll_row_add(v, TXNS, "commits/s", (double)d.commits / secs, ROW_NORMAL, "%.1f",
                 (double)d.commits / secs);
    per_commit = d.commits ? (double)d.commit_us / (double)d.commits / 1000.0 : NAN;
    if (isnan(per_commit))
        coll_row_add(v, TXNS, "time in COMMIT", NAN, ROW_DIM, "-");
    else
        coll_row_add(v, TXNS, "time in COMMIT", per_commit,
                     d.commit_us * 2 > d.txn_us ? ROW_WARN : ROW_NORMAL,
                     "%.2f ms each, %.0f%% of txn time", per_commit,
                     100.0 * (double)d.commit_us / (double)d.txn_us);
    coll_row_add(v, TXNS, "lock waits/s", (double)d.busy_retries / secs,
                 d.busy_retries ? ROW_WARN : ROW_NORMAL, "%.1f (%.0f ms/s)",
                 (double)d.busy_retries / secs, (double)d.busy_us / 1000.0 / secs);
    coll_row_add(v, TXNS, "lock timeouts", (double)d.busy_timeouts,
                 d.busy_timeouts ? ROW_BAD : ROW_NORMAL, "%llu",
                 (unsigned long long)d.busy_timeouts);
    hits = (double)(d.cache_hit + d.cache_miss);
    if (hits > 0)
        coll_row_add(v, FILE_, "cache hit", 100.0 * (double)d.cache_hit / hits, ROW_NORMAL,
                     "%.1f%%", 100.0 * (double)d.cache_hit / hits);
    coll_row_add(v, FILE_, "pages written/s", (double)d.cache_write / secs, ROW_NORMAL, "%.1f",
                 (double)d.cache_write / secs);
    coll_row_add(v, FILE_, "checkpoints/s", (double)d.checkpoints / secs, ROW_NORMAL, "%.2f",
                 (double)d.checkpoints / secs);
    if (d.checkpoints > 0)
        coll_event_add(v, "sqlite: %llu WAL checkpoints (%.1f ms)",
                       (unsigned long long)d.checkpoints, (double)d.checkpoint_us / 1000.0);
    derive_signals(&d, c, secs, v);
    foreign_stall(holder, &d, secs, &v->sig);
    wal_held(prev, cur, &d, v);
}

/* Another process holding the lock, as a row (its name cleaned of control bytes). */
static void
holder_row(const struct sqlite_holder *h, struct coll_view *v)
{
    char comm[16];

    if (h->pid == 0)
        return;
    text_clean(comm, sizeof comm, h->comm);
    coll_row_add(v, FILE_, "lock held by", (double)h->pid, ROW_WARN, "pid %d (%s), %s", h->pid,
                 comm, h->write ? "writing" : "reading");
}

static void
sq_coll_derive(const void *prev, const void *cur, double secs, struct coll_view *v)
{
    const struct sqlite_sample *p = prev, *c = cur;

    coll_view_reset(v);
    if (p != NULL && c->have_counts && p->have_counts && secs > 0)
        derive_counts(p, c, secs, v);
    else if (!c->have_counts)
        snprintf(v->note, sizeof v->note,
                 "commits, lock waits and cache figures only while benchtop loads this file");
    derive_settings(c, v);
    holder_row(&c->foreign, v);
    commit_advice(c, &v->sig);
}

/*
 * What makes a commit cheaper here (the verdict's "try ..."): WAL with
 * synchronous=normal syncs at checkpoints only; a rollback journal syncs
 * the journal and the file each commit, WAL once.
 */
static void
commit_advice(const struct sqlite_sample *c, struct coll_signals *g)
{
    int wal = strcasecmp(c->journal_mode, "wal") == 0;
    int full = c->synchronous[0] == '\0' || strcmp(c->synchronous, "full") == 0 ||
               strcmp(c->synchronous, "extra") == 0;

    if (wal && full)
        snprintf(g->commit_advice, sizeof g->commit_advice,
                 "synchronous=normal (WAL syncs at checkpoints)");
    else if (!wal && strcmp(c->synchronous, "off") != 0)
        snprintf(g->commit_advice, sizeof g->commit_advice,
                 "journal_mode=wal with synchronous=normal, or --batch N");
    else if (wal && strcmp(c->synchronous, "off") != 0)
        snprintf(g->commit_advice, sizeof g->commit_advice,
                 "--batch N (one commit writes the WAL for N transactions' rows)");
}

const struct collector_class sqlite_collector_class = {
    .name = "sqlite",
    .title = "SQLite",
    .sample_size = sizeof(struct sqlite_sample),
    .open = sq_coll_open,
    .close = sq_coll_close,
    .sample = sq_coll_sample,
    .derive = sq_coll_derive,
};
