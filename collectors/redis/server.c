/*
 * redis/server: a throwaway redis-server for `benchtop serve redis` and the
 * integration tests. It listens on 127.0.0.1 at the port server_create
 * picked and on the Unix socket DIR/redis.sock, works in DIR, and keeps
 * nothing: no RDB snapshots (save "") and no AOF, so a restart (SIGTERM,
 * then the same command again) neither waits for a dump nor loads one. Its
 * log (stdout) is DIR/redis.log. From Redis 7 on it takes DEBUG from
 * local clients (enable-debug-command local), for the tests' slow clients.
 */
#include "base/throwaway.h"
#include "base/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RD_SERVER_MISSING_FIX "install the redis-server package (apt-get install redis-server)"
#define RD_START_TIMEOUT_MS 10000
#define RD_STOP_TIMEOUT_MS 10000

static const char *const redis_server_globs[] = {
    "/usr/bin/redis-server",
    "/usr/local/bin/redis-server",
    "/opt/redis*/bin/redis-server",
    NULL,
};

struct rd_server {
    char prog[PATH_MAX];
    int major; /* redis-server --version's; 0 unknown */
};

/*
 * The server's major version, from `redis-server --version` ("Redis server
 * v=7.0.15 ..."); 0 when it cannot tell.
 */
static int
server_major(struct server *s, const struct rd_server *rs)
{
    char path[PATH_MAX + 16], line[160] = "", err[BT_ERRLEN];
    char *argv[] = {(char *)rs->prog, "--version", NULL};
    const char *v;
    FILE *f;

    snprintf(path, sizeof path, "%s/version.txt", s->dir);
    if (server_run(s, argv, path, err) < 0 || (f = fopen(path, "r")) == NULL)
        return 0;
    if (fgets(line, sizeof line, f) == NULL)
        line[0] = '\0';
    fclose(f);
    v = strstr(line, "v=");
    return v != NULL ? atoi(v + 2) : 0;
}

static int
spawn(struct server *s, struct rd_server *rs, char *err)
{
    char port[16], sock[320];
    char *argv[] = {
        rs->prog, "--port",       port,    "--bind",       "127.0.0.1", "--dir",
        s->dir,   "--save",       "",      "--appendonly", "no",        "--daemonize",
        "no",     "--logfile",    "",      "--unixsocket", sock,        "--unixsocketperm",
        "700",    "--maxclients", "11000", NULL,           NULL,        NULL};

    snprintf(port, sizeof port, "%d", s->port);
    snprintf(sock, sizeof sock, "%s/redis.sock", s->dir);
    if (rs->major >= 7) { /* DEBUG SLEEP for the tests' slow clients; 7 refuses it by default */
        argv[sizeof argv / sizeof argv[0] - 3] = "--enable-debug-command";
        argv[sizeof argv / sizeof argv[0] - 2] = "local";
    }
    s->pid = server_spawn(s, argv, s->log, err);
    if (s->pid < 0) {
        s->pid = 0;
        return -1;
    }
    return server_wait_ready(s, "redis-server", RD_START_TIMEOUT_MS, err);
}

static int
rd_start(struct server *s, char *err)
{
    struct rd_server *rs = xcalloc(1, sizeof *rs);

    s->priv = rs;
    snprintf(s->log, sizeof s->log, "%s/redis.log", s->dir);
    if (server_find_program("redis-server", redis_server_globs, rs->prog, sizeof rs->prog) < 0)
        return seterr(err, "redis-server not found: " RD_SERVER_MISSING_FIX);
    rs->major = server_major(s, rs);
    /* server_create adds the log's last line and keeps it. */
    if (spawn(s, rs, err) < 0)
        return -1;
    snprintf(s->target, sizeof s->target, "redis://127.0.0.1:%d", s->port);
    return 0;
}

static int
rd_restart(struct server *s, char *err)
{
    struct rd_server *rs = s->priv;

    if (rs == NULL)
        return seterr(err, "the redis server was never started");
    /* SIGTERM: redis-server exits at once, having nothing to save. */
    server_stop_pid(s, RD_STOP_TIMEOUT_MS);
    return spawn(s, rs, err) == 0 ? 0 : server_explain(s, err);
}

static void
rd_stop(struct server *s)
{
    server_stop_pid(s, RD_STOP_TIMEOUT_MS);
    free(s->priv);
    s->priv = NULL;
}

const struct server_class redis_server_class = {
    .name = "redis",
    .start = rd_start,
    .restart = rd_restart,
    .stop = rd_stop,
};
