/*
 * redis/collector: the server-side view of a Redis target.
 *
 * sample() sends INFO, INFO commandstats, SLOWLOG LEN and SLOWLOG GET 1 in
 * one round trip on the collector's own connection and parses the replies
 * (redis/info.c) into a struct redis_sample. derive() is pure: counters
 * become rates over the interval, gauges are shown as they are, and the
 * collector's own commands (REDIS_SAMPLE_COMMANDS per sample) are taken out
 * of the command rates, so watching an idle server shows 0 commands/s.
 *
 * Redis CPU is used_cpu_user + used_cpu_sys per second of wall time: 100%
 * is one core, which is where Redis's single main thread tops out.
 */
#include "redis.h"

#include "base/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/collector.h"
#include "engine/target.h"
#include "base/text.h"
#include "base/util.h"

#define RC_TIMEOUT_MS 2000
#define RC_TOP_COMMANDS 8
#define RC_CPU_WARN_PCT 90.0
#define RC_FRAG_WARN 1.5
#define RC_FRAG_MIN_RSS (64ull << 20) /* below this, fragmentation ratios mean little */

struct rd_coll {
    redisContext *ctx;
    char where[300];
    int config_all;         /* CONFIG GET takes one name only (before Redis 7) */
    int port;               /* the target's TCP port; 0 for a Unix socket */
    int local;              /* the server is a process of this host: 1, 0 not, -1 not known yet */
    long long seen_id;      /* the newest SLOWLOG entry already looked at */
    struct rd_nodes *nodes; /* a cluster's masters (redis/nodes.c); NULL: a standalone server */
};

static const char *const rd_coll_commands[REDIS_SAMPLE_COMMANDS] = {
    "INFO",
    "INFO commandstats",
    "SLOWLOG LEN",
    "SLOWLOG GET 16", /* REDIS_SLOWLOG_KEEP */
    "CONFIG GET io-threads",
};

/* ---- sampling (the collector's thread) ---- */

static void *
rd_coll_open(const struct target *target, char *err)
{
    const struct redis_target *t = target->parsed;
    redisContext *ctx;
    struct rd_coll *c;

    if (redis_connect_blocking(t, RC_TIMEOUT_MS, &ctx, NULL, err) < 0)
        return NULL;
    c = xcalloc(1, sizeof *c);
    c->ctx = ctx;
    c->port = t->path[0] ? 0 : t->port;
    c->local = -1;
    c->seen_id = -1;
    redis_target_where(t, c->where, sizeof c->where);
    c->nodes = rd_nodes_open(ctx, t);
    return c;
}

static void
rd_coll_close(void *conn)
{
    struct rd_coll *c = conn;

    redisFree(c->ctx);
    rd_nodes_close(c->nodes);
    free(c);
}

/* A command the server refused (an ACL without +info, say): noted, not a failure. */
static void
note_refused(struct redis_sample *s, int i, const redisReply *r)
{
    if (s->refused[0] == '\0')
        snprintf(s->refused, sizeof s->refused, "%s: %.100s", rd_coll_commands[i], r->str);
}

static int
take_text(const redisReply *r, int i, struct redis_sample *s, char *err)
{
    char why[BT_ERRLEN];
    int rv;

    if (r->type == REDIS_REPLY_ERROR) {
        note_refused(s, i, r);
        return 0;
    }
    if (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_STATUS)
        return seterr(err, "%s: the reply is not text", rd_coll_commands[i]);
    rv = i == 0 ? redis_info_parse(r->str, r->len, &s->info, why)
                : redis_cmdstats_parse(r->str, r->len, &s->cmds, why);
    return rv < 0 ? seterr(err, "%s", why) : 0;
}

