/*
 * verdict: what limits throughput right now, with the figures that show it.
 *
 * Pure: each interval, verdict_step accounts for the clients' time
 * (account.h: benchtop, connecting, the server's sessions by state, the
 * pooler, the app tier, transit) from the engine's figures, the
 * collector's signals (src/engine/collector.h) and the host's CPU, and
 * names the largest share the user can act on, with what relieves it and
 * the whole account as evidence. A new verdict is shown only after it led
 * two intervals in a row; the account is smoothed from one interval to
 * the next, and summed over the run for the final verdict.
 * The rules are documented in benchtop.1 (VERDICT).
 */
#ifndef BENCHTOP_VERDICT_H
#define BENCHTOP_VERDICT_H

#include <stddef.h>

#include "account.h"
#include "model.h"
#include "engine/collector.h"

enum verdict_kind {
    VK_NONE,        /* warming up, paused, or no load */
    VK_CLIENT,      /* benchtop's own threads are the limit */
    VK_SERVER_CPU,  /* the server's CPU is the limit */
    VK_LOCK,        /* sessions wait on each other's locks */
    VK_COMMIT,      /* sessions wait on the commit's log sync (or on I/O) */
    VK_CONNECTION,  /* with -C, setting up connections is most of each transaction */
    VK_NETWORK,     /* neither side busy; round trips are most of the latency */
    VK_UNDERLOADED, /* everything has spare capacity: add clients */
    VK_HOST,        /* a local server and benchtop share a saturated machine */
    VK_POOL,        /* clients wait in a connection pooler while the server has room */
    VK_APP,         /* the application in front of the database: its workers, or above it */
    VK_IO,          /* sessions read data from disk (not the commit) */
    VK_MEMORY,      /* a cache or buffer pool whose working set does not fit: it evicts */
    VK_STALL,       /* other sessions' commands stall the server */
    VK_THREAD,      /* one server thread is saturated: a thread setting limits it */
    VK_OPEN_LOOP,   /* -R beyond what the clients can do: every transaction late */
    VK_MIXED,       /* kept for old records: two limits alike */
    VK__COUNT
};

struct verdict_input {
    int load;               /* a load runs (not paused, not over) */
    double tps;             /* client transactions/s, last interval */
    double lat_mean_ms;     /* client latency, last interval */
    double lat_floor_ms;    /* ... its 1st percentile: what even the fastest took; NAN */
    double ops_per_txn;     /* statements (round trips) per transaction; NAN unknown */
    double connect_share;   /* -C: connection set-up / latency (0..1); NAN without -C */
    double worker_cpu_max;  /* the busiest worker thread, % of one core */
    double worker_wait_max; /* ... and its time waiting for a CPU, % of the interval */
    double own_cpu_pct;     /* benchtop as a whole, % of one core */
    double host_busy_pct;   /* the host's CPU when the server runs on it, % of all cores; NAN */
    double host_irq_pct;    /* ... of which the kernel's interrupts and softirqs; NAN */
    int cores;              /* the host's cores */
    int clients;
    int threads;         /* benchtop's worker threads (-j); 0 unknown */
    double rate;         /* -R target; 0 = closed loop */
    double errors;       /* failed transactions and reconnect attempts per second */
    double retry_errors; /* of those, reconnects that failed again (a refused client's) */
    int connected;       /* clients with an open connection at the tick */
    int never_done;      /* clients that have finished no transaction since the run began */
    /*
     * 1: the input stands for the whole run (verdict_finish): the refused
     * are the clients that never finished a transaction and hold no
     * connection, not the last tick's (a refused client retrying at the
     * tick is still refused).
     */
    int whole_run;
    const char *last_error;   /* the interval's most frequent error message, or NULL */
    double server_host_pct;   /* a local server's processes, % of one core; NAN if unknown */
    const char *server_names; /* ... their names ("nginx, php-fpm8.2"), or NULL */
    double gain_per_doubling; /* tps gain of the last rise in clients, per doubling; NAN if none */
    int have_server;          /* sig holds a collector's signals */
    struct coll_signals sig;
    /*
     * NULL: sig is the load target's own server. Else sig is of a database
     * watched behind the target (an application's URL; --watch), named so
     * ("MySQL"): app-bound when it has room, its own limit when it has none.
     */
    const char *behind;
    /* The time account's own figures (account.h); 0 / NAN when unknown: */
    double interval_s;       /* the interval's length (1 if 0) */
    double flight_s;         /* client-seconds in flight; 0: tps x latency stands in */
    double connect_s;        /* client-seconds connecting (finished connects) */
    double connecting;       /* clients connecting at the tick (a connect that has not ended) */
    double retrying;         /* of those, clients whose last connect failed: still refused */
    double busy;             /* clients in flight at the tick */
    double late_share;       /* open loop: transactions started late / started */
    double throttled_pct;    /* benchtop's cgroup quota held it back, % of the interval */
    double quota;            /* that quota in cores, 0 none */
    const char *quota_where; /* the setting that holds it */
    int allowed_cpus;        /* the CPUs benchtop may run on (its affinity); 0: unknown */
    double outside_busy_pct; /* busy % of the other CPUs (NAN: it may run on all) */
    int embedded;            /* the database runs in benchtop's threads (SQLite) */
    const char *unseen_hint; /* without have_server: how to show benchtop the server; NULL */
};

