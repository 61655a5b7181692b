/*
 * redis: the Redis backend's private interface, shared by the files in
 * collectors/ that talk to Redis. Nothing outside collectors/ (and the
 * tests) includes it; the engine sees only the class structs.
 *
 *   redis/target.c     targets: parsing, TLS parameters, masking
 *   redis/driver.c     blocking connect, the load driver (hiredis's reader)
 *   redis/route.c      the load driver on a cluster: pinning, MOVED/ASK, detours
 *   redis/failover.c   a cluster's client whose master is gone asks for the map
 *   redis/tls.h        rediss://: OpenSSL on the driver's sockets, a pump for hiredis
 *   redis/reply.c      replies on blocking connections, with caps
 *   redis/info.c       pure parsers: INFO, INFO commandstats, SLOWLOG GET
 *   redis/script.c     pure: -f scripts' command lines as RESP
 *   redis/collector.c  the collector class (sample over hiredis, derive pure)
 *   redis/server.c     throwaway redis-server for demo and tests
 *   redis/cluster.c    pure: key slots, INFO cluster, CLUSTER SLOTS, MOVED/ASK
 *   redis/nodes.c      the collector's view of a cluster: every master's INFO
 */
#ifndef BENCHTOP_REDIS_H
#define BENCHTOP_REDIS_H

#include <stddef.h>
#include <stdint.h>

#include <hiredis.h>

#include <sys/socket.h>

#include "base/cpu.h"
#include "base/rand.h"
#include "collectors/shared/kv.h"
#include "engine/driver.h"
#include "engine/mix.h"
#include "engine/script.h"

/* A cluster's slots, and the most masters benchtop follows (redis/cluster.c). */
enum { REDIS_SLOTS = 16384, REDIS_CLUSTER_MAX_NODES = 64 };

/* --- targets (redis/target.c) and the blocking connect (redis/driver.c) --- */

/*
 * What a target names:
 *   redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]      TCP (HOST may be [v6]); port 6379
 *   redis+unix://[[USER]:PASSWORD@]/PATH[?db=DB]    a Unix socket
 *   rediss://...[?cacert=PATH][&insecure]           TLS (redis/tls.h); port 6379
 * A userinfo without ':' is a password (as redis-cli reads it). USER and
 * PASSWORD may be %-encoded. rediss:// verifies the server's certificate
 * against the system's CAs or cacert= (a PEM file), and the host name;
 * insecure (or insecure=1) verifies nothing, as curl's --insecure.
 */
struct redis_target {
    char host[256];
    int port;
    char path[256];   /* Unix socket; "" for TCP */
    char user[128];   /* "" = AUTH with the password only */
    char pass[256];   /* "" = no AUTH */
    int db;           /* 0 = the default database (no SELECT) */
    int tls;          /* rediss:// */
    char cacert[256]; /* rediss://...?cacert=PATH; "" = the system's CAs */
    int insecure;     /* rediss://...?insecure: no verification */
};

/* 0, or -1 with a one-line "problem (fix)" in err; err never holds the password. */
int redis_target_parse(const char *target, struct redis_target *t, char *err);
/* The driver class's parse and free_parsed: a struct redis_target of its own, or NULL and err. */
void *redis_target_new(const char *target, char *err);
void redis_target_delete(void *t);
/* A newly xmalloc'ed copy of target with the password replaced by "***". */
char *redis_mask_target(const char *target);
/* "127.0.0.1:6379" or the socket path, for messages. */
void redis_target_where(const struct redis_target *t, char *out, size_t len);
struct drv_tls;
/*
 * Blocking connect for the main thread and the collector: the TLS handshake
 * for rediss:// (redis/tls.h), AUTH and SELECT when the target asks, then
 * PING, each within timeout_ms. A server that is not Redis (memcached,
 * PostgreSQL) gets a message that says so. 0 with *out connected (the
 * caller redisFree()s it) and, when tls is not NULL, whether and how the
 * connection is encrypted; or -1 with a one-line "problem (fix)" in err.
 */
int redis_connect_blocking(const struct redis_target *t, int timeout_ms, redisContext **out,
                           struct drv_tls *tls, char *err);

/* --- replies with caps (redis/reply.c) --- */

