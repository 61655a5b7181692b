/*
 * sweep: the pure parts of `benchtop sweep`: step lists and latency
 * targets as the user writes them, one step's figures accumulated from the
 * interval snapshots, the knee rule, the rate search, and the state
 * machine that says, tick by tick, when a step ends and what runs next.
 *
 * Nothing here does I/O or touches the engine: session.c feeds each tick's
 * snapshot to sweep_tick and applies the returned action (clients or
 * rate) with the engine's live controls, so step boundaries ride on the
 * interval swap and cost nothing per transaction. Tests drive every
 * function without a server. The rules are documented in benchtop.1
 * (SWEEPS).
 */
#ifndef BENCHTOP_SWEEP_H
#define BENCHTOP_SWEEP_H

#include <stdint.h>

#include "engine/collector.h"
#include "engine/driver.h"
#include "base/hist.h"
#include "engine/stats.h"
#include "verdict.h"

#define SWEEP_MAX_STEPS 64    /* steps in a list, probes in a rate search */
#define SWEEP_MAX_PROBES 60   /* a rate search gives up after this many */
#define SWEEP_KNEE_GAIN 0.10  /* a doubling of the load must buy 10% more tps ... */
#define SWEEP_KNEE_P99 2.0    /* a doubling that more than doubles p99: the latency rise */
#define SWEEP_SEARCH_TOL 0.05 /* the rate search stops when pass and fail are 5% apart */
/*
 * No probe above the closed-loop capacity times this: the capacity is
 * itself measured on a busy machine (16 clients of a 160/s server gave
 * 135 closed-loop), and above the true capacity a probe's backlog fails it
 * anyway; the bound keeps a noisy target from answering 20,000 for 200.
 */
#define SWEEP_CAPACITY_MARGIN 1.25

/* SWEEP_SETTING: a server setting's values (--set-values), one load per step, clients fixed. */
enum sweep_axis { SWEEP_CLIENTS, SWEEP_RATE, SWEEP_SETTING };

/* The steps of --clients or --rates, strictly increasing. */
struct sweep_list {
    int n;
    double v[SWEEP_MAX_STEPS];
};

/*
 * Parses "1,2,4,8", "1..64" (doubling; the end is always a step) or
 * "10..100+10" (fixed step). whole: clients (whole numbers >= 1) rather
 * than rates. 0, or -1 with a one-line err naming the problem and the fix.
 */
int sweep_list_parse(const char *text, int whole, struct sweep_list *out, char *err);

/* A latency target: "p99<5ms", "p99.9 < 800us". */
struct sweep_slo {
    double pct;      /* 50, 90, 99 or 99.9 */
    double limit_us; /* the percentile must stay below this */
    char text[32];   /* normalised: "p99 < 5 ms" */
};

int sweep_slo_parse(const char *text, struct sweep_slo *out, char *err);

/* The collector's main figures at one tick; NAN where unknown. */
struct sweep_server {
    double tps;     /* the server's own transactions/s */
    double active;  /* sessions running a statement */
    double waiting; /* ... of those, waiting on locks, I/O or the commit */
    double cpu_pct; /* the server's CPU, % of one core */
};

/* From the first collector's signals (NULL: none yet) and server tps. */
void sweep_server_from(const struct coll_signals *sig, double server_tps, struct sweep_server *out);

/* A verdict's evidence kept with a step: its advice comes first, the account after. */
enum { SWEEP_ADVICE = 320 };

/* One finished step (or rate probe): everything its JSON line carries. */
struct sweep_step {
    int index;
    double clients;
    double rate;           /* open-loop target; 0 = closed loop */
    double warmup_t;       /* run time when its warm-up began */
    double start_t, end_t; /* the measured part, seconds since the run started */
    uint64_t warmup_txns;  /* finished during the warm-up (not counted below) */
    uint64_t txns, ops;
    uint64_t errors[ERR__COUNT];
    double tps, ops_s;
    struct hist_summary lat;   /* us */
    enum verdict_kind verdict; /* the verdict that held for most of the step */
    double verdict_share;      /* its share of the step's intervals, 0..1 */
    int verdict_ticks[VK__COUNT];
    char advice[SWEEP_ADVICE];  /* the main verdict's evidence, as its last interval gave it */
    struct advice_list adv;     /* ... and its advice as data */
    struct sweep_server server; /* averaged over the step's ticks that had it */
    struct host_split host;     /* the host's CPU split, likewise (verdict_check reads it) */
    double outage_s; /* intervals that finished no transaction and had errors: the server away */
    int capacity;    /* find-rate: the closed-loop step measured before the probes */
    int probe;       /* find-rate: a probe, judged against the SLO */
    int probe_again; /* ... of a rate that failed the probe before */
    int slo_met;
    double slo_value_us; /* the SLO's percentile over the step */
};

uint64_t sweep_step_errors(const struct sweep_step *st);
/* "clients" or "rate": the figure the step varied, for tables and JSON. */
double sweep_step_x(const struct sweep_step *st, enum sweep_axis axis);

