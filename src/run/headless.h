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
    int stat_lines; /* watch --stat: lines printed, for the header every STAT_HEADER_EVERY */
    int steps_told; /* a sweep's steps already told on stderr */
};

enum { STAT_HEADER_EVERY = 20 };

/* Pure: watch --stat's header, and the line of one server's view (NAN figures as "-"). */
void headless_stat_header(char *buf, size_t len);
void headless_stat_line(const char *name, const struct coll_view *v, char *buf, size_t len);

/* Runs the session until the load ends (or -T in watch mode, or a signal). */
void headless_run(struct session *s, int sigfd, struct headless_conf *conf);

#endif
