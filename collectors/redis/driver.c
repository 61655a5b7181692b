/*
 * redis/driver: the Redis load driver and its blocking connect.
 *
 * hiredis provides the connect (redisConnectNonBlock, TCP or Unix socket)
 * and the RESP reply reader; benchtop does the socket I/O itself on the
 * worker's event loop. Why not hiredis's async API: it allocates a callback
 * record per command and a reply object per reply, and needs an event-library
 * adapter; here every request is copied from a command preformatted once
 * (only the key digits change), sent with one send() per batch, and replies
 * are parsed by a reader whose object functions allocate nothing (they note
 * the reply's type and, for an error, its text). So the hot path allocates
 * nothing at all.
 *
 * One request is one transaction. With --pipeline D a connection keeps D
 * requests in flight (.pipelining, see driver.h): conn_txn_start only queues
 * a request, conn_txn_poll sends the queue, reads, and hands back replies
 * one at a time, oldest first.
 *
 * rediss:// puts OpenSSL (redis/tls.h) where send() and recv() are: the
 * handshake is a connection step of its own, non-blocking like the rest;
 * reads go on until the socket and OpenSSL's buffers are empty (a record
 * may end before the socket's input does, and the worker's epoll is
 * edge-triggered), and the worker's sendq is not used (its bytes must be
 * encrypted first).
 *
 * On a cluster the routing is route.c's and following a failover
 * failover.c's; a target's parse is target.c's.
 */
#include "redis.h"
#include "tls.h"

#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/driver.h"
#include "collectors/shared/batch.h"
#include "collectors/shared/kv.h"
#include "engine/mix.h"
#include "engine/optdef.h"
#include "engine/target.h"
#include "base/uri.h"
#include "base/util.h"

static const char *const rd_workloads[] = {"get", "set", "incr", "mixed", NULL};
static const char *const rd_modes[] = {"resp2", NULL};

/* ---- blocking connect (main thread, collector) ---- */

/* No reply: the connection broke, timed out, or the peer does not speak RESP. */
static int
explain_no_reply(const redisContext *c, const char *cmd, const char *where, int timeout_ms,
                 char *err)
{
    if (c->err == REDIS_ERR_PROTOCOL && strstr(c->errstr, "\"E\"") != NULL)
        return seterr(err,
                      "%s does not speak the Redis protocol: %s, as from memcached, which "
                      "answers %s with ERROR (check the port)",
                      where, c->errstr, cmd);
    if (c->err == REDIS_ERR_PROTOCOL)
        return seterr(err, "%s does not speak the Redis protocol: %s (check the port)", where,
                      c->errstr);
    if (c->err == REDIS_ERR_EOF)
        return seterr(err,
                      "%s closed the connection when sent %s: not a Redis server? "
                      "(check the port; PostgreSQL, for one, does this)",
                      where, cmd);
    if (c->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK))
        return seterr(err,
                      "%s did not answer %s within %d ms: not a Redis server, or a stuck "
                      "one (check the port)",
                      where, cmd, timeout_ms);
    return seterr(err, "lost the connection to %s during %s: %s (check the server's log)", where,
                  cmd, c->errstr);
}

/* The server answered with an error: say what to change. */
static int
explain_refusal(const char *cmd, const char *msg, const struct redis_target *t, const char *where,
                char *err)
{
    char line[256];

    first_line(line, sizeof line, msg);
    if (strncmp(line, "NOAUTH", 6) == 0)
        return seterr(err,
                      "redis at %s needs a password: %s (put it in the target: "
                      "redis://:PASSWORD@%s)",
                      where, line, where);
    if (strncmp(line, "LOADING", 7) == 0)
        return seterr(err, "redis at %s is loading its data: %s (wait, then run again)", where,
                      line);
    if (strcmp(cmd, "AUTH") == 0 && strstr(line, "without any password") != NULL)
        return seterr(err,
                      "redis at %s has no password set: %s (drop the password from the "
                      "target)",
                      where, line);
    if (strcmp(cmd, "AUTH") == 0)
        return seterr(err,
                      "redis at %s refused the login: %s (check the user and password in "
                      "the target)",
                      where, line);
    if (strcmp(cmd, "SELECT") == 0)
        return seterr(err,
                      "redis at %s refused database %d: %s (use a database the server has, "
                      "e.g. /0)",
                      where, t->db, line);
    return seterr(err, "redis at %s answered %s with an error: %s", where, cmd, line);
}

/* Runs one handshake command; 0 if the reply is what a Redis server says. */
static int
blocking_step(redisContext *c, int argc, const char **argv, const struct redis_target *t,
              const char *where, int timeout_ms, char *err)
{
    redisReply *r = redis_command_argv(c, argc, argv, NULL);
    int rv = 0;

    if (r == NULL)
        return explain_no_reply(c, argv[0], where, timeout_ms, err);
    if (r->type == REDIS_REPLY_ERROR)
        rv = explain_refusal(argv[0], r->str, t, where, err);
    else if (strcmp(argv[0], "PING") == 0 &&
             (r->type != REDIS_REPLY_STATUS || strcmp(r->str, "PONG") != 0))
        rv = seterr(err,
                    "%s answered PING with something other than PONG: not a Redis server? "
                    "(check the port)",
                    where);
    freeReplyObject(r);
    return rv;
}

static int
blocking_handshake(redisContext *c, const struct redis_target *t, const char *where, int timeout_ms,
                   char *err)
{
    char db[16];
    const char *auth[] = {"AUTH", t->user[0] ? t->user : t->pass, t->pass};
    const char *select[] = {"SELECT", db};
    const char *ping[] = {"PING"};

    snprintf(db, sizeof db, "%d", t->db);
    if (t->pass[0] != '\0' &&
        blocking_step(c, t->user[0] ? 3 : 2, auth, t, where, timeout_ms, err) < 0)
        return -1;
    if (t->db != 0 && blocking_step(c, 2, select, t, where, timeout_ms, err) < 0)
        return -1;
    return blocking_step(c, 1, ping, t, where, timeout_ms, err);
}

/*
 * rediss://: *c's socket goes to the TLS layer, and *c becomes a context on
 * the plain socket it hands back (its pump: redis/tls.h).
 */
static int
wrap_tls(redisContext **c, const struct redis_target *t, const char *where, int timeout_ms,
         struct drv_tls *tls, char *err)
{
    int fd = redisFreeKeepFd(*c);

    *c = NULL;
    if ((fd = rtls_wrap_blocking(t, fd, where, timeout_ms, tls, err)) < 0)
        return -1;
    if ((*c = redisConnectFd(fd)) == NULL) {
        close(fd);
        return seterr(err, "cannot connect to redis at %s: out of memory", where);
    }
    return 0;
}

