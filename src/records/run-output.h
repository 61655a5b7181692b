/*
 * run-output: what a run writes at each snapshot and at its end, whatever
 * it is: output.c's lines, and a sweep's steps, line and table
 * (sweep-output.c) when it is one.
 */
#ifndef BENCHTOP_RUN_OUTPUT_H
#define BENCHTOP_RUN_OUTPUT_H

#include <stdio.h>

#include "output.h"

/*
 * The engine's report_fn: arg is a struct report_ctx. The first call puts
 * the record's {"type":"run"} header line (options, version, target, host)
 * before the first interval.
 */
void report_snapshot(const struct snapshot *snap, const struct verdict *v, void *arg);
/* The end summary for people (stderr), whatever the front end was. */
void report_human_summary(FILE *f, const struct snapshot *snap, const struct verdict *v,
                          const struct report_ctx *ctx);

#endif
