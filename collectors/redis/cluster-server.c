/*
 * redis/cluster-server: throwaway Redis Clusters for `benchtop serve` and
 * the integration tests, each of redis-server --cluster-enabled yes on
 * 127.0.0.1, keeping nothing (no RDB, no AOF), joined by `redis-cli
 * --cluster create ... --cluster-yes`:
 *   redis-cluster           three masters;
 *   redis-cluster-replicas  three masters with a replica each, and a node
 *                           timeout of 1 s, so that a master killed is
 *                           failed over within seconds;
 *   redis-cluster-tls       three masters on TLS only (port 0, tls-port,
 *                           tls-cluster, tls-replication), with a
 *                           certificate the class makes (DIR/server.crt,
 *                           its own CA; the target's cacert= names it).
 * s->port and s->target are the first node (a master: redis-cli makes the
 * first nodes it is given the masters); the others are its priv. A node's
 * cluster bus is its port plus 10000, so the ports are picked below 55536
 * with that one free too. There is no restart: a cluster's nodes.conf
 * would have to be kept.
 */
#include "base/throwaway.h"

#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/util.h"
#include "redis.h"
#include "tls.h"

enum {
    RC_MAX_NODES = 6,
    RC_MAX_ARGS = 48,
    RC_START_MS = 10000,
    RC_STOP_MS = 10000,
    RC_PORT_TRIES = 200,
    RC_JOIN_MS = 30000,
    RC_POLL_MS = 50,
    RC_CHECK_MS = 1000
};

/* One kind of throwaway cluster. */
struct rc_shape {
    int masters;
    int replicas;                /* each master's */
    const char *node_timeout_ms; /* cluster-node-timeout; NULL: redis-server's (15 s) */
    int tls;
};

static const struct rc_shape rc_plain = {3, 0, NULL, 0};
static const struct rc_shape rc_replicas = {3, 1, "1000", 0};
static const struct rc_shape rc_tls = {3, 0, NULL, 1};

static const char *const rc_server_globs[] = {
    "/usr/bin/redis-server", "/usr/local/bin/redis-server", "/opt/redis*/bin/redis-server", NULL};
static const char *const rc_cli_globs[] = {"/usr/bin/redis-cli", "/usr/local/bin/redis-cli",
                                           "/opt/redis*/bin/redis-cli", NULL};
static const char *const rc_openssl_globs[] = {"/usr/bin/openssl", "/usr/local/bin/openssl", NULL};

struct rc_priv {
    const struct rc_shape *shape;
    int nodes;
    char server[PATH_MAX];
    char cli[PATH_MAX];
    char crt[240], key[240]; /* TLS: the certificate (its own CA) and its key */
    int port[RC_MAX_NODES];
    pid_t pid[RC_MAX_NODES]; /* [0] is s->pid */
};

/* An argument list being built: argv[n] stays NULL. */
struct rc_args {
    char *v[RC_MAX_ARGS];
    int n;
};

static void
add_args(struct rc_args *a, const char *const *words)
{
    for (; *words != NULL && a->n < RC_MAX_ARGS - 1; words++)
        a->v[a->n++] = (char *)*words;
    a->v[a->n] = NULL;
}

