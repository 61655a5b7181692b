/*
 * trystat: the pure judgement of `benchtop try`: A and B rounds in, each
 * side's figures, the difference with its noise band, the plain sentence,
 * and whether the A rounds' verdict predicted it. No I/O; tests feed it
 * rounds.
 *
 * Rounds alternate A, B, A, B..., so drift on a shared host falls on both
 * sides. A change multiplies throughput, so the sides are compared in log
 * tps: B/A - 1 from the difference of their means, and its noise band
 * from a two-sample t interval (95%, the rounds' pooled variance,
 * nA + nB - 2 degrees of freedom), beyond noise when the interval leaves 0
 * out. A paired interval would have pairs - 1 degrees of freedom (t = 12.7
 * with two rounds): a x10 effect whose B rounds differed by half was then
 * "no difference" on the loaded test machine.
 */
#ifndef BENCHTOP_TRYSTAT_H
#define BENCHTOP_TRYSTAT_H

#include <stddef.h>
#include <stdint.h>

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

/* One side over its rounds: means of the rounds' figures, errors summed. */
struct try_side {
    int n;
    int clients;
    double tps, p50_ms, p95_ms, p99_ms;
    uint64_t errors;
};

enum try_held {
    TRY_UNTESTED, /* the verdict's advice names no such change */
    TRY_HELD,     /* it expected B faster, and B was, beyond noise */
    TRY_NOT_HELD, /* it expected B faster, and B was not */
    TRY_NO_GAIN,  /* it expected no gain from more clients, and there was none */
    TRY_GAINED,   /* it expected no gain, and B was faster beyond noise */
};

struct try_result {
    struct try_side a, b;
    int pairs;   /* rounds on the smaller side; 0: a round finished nothing */
    double diff; /* B / A - 1 of the sides' mean log tps: 2.12 is +212% */
    double band; /* to the 95% interval's end nearer no change, as diff; NAN with one pair */
    int beyond;  /* the interval leaves 0 out */
    enum verdict_kind verdict; /* what held most of the A rounds */
    enum try_held held;
    char sentence[160]; /* "B is faster by 212% ± 6%, beyond noise" */
    char prediction[200];
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
 * B's settings, "NAME=VALUE" lines, for a TRY_SETTING (NULL otherwise).
 * A setting is expected to help when the A rounds' advice names it (with
 * B's value, or none: "raise shared_buffers"); without advice, when the
 * verdict's kind is one a setting relieves.
 */
void try_judge(const struct try_round *r, int n, enum try_change c, const char *set,
               struct try_result *out);
/* "held", "did not hold", "untested", ... for JSON. */
const char *try_held_key(enum try_held h);

#endif
