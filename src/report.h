/*
 * report: how a snapshot is shown without the dashboard: JSON lines on
 * stdout (headless) or pgbench-like progress lines on stderr, and the end
 * summary in both forms. Field names of the JSON lines are an interface:
 * they are documented in benchtop.1 (HEADLESS OUTPUT).
 */
#ifndef BENCHTOP_REPORT_H
#define BENCHTOP_REPORT_H

#include <stdio.h>
#include "runconf.h"
#include "hist.h"
#include "stats.h"

struct report_ctx {
    const struct runconf *rc;
    const char *workload; /* resolved name (built-in or script file) */
    const char *mode;     /* resolved protocol mode */
    FILE *json;           /* NULL: no JSON lines */
    FILE *human;          /* NULL: no human progress/summary */
    struct sweep *sweep;  /* `benchtop sweep`: step lines, the sweep line and its table */
    int steps_reported;   /* the sweep's steps already written as JSON lines */
    int header_done;      /* the {"type":"run"} line went out */
    const struct stmt_label *stmt_labels; /* -r: the statements snap->total.stmts counts */
};

/*
 * The engine's report_fn: arg is a struct report_ctx. The first call puts
 * the record's {"type":"run"} header line (options, version, target, host)
 * before the first interval.
 */
void report_snapshot(const struct snapshot *snap, void *arg);

struct collect_result;

/* One collector result as a {"type":"server",...} JSON line. */
void report_server(FILE *f, double t, const char *name, const char *target,
                   const struct collect_result *res);
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
/* The end summary for people (stderr), whatever the front end was. */
void report_human_summary(FILE *f, const struct snapshot *snap, const struct report_ctx *ctx);

/* Writes s as a JSON string literal (quotes and escapes included). */
void json_put_string(FILE *f, const char *s);
/* Writes v as a JSON number; NAN and infinities as null. */
void json_number(FILE *f, double v);
/* ,"key":v and ,"key":"s" for a member after an object's first (key is not escaped). */
void json_member_num(FILE *f, const char *key, double v);
void json_member_str(FILE *f, const char *key, const char *s);
/* "errors_by_kind":{...} from counts indexed by enum err_kind. */
void json_errors_by_kind(FILE *f, const uint64_t *errors);
/* "lat_us":{"mean":..,"p50":..,"p90":..,"p99":..,"p999":..,"max":..} */
void json_lat(FILE *f, const struct hist_summary *l);

#endif
