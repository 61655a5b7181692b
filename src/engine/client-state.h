/*
 * client-state: what a client is (struct client) and the states its
 * machine goes through (client.h has the machine, client.c advances it).
 * Apart from client.h so that the worker's services (loop.c) can read a
 * client without including the machine that calls them.
 */
#ifndef BENCHTOP_CLIENT_STATE_H
#define BENCHTOP_CLIENT_STATE_H

#include <stdint.h>

#include "driver.h"
#include "base/rand.h"

enum client_state {
    /*
     * No connection. Connects at once, except with -C in open loop, where
     * it first waits for a scheduled transaction (the worker hands it one).
     */
    CS_DISCONNECTED,
    /* Connection being established; waits on the socket. */
    CS_CONNECTING,
    /*
     * Connected, no transaction in flight. In closed loop it starts the
     * next one at once; in open loop it waits for the schedule.
     */
    CS_IDLE,
    /*
     * Transactions are in flight (one, or up to depth with a pipelining
     * driver, which may start more here as replies arrive); waits on the socket.
     */
    CS_RUNNING,
    /* The connection was lost; waits until wake_us, then reconnects. */
    CS_BACKOFF,
    /* Done: -t reached. Holds no connection. */
    CS_FINISHED,
};

struct client {
    int id;
    enum client_state state;
    void *conn;
    short want;          /* POLLIN / POLLOUT while waiting on the socket */
    int reg_fd;          /* the fd registered in the worker's epoll set, or -1 */
    uint32_t reg_events; /* ... and the events it is registered for */
    uint32_t ready;      /* edge-triggered: events reported and not yet waited for */
    uint64_t active_us;  /* the current connect or oldest transaction began (stall check) */
    uint64_t counted_us; /* its flight time is in the stats up to here (the last tick) */
    int has_slot;        /* a transaction is due: origin_us is its start */
    int lost;            /* the previous connection was lost: next connect is a reconnect */
    unsigned backoff_ms; /* next reconnect delay */
    uint64_t origin_us;  /* latency origin: scheduled (open loop) or actual start */
    uint64_t wake_us;    /* CS_BACKOFF, or CS_IDLE after a failed start: when to go on (0 = not) */
    uint64_t connect_us; /* when the current connect began */
    long long done;      /* transactions finished, ok or not */
    long long ok;        /* ... without an error */
    int depth;           /* transactions allowed in flight: --pipeline, or 1 */
    int inflight;        /* transactions started and not finished */
    int head;            /* origins[head] is the oldest in flight's latency origin */
    uint64_t *origins;   /* ring of depth entries: one latency origin per transaction */
    struct txn_result res;
    struct rng *rng;      /* this client's draws (the driver's script uses it) */
    struct rng rng_first; /* the state at the first try: a retry draws the same values */
    int tries;            /* tries of the transaction in flight (depth 1 only) */
    int retrying;         /* the next start is a retry: same draws, same latency origin */
    int sending;          /* sends queued in the worker's sendq and not done: no driver call */
    char *send_failed;    /* why one of them failed, until the worker acts on it (or NULL) */
};

#endif
