/*
 * client: the per-client state machine. Every transition happens in
 * client_advance(), which loops until the client has to wait.
 */
#include "client.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-state.h"
#include "base/util.h"
#include "loop.h"

#define BACKOFF_MIN_MS 10
#define BACKOFF_MAX_MS 1000

static short
poll_events(enum drv_status st)
{
    return st == DRV_WANT_WRITE ? POLLOUT : POLLIN;
}

static void
note_error(struct worker *w, enum err_kind kind, const char *msg)
{
    struct wstats *s = worker_stats(w);

    s->errors[kind]++;
    first_line(s->last_error, sizeof(s->last_error), msg);
    wstats_count_msg(s, s->last_error, 1);
}

/* Closes the driver's connection, once no queued send of it can still read its buffers. */
static void
disconnect(struct worker *w, struct client *c)
{
    worker_drop_sends(w, c);
    w->eng->drv->conn_disconnect(c->conn);
}

/* The connection is gone: count it, close it, and wait before trying again. */
static void
lose_connection_as(struct worker *w, struct client *c, enum err_kind kind, const char *msg)
{
    if (c->lost)
        worker_stats(w)->connect_fails++; /* still the same outage: one error is enough */
    else
        note_error(w, kind, msg);
    worker_unwatch(w, c);
    disconnect(w, c);
    c->inflight = 0; /* one loss is one error, however many requests were in flight */
    c->head = 0;
    c->lost = 1;
    c->has_slot = 0;
    c->retrying = 0;
    c->state = CS_BACKOFF;
    c->wake_us = now_us() + (uint64_t)c->backoff_ms * 1000u;
    worker_timer(w, c);
    c->backoff_ms = c->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : c->backoff_ms * 2;
}

static void
lose_connection(struct worker *w, struct client *c, const char *msg)
{
    lose_connection_as(w, c, ERR_CONN, msg);
}

/*
 * A transaction's DRV_ERROR: a lost connection, unless the driver named a
 * kind of its own (a reply larger than it takes: "reply_too_large").
 */
static void
lose_in_transaction(struct worker *w, struct client *c, const struct txn_result *res)
{
    lose_connection_as(w, c, res->err >= ERR_DRIVER_1 ? res->err : ERR_CONN, res->msg);
}

static int
reached_limit(const struct worker *w, const struct client *c)
{
    long long t = w->eng->rc->transactions;

    return t > 0 && c->done >= t;
}

static void
start_connect(struct worker *w, struct client *c)
{
    char err[BT_ERRLEN];
    enum drv_status st;

    c->connect_us = now_us();
    c->active_us = c->connect_us;
    st = w->eng->drv->conn_connect_start(c->conn, err);
    if (st == DRV_ERROR) {
        lose_connection(w, c, err);
        return;
    }
    c->state = CS_CONNECTING;
    c->want = poll_events(st);
}

static void
connected(struct worker *w, struct client *c)
{
    struct wstats *s = worker_stats(w);
    uint64_t now = now_us();

    s->connects++;
    s->connect_us += now - c->connect_us;
    if (c->lost)
        s->reconnects++;
    c->lost = 0;
    c->state = CS_IDLE; /* the backoff stays until a transaction gets through (finish_txn) */
}

/*
 * --max-tries: a serialization failure or deadlock (the driver rolled back)
 * is tried again with the same draws, its latency still from the first try.
 * 1 if the transaction will run again.
 */
static int
retry(struct worker *w, struct client *c, uint64_t origin, const struct txn_result *res)
{
    struct wstats *s = worker_stats(w);

    if ((res->err != ERR_SERIALIZATION && res->err != ERR_DEADLOCK) || c->depth > 1 ||
        c->tries >= w->eng->rc->max_tries)
        return 0;
    s->retried += c->tries == 1;
    s->retries++;
    c->tries++;
    c->retrying = 1;
    *c->rng = c->rng_first;
    c->has_slot = 1; /* start_txn takes origin_us as the latency origin */
    c->origin_us = origin;
    return 1;
}