int
redis_connect_blocking(const struct redis_target *t, int timeout_ms, redisContext **out,
                       struct drv_tls *tls, char *err)
{
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    char where[300];
    redisContext *c;

    *out = NULL;
    if (tls != NULL)
        *tls = (struct drv_tls){0};
    if (t->tls && !rtls_available(err))
        return -1;
    redis_target_where(t, where, sizeof where);
    c = t->path[0] ? redisConnectUnixWithTimeout(t->path, tv)
                   : redisConnectWithTimeout(t->host, t->port, tv);
    if (c == NULL)
        return seterr(err, "cannot connect to redis at %s: out of memory", where);
    if (c->err) {
        seterr(err,
               "cannot connect to redis at %s: %s (is redis-server running there? check the %s)",
               where, c->errstr, t->path[0] ? "socket path" : "host and port");
        redisFree(c);
        return -1;
    }
    if (t->tls && wrap_tls(&c, t, where, timeout_ms, tls, err) < 0)
        return -1;
    if (redisSetTimeout(c, tv) != REDIS_OK ||
        blocking_handshake(c, t, where, timeout_ms, err) < 0) {
        if (c->err && err[0] == '\0')
            seterr(err, "%s: %s", where, c->errstr);
        redisFree(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* ---- requests formatted once ---- */

/* Appends one RESP bulk string; returns where its bytes start. */
static size_t
put_bulk(char **buf, size_t *len, const char *s, size_t n)
{
    char head[32];
    int h = snprintf(head, sizeof head, "$%zu\r\n", n);
    size_t at;

    *buf = xrealloc(*buf, *len + (size_t)h + n + 2);
    memcpy(*buf + *len, head, (size_t)h);
    at = *len + (size_t)h;
    memcpy(*buf + at, s, n);
    memcpy(*buf + at + n, "\r\n", 2);
    *len = at + n + 2;
    return at;
}

/* Formats argv as one RESP command; key_arg's last RD_KEY_DIGITS bytes are the key digits. */
static void
format_cmd(struct rd_cmd *cmd, int argc, const char *const *argv, const size_t *lens, int key_arg)
{
    char head[16];
    int i, h = snprintf(head, sizeof head, "*%d\r\n", argc);

    cmd->buf = xstrdup(head);
    cmd->len = (size_t)h;
    cmd->key_at = 0;
    for (i = 0; i < argc; i++) {
        size_t at = put_bulk(&cmd->buf, &cmd->len, argv[i], lens[i]);
        if (i == key_arg) {
            cmd->key_at = at + lens[i] - RD_KEY_DIGITS;
            cmd->key_len = lens[i];
        }
    }
}

/* GET/SET/INCR and the fill's SET; incr works on counter:N keys (as redis-benchmark does). */
static void
format_requests(struct rd_shared *sh)
{
    const char *prefix = sh->workload == RD_WL_INCR ? "counter:" : KV_KEY_PREFIX;
    char key[32], ckey[32];
    const char *value = sh->kv.value;
    const char *get[] = {"GET", key}, *set[] = {"SET", key, value}, *incr[] = {"INCR", ckey};
    const char *fill[] = {"SET", key, sh->workload == RD_WL_INCR ? "0" : value};
    size_t klen = (size_t)snprintf(key, sizeof key, "%s%0*d", prefix, RD_KEY_DIGITS, 0);
    size_t vlen = sh->kv.value_size;
    /* INCR counts counter:N keys, in a mix too */
    size_t clen = (size_t)snprintf(ckey, sizeof ckey, "counter:%0*d", RD_KEY_DIGITS, 0);
    size_t lincr[] = {4, clen};
    size_t l2[] = {3, klen}, l3[] = {3, klen, vlen};
    size_t lfill[] = {3, klen, sh->workload == RD_WL_INCR ? 1 : vlen};
    int i;

    format_cmd(&sh->cmd[OP_GET], 2, get, l2, 1);
    format_cmd(&sh->cmd[OP_SET], 3, set, l3, 1);
    format_cmd(&sh->cmd[OP_INCR], 2, incr, lincr, 1);
    format_cmd(&sh->cmd[OP_FILL], 3, fill, lfill, 1);
    for (i = 0; i < OP__COUNT; i++)
        if (sh->cmd[i].len > sh->longest)
            sh->longest = sh->cmd[i].len;
}

/* Adds one formatted command to the handshake. */
static void
add_handshake(struct rd_shared *sh, int argc, const char *const *argv, const size_t *lens)
{
    struct rd_cmd c;

    format_cmd(&c, argc, argv, lens, -1);
    sh->hs = xrealloc(sh->hs, sh->hs_len + c.len);
    memcpy(sh->hs + sh->hs_len, c.buf, c.len);
    sh->hs_len += c.len;
    sh->hs_count++;
    free(c.buf);
}

/* AUTH and SELECT, sent by every new connection before its first request. */
static void
format_handshake(struct rd_shared *sh)
{
    const struct redis_target *t = &sh->t;
    char db[16];
    const char *auth[] = {"AUTH", t->user[0] ? t->user : t->pass, t->pass};
    const char *select[] = {"SELECT", db};
    size_t la[] = {4, strlen(auth[1]), strlen(t->pass)}, ls[] = {6, 0};

    ls[1] = (size_t)snprintf(db, sizeof db, "%d", t->db);
    if (t->pass[0] != '\0')
        add_handshake(sh, t->user[0] ? 3 : 2, auth, la);
    if (t->db != 0)
        add_handshake(sh, 2, select, ls);
}

/* ---- the reply reader's object functions: nothing allocated per reply ---- */

static void
note_reply(const redisReadTask *task)
{
    struct rd_conn *c = task->privdata;

    if (task->parent == NULL)
        c->rtype = task->type;
}

static void *
reply_string(const redisReadTask *task, char *str, size_t len)
{
    struct rd_conn *c = task->privdata;

    note_reply(task);
    if (task->parent == NULL && task->type == REDIS_REPLY_ERROR)
        snprintf(c->errmsg, sizeof c->errmsg, "%.*s", (int)(len < 255 ? len : 255), str);
    return c; /* any non-NULL pointer: hiredis treats NULL as out of memory */
}

static void *
reply_array(const redisReadTask *task, int elements)
{
    note_reply(task);
    return task->privdata;
}

static void *
reply_integer(const redisReadTask *task, long long value)
{
    note_reply(task);
    return task->privdata;
}

static void *
reply_nil(const redisReadTask *task)
{
    note_reply(task);
    return task->privdata;
}

static void
reply_free(void *obj)
{
}

/*
 * A CLUSTER SLOTS reply is read as hiredis's tree (redis_slot_map_parse
 * takes one), through these: each counts the objects, and one past
 * RD_TREE_OBJECTS is refused before hiredis allocates it (the reader then
 * fails, and the connection goes).
 */
static int
tree_count(const redisReadTask *task, size_t n)
{
    struct rd_conn *c = task->privdata;

    note_reply(task);
    if (n > RD_TREE_OBJECTS - c->tree_objs)
        return -1;
    c->tree_objs += n;
    return 0;
}

static void *
tree_string(const redisReadTask *task, char *str, size_t len)
{
    struct rd_conn *c = task->privdata;

    if (task->parent == NULL && task->type == REDIS_REPLY_ERROR)
        snprintf(c->errmsg, sizeof c->errmsg, "%.*s", (int)(len < 255 ? len : 255), str);
    return tree_count(task, 1) < 0 ? NULL : c->sh->hiredis->createString(task, str, len);
}

static void *
tree_array(const redisReadTask *task, int elements)
{
    struct rd_conn *c = task->privdata;

    return tree_count(task, 1 + (size_t)(elements > 0 ? elements : 0)) < 0
               ? NULL
               : c->sh->hiredis->createArray(task, elements);
}

static void *
tree_integer(const redisReadTask *task, long long value)
{
    struct rd_conn *c = task->privdata;

    return tree_count(task, 1) < 0 ? NULL : c->sh->hiredis->createInteger(task, value);
}

static void *
tree_nil(const redisReadTask *task)
{
    struct rd_conn *c = task->privdata;

    return tree_count(task, 1) < 0 ? NULL : c->sh->hiredis->createNil(task);
}

static void
tree_free(void *obj)
{
    freeReplyObject(obj);
}

/* ---- --fill (main thread, blocking) ---- */

struct rd_fill {
    const struct rd_shared *sh;
    redisContext *ctx[REDIS_CLUSTER_MAX_NODES]; /* the server, or each master of a cluster */
    int nctx;
    uint64_t sent[REDIS_CLUSTER_MAX_NODES]; /* SETs this batch sent each */
    char *buf;                              /* room for a batch of SETs */
};

/* Where key i of the batch in f->buf goes: the server, or the master that serves its slot. */
static int
fill_dest(const struct rd_fill *f, const char *req)
{
    const struct rd_cmd *cmd = &f->sh->cmd[OP_FILL];
    const char *key = req + cmd->key_at + RD_KEY_DIGITS - cmd->key_len;

    return f->sh->map == NULL ? 0 : f->sh->map->slot[redis_key_slot(key, cmd->key_len)];
}

/* Takes the n replies of one connection's share of the batch. */
static int
fill_replies(struct rd_fill *f, redisContext *ctx, uint64_t n, char *err)
{
    redisReply *r;
    int rv = 0;

    for (uint64_t i = 0; i < n; i++) {
        if (redis_reply(ctx, &r) != REDIS_OK)
            return seterr(err, "fill: lost the connection to %s: %s", f->sh->where, ctx->errstr);
        if (r->type == REDIS_REPLY_ERROR && rv == 0)
            rv = seterr(err,
                        "fill: redis at %s refused SET: %s (check maxmemory and the "
                        "server's log)",
                        f->sh->where, r->str);
        freeReplyObject(r);
    }
    return rv;
}

/* Sends n SETs from key `first` (a cluster's, each to its slot's master), then takes the replies.
 */
static int
fill_batch(void *arg, uint64_t first, uint64_t n, char *err)
{
    struct rd_fill *f = arg;
    const struct rd_cmd *cmd = &f->sh->cmd[OP_FILL];
    uint64_t i;
    int d;

    memset(f->sent, 0, sizeof f->sent);
    for (i = 0; i < n; i++) {
        char *req = f->buf + i * cmd->len;

        memcpy(req, cmd->buf, cmd->len);
        kv_put_digits(req + cmd->key_at, RD_KEY_DIGITS, first + i);
        d = fill_dest(f, req);
        if (redisAppendFormattedCommand(f->ctx[d], req, cmd->len) != REDIS_OK)
            return seterr(err, "fill: %s", f->ctx[d]->errstr);
        f->sent[d]++;
    }
    for (d = 0; d < f->nctx; d++)
        if (f->sent[d] > 0 && fill_replies(f, f->ctx[d], f->sent[d], err) < 0)
            return -1;
    return 0;
}

/* A cluster's fill: a connection to each master, as the target's (password, TLS). */
static int
fill_connect(struct rd_fill *f, char *err)
{
    const struct redis_slot_map *m = f->sh->map;
    struct redis_target t = f->sh->t;

    for (f->nctx = 0; f->nctx < m->nnodes; f->nctx++) {
        snprintf(t.host, sizeof t.host, "%s", m->node[f->nctx].host);
        t.port = m->node[f->nctx].port;
        t.path[0] = '\0';
        if (redis_connect_blocking(&t, RD_CONNECT_TIMEOUT_MS, &f->ctx[f->nctx], NULL, err) < 0)
            return -1;
    }
    return 0;
}

static int
fill_keys(const struct rd_shared *sh, int quiet, redisContext *ctx, char *err)
{
    uint64_t per = RD_FILL_BATCH_BYTES / sh->cmd[OP_FILL].len;
    struct rd_fill f = {.sh = sh, .ctx = {ctx}, .nctx = 1};
    int rv = -1;

    per = per < 1 ? 1 : per > RD_FILL_BATCH ? RD_FILL_BATCH : per;
    f.buf = xmalloc(per * sh->cmd[OP_FILL].len);
    if (sh->map == NULL || fill_connect(&f, err) == 0)
        rv = kv_fill(&sh->kv, per, quiet, fill_batch, &f, err);
    for (int i = 0; sh->map != NULL && i < f.nctx; i++)
        redisFree(f.ctx[i]);
    free(f.buf);
    return rv;
}

/* ---- the class's main-thread callbacks ---- */

/* The options that need no server: checked first, so a typo fails at once. */
/* -r: how a built-in's requests are named; mixed has two (GET, then SET). */
static const char *const rd_op_text[] = {"GET key:N", "SET key:N VALUE", "INCR counter:N"};

/* -r: the scripts' commands (mix.c), then each built-in's requests. */
static void
make_labels(struct rd_shared *sh)
{
    int e, n, ncmds = 0;

    for (e = 0; e < sh->mix.n; e++) {
        sh->first[e] = ncmds;
        ncmds += sh->mix.e[e].script != NULL ? sh->mix.e[e].script->ncmds : 0;
    }
    sh->stmt_id = xcalloc((size_t)ncmds + 1, sizeof *sh->stmt_id);
    n = mix_stmt_labels(&sh->mix, sh->first, sh->stmt_id, &sh->labels);
    for (e = 0; e < sh->mix.n; e++) {
        int b = sh->mix.e[e].builtin, k, nops = b == RD_WL_MIXED ? 2 : 1;
        if (sh->mix.e[e].script != NULL)
            continue;
        sh->labels = xrealloc(sh->labels, (size_t)(n + nops) * sizeof *sh->labels);
        sh->op_label[e] = n;
        for (k = 0; k < nops; k++, n++) {
            sh->labels[n].script = sh->mix.e[e].name;
            sh->labels[n].line = 0;
            sh->labels[n].text = rd_op_text[b == RD_WL_MIXED ? OP_GET + k : b];
        }
    }
    sh->nlabels = n;
}

/* The mix of -b/-w/-f: the first built-in is the one --fill writes for. */
static int
load_mix(struct rd_shared *sh, const struct runconf *rc, int *mixed, char *err)
{
    struct mix *m = &sh->mix;
    int i, first = -1;

    if (mix_parse(m, rc, "redis", rd_workloads, err) < 0 ||
        mix_load(m, NULL, redis_script_predef, 1, err) < 0)
        return -1;
    *mixed = 0;
    for (i = 0; i < m->n; i++) {
        if (m->e[i].script != NULL) {
            if (redis_script_longest(m->e[i].script, &sh->script_line, &sh->script_request, err) <
                0)
                return -1;
            if (m->e[i].script->ncmds > sh->max_cmds)
                sh->max_cmds = m->e[i].script->ncmds;
            continue;
        }
        if (first < 0)
            first = m->e[i].builtin;
        *mixed |= m->e[i].builtin == RD_WL_MIXED;
    }
    sh->workload = first < 0 ? RD_WL_GET : (enum rd_workload)first;
    sh->max_cmds = sh->max_cmds < 1 ? 1 : sh->max_cmds;
    make_labels(sh);
    return 0;
}

static int
check_options(struct rd_shared *sh, const struct runconf *rc, const struct kv_conf *kv, char *err)
{
    int mixed;

    if (load_mix(sh, rc, &mixed, err) < 0)
        return -1;
    if (rc->mode != NULL && str_index(rd_modes, rc->mode) < 0)
        return seterr(err, "unknown protocol '%s' for redis (hiredis %d.%d speaks -M resp2 only)",
                      rc->mode, HIREDIS_MAJOR, HIREDIS_MINOR);
    if (rc->connect_per_txn && kv->pipeline > 1)
        return seterr(err,
                      "-C opens a connection per request, so --pipeline %d has nothing to "
                      "pipeline (drop one of them)",
                      kv->pipeline);
    return kv_setup(&sh->kv, kv, runconf_total_clients(rc), mixed, "1:10", err);
}

static void rd_release(void *shared);

static void *
rd_prepare(const struct runconf *rc, const void *opts, char *err)
{
    const struct kv_conf *kv = opts;
    struct rd_shared *sh = xcalloc(1, sizeof(*sh));
    redisContext *ctx = NULL;
    redisReader *reader;
    int cluster;

    sh->t = *(const struct redis_target *)rc->tgt.parsed;
    if (check_options(sh, rc, kv, err) < 0 ||
        (sh->t.tls && (sh->tls = rtls_ctx_new(&sh->t, err)) == NULL))
        goto fail;
    redis_target_where(&sh->t, sh->where, sizeof sh->where);
    sh->depth = kv->pipeline;
    format_requests(sh);
    format_handshake(sh);
    sh->fns = (redisReplyObjectFunctions){reply_string, reply_array, reply_integer, reply_nil,
                                          reply_free};
    sh->tree_fns =
        (redisReplyObjectFunctions){tree_string, tree_array, tree_integer, tree_nil, tree_free};
    if ((reader = redisReaderCreate()) == NULL) {
        seterr(err, "out of memory");
        goto fail;
    }
    sh->hiredis = reader->fn; /* hiredis's own functions, static: they outlive the reader */
    redisReaderFree(reader);
    if (redis_connect_blocking(&sh->t, RD_CONNECT_TIMEOUT_MS, &ctx, &sh->tls_info, err) < 0 ||
        rd_detect_cluster(sh, &ctx, &cluster, err) < 0 ||
        (cluster && rd_load_cluster(sh, rc, ctx, err) < 0))
        goto fail;
    for (int i = 0; i < sh->mix.n; i++)
        if (sh->mix.e[i].script != NULL && redis_script_check(ctx, sh->mix.e[i].script, err) < 0)
            goto fail;
    if (kv->fill && fill_keys(sh, rc->quiet, ctx, err) < 0)
        goto fail;
    redisFree(ctx);
    return sh;
fail:
    if (ctx != NULL)
        redisFree(ctx);
    rd_release(sh);
    return NULL;
}

static void
rd_release(void *shared)
{
    struct rd_shared *sh = shared;
    int i;

    for (i = 0; i < OP__COUNT; i++)
        free(sh->cmd[i].buf);
    kv_release(&sh->kv);
    free(sh->stmt_id);
    free(sh->labels);
    mix_free(&sh->mix);
    if (sh->hs != NULL)
        explicit_bzero(sh->hs, sh->hs_len); /* it holds the password */
    free(sh->hs);
    rtls_ctx_free(sh->tls);
    free(sh->map);
    free(sh->own);
    explicit_bzero(&sh->t, sizeof sh->t);
    free(sh);
}

/* ---- per-connection callbacks (worker threads, never blocking) ---- */

/* The bytes one transaction's commands take at most. */
size_t
rd_request_room(const struct rd_shared *sh)
{
    return sh->longest > sh->script_request ? sh->longest : sh->script_request;
}

static void *
rd_conn_new(void *shared, int client_id, struct rng *rng)
{
    struct rd_shared *sh = shared;
    struct rd_conn *c = xcalloc(1, sizeof(*c));

    c->sh = sh;
    c->rng = rng;
    /* room for a full pipe up to RD_OBUF_START; past that it grows once, on demand */
    size_t longest = sh->longest > sh->script_request ? sh->longest : sh->script_request;
    c->ocap = (size_t)sh->depth * longest + sh->hs_len;
    if (c->ocap > RD_OBUF_START)
        c->ocap = RD_OBUF_START > longest + sh->hs_len ? RD_OBUF_START : longest + sh->hs_len;
    c->obuf = xmalloc(c->ocap);
    /* seq: each connection sweeps the whole key space, from its own share's start */
    c->seq = kv_first_key(&sh->kv, client_id);
    c->due = xcalloc((size_t)sh->depth, sizeof *c->due);
    c->line = xmalloc(sh->script_line + 1);
    c->vars[0] = client_id;
    c->vars[1] = (int64_t)sh->kv.keys;
    c->client_id = client_id;
    c->ask_next = client_id; /* the clients of a master gone ask the others in turn */
    c->away = -1;
    snprintf(c->where, sizeof c->where, "%s", sh->where);
    if (sh->map != NULL) {
        rd_cluster_conn(c);
        rd_pin_master(c, sh->map, client_id % sh->map->nnodes);
    }
    return c;
}

/* The TLS session, then the socket (the session's goodbye goes out first); nothing left to send. */
static void
close_ctx(struct rd_conn *c)
{
    rtls_free(c->tls);
    c->tls = NULL;
    if (c->ctx != NULL)
        redisFree(c->ctx);
    c->ctx = NULL;
    c->olen = c->opos = 0;
}

void
rd_conn_disconnect(void *conn)
{
    struct rd_conn *c = conn;

    if (c->own != NULL && c->ctx != NULL && c->step == STEP_CONNECTING && !c->asking &&
        !c->unreached) {
        c->unreached = 1; /* the master did not answer the connect (--stall-timeout) */
        snprintf(c->down, sizeof c->down, "cannot connect to %.200s: no answer", c->where);
    }
    close_ctx(c);
    c->due_head = c->due_n = 0;
    if (c->asking) /* c->where named the master asked */
        rd_name_node(c->where, sizeof c->where, c->host, c->port);
    c->asking = 0;
    c->step = STEP_CONNECTING;
    c->refreshing = 0; /* a CLUSTER SLOTS in flight went with the connection */
    for (int i = 0; i < c->nside; i++)
        if (c->side[i] != NULL) /* a detour in flight went too */
            rd_conn_disconnect(c->side[i]);
    c->away = -1;
}

void
rd_conn_free(void *conn)
{
    struct rd_conn *c = conn;

    rd_conn_disconnect(c);
    if (c->session != NULL)
        rtls_session_free(&c->session);
    free(c->obuf);
    for (int i = 0; c->own != NULL && i < c->sh->depth; i++) {
        free(c->due[i].req);
        free(c->due[i].part);
    }
    free(c->due);
    free(c->line);
    free(c->own);
    for (int i = 0; i < c->nside; i++)
        if (c->side[i] != NULL)
            rd_conn_free(c->side[i]);
    free(c->side);
    free(c);
}

static int
rd_conn_fd(void *conn)
{
    struct rd_conn *c = conn;

    if (c->away >= 0) /* a detour: its reply comes on a side connection */
        c = c->side[c->away];
    return c->ctx ? c->ctx->fd : -1;
}

/* Makes room for n more bytes at obuf + olen. */
static void
reserve_out(struct rd_conn *c, size_t n)
{
    if (c->olen + n > c->ocap && c->opos > 0) {
        /* the front was sent: make room there before growing */
        memmove(c->obuf, c->obuf + c->opos, c->olen - c->opos);
        c->olen -= c->opos;
        c->opos = 0;
    }
    if (c->olen + n > c->ocap) {
        c->ocap = (c->olen + n) * 2;
        c->obuf = xrealloc(c->obuf, c->ocap);
    }
}

void
rd_queue_bytes(struct rd_conn *c, const char *bytes, size_t n)
{
    reserve_out(c, n);
    memcpy(c->obuf + c->olen, bytes, n);
    c->olen += n;
}

/* One send of what is queued, plain or through TLS: bytes sent, or RTLS_WANT_* / RTLS_ERROR. */
static long
send_some(struct rd_conn *c, char *msg, size_t msglen)
{
    const char *p = c->obuf + c->opos;
    size_t n = c->olen - c->opos;
    char why[160];
    ssize_t w;
    long tw;

    if (c->tls != NULL) {
        if ((tw = rtls_write(c->tls, p, n, why, sizeof why)) == RTLS_ERROR)
            snprintf(msg, msglen, "%.120s: %.120s", c->where, why);
        return tw;
    }
    do
        w = send(c->ctx->fd, p, n, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w >= 0)
        return (long)w;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return RTLS_WANT_WRITE;
    snprintf(msg, msglen, "%.120s: %.120s", c->where, strerror(errno));
    return RTLS_ERROR;
}

/*
 * Sends what is queued: DRV_WANT_READ when all went, DRV_WANT_WRITE when the
 * socket is full (DRV_WANT_READ too when TLS must read before it writes).
 */
static enum drv_status
flush_out(struct rd_conn *c, char *msg, size_t msglen)
{
    while (c->opos < c->olen) {
        long n = send_some(c, msg, msglen);
        if (n == RTLS_WANT_WRITE)
            return DRV_WANT_WRITE;
        if (n == RTLS_WANT_READ)
            return DRV_WANT_READ;
        if (n < 0)
            return DRV_ERROR;
        c->opos += (size_t)n;
    }
    c->olen = c->opos = 0;
    return DRV_WANT_READ;
}

/*
 * Hands what is queued to the worker's sendq (driver.h): obuf stays as it
 * is until the engine calls again, which it does once all of it went.
 */
static enum drv_status
queue_out(struct rd_conn *c, struct txn_result *res)
{
    c->siov = (struct iovec){.iov_base = c->obuf + c->opos, .iov_len = c->olen - c->opos};
    c->smsg = (struct msghdr){.msg_iov = &c->siov, .msg_iovlen = 1};
    sendq_send(res->sendq, res->send_tag, c->ctx->fd, &c->smsg);
    c->olen = c->opos = 0;
    return DRV_WANT_READ;
}

/* One read, plain or through TLS: bytes read, 0 closed, or RTLS_WANT_* / RTLS_ERROR (why). */
static long
recv_some(struct rd_conn *c, char *buf, size_t len, char *why, size_t whylen)
{
    ssize_t n;

    if (c->tls != NULL)
        return rtls_read(c->tls, buf, len, why, whylen);
    do
        n = recv(c->ctx->fd, buf, len, 0);
    while (n < 0 && errno == EINTR);
    if (n >= 0)
        return (long)n;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return RTLS_WANT_READ;
    snprintf(why, whylen, "%s", strerror(errno));
    return RTLS_ERROR;
}

/*
 * Reads what the socket has into the reader: 1 read some, 0 nothing yet, 2
 * nothing until the socket is writable (TLS), -1 lost (msg). A plain read
 * that came back short emptied the socket; a TLS read returns one record
 * at most, so whether it left anything is OpenSSL's to say (rtls_drained).
 */
static int
read_in(struct rd_conn *c, char *msg, size_t msglen)
{
    char buf[RD_READ_CHUNK], why[160];
    long n = recv_some(c, buf, sizeof buf, why, sizeof why);

    c->unread = c->tls != NULL ? n > 0 && !rtls_drained(c->tls) : n == (long)sizeof buf;
    if (n > 0) {
        if (redisReaderFeed(c->ctx->reader, buf, (size_t)n) != REDIS_OK) {
            snprintf(msg, msglen, "%.120s: %.120s", c->where, c->ctx->reader->errstr);
            return -1;
        }
        /* the reader keeps a bulk string until its last byte: a $2147483647 took 2 GB */
        if (c->ctx->reader->len - c->ctx->reader->pos <= RD_REPLY_BYTES)
            return 1;
        snprintf(msg, msglen, "%.120s sent a reply of more than %d MiB", c->where,
                 RD_REPLY_BYTES >> 20);
        c->too_large = 1;
        return -1;
    }
    if (n == 0) {
        snprintf(msg, msglen, "%.200s closed the connection", c->where);
        return -1;
    }
    if (n == RTLS_WANT_READ || n == RTLS_WANT_WRITE)
        return n == RTLS_WANT_READ ? 0 : 2;
    snprintf(msg, msglen, "%.120s: %.120s", c->where, why);
    return -1;
}

/*
 * Takes the next complete reply (its type in c->rtype, an error's text in
 * c->errmsg): DRV_DONE. Replies already read come first; only when there is
 * none left is the queue sent (in one send()) and the socket read. After a
 * send it waits for the socket rather than read at once: the answer cannot be
 * there yet, and the worker's epoll serves every connection in one call. It
 * waits only on an emptied socket (.reads_drain): after a read that filled
 * its buffer it reads on. With res->sendq (not for the handshake: res
 * NULL) the queue goes to the worker's batch instead, unless a read is due.
 */
enum drv_status
rd_next_reply(struct rd_conn *c, struct txn_result *res, char *msg, size_t msglen)
{
    void *reply;
    enum drv_status st;

    for (;;) {
        if (redisReaderGetReply(c->ctx->reader, &reply) != REDIS_OK) {
            snprintf(msg, msglen, "%.100s sent something that is not a Redis reply: %.100s",
                     c->where, c->ctx->reader->errstr);
            return DRV_ERROR;
        }
        if (reply != NULL) {
            if (c->ctx->reader->fn == &c->sh->tree_fns)
                c->tree = reply; /* CLUSTER SLOTS's, as a tree */
            return DRV_DONE;
        }
        if (c->opos < c->olen && res != NULL && res->sendq != NULL && !c->unread && !c->tls)
            return queue_out(c, res);
        if (c->opos < c->olen && ((st = flush_out(c, msg, msglen)) != DRV_WANT_READ || !c->unread))
            return st;
        switch (read_in(c, msg, msglen)) {
        case -1:
            return DRV_ERROR;
        case 0:
            return DRV_WANT_READ;
        case 2:
            return DRV_WANT_WRITE;
        }
    }
}

/*
 * A non-blocking connect to host:port (NULL: the target's host, or its
 * socket), its replies read by c's reader; NULL with err.
 */
redisContext *
rd_open_socket(struct rd_conn *c, const char *host, int port, char *err)
{
    const struct redis_target *t = &c->sh->t;
    redisContext *ctx;
    char where[300];
    int one = 1;

    ctx = host != NULL ? redisConnectNonBlock(host, port)
          : t->path[0] ? redisConnectUnixNonBlock(t->path)
                       : redisConnectNonBlock(t->host, t->port);
    if (host != NULL)
        rd_name_node(where, sizeof where, host, port);
    else
        redis_target_where(t, where, sizeof where);
    if (ctx == NULL || ctx->err) {
        seterr(err, "cannot connect to %s: %s", where, ctx ? ctx->errstr : "out of memory");
        if (ctx != NULL)
            redisFree(ctx);
        return NULL;
    }
    if (host != NULL || !t->path[0])
        setsockopt(ctx->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* hiredis 0.14 takes a non-const pointer; it never writes through it */
    ctx->reader->fn = (redisReplyObjectFunctions *)&c->sh->fns;
    ctx->reader->privdata = c;
    ctx->reader->maxbuf = 0; /* keep its buffer: no free and malloc between replies */
    return ctx;
}

/*
 * c's connection becomes ctx, connecting. ctx was opened before the old
 * one closes, so its fd's number is not the old one's: the worker's epoll
 * registers it anew (worker_watch).
 */
enum drv_status
rd_switch_ctx(struct rd_conn *c, redisContext *ctx)
{
    close_ctx(c);
    c->ctx = ctx;
    c->unread = c->too_large = 0;
    c->step = STEP_CONNECTING;
    return DRV_WANT_WRITE;
}

/* Connects to c's master (a cluster's), its side node, or the target. */
enum drv_status
rd_connect_own(struct rd_conn *c, char *err)
{
    const char *host = c->own != NULL || c->is_side ? c->host : NULL;
    redisContext *ctx = rd_open_socket(c, host, c->port, err);

    if (ctx == NULL)
        return rd_unreached(c, err);
    c->peer = host;
    return rd_switch_ctx(c, ctx);
}

enum drv_status
rd_conn_connect_start(void *conn, char *err)
{
    struct rd_conn *c = conn;

    c->asked = 0;
    return c->unreached ? rd_ask_map(c, err) : rd_connect_own(c, err);
}

/* Set up (AUTH, SELECT done): ready, or when asking, CLUSTER SLOTS sent, read as a tree. */
static void
set_up(struct rd_conn *c)
{
    static const char slots[] = "*2\r\n$7\r\nCLUSTER\r\n$5\r\nSLOTS\r\n";

    if (!c->asking) {
        c->step = STEP_READY;
        c->unreached = 0;
        return;
    }
    rd_queue_bytes(c, slots, sizeof slots - 1);
    c->ctx->reader->fn = (redisReplyObjectFunctions *)&c->sh->tree_fns;
    c->tree_objs = 0;
    c->step = STEP_MAP;
}

/* Queues AUTH and SELECT, if the target asks for them; else set up at once. */
static void
start_setup(struct rd_conn *c)
{
    c->step = STEP_HANDSHAKE;
    if (c->sh->hs_count == 0) {
        set_up(c);
        return;
    }
    rd_queue_bytes(c, c->sh->hs, c->sh->hs_len);
    c->hs_left = c->sh->hs_count;
}

/* The TCP connect's outcome: TLS next, or the set-up; a refusal is rd_unreached's (or
 * rd_ask_none's). */
static enum drv_status
poll_connect(struct rd_conn *c, char *err)
{
    int e = socket_error(c->ctx->fd);

    if (e != 0) {
        seterr(err, "cannot connect to %s: %s", c->where, strerror(e));
        return c->asking ? rd_ask_none(c, err) : rd_unreached(c, err);
    }
    if (c->sh->tls == NULL) {
        start_setup(c);
        return DRV_DONE;
    }
    c->tls = rtls_new(c->sh->tls, c->ctx->fd, c->peer, c->asking ? NULL : &c->session);
    c->step = STEP_TLS;
    return DRV_DONE;
}

static enum drv_status
poll_tls(struct rd_conn *c, char *err)
{
    int e = rtls_handshake(c->tls, c->where, err);

    if (e == 0) {
        start_setup(c);
        return DRV_DONE;
    }
    return e == RTLS_WANT_READ ? DRV_WANT_READ : e == RTLS_WANT_WRITE ? DRV_WANT_WRITE : DRV_ERROR;
}

/* AUTH's and SELECT's replies. */
static enum drv_status
poll_handshake(struct rd_conn *c, char *err)
{
    char msg[256];
    enum drv_status st;

    while ((st = rd_next_reply(c, NULL, msg, sizeof msg)) == DRV_DONE) {
        if (c->rtype == REDIS_REPLY_ERROR) {
            seterr(err, "%s refused the connection's set-up: %s", c->where, c->errmsg);
            return DRV_ERROR;
        }
        if (--c->hs_left == 0) {
            set_up(c);
            return DRV_DONE;
        }
    }
    if (st == DRV_ERROR)
        seterr(err, "%s", msg);
    return st;
}

enum drv_status
rd_conn_connect_poll(void *conn, char *err)
{
    struct rd_conn *c = conn;
    enum drv_status st = DRV_DONE;

    if (c->step == STEP_CONNECTING && (st = poll_connect(c, err)) != DRV_DONE)
        return st;
    if (c->step == STEP_TLS && (st = poll_tls(c, err)) != DRV_DONE)
        return st;
    if (c->step == STEP_HANDSHAKE && (st = poll_handshake(c, err)) != DRV_DONE)
        return st;
    return c->step == STEP_MAP ? rd_poll_map(c, err) : st;
}

static enum rd_op
next_op(struct rd_conn *c, enum rd_workload wl)
{
    const struct rd_shared *sh = c->sh;

    switch (wl) {
    case RD_WL_GET:
        return OP_GET;
    case RD_WL_SET:
        return OP_SET;
    case RD_WL_INCR:
        return OP_INCR;
    case RD_WL_MIXED:
        break;
    }
    return kv_next_is_set(&sh->kv, c->rng) ? OP_SET : OP_GET;
}

/* A transaction queued: it waits for n replies (-r: the label of the first is id). */
static struct rd_due *
push_due(struct rd_conn *c, int n, int id, const struct txn_result *res)
{
    int slot = c->due_head + c->due_n++;
    struct rd_due *d = &c->due[slot < c->sh->depth ? slot : slot - c->sh->depth];

    d->left = n;
    d->map = 0;
    d->id = id;
    d->s = NULL;
    d->nparts = d->got = d->redirected = 0;
    if (res->stmts != NULL)
        d->sent_us = now_us();
    return d;
}

/* The index of the script's first command at or after i (not a \set line). */
static int
next_command(const struct script *s, int i)
{
    while (i < s->ncmds && s->cmds[i].kind != SCRIPT_SQL)
        i++;
    return i;
}

/* -r: one reply of the oldest transaction came. */
static void
count_reply(struct rd_conn *c, struct rd_due *d, struct txn_result *res)
{
    int id = d->s != NULL ? c->sh->stmt_id[d->first + d->at] : d->id;

    stmt_record(res, id, now_us() - d->sent_us, c->rtype == REDIS_REPLY_ERROR);
    if (d->s != NULL)
        d->at = next_command(d->s, d->at + 1);
}

/* Queues a script's commands, all at once: its transaction ends with their last reply. */
static enum drv_status
queue_script(struct rd_conn *c, int e, struct txn_result *res)
{
    const struct script *s = c->sh->mix.e[e].script;
    struct rd_due *d;
    char err[BT_ERRLEN];
    int n;
    long len;

    reserve_out(c, c->sh->script_request);
    len = redis_script_render(s, c->vars, c->rng, c->line, c->sh->script_line + 1,
                              c->obuf + c->olen, &n, err);
    if (len < 0) {
        res->err = ERR_OTHER;
        first_line(res->msg, sizeof res->msg, err);
        return DRV_DONE; /* nothing was sent */
    }
    c->olen += (size_t)len;
    d = push_due(c, n, -1, res);
    d->s = s;
    d->first = c->sh->first[e];
    d->at = next_command(s, 0);
    if (c->own != NULL)
        rd_route_script(c, d, (size_t)len);
    return DRV_WANT_WRITE;
}

/* Queues one request (or a script's); conn_txn_poll sends it with the others queued meanwhile. */
static enum drv_status
rd_conn_txn_start(void *conn, struct txn_result *res)
{
    struct rd_conn *c = conn;
    int e = mix_pick(&c->sh->mix, c->rng), map;
    enum rd_op op;
    const struct rd_cmd *cmd;
    struct rd_due *d;
    char *digits;

    if (c->sh->mix.e[e].script != NULL)
        return queue_script(c, e, res);
    op = next_op(c, (enum rd_workload)c->sh->mix.e[e].builtin);
    cmd = &c->sh->cmd[op];
    map = c->own != NULL && c->stale && !c->refreshing && rd_queue_refresh(c);
    rd_queue_bytes(c, cmd->buf, cmd->len);
    digits = c->obuf + c->olen - cmd->len + cmd->key_at;
    if (c->own != NULL) /* -1: none of its keys found; it goes anyway, and MOVED says so */
        redis_draw_key(&c->sh->kv, &c->seq, c->rng, c->own, digits + RD_KEY_DIGITS - cmd->key_len,
                       cmd->key_len - RD_KEY_DIGITS, RD_KEY_DIGITS);
    else
        kv_put_digits(digits, RD_KEY_DIGITS, kv_next_key(&c->sh->kv, &c->seq, c->rng));
    d = push_due(c, 1 + map,
                 c->sh->op_label[e] + (op == OP_SET && c->sh->mix.e[e].builtin == RD_WL_MIXED),
                 res);
    d->map = map;
    if (c->own != NULL) { /* kept, for an ASK */
        memcpy(d->req, c->obuf + c->olen - cmd->len, cmd->len);
        d->part[d->nparts++] = (struct rd_part){0, (uint32_t)cmd->len, -1};
    }
    return DRV_WANT_WRITE;
}

/* The oldest transaction's next reply: on c's own connection, or a detour's. */
static enum drv_status
take_reply(struct rd_conn *c, struct rd_due *d, struct txn_result *res)
{
    enum drv_status st;

    if (c->away < 0 && !d->map && d->got < d->nparts && d->part[d->got].node >= 0) {
        c->away = d->part[d->got].node; /* a script's command for another master */
        c->away_ask = c->away_left = 0;
    }
    if (c->away >= 0)
        return rd_detour_poll(c, d);
    if (d->map) /* CLUSTER SLOTS's reply comes next: read as a tree, until it is whole */
        c->ctx->reader->fn = (redisReplyObjectFunctions *)&c->sh->tree_fns;
    st = rd_next_reply(c, res, res->msg, sizeof res->msg);
    if (st == DRV_ERROR) /* ERR_DRIVER_1: reply_too_large (rd_err_kinds) */
        res->err = c->too_large ? ERR_DRIVER_1 : ERR_CONN;
    return st;
}

#define MAXCLIENTS_ERR "ERR max number of clients reached"

/* DRV_DONE when the oldest transaction's last reply came; its first error is its outcome. */
static enum drv_status
rd_conn_txn_poll(void *conn, struct txn_result *res)
{
    struct rd_conn *c = conn;
    struct rd_due *d = &c->due[c->due_head];
    enum drv_status st;

    for (;;) {
        if ((st = take_reply(c, d, res)) != DRV_DONE)
            return st;
        if (d->map) {
            d->map = 0;
            d->left--; /* the request after it is still due */
            if (rd_take_map(c, res) < 0) {
                res->err = ERR_DRIVER_2; /* moved: lose_in_transaction counts it so */
                return DRV_ERROR;
            }
            continue;
        }
        if (rd_follow_ask(c, d))
            continue;
        d->got++;
        d->redirected = 0;
        res->ops++;
        /*
         * At maxclients Redis takes the connection, says so, and closes it:
         * the refusal is the connection's (once, not again as the broken
         * pipe of the next request: 861 + 861 for 861 refusals, trial 7)
         */
        if (c->rtype == REDIS_REPLY_ERROR && strncmp(c->errmsg, MAXCLIENTS_ERR, 33) == 0) {
            res->err = ERR_CONN;
            snprintf(res->msg, sizeof res->msg, "%s", c->errmsg);
            return DRV_ERROR;
        }
        if (c->rtype == REDIS_REPLY_ERROR) {
            enum err_kind k = rd_error_kind(c);

            if (res->err == ERR_NONE) {
                res->err = k;
                snprintf(res->msg, sizeof res->msg, "%s", c->errmsg);
            }
        }
        if (res->stmts != NULL)
            count_reply(c, d, res);
        if (--d->left == 0)
            break;
    }
    c->due_head = c->due_head + 1 == c->sh->depth ? 0 : c->due_head + 1;
    c->due_n--;
    return DRV_DONE;
}

/* Whether prepare's connection was TLS, and which (the record's "tls"). */
static void
rd_tls(const void *shared, struct drv_tls *out)
{
    const struct rd_shared *sh = shared;

    *out = sh->tls_info;
}

/* ERR_DRIVER_1.., in order: a reply too large, a cluster's MOVED and ASK (rd_error_kind). */
/* A cluster's line for the summary; "" for a standalone server. */
static const char *
rd_target_note(const void *shared)
{
    const struct rd_shared *sh = shared;

    return sh->note;
}

/* A cluster's masters: their processes are the server's side of the host's CPU. */
static int
rd_server_ports(const void *shared, int *ports, int max)
{
    const struct rd_shared *sh = shared;
    int n = 0;

    for (int i = 0; sh->map != NULL && i < sh->map->nnodes && n < max; i++)
        ports[n++] = sh->map->node[i].port;
    return n;
}

static const char *const rd_err_kinds[] = {"reply_too_large", "moved", "ask", "clusterdown", NULL};

static int
rd_stmt_labels(const void *shared, const struct stmt_label **out)
{
    const struct rd_shared *sh = shared;

    *out = sh->labels;
    return sh->nlabels;
}

static int
rd_init(const struct init_conf *ic, char *err)
{
    return seterr(err, "redis needs no init: the run makes its keys (add --fill to the run to "
                       "write every key first)");
}

static int
rd_pipeline_depth(const void *opts)
{
    const struct kv_conf *kv = opts;

    return kv->pipeline;
}

static const struct driver_options rd_options[] = {
    {&kv_options, 0}, {&pipeline_option_group, offsetof(struct kv_conf, pipeline)}, {NULL, 0}};
static const char *const rd_demo_options[] = {"fill=1", NULL}; /* so that gets hit */

const struct driver_class redis_driver_class = {
    .name = "redis",
    .version_note = rtls_note,
    .schemes = redis_schemes,
    .workloads = rd_workloads,
    .modes = rd_modes,
    .pipelining = 1,
    .reads_drain = 1,
    .options = rd_options,
    .options_size = sizeof(struct kv_conf),
    .demo_options = rd_demo_options,
    .pipeline_depth = rd_pipeline_depth,
    .claims = NULL,
    .mask = redis_mask_target,
    .parse = redis_target_new,
    .free_parsed = redis_target_delete,
    .prepare = rd_prepare,
    .release = rd_release,
    .tls = rd_tls,
    .target_note = rd_target_note,
    .server_ports = rd_server_ports,
    .conn_new = rd_conn_new,
    .conn_free = rd_conn_free,
    .conn_fd = rd_conn_fd,
    .conn_connect_start = rd_conn_connect_start,
    .conn_connect_poll = rd_conn_connect_poll,
    .conn_txn_start = rd_conn_txn_start,
    .conn_txn_poll = rd_conn_txn_poll,
    .conn_disconnect = rd_conn_disconnect,
    .stmt_labels = rd_stmt_labels,
    .err_kinds = rd_err_kinds,
    .init = rd_init,
};
