/*
 * stats: per-thread counters and latency histograms, and the snapshot the
 * reporters read.
 *
 * Each worker writes only its own struct wstats; the main thread swaps a
 * worker's pair of buffers at each tick (see worker.h) and merges the
 * quiet one into a struct snapshot. No lock or atomic per transaction.
 * The scalar counters are listed once in STATS_COUNTERS, which generates
 * the struct fields and the merge (memcached's THREAD_STATS_FIELDS idea).
 */
#ifndef BENCHTOP_STATS_H
#define BENCHTOP_STATS_H

#include <stdint.h>
#include "driver.h"
#include "base/hist.h"

#define STATS_COUNTERS(X)                                                                          \
    X(txns)          /* transactions that finished without error */                                \
    X(ops)           /* statements/requests inside them */                                         \
    X(late)          /* open loop: started --late-ms or more behind schedule */                    \
    X(lag_sum_us)    /* open loop: total schedule lag */                                           \
    X(lag_max_us)    /* open loop: largest schedule lag (merged with max) */                       \
    X(connects)      /* connections established */                                                 \
    X(connect_us)    /* time spent establishing them */                                            \
    X(flight_us)     /* send to reply of finished transactions: the time account (verdict) */      \
    X(reconnects)    /* connections re-established after a loss */                                 \
    X(connect_fails) /* failed attempts to re-establish a lost connection */                       \
    X(retried)       /* transactions that succeeded or failed after more than one try */           \
    X(retries)       /* tries after the first (--max-tries) */                                     \
    X(rx_bytes)      /* bytes received, for drivers that count them (txn_result.rx_bytes) */

/* A share of failed transactions above this is flagged (dashboard) and leads the summary. */
#define FAILED_FLAG_SHARE 0.01

/* Up to STATS_MSGS distinct error messages are counted each; the rest only in msgs_other. */
#define STATS_MSGS 8

struct err_msg {
    char text[120];
    uint64_t n;
};

struct wstats {
#define STATS_FIELD(name) uint64_t name;
    STATS_COUNTERS(STATS_FIELD)
#undef STATS_FIELD
    uint64_t errors[ERR__COUNT];
    uint64_t connected;   /* gauge: clients connected at the tick (summed over workers) */
    uint64_t busy;        /* gauge: clients with a transaction in flight at the tick */
    uint64_t connecting;  /* gauge: clients setting up a connection at the tick */
    uint64_t retrying;    /* gauge: of those, the ones whose last connect or connection failed */
    uint64_t never_done;  /* gauge: clients that have finished no transaction yet */
    uint64_t oldest_us;   /* gauge: the oldest transaction in flight at the tick, its age */
    struct hist *lat;     /* latency of successful transactions, us */
    char last_error[160]; /* message of the latest error in this interval */
    struct err_msg msgs[STATS_MSGS]; /* the errors' messages with their counts, first come */
    uint64_t msgs_other;             /* errors whose message found no free slot */
    struct stmt_stat *stmts;         /* -r: per statement (driver.h); NULL without -r */
    int nstmts;
};

/* What one report shows: one interval and the whole run so far. */
enum { SNAP_CLIENTS_SEEN = 8 };

struct snapshot {
    double t;               /* seconds since the run started, at the end of this interval */
    double interval_s;      /* length of this interval */
    int clients;            /* clients configured */
    int final;              /* the run is over: this is the last interval */
    double worker_cpu_max;  /* the busiest worker thread's CPU in this interval, % of a core */
    double worker_wait_max; /* ... and that thread's wait for a CPU, % of the interval */
    double own_cpu_pct;     /* this whole process's CPU in this interval, % of one core */
    double own_runq_pct;    /* its threads' run-queue wait for a CPU, % of one core; NAN */
    double throttled_pct;   /* the interval held back by its cgroup's CPU quota, %; NAN */
    double quota;           /* that quota in cores, 0 none */
    char quota_where[96];   /* the setting that holds it (cpu.h struct cpu_self) */
    struct wstats cur;      /* this interval */
    struct wstats total;    /* since the start */
    /*
     * The run's seconds in intervals where the server answered nothing:
     * no transaction finished and some lost their connection or could not
     * reconnect, with the intervals of waiting just before (a slow
     * transaction, or an error the server sent, is no outage): the summary's
     * outage.
     */
    double outage_s;
    double outage_from; /* when the first such interval began (t); NAN if none */
    /* The client counts the run went through, in order (4, 8, 1); a long list keeps its end. */
    int clients_seen[SNAP_CLIENTS_SEEN];
    int nclients_seen;
};

void wstats_init(struct wstats *s);
void wstats_free(struct wstats *s);
/* -r: room for n statements' figures (after wstats_init; n 0 leaves none). */
void wstats_init_stmts(struct wstats *s, int n);
void wstats_reset(struct wstats *s);
/* dst += src (histograms merged, maxima kept, last_error taken if set, statements added). */
void wstats_merge(struct wstats *dst, const struct wstats *src);
uint64_t wstats_errors(const struct wstats *s);
/* Counts n more errors with message text (only on errors: a few string compares). */
void wstats_count_msg(struct wstats *s, const char *text, uint64_t n);
/* Share of transactions that failed, 0..1 (0 when none ran). */
double wstats_failed_share(const struct wstats *s);
/* The counted messages, most frequent first (pointers into s); returns how many. */
int wstats_top_msgs(const struct wstats *s, const struct err_msg *out[STATS_MSGS]);

#endif