static int
take_replies(redisReply *const *r, struct redis_sample *s, char *err)
{
    char why[BT_ERRLEN];

    if (take_text(r[0], 0, s, err) < 0 || take_text(r[1], 1, s, err) < 0)
        return -1;
    s->slowlog_len = -1;
    s->slowlog.last_id = -1;
    if (r[2]->type == REDIS_REPLY_INTEGER)
        s->slowlog_len = r[2]->integer;
    else if (r[2]->type == REDIS_REPLY_ERROR)
        note_refused(s, 2, r[2]);
    if (r[3]->type == REDIS_REPLY_ERROR)
        note_refused(s, 3, r[3]);
    else if (redis_slowlog_parse(r[3], &s->slowlog, why) < 0)
        return seterr(err, "%s", why);
    if (r[4]->type == REDIS_REPLY_ERROR) /* the settings and CONFIG's figures go unseen */
        snprintf(s->config_refused, sizeof s->config_refused, "%.120s", r[4]->str);
    /* [name, value]; an empty array before Redis 6, which has no I/O threads */
    if (r[4]->type == REDIS_REPLY_ARRAY && r[4]->elements == 2 &&
        r[4]->element[1]->type == REDIS_REPLY_STRING)
        s->io_threads = atoi(r[4]->element[1]->str);
    return 0;
}

/*
 * Which new SLOWLOG entries came from benchtop's own connections: their
 * client address's port is one of this process's connections to the
 * server (a TCP target on this host; over a Unix socket none is told).
 */
static void
mark_own_entries(struct rd_coll *c, struct redis_slowlog *sl)
{
    int ports[256], n, i, j;
    char tail[16];

    if (sl->n == 0 || sl->last_id <= c->seen_id || c->port == 0)
        return;
    c->seen_id = sl->last_id;
    n = cpu_own_ports(c->port, ports, 256);
    for (i = 0; i < sl->n; i++)
        for (j = 0; j < n && !sl->e[i].ours; j++) {
            snprintf(tail, sizeof tail, ":%d", ports[j]);
            sl->e[i].ours =
                strlen(sl->e[i].client) > strlen(tail) &&
                strcmp(sl->e[i].client + strlen(sl->e[i].client) - strlen(tail), tail) == 0;
        }
}

/* The server's threads, when it is a process of this host (its pid listens on the port). */
static void
sample_threads(struct rd_coll *c, struct redis_sample *s)
{
    s->cores = cpu_cores();
    s->ntasks = -1;
    if (c->local < 0 && s->info.process_id > 0)
        c->local = c->port > 0 && cpu_port_owner(c->port) == (pid_t)s->info.process_id;
    if (c->local == 1)
        s->ntasks = cpu_tasks_read((pid_t)s->info.process_id, s->tasks,
                                   (int)(sizeof s->tasks / sizeof s->tasks[0]));
}

/* With the AOF on, how often it is synced (one more round trip; "" if CONFIG is refused). */
static void
sample_appendfsync(struct rd_coll *c, struct redis_sample *s)
{
    redisReply *r;

    s->appendfsync[0] = '\0';
    if (!s->info.aof_enabled || s->config_refused[0] != '\0' ||
        (r = redis_command(c->ctx, "CONFIG GET appendfsync")) == NULL)
        return;
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
        r->element[1]->type == REDIS_REPLY_STRING)
        snprintf(s->appendfsync, sizeof s->appendfsync, "%s", r->element[1]->str);
    freeReplyObject(r);
}

static int
rd_coll_sample(void *conn, void *out, char *err)
{
    struct rd_coll *c = conn;
    redisReply *r[REDIS_SAMPLE_COMMANDS] = {NULL};
    int i, n = 0, rv = 0;
    uint64_t t0 = now_us();

    /* One round trip: all four are queued before the first reply is read. */
    for (i = 0; i < REDIS_SAMPLE_COMMANDS; i++)
        redisAppendCommand(c->ctx, rd_coll_commands[i]);
    for (n = 0; n < REDIS_SAMPLE_COMMANDS; n++)
        if (redis_reply(c->ctx, &r[n]) != REDIS_OK)
            break;
    if (n < REDIS_SAMPLE_COMMANDS)
        rv = seterr(err, "lost the connection to redis at %s: %s", c->where, c->ctx->errstr);
    else
        rv = take_replies(r, out, err);
    ((struct redis_sample *)out)->rtt_ms = (double)(now_us() - t0) / 1000.0;
    for (i = 0; i < n; i++)
        freeReplyObject(r[i]);
    if (rv == 0) {
        sample_appendfsync(c, out);
        mark_own_entries(c, &((struct redis_sample *)out)->slowlog);
        sample_threads(c, out);
        ((struct redis_sample *)out)->nnodes = 0;
        if (c->nodes != NULL)
            rd_nodes_sample(c->nodes, out);
    }
    return rv;
}

