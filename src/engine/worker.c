/*
 * worker: the -j thread loop. Waits on its clients' sockets and its
 * eventfds with epoll, the timeout computed from the next deadline.
 */
#include "worker.h"
#include "client.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/cpu.h"
#include "engine-state.h"
#include "base/sendq.h"
#include "base/util.h"

#define NO_DEADLINE UINT64_MAX
#define EV_BATCH 256              /* events taken per epoll_wait */
#define EV_WAKE UINT32_MAX        /* epoll data of wake_fd */
#define EV_CTL (UINT32_MAX - 1)   /* ... of ctl_fd */
#define EV_SENDQ (UINT32_MAX - 2) /* ... of the sendq's ring */
#define SWEEPS_PER_STALL 4        /* stalls are found within 1.25 x --stall-timeout */

/* Clients whose sends are done go on if their socket is ready; a failed send loses them. */
static void
finish_sends(struct worker *w)
{
    for (int i = 0; i < w->nsent; i++) { /* advancing may append */
        struct client *c;
        char *msg;
        if (w->sent[i] >= (uint32_t)w->nclients)
            continue; /* removed by a resize */
        c = &w->clients[w->sent[i]];
        if (c->sending > 0)
            continue; /* sent again since: that send's end decides */
        if (c->send_failed != NULL) {
            msg = c->send_failed;
            c->send_failed = NULL;
            client_send_failed(w, c, msg);
            free(msg);
        } else if (worker_waits_on_socket(c) && worker_take_ready(c)) {
            client_advance(w, c);
        }
    }
    w->nsent = 0;
}

/* Before waiting: submits the loop turn's sends, and acts on the ones already done. */
static void
flush_sends(struct worker *w)
{
    char err[BT_ERRLEN];

    if (w->sq == NULL)
        return;
    do {
        if (sendq_submit(w->sq, err) < 0)
            fatal("%s", err);
        worker_reap_sends(w);
        finish_sends(w);
    } while (sendq_queued(w->sq) > 0);
}

/*
 * The gauges of the buffer handed over: clients connected, in flight, and
 * connecting. A transaction still in flight has its time so far counted in
 * this interval, not all of it in the one where it ends (a 3 s lock wait
 * left three intervals with nothing in flight and the next with 3 s).
 */
static void
count_gauges(struct worker *w)
{
    int i, n = 0, busy = 0, connecting = 0, retrying = 0, never = 0;
    uint64_t now = now_us(), oldest = 0;

    for (i = 0; i < w->nclients; i++) {
        struct client *c = &w->clients[i];
        enum client_state st = c->state;

        n += st == CS_IDLE || st == CS_RUNNING;
        busy += c->inflight > 0;
        connecting += st == CS_CONNECTING;
        retrying += st == CS_CONNECTING && c->lost; /* a refused client trying again */
        never += c->ok == 0; /* a refused client's error replies are not a transaction done */
        if (st == CS_CONNECTING && now > c->active_us && now - c->active_us > oldest)
            oldest = now - c->active_us; /* a login a pooler holds back waits as long */
        if (c->inflight > 0) {
            uint64_t from = c->active_us > c->counted_us ? c->active_us : c->counted_us;
            uint64_t origin = c->origins[c->head];

            w->stats[w->cur].flight_us += now > from ? now - from : 0;
            c->counted_us = now;
            oldest = now > origin && now - origin > oldest ? now - origin : oldest;
        }
    }
    w->stats[w->cur].never_done = (uint64_t)never;
    w->stats[w->cur].oldest_us = oldest;
    w->stats[w->cur].connected = (uint64_t)n;
    w->stats[w->cur].busy = (uint64_t)busy;
    w->stats[w->cur].connecting = (uint64_t)connecting;
    w->stats[w->cur].retrying = (uint64_t)retrying;
}

/* The main thread asked for a tick: hand it the buffer we wrote. */
static void
swap_buffers(struct worker *w)
{
    uint64_t v;

    if (read(w->wake_fd, &v, sizeof(v)) != sizeof(v))
        return;
    if (atomic_load(&w->eng->stop))
        return;
    count_gauges(w);
    w->cur ^= 1;
    atomic_fetch_add_explicit(&w->swaps, 1, memory_order_release);
    eventfd_post(w->eng->ack_fd);
}

