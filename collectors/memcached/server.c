/*
 * memcached/server: a throwaway memcached for `benchtop serve memcached`
 * and the integration tests: 127.0.0.1 only, TCP only (-U 0: no UDP
 * amplification), 64 MB. It keeps nothing on disk, so a restart is a stop
 * and a start on the same port; its output goes to DIR/memcached.log.
 *
 * memcached refuses to run as root without -u; server_spawn already runs it
 * as the unprivileged user server.c picked, so no -u is needed.
 */
#include "base/throwaway.h"
#include "base/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int
spawn(struct server *s, struct mc_server *mc, char *err)
{
    char port[16];
    char *argv[] = {mc->prog, "-l", "127.0.0.1", "-p", port,    "-U",
                    "0",      "-m", "64",        "-c", "11000", NULL};

    snprintf(port, sizeof port, "%d", s->port);
    s->pid = server_spawn(s, argv, s->log, err);
    if (s->pid < 0) {
        s->pid = 0;
        return -1;
    }
    return server_wait_ready(s, "memcached", MC_START_TIMEOUT_MS, err);
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

    if (mc == NULL)
        return seterr(err, "the memcached server was never started");
    server_stop_pid(s, MC_STOP_TIMEOUT_MS);
    return spawn(s, mc, err) == 0 ? 0 : server_explain(s, err);
}

static void
mc_stop(struct server *s)
{
    server_stop_pid(s, MC_STOP_TIMEOUT_MS);
    free(s->priv);
    s->priv = NULL;
}

const struct server_class memcached_server_class = {
    .name = "memcached",
    .start = mc_start,
    .restart = mc_restart,
    .stop = mc_stop,
};