/* ---- derive (pure) ---- */

static void
fmt_rate(char *buf, size_t len, double r)
{
    if (isnan(r))
        snprintf(buf, len, "-");
    else if (r > 0 && r < 0.05) /* a few in a long interval: never shown as 0.0/s */
        snprintf(buf, len, "%.2g/s", r);
    else
        snprintf(buf, len, r >= 100 ? "%.0f/s" : "%.1f/s", r);
}

static void
add_rate(struct coll_view *v, const char *section, const char *label, double r, enum row_level busy)
{
    char buf[32];

    fmt_rate(buf, sizeof buf, r);
    coll_row_add(v, section, label, r, isnan(r) ? ROW_DIM : r > 0 ? busy : ROW_NORMAL, "%s", buf);
}

static void
add_bytes(struct coll_view *v, const char *section, const char *label, uint64_t n)
{
    char buf[32];

    units_iec(buf, sizeof buf, (double)n, "");
    coll_row_add(v, section, label, (double)n, ROW_NORMAL, "%s", buf);
}

/* Calls the collector itself makes per sample, by commandstats name (6.x and 7.x names). */
static uint64_t
own_calls(const char *name)
{
    if (strcmp(name, "info") == 0 || strcmp(name, "slowlog") == 0)
        return 2;
    if (strcmp(name, "slowlog|len") == 0 || strcmp(name, "slowlog|get") == 0)
        return 1;
    if (strcmp(name, "config") == 0 || strcmp(name, "config|get") == 0)
        return REDIS_SETTINGS_COMMANDS + 1; /* and the sample's CONFIG GET io-threads */
    return 0;
}

static void
derive_throughput(const struct redis_sample *p, const struct redis_sample *c, double secs,
                  struct coll_view *v)
{
    double cmds = units_rate(p ? p->info.total_commands_processed : 0,
                             c->info.total_commands_processed, p != NULL, secs);

    if (!isnan(cmds)) {
        cmds -= (REDIS_SAMPLE_COMMANDS + REDIS_SETTINGS_COMMANDS) / secs;
        cmds = cmds < 0 ? 0 : cmds;
    }
    if (c->nnodes > 0) /* a cluster: every master's */
        cmds = rd_nodes_commands(p, c, secs);
    v->server_tps = cmds;
    add_rate(v, "throughput", "commands", cmds, ROW_NORMAL);
}

static void
derive_clients(const struct redis_sample *p, const struct redis_sample *c, double secs,
               struct coll_view *v)
{
    const struct redis_info *i = &c->info;

    coll_row_add(v, "clients", "connected", (double)i->connected_clients, ROW_NORMAL, "%llu",
                 (unsigned long long)i->connected_clients);
    /* the clients' connections, less the collector's own (CLIENT LIST's, redis-cli --stat's less 1)
     */
    v->sig.sessions = i->connected_clients > 0 ? (double)i->connected_clients - 1 : 0;
    coll_row_add(v, "clients", "blocked", (double)i->blocked_clients,
                 i->blocked_clients ? ROW_WARN : ROW_NORMAL, "%llu",
                 (unsigned long long)i->blocked_clients);
    add_rate(
        v, "clients", "rejected conns",
        units_rate(p ? p->info.rejected_connections : 0, i->rejected_connections, p != NULL, secs),
        ROW_BAD);
    add_rate(v, "clients", "new conns",
             units_rate(p ? p->info.total_connections_received : 0, i->total_connections_received,
                        p != NULL, secs),
             ROW_NORMAL);
}

