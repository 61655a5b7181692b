/*
 * redis/server: a throwaway redis-server for `benchtop serve redis` and the
 * integration tests. It listens on 127.0.0.1 at the port server_create
 * picked and on the Unix socket DIR/redis.sock, works in DIR, and keeps
 * nothing: no RDB snapshots (save "") and no AOF, so a restart (SIGTERM,
 * then the same command again) neither waits for a dump nor loads one. Its
 * log (stdout) is DIR/redis.log.
 */
#include "base/throwaway.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "redis.h"

static const char *const redis_server_globs[] = {
    "/usr/bin/redis-server",
    "/usr/local/bin/redis-server",
    "/opt/redis*/bin/redis-server",
    NULL,
};

/*
 * The server's major version, from `redis-server --version` ("Redis server
 * v=7.0.15 ..."); 0 when it cannot tell.
 */
static int
server_major(const struct server *s, char *prog)
{
    char path[PATH_MAX + 16], line[160] = "", err[BT_ERRLEN];
    char *argv[] = {prog, "--version", NULL};
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

int
redis_throwaway_args(const char *dir, char **argv, int n)
{
    const char *const args[] = {
        "--bind", "127.0.0.1",   "--dir", dir,         "--save", "",  "--appendonly",
        "no",     "--daemonize", "no",    "--logfile", "",       NULL};

    for (int i = 0; args[i] != NULL; i++)
        argv[n++] = (char *)args[i];
    return n;
}

/* buf holds the port, then the socket's path. */
static void
rd_argv(const struct server *s, char *prog, char **argv, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "%d", s->port) + 1;
    char *sock = buf + at;
    char *const own[] = {"--unixsocket", sock, "--unixsocketperm", "700", "--maxclients",
                         "11000",        NULL};
    int n = 0;

    snprintf(sock, len - at, "%s/redis.sock", s->dir);
    argv[n++] = prog;
    argv[n++] = "--port";
    argv[n++] = buf;
    n = redis_throwaway_args(s->dir, argv, n);
    for (int i = 0; own[i] != NULL; i++)
        argv[n++] = own[i];
    if (server_major(s, prog) >= 7) { /* DEBUG SLEEP for the tests' slow clients; 7 refuses it */
        argv[n++] = "--enable-debug-command";
        argv[n++] = "local";
    }
    argv[n] = NULL;
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
