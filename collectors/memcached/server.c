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

#include <stdio.h>

static const char *const memcached_globs[] = {
    "/usr/bin/memcached",
    "/usr/local/bin/memcached",
    "/usr/sbin/memcached",
    NULL,
};

static void
mc_argv(const struct server *s, char *prog, char **argv, char *buf, size_t len)
{
    char *const args[] = {prog, "-l", "127.0.0.1", "-p", buf,     "-U",
                          "0",  "-m", "64",        "-c", "11000", NULL};

    snprintf(buf, len, "%d", s->port);
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        argv[i] = args[i];
}

static const struct single_server mc_single = {
    .program = "memcached",
    .globs = memcached_globs,
    .missing_fix = "install the memcached package (apt-get install memcached)",
    .log_name = "memcached.log",
    .target_scheme = "memcached",
    .start_ms = 10000,
    .stop_ms = 10000,
    .argv = mc_argv,
};

const struct server_class memcached_server_class = {
    .name = "memcached",
    .single = &mc_single,
};
