/*
 * instance: one agent of a fleet that acts as one run. `--instance I/N`
 * (or JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it, with
 * --instances N) makes this process clients I*c .. I*c+c-1 of N*c, so key
 * ranges and client ids split as one run's would; `--start-at TIME` starts
 * every agent's load, and so its interval boundaries, at the same moment on
 * the wall clock, which `benchtop merge` aligns on. The parsers are pure.
 */
#ifndef BENCHTOP_INSTANCE_H
#define BENCHTOP_INSTANCE_H

#include <stdint.h>

#include "engine/runconf.h"

/* "I/N" with 0 <= I < N. 0, or -1 with err. */
int instance_parse(const char *spec, int *index, int *count, char *err);
/*
 * TIME as seconds since the epoch: "+10s" / "+2m" / "+10" (from now),
 * "1796087340.5" (epoch) or ISO 8601 "2026-12-01T02:00:00Z" (Z, +HH:MM or
 * -HH:MM; no zone: local time). 0, or -1 with err.
 */
int instance_parse_time(const char *spec, double now, double *epoch, char *err);
/*
 * Fills rc->instance and rc->instances from --instance, or from
 * JOB_COMPLETION_INDEX and --instances / BENCHTOP_INSTANCES, and
 * rc->start_at from --start-at; a bad value is a user error (exit 2).
 */
void instance_configure(struct runconf *rc);
/*
 * Waits until rc->start_at (if set), watching sigfd: 0 when it is time,
 * -1 if a signal came first (the run should end without starting).
 */
int instance_wait(const struct runconf *rc, int sigfd);
#endif
