/* cmd-man-options: the man page's OPTIONS section, from the option tables (make man). */
#include "cmd.h"

#include <stdio.h>

#include "options.h"

static int
cmd_man_options_exec(struct runconf *rc, char **pos, int npos)
{
    options_print_man(stdout);
    return 0;
}

const struct cmd_entry cmd_man_options_entry = {
    .name = "man-options",
    .mask = CMD_RUN,
    .exec = cmd_man_options_exec,
    .usage = "benchtop man-options",
    .summary = NULL,
};
