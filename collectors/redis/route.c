/*
 * redis/route: the load driver on a Redis Cluster. prepare reads CLUSTER
 * SLOTS and pins each client to one master, drawing only the keys that
 * master serves; a MOVED has the map read again on the client's own
 * connection (CLUSTER SLOTS ahead of its next request).
 *
 * A cluster's client keeps its one connection, to its master, for its own
 * keys; a request that must go elsewhere (an ASK's, after ASKING; a
 * script's command for another master) takes a detour: it is sent on the
 * client's side connection to that node when it is the oldest reply due,
 * and conn_fd is that connection's until its reply came. The worker then
 * registers that fd (and the master's again after), so no edge is lost.
 */
#include "redis.h"
#include "tls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "engine/runconf.h"

/* ---- the map at prepare (main thread) ---- */

/*
 * Whether the server is a Redis Cluster node: INFO cluster, one command. A
 * server that refuses it (a managed service) is taken as standalone; one
 * whose reply breaks the connection (too large) too, on a new connection,
 * so that the run meets and counts what the server does.
 */
int
rd_detect_cluster(struct rd_shared *sh, redisContext **ctx, int *cluster, char *err)
{
    redisReply *r = redis_command(*ctx, "INFO cluster");

    *cluster = 0;
    if (r == NULL) {
        redisFree(*ctx);
        *ctx = NULL;
        return redis_connect_blocking(&sh->t, RD_CONNECT_TIMEOUT_MS, ctx, NULL, err);
    }
    if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS)
        *cluster = redis_info_cluster_enabled(r->str, r->len);
    freeReplyObject(r);
    return 0;
}

/* A master that does not know its own address ("" or "?" in CLUSTER SLOTS) is the target's host. */
void
rd_fix_hosts(struct redis_slot_map *m, const struct redis_target *t)
{
    for (int i = 0; i < m->nnodes; i++)
        if (m->node[i].host[0] == '\0' || strcmp(m->node[i].host, "?") == 0)
            snprintf(m->node[i].host, sizeof m->node[i].host, "%s",
                     t->path[0] ? "127.0.0.1" : t->host);
}

/* The key prefix of cmd into key; returns its length. */
static size_t
key_prefix(const struct rd_cmd *cmd, char *key)
{
    size_t n = cmd->key_len - RD_KEY_DIGITS;

    memcpy(key, cmd->buf + cmd->key_at - n, n);
    return n;
}

/* Every master needs keys of its own among --keys, of each prefix the mix uses. */
static int
cluster_keys(const struct rd_shared *sh, char *err)
{
    int used[OP__COUNT] = {0};
    char key[64];

    for (int e = 0; e < sh->mix.n; e++)
        used[sh->mix.e[e].builtin == RD_WL_INCR ? OP_INCR : OP_GET] = 1;
    for (int n = 0; n < sh->map->nnodes; n++)
        for (int op = 0; op < OP__COUNT; op++) {
            size_t plen;

            if (!used[op])
                continue;
            plen = key_prefix(&sh->cmd[op], key);
            if (redis_first_key(sh->kv.keys, &sh->own[n], key, plen, RD_KEY_DIGITS) < 0)
                return seterr(err,
                              "--keys %llu gives the cluster's master %s:%d none of its keys "
                              "(each client draws only its master's keys): raise --keys",
                              (unsigned long long)sh->kv.keys, sh->map->node[n].host,
                              sh->map->node[n].port);
        }
    return 0;
}

/*
 * A cluster node: CLUSTER SLOTS read into the map the load routes by; each
 * master's slots as a set; the summary's note.
 */