/* 1 when 127.0.0.1:port can be bound now. */
static int
port_free(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

    if (fd < 0)
        return 0;
    ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

/* A port in 20000..45535 free with its bus port (+10000), not in taken[0..n). */
static int
pick_port(const int *taken, int n, char *err)
{
    for (int t = 0; t < RC_PORT_TRIES; t++) {
        int p = 20000 + (int)(((unsigned)getpid() * 7919u + (unsigned)t * 104729u) % 25536u);
        int clash = 0;

        for (int i = 0; i < n; i++)
            clash |= taken[i] == p;
        if (!clash && port_free(p) && port_free(p + 10000))
            return p;
    }
    snprintf(err, BT_ERRLEN, "no free port pair (P, P+10000) on 127.0.0.1 after %d tries",
             RC_PORT_TRIES);
    return -1;
}

/*
 * The TLS shape's certificate: self-signed for localhost and 127.0.0.1, so
 * it is its own CA; the nodes present it to each other too (the cluster
 * bus asks for a client's certificate).
 */
static int
make_cert(struct server *s, struct rc_priv *p, char *err)
{
    char prog[PATH_MAX], log[320];
    char *argv[] = {prog,
                    "req",
                    "-x509",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:prime256v1",
                    "-nodes",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=localhost",
                    "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout",
                    p->key,
                    "-out",
                    p->crt,
                    NULL};

    snprintf(p->crt, sizeof p->crt, "%.200s/server.crt", s->dir);
    snprintf(p->key, sizeof p->key, "%.200s/server.key", s->dir);
    snprintf(log, sizeof log, "%s/openssl.log", s->dir);
    if (server_find_program("openssl", rc_openssl_globs, prog, sizeof prog) < 0) {
        snprintf(err, BT_ERRLEN, "openssl not found (apt-get install openssl)");
        return -1;
    }
    if (server_run(s, argv, log, err) < 0) {
        snprintf(err, BT_ERRLEN, "openssl req could not make %s (see %.200s)", p->crt, log);
        return -1;
    }
    return 0;
}

/* The shape's arguments of a node on port. */
static void
shape_args(const struct rc_priv *p, const char *port, struct rc_args *a)
{
    const char *plain[] = {"--port", port, NULL};
    const char *tls[] = {"--port",
                         "0",
                         "--tls-port",
                         port,
                         "--tls-cert-file",
                         p->crt,
                         "--tls-key-file",
                         p->key,
                         "--tls-ca-cert-file",
                         p->crt,
                         "--tls-cluster",
                         "yes",
                         "--tls-replication",
                         "yes",
                         "--tls-auth-clients",
                         "no",
                         NULL};
    /* a replica's first sync starts at once, not after 5 s waiting for others */
    const char *timeout[] = {"--cluster-node-timeout", p->shape->node_timeout_ms,
                             "--repl-diskless-sync-delay", "0", NULL};

    add_args(a, p->shape->tls ? tls : plain);
    if (p->shape->node_timeout_ms != NULL)
        add_args(a, timeout);
}

/* Starts node i (logging to DIR/node-PORT.log) and waits until it accepts. */
static int
start_node(struct server *s, struct rc_priv *p, int i, char *err)
{
    char port[16], conf[320], log[320];
    const char *node[] = {"--cluster-enabled", "yes", "--cluster-config-file", conf, NULL};
    struct rc_args a = {.v = {p->server}, .n = 1};

    snprintf(port, sizeof port, "%d", p->port[i]);
    snprintf(conf, sizeof conf, "nodes-%d.conf", p->port[i]);
    snprintf(log, sizeof log, "%s/node-%d.log", s->dir, p->port[i]);
    a.n = redis_throwaway_args(s->dir, a.v, a.n);
    add_args(&a, node);
    shape_args(p, port, &a);
    if ((p->pid[i] = server_spawn(s, a.v, log, err)) < 0) {
        p->pid[i] = 0;
        return -1;
    }
    if (server_wait_port(p->port[i], RC_START_MS) < 0) {
        snprintf(err, BT_ERRLEN, "redis-server on port %d did not accept within %d ms (see %s)",
                 p->port[i], RC_START_MS, log);
        return -1;
    }
    return 0;
}

/* redis-cli --cluster create over the nodes (it waits for them to join). */
static int
create_cluster(struct server *s, struct rc_priv *p, char *err)
{
    char addr[RC_MAX_NODES][32], replicas[8], log[320];
    const char *tls[] = {"--tls", "--cacert", p->crt, NULL};
    const char *create[] = {"--cluster", "create", NULL};
    const char *tail[] = {"--cluster-replicas", replicas, "--cluster-yes", NULL};
    struct rc_args a = {.v = {p->cli}, .n = 1};

    if (p->shape->tls)
        add_args(&a, tls);
    add_args(&a, create);
    for (int i = 0; i < p->nodes; i++) {
        const char *one[] = {addr[i], NULL};

        snprintf(addr[i], sizeof addr[i], "127.0.0.1:%d", p->port[i]);
        add_args(&a, one);
    }
    snprintf(replicas, sizeof replicas, "%d", p->shape->replicas);
    add_args(&a, tail);
    snprintf(log, sizeof log, "%s/create.log", s->dir);
    if (server_run(s, a.v, log, err) < 0) {
        snprintf(err, BT_ERRLEN, "redis-cli --cluster create failed (see %s)", log);
        return -1;
    }
    return 0;
}

/* 1 when CLUSTER INFO says cluster_state:ok and the node knows all of p's nodes. */
static int
state_ok(redisContext *c, const struct rc_priv *p)
{
    redisReply *r = redis_command(c, "CLUSTER INFO");
    char known[40];
    int ok;

    snprintf(known, sizeof known, "cluster_known_nodes:%d\r", p->nodes);
    ok = r != NULL && r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok") &&
         strstr(r->str, known);
    if (r != NULL)
        freeReplyObject(r);
    return ok;
}

/*
 * 1 when the node knows every replica as one (CLUSTER NODES: a line
 * flagged "slave" each), so its CLUSTER SLOTS lists them: a replica's
 * role reaches the others by gossip, after redis-cli is done.
 */
static int
replicas_known(redisContext *c, const struct rc_priv *p)
{
    redisReply *r = redis_command(c, "CLUSTER NODES");
    int n = 0;

    for (const char *s = r != NULL && r->type == REDIS_REPLY_STRING ? r->str : NULL;
         s != NULL && (s = strstr(s, "slave")) != NULL; s++)
        n++;
    if (r != NULL)
        freeReplyObject(r);
    return n == p->shape->masters * p->shape->replicas;
}

/* 1 for a master, or a replica whose link to its master is up (its first sync done). */
static int
synced(redisContext *c)
{
    redisReply *r = redis_command(c, "INFO replication");
    int ok = r != NULL && r->type == REDIS_REPLY_STRING &&
             (strstr(r->str, "role:master") || strstr(r->str, "master_link_status:up"));

    if (r != NULL)
        freeReplyObject(r);
    return ok;
}

/* 1 when node i is in the cluster, which it finds ok, knows the replicas, and is synced. */
static int
node_joined(const struct rc_priv *p, int i)
{
    struct redis_target t = {.host = "127.0.0.1", .port = p->port[i], .tls = p->shape->tls};
    char err[BT_ERRLEN];
    redisContext *c;
    int ok;

    snprintf(t.cacert, sizeof t.cacert, "%s", p->crt);
    if (redis_connect_blocking(&t, RC_CHECK_MS, &c, NULL, err) < 0)
        return 0;
    ok = state_ok(c, p) && replicas_known(c, p) && synced(c);
    redisFree(c);
    return ok;
}

/*
 * redis-cli returns once the nodes agree on the configuration; the state
 * turns ok a moment later, on each node, and a replica syncs: wait for
 * that (bounded).
 */
static int
wait_joined(const struct rc_priv *p, char *err)
{
    for (int waited = 0; waited < RC_JOIN_MS; waited += RC_POLL_MS) {
        int all = 1;

        for (int i = 0; i < p->nodes && all; i++)
            all = node_joined(p, i);
        if (all)
            return 0;
        usleep(RC_POLL_MS * 1000);
    }
    snprintf(err, BT_ERRLEN, "the cluster was not ok and synced on all %d nodes within %d ms",
             p->nodes, RC_JOIN_MS);
    return -1;
}

/* The programs, and the TLS shape's certificate. */
static int
prepare(struct server *s, struct rc_priv *p, char *err)
{
    if (server_find_program("redis-server", rc_server_globs, p->server, sizeof p->server) < 0 ||
        server_find_program("redis-cli", rc_cli_globs, p->cli, sizeof p->cli) < 0) {
        snprintf(err, BT_ERRLEN,
                 "redis-server or redis-cli not found (apt-get install redis-server redis-tools)");
        return -1;
    }
    if (p->shape->tls && !rtls_available(err))
        return -1;
    return p->shape->tls ? make_cert(s, p, err) : 0;
}

static int
rc_start_shape(struct server *s, const struct rc_shape *shape, char *err)
{
    struct rc_priv *p = xcalloc(1, sizeof *p);

    s->priv = p;
    p->shape = shape;
    p->nodes = shape->masters * (1 + shape->replicas);
    if (prepare(s, p, err) < 0)
        return -1;
    for (int i = 0; i < p->nodes; i++) {
        if ((p->port[i] = pick_port(p->port, i, err)) < 0 || start_node(s, p, i, err) < 0)
            return -1;
        if (i == 0)
            snprintf(s->log, sizeof s->log, "%s/node-%d.log", s->dir, p->port[0]);
    }
    s->port = p->port[0];
    s->pid = p->pid[0];
    if (create_cluster(s, p, err) < 0 || wait_joined(p, err) < 0)
        return -1;
    if (shape->tls)
        snprintf(s->target, sizeof s->target, "rediss://127.0.0.1:%d?cacert=%s", s->port, p->crt);
    else
        snprintf(s->target, sizeof s->target, "redis://127.0.0.1:%d", s->port);
    return 0;
}

static int
rc_start(struct server *s, char *err)
{
    return rc_start_shape(s, &rc_plain, err);
}

static int
rc_start_replicas(struct server *s, char *err)
{
    return rc_start_shape(s, &rc_replicas, err);
}

static int
rc_start_tls(struct server *s, char *err)
{
    return rc_start_shape(s, &rc_tls, err);
}

static int
rc_restart(struct server *s, char *err)
{
    snprintf(err, BT_ERRLEN, "the redis-cluster server classes have no restart (serve a new one)");
    return -1;
}

static void
rc_stop(struct server *s)
{
    struct rc_priv *p = s->priv;

    if (p == NULL)
        return;
    for (int i = 0; i < p->nodes; i++)
        if (p->pid[i] > 0)
            kill(p->pid[i], SIGTERM);
    for (int i = 0; i < p->nodes; i++)
        if (p->pid[i] > 0 && server_wait_exit(p->pid[i], RC_STOP_MS) < 0) {
            kill(p->pid[i], SIGKILL);
            server_wait_exit(p->pid[i], RC_STOP_MS);
        }
    s->pid = 0;
}

/* serve_only: for the tests; demo offers none of them. */
const struct server_class redis_cluster_server_class = {
    .name = "redis-cluster",
    .start = rc_start,
    .restart = rc_restart,
    .stop = rc_stop,
    .serve_only = 1,
};

const struct server_class redis_cluster_replicas_server_class = {
    .name = "redis-cluster-replicas",
    .start = rc_start_replicas,
    .restart = rc_restart,
    .stop = rc_stop,
    .serve_only = 1,
};

const struct server_class redis_cluster_tls_server_class = {
    .name = "redis-cluster-tls",
    .start = rc_start_tls,
    .restart = rc_restart,
    .stop = rc_stop,
    .serve_only = 1,
};
