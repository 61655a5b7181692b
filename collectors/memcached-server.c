/*
 * memcached-server: a throwaway memcached for `benchtop serve memcached`
 * and the integration tests: 127.0.0.1 only, TCP only (-U 0: no UDP
 * amplification), 64 MB. It keeps nothing on disk, so a restart is a stop
 * and a start on the same port; its output goes to DIR/memcached.log.
 *
 * memcached refuses to run as root without -u; server_spawn already runs it
 * as the unprivileged user server.c picked, so no -u is needed.
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

#define MC_SERVER_MISSING_FIX "install the memcached package (apt-get install memcached)"
#define MC_STOP_TIMEOUT_MS 10000
#define MC_START_TIMEOUT_MS 10000

static const char *const memcached_globs[] = {
    "/usr/bin/memcached",
    "/usr/local/bin/memcached",
    "/usr/sbin/memcached",
    NULL,
};

struct mc_server {
    char prog[PATH_MAX];
};

/* Waits for pid to exit, up to timeout_ms, without a sleep loop: a pidfd is readable at exit. */
static int
wait_exit(pid_t pid, int timeout_ms)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0), status;
    struct pollfd p = {.fd = pfd, .events = POLLIN};

    if (pfd < 0) /* before Linux 5.3: memcached exits promptly on SIGTERM */
        return waitpid(pid, &status, 0) == pid ? 0 : -1;
    while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
        ;
    close(pfd);
    return waitpid(pid, &status, WNOHANG) == pid ? 0 : -1;
}

static void
stop_process(struct server *s)
{
    int status;

    if (s->pid <= 0)
        return;
    kill(s->pid, SIGTERM);
    if (wait_exit(s->pid, MC_STOP_TIMEOUT_MS) < 0) {
        /* The folder is removed next: a server left running would hold the port forever. */
        kill(s->pid, SIGKILL);
        waitpid(s->pid, &status, 0);
    }
    s->pid = 0;
}

static int
spawn(struct server *s, struct mc_server *mc, char *err)
{
    char port[16];
    char *argv[] = {mc->prog, "-l", "127.0.0.1", "-p", port,    "-U",
                    "0",      "-m", "64",        "-c", "11000", NULL};
    int status;

    snprintf(port, sizeof port, "%d", s->port);
    s->pid = server_spawn(s, argv, s->log, err);
    if (s->pid < 0) {
        s->pid = 0;
        return -1;
    }
    if (server_wait_port(s->port, MC_START_TIMEOUT_MS) == 0)
        return 0;
    if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
        s->pid = 0;
        return seterr(err, "memcached exited at once");
    }
    return seterr(err, "memcached is running but 127.0.0.1:%d does not accept connections",
                  s->port);
}

static int
mc_start(struct server *s, char *err)
{
    struct mc_server *mc = xcalloc(1, sizeof *mc);

    s->priv = mc;
    if (server_find_program("memcached", memcached_globs, mc->prog, sizeof mc->prog) < 0)
        return seterr(err, "memcached not found: " MC_SERVER_MISSING_FIX);
    snprintf(s->log, sizeof s->log, "%s/memcached.log", s->dir);
    if (spawn(s, mc, err) < 0)
        return -1;
    snprintf(s->target, sizeof s->target, "memcached://127.0.0.1:%d", s->port);
    return 0;
}

static int
mc_restart(struct server *s, char *err)
{
    struct mc_server *mc = s->priv;
    char tail[256], why[BT_ERRLEN];

    if (mc == NULL)
        return seterr(err, "the memcached server was never started");
    stop_process(s);
    if (spawn(s, mc, err) == 0)
        return 0;
    snprintf(why, sizeof why, "%s", err);
    server_log_tail(s->log, tail, sizeof tail);
    return seterr(err, "%s%s%s (log: %s)", why, tail[0] ? ": " : "", tail, s->log);
}

static void
mc_stop(struct server *s)
{
    stop_process(s);
    free(s->priv);
    s->priv = NULL;
}

const struct server_class memcached_server_class = {
    .name = "memcached",
    .start = mc_start,
    .restart = mc_restart,
    .stop = mc_stop,
};
