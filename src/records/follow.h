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
#include "engine/collect.h"
#include "engine/stats.h"

struct follow;

enum {
    FOLLOW_MAX = 1024,                /* records followed at most */
    FOLLOW_FD_NEED = FOLLOW_MAX + 64, /* descriptors that many need, with the rest of benchtop */
    FOLLOW_SERVERS = 4,               /* distinct collectors whose samples are shown */
};

/* Where the fleet stands, for the countdown and the end (follow_state). */
struct follow_state {
    int files;       /* records followed */
    int ready;       /* ... whose agent said it waits for --start-at, or started */
    int expected;    /* the fleet's size (--instance I/N); 0: not said */
    int started;     /* ... that wrote their run header */
    int ended;       /* ... whose summary line came */
    double start_at; /* the agents' --start-at, seconds since the epoch; 0: none */
    int shown;       /* merged intervals shown so far */
    int done;        /* every agent's record ended and every interval was shown */
};

/* One server sample from the records, as a collector would have published it. */
struct follow_server {
    int slot;                  /* 0 .. FOLLOW_SERVERS-1: one per collector and target */
    char name[16];             /* the collector's name, escaped for a terminal */
    char target[160];          /* its masked target, escaped */
    struct collect_result res; /* res.t: seconds since the fleet's start */
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
/*
 * The next server sample (the `{"type":"server"}` lines of one agent: the
 * lowest instance that has some, as merge keeps them) taken up to the end of
 * the interval follow_next returned last, or NULL when there is none (the
 * result is overwritten by the next call). Call until NULL after each
 * follow_next, before showing its interval.
 */
const struct follow_server *follow_server_next(struct follow *fl);
/* The fleet's state now (see struct follow_state). */
void follow_state(const struct follow *fl, struct follow_state *st);
/*
 * Pure: what a front end says of st at wall-clock time now: "starts in 42 s,
 * 3 of 3 agents ready", "starting, 3 of 3 agents ready", "done: 3 of 3
 * agents ended"; "" while the load runs or before any agent is seen.
 */
void follow_status_text(const struct follow_state *st, double now, char *buf, size_t len);

#endif
