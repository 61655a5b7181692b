/*
 * collect: runs one collector class on its own thread and connection.
 * It samples every interval; a sample that runs past the next tick makes
 * that tick skipped and counted as late, so a slow server never piles up
 * queries. Results are published under a mutex (once per sample, never per
 * transaction) and announced on an eventfd the main loop waits on.
 */
#ifndef BENCHTOP_COLLECT_H
#define BENCHTOP_COLLECT_H

#include <stdint.h>

#include "collector.h"

struct collect;

/* The latest published state of one collector. */
struct collect_result {
    int ok;           /* the last sample succeeded */
    int have_view;    /* view holds a derive of at least one sample */
    double t;         /* seconds since the collector started, at the sample */
    double cost_ms;   /* how long the last sample took */
    uint64_t samples; /* samples taken */
    uint64_t late;    /* ticks skipped because a sample overran the interval */
    char error[160];  /* why not ok */
    struct coll_view view;
};

/* Starts the thread; the first sample is taken at once. NULL and err on failure. */
struct collect *collect_start(const struct collector_class *cls, const char *target,
                              double interval_s, char *err);
/* Readable when a new result was published. */
int collect_notify_fd(const struct collect *c);
/* Copies the latest result and drains the notification. */
void collect_read(struct collect *c, struct collect_result *out);
/*
 * 1 when the sample in progress has run for two intervals (at least 2 s):
 * out is then the latest result marked failed ("no answer for N s"), with
 * the current t and no view, for the front end to show the server as stuck.
 */
int collect_overdue(struct collect *c, struct collect_result *out);
/* Takes effect from the next sample. */
void collect_set_interval(struct collect *c, double interval_s);
/*
 * Stops the thread, closes the connection and frees c. Waits at most about
 * a second: a thread still blocked on the network is left to the exit.
 */
void collect_stop(struct collect *c);

#endif
