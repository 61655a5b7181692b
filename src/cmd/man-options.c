/* man-options: the man page's OPTIONS section, from the option tables (build/benchtop.1). */
#include "cmd.h"

#include <stdio.h>
#include <string.h>

#include "analysis/param.h"
#include "run/options.h"

/* "params": the verdict's parameter table instead (the VERDICT section's @PARAMS@). */
static int
cmd_man_options_exec(struct runconf *rc, char **pos, int npos)
{
    if (npos == 1 && strcmp(pos[0], "params") == 0)
        param_print_man(stdout);
    else
        options_print_man(stdout);
    return 0;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_man_options_entry = {"man-options", CMD_RUN, cmd_man_options_exec,
                                                "benchtop man-options", NULL};
