/*
 * redis/cluster-server: a throwaway Redis Cluster of three masters for
 * `benchtop serve redis-cluster` and the integration tests: three
 * redis-server --cluster-enabled yes on 127.0.0.1, each keeping nothing
 * (no RDB, no AOF), joined by `redis-cli --cluster create ...
 * --cluster-replicas 0 --cluster-yes`. s->port and s->target are the
 * first node; the others are its priv. A node's cluster bus is its port
 * plus 10000, so the ports are picked below 55536 with that one free too.
 * There is no restart: a cluster's nodes.conf would have to be kept.
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

#include <hiredis.h>

enum {
    RC_NODES = 3,
    RC_START_MS = 10000,
    RC_STOP_MS = 10000,
    RC_PORT_TRIES = 200,
    RC_JOIN_MS = 15000
};

static const char *const rc_server_globs[] = {
    "/usr/bin/redis-server", "/usr/local/bin/redis-server", "/opt/redis*/bin/redis-server", NULL};
static const char *const rc_cli_globs[] = {"/usr/bin/redis-cli", "/usr/local/bin/redis-cli",
                                           "/opt/redis*/bin/redis-cli", NULL};

struct rc_priv {
    char server[PATH_MAX];
    char cli[PATH_MAX];
    int port[RC_NODES];
    pid_t pid[RC_NODES]; /* [0] is s->pid */
};

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

/* Starts node i (logging to DIR/node-PORT.log) and waits until it accepts. */
static int
start_node(struct server *s, struct rc_priv *p, int i, char *err)
{
    char port[16], conf[320], log[320];
    char *argv[] = {p->server,   "--port",
                    port,        "--bind",
                    "127.0.0.1", "--dir",
                    s->dir,      "--save",
                    "",          "--appendonly",
                    "no",        "--daemonize",
                    "no",        "--logfile",
                    "",          "--cluster-enabled",
                    "yes",       "--cluster-config-file",
                    conf,        NULL};

    snprintf(port, sizeof port, "%d", p->port[i]);
    snprintf(conf, sizeof conf, "nodes-%d.conf", p->port[i]);
    snprintf(log, sizeof log, "%s/node-%d.log", s->dir, p->port[i]);
    if ((p->pid[i] = server_spawn(s, argv, log, err)) < 0) {
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

/* redis-cli --cluster create over the three nodes (it waits for them to join). */
static int
create_cluster(struct server *s, struct rc_priv *p, char *err)
{
    char addr[RC_NODES][32];
    char *argv[] = {p->cli,  "--cluster",          "create", addr[0],         addr[1],
                    addr[2], "--cluster-replicas", "0",      "--cluster-yes", NULL};
    char log[320];

    for (int i = 0; i < RC_NODES; i++)
        snprintf(addr[i], sizeof addr[i], "127.0.0.1:%d", p->port[i]);
    snprintf(log, sizeof log, "%s/create.log", s->dir);
    if (server_run(s, argv, log, err) < 0) {
        snprintf(err, BT_ERRLEN, "redis-cli --cluster create failed (see %s)", log);
        return -1;
    }
    return 0;
}

/* 1 when the node at port says cluster_state:ok and knows all three nodes. */
static int
node_joined(int port)
{
    struct timeval tv = {1, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    redisReply *r = c && !c->err ? redisCommand(c, "CLUSTER INFO") : NULL;
    int ok = r && r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok") &&
             strstr(r->str, "cluster_known_nodes:3");

    if (r)
        freeReplyObject(r);
    if (c)
        redisFree(c);
    return ok;
}

/*
 * redis-cli returns once the nodes agree on the configuration; the state
 * turns ok a moment later, on each node: wait for that (bounded).
 */
static int
wait_joined(const struct rc_priv *p, char *err)
{
    for (int waited = 0; waited < RC_JOIN_MS; waited += 50) {
        int all = 1;

        for (int i = 0; i < RC_NODES && all; i++)
            all = node_joined(p->port[i]);
        if (all)
            return 0;
        usleep(50 * 1000);
    }
    snprintf(err, BT_ERRLEN, "the cluster's state was not ok on all %d nodes within %d ms",
             RC_NODES, RC_JOIN_MS);
    return -1;
}

static int
rc_start(struct server *s, char *err)
{
    struct rc_priv *p = xcalloc(1, sizeof *p);

    s->priv = p;
    if (server_find_program("redis-server", rc_server_globs, p->server, sizeof p->server) < 0 ||
        server_find_program("redis-cli", rc_cli_globs, p->cli, sizeof p->cli) < 0) {
        snprintf(err, BT_ERRLEN,
                 "redis-server or redis-cli not found (apt-get install redis-server redis-tools)");
        return -1;
    }
    for (int i = 0; i < RC_NODES; i++) {
        if ((p->port[i] = pick_port(p->port, i, err)) < 0 || start_node(s, p, i, err) < 0)
            return -1;
        if (i == 0)
            snprintf(s->log, sizeof s->log, "%s/node-%d.log", s->dir, p->port[0]);
    }
    s->port = p->port[0];
    s->pid = p->pid[0];
    if (create_cluster(s, p, err) < 0 || wait_joined(p, err) < 0)
        return -1;
    snprintf(s->target, sizeof s->target, "redis://127.0.0.1:%d", s->port);
    return 0;
}

static int
rc_restart(struct server *s, char *err)
{
    snprintf(err, BT_ERRLEN, "the redis-cluster server class has no restart (serve a new one)");
    return -1;
}

static void
rc_stop(struct server *s)
{
    struct rc_priv *p = s->priv;

    if (p == NULL)
        return;
    for (int i = 0; i < RC_NODES; i++)
        if (p->pid[i] > 0)
            kill(p->pid[i], SIGTERM);
    for (int i = 0; i < RC_NODES; i++)
        if (p->pid[i] > 0 && server_wait_exit(p->pid[i], RC_STOP_MS) < 0) {
            kill(p->pid[i], SIGKILL);
            server_wait_exit(p->pid[i], RC_STOP_MS);
        }
    s->pid = 0;
    free(p);
    s->priv = NULL;
}

const struct server_class redis_cluster_server_class = {
    .name = "redis-cluster",
    .start = rc_start,
    .restart = rc_restart,
    .stop = rc_stop,
    .serve_only = 1, /* the load refuses a cluster node, so there is nothing to demo */
};