/* Counts one finished transaction, its latency taken from origin. */
static void
record(struct worker *w, struct client *c, uint64_t origin, const struct txn_result *res)
{
    struct wstats *s = worker_stats(w);

    s->rx_bytes += res->rx_bytes;
    if (retry(w, c, origin, res))
        return;
    c->done++;
    if (res->err == ERR_NONE) {
        /*
         * Only a transaction that got through ends the backoff, not a
         * connect: a server at its client limit accepts, answers with an
         * error and closes (Redis at maxclients 10, -c 50: 42k reconnects
         * in 12 s with the backoff reset at each connect, -25% of tps).
         */
        c->backoff_ms = BACKOFF_MIN_MS;
        c->ok++;
        s->txns++;
        s->ops += (uint64_t)res->ops;
        hist_record(s->lat, now_us() - origin);
    } else {
        note_error(w, res->err, res->msg);
    }
}

/*
 * Nothing is in flight any more: wait for the next start, or with -C close.
 * A transaction that ended in its start (unsent: the driver refused it
 * before sending anything, which driver.h allows only with an error) goes
 * on after one loop turn, by the timer, not at once: a start that always
 * fails would spin. With -C that is a reconnect, so the client waits in
 * CS_BACKOFF. A transaction that got a reply takes no timer.
 */
static void
settle(struct worker *w, struct client *c, int unsent)
{
    if (w->eng->rc->connect_per_txn) {
        worker_unwatch(w, c);
        disconnect(w, c);
        c->state = unsent ? CS_BACKOFF : CS_DISCONNECTED;
    } else {
        c->state = CS_IDLE;
    }
    if (unsent) {
        c->wake_us = now_us();
        worker_timer(w, c);
    }
}

/* The oldest transaction in flight is over, at end_us. */
static void
finish_txn_at(struct worker *w, struct client *c, uint64_t end_us)
{
    uint64_t origin = c->origins[c->head];
    /* in flight since it was sent (or the previous reply, pipelined; or the last tick) */
    uint64_t from = c->active_us > c->counted_us ? c->active_us : c->counted_us;

    worker_stats(w)->flight_us += end_us > from ? end_us - from : 0;
    c->head = c->head + 1 == c->depth ? 0 : c->head + 1;
    c->inflight--;
    c->active_us = w->loop_us; /* the next oldest's wait counts from here */
    record(w, c, origin, &c->res);
    c->res.err = ERR_NONE;
    c->res.ops = 0;
    c->res.rx_bytes = 0;
    if (c->inflight == 0)
        settle(w, c, 0);
}

/* conn_txn_poll said DRV_DONE: the oldest transaction in flight is over. */
static void
finish_txn(struct worker *w, struct client *c)
{
    finish_txn_at(w, c, w->loop_us);
}

/*
 * DRV_DONE_SENT: the transaction started is over already (its reply came
 * within the start). The client goes on at the next loop turn, by the
 * timer, so that a server fast enough to answer every start at once does
 * not keep the other clients waiting; its socket stays registered as it
 * is, so the next wait costs no epoll_ctl. With -C the next connect waits
 * on its own socket anyway: advance goes on to it at once.
 */
static void
done_in_start(struct worker *w, struct client *c)
{
    uint64_t now = now_us();

    finish_txn_at(w, c, now); /* in flight since the loop turn began: no clock read per start */
    if (c->state == CS_IDLE) {
        c->wake_us = now;
        worker_timer(w, c);
    }
}

/* Whether one more transaction may start now. */
static int
may_start(const struct worker *w, const struct client *c)
{
    long long t = w->eng->rc->transactions;

    if (c->inflight >= c->depth || w->paused || (w->open_loop && !c->has_slot))
        return 0;
    return t == 0 || c->done + c->inflight < t;
}

