/*
 * driver: the load-driver interface. A database backend plugs into the
 * engine through one const struct driver_class (listed in
 * collectors/registry.c). The engine never names a database.
 *
 * Threads: prepare/release/init/probe run on the main thread before or after
 * the run and may block. Every conn_* callback runs on the one worker thread
 * that owns the connection and must never block: it does one step of work
 * and says what it waits for (DRV_WANT_READ / DRV_WANT_WRITE on conn_fd()).
 *
 * Call order for one client connection:
 *   conn_new -> conn_connect_start -> conn_connect_poll* (until DRV_DONE)
 *     -> { conn_txn_start -> conn_txn_poll* (until DRV_DONE) }*
 *     -> conn_disconnect -> (conn_connect_start again on reconnect)
 *   conn_free at the end (after conn_disconnect or on a connected conn).
 * On DRV_ERROR from any conn_* step the connection is unusable: the engine
 * calls conn_disconnect and later reconnects with backoff.
 * Errors that leave the connection usable (a deadlock, a serialization
 * failure) are not DRV_ERROR: conn_txn_poll finishes the transaction
 * (rolling back if needed) and returns DRV_DONE with res->err set.
 *
 * Pipelining (drivers with .pipelining = 1, and --pipeline DEPTH): the engine
 * calls conn_txn_start up to DEPTH times before the first reply, so DEPTH
 * transactions are in flight on one connection. conn_txn_start then only
 * queues its request (DRV_WANT_WRITE) and the engine calls conn_txn_poll right
 * after its last start, which sends what was queued. Each DRV_DONE from
 * conn_txn_poll finishes the OLDEST transaction in flight (replies come in
 * order) and the engine calls conn_txn_poll again, before waiting on the
 * socket, while any are in flight: so one read that brings several replies
 * gives several DRV_DONE, each timed from its own request's start, and the
 * engine refills one request per reply (streaming, not batch by batch).
 * conn_txn_poll returns DRV_WANT_READ / DRV_WANT_WRITE only when it has no
 * complete reply left in its buffer. Without .pipelining, DEPTH is 1 and
 * none of this changes anything.
 *
 * Batched sends (drivers with .reads_drain, when the build has liburing and
 * the kernel gives a ring: src/base/sendq.h): the engine sets res->sendq before
 * every conn_txn_start / conn_txn_poll, and a driver may then queue a send
 * with sendq_send(res->sendq, res->send_tag, fd, &msghdr) instead of calling
 * send(); the worker submits all the sends of one loop turn in one system
 * call before it waits again. After queueing, the call returns DRV_WANT_READ
 * (the request counts as sent) and the driver leaves the msghdr, its iovecs
 * and the bytes untouched until the engine calls the connection again: it
 * does only once the send went out in full. A send that fails or goes out
 * short loses the connection (ERR_CONN, as a DRV_ERROR would): the engine
 * calls conn_disconnect, not conn_txn_poll. With res->sendq NULL the driver
 * sends directly. Connects (conn_connect_*) always send directly.
 */
#ifndef BENCHTOP_DRIVER_H
#define BENCHTOP_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include "base/rand.h"
#include "base/sendq.h"

/*
 * Declared only: runconf.h holds a target, which is parsed through
 * registry.h, which holds these classes. A driver that reads the run's
 * configuration includes runconf.h.
 */
struct runconf;

enum drv_status {
    DRV_ERROR = -1,     /* the connection is lost or unusable; message in err */
    DRV_DONE = 0,       /* the step finished */
    DRV_WANT_READ = 1,  /* call again when conn_fd() is readable */
    DRV_WANT_WRITE = 2, /* call again when conn_fd() is writable */
    DRV_DONE_SENT = 3,  /* conn_txn_start only: sent and answered in the call (below) */
};

/*
 * Error kinds, counted separately. Names in err_kind_name(). A driver may
 * count failures of its own kinds in ERR_DRIVER_1.. (HTTP status classes,
 * say): its .err_kinds names them, and a kind it does not name is not shown.
 */
enum err_kind {
    ERR_NONE = 0,
    ERR_CONN,          /* connection lost or refused mid-run */
    ERR_DEADLOCK,      /* the server chose this transaction as a deadlock victim */
    ERR_SERIALIZATION, /* serialization failure: retrying could succeed */
    ERR_OTHER,         /* any other statement error */
    ERR_DRIVER_1,      /* the driver's own kinds, named by driver_class.err_kinds */
    ERR_DRIVER_2,
    ERR_DRIVER_3,
    ERR_DRIVER_4,
    ERR__COUNT
};

enum { ERR_DRIVER_KINDS = ERR__COUNT - ERR_DRIVER_1 };

