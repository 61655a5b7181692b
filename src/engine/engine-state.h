/*
 * engine-state: struct engine and struct worker_ctl, the run's state that
 * the main thread (engine.c) sets and the workers and clients (worker.c,
 * client.c) read. Apart from engine.h so that those can read it without
 * including the engine that starts them.
 */
#ifndef BENCHTOP_ENGINE_STATE_H
#define BENCHTOP_ENGINE_STATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "driver.h"
#include "runconf.h"
#include "stats.h"
#include "base/cpu.h"

struct worker;

/* What the main thread asks of a worker, applied at the worker's next loop turn. */
struct worker_ctl {
    int clients; /* clients this worker should run */
    int paused;  /* start no new transaction */
    double rate; /* this worker's share of -R; 0 = closed loop */
};

struct engine {
    const struct runconf *rc;
    const struct driver_class *drv;
    void *shared; /* the driver's prepare() result */
    uint64_t start_us;
    uint64_t end_us; /* 0 with -t or when the front end decides */
    uint64_t late_us;
    atomic_int stop; /* set by main: workers leave their loops */
    int ack_fd;      /* eventfd: worker -> main, one per swap */
    int notify_fd;   /* eventfd: worker -> main, a worker finished its -t */
    struct worker *workers;
    int nworkers;
    int active;  /* workers that get clients (-j; engine_set_threads); the rest idle */
    int clients; /* as last set */
    int paused;
    double rate;
    uint64_t last_tick_us;
    double last_cpu_s;         /* the process's CPU seconds at the last tick */
    struct cpu_self last_self; /* ... and its waits for a CPU (run queue, quota) */
    struct snapshot snap;      /* cur = the last interval, total = the run */
    /*
     * The intervals just before this one in which nothing finished, nothing
     * failed and transactions waited: an outage's start when failures with no
     * answer follow (a stopped server: the stall timeout ends its waits only
     * later), a slow transaction's time when a success does.
     */
    double waited_s, waited_from;
    int in_outage; /* the last interval counted towards the outage: waits go on counting */
    int nstmts;    /* -r: statements counted per worker (driver.h stmt_labels) */
    int stopped;
};

#endif
