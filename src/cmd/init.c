/* init: `benchtop init TARGET`: the driver creates and fills its tables. */
#include "cmd.h"

#include "engine/driver.h"
#include "run/options.h"
#include "run/target.h"
#include "engine/registry.h"
#include "base/util.h"

static int
cmd_init_exec(struct runconf *rc, char **pos, int npos)
{
    struct init_conf ic;
    char err[BT_ERRLEN];

    target_known_schemes(err, sizeof err);
    if (npos != 1)
        usage_fatal("init needs exactly one target (start it with %s)", err);
    launch_target(rc, pos[0], 1);
    ic.target = &rc->tgt;
    ic.opts = rc->driver_conf;
    ic.force = rc->force;
    ic.quiet = rc->quiet;
    if (rc->tgt.driver->init(&ic, err) < 0)
        usage_fatal("%s", err);
    return 0;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_init_entry = {
    "init", CMD_INIT, cmd_init_exec, "benchtop init TARGET [OPTIONS]",
    "create and fill the workload's tables (the database's options below)"};
