/*
 * main: finds the subcommand in cmd_table (src/cmd/cmd.c), parses the options
 * it takes and runs it. Each subcommand lives in its own src/cmd-NAME.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "run/options.h"
#include "run/target.h"
#include "base/proctitle.h"
#include "base/util.h"

/* Every subcommand --help lists, from the table: a new one cannot be left out. */
static void
unknown_command(const char *word)
{
    const struct cmd_entry *const *c;
    char list[256];
    size_t n = 0;

    list[0] = '\0';
    for (c = cmd_table; *c != NULL && n < sizeof list; c++)
        if ((*c)->summary != NULL)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", (*c)->name);
    usage_fatal("unknown command '%s' (use %s; a target looks like SCHEME://HOST)", word, list);
}

/* A command's answer that could not reach stdout (a full disk, /dev/full) is said, once, exit 1. */
static int
said_if_unwritten(int rv)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rv;
    fprintf(stderr, "benchtop: cannot write to standard output: %s (check where it goes)\n",
            errno ? strerror(errno) : "write error");
    return 1;
}

int
main(int argc, char **argv)
{
    const struct cmd_entry *cmd;
    struct runconf rc;
    char **pos;
    int npos, shift;

    proctitle_init(argc, argv); /* before anything keeps a pointer into argv */
    cmd = argc > 1 ? cmd_find(argv[1]) : NULL;
    shift = cmd != NULL;
    launch_hold_std_fds();
    /* `| head -1`: a closed pipe is a write error (EPIPE), said and exit 1, not a silent death */
    signal(SIGPIPE, SIG_IGN);
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
        unknown_command(argv[1]);
    if (cmd == NULL)
        cmd = cmd_table[0];
    if (cmd->mask & (CMD_RUN | CMD_INIT | CMD_SWEEP | CMD_WATCH))
        target_default(&rc, &pos, &npos);
    return said_if_unwritten(cmd->exec(&rc, pos, npos));
}
