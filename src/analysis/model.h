/*
 * model: operational analysis over one interval's account (or the run's).
 *
 * Pure. For each resource the account can name, its capacity, its demand
 * per transaction (seconds of it one transaction uses, from the server's
 * or the host's counters) and its residence per transaction (the clients'
 * time there, from the account's shares): utilization = X x D / capacity,
 * the bound capacity / D. The resource nearest saturation is the limit.
 * Relieving a share s of the clients' time gives at most X / (1 - s) (the
 * closed loop: N = X x (R + Z)), capped by the other resources' bounds.
 * Little's law checks the figures: clients in flight = X x R. Findings are
 * the reliefs ranked by their bound, each with its advice as data; the
 * sentence is made from the advice in one place (advice_text).
 * Thresholds come from param.h. benchtop.1 (VERDICT) describes it.
 */
#ifndef BENCHTOP_MODEL_H
#define BENCHTOP_MODEL_H

#include <stddef.h>

#include "account.h"
#include "engine/collector.h"

enum model_res {
    MR_SERVER_CPU, /* the server's CPU used by benchtop's sessions */
    MR_OTHERS,     /* ... by everyone else's (other sessions, a save child, other programs) */
    MR_BENCHTOP,   /* benchtop's own CPU (threads, quota, affinity) */
    MR_COMMIT,     /* the commit: the log's syncs */
    MR_DISK,       /* data reads from disk */
    MR_LOCK,       /* a serialized lock: the holders' time */
    MR_POOL,       /* the pooler's pool of server connections */
    MR_APP,        /* the app tier's workers */
    MR_NETWORK,    /* delay: round trips (transit) */
    MR_STALL,      /* delay: stalls by other sessions' commands */
    MR_CONNECT,    /* delay: connection set-up */
    MR_SLEEP,      /* delay: sleeps the statements ask for */
    MR_MEMORY,     /* a cache's memory (watch): full and evicting what is looked up again */
    MR__COUNT
};

enum advice_kind {
    ADV_NONE,
    ADV_SETTING,       /* a server setting: name = value ("" value: raise it) */
    ADV_POOLER,        /* a pooler's setting, name = value */
    ADV_CLIENTS,       /* -c n */
    ADV_THREADS,       /* -j n */
    ADV_INDEX,         /* an index on what the statements filter by (name: the table, if known) */
    ADV_BATCH,         /* fewer, larger transactions (--batch) */
    ADV_TRIPS,         /* fewer round trips inside each transaction */
    ADV_STOP_OTHERS,   /* stop other programs on the host */
    ADV_STOP_SESSIONS, /* stop the other sessions' work (who: the verdict's evidence) */
    ADV_QUOTA,         /* raise benchtop's CPU quota */
    ADV_KEEP_CONNECTIONS, /* keep connections open (without -C) */
    ADV_HARDWARE,         /* a faster or larger server, faster storage */
    ADV__COUNT
};

struct advice {
    enum advice_kind kind;
    char name[48];  /* a setting's, a table's, another session's */
    char value[48]; /* "off", "256MB"; "" for "raise it" */
    int n;          /* clients or threads; a batch: the statements per commit now */
    double lo, hi;  /* predicted throughput, as a factor of the current (NAN unknown) */
};

/* A verdict's advice as data: its limit's, then its notes' (a setting to test beside it). */
enum { ADVICE_MAX = 4 };
struct advice_list {
    int n;
    struct advice a[ADVICE_MAX];
};

struct model_resource {
    double share;    /* the clients' time there, 0..1 */
    double resid_s;  /* ... per transaction, seconds */
    double capacity; /* servers (cores, connections, workers, 1 log); NAN: a delay or unknown */
    double demand_s; /* seconds of it one transaction uses; NAN unknown */
    double util;     /* X x demand / capacity; NAN unknown */
    double bound;    /* capacity / demand, transactions/s; NAN unknown */
};

struct finding {
    enum model_res res;
    double share; /* the clients' time the relief frees, 0..1 */
    double bound; /* throughput if relieved, transactions/s */
    struct advice advice;
};

enum { MODEL_FINDINGS = 3 };

/* One interval's figures beside its account; NAN (0 for counts) where unknown. */
struct model_input {
    const struct account *acct;
    const struct coll_signals *sig; /* NULL: the server is not seen */
    double tps, lat_mean_ms, lat_floor_ms;
    double interval_s;
    double in_flight;     /* clients in flight, measured (client-seconds in flight / interval) */
    double own_cpu_pct;   /* benchtop, % of one core */
    double host_busy_pct; /* the host, % of all cores, when the server runs on it */
    double others_pct;    /* other programs on the host, % of one core */
    int cores, threads, allowed_cpus;
    double quota;       /* benchtop's cgroup quota in cores; 0 none */
    double ops_per_txn; /* statements each transaction holds (--batch 100: 100); NAN */
    int clients;
};

struct model {
    int made; /* 0: no model (a zeroed struct: no load, a failing run) */
    double x; /* the throughput it was made at, transactions/s */
    struct model_resource r[MR__COUNT];
    int limit;                  /* the resource nearest saturation, MR__COUNT: none known */
    double limit_util;          /* its utilization */
    double x_closed;            /* N / (R_min + Z): the closed loop's bound; NAN */
    double clients_to_saturate; /* clients the bottleneck's bound needs at R_min + Z; NAN */
    double little_n, little_xr; /* clients in flight measured, and X x R */
    int consistent;             /* Little's law within P_LITTLE_TOL (or not checkable) */
    int nfindings;
    struct finding findings[MODEL_FINDINGS]; /* ranked by bound, largest first */
};

void model_make(const struct model_input *in, struct model *out);
/* The smallest bound (capacity / demand) known, leaving out resource skip (-1: none); NAN none. */
double model_min_bound(const struct model *m, int skip);
/* "commit", "benchtop", ... for JSON. */
const char *model_res_key(enum model_res r);
/* "the commit", "benchtop's CPU", ... for people. */
const char *model_res_label(enum model_res r);
/* "setting", "clients", ... for JSON. */
const char *advice_key(enum advice_kind k);
/* The advice's sentence ("synchronous_commit = off"; "-c 32"); "" for ADV_NONE. */
void advice_text(const struct advice *a, char *buf, size_t len);
/* Appends a to l (dropped when l is full or a is ADV_NONE). */
void advice_list_add(struct advice_list *l, const struct advice *a);
/* Fewer, larger transactions; n: the statements each holds now when it batches already. */
void advice_batch(struct advice *a, double ops_per_txn);
/* A setting advice (ADV_SETTING, or ADV_POOLER with pooler) with a name and a value ("" raise). */
void advice_setting(struct advice *a, int pooler, const char *name, const char *value);
/* "relieving the commit: up to about 2,900 tps from 1,100 (synchronous_commit = off)" */
void finding_text(const struct finding *f, double tps, char *buf, size_t len);

#endif
