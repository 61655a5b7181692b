/*
 * engine: the main thread's side of a run: workers, ticks, live control,
 * stop. The main loop that drives it is in session.c.
 */
#include "engine.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/cpu.h"
#include "base/util.h"
#include "worker.h"

/* Blocks until every worker acknowledged a swap, and takes over their buffers. */
static void
wait_acks(struct engine *e)
{
    uint64_t got = 0, v;
    struct pollfd p = {.fd = e->ack_fd, .events = POLLIN};

    while (got < (uint64_t)e->nworkers) {
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            fatal("poll: %s", strerror(errno));
        if (read(e->ack_fd, &v, sizeof(v)) == sizeof(v))
            got += v;
    }
    for (int i = 0; i < e->nworkers; i++) /* pairs with each worker's release (worker.h) */
        (void)atomic_load_explicit(&e->workers[i].swaps, memory_order_acquire);
}

/* Merges the buffers the workers left into the snapshot, then empties them. */
static void
collect(struct engine *e, int both)
{
    struct snapshot *snap = &e->snap;
    int i, b;

    wstats_reset(&snap->cur);
    for (i = 0; i < e->nworkers; i++) {
        struct worker *w = &e->workers[i];
        for (b = 0; b < 2; b++) {
            if (!both && b == w->cur)
                continue;
            wstats_merge(&snap->cur, &w->stats[b]);
            wstats_reset(&w->stats[b]);
        }
    }
    wstats_merge(&snap->total, &snap->cur);
}

/* A cumulative reading's growth over secs, %; NAN when either end is unknown. */
static double
delta_pct(double now, double then, double secs)
{
    return now < 0 || then < 0 || !(secs > 0) ? NAN : fmax(0, now - then) * 100 / secs;
}

/* The process's run-queue wait and its cgroup's throttling over the interval (the time account). */
static void
measure_waits(struct engine *e, double secs)
{
    struct cpu_self now;

    cpu_self_read(&now);
    e->snap.own_runq_pct = delta_pct(now.runq_s, e->last_self.runq_s, secs);
    /* not fmin(NAN, 100), which is 100: unreadable (a netns's empty /sys) stays unknown */
    e->snap.throttled_pct = delta_pct(now.throttled_s, e->last_self.throttled_s, secs);
    if (e->snap.throttled_pct > 100)
        e->snap.throttled_pct = 100;
    e->snap.quota = now.quota;
    memcpy(e->snap.quota_where, now.quota_where, sizeof(e->snap.quota_where));
    e->last_self = now;
}

/*
 * CPU over the interval: the busiest worker thread (running, and waiting in
 * the run queue for a CPU: a starved thread wants the CPU as much as a busy
 * one) and the whole process, % of one core.
 */
static void
measure_cpu(struct engine *e, double secs)
{
    double proc = cpu_process_seconds(), max = -1, max_wait = 0;
    int i;

    for (i = 0; i < e->nworkers && secs > 0; i++) {
        struct worker *w = &e->workers[i];
        pid_t tid = (pid_t)atomic_load(&w->tid);
        double t = cpu_thread_seconds(tid), q = cpu_thread_wait_seconds(tid);
        double run = (t - w->cpu_s) * 100 / secs, wait = q >= 0 ? (q - w->wait_s) * 100 / secs : 0;
        if (t < 0)
            continue;
        if (run + wait > max) {
            max = run + wait;
            e->snap.worker_cpu_max = run;
            max_wait = wait;
        }
        w->cpu_s = t;
        w->wait_s = q >= 0 ? q : 0;
    }
    if (max < 0)
        e->snap.worker_cpu_max = 0;
    e->snap.worker_wait_max = max_wait;
    e->snap.own_cpu_pct = secs > 0 ? (proc - e->last_cpu_s) * 100 / secs : 0;
    e->last_cpu_s = proc;
    measure_waits(e, secs);
}

/* Failures that are no answer from the server: a connection lost, cut by a stall, refused. */
static uint64_t
unanswered(const struct wstats *c)
{
    return c->errors[ERR_CONN] + c->connect_fails;
}

/*
 * An interval in which the server answered nothing counts towards the
 * outage, with the waits that led to it and those that follow it until an
 * answer. A slow transaction is no outage, nor an error the server sent: it
 * answered.
 */
static void
count_outage(struct engine *e)
{
    const struct wstats *c = &e->snap.cur;
    double from = e->snap.t - e->snap.interval_s;

    if (c->txns > 0 || wstats_errors(c) > c->errors[ERR_CONN]) { /* it answered */
        e->waited_s = 0;
        e->in_outage = 0;
        return;
    }
    if (unanswered(c) == 0 && !e->in_outage) { /* waiting, or idle: an outage if failures follow */
        if (c->busy + c->connecting > 0 && e->waited_s == 0)
            e->waited_from = from;
        e->waited_s = c->busy + c->connecting > 0 ? e->waited_s + e->snap.interval_s : 0;
        return;
    }
    if (e->waited_s > 0)
        from = e->waited_from;
    if (isnan(e->snap.outage_from))
        e->snap.outage_from = from;
    e->snap.outage_s += e->snap.interval_s + e->waited_s;
    e->waited_s = 0;
    e->in_outage = 1;
}

/* The client counts so far: a new entry when the count changed; when full, the last is replaced. */
static void
note_clients(struct snapshot *snap, int clients)
{
    int n = snap->nclients_seen;

    if (n > 0 && snap->clients_seen[n - 1] == clients)
        return;
    if (n == SNAP_CLIENTS_SEEN)
        n--;
    snap->clients_seen[n] = clients;
    snap->nclients_seen = n + 1;
}