/*
 * The most one reply may hold: objects (an array's header counts its
 * elements, refused before hiredis allocates them) and bytes not yet
 * parsed (a bulk string arriving). Past either the context is in error
 * ("a reply of more than ...") and must be freed. The load driver, which
 * allocates nothing per reply, checks RD_REPLY_BYTES alone.
 */
/*
 * RD_REPLY_BYTES, the load's, is above --value-size's largest (64 MiB): any
 * value benchtop sets, it reads. The blocking connections' replies (INFO,
 * CLIENT LIST, SCAN) stop at RD_REPLY_BYTES_BLOCKING: hiredis grows its
 * buffer a MiB at a time, so a reply of n MiB costs n^2/2 MiB of copying.
 */
enum { RD_REPLY_OBJECTS = 1000000, RD_REPLY_BYTES = 65 << 20, RD_REPLY_BYTES_BLOCKING = 16 << 20 };
/* redisGetReply with the caps: REDIS_OK with *out, or REDIS_ERR (c->errstr says why). */
int redis_reply(redisContext *c, redisReply **out);
/* redisCommand and redisCommandArgv with the caps: the reply, or NULL (c->errstr says why). */
redisReply *redis_command(redisContext *c, const char *format, ...);
redisReply *redis_command_argv(redisContext *c, int argc, const char **argv, const size_t *lens);

/* --- parsers (redis/info.c): pure functions over reply text --- */

/* The INFO fields benchtop shows (named as in INFO). */
struct redis_info {
    char version[32];  /* redis_version */
    char role[32];     /* "master", "slave" (a replica); "" when INFO had no Replication */
    uint64_t uptime_s; /* uptime_in_seconds */
    uint64_t connected_clients;
    uint64_t blocked_clients;
    uint64_t used_memory;
    uint64_t used_memory_rss;
    uint64_t maxmemory;
    double mem_fragmentation_ratio;
    int loading; /* Persistence: 1 while loading a dump */
    int rdb_bgsave_in_progress;
    int aof_rewrite_in_progress;
    int aof_enabled;      /* the append-only file is on */
    uint64_t rdb_changes; /* rdb_changes_since_last_save: writes since the last dump */
    uint64_t total_connections_received;
    uint64_t total_commands_processed;
    uint64_t rejected_connections;
    uint64_t expired_keys;
    uint64_t evicted_keys;
    uint64_t keyspace_hits;
    uint64_t keyspace_misses;
    uint64_t latest_fork_usec;
    uint64_t total_forks; /* 6.2 on; 0 before */
    uint64_t process_id;  /* the server's pid on its own host */
    double used_cpu_sys;  /* seconds */
    double used_cpu_user;
    uint64_t keys;    /* Keyspace: keys= summed over the databases */
    uint64_t expires; /* Keyspace: expires= summed */
    unsigned have;    /* bit REDIS_HAVE_* for the fields older servers may lack */
};

enum {
    REDIS_HAVE_TOTAL_FORKS = 1u << 0,
    REDIS_HAVE_CPU = 1u << 1,
    REDIS_HAVE_FRAG = 1u << 2,
    REDIS_HAVE_CHANGES = 1u << 3,
};

/*
 * Parses an INFO reply (any sections, "\r\n" or "\n" lines). Every line is
 * "# Section", empty, or "key:value"; a known numeric field must hold a
 * number. 0, or -1 with err ("line 12: ...", "truncated ...", "not an INFO
 * reply ...") for anything else. Unknown fields are skipped.
 */
int redis_info_parse(const char *text, size_t len, struct redis_info *out, char *err);

#define REDIS_MAX_CMDSTATS 96

struct redis_cmdstat {
    char name[40]; /* "get", "client|setname" */
    uint64_t calls;
    uint64_t usec;
    uint64_t rejected_calls; /* 6.2 on */
    uint64_t failed_calls;   /* 6.2 on */
};

struct redis_cmdstats {
    int n;
    int dropped; /* commands past REDIS_MAX_CMDSTATS, not kept */
    struct redis_cmdstat cmd[REDIS_MAX_CMDSTATS];
};

/*
 * Parses INFO commandstats: "cmdstat_NAME:calls=N,usec=N,usec_per_call=F
 * [,rejected_calls=N,failed_calls=N]" lines. 0, or -1 with err.
 */
