/* cmd-serve: `benchtop serve NAME` (for tests): a throwaway server until stdin closes. */
#include "cmd.h"

#include "options.h"
#include "serve.h"
#include "util.h"

static int
cmd_serve_exec(struct runconf *rc, char **pos, int npos)
{
    if (npos != 1)
        usage_fatal("serve needs a backend name (one of the databases in benchtop --version)");
    return serve_main(pos[0]);
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_serve_entry = {
    "serve", CMD_SERVE, cmd_serve_exec, "benchtop serve NAME",
    "(for tests) start a throwaway server and print its target until stdin closes"};
