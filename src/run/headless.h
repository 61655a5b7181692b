/*
 * headless: the front end without a dashboard: JSON lines on stdout (the
 * interface for scripts and CI) and/or pgbench-like progress on stderr.
 */
#ifndef BENCHTOP_HEADLESS_H
#define BENCHTOP_HEADLESS_H

#include "records/output.h"
#include "session.h"

struct headless_conf {
    struct report_ctx *report;
    const char *names[SESSION_MAX_COLLECT];   /* collector name per session collector */
    const char *targets[SESSION_MAX_COLLECT]; /* masked target per session collector */
    struct report_seen seen[SESSION_MAX_COLLECT];
    int steps_told; /* a sweep's steps already told on stderr */
};

/* Runs the session until the load ends (or -T in watch mode, or a signal). */
void headless_run(struct session *s, int sigfd, struct headless_conf *conf);

#endif
