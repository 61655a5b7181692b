/*
 * tryrun: a try inside a running load, for the dashboard's `t`. The
 * rounds are the steps of a sweep machine (src/analysis/sweep.h) fed the
 * load's own ticks: each side settles, then is measured; A (as it was)
 * and B (the change) run in pairs, AB or BA by a seeded draw, so drift
 * falls on both sides, and src/analysis/trystat.c judges them as it does
 * `benchtop try`'s: after each pair (the running interval), stopping once
 * decisive from the third pair on, at TRYRUN_MAX_PAIRS, or when one more
 * pair would end after the budget (--budget's default, 3 minutes).
 *
 * A server setting goes through src/run/tryset.h as `try` does: the
 * undo file is written before the first change, B is reverted after each
 * B round and at the end, and tryset_guard puts it back on an exit on the
 * way. A client count is changed with the engine's live control. The
 * setting's calls are blocking, on the caller's (main) thread: a round
 * trip or two between ticks.
 *
 * Order: tryrun_start -> tryrun_tick per tick until it says done ->
 * (tryrun_abort at any time: q, a signal).
 */
#ifndef BENCHTOP_TRYRUN_H
#define BENCHTOP_TRYRUN_H

#include <stddef.h>

#include "analysis/sweep.h"
#include "base/rand.h"
#include "analysis/trystat.h"
#include "engine/engine.h"
#include "tryset.h"

/*
 * The dashboard's rounds: short, so that a clear try ends in a minute (3
 * x (2 + 5) s each side); longer (15 s at most) for a run whose intervals
 * vary more (try_round_seconds).
 */
#define TRYRUN_MAX_PAIRS (TRY_MAX_ROUNDS / 2)
#define TRYRUN_SETTLE_S 2.0
#define TRYRUN_ROUND_S 5.0
#define TRYRUN_ROUND_MAX_S 15.0

struct tryrun {
    int active; /* rounds run now (0 before the start and once done or aborted) */
    int done;   /* res holds the judgement */
    enum try_change change;
    char text[160]; /* what B changes: "synchronous_commit=off", "-c 8" */
    struct tryset set;
    char set_lines[112]; /* the proposal's "NAME=VALUE", for the prediction */
    int a_clients, b_clients;
    int a_threads, b_threads; /* the engine's active workers on each side */
    int rounds;               /* A/B pairs at most */
    double settle_s, round_s;
    double budget_s;      /* no pair starts that would end after it */
    struct try_plan plan; /* δ and the looks */
    uint64_t seed;        /* each pair's order drawn from it (recorded) */
    struct rng order;
    int ba[TRY_MAX_ROUNDS / 2];      /* pair i ran BA */
    double start_t, pair_t, longest; /* run times: the start, the last pair's end; a pair's most */
    char stop[120];                  /* why the rounds stopped */
    struct hist *lat[2];             /* each side's latencies, merged */
    struct sweep sw;                 /* a step per round: the warm-up is the settle */
    int n;
    struct try_round r[TRY_MAX_ROUNDS];
    struct try_result res; /* the judgement so far (from 2 pairs: the running interval) */
};

enum tryrun_event { TRYRUN_NOTHING, TRYRUN_ROUND, TRYRUN_DONE };

/*
 * Starts p's rounds of round_s seconds (0: TRYRUN_ROUND_S) at run time t
 * on the load e: for a setting, refuses a
 * target with an undo file left, reads the values that put it back and
 * writes the undo file (nothing changes until the first B). 0, or -1 with
 * a one-line err.
 */
int tryrun_start(struct tryrun *tr, const struct runconf *rc, struct engine *e,
                 const struct try_proposal *p, double round_s, double t, char *err);
/*
 * One tick of the load (its verdict v, the server's figures srv): a round
 * ended (TRYRUN_ROUND, tr->n grew), the last one (TRYRUN_DONE: everything
 * put back, tr->res judged), or neither. -1 with err when B could not be
 * applied or reverted: the try is over and what could be put back is.
 */
int tryrun_tick(struct tryrun *tr, struct engine *e, const struct snapshot *snap,
                const struct verdict *v, const struct sweep_server *srv, char *err);
/* Ends the try early: A's clients and threads back, the settings put back. 0, or -1 with err. */
int tryrun_abort(struct tryrun *tr, struct engine *e, char *err);
/*
 * A pooler in front of rc's target (launch_pooler) and set's server
 * connection open: with route, each setting is sent to the pooler or the
 * server (tryset_route; no pooler: the server's, as without one); without
 * (try --undo), the pooler is connected to when the undo file holds its
 * settings, and its absence is an error naming it. 0, or -1 with err.
 */
int tryrun_pooler(struct tryset *set, const struct runconf *rc, int route, char *err);
/* The pairs' order seed: --seed, else the clock; under 2^53, so that JSON keeps it whole. */
uint64_t tryrun_seed(const struct runconf *rc);
/* What B changes on the client side; 0 or NULL: as A. */
struct try_client {
    int clients, threads, pipeline, connect;
    const char *mode;
};

/* "synchronous_commit=off, -c 8, -j 3, --pipeline 16, -M prepared, -C": what B changes. */
const char *tryrun_change_text(const struct tryset *set, const struct try_client *c, char *buf,
                               size_t len);

#endif