/* Open loop: hand every due transaction to a client that waits for one. */
static void
assign_slots(struct worker *w)
{
    int i;
    uint64_t now = now_us();

    for (i = 0; i < w->nclients && sched_peek(&w->sched) <= now; i++) {
        struct client *c = &w->clients[i];
        if (client_wants_slot(w, c))
            client_give_slot(w, c, sched_take(&w->sched));
    }
}

static void
add_client(struct worker *w)
{
    struct client *c = &w->clients[w->nclients++];
    const struct engine *e = w->eng;
    /* -C gives each request its own connection: nothing to pipeline */
    int depth = e->drv->pipelining && !e->rc->connect_per_txn ? e->rc->pipeline : 1;
    /* its own: a retry replays this client's draws, whatever the others drew meanwhile */
    struct rng *rng = xmalloc(sizeof(*rng));

    int id = runconf_first_client(e->rc) + w->next_id; /* the fleet's id */

    rng_seed(rng, rng_next(&w->rng));
    client_init(c, id, e->drv->conn_new(e->shared, id, rng), depth, rng);
    w->next_id += w->nworkers;
}

static void
remove_client(struct worker *w)
{
    struct client *c = &w->clients[--w->nclients];

    client_close(w, c);
    w->eng->drv->conn_free(c->conn);
    client_free(c);
}

/* Grows or shrinks to n clients; new ones start connecting at once. */
static void
resize(struct worker *w, int n)
{
    int i, old = w->nclients;

    if (n > w->capacity) {
        w->capacity = n * 2;
        w->clients = xrealloc(w->clients, (size_t)w->capacity * sizeof(*w->clients));
    }
    while (w->nclients > n)
        remove_client(w);
    while (w->nclients < n)
        add_client(w);
    for (i = old; i < w->nclients; i++)
        client_advance(w, &w->clients[i]);
    atomic_store(&w->nclients_seen, w->nclients);
}

/* The main thread changed ctl: clients, pause, rate. */
static void
apply_control(struct worker *w)
{
    struct worker_ctl ctl;
    uint64_t v;
    int i, was_paused = w->paused;

    if (read(w->ctl_fd, &v, sizeof(v)) != sizeof(v))
        return;
    pthread_mutex_lock(&w->ctl_lock);
    ctl = w->ctl;
    pthread_mutex_unlock(&w->ctl_lock);
    w->paused = ctl.paused;
    if (ctl.rate > 0 && (!w->open_loop || ctl.rate != w->sched.rate || was_paused))
        sched_init(&w->sched, ctl.rate, now_us(), rng_next(&w->rng));
    w->open_loop = ctl.rate > 0;
    resize(w, ctl.clients);
    if (was_paused && !w->paused)
        for (i = 0; i < w->nclients; i++)
            client_advance(w, &w->clients[i]);
}

static int
has_waiting_client(const struct worker *w)
{
    int i;

    for (i = 0; i < w->nclients; i++)
        if (client_wants_slot(w, &w->clients[i]))
            return 1;
    return 0;
}

static int
timer_set(const struct client *c)
{
    return c->state == CS_BACKOFF || (c->state == CS_IDLE && c->wake_us != 0);
}

static uint64_t
next_deadline(const struct worker *w)
{
    uint64_t d = w->ntimers > 0 ? w->timers[0].at : NO_DEADLINE;

    if (w->stall_us > 0 && w->next_sweep_us < d)
        d = w->next_sweep_us;
    if (w->open_loop && has_waiting_client(w) && sched_peek(&w->sched) < d)
        d = sched_peek(&w->sched);
    return d;
}

/* One ready fd: the tick, a control change, or a client's socket. */
static void
handle_event(struct worker *w, const struct epoll_event *ev)
{
    uint32_t idx = (uint32_t)ev->data.u64;
    int fd = (int)(ev->data.u64 >> 32);
    struct client *c;

    if (idx == EV_WAKE) {
        swap_buffers(w);
        return;
    }
    if (idx == EV_CTL) {
        apply_control(w);
        return;
    }
    if (idx == EV_SENDQ) {
        worker_reap_sends(w);
        finish_sends(w);
        return;
    }
    if (idx >= (uint32_t)w->nclients)
        return; /* removed by a resize earlier in this batch */
    c = &w->clients[idx];
    if (fd != c->reg_fd)
        return; /* an old registration of a reused index */
    if (w->edge) {
        c->ready |= ev->events; /* reported once: kept until the client waits for it */
        if (c->sending == 0 && worker_waits_on_socket(c) && worker_take_ready(c))
            client_advance(w, c);
        return;
    }
    if (!worker_waits_on_socket(c)) {
        worker_unwatch(w, c); /* not waiting on it (idle, open loop): stop hearing it */
        return;
    }
    c->want = 0; /* ready: client_advance takes the next step */
    client_advance(w, c);
}

