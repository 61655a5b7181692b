/*
 * inspect: `benchtop inspect TARGET`: one pass over a server's contents
 * (Redis keys, memcached slabs) by the class's inspect callback; cmd/
 * names no database.
 */
#include "cmd.h"

#include <stdio.h>

#include "engine/collector.h"
#include "engine/driver.h"
#include "engine/registry.h"
#include "run/options.h"
#include "base/util.h"

static int
cmd_inspect(struct runconf *rc, char **pos, int npos)
{
    const struct driver_class *drv;
    const struct collector_class *cls;
    struct inspect_conf ic = {.budget_s = rc->inspect_budget_s,
                              .sample = rc->inspect_sample,
                              .separator = rc->inspect_separator,
                              .json = rc->inspect_json,
                              .out = stdout};
    char err[BT_ERRLEN];

    if (npos != 1)
        usage_fatal("inspect needs one target (e.g. benchtop inspect redis://127.0.0.1:6379)");
    if (ic.separator == NULL || ic.separator[0] == '\0')
        usage_fatal("--separator needs at least one character (e.g. --separator :)");
    drv = cmd_resolve_target(rc, pos[0], 1);
    cls = collector_for(drv->name);
    if (cls == NULL || cls->inspect == NULL)
        usage_fatal("%s servers cannot be inspected (redis:// can)", drv->name);
    if (cls->inspect(rc->target, &ic, err) < 0) {
        fprintf(stderr, "benchtop: %s\n", err);
        return 1;
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_inspect_entry = {
    "inspect", CMD_INSPECT, cmd_inspect, "benchtop inspect TARGET [--json] [--budget S]",
    "one pass over a server's contents that never blocks it: Redis keys by type, size, prefix, "
    "TTL"};