int redis_cmdstats_parse(const char *text, size_t len, struct redis_cmdstats *out, char *err);
/* The entry for name, or NULL. */
const struct redis_cmdstat *redis_cmdstat_find(const struct redis_cmdstats *cs, const char *name);

enum { REDIS_SLOWLOG_KEEP = 16 };

/* One SLOWLOG entry. */
struct redis_slow_entry {
    long long id;
    long long usec;
    char what[40];   /* the command and its first arguments, as sent (not escaped) */
    char client[48]; /* "127.0.0.1:5123" (4.0 on); "" */
    int ours;        /* from one of benchtop's connections (set by the sampler) */
};

/* The newest SLOWLOG entries (SLOWLOG GET REDIS_SLOWLOG_KEEP), newest first. */
struct redis_slowlog {
    long long last_id;   /* -1: the log is empty */
    long long last_usec; /* how long that command took */
    char last_cmd[32];   /* its command name */
    int n;
    struct redis_slow_entry e[REDIS_SLOWLOG_KEEP];
};

/* Reads a SLOWLOG GET reply tree (as hiredis returns it). 0, or -1 with err. */
int redis_slowlog_parse(const redisReply *r, struct redis_slowlog *out, char *err);

/* --- the collector's raw sample (redis/collector.c) --- */

/*
 * Commands each sample sends (INFO, INFO commandstats, SLOWLOG LEN, SLOWLOG
 * GET 16, CONFIG GET io-threads).
 */
#define REDIS_SAMPLE_COMMANDS 5
/* Commands each settings read sends after a sample (one CONFIG GET; redis/settings.c). */
#define REDIS_SETTINGS_COMMANDS 1

/*
 * A cluster's masters as the collector follows them (redis/nodes.c): NULL
 * from rd_nodes_open when ctx's server is not a cluster node (or its map
 * cannot be read: the target alone is sampled). A connection each, as t's
 * (password, TLS); a master that stops answering is marked and tried
 * again at the next sample.
 */
struct rd_nodes;
struct redis_sample;
struct rd_nodes *rd_nodes_open(redisContext *ctx, const struct redis_target *t);
/* Reads every master's INFO (one pipelined round) into s->nodes. */
void rd_nodes_sample(struct rd_nodes *n, struct redis_sample *s);
void rd_nodes_close(struct rd_nodes *n);
struct coll_view;
/*
 * Pure: the whole cluster's commands a second, the masters' own less what
 * the collector sent; NAN when any master's is not known.
 */
double rd_nodes_commands(const struct redis_sample *p, const struct redis_sample *c, double secs);
/*
 * Pure: a row per master (commands/s, CPU) and the busiest named, whose
 * CPU becomes the server's (a master runs its commands on one thread: the
 * cluster is as fast as its busiest).
 */
void rd_nodes_rows(const struct redis_sample *p, const struct redis_sample *c, double secs,
                   struct coll_view *v);

struct coll_settings;
/* The collector class's read_settings; *all starts 0 and becomes 1 on servers before 7. */
int redis_settings_read(redisContext *ctx, int *all, struct coll_settings *out, char *err);
/* The collector class's apply_setting: CONFIG SET (in memory; the config file is not rewritten). */
int redis_settings_apply(redisContext *ctx, const char *name, const char *value, char *err);
/* The collector class's undo_value: CONFIG GET of one exact name, whole (a new string). */
char *redis_settings_undo_value(redisContext *ctx, const char *name, char *err);
/* try_lock (a key with a TTL; a cluster node refused), try_unlock, identity (run_id). */
int redis_settings_try_lock(redisContext *ctx, int cluster, const char *token, int renew,
                            char *holder, size_t len, char *err);
void redis_settings_try_unlock(redisContext *ctx, const char *token);
int redis_settings_identity(redisContext *ctx, char *buf, size_t len, char *err);

/* --- benchtop inspect (redis/inspect.c) --- */

struct inspect_conf;
/* The collector class's inspect: keys by type, size, prefix, TTL, heat. 0, or -1 with err. */
struct target;
int redis_inspect(const struct target *target, const struct inspect_conf *ic, char *err);

/* --- the top statements (redis/statements.c): INFO commandstats --- */

struct coll_statements;
/* INFO commandstats read and turned into out. 0, or -1 with err. */
int redis_statements_read(redisContext *ctx, struct coll_statements *out, char *err);

