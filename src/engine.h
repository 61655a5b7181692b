/*
 * engine: runs one load: starts the workers, ticks every interval,
 * merges their stats into snapshots for a reporter, and stops them at the
 * end (-T reached, every client reached -t, SIGINT or SIGTERM).
 */
#ifndef BENCHTOP_ENGINE_H
#define BENCHTOP_ENGINE_H

#include <stdatomic.h>
#include <stdint.h>

#include "driver.h"
#include "runconf.h"
#include "stats.h"

struct worker;

struct engine {
    const struct runconf *rc;
    const struct driver_class *drv;
    void *shared;          /* the driver's prepare() result */
    uint64_t start_us;
    uint64_t late_us;
    atomic_int stop;       /* set by main: workers leave their loops */
    int ack_fd;            /* eventfd: worker -> main, one per swap */
    int notify_fd;         /* eventfd: worker -> main, a worker finished */
    struct worker *workers;
    int nworkers;
};

/* Called on the main thread once per interval and once at the end (snap->final). */
typedef void (*report_fn)(const struct snapshot *snap, void *arg);

/* Runs the load; returns 0, or -1 with err if it could not start. */
int engine_run(const struct runconf *rc, void *shared, report_fn report, void *arg, char *err);

#endif