/* "7.9 MiB of 8.0 MiB (99%)": maxmemory set, the limit a cache evicts (or refuses writes) at. */
static void
used_of_limit(struct coll_view *v, const struct redis_info *i)
{
    char used[16], limit[16];
    double pct = 100.0 * (double)i->used_memory / (double)i->maxmemory;

    units_iec(used, sizeof used, (double)i->used_memory, "");
    units_iec(limit, sizeof limit, (double)i->maxmemory, "");
    v->sig.mem_limit = (double)i->maxmemory;
    snprintf(v->sig.mem_limit_setting, sizeof v->sig.mem_limit_setting, "maxmemory");
    coll_row_add(v, "memory", "used", (double)i->used_memory, pct >= 90 ? ROW_WARN : ROW_NORMAL,
                 "%s of %s (%.0f%%)", used, limit, pct);
}

static void
derive_memory(const struct redis_sample *c, struct coll_view *v)
{
    const struct redis_info *i = &c->info;
    int frag_warn =
        i->mem_fragmentation_ratio > RC_FRAG_WARN && i->used_memory_rss > RC_FRAG_MIN_RSS;

    v->sig.mem_used = (double)i->used_memory;
    if (i->maxmemory > 0) {
        used_of_limit(v, i);
    } else {
        add_bytes(v, "memory", "used", i->used_memory);
    }
    add_bytes(v, "memory", "rss", i->used_memory_rss);
    if (i->have & REDIS_HAVE_FRAG)
        coll_row_add(v, "memory", "fragmentation", i->mem_fragmentation_ratio,
                     frag_warn ? ROW_WARN : ROW_NORMAL, "%.2f", i->mem_fragmentation_ratio);
    else
        coll_row_add(v, "memory", "fragmentation", NAN, ROW_DIM, "-");
}

static void
derive_hit_ratio(const struct redis_sample *p, const struct redis_sample *c, struct coll_view *v)
{
    uint64_t hits, misses;
    double pct;

    if (p == NULL || c->info.keyspace_hits < p->info.keyspace_hits ||
        c->info.keyspace_misses < p->info.keyspace_misses ||
        c->info.keyspace_hits + c->info.keyspace_misses ==
            p->info.keyspace_hits + p->info.keyspace_misses) {
        coll_row_add(v, "keyspace", "hit ratio", NAN, ROW_DIM, "-");
        return;
    }
    hits = c->info.keyspace_hits - p->info.keyspace_hits;
    misses = c->info.keyspace_misses - p->info.keyspace_misses;
    pct = 100.0 * (double)hits / (double)(hits + misses);
    v->sig.hit_ratio = pct / 100;
    coll_row_add(v, "keyspace", "hit ratio", pct, pct >= 90 ? ROW_GOOD : ROW_NORMAL, "%.1f%%", pct);
}

static void
derive_keyspace(const struct redis_sample *p, const struct redis_sample *c, double secs,
                struct coll_view *v)
{
    const struct redis_info *i = &c->info, *pi = p ? &p->info : NULL;

    coll_row_add(v, "keyspace", "keys", (double)i->keys, ROW_NORMAL, "%llu",
                 (unsigned long long)i->keys);
    v->sig.keys = (double)i->keys;
    add_rate(v, "keyspace", "hits",
             units_rate(pi ? pi->keyspace_hits : 0, i->keyspace_hits, p != NULL, secs), ROW_NORMAL);
    add_rate(v, "keyspace", "misses",
             units_rate(pi ? pi->keyspace_misses : 0, i->keyspace_misses, p != NULL, secs),
             ROW_NORMAL);
    derive_hit_ratio(p, c, v);
    add_rate(v, "keyspace", "expired",
             units_rate(pi ? pi->expired_keys : 0, i->expired_keys, p != NULL, secs), ROW_NORMAL);
    v->sig.evictions_s = units_rate(pi ? pi->evicted_keys : 0, i->evicted_keys, p != NULL, secs);
    add_rate(v, "keyspace", "evicted", v->sig.evictions_s, ROW_WARN);
}

static void
derive_cpu(const struct redis_sample *p, const struct redis_sample *c, double secs,
           struct coll_view *v)
{
    double now = c->info.used_cpu_user + c->info.used_cpu_sys, pct;