/* --- the sessions list (redis/sessions.c) --- */

struct coll_sessions;
/* Pure: a CLIENT LIST reply into out; own_id is the collector's CLIENT ID (marked own). */
void redis_client_list_parse(const char *text, const char *own_id, struct coll_sessions *out);
/* CLIENT ID and CLIENT LIST in one round trip into out. 0, or -1 with err. */
int redis_sessions_read(redisContext *ctx, struct coll_sessions *out, char *err);
/* CLIENT KILL ID id (terminate 1; a cancel is refused: Redis has none). 0, or -1 with err. */
int redis_sessions_kill(redisContext *ctx, const char *id, int terminate, char *err);

/* A cluster master's INFO, read by the collector beside the target's own (redis/nodes.c). */
struct redis_node_sample {
    char addr[64]; /* host:port as CLUSTER SLOTS names it */
    int ok;        /* its INFO was read this sample */
    struct redis_info info;
};

struct redis_sample {
    struct redis_info info;
    int nnodes; /* a cluster's masters, each sampled; 0 for a standalone server */
    struct redis_node_sample nodes[REDIS_CLUSTER_MAX_NODES];
    struct redis_cmdstats cmds;
    long long slowlog_len; /* -1: SLOWLOG not allowed */
    struct redis_slowlog slowlog;
    char refused[128];        /* the first command the server refused (ACL), "" if none */
    char config_refused[128]; /* CONFIG GET's error (an ACL's -config, a renamed CONFIG); "" */
    double rtt_ms;            /* the sample's round trip (small replies: close to the network's) */
    char appendfsync[12]; /* with the AOF on: CONFIG GET appendfsync ("always"...); "" unknown */
    int io_threads;       /* CONFIG GET io-threads (the main thread counts); 0 unknown */
    int cores;            /* the collector's host's cores */
    int ntasks;           /* the server's threads, when it runs on this host; -1 when not */
    struct cpu_task tasks[32];
};

/* --- -f scripts (redis/script.c) --- */

/* The variables a script has without \set: client_id, keys (--keys). */
extern const char *const redis_script_predef[];

/*
 * Raises *line to the longest text a command of s renders to and *request
 * to the most RESP bytes one run of s writes. 0, or -1 with "NAME:LINE:
 * problem" in err (a script with no command, too many references).
 */
int redis_script_longest(const struct script *s, size_t *line, size_t *request, char *err);

/* Asks the server (blocking) whether it knows each command's name; "NAME:LINE: unknown ..." */
int redis_script_check(redisContext *ctx, const struct script *s, char *err);

/* line's words (split at spaces and tabs) as one RESP command at out; returns its length. */
size_t redis_script_resp(const char *line, size_t len, char *out);

/*
 * One run of s: its \set lines evaluated into vars, its commands written as
 * RESP at out (room from redis_script_longest), line a scratch buffer of
 * line_cap bytes. Returns the bytes written and the commands in *ncmds, or
 * -1 with err (an expression's error). Never allocates.
 */
long redis_script_render(const struct script *s, int64_t *vars, struct rng *rng, char *line,
                         size_t line_cap, char *out, int *ncmds, char *err);

/* --- Redis Cluster, pure (redis/cluster.c) --- */

/* CRC16 XMODEM (poly 0x1021, init 0): "123456789" gives 0x31C3. */
uint16_t redis_crc16(const char *buf, size_t len);
/*
 * The key's slot, 0..16383: CRC16 of the text between the first '{' and
 * the next '}' when that is not empty, else of the whole key ("foo": 12182).
 */
int redis_key_slot(const char *key, size_t len);
/* 1 when an INFO (or INFO cluster) reply holds "cluster_enabled:1", else 0. */
int redis_info_cluster_enabled(const char *text, size_t len);

/* Which master serves each slot. */
struct redis_slot_map {
    int nnodes;
    struct {
        char host[256];
        int port;
    } node[REDIS_CLUSTER_MAX_NODES];
    int16_t slot[REDIS_SLOTS]; /* an index into node[] */
};

/*
 * Reads a CLUSTER SLOTS reply tree into m (masters only; replicas are
 * skipped). 0, or -1 with a one-line err (256 bytes) when the reply is
 * malformed, names more than REDIS_CLUSTER_MAX_NODES masters, or leaves a
 * slot without a master.
 */