int
rd_load_cluster(struct rd_shared *sh, const struct runconf *rc, redisContext *ctx, char *err)
{
    redisReply *r;
    char why[256];
    int rv, clients = runconf_total_clients(rc);

    if ((r = redis_command(ctx, "CLUSTER SLOTS")) == NULL)
        return seterr(err, "%s: CLUSTER SLOTS: %s", sh->where, ctx->errstr);
    if (r->type == REDIS_REPLY_ERROR) {
        seterr(err,
               "%s is a Redis Cluster node but refused CLUSTER SLOTS: %s (the load routes keys "
               "by it: allow it for the target's user)",
               sh->where, r->str);
        freeReplyObject(r);
        return -1;
    }
    sh->map = xmalloc(sizeof *sh->map);
    rv = redis_slot_map_parse(r, sh->map, why);
    freeReplyObject(r);
    if (rv < 0)
        return seterr(err, "%s: %s", sh->where, why);
    rd_fix_hosts(sh->map, &sh->t);
    sh->own = xcalloc((size_t)sh->map->nnodes, sizeof *sh->own);
    for (int n = 0; n < sh->map->nnodes; n++)
        redis_slot_set_of(sh->map, n, &sh->own[n]);
    snprintf(sh->note, sizeof sh->note, "cluster: %d masters, each client pinned to one%s",
             sh->map->nnodes, clients < sh->map->nnodes ? " (fewer clients than masters)" : "");
    return cluster_keys(sh, err);
}

/* ---- each client pinned to a master; side connections (worker threads) ---- */

