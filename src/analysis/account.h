/*
 * account: where the clients' time went in one interval, split into shares
 * that sum to the whole (clients x interval).
 *
 * Pure. Each client is at any moment on one side: not sent (benchtop
 * between transactions: on a CPU, waiting for one, held back by its CPU
 * quota; or an open loop waiting for its schedule), connecting, or in
 * flight. The in-flight time is split by what the server's sampled
 * sessions of benchtop were doing (on CPU, waiting on a lock, reading the
 * disk, waiting for the commit, other waits), by the pooler's queue and
 * the application tier, and what is left is in transit: the network, a
 * proxy, or benchtop not reading the reply because its thread was busy or
 * waited for a CPU (that part is benchtop's). What nothing measures is
 * "unknown", never guessed. The rules are in benchtop.1 (VERDICT).
 */
#ifndef BENCHTOP_ACCOUNT_H
#define BENCHTOP_ACCOUNT_H

#include <stddef.h>

#include "engine/collector.h"

enum account_share {
    AS_BENCHTOP,     /* benchtop's threads on a CPU */
    AS_RUNQ,         /* ... runnable, waiting for a CPU (the run queue) */
    AS_QUOTA,        /* ... held back by their cgroup's CPU quota */
    AS_SCHEDULE,     /* open loop: waiting for the next scheduled start */
    AS_CONNECT,      /* setting up connections */
    AS_SERVER_CPU,   /* the server's sessions on a CPU (or its event loop busy) */
    AS_LOCK,         /* ... waiting on another session's lock */
    AS_DISK,         /* ... reading data from disk (not the commit) */
    AS_COMMIT,       /* ... waiting for the commit's log write or sync */
    AS_SERVER_OTHER, /* ... active, waiting on something else (internal locks) */
    AS_SLEEP,        /* ... in a sleep the statement asked for (pg_sleep, SLEEP()) */
    AS_STALL,        /* the server stalled by other sessions' commands */
    AS_POOL,         /* queued in a connection pooler */
    AS_APP,          /* in the application tier in front of the database */
    AS_TRANSIT,      /* in flight with the server idle: network, proxy */
    AS_IDLE,         /* not sent, with nothing busy (a pause, a backoff) */
    AS_UNKNOWN,      /* in flight, where on the server side nothing tells */
    AS__COUNT
};

/* One interval's measured quantities. NAN (or 0 for counts) where unknown. */
struct account_input {
    double interval_s;
    int clients;
    double rate;          /* -R; 0 closed loop */
    double flight_s;      /* client-seconds in flight: send to reply, finished transactions */
    double connect_s;     /* client-seconds connecting */
    double connecting;    /* clients connecting at the tick: a connect that never ends counts */
    double busy;          /* clients in flight at the tick (stalls: no transaction finished) */
    double txns;          /* transactions finished (ok or failed) */
    double worker_cpu;    /* the busiest worker thread on a CPU, % of the interval */
    double worker_wait;   /* ... and waiting for one (run queue), % */
    double throttled_pct; /* the interval benchtop's cgroup quota held it back, %; NAN */
    double rtt_ms;        /* one trivial round trip to the server; NAN */
    double ops_per_txn;   /* round trips per transaction; NAN */
    int embedded;         /* the database runs in benchtop's own threads (SQLite) */
    int cores;            /* the host's, for sessions on CPU against them; 0 unknown */
    int have_server;      /* sig holds the server's signals */
    struct coll_signals sig;
};

struct account {
    double t[AS__COUNT];   /* client-seconds in each share */
    double obs[AS__COUNT]; /* sampled session observations behind it (-1: measured, not sampled) */
    double total;          /* their sum: clients x interval */
    double clients;        /* the clients accounted (averaged over the run when summed) */
    double intervals;      /* intervals summed */
};

/* An empty account: every share 0 (what account_make starts from; tests fill one by hand). */
void account_init(struct account *a);
void account_make(const struct account_input *in, struct account *a);
/* sum += a (a run's total); observations add up. */
void account_add(struct account *sum, const struct account *a);
/* s's share of the whole, 0..1 (0 when nothing was accounted). */
double account_share(const struct account *a, enum account_share s);
/*
 * The share's backing: "clear" (measured by benchtop, or 30 or more sampled
 * sessions), "likely" (8 or more), "tentative".
 */
const char *account_confidence(const struct account *a, enum account_share s);
/* "16 clients' time: transit 71%, server CPU 12%, ...": every share of 1% or more, largest first.
 */
void account_text(const struct account *a, char *buf, size_t len);
/*
 * An event loop's busy share of the interval (0..1) counts other clients'
 * slow commands (other_stall_share: KEYS, DEBUG SLEEP), which the account
 * gives to the stall: what is left, as a share of the time it was not
 * stalled. busy unchanged where no stall is measured.
 */
double account_loop_busy(const struct coll_signals *g, double busy);
/* "transit", "server_cpu", ...: a share's name in JSON. */
const char *account_key(enum account_share s);

#endif
