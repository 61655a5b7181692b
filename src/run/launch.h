/*
 * launch: the run wiring in one module, what `run`, `demo`, `sweep`,
 * `try` and `watch` share: the target parsed once and its driver's options
 * (launch_target), the record, the collectors of the server, a pooler and
 * --watch targets, the engine, the session through the front end the
 * command picked, and the checks when it ends. The front end is passed in
 * (cmd/ picks the dashboard or headless): ui/ is above this layer.
 */
#ifndef BENCHTOP_LAUNCH_H
#define BENCHTOP_LAUNCH_H

#include <stdio.h>

#include "engine/runconf.h"
#include "records/output.h"
#include "session.h"

struct sweep;

/*
 * Parses target once into rc->tgt, finds its driver and hands it its
 * options (a driver option it does not take is a user error); parses the
 * --pooler, --server and --watch targets too. target points into argv
 * when in_argv: masking it there hides the password from `ps`.
 */
const struct driver_class *launch_target(struct runconf *rc, char *target, int in_argv);
/* Sets --server to a target of benchtop's own (demo's database behind a pooler), parsed. */
void launch_server_target(struct runconf *rc, const char *target);
/*
 * Adds a target of benchtop's own to --watch (demo's status pages and the
 * database behind an app: not in argv), parsed as launch_target parses the
 * user's.
 */
void launch_watch_target(struct runconf *rc, const char *target);
/*
 * Where the JSON lines go: stdout when headless (refused, with --record or a
 * closed stdout, with one line and exit 2), else the --record file or NULL.
 */
FILE *launch_open_record(const struct runconf *rc);
/* At start: a closed stdout is held by /dev/null so no socket takes its place. */
void launch_hold_std_fds(void);
/*
 * Adds a collector for target (driver drv; it must outlive the session) to
 * the session; a failure is fatal.
 */
void launch_add_collector(struct session *s, const struct driver_class *drv,
                          const struct target *target, const char **names);
/*
 * The pooler in front of the target: its class, with its target in *at and
 * its masked form in *masked (--pooler, or found at the target's port);
 * NULL when there is none or --pooler none. A --pooler no class pools is
 * a usage error (exit 2).
 */
const struct collector_class *launch_pooler(const struct runconf *rc, const struct target **at,
                                            const char **masked);
void launch_add_pooler(struct session *s, struct runconf *rc, int vet, const char **names,
                       const char **targets);

/* Runs the session until it ends: the dashboard, or headless (cmd_front_end). */
typedef void (*launch_front_fn)(struct session *s, int sigfd, struct report_ctx *ctx,
                                const char **names, const char **targets);
/*
 * After the front end: a watch that never got one sample fails (exit 1),
 * the collectors stop, and a line that could not be written fails (exit 1).
 */
void launch_finish(struct session *s, struct report_ctx *ctx, const char **targets);
/*
 * One of try's rounds: its JSON lines go to json (NULL: nowhere), no human
 * summary, and the signal that ended it (0: none) is handed back so that
 * try puts the server back before it exits.
 */
struct launch_round {
    FILE *json;
    int signo;
};
/*
 * The load of `run` (and of `demo`, once its server is up, of `sweep`,
 * which passes its steps, and of each of try's rounds): prepare, collectors,
 * engine, front, report; the exit status (2 when transactions failed or
 * the server stopped answering). sweep and round may be NULL.
 */
int launch_load(struct runconf *rc, struct sweep *sweep, struct launch_round *round,
                launch_front_fn front);
/*
 * Raises the soft open-file limit to need, or as near as the hard limit
 * lets: the new soft limit (0 if it could not be read or set).
 */
unsigned long long launch_fd_limit_up(unsigned long long need);
/* Raises the open-file limit for this many clients, or exits 2 saying how. */
void launch_raise_fd_limit(int clients);

#endif