    if (p == NULL || !(c->info.have & REDIS_HAVE_CPU) || secs <= 0 ||
        now < p->info.used_cpu_user + p->info.used_cpu_sys) {
        coll_row_add(v, "cpu", "redis cpu", NAN, ROW_DIM, "-");
        return;
    }
    pct = 100.0 * (now - p->info.used_cpu_user - p->info.used_cpu_sys) / secs;
    v->sig.server_cpu_pct = pct;
    v->sig.server_cpu_self_pct = pct; /* what it says of itself: true on any host */
    /* one main thread: a core is the ceiling; io-threads add theirs (they spin for work) */
    v->sig.server_cpu_limit = 100.0 * (c->io_threads > 1 ? c->io_threads : 1);
    coll_row_add(v, "cpu", "redis cpu", pct, pct >= RC_CPU_WARN_PCT ? ROW_WARN : ROW_NORMAL,
                 "%.0f%% of a core", pct);
}

/*
 * The main thread runs every command; io-threads (6.0 on) only read and
 * write the sockets. The busiest thread from /proc when the server runs
 * on this host.
 */
static void
derive_threads(const struct redis_sample *p, const struct redis_sample *c, double secs,
               struct coll_view *v)
{
    if (c->io_threads > 0)
        coll_threads(v, c->io_threads, "io-threads", p ? p->tasks : NULL, p ? p->ntasks : 0,
                     c->tasks, c->ntasks, secs);
    v->sig.threads_io_only = 1;
}

static const char *
persistence_state(const struct redis_info *i)
{
    if (i->loading)
        return "loading";
    if (i->rdb_bgsave_in_progress)
        return "rdb save";
    if (i->aof_rewrite_in_progress)
        return "aof rewrite";
    return "none";
}

static void
derive_persistence(const struct redis_sample *p, const struct redis_sample *c, struct coll_view *v)
{
    const struct redis_info *i = &c->info;
    const char *state = persistence_state(i);
    double ms = (double)i->latest_fork_usec / 1000.0;

    coll_row_add(v, "persistence", "in progress", NAN,
                 strcmp(state, "none") == 0 ? ROW_NORMAL : ROW_WARN, "%s", state);
    coll_row_add(v, "persistence", "latest fork", ms, ms >= 100 ? ROW_WARN : ROW_NORMAL,
                 i->latest_fork_usec ? "%.1f ms" : "none", ms);
    if (p != NULL && (i->have & REDIS_HAVE_TOTAL_FORKS) && i->total_forks > p->info.total_forks)
        coll_event_add(v, "fork took %.1f ms (%s)", ms, state);
}

/*
 * Other clients' slow commands since the last sample (DEBUG SLEEP, KEYS,
 * a long script): Redis runs one command at a time, so their time is time
 * every other client waited. The share of the interval, and the longest.
 */
static void
derive_stall(const struct redis_sample *p, const struct redis_sample *c, double secs,
             struct coll_view *v)
{
    const struct redis_slow_entry *worst = NULL;
    double usec = 0;
    char what[sizeof worst->what], client[sizeof worst->client], head[16];
    int at;

    if (p == NULL || !(secs > 0) || c->slowlog_len < 0)
        return;
    for (int i = 0; i < c->slowlog.n && c->slowlog.e[i].id > p->slowlog.last_id; i++) {
        const struct redis_slow_entry *e = &c->slowlog.e[i];
        if (e->ours)
            continue;
        usec += (double)e->usec;
        if (worst == NULL || e->usec > worst->usec)
            worst = e;
    }
    v->sig.other_stall_share = fmin(usec / 1e6 / secs, 1);
    if (worst == NULL)
        return;
    text_clean(what, sizeof what, worst->what);
    text_clean(client, sizeof client, worst->client);
    snprintf(v->sig.other_stall_what, sizeof v->sig.other_stall_what, "%.22s%s%.19s", what,
             client[0] ? " from " : "", client);
    at = snprintf(head, sizeof head, "%.0f%% (", 100 * v->sig.other_stall_share);
    coll_row_sql(coll_row_add(v, "slowlog", "others stalled", 100 * v->sig.other_stall_share,
                              ROW_WARN, "%s%s)", head, v->sig.other_stall_what),
                 (size_t)at);
}