/*
 * The busy CPU of a host that runs the server, split by whose it is, each
 * % of one core: the run's server side (the load target's server and the
 * run's other local processes: a database watched behind it, the
 * application tier), benchtop, and other programs. NAN where unknown
 * (the server is not on this machine, or its processes are not ours to read).
 */
struct host_split {
    double busy; /* the host, % of all cores (100: every core busy) */
    int cores;
    double server, benchtop, others;
    /*
     * The kernel's interrupt and softirq work (% of one core), outside
     * others: no program's, and on loopback mostly the run's own packets
     * (memcached at -c 500: 58% of a core). NAN unknown.
     */
    double kernel;
    /*
     * The server runs its clients on a few event-loop threads (its
     * collector gives a CPU limit: Redis, memcached), where more clients
     * ready per wakeup make each request cheaper.
     */
    int event_loop;
    char names[64]; /* the server side's processes: "nginx, php-fpm8.2, mariadbd" */
};

/* From the host's busy % of all cores and the parts' CPU (% of one core). */
void host_split_make(double busy_pct, int cores, double server, double benchtop, double kernel,
                     struct host_split *out);
/*
 * Other programs hold a large share of the host's busy CPU (a quarter or
 * more, and more than benchtop): a host-bound run then competes with them,
 * and more clients may win CPU from them (verdict_check).
 */
int host_split_others_hold(const struct host_split *h);

/* What is shown. */
struct verdict {
    enum verdict_kind kind;
    enum verdict_kind first, second;  /* VK_MIXED: the two leading limits */
    double score;                     /* 0..1 */
    double first_score, second_score; /* the two leading candidates' scores, even undecided */
    int final;                        /* the load is over: kind held the run the longest */
    double share[VK__COUNT];          /* the clients' time behind each verdict (final: the run's) */
    const char *confidence;           /* "clear", "likely", "tentative" */
    char evidence[640];               /* what relieves it, and the clients' time account */
    /* another session's command the evidence may quote (records digest it) */
    char evidence_sql[COLL_STALL_WHAT];
    struct account acct;    /* the account it was named from (final: the run's) */
    struct host_split host; /* the interval's host CPU split (NAN: not local) */
    /*
     * The operational model over the same account (model.h): resources,
     * the limit, Little's check, findings ranked by bound. Beside the kind,
     * which the rules above still name (issue 44 moves them onto it).
     */
    struct model model;
    /* what the evidence advises, as data (the kind's, then the notes'): what try tests */
    struct advice_list advice;
};