int redis_slot_map_parse(const redisReply *r, struct redis_slot_map *m, char *err);

/* A redirection: "MOVED 3999 127.0.0.1:6381" or "ASK 3999 127.0.0.1:6381". */
struct redis_redirect {
    int ask; /* 1: ASK (once, after ASKING); 0: MOVED (refresh the map) */
    int slot;
    char host[256];
    int port;
};

/* Reads an error reply's text; 0, or -1 when it is not a MOVED or ASK. */
int redis_redirect_parse(const char *text, size_t len, struct redis_redirect *out);

/*
 * One command's RESP at p (len bytes, as redis_script_resp writes it): its
 * length, and in *key the key it is routed by (NULL when it has none):
 * for EVAL, EVALSHA, FCALL and their _RO forms the first of their numkeys
 * keys (none when numkeys is 0), for any other command its first argument.
 * 0 when p does not start with a whole command.
 */
size_t redis_resp_route(const char *p, size_t len, const char **key, size_t *klen);

/* The slots one master serves, as a bitmap: what a client pinned to it may draw. */
struct redis_slot_set {
    uint64_t bit[REDIS_SLOTS / 64];
};

/* The slots m gives to node into out. */
void redis_slot_set_of(const struct redis_slot_map *m, int node, struct redis_slot_set *out);

static inline int
redis_slot_set_has(const struct redis_slot_set *s, int slot)
{
    return (int)(s->bit[slot >> 6] >> (slot & 63)) & 1;
}

/*
 * Drawing a key for a client pinned to one master: keys are drawn as the
 * key space's pattern draws them, and redrawn until the key's slot is the
 * master's, REDIS_DRAW_TRIES times at most (with 3 masters all of them
 * miss once in 10^11); then the keys after the last one drawn are tried in
 * turn, REDIS_DRAW_SCAN of them at most.
 */
enum { REDIS_DRAW_TRIES = 64, REDIS_DRAW_SCAN = 1 << 16 };

struct kv_workload;
/*
 * key holds a key's text: prefix_len bytes of prefix, then digits digits,
 * which this writes. The key drawn (kv_next_key: w's pattern, *seq, rng)
 * whose slot is in own; its digits are in key. Returns -1 when no key was
 * found within the bounds (key then holds the last tried).
 */
int64_t redis_draw_key(const struct kv_workload *w, uint64_t *seq, struct rng *rng,
                       const struct redis_slot_set *own, char *key, size_t prefix_len, int digits);
/*
 * The first of keys 0 .. keys-1 (at most REDIS_DRAW_SCAN * 16 of them) whose
 * slot is in own, its digits left in key as above; -1 when none is.
 */
int64_t redis_first_key(uint64_t keys, const struct redis_slot_set *own, char *key,
                        size_t prefix_len, int digits);

/* --- throwaway servers (redis/server.c, redis/cluster-server.c) --- */

/*
 * What makes a redis-server throwaway, alone or a cluster's node: on
 * loopback, its files in dir, nothing saved (no RDB, no AOF), in the
 * foreground, logging to stdout (the spawn's log file). Put in argv from
 * argv[n] on (the caller ends it); returns the new count.
 */
int redis_throwaway_args(const char *dir, char **argv, int n);

/* --- the load driver's state, shared by its files (redis/driver.c, route.c, failover.c) --- */

#define RD_DEFAULT_PORT 6379
#define RD_KEY_DIGITS 12 /* key:000000000042, as redis-benchmark -r writes them */
#define RD_CONNECT_TIMEOUT_MS 5000
#define RD_READ_CHUNK 16384
#define RD_OBUF_START (1u << 20)
#define RD_FILL_BATCH 1000
#define RD_FILL_BATCH_BYTES (4u << 20)

enum rd_workload { RD_WL_GET, RD_WL_SET, RD_WL_INCR, RD_WL_MIXED };
enum rd_op { OP_GET, OP_SET, OP_INCR, OP_FILL, OP__COUNT };

/* Where a connection is. */
enum rd_step {
    STEP_CONNECTING, /* waiting for the TCP (or Unix) connect to finish */
    STEP_TLS,        /* rediss://: the TLS handshake */
    STEP_HANDSHAKE,  /* AUTH / SELECT sent, waiting for their replies */
    STEP_MAP,        /* a cluster's client asking another master: CLUSTER SLOTS sent */
    STEP_READY,      /* requests flow */
};

