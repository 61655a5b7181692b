/*
 * memcached: the memcached backend's private interface, shared by the
 * collectors/memcached*.c files. Nothing outside collectors/ includes it;
 * the engine sees only the class structs.
 *
 * No client library: benchtop speaks the text and the binary protocol
 * itself on non-blocking sockets, so that one worker thread holds hundreds
 * of connections (libmemcached's calls block).
 *
 *   memcached/driver.c            targets, blocking helpers, the load driver, --fill
 *   memcached/proto.c      request templates and pure reply parsing
 *   memcached/stats.c      pure parsers of `stats`, `stats slabs`, `stats items`
 *   memcached/collector.c  the collector class (server view) and its derive
 *   memcached/server.c     throwaway memcached servers
 *   memcached/inspect.c    `benchtop inspect memcached://`: slabs and a key census
 */
#ifndef BENCHTOP_MEMCACHED_H
#define BENCHTOP_MEMCACHED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "engine/collector.h"
#include "engine/driver.h"
#include "base/cpu.h"
#include "base/rand.h"
#include "engine/script.h"
#include "base/util.h"

#define MC_DEFAULT_PORT 11211

/* ---- targets and blocking helpers (memcached/driver.c) ---- */

/* Where a memcached:// target points. */
struct mc_addr {
    struct sockaddr_storage sa;
    socklen_t salen;
    char name[300]; /* "127.0.0.1:11211" or "/run/memcached.sock", for messages */
};

/*
 * memcached://host[:port] (port 11211 by default, [v6] in brackets) or
 * memcached:///path/to/socket. Resolves the host (blocking). 0, or -1 with
 * a one-line "problem (fix)" in err.
 */
int mc_target_parse(const char *target, struct mc_addr *out, char *err);

/* A blocking socket connected to a, send and receive timeouts set to timeout_ms; -1 with err. */
int mc_connect_blocking(const struct mc_addr *a, int timeout_ms, char *err);

/*
 * Sends req and reads until the reply is complete: for `stats ...` the
 * final END (or an error line). *out is xmalloc'ed, NUL-terminated, its
 * length in *outlen. 0, or -1 with err (timeout, closed, too long).
 */
int mc_stats_roundtrip(int fd, const struct mc_addr *a, const char *req, char **out, size_t *outlen,
                       char *err);

/* ---- protocol (memcached/proto.c): pure, no I/O ---- */

enum mc_proto { MC_TEXT, MC_BINARY };

/* What one request of a transaction does. */
enum mc_op { MC_OP_GET, MC_OP_SET, MC_OP_MULTIGET };

/* Keys are kv.h's "key:" and at least this many digits (more for a larger key space). */
#define MC_KEY_MIN_DIGITS 8
#define MC_KEY_MAX_DIGITS 20

/* Binary protocol: header size, magics and the opcodes benchtop sends. */
#define MC_BIN_HEADER 24
enum {
    MC_BIN_REQ = 0x80,
    MC_BIN_RES = 0x81,
};
enum {
    MC_BIN_GET = 0x00,
    MC_BIN_SET = 0x01,
    MC_BIN_NOOP = 0x0a,
    MC_BIN_VERSION = 0x0b,
    MC_BIN_GETKQ = 0x0d,
    MC_BIN_STAT = 0x10,
};

/*
 * A request laid out once per connection: only the key digits change
 * between requests (mc_req_key), so building one costs no allocation.
 * A set's value is not copied: iov[1] points at the shared value.
 */
struct mc_req {
    enum mc_op op;
    int nkeys;
    int digits;
    char *head; /* the bytes before the value (all of a get) */
    size_t head_len;
    size_t *key_at;      /* offset of each key's first digit in head */
    struct iovec iov[2]; /* head, then the value for a set */
    int niov;
};

/* Digits needed for keys 0 .. nkeys-1 (at least MC_KEY_MIN_DIGITS). */
int mc_key_digits(uint64_t nkeys);

/*
 * Lays out op for proto: nkeys keys (1 unless MC_OP_MULTIGET) of `digits`
 * digits; for a set, value holds value_size bytes followed by "\r\n" (the
 * text protocol sends the two, the binary one only the value). Keys start
 * as key 0. Free with mc_req_free.
 */
void mc_req_init(struct mc_req *r, enum mc_proto proto, enum mc_op op, int nkeys, int digits,
                 const char *value, size_t value_size);
void mc_req_free(struct mc_req *r);
/* Sets key i of the request to number k (k < 10^digits). */
void mc_req_key(struct mc_req *r, int i, uint64_t k);
/* Total bytes of the request. */
size_t mc_req_len(const struct mc_req *r);

