/*
 * output: how a snapshot is shown without the dashboard: JSON lines on
 * stdout (headless) or pgbench-like progress lines on stderr, and the end
 * summary in both forms. Field names of the JSON lines are an interface:
 * they are documented in benchtop.1 (HEADLESS OUTPUT).
 */
#ifndef BENCHTOP_REPORT_H
#define BENCHTOP_REPORT_H

#include <stdio.h>

#include "base/json.h"
#include "engine/driver.h"
#include "engine/runconf.h"
#include "base/hist.h"
#include "engine/stats.h"
#include "analysis/trystat.h"
#include "analysis/verdict.h"

struct report_ctx {
    const struct runconf *rc;
    const char *workload; /* resolved name (built-in or script file) */
    const char *mode;     /* resolved protocol mode */
    FILE *json;           /* NULL: no JSON lines */
    FILE *human;          /* NULL: no human progress/summary */
    struct sweep *sweep;  /* `benchtop sweep`: step lines, the sweep line and its table */
    int steps_reported;   /* the sweep's steps already written as JSON lines */
    int header_done;      /* the {"type":"run"} line went out */
    int json_errno;       /* why json's first write failed (the dashboard's --record); 0: none */
    const struct stmt_label *stmt_labels; /* -r: the statements snap->total.stmts counts */
    const struct drv_tls *tls;            /* prepare's connection; NULL: the driver cannot tell */
    const char *target_note;              /* the driver's line on the target; NULL: none */
    /* The header's "options" members: the run layer's options_print_json. */
    void (*print_options)(FILE *f, const struct runconf *rc);
};

/*
 * A snapshot's lines but a sweep's (run-output.c adds those): the record's
 * {"type":"run"} header line (options, version, target, host) before the
 * first interval, the interval, the human progress line.
 */
void report_interval_lines(const struct snapshot *snap, const struct verdict *v,
                           struct report_ctx *ctx);
/* The final snapshot's {"type":"summary"} line. */
void report_summary_json(const struct snapshot *snap, const struct verdict *v,
                         const struct report_ctx *ctx);

/*
 * An agent of a fleet that waits for --start-at, prepared: a
 * {"type":"ready","start_at":T,"instance":I,"instances":N} line before the
 * header, so `watch --records` counts the agents ready and the seconds left.
 */
void report_ready(FILE *f, const struct runconf *rc);

struct collect_result;

/* One collector result as a {"type":"server",...} JSON line. */
/* queries: other sessions' statements whole (--record-queries), else digested */
void report_server(FILE *f, double t, const char *name, const char *target,
                   const struct collect_result *res, const struct verdict *v, int queries);
/* What report_settings_events has written for one collector so far. */
struct report_seen {
    int settings;     /* the {"type":"settings"} line */
    uint64_t applied; /* the collector's `applied` count last written */
};

/*
 * The settings lines of one collector result: {"type":"settings"} at the
 * first read, then a {"type":"event","kind":"setting"} per change and a
 * {"type":"event","kind":"set"} per answer to a collect_apply request.
 */
void report_settings_events(FILE *f, const char *name, const struct collect_result *res,
                            struct report_seen *seen);
/* A user's marker as a {"type":"event","kind":"marker"} line; t in seconds since the start. */
void report_marker(FILE *f, double t, const char *label);
/*
 * The dashboard's try ended: what B changed, each side's tps, the pairs'
 * order seed, the outcome with its interval, the advice and its score
 * (tryreport.h's try_result_json; `report` tallies them).
 */
void report_try_event(FILE *f, double t, const char *change, uint64_t seed,
                      const struct try_result *res);
/* A run's end summary for people (a sweep's is its table: run-output.c). */
void report_run_summary(FILE *f, const struct snapshot *snap, const struct verdict *v,
                        const struct report_ctx *ctx);

/* "errors_by_kind":{...} from counts indexed by enum err_kind. */
void json_errors_by_kind(FILE *f, const uint64_t *errors);
/* "lat_us":{"mean":..,"p50":..,"p90":..,"p95":..,"p99":..,"p999":..,"max":..} */
void json_lat(FILE *f, const struct hist_summary *l);

#endif
