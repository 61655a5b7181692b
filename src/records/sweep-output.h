/*
 * sweep-output: how a sweep is shown: one {"type":"step",...} JSON line per
 * finished step, one {"type":"sweep",...} line at the end (both documented
 * in benchtop.1, HEADLESS OUTPUT), the table on stderr, and the one-line
 * findings (knee, most tps, find-rate) that the table and the dashboard's
 * sweep pane share.
 */
#ifndef BENCHTOP_SWEEP_REPORT_H
#define BENCHTOP_SWEEP_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "output.h"
#include "analysis/sweep.h"

void report_step_json(FILE *f, const struct sweep *sw, const struct sweep_step *st);
void report_sweep_json(FILE *f, const struct sweep *sw);
/* The table the seed posts wrote by hand, then the findings. */
void report_sweep_table(FILE *f, const struct sweep *sw, const struct report_ctx *ctx);

/* "16 clients" or "4,000/s": a step's load, for people. */
const char *sweep_load_text(const struct sweep *sw, const struct sweep_step *st, char *buf,
                            size_t len);
/* "knee at 16 clients: 42,100 tps, p99 3.1 ms; server CPU-bound from 16 clients on". */
void sweep_knee_text(const struct sweep *sw, char *buf, size_t len);
/* "highest rate meeting p99 < 5 ms: 12,400 tps (p99 4.6 ms); at 13,100 tps p99 was 9.8 ms". */
void sweep_find_text(const struct sweep *sw, char *buf, size_t len);
/* find-rate's progress: one line per finished step (the capacity, then each probe). */
void sweep_progress_line(FILE *f, const struct sweep *sw, const struct sweep_step *st);

#endif