/* A step's running totals (owned by struct sweep; exposed for tests). */
struct sweep_acc {
    struct hist *lat;
    uint64_t txns, ops, errors[ERR__COUNT];
    double secs, outage_s;
    int ticks, verdict_ticks[VK__COUNT];
    char advice[VK__COUNT][SWEEP_ADVICE]; /* each kind's evidence, the last interval's */
    struct advice_list adv[VK__COUNT];    /* ... and its advice as data */
    double server_sum[4];
    int server_n[4];
    struct host_split host; /* summed over the host_n ticks that had one */
    int host_n;
};

/*
 * The knee: the first step i after which more load stopped buying
 * throughput. Between step i and the next, with the load (clients or
 * rate) multiplied by L, the next must gain at least 10% tps per doubling
 * (tps ratio >= 1.1^log2 L). Steps with an outage (outage_s > 0) say
 * nothing about scaling and are left out. Index of the knee, or -1.
 */
int sweep_knee(const struct sweep_step *steps, int n, enum sweep_axis axis);
/*
 * The latency rise, a finding of its own: the first step i after which p99
 * more than doubled per doubling of the load (ratio > 2^log2 L), outage
 * steps left out; -1 if none. *next: the step it rose at.
 */
int sweep_latency_rise(const struct sweep_step *steps, int n, enum sweep_axis axis, int *next);
/* The step with the most tps, or -1 when there is none. */
int sweep_best(const struct sweep_step *steps, int n);

/*
 * The rate search of --find-rate, step by step: probe rs->next, then feed
 * the percentile it measured. Doubling from the start rate until a probe
 * fails (halving when the first fails), then bisection until the highest
 * passing and the lowest failing rate are within 5% of each other. A
 * failing rate is probed twice and fails only if both probes do: a stall
 * in one probe would otherwise cap every rate after it.
 *
 * An answer must not come from noise: no rate is probed above the
 * closed-loop capacity measured first (rate_search_capacity); a rate above
 * the answer that met the target, or the answer missing it when probed
 * once more at the end, makes the search non-monotonic: no number is
 * given. When no rate met the target down to 1/s, the target is below the
 * floor latency.
 */
struct rate_search {
    double limit_us;
    double next;          /* the rate to probe now */
    double pass, pass_us; /* highest rate that met the target (0: none yet) */
    double fail, fail_us; /* lowest rate that missed it (0: none yet) */
    double capacity;      /* closed-loop tps times SWEEP_CAPACITY_MARGIN: the bound (0: unknown) */
    double met_max;       /* the highest rate that ever met the target */
    double low, low_us;   /* the lowest rate probed and its percentile: the floor */
    int nmet;
    double met[SWEEP_MAX_PROBES]; /* the rates that met the target (an answer missed on its
                                     re-probe falls back to the next one below) */
    int probes;
    int confirming; /* next is a failed rate, probed again */
    int verifying;  /* next is the answer, probed once more */
    int verified;   /* ... and it met the target again */
    int nonmonotonic;
    int below_floor; /* no rate met the target */
    int done;
};

void rate_search_init(struct rate_search *rs, double limit_us, double start_rate);
/* The closed-loop capacity, measured before the first probe: no probe goes above it. */
void rate_search_capacity(struct rate_search *rs, double tps);
/* The probe at rs->next measured value_us; sets the next rate or done. */
void rate_search_feed(struct rate_search *rs, double value_us);

enum sweep_phase { SWEEP_WARMUP, SWEEP_MEASURE, SWEEP_DONE };

/* What sweep_tick asks of the engine. */
struct sweep_action {
    int step_done; /* steps[nsteps - 1] just finished */
    int set;       /* run `x` from now: clients, or the rate */
    double x;
    int done; /* the sweep is over: end the load */
};

struct sweep {
    enum sweep_axis axis;
    struct sweep_list list; /* the steps (not with find_rate) */
    int find_rate;
    int capacity_step; /* find-rate: the closed-loop step (rate 0) is running */
    struct sweep_slo slo;
    struct rate_search search;
    double warmup_s, step_s;
    int clients; /* -c: the fixed clients of a rate sweep */
    double rate; /* -R: the fixed rate of a clients sweep (0: closed loop), find-rate's start */
    char setting[40];                 /* SWEEP_SETTING: the setting's name */
    char values[SWEEP_MAX_STEPS][64]; /* ... and each step's value (steps[i].index) */
    struct hist *lat_into; /* NULL, or where a finished step's latencies are added (try's sides) */

    enum sweep_phase phase;
    double x;       /* clients or rate of the running step */
    double phase_t; /* run time when the phase began */
    uint64_t warmup_txns;
    double warmup_t;
    struct sweep_acc acc;
    int nsteps;
    struct sweep_step steps[SWEEP_MAX_STEPS];
};

/*
 * The caller fills the fields above `phase` (list, or find_rate with slo),
 * then calls sweep_init; sw->x is then the first step's load, which the
 * caller starts the engine with.
 */
void sweep_init(struct sweep *sw);
void sweep_free(struct sweep *sw);
/*
 * One tick: snap is the interval just merged (its verdict judged), srv the
 * collector's latest figures. A phase ends at the first tick at least its
 * length (less half an interval) after it began, so steps are whole
 * intervals.
 */
void sweep_tick(struct sweep *sw, const struct snapshot *snap, const struct verdict *v,
                const struct sweep_server *srv, struct sweep_action *act);

#endif
