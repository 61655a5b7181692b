/*
 * inspect: `benchtop inspect TARGET`: one pass over a server's contents
 * (Redis keys, memcached slabs) by the class's inspect callback; cmd/
 * names no database.
 */
#include "cmd.h"

#include <signal.h>
#include <stdio.h>

#include "engine/collector.h"
#include "engine/driver.h"
#include "engine/registry.h"
#include "run/options.h"
#include "base/progress.h"
#include "base/util.h"

/* "redis://..." for the backends whose collector can inspect, from the registry. */
static const char *
inspectable(char *buf, size_t len)
{
    const struct driver_class *d;
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; (d = driver_class_at(i)) != NULL && used < len; i++) {
        const struct collector_class *c = collector_for(d->name);
        if (c != NULL && c->inspect != NULL)
            used += (size_t)snprintf(buf + used, len - used, "%s%s...", used ? ", " : "",
                                     d->schemes[0]);
    }
    return used ? buf : "none in this build";
}

/* inspect's --budget when none is given: a paced pass over a million keys on a busy host.
 */
#define INSPECT_BUDGET_S 300.0

/*
 * SIGINT, SIGTERM and SIGHUP blocked: the scan looks for them between steps
 * and reports what it counted. SIGINT and SIGTERM are taken even where the
 * shell ignored them (a job started with &), or they would be lost.
 */
static void
block_signals(void)
{
    sigset_t set;

    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
}

static int
cmd_inspect(struct runconf *rc, char **pos, int npos)
{
    const struct driver_class *drv;
    const struct collector_class *cls;
    struct inspect_conf ic = {.budget_s = rc->budget_s > 0 ? rc->budget_s : INSPECT_BUDGET_S,
                              .sample = rc->inspect_sample,
                              .separator = rc->inspect_separator,
                              .json = rc->inspect_json,
                              .out = stdout};
    char err[BT_ERRLEN], names[128];
    int signo;

    if (npos != 1)
        usage_fatal("inspect needs one target (e.g. benchtop inspect SCHEME://HOST:PORT)");
    if (ic.separator == NULL || ic.separator[0] == '\0')
        usage_fatal("--separator needs at least one character (e.g. --separator :)");
    drv = launch_target(rc, pos[0], 1);
    cls = collector_for(drv->name);
    if (cls == NULL || cls->inspect == NULL)
        usage_fatal("%s servers cannot be inspected (%s can)", drv->name,
                    inspectable(names, sizeof names));
    block_signals();
    if (cls->inspect(&rc->tgt, &ic, err) < 0) {
        fprintf(stderr, "benchtop: %s\n", err);
        return 1;
    }
    signo = progress_interrupted();
    return signo ? 128 + signo : 0; /* a write error is main's to say */
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_inspect_entry = {
    "inspect", CMD_INSPECT, cmd_inspect, "benchtop inspect TARGET [--json] [--budget S]",
    "one pass over a server's contents that never blocks it: keys by type, size, prefix, TTL"};
