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

#include "loop.h"

/* Sets up the worker with ctl->clients clients and starts the thread. 0 or -1 with err. */
int worker_start(struct worker *w, const struct engine *eng, int id, const struct worker_ctl *ctl,
                 char *err);
/* Asks the worker to apply ctl at its next loop turn. */
void worker_control(struct worker *w, const struct worker_ctl *ctl);
/* Joins the thread and frees what the worker owns (not its stats: engine reads them first). */
void worker_join(struct worker *w);
void worker_free(struct worker *w);

#endif
