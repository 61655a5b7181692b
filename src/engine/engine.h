/*
 * engine: one load, driven from the main thread. The session's main loop
 * (session.c, for the headless front end and the dashboard alike) calls
 * engine_tick once per interval; the engine owns the workers.
 *
 * Lifecycle: engine_start -> { engine_tick | engine_set_* }* -> engine_stop
 * -> engine_free. Every function here is for the main thread only.
 */
#ifndef BENCHTOP_ENGINE_H
#define BENCHTOP_ENGINE_H

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
    int nstmts;                /* -r: statements counted per worker (driver.h stmt_labels) */
    int stopped;
};

/*
 * Spreads the clients over n workers (1 to nworkers): the others close
 * their connections and idle. A closed loop's spare workers
 * (runconf.spare_threads) are what n may grow into.
 */
void engine_set_threads(struct engine *e, int n);
/* Starts the workers; the run's clock starts now. NULL and err on failure. */
struct engine *engine_start(const struct runconf *rc, void *shared, char *err);
/*
 * Ends the current interval: swaps and merges every worker's stats into
 * e->snap. The snapshot stays the engine's; the caller fills in its verdict.
 */
struct snapshot *engine_tick(struct engine *e);
/* Stops the workers and merges what is left; e->snap.final is set. Same snapshot. */
struct snapshot *engine_stop(struct engine *e);
/* Stops the workers if engine_stop was not called, then frees everything. */
void engine_free(struct engine *e);

/* Readable when a worker finished its -t; then engine_finished() tells if all did. */
int engine_notify_fd(const struct engine *e);
int engine_finished(struct engine *e);

/* Live control (the dashboard's keys). */
void engine_set_clients(struct engine *e, int clients);
void engine_set_paused(struct engine *e, int paused);
void engine_set_rate(struct engine *e, double rate);

#endif
