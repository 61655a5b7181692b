/*
 * runconf: what the user asked for, after option parsing. Filled once by
 * main.c from the option table (options.c), then read-only for everyone.
 */
#ifndef BENCHTOP_RUNCONF_H
#define BENCHTOP_RUNCONF_H

#include <stdint.h>

#include "target.h"

/* The most options the engine's table and every driver's together may have. */
#define OPTIONS_MAX 128
#define RC_MAX_WATCH 4

/* A repeatable target option's values, in the order given (--watch). */
struct target_list {
    int n;
    char *v[RC_MAX_WATCH];         /* as given (in argv until hidden) */
    struct target t[RC_MAX_WATCH]; /* each parsed once (launch_target) */
    int hidden;                    /* t holds them parsed, argv is masked (launch_target) */
};

struct runconf {
    const char *command; /* "run", "init", "demo", "serve" */
    struct target tgt;   /* the load's target, parsed once (launch_target) */

    char *workload;         /* -w; NULL means the driver's default */
    char *mode;             /* -M; NULL means the driver's default */
    char *script_file;      /* -f FILE[@W], repeatable: '\n'-separated (src/engine/mix.h) */
    char *builtin;          /* -b NAME[@W], repeatable: '\n'-separated */
    int clients;            /* -c */
    int threads;            /* -j */
    int spare_threads;      /* workers started idle beyond -j, for engine_set_threads (the */
                            /* dashboard's client-bound experiment); closed loops only */
    int pin;                /* --pin: each -j thread keeps to one CPU */
    double duration_s;      /* -T; 0 when -t is used */
    long long transactions; /* -t, per client; 0 when -T is used */
    double rate;            /* -R, total transactions/s; 0 = closed loop */
    double interval_s;      /* -P */
    double late_ms;         /* --late-ms: schedule lag that makes a transaction late */
    int connect_per_txn;    /* -C */
    int per_stmt;           /* -r: per-statement latency and counts in the summary */
    int max_tries;          /* --max-tries: tries for a serialization failure or deadlock */
    double
        stall_timeout_s; /* --stall-timeout: a connect or transaction stuck this long is an error */
    int headless;        /* --headless, or stdout is not a terminal */
    int force;           /* init --force */
    int pipeline;        /* requests in flight per connection: the driver's pipeline_depth() */
    uint64_t seed;       /* --seed */
    char *instance_spec; /* --instance I/N */
    int instance;        /* this agent's index, 0 .. instances-1 (instance.h) */
    int instances;       /* agents acting as one run, each with -c clients */
    char *target_file;   /* --target-file: the target read from a file (a mounted Secret) */
    char *records_glob;  /* watch --records PATTERN: follow a fleet's growing records */
    char *start_at_spec; /* --start-at TIME */
    double start_at;     /* when the load starts, seconds since the epoch; 0: at once */
    int quiet;           /* -q: no human summary on stderr */
    int no_collect;      /* --no-collect: no server-side collectors */
    int read_only;       /* --read-only: the dashboard never changes a server setting */
    char *record;        /* --record FILE: JSON lines while the dashboard runs */
    int record_queries;  /* --record-queries: other sessions' statements kept whole in JSON lines */
    char *pooler_target; /* --pooler: a connection pooler's console ("none": do not look) */
    char *server_target; /* --server: the server behind a pooler target, for its collector */
    struct target pooler_tgt; /* --pooler parsed once (launch_target); raw NULL: none */
    struct target server_tgt; /* --server parsed once (launch_target) */
    struct target_list watch; /* --watch: other targets' collectors beside the load */
    char *theme;              /* --theme NAME or path */
    char *report_format;      /* report --format: text, markdown, csv, json */
    double budget_s;          /* --budget: inspect's scan, try's pairs (0: each one's default) */
    uint64_t inspect_sample;  /* inspect --sample: keys looked at, at most (0: all) */
    char *inspect_separator;  /* inspect --separator: what ends a key's prefix */
    int inspect_json;         /* inspect --json */
    int stat;                 /* watch --stat: a human line per interval instead of JSON */
    double report_from;       /* report --from: seconds into each run */
    double report_to;         /* report --to; 0 = to the end */
    char *report_html;        /* report --html FILE */
    char *report_hlog;        /* report --hlog FILE */
    char *sweep_clients;      /* sweep --clients LIST */
    char *sweep_rates;        /* sweep --rates LIST */
    char *sweep_set_values;   /* sweep --set-values NAME=V1,V2,...: a setting's values */
    double warmup_s;          /* sweep --warmup: each step's unmeasured start */
    double step_s;            /* sweep --step-time: each step's measured part */
    int find_rate;            /* sweep --find-rate */
    char *slo;                /* sweep --slo, e.g. "p99<5ms" */
    char *try_set;            /* try --set NAME=VALUE, repeatable: '\n'-separated */
    int try_rounds;           /* try --rounds: A/B pairs at most */
    double try_min_effect;    /* try --min-effect: the smallest change that counts, % */
    double try_for_s;         /* try --for: each round's measured part */
    int try_clients;          /* try --try-clients: B's -c (0: as A) */
    int try_threads;          /* try --try-threads: B's -j (0: as A) */
    int try_pipeline;         /* try --try-pipeline: B's --pipeline (0: as A) */
    char *try_protocol;       /* try --try-protocol: B's -M (NULL: as A) */
    int try_connect;          /* try --try-connect: B reconnects per transaction (-C) */
    int try_restart;          /* try --restart: restart-only settings, on a throwaway (serve) */
    int try_undo;             /* try --undo: put back what a dead try left */
    char *try_output;         /* try -o FILE: the rounds' JSON lines */
    int show_help;            /* -h */
    int show_version;         /* -V */
    void *driver_conf;        /* the driver's option struct (driver.h), once the target is known */
    void **driver_confs;      /* options.c: one option struct per driver_class_at(i) */
    unsigned char given[OPTIONS_MAX];    /* options.c: option i was on the command line */
    const char *given_name[OPTIONS_MAX]; /* ... and its name (optdef.h: options_given) */
};

/*
 * One agent of a fleet (run/instance.c fills rc->instance and
 * rc->instances): the engine and drivers read these plain values.
 */
/* The first global client id of this agent. */
static inline int
runconf_first_client(const struct runconf *rc)
{
    return rc->instances > 1 ? rc->instance * rc->clients : 0;
}

/* The clients of the whole fleet: what key ranges are split among. */
static inline int
runconf_total_clients(const struct runconf *rc)
{
    return rc->clients * (rc->instances > 1 ? rc->instances : 1);
}

/* A seed of its own per agent, from the run's seed (--seed: the fleet's). */
static inline uint64_t
runconf_seed(const struct runconf *rc, uint64_t seed)
{
    return seed + (uint64_t)rc->instance * 0x9E3779B97F4A7C15ull; /* golden ratio: spreads bits */
}

#endif
