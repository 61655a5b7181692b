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
#include "stats.h"

struct report_ctx {
    const struct runconf *rc;
    const char *workload; /* resolved name (built-in or script file) */
    const char *mode;     /* resolved protocol mode */
    FILE *json;           /* NULL: no JSON lines */
    FILE *human;          /* NULL: no human progress/summary */
    int header_done;      /* the {"type":"run"} line went out */
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
/* The end summary for people (stderr), whatever the front end was. */
void report_human_summary(FILE *f, const struct snapshot *snap, const struct report_ctx *ctx);

/* Writes s as a JSON string literal (quotes and escapes included). */
void json_string(FILE *f, const char *s);

#endif