/* Carried from interval to interval. */
struct verdict_state {
    int intervals; /* seen with load */
    enum verdict_kind shown;
    enum verdict_kind leader;                /* the leading candidate of the last interval */
    int streak;                              /* intervals it has led in a row */
    double lock_frac, commit_frac, cpu_frac; /* smoothed session fractions */
    double busy_frac; /* smoothed share of benchtop's sessions active on the server */
    double rows_base; /* the lowest smoothed rows per transaction seen: "rising" */
    double rows_now;
    int rows_rising;       /* intervals in a row rows_now grew by 5% or more */
    double last_rtt_ms;    /* the last interval's round trip: the lower of two is the wire */
    int held[VK__COUNT];   /* intervals each verdict was shown */
    struct account smooth; /* the account, smoothed from interval to interval */
    int seen;              /* an interval with the server's side told is in smooth */
    double run_txns[2], run_secs[2]; /* transactions and seconds in run [0] and run_blind [1] */
    struct account run;              /* ... summed over the intervals the server was seen in */
    struct account run_blind;        /* ... and those it was not (a server never seen: all) */
    double transit_by[VK__COUNT]; /* the run's transit client-seconds by the kind each tick named */
    /*
     * The host's figures summed over the intervals that had them, for the
     * final verdict (the run's, not the last interval's): host busy, its
     * kernel part, the server side, benchtop, the busiest worker's CPU and
     * wait, each with its count; [0] over the intervals in run, [1] over
     * those in run_blind, so the final verdict reads the set of its account.
     */
    double host_sum[2][6];
    int host_n[2][6];
    struct verdict_input last_in;
    struct verdict last;
    /* the last session seen stalling the others, and where its statement starts in it */
    char stall_what[sizeof(((struct coll_signals *)0)->other_stall_what)];
    unsigned short stall_sql_at;
    /* the last error an interval named: last_in's points into a buffer the next interval reuses */
    char last_error[160];
};

void verdict_init(struct verdict_state *st);
/* One interval: updates st and fills out. */
void verdict_step(struct verdict_state *st, const struct verdict_input *in, struct verdict *out);
/* The load ended: out becomes the final verdict with each one's share of the run. */
void verdict_finish(const struct verdict_state *st, struct verdict *out);
/* "final: lock-bound (80% of the run), not enough load 20%" into buf. */
void verdict_final_text(const struct verdict *v, char *buf, size_t len);

/*
 * Each verdict predicts what more load does: not enough load, the network
 * and commit-bound mean more clients raise tps (commit-bound: through group
 * commit, as one log sync serves every commit waiting for it); server-,
 * lock-, client- and host-bound mean a doubling gains under about 10%.
 * Host-bound with other programs holding much of the host
 * (host_split_others_hold) means a gain comes only from CPU taken from
 * them: the others' share falls and the run's grows with tps. For an
 * event-loop server, whoever holds the host, a gain the others did not pay
 * for tests nothing: its requests get cheaper as more clients are ready
 * per wakeup.
 *
 * verdict_check compares the prediction of a step's verdict (lo) with the
 * next step with more clients (hi): each with its clients, tps and host
 * split; hi.locked says the next step's sessions waited on locks (its
 * verdict lock-bound, alone or mixed), which leaves commit-bound's
 * group-commit prediction untested.
 */
struct verdict_point {
    enum verdict_kind kind; /* the step's verdict (the lower step's is checked) */
    int clients;
    double tps;
    int locked;             /* its sessions waited on locks */
    struct host_split host; /* its host CPU split over the step; NAN where unknown */
};

enum verdict_check {
    VC_UNTESTED, /* the verdict predicts nothing here, or no more load */
    VC_CONFIRMED,
    VC_CONTRADICTED,
};
enum verdict_check verdict_check(const struct verdict_point *lo, const struct verdict_point *hi);
/* A point whose host split is unknown. */
void verdict_point_init(struct verdict_point *p, enum verdict_kind k, int clients, double tps,
                        int locked);
/* v is k, or mixed with k among its two (hi_locked: verdict_has(next, VK_LOCK)). */
int verdict_has(const struct verdict *v, enum verdict_kind k);
/* (tps_hi / tps_lo - 1) per doubling of clients, for verdict_input; NAN without a rise. */
double verdict_gain_per_doubling(int clients_lo, double tps_lo, int clients_hi, double tps_hi);
/*
 * "consistent with commit-bound" / "contradicts not enough load (...)" into
 * buf, for the check of lo against hi (host-bound by others names both
 * steps' CPU split).
 */
void verdict_check_text(enum verdict_check c, const struct verdict_point *lo,
                        const struct verdict_point *hi, char *buf, size_t len);
const char *verdict_check_key(enum verdict_check c);

/* "client-bound", "server CPU-bound", ... for people. */
const char *verdict_label(enum verdict_kind k);
/* "client", "server_cpu", ... for JSON. */
const char *verdict_key(enum verdict_kind k);

#endif
