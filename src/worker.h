/*
 * worker: one -j thread. Runs one event loop (ppoll) over its share of the
 * clients, with a timeout computed from the next deadline (schedule,
 * reconnect backoff). Owns its clients, its rng, its schedule and a pair of
 * stats buffers.
 *
 * The tick protocol (no lock or atomic per transaction): the main thread
 * writes to wake_fd; the worker, at its next loop turn, switches `cur` to
 * the other buffer, stores its connected-clients gauge, and writes to the
 * engine's ack_fd. After all acks, the main thread owns the buffer the
 * workers left, merges it and resets it before the next tick.
 */
#ifndef BENCHTOP_WORKER_H
#define BENCHTOP_WORKER_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "client.h"
#include "rand.h"
#include "sched.h"
#include "stats.h"

struct engine;

struct worker {
    int id;
    pthread_t thread;
    const struct engine *eng;
    struct client *clients;
    int nclients;
    struct rng rng;
    int open_loop;
    struct sched sched;
    struct wstats stats[2];
    int cur;              /* the buffer this worker writes into */
    int wake_fd;          /* eventfd: main -> worker */
    atomic_int finished;  /* every client reached -t */
    struct pollfd *pfds;  /* scratch for the loop */
    int *pfd_client;
};

/* Sets up the worker's clients [first, first+n) and starts the thread. 0 or -1 with err. */
int worker_start(struct worker *w, const struct engine *eng, int id, int first, int n,
                 char *err);
/* Joins the thread and frees what the worker owns (not its stats: engine reads them first). */
void worker_join(struct worker *w);
void worker_free(struct worker *w);

/* For client.c: the stats buffer being written now. */
struct wstats *worker_stats(struct worker *w);

#endif
