/*
 * trystat: the pure judgement of `benchtop try`: A and B rounds in, each
 * side's figures, B/A with its interval, one of three outcomes, and
 * whether the A rounds' verdict predicted it. No I/O; tests feed it
 * rounds.
 *
 * Rounds come in pairs (AB or BA, the order drawn per pair), so that a
 * drift of the host falls on both sides. A change multiplies throughput,
 * so each pair gives one log ratio ln(B/A), and the interval of B/A is a
 * t interval over those ratios, turned back into ratios. Against the
 * smallest change that counts (δ, --min-effect):
 *   faster / slower:      the interval lies wholly beyond +δ / -δ;
 *   no meaningful effect: it lies wholly within ±δ;
 *   inconclusive:         anything else (never read as "no effect").
 * The rounds go on until the outcome is decisive (the caller's loop), so
 * the interval is looked at more than once: look k of a try (pairs
 * first_look + k - 1) uses the level 1 - 0.05 / (k (k + 1)), the last
 * possible look (the cap) 1 - 0.05 / k: their errors sum to 5% at most
 * however many looks are taken (a Bonferroni alpha spending), so an A/A
 * try says faster or slower in at most 5% of tries.
 */
#ifndef BENCHTOP_TRYSTAT_H
#define BENCHTOP_TRYSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "base/hist.h"
#include "sweep.h"
#include "verdict.h"

#define TRY_MAX_ROUNDS 32

/* One round's measured part. */
struct try_round {
    int b; /* 0: A (as the server is), 1: B (changed) */
    int clients;
    double tps;
    double p50_ms, p95_ms, p99_ms;
    uint64_t errors;
    enum verdict_kind verdict; /* what held most of the round */
    char advice[SWEEP_ADVICE]; /* that verdict's evidence ("...; try synchronous_commit = off") */
    struct advice_list adv;    /* ... its advice as data: what a B setting is checked against */
    /*
     * The predicted gain of B's change, fractions (0.2: B at least 20%
     * faster): gain its minimum, 0 while only a direction is predicted
     * (then "held" is: decisively faster), gain_hi its maximum (0: none).
     * 0 (not NAN) so that a zeroed round predicts nothing. Set here, or
     * by try_judge from the advice in adv that names B's change (its lo
     * and hi, the model's range: sweep steps carry them).
     */
    double gain, gain_hi;
};

/* What B changes, for the verdict's prediction. */
enum try_change {
    TRY_SETTING,  /* server settings (--set) */
    TRY_CLIENTS,  /* --try-clients */
    TRY_THREADS,  /* --try-threads */
    TRY_PIPELINE, /* --try-pipeline */
    TRY_PROTOCOL, /* --try-protocol */
    TRY_CONNECT,  /* --try-connect */
};

/*
 * One side over its rounds: tps the rounds' mean, errors summed; the
 * percentiles the rounds' mean unless try_side_latency gives them from
 * the rounds' merged histogram (a mean of p99s is no p99).
 */
struct try_side {
    int n;
    int clients;
    double tps, p50_ms, p95_ms, p99_ms;
    uint64_t errors;
};

/* What the rounds show, B against A. */
enum try_outcome {
    TRY_NOTHING,      /* nothing to compare: a round finished no transaction, or one pair */
    TRY_INCONCLUSIVE, /* the interval reaches both beyond and within ±δ */
    TRY_FASTER,       /* wholly above +δ */
    TRY_SLOWER,       /* wholly below -δ */
    TRY_SAME,         /* wholly within ±δ: no meaningful effect */
};

/* The advice scored against its prediction. */
enum try_held {
    TRY_UNPREDICTED, /* the verdict's advice names no such change (or there was no verdict) */
    TRY_HELD,        /* decisive, and at least the predicted gain (or none, as predicted) */
    TRY_NOT_HELD,    /* decisive, and below it: "no meaningful effect" counts */
    TRY_UNTESTED,    /* predicted, but the outcome is inconclusive: never "did not hold" */
};

/* How the rounds are judged: NULL to try_judge gives the defaults. */
struct try_plan {
    double min_effect; /* δ, a fraction (0.05); --min-effect */
    int first_look;    /* pairs at the first look (3; fewer when the cap is) */
    int max_pairs;     /* the cap (--rounds): its look spends what is left of the 5% */
};

#define TRY_MIN_EFFECT 0.05
#define TRY_FIRST_LOOK 3
#define TRY_BUDGET_S 180.0 /* --budget's default for try and the dashboard's t: 3 minutes */