const char *err_kind_name(enum err_kind k);
/* Whether kind k is counted in this run (the driver's own only when the driver names them). */
int err_kind_used(enum err_kind k);
/*
 * Names ERR_DRIVER_1.. for this run from the driver's .err_kinds (NULL-ended,
 * up to ERR_DRIVER_KINDS). Called once, on the main thread, when the target's
 * driver is known and before any thread starts; read-only afterwards.
 */
void err_kinds_use(const char *const *names);

/* -r: one statement of the run's scripts, as the summary names it. */
struct stmt_label {
    const char *script; /* the script's name (a -f file or a built-in) */
    int line;           /* its line in the script; 0 for a built-in's statement */
    const char *text;   /* as written, variables and all */
};

/* -r: one statement's figures, counted per worker and merged at each tick (stats.h). */
struct stmt_stat {
    uint64_t n;      /* finished without error */
    uint64_t errors; /* failed */
    uint64_t sum_us; /* latency of the ones that finished, summed */
};

/* The outcome of one transaction, filled by conn_txn_poll. */
struct txn_result {
    enum err_kind err;
    int ops;           /* statements/requests completed in it */
    uint64_t rx_bytes; /* bytes it received, for drivers that count them (0 otherwise) */
    char msg[256];     /* first line of the server's error, when err != ERR_NONE */
    /*
     * -r: the worker's per-statement counters, indexed as the driver's
     * stmt_labels; NULL without -r. The engine sets it before every
     * conn_txn_start / conn_txn_poll (the worker's buffers swap between
     * calls), so a driver uses it within the call only (stmt_record).
     */
    struct stmt_stat *stmts;
    /* Batched sends (above): the worker's queue, or NULL to send directly; and this client's tag.
     */
    struct sendq *sendq;
    uint32_t send_tag;
};

/* -r: counts statement id of the current call's res, us its latency; nothing without -r. */
static inline void
stmt_record(struct txn_result *res, int id, uint64_t us, int failed)
{
    struct stmt_stat *st;

    if (res->stmts == NULL)
        return;
    st = &res->stmts[id];
    if (failed) {
        st->errors++;
        return;
    }
    st->n++;
    st->sum_us += us;
}

/* How prepare's connection is secured (the record's "tls"): what a driver's .tls fills. */
struct drv_tls {
    int used;          /* 1: the connection is TLS */
    char protocol[24]; /* "TLSv1.3"; "" when plain */
    char cipher[64];   /* "TLS_AES_256_GCM_SHA384"; "" when plain */
};

struct target;

/* What `benchtop init` asked for. */
struct init_conf {
    const struct target *target; /* parsed once (target_parse): parsed holds the class's own */
    const void *opts;            /* the driver's option struct (below) */
    int force;
    int quiet;
};

struct option_group;

/*
 * One group of options a driver takes, and where the group's struct sits
 * in the driver's option struct (offsetof). The option table of each group
 * (src/run/options.h) has offsets into that group's struct.
 */
struct driver_options {
    const struct option_group *group;
    size_t offset;
};

struct driver_class {
    const char *name;             /* "postgres" */
    const char *version_note;     /* how it runs, for --version; NULL: nothing to say */
    const char *unseen_hint;      /* how to let benchtop see the server when no collector */
                                  /* samples it (the verdict says it); NULL: none */
    const char *target_forms;     /* other spellings of a target, for --help ("a libpq */
                                  /* conninfo string"); NULL: the scheme only */
    const char *const *schemes;   /* URI prefixes claimed, e.g. "postgres://"; NULL-terminated */
    const char *const *workloads; /* -w names; the first is the default; NULL-terminated */
    const char *const *modes;     /* -M names; the first is the default; NULL-terminated */
    int pipelining;               /* 1: several transactions in flight per connection (above) */
    /*
     * 1: the worker watches conn_fd() edge-triggered, for input and output
     * at once (src/engine/worker.c): the kernel reports each change once and never
     * polls the socket again, so the driver keeps this contract:
     * - it reads until a read comes back short or with EAGAIN before it
     *   returns DRV_WANT_READ, and keeps no input unread (a read that filled
     *   its buffer reads again): input left in the socket is not reported
     *   again, and the client would wait for it forever;
     * - it returns DRV_WANT_WRITE only after a send came back short or with
     *   EAGAIN (or for a connect in progress, or from conn_txn_start with
     *   .pipelining, which the engine polls at once): a socket writable all
     *   along is not reported again either.
     * Input reported while the client waits for output is kept in
     * client.ready and taken when it next waits for input: a DRV_WANT_READ
     * right after a send needs no read first.
     */
    int reads_drain;
    const char *const *err_kinds; /* names of its ERR_DRIVER_1.. kinds, NULL-ended; NULL: none */

