/*
 * main: finds the subcommand in cmd_table (src/cmd/cmd.c), parses the options
 * it takes and runs it. Each subcommand lives in its own src/cmd-NAME.c.
 */
#include <string.h>

#include "cmd.h"
#include "run/options.h"
#include "run/target.h"
#include "base/util.h"

int
main(int argc, char **argv)
{
    const struct cmd_entry *cmd = argc > 1 ? cmd_find(argv[1]) : NULL;
    struct runconf rc;
    char **pos;
    int npos, shift = cmd != NULL;

    cmd_hold_std_fds();
    memset(&rc, 0, sizeof(rc));
    options_defaults(&rc);
    rc.command = cmd ? cmd->name : "run";
    options_parse(&rc, cmd ? cmd->mask : CMD_RUN, argc - shift, argv + shift, &pos, &npos);
    if (rc.show_help || (argc == 1)) {
        cmd_print_help(stdout, cmd);
        return 0;
    }
    if (rc.show_version) {
        cmd_print_version();
        return 0;
    }
    if (cmd == NULL && argc > 2 && argv[1][0] != '-' && !cmd_looks_like_target(argv[1]))
        usage_fatal("unknown command '%s' (use run, init, demo or watch; a target looks like "
                    "SCHEME://HOST)",
                    argv[1]);
    if (cmd == NULL)
        cmd = cmd_table[0];
    if (cmd->mask & (CMD_RUN | CMD_INIT | CMD_SWEEP | CMD_WATCH))
        target_default(&rc, &pos, &npos);
    return cmd->exec(&rc, pos, npos);
}