struct try_result {
    struct try_side a, b;
    int pairs;         /* complete AB or BA pairs; 0: a round finished nothing */
    double diff;       /* B / A - 1 of the pairs' mean log ratio: 0.52 is +52% */
    double lo, hi;     /* the interval of B / A - 1; NAN under two pairs */
    double level;      /* its confidence (0.975 at the first of several looks) */
    double min_effect; /* δ it was judged against */
    enum try_outcome outcome;
    int more_pairs; /* inconclusive: about this many more pairs would decide; -1: many */
    double drift;   /* the last A round's tps over the first's - 1; NAN under two A rounds */
    int drifted;    /* beyond the interval's half-width and δ: the host changed meanwhile */
    double gain;    /* the prediction's minimum gain (a fraction); 0: only "faster" */
    double gain_hi; /* ... its maximum; NAN: none predicted */
    enum verdict_kind verdict; /* what held most of the A rounds */
    enum try_held held;
    char advice[SWEEP_ADVICE]; /* that verdict's advice, as the A rounds gave it */
    char sentence[200];        /* "B is faster: +52% [+18%, +96%], 5 pairs (beyond ±5%)" */
    char note[200];            /* the drift, when flagged; "" */
    char prediction[320];
};

/* A round's figures from its measured step (a one-step load, or a step of a running load). */
void try_round_from_step(const struct sweep_step *st, int b, struct try_round *r);

/*
 * The dashboard's `t`: the experiment the verdict's advice names, for the
 * run as it is now. commit-bound: the server's commit setting (the
 * collector's commit_try); client-bound: -j + 1; network or not enough
 * load: clients x 2; pool-bound: the pool size; memory-bound: the cache's
 * size setting doubled. ok 0 when there is none: text says why in one line.
 */
struct try_proposal {
    int ok;
    enum try_change change;
    char set[112];        /* TRY_SETTING: "NAME=VALUE" */
    int clients, threads; /* B's (A's where B does not change them) */
    char text[200];       /* "synchronous_commit=off (commit-bound)", or why there is none */
};

/* What a proposal is read from; sig NULL when no server is watched. */
struct try_situation {
    enum verdict_kind kind;
    const struct coll_signals *sig;
    const struct coll_settings *settings; /* the target's, as last read; NULL */
    const char *pooler;                   /* the pooler's title when one is watched; NULL */
    int clients, threads;
    int max_threads; /* workers the load may spread over without a new one (spare ones) */
    int quota_held;  /* benchtop's CPU quota held it back (the verdict's account) */
    /* the verdict's advice as data (its first: the kind's); NULL: from kind and sig alone */
    const struct advice *advice;
};

void try_propose(const struct try_situation *in, struct try_proposal *out);

/*
 * Judges n rounds (at most TRY_MAX_ROUNDS) of what change c made; set:
 * B's settings, "NAME=VALUE" lines, for a TRY_SETTING (NULL otherwise);
 * plan: δ and the looks (NULL: 5%, the first look at 3 pairs, no cap).
 * A setting is expected to help when the A rounds' advice names it (with
 * B's value, or none: "raise shared_buffers"); without advice, when the
 * verdict's kind is one a setting relieves.
 */
void try_judge(const struct try_round *r, int n, enum try_change c, const char *set,
               const struct try_plan *plan, struct try_result *out);
/* s's percentiles from its rounds' latencies merged into lat (NULL or empty: kept). */
void try_side_latency(struct try_side *s, const struct hist *lat);
/* The outcome is one to stop at: faster, slower or no meaningful effect. */
int try_decisive(const struct try_result *res);
/*
 * Decisive, and the prediction scored too: a faster B whose interval
 * still holds the predicted minimum gain (untested) is worth more pairs,
 * since they may show it held or not.
 */
int try_settled(const struct try_result *res);
/* "held", "not_held", "untested", "none", for JSON. */
const char *try_held_key(enum try_held h);
/* "faster", "slower", "no_effect", "inconclusive", "none", for JSON. */
const char *try_outcome_key(enum try_outcome o);
/* The key's enum (try_held_key's inverse; unknown: TRY_UNPREDICTED). */
enum try_held try_held_of(const char *key);
/*
 * The two-sided confidence level of look k (1, 2, ...) of a try whose
 * last possible look is `last` (0: no cap): 1 - 0.05 / (k (k + 1)), and
 * 1 - 0.05 / k at the last.
 */
double try_look_level(int k, int last);
/*
 * The dashboard's round length for the run's own noise: from the last
 * intervals' tps (n of them, oldest first, each interval_s long), enough
 * intervals that their noise moves a pair's ratio by under half of
 * min_effect, within [lo_s, hi_s]; lo_s under 5 usable intervals.
 */
double try_round_seconds(const double *tps, int n, double interval_s, double min_effect,
                         double lo_s, double hi_s);
/* Student's t quantile: P(|T| <= t) = level with df degrees of freedom. */
double try_t_quantile(double level, int df);

#endif
