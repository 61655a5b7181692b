/*
 * redis-server: a throwaway redis-server for `benchtop serve redis` and the
 * integration tests. It listens on 127.0.0.1 at the port server_create
 * picked and on the Unix socket DIR/redis.sock, works in DIR, and keeps
 * nothing: no RDB snapshots (save "") and no AOF, so a restart (SIGTERM,
 * then the same command again) neither waits for a dump nor loads one. Its
 * log (stdout) is DIR/redis.log.
 */
#include "server.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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
};

/* Waits up to timeout_ms for pid to exit and reaps it; 0 if it did. */
static int
wait_exit(pid_t pid, int timeout_ms)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0), status;
    struct pollfd p = {.fd = fd, .events = POLLIN};

    /* A pidfd turns "exited yet?" into a poll with a timeout: no sleep loop. */
    if (fd >= 0) {
        while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
            ;
        close(fd);
        return waitpid(pid, &status, WNOHANG) == pid ? 0 : -1;
    }
    return waitpid(pid, &status, 0) == pid ? 0 : -1; /* before Linux 5.3 */
}

/* SIGTERM (redis-server exits at once: nothing to save), SIGKILL if it lingers. */
static void
terminate(struct server *s)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGTERM);
    if (wait_exit(s->pid, RD_STOP_TIMEOUT_MS) < 0) {
        kill(s->pid, SIGKILL);
        wait_exit(s->pid, RD_STOP_TIMEOUT_MS);
    }
    s->pid = 0;
}

/* Until the port accepts, or the server died (a port taken meanwhile, a bad option). */
static int
wait_ready(struct server *s, char *err)
{
    int waited, status;

    for (waited = 0; waited < RD_START_TIMEOUT_MS; waited += 100) {
        if (server_wait_port(s->port, 100) == 0)
            return 0;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            s->pid = 0;
            return seterr(err, "redis-server exited while starting");
        }
    }
    return seterr(err, "redis-server is running but 127.0.0.1:%d does not accept connections",
                  s->port);
}

static int
spawn(struct server *s, struct rd_server *rs, char *err)
{
    char port[16], sock[320];
    char *argv[] = {rs->prog, "--port",    port, "--bind",       "127.0.0.1", "--dir",
                    s->dir,   "--save",    "",   "--appendonly", "no",        "--daemonize",
                    "no",     "--logfile", "",   "--unixsocket", sock,        "--unixsocketperm",
                    "700",    "--maxclients", "11000", NULL};

    snprintf(port, sizeof port, "%d", s->port);
    snprintf(sock, sizeof sock, "%s/redis.sock", s->dir);
    s->pid = server_spawn(s, argv, s->log, err);
    if (s->pid < 0) {
        s->pid = 0;
        return -1;
    }
    return wait_ready(s, err);
}

static int
rd_start(struct server *s, char *err)
{
    struct rd_server *rs = xcalloc(1, sizeof *rs);

    s->priv = rs;
    snprintf(s->log, sizeof s->log, "%s/redis.log", s->dir);
    if (server_find_program("redis-server", redis_server_globs, rs->prog, sizeof rs->prog) < 0)
        return seterr(err, "redis-server not found: " RD_SERVER_MISSING_FIX);
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
    char why[BT_ERRLEN], tail[256];

    if (rs == NULL)
        return seterr(err, "the redis server was never started");
    terminate(s);
    if (spawn(s, rs, err) == 0)
        return 0;
    snprintf(why, sizeof why, "%s", err);
    server_log_tail(s->log, tail, sizeof tail);
    return seterr(err, "%s%s%s (log: %s)", why, tail[0] ? ": " : "", tail, s->log);
}

static void
rd_stop(struct server *s)
{
    terminate(s);
    free(s->priv);
    s->priv = NULL;
}

const struct server_class redis_server_class = {
    .name = "redis",
    .start = rd_start,
    .restart = rd_restart,
    .stop = rd_stop,
};
