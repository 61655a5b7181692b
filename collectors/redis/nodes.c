/*
 * redis/nodes: the collector's view of a Redis Cluster. The target is one
 * node; the load spreads over every master (redis/route.c pins each
 * client to one), so the collector reads every master's INFO too: the
 * cluster's commands a second, keys and memory are their sums, and each
 * master is a row (commands/s, CPU, keys). Each master runs its commands on one thread, so the
 * busiest master's CPU is the server's CPU the verdict reads: a cluster
 * is as fast as its hottest node.
 *
 * The masters change: one killed whose replica took over, a CLUSTER
 * FAILOVER. A master that does not answer, or answers as a replica, is
 * shown so in that sample, and the map is read again (CLUSTER SLOTS, from
 * a master that answered): its masters are the ones sampled from the next
 * sample on, each connection kept whose master stays.
 *
 * rd_nodes_open/sample/close talk to the servers (the collector's
 * thread); rd_nodes_derive is pure.
 */
#include "redis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/collector.h"
#include "base/text.h"
#include "base/units.h"
#include "base/util.h"

#define RN_TIMEOUT_MS 2000
#define RN_CPU_WARN_PCT 90.0

struct rd_nodes {
    struct redis_target t; /* the target's: password and TLS for every master */
    int n;
    struct {
        char host[256];
        int port;
        char addr[64];
        redisContext *ctx; /* NULL: not connected (tried again at the next sample) */
    } node[REDIS_CLUSTER_MAX_NODES];
};

/* The map from ctx's server; 0, or -1 when it is no cluster node or the map is unreadable. */
static int
read_map(redisContext *ctx, struct redis_slot_map *m)
{
    char err[BT_ERRLEN];
    redisReply *r = redis_command(ctx, "INFO cluster");
    int on =
        r != NULL && r->type == REDIS_REPLY_STRING && redis_info_cluster_enabled(r->str, r->len);

    if (r != NULL)
        freeReplyObject(r);
    if (!on || (r = redis_command(ctx, "CLUSTER SLOTS")) == NULL)
        return -1;
    on = redis_slot_map_parse(r, m, err) == 0 && m->nnodes > 0;
    freeReplyObject(r);
    return on ? 0 : -1;
}

/* Master j of n is m's: its address, and the connection it had in was, if any (taken from old). */
static redisContext *
take_node(struct rd_nodes *n, const struct redis_slot_map *m, int j, redisContext **old,
          const struct rd_nodes *was)
{
    char clean[256];

    snprintf(n->node[j].host, sizeof n->node[j].host, "%s", m->node[j].host);
    n->node[j].port = m->node[j].port;
    text_clean(clean, sizeof clean, m->node[j].host); /* a server's text, shown */
    snprintf(n->node[j].addr, sizeof n->node[j].addr,
             strchr(clean, ':') ? "[%.40s]:%d" : "%.40s:%d", clean, m->node[j].port);
    for (int k = 0; was != NULL && k < was->n; k++)
        if (old[k] != NULL && was->node[k].port == m->node[j].port &&
            strcmp(was->node[k].host, m->node[j].host) == 0) {
            redisContext *c = old[k];

            old[k] = NULL;
            return c;
        }
    return NULL;
}

/* n's masters become m's; the connections of those that stay are kept, the others closed. */
static void
take_map(struct rd_nodes *n, const struct redis_slot_map *m)
{
    struct rd_nodes *was = xmalloc(sizeof *was);
    redisContext *old[REDIS_CLUSTER_MAX_NODES];

    memcpy(was, n, sizeof *was);
    for (int k = 0; k < was->n; k++)
        old[k] = was->node[k].ctx;
    n->n = m->nnodes;
    for (int j = 0; j < m->nnodes; j++)
        n->node[j].ctx = take_node(n, m, j, old, was);
    for (int k = 0; k < was->n; k++)
        if (old[k] != NULL)
            redisFree(old[k]);
    explicit_bzero(was, sizeof *was); /* the password */
    free(was);
}

struct rd_nodes *
rd_nodes_open(redisContext *ctx, const struct redis_target *t)
{
    struct redis_slot_map *m = xmalloc(sizeof *m);
    struct rd_nodes *n = NULL;

    if (read_map(ctx, m) == 0) {
        n = xcalloc(1, sizeof *n);
        n->t = *t;
        take_map(n, m);
    }
    free(m);
    return n;
}