/* One element of a reply stream. */
enum mc_kind {
    MC_R_VALUE, /* a value (text VALUE block, binary GET/GETK hit) */
    MC_R_END,   /* end of a get: text END, binary NOOP */
    MC_R_STORED,
    MC_R_NOT_STORED,
    MC_R_EXISTS,
    MC_R_NOT_FOUND,    /* binary GET miss (text has none: a miss is just no VALUE) */
    MC_R_VERSION,      /* data is the version string */
    MC_R_STAT,         /* text STAT line or binary STAT packet: key and data */
    MC_R_ERROR,        /* unknown command (text ERROR, binary 0x81) */
    MC_R_CLIENT_ERROR, /* data is the message */
    MC_R_SERVER_ERROR, /* data is the message (out of memory, too large ...) */
    MC_R_OTHER,        /* text: a reply benchtop does not use (DELETED, TOUCHED, OK ...) */
};

struct mc_reply {
    enum mc_kind kind;
    uint8_t opcode;  /* binary */
    uint16_t status; /* binary */
    uint32_t flags;  /* a value's flags */
    const char *key; /* VALUE or STAT key, binary key; points into the buffer */
    size_t key_len;
    const char *data; /* value bytes, or the message/version text */
    size_t data_len;
};

/* Longest text reply line accepted (a key is at most 250 bytes). */
#define MC_MAX_LINE 2048
/* Largest value or packet body accepted: memcached's own item size ceiling is 1 GB. */
#define MC_MAX_BODY (1u << 30)
/* memcached's -I default, when `stats settings` names none; room for a VALUE line beyond it. */
#define MC_ITEM_SIZE_DEFAULT (1u << 20)
#define MC_LINE_MAX 1024

/*
 * Parses the reply element at the start of buf[0..len).
 *   > 0: bytes it took; *r points into buf.
 *   0:   incomplete; *need is the total it needs when known (grow the
 *        buffer to that), else 0.
 *   -1:  not a memcached reply; err says what was wrong (BT_ERRLEN).
 */
ssize_t mc_text_parse(const char *buf, size_t len, struct mc_reply *r, size_t *need, char *err);
ssize_t mc_bin_parse(const char *buf, size_t len, struct mc_reply *r, size_t *need, char *err);
ssize_t mc_parse(enum mc_proto proto, const char *buf, size_t len, struct mc_reply *r, size_t *need,
                 char *err);

/* Where a transaction's reply stands, fed one element at a time (mc_txn_feed). */
struct mc_txn {
    enum mc_op op;
    enum mc_proto proto;
    int nkeys;
    int values;    /* hits so far */
    int misses;    /* binary GET misses; for text, nkeys - values at the end */
    int failed;    /* the server refused the request (connection still usable) */
    char msg[160]; /* its message */
};

enum mc_feed { MC_FEED_MORE, MC_FEED_DONE, MC_FEED_DESYNC };

void mc_txn_begin(struct mc_txn *t, enum mc_proto proto, enum mc_op op, int nkeys);
/* Takes one element; DESYNC when it cannot belong to this request (message in t->msg). */
enum mc_feed mc_txn_feed(struct mc_txn *t, const struct mc_reply *r);

/* ---- stats parsers (memcached/stats.c): pure, no I/O ---- */

/* The `stats` fields benchtop reads; a field missing from the reply stays 0 and its bit unset. */
enum mc_stat_field {
    MCS_PID,
    MCS_UPTIME,
    MCS_TIME,
    MCS_RUSAGE_USER,   /* microseconds */
    MCS_RUSAGE_SYSTEM, /* microseconds */
    MCS_MAX_CONNECTIONS,
    MCS_CURR_CONNECTIONS,
    MCS_TOTAL_CONNECTIONS,
    MCS_REJECTED_CONNECTIONS,
    MCS_CMD_GET,
    MCS_CMD_SET,
    MCS_GET_HITS,
    MCS_GET_MISSES,
    MCS_GET_EXPIRED,
    MCS_BYTES_READ,
    MCS_BYTES_WRITTEN,
    MCS_LIMIT_MAXBYTES,
    MCS_LISTEN_DISABLED_NUM,
    MCS_THREADS,
    MCS_CONN_YIELDS,
    MCS_BYTES,
    MCS_CURR_ITEMS,
    MCS_TOTAL_ITEMS,
    MCS_EVICTIONS,
    MCS__COUNT
};

struct mc_stats {
    uint64_t v[MCS__COUNT];
    uint32_t have; /* bit f: field f was in the reply */
    char version[32];
};

/* Slab class ids run from 1 to 63 in memcached 1.4 to 1.6 (MAX_NUMBER_OF_SLAB_CLASSES - 1). */
#define MC_MAX_SLAB_CLASSES 64

struct mc_slab_class {
    uint64_t chunk_size;
    uint64_t total_pages;
    uint64_t total_chunks;
    uint64_t used_chunks;
    uint64_t mem_requested;
    uint64_t items;        /* stats items: number */
    uint64_t evicted;      /* stats items: evicted */
    uint64_t outofmemory;  /* stats items: outofmemory */
    uint64_t evicted_time; /* stats items: seconds since the last evicted item's last access */
    uint64_t age;          /* stats items: age, seconds since the oldest item's last access */
    int present;           /* seen in `stats slabs` or `stats items` */
};

