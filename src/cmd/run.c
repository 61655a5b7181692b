/* run: `benchtop [run] TARGET`: put load on TARGET and report. */
#include "cmd.h"

#include "base/util.h"
#include "engine/registry.h"
#include "run/instance.h"
#include "run/options.h"

static int
cmd_run_exec(struct runconf *rc, char **pos, int npos)
{
    char schemes[256];

    target_known_schemes(schemes, sizeof schemes);
    if (npos == 0)
        usage_fatal("no target given (start it with %s)", schemes);
    if (npos > 1)
        usage_fatal("unexpected argument '%s' (give one target; options start with -)", pos[1]);
    launch_target(rc, pos[0], 1);
    cmd_check_run_options(rc, 10);
    instance_configure(rc);
    return launch_load(rc, NULL, NULL, cmd_front_end);
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_run_entry = {"run", CMD_RUN, cmd_run_exec,
                                        "benchtop [run] TARGET [OPTIONS]",
                                        "put load on TARGET and report throughput and latency"};
