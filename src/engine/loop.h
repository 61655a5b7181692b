/*
 * loop: struct worker, and what a worker does for its clients: watch a
 * client's socket in its epoll set, wake it by a timer, batch its sends,
 * count into the stats buffer. client.c calls these from its state
 * machine, worker.c from its loop; they call neither (worker.h has the
 * thread, its start and its control; its header comment the design).
 */
#ifndef BENCHTOP_LOOP_H
#define BENCHTOP_LOOP_H

#include <sys/epoll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "base/rand.h"
#include "base/sched.h"
#include "engine-state.h"
#include "stats.h"

struct client;
struct txn_result;

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

/* the stats buffer being written now. */
struct wstats *worker_stats(struct worker *w);
/*
 * wait on c's socket for c->want (nothing when want is 0).
 * 1 when the client may go on at once (want is then 0): edge-triggered, what
 * it waits for was reported while it was not waiting.
 */
int worker_watch(struct worker *w, struct client *c);
/* forget c's socket; called before the driver closes it. */
void worker_unwatch(struct worker *w, struct client *c);
/* advance c once the clock reaches c->wake_us. */
void worker_timer(struct worker *w, struct client *c);
/*
 * before a driver call, res gets the worker's sendq (or NULL)
 * and c's tag; returns the queue's count for worker_sendq_after ...
 */
uint64_t worker_sendq(struct worker *w, struct client *c, struct txn_result *res);
/* ... after it, with that count: c counts the sends the driver queued. */
void worker_sendq_after(struct worker *w, struct client *c, uint64_t before);
/* before the driver closes c's connection, its queued sends end (cancelled). */
void worker_drop_sends(struct worker *w, struct client *c);

/* For worker.c: registers fd for events under epoll data idx: epoll_ctl's return. */
int worker_ev_ctl(struct worker *w, int op, int fd, uint32_t events, uint32_t idx);
/* Whether c waits on its socket (connecting or running, with a want). */
int worker_waits_on_socket(const struct client *c);
/* Edge-triggered: whether c->ready holds what c waits for; if so taken, and want is 0. */
int worker_take_ready(struct client *c);
/* Takes the finished sends: counts them off their clients, notes the failures. */
void worker_reap_sends(struct worker *w);
/* The earliest timer, removed from the heap (there is one). */
struct wtimer worker_timer_pop(struct worker *w);

#endif
