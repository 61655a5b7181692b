/*
 * cmd: the subcommands as a table, as tmux's cmd_table. Each lives in its
 * own file (src/cmd-NAME.c) exporting one const struct cmd_entry, listed
 * once in cmd_table[] (cmd.c); main() only finds the entry and calls it.
 * Also here: what several subcommands share (a target's driver and
 * options, the run's option checks, collectors and the front end).
 */
#ifndef BENCHTOP_CMD_H
#define BENCHTOP_CMD_H

#include <stdio.h>

#include "records/output.h"
#include "engine/runconf.h"
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

/*
 * Finds target's driver and hands it its options (a driver option it does
 * not take is a user error). target points into argv when in_argv: masking
 * it there hides the password from `ps`.
 */
const struct driver_class *cmd_resolve_target(struct runconf *rc, char *target, int in_argv);
/* -T/-t checks; default_seconds applies headless (the dashboard runs until q). */
void cmd_check_run_options(struct runconf *rc, int default_seconds);
/*
 * Headless when stdout is not a terminal; otherwise the terminal must hold
 * the dashboard, or the command ends here with one line (exit 2), before
 * any connection or thread is started.
 */
void cmd_choose_front_end(struct runconf *rc);
/*
 * Where the JSON lines go: stdout when headless (refused, with --record or a
 * closed stdout, with one line and exit 2), else the --record file or NULL.
 */
FILE *cmd_open_record(const struct runconf *rc);
/* At start: a closed stdout is held by /dev/null so no socket takes its place. */
void cmd_hold_std_fds(void);
/* A URI, a conninfo string or a socket path: not a mistyped command. */
int cmd_looks_like_target(const char *word);
/* Adds a collector for target (driver drv) to the session; a failure is fatal. */
void cmd_add_collector(struct session *s, const struct driver_class *drv, const char *target,
                       const char **names);
/*
 * The collectors of a run: the server's (on --server when the target is a
 * pooler, else on the target) first, then a pooler's (--pooler, or found
 * at the target's port). With vet, a load the pooler cannot carry ends
 * here with exit 2, so call it before the load starts; with s NULL it
 * only vets (--no-collect).
 */
void cmd_add_server(struct session *s, struct runconf *rc, const char **names,
                    const char **targets);
void cmd_add_pooler(struct session *s, struct runconf *rc, int vet, const char **names,
                    const char **targets);
/*
 * --watch: each target's collector (a database's, a pooler's, or an
 * application tier's status page), with its role in the verdict.
 */
void cmd_add_watched(struct session *s, const struct runconf *rc, const char **names,
                     const char **targets);
/* Runs the session with the dashboard, or headless; then stops the collectors. */
void cmd_front_end(struct session *s, int sigfd, struct report_ctx *ctx, const char **names,
                   const char **targets);
/*
 * The load of `run` (and of `demo`, once its server is up, and of `sweep`,
 * which passes its steps): prepare, run, report. sweep may be NULL.
 */
struct sweep;
int cmd_run_load(struct runconf *rc, struct sweep *sweep);
/*
 * One of try's rounds: as cmd_run_load, but its JSON lines go to json
 * (NULL: nowhere), no human summary, and the signal that ended it (0: none)
 * is handed back so that try puts the server back before it exits.
 */
struct cmd_round {
    FILE *json;
    int signo;
};
int cmd_run_round(struct runconf *rc, struct sweep *sweep, struct cmd_round *round);
/* sweep --set-values (src/cmd/try.c): a load per value of one setting, then put back. */
int cmd_try_sweep(struct runconf *rc);
/*
 * Raises the soft open-file limit to need, or as near as the hard limit
 * lets: the new soft limit (0 if it could not be read or set).
 */
unsigned long long cmd_fd_limit_up(unsigned long long need);
/* Raises the open-file limit for this many clients, or exits 2 saying how. */
void cmd_raise_fd_limit(int clients);

#endif