/*
 * A save's fork blocks the main thread for the fork's time (latest_fork_usec,
 * each fork since the last sample), and every client waits through it: a
 * stall by the save, not by the load. Added to the slowlog's others' share.
 */
static void
derive_fork_stall(const struct redis_sample *p, const struct redis_sample *c, double secs,
                  struct coll_view *v)
{
    const struct redis_info *i = &c->info;
    double forks, share, was;

    if (p == NULL || !(secs > 0) || !(i->have & REDIS_HAVE_TOTAL_FORKS) ||
        i->total_forks <= p->info.total_forks)
        return;
    forks = (double)(i->total_forks - p->info.total_forks);
    share = forks * (double)i->latest_fork_usec / 1e6 / secs;
    was = isnan(v->sig.other_stall_share) ? 0 : v->sig.other_stall_share;
    v->sig.other_stall_share = fmin(was + share, 1);
    if (v->sig.other_stall_what[0] == '\0')
        snprintf(v->sig.other_stall_what, sizeof v->sig.other_stall_what,
                 "%.0f save fork%s of %.1f ms (%s)", forks, forks == 1 ? "" : "s",
                 (double)i->latest_fork_usec / 1000, persistence_state(i));
}

static void
derive_slowlog(const struct redis_sample *p, const struct redis_sample *c, double secs,
               struct coll_view *v)
{
    long long fresh = p && c->slowlog.last_id >= 0 ? c->slowlog.last_id - p->slowlog.last_id : 0;

    if (c->slowlog_len < 0) {
        coll_row_add(v, "slowlog", "entries", NAN, ROW_DIM, "-");
        coll_row_add(v, "slowlog", "new", NAN, ROW_DIM, "-");
        return;
    }
    coll_row_add(v, "slowlog", "entries", (double)c->slowlog_len, ROW_NORMAL, "%lld",
                 c->slowlog_len);
    add_rate(v, "slowlog", "new", p && fresh >= 0 ? (double)fresh / secs : NAN, ROW_WARN);
    if (fresh > 0)
        coll_event_add(v, "slowlog +%lld (latest: %s, %lld us)", fresh, c->slowlog.last_cmd,
                       c->slowlog.last_usec);
}

/* One command's rate over the interval, the collector's own calls taken out. */
struct cmd_rate {
    const struct redis_cmdstat *cur;
    double per_s;
    double usec_per_call;
    double busy; /* of a core: calls x time per call */
};

static int
by_rate(const void *a, const void *b)
{
    double x = ((const struct cmd_rate *)a)->per_s, y = ((const struct cmd_rate *)b)->per_s;

    return x < y ? 1 : x > y ? -1 : 0;
}

static int
command_rates(const struct redis_sample *p, const struct redis_sample *c, double secs,
              struct cmd_rate *out)
{
    int i, n = 0;

    for (i = 0; i < c->cmds.n; i++) {
        const struct redis_cmdstat *cs = &c->cmds.cmd[i];
        const struct redis_cmdstat *ps = redis_cmdstat_find(&p->cmds, cs->name);
        uint64_t calls = cs->calls - (ps ? ps->calls : 0), usec = cs->usec - (ps ? ps->usec : 0);
        uint64_t own = own_calls(cs->name);
        if ((ps && (cs->calls < ps->calls || cs->usec < ps->usec)) || calls <= own)
            continue;
        out[n].cur = cs;
        out[n].per_s = (double)(calls - own) / secs;
        out[n].usec_per_call = (double)usec / (double)calls;
        out[n].busy = (double)usec / 1e6 / secs;
        n++;
    }
    qsort(out, (size_t)n, sizeof *out, by_rate);
    return n;
}

/*
 * The command that takes most of the main thread's time: io-threads take
 * the reads and writes off it, not the commands (LRANGE of 10k elements
 * at 98% of the thread: io-threads 2 gave -25%).
 */