void
rd_nodes_close(struct rd_nodes *n)
{
    if (n == NULL)
        return;
    for (int i = 0; i < n->n; i++)
        if (n->node[i].ctx != NULL)
            redisFree(n->node[i].ctx);
    explicit_bzero(&n->t, sizeof n->t); /* the password */
    free(n);
}

/* Master i's connection, opened if it has none; NULL when it cannot be. */
static redisContext *
node_ctx(struct rd_nodes *n, int i)
{
    struct redis_target t = n->t;
    char err[BT_ERRLEN];

    if (n->node[i].ctx != NULL)
        return n->node[i].ctx;
    snprintf(t.host, sizeof t.host, "%s", n->node[i].host);
    t.port = n->node[i].port;
    t.path[0] = '\0';
    if (redis_connect_blocking(&t, RN_TIMEOUT_MS, &n->node[i].ctx, NULL, err) < 0)
        n->node[i].ctx = NULL;
    explicit_bzero(&t, sizeof t);
    return n->node[i].ctx;
}

/* Reads master i's INFO reply into out; a lost connection is closed, to be opened again. */
static void
take_info(struct rd_nodes *n, int i, struct redis_node_sample *out)
{
    char why[BT_ERRLEN];
    redisReply *r = NULL;

    if (redis_reply(n->node[i].ctx, &r) != REDIS_OK || r == NULL) {
        redisFree(n->node[i].ctx);
        n->node[i].ctx = NULL;
        return;
    }
    out->ok =
        r->type == REDIS_REPLY_STRING && redis_info_parse(r->str, r->len, &out->info, why) == 0;
    freeReplyObject(r);
}

/* 1 when m's masters are n's, in n's order. */
static int
same_masters(const struct rd_nodes *n, const struct redis_slot_map *m)
{
    int same = m->nnodes == n->n;

    for (int i = 0; same && i < n->n; i++)
        same = m->node[i].port == n->node[i].port && strcmp(m->node[i].host, n->node[i].host) == 0;
    return same;
}

/*
 * After a sample in which a master did not answer or answered as a
 * replica: the map read again from the first master that answered as
 * one, and its masters taken when they changed.
 */
static void
follow_map(struct rd_nodes *n, const struct redis_sample *s)
{
    struct redis_slot_map *m;
    char err[BT_ERRLEN];
    redisReply *r;
    int asked = -1, changed = 0;

    for (int i = 0; i < n->n; i++) {
        int master = s->nodes[i].ok && strcmp(s->nodes[i].info.role, "slave") != 0;

        changed |= !master;
        if (master && asked < 0 && n->node[i].ctx != NULL)
            asked = i;
    }
    if (!changed || asked < 0 || (r = redis_command(n->node[asked].ctx, "CLUSTER SLOTS")) == NULL)
        return; /* a connection lost is opened again at the next sample */
    m = xmalloc(sizeof *m);
    if (redis_slot_map_parse(r, m, err) == 0 && m->nnodes > 0 && !same_masters(n, m))
        take_map(n, m);
    freeReplyObject(r);
    free(m);
}

void
rd_nodes_sample(struct rd_nodes *n, struct redis_sample *s)
{
    int i;

    s->nnodes = n->n;
    for (i = 0; i < n->n; i++) { /* every INFO sent before the first reply is read */
        memset(&s->nodes[i], 0, sizeof s->nodes[i]);
        snprintf(s->nodes[i].addr, sizeof s->nodes[i].addr, "%s", n->node[i].addr);
        if (node_ctx(n, i) != NULL && redisAppendCommand(n->node[i].ctx, "INFO") != REDIS_OK) {
            redisFree(n->node[i].ctx);
            n->node[i].ctx = NULL;
        }
    }
    for (i = 0; i < n->n; i++)
        if (n->node[i].ctx != NULL)
            take_info(n, i, &s->nodes[i]);
    follow_map(n, s);
}

/* ---- derive (pure) ---- */