/* Starts one transaction; returns the driver's answer, already acted upon. */
static enum drv_status
start_txn(struct worker *w, struct client *c)
{
    uint64_t origin = c->has_slot ? c->origin_us : now_us();
    struct txn_result spare;
    /* c->res is the oldest in flight's: a pipelined start gets its own */
    struct txn_result *res = c->inflight == 0 ? &c->res : &spare;
    enum drv_status st;
    uint64_t sends;
    int tail;

    if (!c->retrying) {
        c->tries = 1;
        c->rng_first = *c->rng;
    }
    c->retrying = 0;
    c->has_slot = 0;
    res->err = ERR_NONE;
    res->ops = 0;
    res->rx_bytes = 0;
    res->stmts = worker_stats(w)->stmts;
    sends = worker_sendq(w, c, res);
    st = w->eng->drv->conn_txn_start(c->conn, res);
    worker_sendq_after(w, c, sends);
    if (st == DRV_ERROR) {
        lose_in_transaction(w, c, res);
        return st;
    }
    if (st == DRV_DONE_SENT && w->eng->drv->pipelining)
        fatal("driver %s: DRV_DONE_SENT from a pipelining driver (driver.h)", w->eng->drv->name);
    if (st == DRV_DONE) {
        /* a success here has no reply to wake its client, nor would a timer mean anything */
        if (res->err == ERR_NONE)
            fatal("driver %s: conn_txn_start finished a transaction without an error (driver.h)",
                  w->eng->drv->name);
        record(w, c, origin, res);
        if (c->inflight == 0)
            settle(w, c, 1);
        return st;
    }
    tail = c->head + c->inflight;
    c->origins[tail >= c->depth ? tail - c->depth : tail] = origin;
    if (c->inflight == 0)
        c->active_us = w->loop_us;
    c->inflight++;
    c->state = CS_RUNNING;
    if (st == DRV_DONE_SENT)
        done_in_start(w, c);
    else
        c->want = poll_events(st);
    return st;
}

/*
 * Pipelining: starts transactions while the client may (one per reply that
 * came in, so the pipe streams), then asks for an immediate conn_txn_poll
 * (want = 0), which sends them in one write or takes the next reply already
 * read. -1 if the connection was lost.
 */
static int
refill(struct worker *w, struct client *c)
{
    while (may_start(w, c)) {
        enum drv_status st = start_txn(w, c);
        if (st == DRV_ERROR)
            return -1;
        if (st == DRV_DONE)
            break; /* failed at once: do not spin on it; the next reply brings us back */
    }
    c->want = 0;
    return 0;
}

static enum drv_status
poll_step(struct worker *w, struct client *c, char *err)
{
    const struct driver_class *drv = w->eng->drv;
    enum drv_status st;
    uint64_t sends;

    if (c->state == CS_CONNECTING)
        return drv->conn_connect_poll(c->conn, err);
    c->res.stmts = worker_stats(w)->stmts;
    sends = worker_sendq(w, c, &c->res);
    st = drv->conn_txn_poll(c->conn, &c->res);
    worker_sendq_after(w, c, sends);
    return st;
}

/* The socket is ready (or a step finished at once): one driver step. */
static int
socket_step(struct worker *w, struct client *c)
{
    char err[BT_ERRLEN];
    enum drv_status st = poll_step(w, c, err);

    if (st == DRV_ERROR) {
        if (c->state == CS_CONNECTING)
            lose_connection(w, c, err);
        else
            lose_in_transaction(w, c, &c->res);
        return 0;
    }
    if (st != DRV_DONE) {
        c->want = poll_events(st);
        return 0;
    }
    if (c->state == CS_CONNECTING)
        connected(w, c);
    else
        finish_txn(w, c);
    return 1;
}

void
client_init(struct client *c, int id, void *conn, int depth, struct rng *rng)
{
    memset(c, 0, sizeof(*c));
    c->rng = rng;
    c->id = id;
    c->conn = conn;
    c->state = CS_DISCONNECTED;
    c->reg_fd = -1;
    c->backoff_ms = BACKOFF_MIN_MS;
    c->depth = depth > 0 ? depth : 1;
    c->origins = xcalloc((size_t)c->depth, sizeof(*c->origins));
}