static void
command_busy(const struct cmd_rate *r, int n, struct coll_signals *g)
{
    const struct cmd_rate *top = NULL;

    for (int i = 0; i < n; i++)
        if (top == NULL || r[i].busy > top->busy)
            top = &r[i];
    if (top == NULL)
        return;
    g->cmd_top_busy = fmin(top->busy, 1);
    g->cmd_top_usec = top->usec_per_call;
    text_clean(g->cmd_top, sizeof g->cmd_top, top->cur->name);
}

static void
derive_commands(const struct redis_sample *p, const struct redis_sample *c, double secs,
                struct coll_view *v)
{
    struct cmd_rate rates[REDIS_MAX_CMDSTATS];
    char buf[32];
    int i, n;

    if (p == NULL || secs <= 0)
        return;
    n = command_rates(p, c, secs, rates);
    command_busy(rates, n, &v->sig);
    for (i = 0; i < n && i < RC_TOP_COMMANDS; i++) {
        fmt_rate(buf, sizeof buf, rates[i].per_s);
        coll_row_add(v, "commands", rates[i].cur->name, rates[i].per_s, ROW_NORMAL,
                     "%s %.2f us/call", buf, rates[i].usec_per_call);
    }
}

/* Counters went back: the server restarted (or CONFIG RESETSTAT) between the samples. */
static int
restarted(const struct redis_sample *p, const struct redis_sample *c)
{
    return c->info.uptime_s < p->info.uptime_s ||
           c->info.total_commands_processed < p->info.total_commands_processed;
}

/*
 * With appendfsync always, Redis syncs the AOF before it answers the
 * writes of each event-loop pass: every write waits for a sync (writes of
 * one pass share it). Writes are the changes since the last dump; a dump
 * resets that count, and then the interval says nothing.
 */
static void
derive_aof(const struct redis_sample *p, const struct redis_sample *c, double secs,
           struct coll_view *v)
{
    if (!c->info.aof_enabled || c->appendfsync[0] == '\0')
        return;
    if (strcmp(c->appendfsync, "no") != 0) /* the OS flushes the AOF: no sync on the write */
        snprintf(v->sig.commit_try, sizeof v->sig.commit_try, "appendfsync=no");
    coll_row_add(v, "persistence", "appendfsync", NAN,
                 strcmp(c->appendfsync, "always") == 0 ? ROW_WARN : ROW_NORMAL, "%s",
                 c->appendfsync);
    if (strcmp(c->appendfsync, "always") != 0 || p == NULL || secs <= 0 ||
        !(c->info.have & p->info.have & REDIS_HAVE_CHANGES) ||
        c->info.rdb_changes < p->info.rdb_changes)
        return;
    v->sig.commits_s = (double)(c->info.rdb_changes - p->info.rdb_changes) / secs;
    snprintf(v->sig.sync_each_commit, sizeof v->sig.sync_each_commit, "appendfsync always");
    snprintf(v->sig.commit_advice, sizeof v->sig.commit_advice,
             "appendfsync everysec (loses up to a second of writes on a crash)");
}

/*
 * Why CONFIG GET failed, in the terms a user acts on: a managed service
 * denies it by ACL (-config, -@dangerous) or renames it (rename-command).
 */
static const char *
config_why(const char *reply)
{
    if (strncmp(reply, "NOPERM", 6) == 0)
        return "denied to this user by its ACL (grant +config|get)";
    if (strstr(reply, "unknown command") != NULL)
        return "renamed or disabled on this server (rename-command)";
    return reply;
}

/* One line: the figures this user cannot see and why; else the commands left out. */
static void
derive_note(const struct redis_sample *c, struct coll_view *v)
{
    char config[200] = "";

    if (c->config_refused[0] != '\0')
        snprintf(config, sizeof config, "cannot see settings, io-threads, appendfsync: CONFIG %s",
                 config_why(c->config_refused));
    if (c->refused[0] != '\0')
        snprintf(v->note, sizeof v->note, "refused %.100s (grant the user +info and +slowlog)%s%s",
                 c->refused, config[0] ? "; " : "", config);
    else if (config[0] != '\0')
        snprintf(v->note, sizeof v->note, "%s", config);
    else if (c->cmds.dropped > 0)
        snprintf(v->note, sizeof v->note, "%d commands past the first %d not tracked",
                 c->cmds.dropped, REDIS_MAX_CMDSTATS);
}

