/*
 * tui: the dashboard front end. Runs a session (src/run/session.h) with hooks
 * that keep a struct dash up to date, lay it out and draw it, and turn
 * keys into engine controls. Optionally records the headless JSON lines.
 */
#ifndef BENCHTOP_TUI_H
#define BENCHTOP_TUI_H

#include <stdio.h>

#include "records/output.h"
#include "run/session.h"

struct tui_conf {
    const char *theme;                        /* --theme; NULL: default (mono under NO_COLOR) */
    const char *names[SESSION_MAX_COLLECT];   /* collector name per session collector */
    const char *targets[SESSION_MAX_COLLECT]; /* masked target per session collector */
    struct report_ctx *report;                /* workload names; json = --record file or NULL */
};

/*
 * Runs the session on the terminal until q, SIGINT or SIGTERM (a load that
 * ends by -T or -t leaves the dashboard up, showing "done"). Restores the
 * terminal, then prints the human summary to stderr. 0, or -1 with err if
 * the terminal could not be used (nothing was started on it then).
 */
int tui_run(struct session *s, int sigfd, const struct tui_conf *conf, char *err);
/* Headless runs do not draw, but a --theme that would not load is still an error. */
int tui_check_theme(const char *theme, char *err);
/* Whether the dashboard can run on this terminal (screen_check): 0, or -1 with err. */
int tui_check_terminal(char *err);

#endif