/* epoll_pwait2 (Linux 5.11) waits to the microsecond; epoll_wait rounds up to a millisecond. */
static int
epoll_until(struct worker *w, uint64_t deadline)
{
    static atomic_int no_pwait2;
    uint64_t now = now_us(), wait = deadline > now ? deadline - now : 0;
    struct timespec ts = {.tv_sec = (time_t)(wait / 1000000u),
                          .tv_nsec = (long)(wait % 1000000u) * 1000};
    int n;

    if (!atomic_load(&no_pwait2)) {
        n = epoll_pwait2(w->epfd, w->events, w->nevents, deadline == NO_DEADLINE ? NULL : &ts,
                         NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        atomic_store(&no_pwait2, 1);
    }
    return epoll_wait(w->epfd, w->events, w->nevents,
                      deadline == NO_DEADLINE ? -1 : (int)((wait + 999) / 1000));
}

static void
wait_events(struct worker *w)
{
    int i, n = epoll_until(w, next_deadline(w));

    w->loop_us = now_us();
    if (n < 0) {
        if (errno != EINTR)
            fatal("epoll_wait: %s", strerror(errno));
        return;
    }
    for (i = 0; i < n; i++)
        handle_event(w, &w->events[i]);
}

static void
wake_timers(struct worker *w)
{
    uint64_t now = now_us();

    while (w->ntimers > 0 && w->timers[0].at <= now) {
        struct wtimer t = worker_timer_pop(w);
        struct client *c;
        if (t.client >= w->nclients)
            continue;
        c = &w->clients[t.client];
        if (!timer_set(c) || c->wake_us > now)
            continue; /* stale: the client moved on, or set a later time */
        if (c->state == CS_IDLE)
            c->wake_us = 0;
        client_advance(w, c);
    }
}

/* A few times per --stall-timeout: a client waiting that long on its socket has lost it. */
static void
sweep_stalls(struct worker *w)
{
    uint64_t now = w->loop_us;
    int i;

    if (w->stall_us == 0 || now < w->next_sweep_us)
        return;
    w->next_sweep_us = now + w->stall_us / SWEEPS_PER_STALL;
    for (i = 0; i < w->nclients; i++) {
        struct client *c = &w->clients[i];
        if ((c->state == CS_CONNECTING || c->state == CS_RUNNING) && c->want != 0 &&
            now - c->active_us >= w->stall_us)
            client_stalled(w, c);
    }
}

static int
all_finished(const struct worker *w)
{
    int i;

    if (w->eng->rc->transactions == 0)
        return 0;
    for (i = 0; i < w->nclients; i++)
        if (w->clients[i].state != CS_FINISHED)
            return 0;
    return 1;
}

/*
 * --pin: like memaslap, each worker keeps to one of the CPUs we may use,
 * when there are as many as workers. It helps short requests (memcached on
 * 2 busy cores: about 1.4 times the ops/s) and can hurt transactions that
 * wait on the disk (a pinned thread waits for its own CPU to wake up), so
 * it is asked for, not the default.
 */
static void
pin_to_cpu(const struct worker *w)
{
    cpu_set_t allowed, one;
    int n, k = 0;

    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return;
    n = CPU_COUNT(&allowed);
    if (n < 2 || w->nworkers > n)
        return;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed) || k++ != w->id)
            continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        return;
    }
}

/*
 * A ring for the loop's sends, made on this thread (a ring has one
 * submitter), when the driver's reads drain its sockets: only then does the
 * loop hold a client back until its send is done. Without one, the drivers
 * send directly (engine_sends_note says so in --version).
 */
static void
start_sendq(struct worker *w)
{
    char err[BT_ERRLEN];

    if (!w->edge || (w->sq = sendq_new(err)) == NULL)
        return;
    if (worker_ev_ctl(w, EPOLL_CTL_ADD, sendq_fd(w->sq), EPOLLIN, EV_SENDQ) < 0)
        fatal("epoll_ctl on the io_uring: %s", strerror(errno));
}

