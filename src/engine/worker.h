/*
 * worker: one -j thread. Runs one event loop (epoll) over its share of the
 * clients, with a timeout computed from the next deadline (schedule,
 * reconnect backoff, stalled connections). Owns its clients, its rng, its
 * schedule and a pair of stats buffers.
 *
 * The loop's cost follows the sockets that are ready, not the clients
 * connected: a client stays registered in the epoll set with the event it
 * waits for, re-registered only when that changes (client_advance ends with
 * worker_watch), so a request/reply turn costs no epoll_ctl. A driver whose
 * reads drain the socket (driver.h .reads_drain) has each socket registered
 * once, edge-triggered for input and output: no second poll of a socket
 * that was just served, and no change between writing and reading. With
 * such a driver and a ring (sendq.h) the requests of one loop turn are
 * queued and submitted together just before the wait; a client whose send
 * is not done yet is not advanced, whatever its socket says. Timers
 * (backoff, a retry) sit in a min-heap; stalls are found by a sweep a few
 * times per --stall-timeout.
 *
 * The tick protocol (no lock or atomic per transaction): the main thread
 * writes to wake_fd; the worker, at its next loop turn, switches `cur` to
 * the other buffer, stores its connected-clients gauge, and writes to the
 * engine's ack_fd. After all acks, the main thread owns the buffer the
 * workers left, merges it and resets it before the next tick. The switch
 * is published by a release on `swaps` that the main thread acquires:
 * once per tick, and a hand-off ThreadSanitizer can see (it cannot see
 * one through an eventfd and a fence).
 */
#ifndef BENCHTOP_WORKER_H
#define BENCHTOP_WORKER_H

#include <sys/epoll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "client.h"
#include "base/rand.h"
#include "base/sched.h"
#include "engine-state.h"
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
    int nworkers;             /* the engine's, as it started this worker (it may shrink after) */
    atomic_int finished;      /* every client reached -t */
    atomic_int tid;           /* the thread's id, for its CPU time in /proc */
    double cpu_s;             /* main thread only: its CPU seconds at the last tick */
    double wait_s;            /* main thread only: its run-queue wait at the last tick */
    atomic_int nclients_seen; /* clients, for the main thread's display */
    atomic_uint swaps; /* buffer switches: released here, acquired by the main thread's tick */
    int capacity;      /* clients allocated */
    int epfd;          /* epoll: wake_fd, ctl_fd and each waiting client's socket */
    int edge;          /* the driver's reads drain: sockets watched edge-triggered */
    struct epoll_event *events; /* scratch for epoll_wait */
    int nevents;
    struct wtimer *timers; /* min-heap on .at: clients' wake_us (entries may be stale) */
    int ntimers, timers_cap;
    uint64_t loop_us;       /* the clock after the last wait: "now" for progress marks */
    uint64_t stall_us;      /* --stall-timeout in us; 0 = never */
    uint64_t next_sweep_us; /* when to look for stalled clients next */
    struct sendq *sq;       /* batched sends (sendq.h); NULL: the drivers send directly */
    uint32_t *sent;         /* clients whose queued sends all finished, to go on (or fail) */
    int nsent, sent_cap;
};

struct wtimer {
    uint64_t at;
    int client; /* index into clients */
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
/*
 * For client.c: wait on c's socket for c->want (nothing when want is 0).
 * 1 when the client may go on at once (want is then 0): edge-triggered, what
 * it waits for was reported while it was not waiting.
 */
int worker_watch(struct worker *w, struct client *c);
/* For client.c: forget c's socket; called before the driver closes it. */
void worker_unwatch(struct worker *w, struct client *c);
/* For client.c: advance c once the clock reaches c->wake_us. */
void worker_timer(struct worker *w, struct client *c);
/*
 * For client.c: before a driver call, res gets the worker's sendq (or NULL)
 * and c's tag; returns the queue's count for worker_sendq_after ...
 */
uint64_t worker_sendq(struct worker *w, struct client *c, struct txn_result *res);
/* ... after it, with that count: c counts the sends the driver queued. */
void worker_sendq_after(struct worker *w, struct client *c, uint64_t before);
/* For client.c: before the driver closes c's connection, its queued sends end (cancelled). */
void worker_drop_sends(struct worker *w, struct client *c);

#endif
