/*
 * verdict: what limits throughput right now, with the figures that show it.
 *
 * Pure: each interval, verdict_step takes the client's figures (throughput,
 * latency, connection set-up share, the busiest worker thread's CPU), the
 * first collector's signals (src/collector.h) and the host's CPU, scores
 * every candidate from 0 to 1, and keeps the state that gives hysteresis:
 * a new verdict is shown only after it led two intervals in a row, and the
 * fractions that come from one sample of a few sessions are smoothed.
 * The rules are documented in benchtop.1 (VERDICT).
 */
#ifndef BENCHTOP_VERDICT_H
#define BENCHTOP_VERDICT_H

#include "collector.h"

enum verdict_kind {
    VK_NONE,        /* warming up, paused, or no load */
    VK_CLIENT,      /* benchtop's own threads are the limit */
    VK_SERVER_CPU,  /* the server's CPU is the limit */
    VK_LOCK,        /* sessions wait on each other's locks */
    VK_COMMIT,      /* sessions wait on the commit's log sync (or on I/O) */
    VK_CONNECTION,  /* with -C, setting up connections is most of each transaction */
    VK_NETWORK,     /* neither side busy; round trips are most of the latency */
    VK_UNDERLOADED, /* everything has spare capacity: add clients */
    VK_MIXED,       /* two limits score alike: both are shown */
    VK__COUNT
};

struct verdict_input {
    int load;               /* a load runs (not paused, not over) */
    double tps;             /* client transactions/s, last interval */
    double lat_mean_ms;     /* client latency, last interval */
    double connect_share;   /* -C: connection set-up / latency (0..1); NAN without -C */
    double worker_cpu_max;  /* the busiest worker thread, % of one core */
    double worker_wait_max; /* ... and its time waiting for a CPU, % of the interval */
    double own_cpu_pct;     /* benchtop as a whole, % of one core */
    double host_busy_pct;   /* the host's CPU when the server runs on it, % of all cores; NAN */
    int cores;              /* the host's cores */
    int clients;
    double rate;            /* -R target; 0 = closed loop */
    int have_server;        /* sig holds a collector's signals */
    struct coll_signals sig;
};

/* What is shown. */
struct verdict {
    enum verdict_kind kind;
    enum verdict_kind first, second; /* VK_MIXED: the two leading limits */
    double score;                    /* 0..1 */
    const char *confidence;          /* "clear", "likely", "tentative" */
    char evidence[200];              /* the two or three figures that show it */
};

/* Carried from interval to interval. */
struct verdict_state {
    int intervals;              /* seen with load */
    enum verdict_kind shown;
    enum verdict_kind leader;   /* the leading candidate of the last interval */
    int streak;                 /* intervals it has led in a row */
    double lock_frac, commit_frac, cpu_frac; /* smoothed session fractions */
    struct verdict last;
};

void verdict_init(struct verdict_state *st);
/* One interval: updates st and fills out. */
void verdict_step(struct verdict_state *st, const struct verdict_input *in, struct verdict *out);
/* "client-bound", "server CPU-bound", ... for people. */
const char *verdict_label(enum verdict_kind k);
/* "client", "server_cpu", ... for JSON. */
const char *verdict_key(enum verdict_kind k);

#endif