struct mc_slabs {
    struct mc_slab_class cls[MC_MAX_SLAB_CLASSES]; /* by class id; [0] unused */
    uint64_t total_malloced;
    int nclasses; /* classes present */
};

int mc_stat_has(const struct mc_stats *s, enum mc_stat_field f);

/*
 * Parse a whole reply, from the first STAT line to the END line. Unknown
 * names are skipped (newer servers add fields); a line that is not
 * "STAT name value", a bad number in a known field, or a missing END is an
 * error: -1 and a one-line err. 0 on success.
 */
int mc_stats_parse(const char *text, size_t len, struct mc_stats *out, char *err);
/* `stats slabs` into out (classes merged with what is already there). */
int mc_slabs_parse(const char *text, size_t len, struct mc_slabs *out, char *err);
/* `stats items` into out (merged likewise). */
int mc_items_parse(const char *text, size_t len, struct mc_slabs *out, char *err);
/* One numeric field of any stats reply (`stats settings`: "item_size_max"). 0, or -1 if absent. */
int mc_stats_find(const char *text, size_t len, const char *name, uint64_t *out);

/* ---- collector (memcached/collector.c) ---- */

/* One raw sample: what the three stats commands said at one moment. */
struct mc_sample {
    struct mc_stats st;
    struct mc_slabs slabs;
    int have_slabs; /* `stats slabs` and `stats items` both parsed */
    char slab_err[96];
    double rtt_ms; /* the `stats` round trip */
    int cores;     /* the collector's host's cores */
    int ntasks;    /* the server's threads, when it runs on this host; -1 when not */
    struct cpu_task tasks[64];
};

extern const struct collector_class memcached_collector_class;

/* --- settings (memcached/settings.c) --- */

struct coll_settings;
/* Pure: our settings from a `stats settings` reply, in the class's order. */
void mc_settings_parse(const char *text, size_t len, struct coll_settings *out);
/* The collector class's read_settings: `stats settings`. 0, or -1 with err. */
int mc_settings_read(int fd, const struct mc_addr *a, struct coll_settings *out, char *err);

/* ---- benchtop inspect (memcached/inspect.c) ---- */

/* One line of `lru_crawler metadump`: "key=user%3A1 exp=-1 la=... cas=2 fetch=no cls=1 size=70". */
struct mc_meta {
    char key[251]; /* decoded from its %XX form (a key is at most 250 bytes) */
    size_t key_len;
    int64_t exp; /* unix time it expires at; -1: never */
    int64_t la;  /* unix time of its last access */
    int fetched; /* fetch=yes */
    int cls;
    uint64_t size; /* the item's bytes in memory: header, key and value */
};

/* Pure: a metadump line (without its end) into m. 0, or -1 when it is not one. */
int mc_meta_parse(const char *line, size_t n, struct mc_meta *m);

/* The collector class's inspect: slab classes, totals and a key census. 0, or -1 with err. */
struct target;
int mc_inspect(const struct target *target, const struct inspect_conf *ic, char *err);

/* ---- -f scripts (memcached/script.c): pure, text protocol ---- */

/* The variables a script has without \set: client_id, keys (--keys). */
extern const char *const mc_script_predef[];

enum mc_sop { MC_SOP_GET, MC_SOP_SET, MC_SOP_INCR, MC_SOP_DECR, MC_SOP_DELETE };

/* A script checked for memcached: each command's operation, and the buffers a run needs. */
struct mc_script {
    const struct script *s;
    enum mc_sop *ops; /* [command]; \set lines have none */
    int ncmds;        /* commands (not \set lines) */
    size_t line;      /* the longest command with its values */
    size_t request;   /* the most bytes one run writes */
};

/* Checks every command's name and arguments: 0, or -1 with "NAME:LINE: problem (fix)". */
int mc_script_compile(struct mc_script *ms, const struct script *s, char *err);
void mc_script_free(struct mc_script *ms);

/*
 * One run: the \set lines evaluated into vars, the commands written at out
 * (ms->request bytes), line a scratch buffer of line_cap bytes. Returns the
 * bytes, or -1 with err (an expression's error). Never allocates.
 */
long mc_script_render(const struct mc_script *ms, int64_t *vars, struct rng *rng, char *line,
                      size_t line_cap, char *out, char *err);

/* Where one command's reply stands. */
struct mc_sop_state {
    int done;      /* its reply is complete */
    int failed;    /* the server refused it (connection still usable) */
    char msg[160]; /* its message */
};

/*
 * Takes one element of the reply to a command of operation op from buf:
 * > 0 bytes taken (st->done when the reply ended), 0 incomplete (*need as
 * mc_text_parse), -1 not a reply to it (err).
 */
ssize_t mc_script_feed(enum mc_sop op, const char *buf, size_t len, struct mc_sop_state *st,
                       size_t *need, char *err);

#endif
