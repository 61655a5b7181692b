/*
 * follow: records that are still growing (`benchtop watch --records
 * PATTERN`, a glob of .jsonl files), read as the agents of a fleet write them, turned into
 * the snapshots an engine's tick gives, so the dashboard and the headless
 * output show the fleet as one run. Intervals are merged as `benchtop
 * merge` does (src/records/merge.h): aligned on the wall clock, counts summed,
 * histograms added. An interval is shown once every agent has written it,
 * or two intervals after it ended for an agent that fell silent. Files
 * that appear later (the glob is read again each time) join the fleet.
 */
#ifndef BENCHTOP_FOLLOW_H
#define BENCHTOP_FOLLOW_H

#include "analysis/verdict.h"
#include "engine/stats.h"

struct follow;

enum {
    FOLLOW_MAX = 1024,                /* records followed at most */
    FOLLOW_FD_NEED = FOLLOW_MAX + 64, /* descriptors that many need, with the rest of benchtop */
};

/* Starts following pattern (a glob). NULL, with err, if it is not a usable pattern. */
struct follow *follow_open(const char *pattern, char *err);
void follow_close(struct follow *fl);
/*
 * Reads what the files gained and returns the next merged interval when one
 * is complete (snap->cur, snap->total, clients, t, interval), else NULL.
 * Call until NULL. A line that is not JSON is skipped and counted.
 */
const struct snapshot *follow_next(struct follow *fl);
/* The agents' verdict on the interval follow_next returned last (the most agree). */
const struct verdict *follow_verdict(const struct follow *fl);
/* Files followed, agents that wrote a run header, lines skipped as unreadable. */
void follow_counts(const struct follow *fl, int *files, int *agents, int *bad_lines);

#endif
