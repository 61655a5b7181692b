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

#include "engine-state.h"

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