/* A request formatted once; only its RD_KEY_DIGITS key digits (at key_at) change. */
struct rd_cmd {
    char *buf;
    size_t len;
    size_t key_at;
    size_t key_len; /* the whole key, its prefix and digits (a cluster's key slot) */
};

struct rd_shared {
    struct redis_target t;
    char where[300];
    enum rd_workload workload;
    struct kv_workload kv; /* keys, their pattern, the mix, the value */
    struct rd_cmd cmd[OP__COUNT];
    size_t longest; /* longest request, for the output buffers */
    int depth;      /* --pipeline */
    char *hs;       /* AUTH and SELECT, formatted once */
    size_t hs_len;
    int hs_count;
    redisReplyObjectFunctions fns; /* the reader's allocation-free object functions */
    struct mix mix;                /* -b/-w built-ins and -f scripts (redis/script.c) */
    int first[MIX_MAX];            /* -r: a script's first command in stmt_id */
    int *stmt_id;                  /* -r: [first[e] + command] its label, -1 for \set */
    int op_label[MIX_MAX];         /* -r: a built-in's first request's label (mixed: GET, SET) */
    struct stmt_label *labels;
    int nlabels;
    size_t script_line;      /* a script command's longest text */
    size_t script_request;   /* the most RESP bytes one run of a script writes */
    struct rtls_ctx *tls;    /* rediss://: what every connection's session shares; NULL: plain */
    struct drv_tls tls_info; /* prepare's connection: the record's "tls" */
    /*
     * A Redis Cluster (NULL: a standalone server): the slot map prepare read,
     * its masters in the map's order; client c is pinned to master c mod
     * nnodes and draws only keys whose slot that master serves (own[node]).
     */
    struct redis_slot_map *map;
    struct redis_slot_set *own;
    int max_cmds;                             /* the most commands one transaction sends */
    char note[96];                            /* the summary's "cluster: ..." line */
    const redisReplyObjectFunctions *hiredis; /* hiredis's own: a CLUSTER SLOTS reply's tree */
    redisReplyObjectFunctions tree_fns;       /* ... through ours, which count its objects */
};

/* A cluster's CLUSTER SLOTS reply as a tree: objects past this break the connection. */
enum { RD_TREE_OBJECTS = 1 << 20 };

/*
 * A cluster's: one command of a transaction in flight, its bytes in the
 * transaction's req, and where it went: side[node], or the pinned master (-1).
 */
struct rd_part {
    uint32_t off, len;
    int node;
};

/* A transaction in flight: the replies it still waits for and, for -r, whose they are. */
struct rd_due {
    int left;
    int map;                /* cluster: its next reply is CLUSTER SLOTS's (the map refreshed) */
    int id;                 /* -r: the label of its next reply */
    const struct script *s; /* a script's: ... */
    int first, at;          /* ... its commands' place in stmt_id and the next reply's command */
    uint64_t sent_us;       /* -r: when it was queued */
    /* A cluster's: its commands (sent again after an ASK), the replies taken, an ASK followed. */
    char *req;
    struct rd_part *part;
    int nparts, got, redirected;
};

