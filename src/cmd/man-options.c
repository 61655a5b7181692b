/* man-options: the man page's OPTIONS section, from the option tables (build/benchtop.1). */
#include "cmd.h"

#include <stdio.h>

#include "run/options.h"

static int
cmd_man_options_exec(struct runconf *rc, char **pos, int npos)
{
    options_print_man(stdout);
    return 0;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_man_options_entry = {"man-options", CMD_RUN, cmd_man_options_exec,
                                                "benchtop man-options", NULL};