static void *
worker_main(void *arg)
{
    struct worker *w = arg;
    int i, n;

    atomic_store(&w->tid, (int)cpu_gettid());
    if (w->eng->rc->pin)
        pin_to_cpu(w);
    pthread_mutex_lock(&w->ctl_lock);
    n = w->ctl.clients;
    pthread_mutex_unlock(&w->ctl_lock);
    w->loop_us = now_us();
    start_sendq(w);
    resize(w, n); /* on this thread: it owns its clients from the first one */
    while (!atomic_load(&w->eng->stop)) {
        if (w->open_loop && !w->paused)
            assign_slots(w);
        flush_sends(w);
        wait_events(w);
        wake_timers(w);
        sweep_stalls(w);
        if (!atomic_load(&w->finished) && all_finished(w)) {
            atomic_store(&w->finished, 1);
            eventfd_post(w->eng->notify_fd);
        }
    }
    count_gauges(w); /* the final interval's gauges */
    for (i = 0; i < w->nclients; i++)
        client_close(w, &w->clients[i]);
    return NULL;
}

int
worker_start(struct worker *w, const struct engine *eng, int id, const struct worker_ctl *ctl,
             char *err)
{
    const struct runconf *rc = eng->rc;
    uint64_t seed = runconf_seed(rc, rc->seed ? rc->seed : now_us());
    int rv;

    memset(w, 0, sizeof(*w));
    w->id = id;
    w->eng = eng;
    w->next_id = id;
    w->nworkers = eng->nworkers; /* read here: a failed start lowers the engine's */
    w->ctl = *ctl;
    w->paused = ctl->paused;
    pthread_mutex_init(&w->ctl_lock, NULL);
    rng_seed(&w->rng, seed * 2654435761u + (uint64_t)id);
    w->open_loop = ctl->rate > 0;
    if (w->open_loop)
        sched_init(&w->sched, ctl->rate, eng->start_us, seed + (uint64_t)id);
    wstats_init(&w->stats[0]);
    wstats_init(&w->stats[1]);
    wstats_init_stmts(&w->stats[0], eng->nstmts);
    wstats_init_stmts(&w->stats[1], eng->nstmts);
    w->capacity = ctl->clients > 0 ? ctl->clients : 1;
    w->clients = xcalloc((size_t)w->capacity, sizeof(*w->clients));
    w->edge = eng->drv->reads_drain;
    w->nevents = EV_BATCH;
    w->events = xcalloc((size_t)w->nevents, sizeof(*w->events));
    w->stall_us = (uint64_t)(rc->stall_timeout_s * 1e6);
    w->next_sweep_us = now_us() + w->stall_us / SWEEPS_PER_STALL;
    w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->ctl_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (w->wake_fd < 0 || w->ctl_fd < 0 || w->epfd < 0)
        return seterr(err, "eventfd/epoll: %s", strerror(errno));
    if (worker_ev_ctl(w, EPOLL_CTL_ADD, w->wake_fd, EPOLLIN, EV_WAKE) < 0 ||
        worker_ev_ctl(w, EPOLL_CTL_ADD, w->ctl_fd, EPOLLIN, EV_CTL) < 0)
        return seterr(err, "epoll_ctl: %s", strerror(errno));
    rv = pthread_create(&w->thread, NULL, worker_main, w);
    if (rv != 0)
        return seterr(err, "cannot start a worker thread: %s (try a smaller -j)", strerror(rv));
    return 0;
}

void
worker_control(struct worker *w, const struct worker_ctl *ctl)
{
    pthread_mutex_lock(&w->ctl_lock);
    w->ctl = *ctl;
    pthread_mutex_unlock(&w->ctl_lock);
    eventfd_post(w->ctl_fd);
}

void
worker_join(struct worker *w)
{
    pthread_join(w->thread, NULL);
}

void
worker_free(struct worker *w)
{
    int i;

    for (i = 0; i < w->nclients; i++) {
        w->eng->drv->conn_free(w->clients[i].conn);
        client_free(&w->clients[i]);
    }
    free(w->clients);
    free(w->events);
    free(w->sent);
    sendq_free(w->sq);
    free(w->timers);
    close(w->epfd);
    close(w->wake_fd);
    close(w->ctl_fd);
    pthread_mutex_destroy(&w->ctl_lock);
    wstats_free(&w->stats[0]);
    wstats_free(&w->stats[1]);
}
