/*
 * param: the verdict's and the model's thresholds in one table, each with
 * the measurement it comes from (as tmux's options-table.c holds its
 * options). Pure data; param() reads a value, param_row() a whole row.
 * A threshold that is not here is a bare number still to move (issue 44).
 */
#ifndef BENCHTOP_PARAM_H
#define BENCHTOP_PARAM_H

#include <stdio.h>

enum param_id {
    /* the model (model.c) */
    P_SATURATED,   /* utilization at which a resource is saturated */
    P_LITTLE_TOL,  /* Little's law: measured / predicted clients in flight beyond 1 +- this */
    P_FINDING_MIN, /* a relief whose bound gains less than this (x) is no finding */
    P_SHARE_MIN,   /* a share of the clients' time below this names no finding */
    P_STALL_MS,    /* transit per round trip (ms) on a short path that is a stall */
    P_REDO_FULL,   /* the redo log's room in use (checkpoint age / its max) that is full */
    /* the account (account.c) */
    P_CLEAR_OBS,  /* sampled sessions behind a share that make it clear */
    P_LIKELY_OBS, /* ... likely */
    P_MIN_SHOWN,  /* shares below this are left out of the account's text */
    /* the verdict's rules (verdict.c) */
    P_THRESHOLD,      /* watch: a score below this is no limit */
    P_SMOOTH,         /* weight of the newest interval in the smoothed account */
    P_HOST_FULL,      /* host busy % of all cores: saturated */
    P_FLAT_GAIN,      /* a doubling of clients that gains less gains nothing */
    P_MIN_GAIN,       /* ... and for small steps, noise */
    P_LARGE_ROWS,     /* rows read per transaction worth naming */
    P_SCAN_ROWS,      /* rows per transaction of a query that scans */
    P_IO_THREAD_RUNS, /* % of a core: a main thread io-threads relieve */
    P_LARGE_BLOCKS,   /* blocks per transaction worth naming */
    P_FAILING,        /* share of failed transactions that leaves no verdict */
    P_OTHERS_LARGE,   /* others' share of a busy host that makes it theirs */
    P_TEMP_NAMED,     /* temporary-file bytes/s the evidence names */
    P_SLEEP_NAMED,    /* statements' own sleeps the light verdict names */
    P_MISSES_COST,    /* hit ratio under which a buffer pool's misses cost CPU */
    P_STALL_LOOP,     /* others' share of an event loop that makes it theirs */
    P_CONNECT_NAMED,  /* -C: set-up's share named before benchtop or the host */
    P_PAID,           /* host-bound by others: the run's CPU must grow by this share of the gain */
    P_WARM,           /* a buffer pool fuller than this has stopped warming */
    P_CACHE_HITS,     /* a cache evicting with a hit ratio under this does not fit */
    P_MEMORY_HITS,    /* disk reads with a hit ratio under this are memory, not I/O */
    P_QUOTA_HELD,     /* % of the interval benchtop's quota held it back: the quota is the limit */
    P_WIRE_MS,        /* a round trip this long (ms) or longer is a wire */
    P_STEADY_RTT_MS,  /* ... this long, a wire even on a full host */
    P_NETWORK_SHARE,  /* round trips' share of the latency that makes transit the network */
    P_WANTS_CORE,     /* % of a core a thread running and waiting wants: it wants a core */
    P_THREAD_FULL,    /* % of a core the server's busiest thread is busy: a thread setting helps */
    P_PINNED_WAIT,    /* % benchtop pinned waits for a CPU that a wider affinity relieves */
    P_SESSIONS_PER_CORE, /* sessions per core at which a process-per-session server thrashes */
    P_HOST_PART,         /* a part's share of a busy host that counts (benchtop's, others') */
    P_SERVER_HOLDS,      /* the server's share of a busy host that makes its CPU the limit there */
    P_RUN_HOLDS,         /* the run's share (server, benchtop, kernel) of a full host it holds */
    P_CPU_FULL,          /* the server's CPU, of its limit or the cores, behind an app's queue */
    P_COMMITS_MIN,
    P_CLEAR_SCORE,
    P_LIKELY_SCORE,
    P_CLOSE_SECOND,
    P_CLEAR_MARGIN,
    P_RISING_INTERVALS,
    P_ROWS_RISE,
    P_SESSION_SEEN,
    P_LOOP_QUEUE,
    P_LOOP_SLEEPS,
    P_PING_WAITS,
    P_RTT_JITTER,
    P_FLOOR_RTT,
    P_OTHERS_SMALL,
    P_BENCHTOP_BUSY,
    P_CORES_FREE,
    P_MISS_READS,
    P_SERVER_BUSY,
    P_LATE,
    P_ALL_BUSY,
    P_RATE_KEPT,
    P_SYNCS_NONE,
    P_KERNEL_NAMED,
    P_OTHERS_NAMED,
    P_WAIT_NAMED,
    P_CMD_FILLS,
    P_OWN_LIMIT,
    P_WAIT_SHARE,
    P_RUNQ_PART,
    P_REFUSED,
    P_BLIND,
    /* watch: a server under someone else's load (watch.c) */
    P_IDLE_RATE,   /* the server's transactions or commands/s under which it may be idle */
    P_IDLE_ACTIVE, /* ... and its active sessions under this */
    P_WATCH_WAIT,  /* a wait's share of the active sessions' time that names it the limit */
    P__COUNT
};

struct param {
    const char *name; /* "saturated" */
    double value;
    const char *source; /* the measurement it comes from */
};

double param(enum param_id id);
const struct param *param_row(enum param_id id);
/* The table as man page lines (.TP name value, then its source): the VERDICT section's table. */
void param_print_man(FILE *out);

#endif