    /*
     * The driver's own options: groups ended by {NULL}, parsed into a struct
     * of options_size bytes that prepare and init receive as opts. An option
     * of another driver's group is refused for this driver's targets.
     */
    const struct driver_options *options;
    size_t options_size;
    /* Options `benchtop demo` sets before its run, as "name=value" (e.g. "fill=1"); NULL-ended. */
    const char *const *demo_options;
    /* With .pipelining: transactions in flight per connection, from opts (NULL: 1). */
    int (*pipeline_depth)(const void *opts);

    /* 1 if target is for this driver even without a scheme (e.g. a conninfo string). */
    int (*claims)(const char *target);
    /* A newly allocated copy of target with any password replaced by "***". */
    char *(*mask)(const char *target);
    /*
     * Optional (NULL: the class reads its target's raw string when it
     * connects). Parses target, one this class claims, into the class's own
     * struct: called once per target, by target_parse where the command line
     * is read (main thread, before anything connects; --watch, --pooler and
     * --server targets too). Returns the struct, which the struct target
     * then owns (its .parsed) and frees with free_parsed; prepare, init, the
     * collector's open and inspect read it there and never parse raw again.
     * NULL with a one-line err in target_invalid's words when the target is
     * malformed: it is refused there, exit 2.
     */
    void *(*parse)(const char *target, char *err);
    /* With parse: frees what it returned (its password wiped). */
    void (*free_parsed)(void *parsed);

    /*
     * Blocking, main thread, before the run: checks the target (connects once),
     * the workload and its tables, and builds the read-only state shared by
     * all connections. opts is the driver's option struct (above). Returns
     * NULL and a one-line "problem; fix" in err.
     */
    void *(*prepare)(const struct runconf *rc, const void *opts, char *err);
    /* Only with what prepare returned: never NULL (the callers check, not each class). */
    void (*release)(void *shared);
    /*
     * Optional, after prepare: whether prepare's connection went over TLS
     * and which (the workers' connections take the same target and
     * parameters, so the server answers them alike). NULL: the class
     * cannot tell, and the record says nothing.
     */
    void (*tls)(const void *shared, struct drv_tls *out);
    /*
     * Optional, after prepare: one line on what the target is that the
     * summary and the record carry ("cluster: 3 masters, each client
     * pinned to one"); the string lives as long as shared. NULL or "": none.
     */
    const char *(*target_note)(const void *shared);
    /*
     * Optional, after prepare: the ports of the target's other server
     * processes on this host (a cluster's other masters), into ports (max
     * of them); their CPU is the server's in the host split, not others'.
     * The count, 0 for none.
     */
    int (*server_ports)(const void *shared, int *ports, int max);

    /* Allocates a connection object (not connected). rng is the worker's, for the script. */
    void *(*conn_new)(void *shared, int client_id, struct rng *rng);
    void (*conn_free)(void *conn);
    int (*conn_fd)(void *conn);
    enum drv_status (*conn_connect_start)(void *conn, char *err);
    enum drv_status (*conn_connect_poll)(void *conn, char *err);
    /*
     * Begins one transaction (sends its first statement, or with .pipelining
     * queues it). DRV_DONE only when it failed before sending anything (res->err
     * set, connection still usable; it is then not in flight): the client then
     * waits one loop turn before its next start, so a start that always fails
     * does not spin; the engine stops on a DRV_DONE here without an error.
     * DRV_DONE_SENT: the transaction went out and its reply was already in
     * before the call returned (MySQL's fast replies), outcome in res: it is
     * over, and the client starts its next one at the next loop turn (the
     * other clients' turn), with no wait on the socket. Not for .pipelining.
     */
    enum drv_status (*conn_txn_start)(void *conn, struct txn_result *res);
    /*
     * Advances the transaction when the socket is ready. DRV_DONE: the oldest
     * transaction in flight finished, with its outcome in res.
     */
    enum drv_status (*conn_txn_poll)(void *conn, struct txn_result *res);
    void (*conn_disconnect)(void *conn);

    /*
     * -r: the statements the transactions count (res->stmts indexes), after
     * prepare; returns how many. NULL: the driver has none (-r is refused).
     */
    int (*stmt_labels)(const void *shared, const struct stmt_label **out);

    /* 1: the workload needs tables that `init` creates; 0: key-value, warmed with --fill. */
    int needs_init;

    /* `benchtop init`: blocking; creates and fills the workload's tables. 0 or -1 with err. */
    int (*init)(const struct init_conf *ic, char *err);
};

#endif