struct rd_conn {
    const struct rd_shared *sh;
    struct rng *rng;
    redisContext *ctx;
    struct rtls *tls; /* rediss://: the session on ctx's socket */
    void *session;    /* rediss://: the server's ticket, for a reconnect to resume */
    enum rd_step step;
    int hs_left; /* handshake replies still due */
    char *obuf;  /* requests queued; obuf[opos..olen) not sent yet */
    size_t olen, opos, ocap;
    uint64_t seq;       /* --key-pattern seq: the next key */
    struct rd_due *due; /* the transactions in flight, oldest at due_head, a ring of depth */
    int due_head, due_n;
    int64_t vars[SCRIPT_MAX_VARS]; /* a script's variables */
    char *line;                    /* a script command with its values */
    int unread;                    /* the last read filled its buffer: the socket may hold more */
    int rtype;                     /* REDIS_REPLY_* of the last complete reply */
    int too_large;                 /* a reply passed RD_REPLY_BYTES: the connection goes */
    char errmsg[256];              /* its text when it was an error */
    struct iovec siov;             /* a send queued in the worker's sendq (driver.h) */
    struct msghdr smsg;
    /* A cluster's: the master this client is pinned to, and the slots it serves (NULL: none). */
    int client_id;
    struct redis_slot_set *own;
    char host[256];
    int port;
    char where[300];  /* the pinned master, or the target: for messages */
    int stale;        /* a MOVED came: the next request refreshes the map first */
    int refreshing;   /* a CLUSTER SLOTS is in flight */
    redisReply *tree; /* its reply, read as a tree */
    size_t tree_objs; /* the objects of that tree so far */
    /*
     * A cluster's connections to the other masters (side[0..nnodes) in
     * prepare's map, side[nnodes] for a node an ASK names that the map has
     * not), each opened when a request first goes there. The oldest
     * transaction's next reply is awaited on side[away] (-1: on ctx), and
     * conn_fd is then that connection's: a detour, one request at a time.
     */
    struct rd_conn **side;
    int nside;
    int away;
    int away_ask;  /* the detour sends ASKING first */
    int away_left; /* its replies still due; 0: not sent yet */
    int is_side;   /* this is a side connection: it connects to host:port */
    int side_lost; /* the detour's connection was lost: its reply is errmsg, ERR_CONN */
    /*
     * A cluster's client whose master did not take its connect (refused,
     * or no answer within --stall-timeout): each connect first asks one
     * other master of prepare's map (ask_next's, in turn) for CLUSTER
     * SLOTS, on this connection, and pins the client to the master that
     * serves its slots now (a replica promoted); then connects there.
     */
    int unreached;
    int asking;       /* this connection is to the master asked, not to c's own */
    int asked;        /* this connect asked already: one question per connect */
    int ask_next;     /* prepare's master asked next */
    const char *peer; /* the host this connection's TLS verifies; NULL: the target's */
    char down[256];   /* why c's master was not reached */
};

extern const char *const redis_schemes[]; /* redis/target.c: the schemes the driver claims */

/* redis/driver.c: a load connection's I/O and connect steps, for route.c and failover.c. */
size_t rd_request_room(const struct rd_shared *sh);
void rd_conn_disconnect(void *conn);
void rd_conn_free(void *conn);
void rd_queue_bytes(struct rd_conn *c, const char *bytes, size_t n);
enum drv_status rd_next_reply(struct rd_conn *c, struct txn_result *res, char *msg, size_t msglen);
redisContext *rd_open_socket(struct rd_conn *c, const char *host, int port, char *err);
enum drv_status rd_switch_ctx(struct rd_conn *c, redisContext *ctx);
enum drv_status rd_connect_own(struct rd_conn *c, char *err);
enum drv_status rd_conn_connect_start(void *conn, char *err);
enum drv_status rd_conn_connect_poll(void *conn, char *err);

/* redis/route.c: a cluster: the map at prepare, each client pinned, MOVED/ASK, detours. */
int rd_detect_cluster(struct rd_shared *sh, redisContext **ctx, int *cluster, char *err);
void rd_fix_hosts(struct redis_slot_map *m, const struct redis_target *t);
int rd_load_cluster(struct rd_shared *sh, const struct runconf *rc, redisContext *ctx, char *err);
void rd_name_node(char *out, size_t len, const char *host, int port);
void rd_pin_master(struct rd_conn *c, const struct redis_slot_map *m, int node);
int rd_choose_master(const struct rd_conn *c, const struct redis_slot_map *m);
void rd_cluster_conn(struct rd_conn *c);
void rd_route_script(struct rd_conn *c, struct rd_due *d, size_t len);
int rd_queue_refresh(struct rd_conn *c);
enum err_kind rd_error_kind(struct rd_conn *c);
int rd_take_map(struct rd_conn *c, struct txn_result *res);
int rd_follow_ask(struct rd_conn *c, struct rd_due *d);
enum drv_status rd_detour_poll(struct rd_conn *c, const struct rd_due *d);

/* redis/failover.c: a client whose master is gone asks another master for the map. */
enum drv_status rd_ask_none(struct rd_conn *c, char *err);
enum drv_status rd_ask_map(struct rd_conn *c, char *err);
enum drv_status rd_unreached(struct rd_conn *c, char *err);
enum drv_status rd_poll_map(struct rd_conn *c, char *err);

#endif