/* The snapshot's times; measure: read the threads' CPU now (not after they were joined). */
static void
stamp(struct engine *e, int final, int measure)
{
    uint64_t now = now_us();

    if (measure)
        measure_cpu(e, (double)(now - e->last_tick_us) / 1e6);
    e->snap.t = (double)(now - e->start_us) / 1e6;
    e->snap.interval_s = (double)(now - e->last_tick_us) / 1e6;
    e->snap.final = final;
    e->snap.clients = e->clients;
    e->last_tick_us = now;
    count_outage(e);
    note_clients(&e->snap, e->clients);
}

struct snapshot *
engine_tick(struct engine *e)
{
    int i;

    for (i = 0; i < e->nworkers; i++)
        eventfd_post(e->workers[i].wake_fd);
    wait_acks(e);
    collect(e, 0);
    stamp(e, 0, 1);
    return &e->snap;
}

struct snapshot *
engine_stop(struct engine *e)
{
    int i;

    if (e->stopped)
        return &e->snap;
    /* the last interval's thread CPU, read while the threads still run */
    measure_cpu(e, (double)(now_us() - e->last_tick_us) / 1e6);
    atomic_store(&e->stop, 1);
    for (i = 0; i < e->nworkers; i++)
        eventfd_post(e->workers[i].wake_fd);
    for (i = 0; i < e->nworkers; i++)
        worker_join(&e->workers[i]);
    collect(e, 1); /* connected: each worker's count as it stopped */
    stamp(e, 1, 0);
    e->stopped = 1;
    return &e->snap;
}

int
engine_notify_fd(const struct engine *e)
{
    return e->notify_fd;
}

int
engine_finished(struct engine *e)
{
    uint64_t v;
    int i;

    if (read(e->notify_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
        fatal("eventfd read: %s", strerror(errno));
    for (i = 0; i < e->nworkers; i++)
        if (!atomic_load(&e->workers[i].finished))
            return 0;
    return 1;
}

/* Worker i's share of the clients and of the rate: none past the active ones. */
static void
share(const struct engine *e, int i, struct worker_ctl *ctl)
{
    int on = i < e->active;

    ctl->clients = on ? e->clients / e->active + (i < e->clients % e->active) : 0;
    ctl->paused = e->paused;
    ctl->rate = on ? e->rate / e->active : 0;
}

static void
control_all(struct engine *e)
{
    struct worker_ctl ctl;
    int i;

    for (i = 0; i < e->nworkers; i++) {
        share(e, i, &ctl);
        worker_control(&e->workers[i], &ctl);
    }
}

void
engine_set_clients(struct engine *e, int clients)
{
    e->clients = clients < 1 ? 1 : clients;
    control_all(e);
}

void
engine_set_threads(struct engine *e, int n)
{
    e->active = n < 1 ? 1 : n > e->nworkers ? e->nworkers : n;
    control_all(e);
}

void
engine_set_paused(struct engine *e, int paused)
{
    e->paused = paused;
    control_all(e);
}

void
engine_set_rate(struct engine *e, double rate)
{
    e->rate = rate < 0 ? 0 : rate;
    control_all(e);
}

/*
 * Worker `failed` could not start: frees what it holds, stops and joins the
 * workers started before it and frees the engine, so that nothing keeps
 * running behind the error.
 */
static void
abandon_start(struct engine *e, int failed)
{
    worker_free(&e->workers[failed]);
    e->nworkers = failed;
    engine_free(e);
}

struct engine *
engine_start(const struct runconf *rc, void *shared, char *err)
{
    struct engine *e = xcalloc(1, sizeof(*e));
    struct worker_ctl ctl;
    int i;

    e->rc = rc;
    e->drv = rc->tgt.driver;
    e->shared = shared;
    e->clients = rc->clients;
    e->rate = rc->rate;
    e->active = rc->threads; /* the caller caps -j at the most clients it will ask for */
    e->nworkers = rc->threads + (rc->rate > 0 ? 0 : rc->spare_threads);
    e->late_us = (uint64_t)(rc->late_ms * 1000.0);
    e->ack_fd = eventfd(0, EFD_CLOEXEC);
    e->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (e->ack_fd < 0 || e->notify_fd < 0) {
        seterr(err, "cannot create event descriptors: %s", strerror(errno));
        if (e->ack_fd >= 0)
            close(e->ack_fd);
        free(e);
        return NULL;
    }
    wstats_init(&e->snap.cur);
    wstats_init(&e->snap.total);
    e->snap.outage_from = NAN;
    if (rc->per_stmt && e->drv->stmt_labels != NULL) {
        const struct stmt_label *labels;
        e->nstmts = e->drv->stmt_labels(shared, &labels);
    }
    wstats_init_stmts(&e->snap.cur, e->nstmts);
    wstats_init_stmts(&e->snap.total, e->nstmts);
    e->start_us = now_us();
    e->last_tick_us = e->start_us;
    e->last_cpu_s = cpu_process_seconds();
    cpu_self_read(&e->last_self);
    e->end_us = rc->duration_s > 0 ? e->start_us + (uint64_t)(rc->duration_s * 1e6) : 0;
    e->workers = xcalloc((size_t)e->nworkers, sizeof(*e->workers));
    for (i = 0; i < e->nworkers; i++) {
        share(e, i, &ctl);
        if (worker_start(&e->workers[i], e, i, &ctl, err) < 0) {
            abandon_start(e, i);
            return NULL;
        }
    }
    return e;
}

void
engine_free(struct engine *e)
{
    int i;

    engine_stop(e);
    for (i = 0; i < e->nworkers; i++)
        worker_free(&e->workers[i]);
    free(e->workers);
    wstats_free(&e->snap.cur);
    wstats_free(&e->snap.total);
    close(e->ack_fd);
    close(e->notify_fd);
    free(e);
}
