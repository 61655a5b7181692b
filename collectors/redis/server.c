/*
 * redis/server: a throwaway redis-server for `benchtop serve redis` and the
 * integration tests. It listens on 127.0.0.1 at the port server_create
 * picked and on the Unix socket DIR/redis.sock, works in DIR, and keeps
 * nothing: no RDB snapshots (save "") and no AOF, so a restart (SIGTERM,
 * then the same command again) neither waits for a dump nor loads one. Its
 * log (stdout) is DIR/redis.log.
 */
#include "base/throwaway.h"

#include <stdio.h>

static const char *const redis_server_globs[] = {
    "/usr/bin/redis-server",
    "/usr/local/bin/redis-server",
    "/opt/redis*/bin/redis-server",
    NULL,
};

/* buf holds the port, then the socket's path. */
static void
rd_argv(const struct server *s, char *prog, char **argv, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "%d", s->port) + 1;
    char *sock = buf + at;
    char *const args[] = {prog,
                          "--port",
                          buf,
                          "--bind",
                          "127.0.0.1",
                          "--dir",
                          (char *)s->dir,
                          "--save",
                          "",
                          "--appendonly",
                          "no",
                          "--daemonize",
                          "no",
                          "--logfile",
                          "",
                          "--unixsocket",
                          sock,
                          "--unixsocketperm",
                          "700",
                          "--maxclients",
                          "11000",
                          NULL};

    snprintf(sock, len - at, "%s/redis.sock", s->dir);
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        argv[i] = args[i];
}

static const struct single_server rd_single = {
    .program = "redis-server",
    .globs = redis_server_globs,
    .missing_fix = "install the redis-server package (apt-get install redis-server)",
    .log_name = "redis.log",
    .target_scheme = "redis",
    .start_ms = 10000,
    .stop_ms = 10000, /* SIGTERM: redis-server exits at once, having nothing to save */
    .argv = rd_argv,
};

const struct server_class redis_server_class = {
    .name = "redis",
    .single = &rd_single,
};
