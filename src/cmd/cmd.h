/*
 * cmd: the subcommands as a table, as tmux's cmd_table. Each lives in its
 * own file (src/cmd-NAME.c) exporting one const struct cmd_entry, listed
 * once in cmd_table[] (cmd.c); main() only finds the entry and calls it.
 * Also here: what several subcommands share (the run's option checks and
 * the front end); the run wiring itself is run/launch.c's.
 */
#ifndef BENCHTOP_CMD_H
#define BENCHTOP_CMD_H

#include <stdio.h>

#include "records/output.h"
#include "engine/runconf.h"
#include "run/launch.h"
#include "run/session.h"

struct cmd_entry {
    const char *name;
    unsigned mask; /* CMD_* (options.h): the options it takes */
    /* Runs the subcommand; positional arguments in pos. Returns the exit code. */
    int (*exec)(struct runconf *rc, char **pos, int npos);
    const char *usage;
    const char *summary; /* NULL: hidden from --help (developer commands) */
};

/* Every subcommand, the default (run) first; NULL-terminated. */
extern const struct cmd_entry *const cmd_table[];

extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_init_entry;
extern const struct cmd_entry cmd_demo_entry;
extern const struct cmd_entry cmd_watch_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_merge_entry;
extern const struct cmd_entry cmd_sweep_entry;
extern const struct cmd_entry cmd_try_entry;
extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_inspect_entry;
extern const struct cmd_entry cmd_man_options_entry;

/* The entry named word, or NULL. */
const struct cmd_entry *cmd_find(const char *word);
/* --help for one subcommand, or for all (NULL); --version. */
void cmd_print_help(FILE *f, const struct cmd_entry *cmd);
void cmd_print_version(void);

/* -T/-t checks; default_seconds applies headless (the dashboard runs until q). */
void cmd_check_run_options(struct runconf *rc, int default_seconds);
/*
 * Headless when stdout is not a terminal; otherwise the terminal must hold
 * the dashboard, or the command ends here with one line (exit 2), before
 * any connection or thread is started.
 */
void cmd_choose_front_end(struct runconf *rc);
/* A URI, a conninfo string or a socket path: not a mistyped command. */
int cmd_looks_like_target(const char *word);
/* The front end of a run (launch.h's launch_front_fn): the dashboard, or headless. */
void cmd_front_end(struct session *s, int sigfd, struct report_ctx *ctx, const char **names,
                   const char **targets);
/* sweep --set-values (src/cmd/try.c): a load per value of one setting, then put back. */
int cmd_try_sweep(struct runconf *rc);

#endif