static void
rd_coll_derive(const void *prevp, const void *curp, double secs, struct coll_view *v)
{
    const struct redis_sample *p = prevp, *c = curp;

    coll_view_reset(v);
    v->sig.rtt_ms = c->rtt_ms;
    if (p != NULL && restarted(p, c)) {
        coll_event_add(v, "counters went back: redis restarted (up %llu s)",
                       (unsigned long long)c->info.uptime_s);
        p = NULL; /* this interval has gauges only */
    }
    /* most telling first: a small pane shows the first rows (version and uptime come last) */
    derive_throughput(p, c, secs, v);
    derive_clients(p, c, secs, v);
    derive_memory(c, v);
    derive_keyspace(p, c, secs, v);
    derive_cpu(p, c, secs, v);
    rd_nodes_rows(p, c, secs, v); /* a cluster's masters; their busiest is the server's CPU */
    derive_threads(p, c, secs, v);
    derive_persistence(p, c, v);
    derive_aof(p, c, secs, v);
    derive_slowlog(p, c, secs, v);
    derive_stall(p, c, secs, v);
    derive_fork_stall(p, c, secs, v);
    derive_commands(p, c, secs, v);
    coll_row_add(v, "server", "version", NAN, ROW_NORMAL, "%s", c->info.version);
    coll_row_add(v, "server", "uptime", (double)c->info.uptime_s, ROW_NORMAL, "%llu s",
                 (unsigned long long)c->info.uptime_s);
    derive_note(c, v);
}

static int
rd_coll_settings(void *conn, struct coll_settings *out, char *err)
{
    struct rd_coll *c = conn;

    return redis_settings_read(c->ctx, &c->config_all, out, err);
}

static int
rd_coll_apply(void *conn, const char *name, const char *value, char *err)
{
    return redis_settings_apply(((struct rd_coll *)conn)->ctx, name, value, err);
}

static char *
rd_coll_undo_value(void *conn, const char *name, char *err)
{
    return redis_settings_undo_value(((struct rd_coll *)conn)->ctx, name, err);
}

static int
rd_coll_try_lock(void *conn, const char *token, int renew, char *holder, size_t len, char *err)
{
    struct rd_coll *c = conn;

    return redis_settings_try_lock(c->ctx, c->nodes != NULL, token, renew, holder, len, err);
}

static void
rd_coll_try_unlock(void *conn, const char *token)
{
    redis_settings_try_unlock(((struct rd_coll *)conn)->ctx, token);
}

static int
rd_coll_identity(void *conn, char *buf, size_t len, char *err)
{
    return redis_settings_identity(((struct rd_coll *)conn)->ctx, buf, len, err);
}

static int
rd_coll_sessions(void *conn, struct coll_sessions *out, char *err)
{
    return redis_sessions_read(((struct rd_coll *)conn)->ctx, out, err);
}

static int
rd_coll_kill(void *conn, const char *id, int terminate, char *err)
{
    return redis_sessions_kill(((struct rd_coll *)conn)->ctx, id, terminate, err);
}

static int
rd_coll_statements(void *conn, struct coll_statements *out, char *err)
{
    return redis_statements_read(((struct rd_coll *)conn)->ctx, out, err);
}

const struct collector_class redis_collector_class = {
    .name = "redis",
    .title = "Redis",
    .sample_size = sizeof(struct redis_sample),
    .open = rd_coll_open,
    .close = rd_coll_close,
    .sample = rd_coll_sample,
    .derive = rd_coll_derive,
    .read_settings = rd_coll_settings,
    .apply_setting = rd_coll_apply,
    .undo_value = rd_coll_undo_value,
    .try_lock = rd_coll_try_lock,
    .try_unlock = rd_coll_try_unlock,
    .try_lock_renew_s = 5,
    .identity = rd_coll_identity,
    .sessions = rd_coll_sessions,
    .kill = rd_coll_kill,
    .statements = rd_coll_statements,
    .inspect = redis_inspect,
};