/* Master i's commands a second (less the collector's INFO) and CPU %; NAN when not known. */
static void
node_rates(const struct redis_sample *p, const struct redis_sample *c, int i, double secs,
           double *cmds, double *cpu)
{
    const struct redis_node_sample *b = &c->nodes[i], *a = NULL;

    *cmds = *cpu = NAN;
    for (int k = 0; p != NULL && k < p->nnodes && a == NULL; k++) /* the masters may change */
        if (strcmp(p->nodes[k].addr, b->addr) == 0 && p->nodes[k].ok)
            a = &p->nodes[k];
    if (a == NULL || !b->ok || secs <= 0 ||
        b->info.total_commands_processed < a->info.total_commands_processed)
        return; /* no earlier reading, or the master restarted */
    *cmds = fmax(0, (double)(b->info.total_commands_processed - a->info.total_commands_processed) /
                            secs -
                        1 / secs);
    if (a->info.have & b->info.have & REDIS_HAVE_CPU) {
        double used = b->info.used_cpu_user + b->info.used_cpu_sys - a->info.used_cpu_user -
                      a->info.used_cpu_sys;
        *cpu = used >= 0 ? 100 * used / secs : NAN;
    }
}

/* "41.2k/s, CPU 70%, 1,002 keys" */
static void
node_row(struct coll_view *v, const struct redis_node_sample *s, double cmds, double cpu)
{
    char rate[32], cpus[24] = "";

    if (!s->ok) {
        coll_row_add(v, "cluster", s->addr, NAN, ROW_BAD, "not answering");
        return;
    }
    units_si(rate, sizeof rate, cmds, "/s");
    if (!isnan(cpu))
        snprintf(cpus, sizeof cpus, ", CPU %.0f%%", cpu);
    coll_row_add(v, "cluster", s->addr, cmds,
                 !isnan(cpu) && cpu >= RN_CPU_WARN_PCT ? ROW_WARN : ROW_NORMAL, "%s%s, %llu keys",
                 rate, cpus, (unsigned long long)s->info.keys);
}

/*
 * The cluster's keys and memory: every master's summed (the target's own
 * rows are one node's), with how many masters answered.
 */
static void
cluster_totals(const struct redis_sample *c, struct coll_view *v)
{
    uint64_t keys = 0, mem = 0;
    int ok = 0;
    char used[32];

    for (int i = 0; i < c->nnodes; i++) {
        if (!c->nodes[i].ok)
            continue;
        keys += c->nodes[i].info.keys;
        mem += c->nodes[i].info.used_memory;
        ok++;
    }
    if (ok == 0)
        return;
    units_iec(used, sizeof used, (double)mem, "");
    coll_row_add(v, "cluster", "total keys", (double)keys, ROW_NORMAL, "%llu on %d of %d masters",
                 (unsigned long long)keys, ok, c->nnodes);
    coll_row_add(v, "cluster", "total memory", (double)mem, ROW_NORMAL, "%s on %d of %d masters",
                 used, ok, c->nnodes);
}

double
rd_nodes_commands(const struct redis_sample *p, const struct redis_sample *c, double secs)
{
    double sum = 0, rate, cpu;

    for (int i = 0; i < c->nnodes; i++) {
        node_rates(p, c, i, secs, &rate, &cpu);
        sum += rate; /* NAN stays NAN: the sum is not the whole cluster's */
    }
    /* the collector's own commands went to the target, a master or a replica */
    return isnan(sum) ? NAN
                      : fmax(0, sum - (REDIS_SAMPLE_COMMANDS + REDIS_SETTINGS_COMMANDS) / secs);
}

void
rd_nodes_rows(const struct redis_sample *p, const struct redis_sample *c, double secs,
              struct coll_view *v)
{
    double rate, cpu, top = -1;
    int i, busiest = -1;

    if (c->nnodes > 0)
        cluster_totals(c, v);
    for (i = 0; i < c->nnodes; i++) {
        node_rates(p, c, i, secs, &rate, &cpu);
        node_row(v, &c->nodes[i], rate, cpu);
        if (!isnan(cpu) && cpu > top) {
            top = cpu;
            busiest = i;
        }
    }
    if (busiest < 0)
        return;
    coll_row_add(v, "cluster", "busiest", top, top >= RN_CPU_WARN_PCT ? ROW_WARN : ROW_NORMAL,
                 "%s, CPU %.0f%% of a core", c->nodes[busiest].addr, top);
    v->sig.server_cpu_pct = top;
    v->sig.server_cpu_self_pct = top;
}
