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
#include "engine.h"
#include "stats.h"

struct worker {
    int id;
    pthread_t thread;
    const struct engine *eng;
    struct client *clients;
    int nclients;
    struct rng rng;
    int open_loop;
    struct sched sched;
    int paused; /* start no new transaction (a copy of ctl.paused) */
    struct wstats stats[2];
    int cur;                  /* the buffer this worker writes into */
    int wake_fd;              /* eventfd: main -> worker, "swap buffers" (or stop) */
    int ctl_fd;               /* eventfd: main -> worker, "ctl changed" */
    pthread_mutex_t ctl_lock; /* guards ctl: taken once per change, never per transaction */
    struct worker_ctl ctl;
    int next_id;              /* client ids: id, id + nworkers, ... (unique across workers) */
    atomic_int finished;      /* every client reached -t */
    atomic_int tid;      /* the thread's id, for its CPU time in /proc */
    double cpu_s;
    double wait_s;      /* main thread only: its run-queue wait at the last tick */        /* main thread only: its CPU seconds at the last tick */
    atomic_int nclients_seen; /* clients, for the main thread's display */
    int capacity;             /* clients allocated */
    struct pollfd *pfds;      /* scratch for the loop: [0] wake, [1] ctl, then clients */
    int *pfd_client;
    int npfds_valid; /* pfds entries that still match clients (0 after a resize) */
};

/* Sets up the worker with ctl->clients clients and starts the thread. 0 or -1 with err. */
int worker_start(struct worker *w, const struct engine *eng, int id, const struct worker_ctl *ctl,
                 char *err);
/* Asks the worker to apply ctl at its next loop turn. */
void worker_control(struct worker *w, const struct worker_ctl *ctl);
/* Joins the thread and frees what the worker owns (not its stats: engine reads them first). */
void worker_join(struct worker *w);
void worker_free(struct worker *w);

/* For client.c: the stats buffer being written now. */
struct wstats *worker_stats(struct worker *w);

#endif