void
client_free(struct client *c)
{
    free(c->send_failed);
    c->send_failed = NULL;
    free(c->origins);
    free(c->rng);
    c->origins = NULL;
    c->rng = NULL;
}

int
client_wants_slot(const struct worker *w, const struct client *c)
{
    if (!w->open_loop || c->has_slot)
        return 0;
    if (w->eng->rc->connect_per_txn)
        return c->state == CS_DISCONNECTED;
    return (c->state == CS_IDLE || c->state == CS_RUNNING) && c->inflight < c->depth;
}

void
client_give_slot(struct worker *w, struct client *c, uint64_t sched_us)
{
    struct wstats *s = worker_stats(w);
    uint64_t now = now_us();
    uint64_t lag = now > sched_us ? now - sched_us : 0;

    c->has_slot = 1;
    c->origin_us = sched_us;
    s->lag_sum_us += lag;
    if (lag > s->lag_max_us)
        s->lag_max_us = lag;
    if (sched_is_late(sched_us, now, w->eng->late_us))
        s->late++;
    client_advance(w, c);
}

static void
advance(struct worker *w, struct client *c)
{
    int per_txn = w->eng->rc->connect_per_txn;
    int pipelining = w->eng->drv->pipelining;

    for (;;) {
        switch (c->state) {
        case CS_DISCONNECTED:
            if (reached_limit(w, c)) {
                c->state = CS_FINISHED;
                return;
            }
            if (per_txn && ((w->open_loop && !c->has_slot) || w->paused))
                return; /* waits for the schedule, or for the end of the pause */
            if (per_txn && !c->has_slot) {
                c->has_slot = 1; /* closed loop: the transaction starts now, connect included */
                c->origin_us = now_us();
            }
            start_connect(w, c);
            if (c->state != CS_CONNECTING)
                return;
            break;
        case CS_CONNECTING:
            /* want is cleared by the worker when the socket is ready */
            if (c->want != 0 || !socket_step(w, c))
                return;
            break;
        case CS_IDLE:
            if (reached_limit(w, c)) {
                client_close(w, c);
                c->state = CS_FINISHED;
                return;
            }
            if (!may_start(w, c))
                return;
            start_txn(w, c);
            if (c->state == CS_DISCONNECTED)
                break; /* -C, over within its start: the next connect */
            if (c->state != CS_RUNNING || !pipelining)
                return; /* waits on the socket, or on the timer (failed at once, or lost) */
            break;      /* fill the pipe, then send it all at once (CS_RUNNING) */
        case CS_RUNNING:
            if (pipelining && refill(w, c) < 0)
                break; /* lost: CS_BACKOFF */
            if (c->want != 0 || !socket_step(w, c))
                return;
            break;
        case CS_BACKOFF:
            if (now_us() < c->wake_us)
                return;
            c->state = CS_DISCONNECTED;
            break;
        case CS_FINISHED:
            return;
        }
    }
}

void
client_advance(struct worker *w, struct client *c)
{
    do
        advance(w, c);
    while (worker_watch(w, c));
}

void
client_close(struct worker *w, struct client *c)
{
    worker_unwatch(w, c);
    if (c->state == CS_CONNECTING || c->state == CS_IDLE || c->state == CS_RUNNING)
        disconnect(w, c);
    c->state = CS_DISCONNECTED;
}

void
client_send_failed(struct worker *w, struct client *c, const char *msg)
{
    if (c->state == CS_RUNNING)
        lose_connection(w, c, msg);
}

void
client_stalled(struct worker *w, struct client *c)
{
    char msg[BT_ERRLEN];

    snprintf(msg, sizeof msg, "%s made no progress for %g s (--stall-timeout): connection dropped",
             c->state == CS_CONNECTING ? "the connect" : "the transaction",
             w->eng->rc->stall_timeout_s);
    lose_connection(w, c, msg);
}