/* host:port as messages name it ("[::1]:6379" for an IPv6 address). */
void
rd_name_node(char *out, size_t len, const char *host, int port)
{
    snprintf(out, len, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

/* Where c connects: host:port, and its name in messages. */
static void
set_node(struct rd_conn *c, const char *host, int port)
{
    if (c->session != NULL && (c->port != port || strcmp(c->host, host) != 0))
        rtls_session_free(&c->session); /* another server's ticket */
    snprintf(c->host, sizeof c->host, "%s", host);
    c->port = port;
    rd_name_node(c->where, sizeof c->where, c->host, c->port);
}

/* Pins c to master node of m: where it connects and the slots it draws keys for. */
void
rd_pin_master(struct rd_conn *c, const struct redis_slot_map *m, int node)
{
    set_node(c, m->node[node].host, m->node[node].port);
    redis_slot_set_of(m, node, c->own);
}

/*
 * The master of m that c is pinned to when its own is not one: the one
 * that serves c's slots now (the first of them: a replica promoted serves
 * them all), else the one c's id picks.
 */
int
rd_choose_master(const struct rd_conn *c, const struct redis_slot_map *m)
{
    for (int w = 0; w < REDIS_SLOTS / 64; w++)
        if (c->own->bit[w] != 0)
            return m->slot[w * 64 + __builtin_ctzll(c->own->bit[w])];
    return c->client_id % m->nnodes;
}

/* A cluster's client: its side connections' places, and room to keep each request. */
void
rd_cluster_conn(struct rd_conn *c)
{
    const struct rd_shared *sh = c->sh;

    c->own = xmalloc(sizeof *c->own);
    c->nside = sh->map->nnodes + 1;
    c->side = xcalloc((size_t)c->nside, sizeof *c->side);
    for (int i = 0; i < sh->depth; i++) {
        c->due[i].req = xmalloc(rd_request_room(sh));
        c->due[i].part = xcalloc((size_t)sh->max_cmds, sizeof *c->due[i].part);
    }
}

/* A side connection to host:port, not connected: it carries one request at a time. */
static struct rd_conn *
side_new(const struct rd_conn *c, const char *host, int port)
{
    struct rd_conn *s = xcalloc(1, sizeof *s);

    s->sh = c->sh;
    s->rng = c->rng;
    s->is_side = 1;
    s->away = -1;
    s->ocap = c->sh->hs_len + 64 + rd_request_room(c->sh);
    s->obuf = xmalloc(s->ocap);
    set_node(s, host, port);
    return s;
}

/* A cluster's: the master that serves key's slot, -1 when it is c's own (or there is no key). */
static int
route_node(struct rd_conn *c, const char *key, size_t klen)
{
    const struct redis_slot_map *m = c->sh->map;
    int slot, node;

    if (key == NULL || redis_slot_set_has(c->own, slot = redis_key_slot(key, klen)))
        return -1;
    node = m->slot[slot];
    if (c->side[node] == NULL)
        c->side[node] = side_new(c, m->node[node].host, m->node[node].port);
    return node;
}

/*
 * A cluster's: the script's len bytes of commands, just queued, kept in d
 * and each routed by its key: those for c's master stay queued, the others
 * wait in d for their turn (rd_conn_txn_poll sends them on a side connection).
 */
void
rd_route_script(struct rd_conn *c, struct rd_due *d, size_t len)
{
    const char *key;
    size_t klen, at = 0, n;

    c->olen -= len;
    memcpy(d->req, c->obuf + c->olen, len);
    while (at < len && d->nparts < c->sh->max_cmds &&
           (n = redis_resp_route(d->req + at, len - at, &key, &klen)) > 0) {
        int node = route_node(c, key, klen);

        d->part[d->nparts++] = (struct rd_part){(uint32_t)at, (uint32_t)n, node};
        if (node < 0)
            rd_queue_bytes(c, d->req + at, n);
        at += n;
    }
}

/* ---- MOVED and ASK; detours to the side connections ---- */

/*
 * A cluster's client after a MOVED: CLUSTER SLOTS goes ahead of its next
 * request, in the same transaction (its reply is the transaction's first;
 * rd_take_map reads it). One at a time: the MOVED replies to requests sent
 * before it came ask for nothing more. Returns 1.
 */
int
rd_queue_refresh(struct rd_conn *c)
{
    static const char slots[] = "*2\r\n$7\r\nCLUSTER\r\n$5\r\nSLOTS\r\n";

    rd_queue_bytes(c, slots, sizeof slots - 1);
    c->stale = 0;
    c->refreshing = 1;
    c->tree_objs = 0;
    return 1;
}

/*
 * An error reply's kind. MOVED (rd_err_kinds' "moved"): the slot has a new
 * master, so a cluster's client refreshes its map before its next request.
 * ASK (a slot being migrated; the key is on the importing node) is
 * followed once (rd_follow_ask): one that comes back, or a MOVED, from the
 * node it named is counted. CLUSTERDOWN ("clusterdown"): the cluster
 * serves no key until a failed master's replica is promoted. A side
 * connection lost is ERR_CONN, though the client's own connection goes on.
 */
enum err_kind
rd_error_kind(struct rd_conn *c)
{
    if (c->side_lost) {
        c->side_lost = 0;
        return ERR_CONN;
    }
    if (strncmp(c->errmsg, "MOVED ", 6) == 0) {
        if (c->own != NULL && !c->refreshing)
            c->stale = 1;
        return ERR_DRIVER_2;
    }
    if (strncmp(c->errmsg, "ASK ", 4) == 0)
        return ERR_DRIVER_3;
    if (strncmp(c->errmsg, "CLUSTERDOWN ", 12) == 0)
        return ERR_DRIVER_4;
    return ERR_OTHER;
}

/* A cluster's master by its address in m, or -1. */
static int
find_master(const struct redis_slot_map *m, const char *host, int port)
{
    for (int i = 0; i < m->nnodes; i++)
        if (m->node[i].port == port && strcmp(m->node[i].host, host) == 0)
            return i;
    return -1;
}

/*
 * CLUSTER SLOTS's reply (c->tree) came: the slots of c's master, anew. A
 * master no longer in the map (it serves no slot, or a replica took over:
 * CLUSTER FAILOVER) gives way to the one that serves c's slots now
 * (rd_choose_master): -1, with why in res->msg, and the engine reconnects
 * the client there; the loss is the MOVED's (the request sent after
 * CLUSTER SLOTS went to the old master), not a connection error. A reply
 * that is not a map (refused, malformed) leaves the old one: the next
 * MOVED asks again.
 */
int
rd_take_map(struct rd_conn *c, struct txn_result *res)
{
    struct redis_slot_map *m = xmalloc(sizeof *m);
    redisReply *r = c->tree;
    char why[256];
    int node, rv = 0;

    c->ctx->reader->fn = (redisReplyObjectFunctions *)&c->sh->fns;
    c->tree = NULL;
    c->refreshing = 0;
    if (redis_slot_map_parse(r, m, why) == 0) {
        rd_fix_hosts(m, &c->sh->t);
        if ((node = find_master(m, c->host, c->port)) < 0) {
            node = rd_choose_master(c, m);
            snprintf(res->msg, sizeof res->msg,
                     "%.80s serves no slot in the cluster's new map: the client moves to "
                     "%.80s:%d",
                     c->where, m->node[node].host, m->node[node].port);
            rv = -1;
        }
        rd_pin_master(c, m, node);
    }
    free(m);
    freeReplyObject(r);
    return rv;
}

/* The side connection to host:port: a master of prepare's map, or the spare one. */
static int
side_index(struct rd_conn *c, const char *host, int port)
{
    int i = find_master(c->sh->map, host, port);
    struct rd_conn **s;

    if (i < 0) {
        i = c->nside - 1;
        s = &c->side[i];
        if (*s != NULL && ((*s)->port != port || strcmp((*s)->host, host) != 0)) {
            rd_conn_free(*s);
            *s = NULL;
        }
    }
    if (c->side[i] == NULL)
        c->side[i] = side_new(c, host, port);
    return i;
}

/*
 * An ASK for the command in hand, the first for it: the command goes to
 * the node it names, after ASKING, on a side connection; the map stays
 * as it is (the slot is only being migrated). 1 when so.
 */
int
rd_follow_ask(struct rd_conn *c, struct rd_due *d)
{
    struct redis_redirect r;

    if (d->got >= d->nparts || d->redirected || c->rtype != REDIS_REPLY_ERROR ||
        redis_redirect_parse(c->errmsg, strlen(c->errmsg), &r) < 0 || !r.ask)
        return 0;
    d->redirected = 1;
    c->away = side_index(c, r.host, r.port);
    c->away_ask = 1;
    c->away_left = 0;
    return 1;
}

/* The detour's connection was lost: the command's reply is an error saying so (ERR_CONN). */
static enum drv_status
detour_lost(struct rd_conn *c, struct rd_conn *s, const char *why)
{
    snprintf(c->errmsg, sizeof c->errmsg, "%s", why);
    c->rtype = REDIS_REPLY_ERROR;
    c->side_lost = 1;
    c->away = -1;
    rd_conn_disconnect(s);
    return DRV_DONE;
}

/* Queues the command in hand on s, after ASKING when an ASK sent it there. */
static void
detour_send(struct rd_conn *c, struct rd_conn *s, const struct rd_due *d)
{
    static const char asking[] = "*1\r\n$6\r\nASKING\r\n";
    const struct rd_part *p = &d->part[d->got];

    if (c->away_ask)
        rd_queue_bytes(s, asking, sizeof asking - 1);
    rd_queue_bytes(s, d->req + p->off, p->len);
    c->away_left = 1 + c->away_ask;
}

/*
 * The command in hand on side connection side[away]: connected (and its
 * AUTH/SELECT done) when new, sent, its reply read. DRV_DONE when the
 * reply is c's (rtype, errmsg) and the detour is over.
 */
enum drv_status
rd_detour_poll(struct rd_conn *c, const struct rd_due *d)
{
    struct rd_conn *s = c->side[c->away];
    enum drv_status st;
    char why[256];

    if (s->ctx == NULL) {
        st = rd_conn_connect_start(s, why);
        return st == DRV_ERROR ? detour_lost(c, s, why) : st;
    }
    if (s->step != STEP_READY && (st = rd_conn_connect_poll(s, why)) != DRV_DONE)
        return st == DRV_ERROR ? detour_lost(c, s, why) : st;
    if (c->away_left == 0)
        detour_send(c, s, d);
    while ((st = rd_next_reply(s, NULL, why, sizeof why)) == DRV_DONE)
        if (--c->away_left == 0) { /* ASKING's +OK before it: an error there shows here */
            c->rtype = s->rtype;
            memcpy(c->errmsg, s->errmsg, sizeof c->errmsg);
            c->away = -1;
            return DRV_DONE;
        }
    return st == DRV_ERROR ? detour_lost(c, s, why) : st;
}
