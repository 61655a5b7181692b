/*
 * redis/failover: a cluster's client follows a failover. Its master gone
 * (killed: the connect refused, or never answered), each reconnect first
 * asks another master of prepare's map for CLUSTER SLOTS, on the client's
 * own connection (STEP_MAP), and pins the client to the master that
 * serves its slots now: until a replica is promoted that is the same
 * master, and the connect fails again after the engine's backoff. A
 * master that left the map (CLUSTER FAILOVER made it a replica) answers
 * MOVED: the client reads the map and reconnects to the new master
 * (route.c), the loss counted as the MOVED it is.
 */
#include "redis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Asking for the map failed (why): the master's own error, and that. */
static enum drv_status
ask_failed(const struct rd_conn *c, const char *why, char *err)
{
    seterr(err, "%s (asking another master for the cluster's map: %s)", c->down, why);
    return DRV_ERROR;
}

/*
 * The master asked cannot be reached either (or there is none): c's own
 * is tried again instead, in case it came back; once, since c asked.
 */
enum drv_status
rd_ask_none(struct rd_conn *c, char *err)
{
    c->asking = 0;
    rd_name_node(c->where, sizeof c->where, c->host, c->port);
    return rd_connect_own(c, err);
}

/*
 * A cluster's client asks the next master of prepare's map (not its own)
 * for the map: a connection to it, CLUSTER SLOTS sent once it is set up
 * (STEP_MAP).
 */
enum drv_status
rd_ask_map(struct rd_conn *c, char *err)
{
    const struct redis_slot_map *m = c->sh->map;
    int i = c->ask_next++ % m->nnodes;
    redisContext *ctx;

    c->asked = 1;
    if (m->node[i].port == c->port && strcmp(m->node[i].host, c->host) == 0)
        i = c->ask_next++ % m->nnodes;
    if ((m->node[i].port == c->port && strcmp(m->node[i].host, c->host) == 0) ||
        (ctx = rd_open_socket(c, m->node[i].host, m->node[i].port, err)) == NULL)
        return rd_ask_none(c, err);
    c->asking = 1;
    c->peer = m->node[i].host;
    rd_name_node(c->where, sizeof c->where, m->node[i].host, m->node[i].port);
    return rd_switch_ctx(c, ctx);
}

/*
 * c's master did not take the connect (err says why): a cluster's client
 * asks another master for the map, once per connect; anyone else fails.
 */
enum drv_status
rd_unreached(struct rd_conn *c, char *err)
{
    if (c->own == NULL)
        return DRV_ERROR;
    c->unreached = 1;
    first_line(c->down, sizeof c->down, err);
    return c->asked ? DRV_ERROR : rd_ask_map(c, err);
}

/*
 * The asked master's map came: c pinned to the master that serves its
 * slots; ready when that is the master asked, else a connect there.
 */
static enum drv_status
take_asked_map(struct rd_conn *c, char *err)
{
    struct redis_slot_map *m = xmalloc(sizeof *m);
    redisReply *r = c->tree;
    char why[256], asked[300];
    int ok;

    c->tree = NULL;
    c->ctx->reader->fn = (redisReplyObjectFunctions *)&c->sh->fns;
    snprintf(asked, sizeof asked, "%s", c->where);
    if ((ok = redis_slot_map_parse(r, m, why) == 0)) {
        rd_fix_hosts(m, &c->sh->t);
        rd_pin_master(c, m, rd_choose_master(c, m));
    }
    free(m);
    freeReplyObject(r);
    if (!ok)
        return ask_failed(c, why, err);
    c->asking = 0;
    if (strcmp(asked, c->where) != 0)
        return rd_connect_own(c, err);
    c->peer = c->host; /* the master asked serves c's slots: this connection is c's */
    c->step = STEP_READY;
    c->unreached = 0;
    return DRV_DONE;
}

/* CLUSTER SLOTS's reply, on the asked master's connection. */
enum drv_status
rd_poll_map(struct rd_conn *c, char *err)
{
    char msg[256];
    enum drv_status st = rd_next_reply(c, NULL, msg, sizeof msg);

    if (st == DRV_DONE)
        return take_asked_map(c, err);
    return st == DRV_ERROR ? ask_failed(c, msg, err) : st;
}
