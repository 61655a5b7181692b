/*
 * worker: the -j thread loop. Waits on its clients' sockets and its wake
 * eventfd with ppoll, the timeout computed from the next deadline.
 */
#include "worker.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "engine.h"
#include "util.h"

#define NO_DEADLINE UINT64_MAX

struct wstats *
worker_stats(struct worker *w)
{
    return &w->stats[w->cur];
}

static void
notify(int fd)
{
    uint64_t one = 1;

    if (write(fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
}

static int
connected_count(const struct worker *w)
{
    int i, n = 0;

    for (i = 0; i < w->nclients; i++) {
        enum client_state st = w->clients[i].state;
        n += st == CS_IDLE || st == CS_RUNNING;
    }
    return n;
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
    w->stats[w->cur].connected = (uint64_t)connected_count(w);
    w->cur ^= 1;
    atomic_thread_fence(memory_order_release);
    notify(w->eng->ack_fd);
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

    client_init(c, w->next_id, e->drv->conn_new(e->shared, w->next_id, &w->rng), depth);
    w->next_id += e->nworkers;
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
        w->pfds = xrealloc(w->pfds, ((size_t)w->capacity + 2) * sizeof(*w->pfds));
        w->pfd_client = xrealloc(w->pfd_client, ((size_t)w->capacity + 2) * sizeof(int));
    }
    while (w->nclients > n)
        remove_client(w);
    while (w->nclients < n)
        add_client(w);
    for (i = old; i < w->nclients; i++)
        client_advance(w, &w->clients[i]);
    w->npfds_valid = 0; /* the pollfd array no longer matches the clients */
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
    uint64_t d = NO_DEADLINE;
    int i;

    for (i = 0; i < w->nclients; i++)
        if (timer_set(&w->clients[i]) && w->clients[i].wake_us < d)
            d = w->clients[i].wake_us;
    if (w->open_loop && has_waiting_client(w) && sched_peek(&w->sched) < d)
        d = sched_peek(&w->sched);
    return d;
}

static int
fill_pollfds(struct worker *w)
{
    const struct driver_class *drv = w->eng->drv;
    int i, n = 2;

    w->pfds[0].fd = w->wake_fd;
    w->pfds[0].events = POLLIN;
    w->pfds[1].fd = w->ctl_fd;
    w->pfds[1].events = POLLIN;
    for (i = 0; i < w->nclients; i++) {
        struct client *c = &w->clients[i];
        if ((c->state != CS_CONNECTING && c->state != CS_RUNNING) || c->want == 0)
            continue;
        w->pfds[n].fd = drv->conn_fd(c->conn);
        w->pfds[n].events = c->want;
        w->pfd_client[n] = i;
        n++;
    }
    return n;
}

static void
wait_events(struct worker *w)
{
    int i, n = fill_pollfds(w);

    w->npfds_valid = n;
    uint64_t deadline = next_deadline(w), now = now_us();
    struct timespec ts, *tsp = NULL;

    if (deadline != NO_DEADLINE) {
        uint64_t wait = deadline > now ? deadline - now : 0;
        ts.tv_sec = (time_t)(wait / 1000000u);
        ts.tv_nsec = (long)(wait % 1000000u) * 1000;
        tsp = &ts;
    }
    if (ppoll(w->pfds, (nfds_t)n, tsp, NULL) < 0) {
        if (errno != EINTR)
            fatal("ppoll: %s", strerror(errno));
        return;
    }
    if (w->pfds[0].revents)
        swap_buffers(w);
    if (w->pfds[1].revents)
        apply_control(w);
    for (i = 2; i < n && i < w->npfds_valid; i++) {
        struct client *c = &w->clients[w->pfd_client[i]];
        if (w->pfds[i].revents == 0)
            continue;
        c->want = 0; /* ready: client_advance takes the next step */
        client_advance(w, c);
    }
}

static void
wake_timers(struct worker *w)
{
    int i;
    uint64_t now = now_us();

    for (i = 0; i < w->nclients; i++) {
        struct client *c = &w->clients[i];
        if (timer_set(c) && c->wake_us <= now) {
            if (c->state == CS_IDLE)
                c->wake_us = 0;
            client_advance(w, c);
        }
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
    if (n < 2 || w->eng->nworkers > n)
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
    resize(w, n); /* on this thread: it owns its clients from the first one */
    while (!atomic_load(&w->eng->stop)) {
        if (w->open_loop && !w->paused)
            assign_slots(w);
        wait_events(w);
        wake_timers(w);
        if (!atomic_load(&w->finished) && all_finished(w)) {
            atomic_store(&w->finished, 1);
            notify(w->eng->notify_fd);
        }
    }
    w->stats[w->cur].connected = (uint64_t)connected_count(w); /* the final interval's gauge */
    for (i = 0; i < w->nclients; i++)
        client_close(w, &w->clients[i]);
    return NULL;
}

int
worker_start(struct worker *w, const struct engine *eng, int id, const struct worker_ctl *ctl,
             char *err)
{
    const struct runconf *rc = eng->rc;
    uint64_t seed = rc->seed ? rc->seed : now_us();
    int rv;

    memset(w, 0, sizeof(*w));
    w->id = id;
    w->eng = eng;
    w->next_id = id;
    w->ctl = *ctl;
    w->paused = ctl->paused;
    pthread_mutex_init(&w->ctl_lock, NULL);
    rng_seed(&w->rng, seed * 2654435761u + (uint64_t)id);
    w->open_loop = ctl->rate > 0;
    if (w->open_loop)
        sched_init(&w->sched, ctl->rate, eng->start_us, seed + (uint64_t)id);
    wstats_init(&w->stats[0]);
    wstats_init(&w->stats[1]);
    w->capacity = ctl->clients > 0 ? ctl->clients : 1;
    w->clients = xcalloc((size_t)w->capacity, sizeof(*w->clients));
    w->pfds = xcalloc((size_t)w->capacity + 2, sizeof(*w->pfds));
    w->pfd_client = xcalloc((size_t)w->capacity + 2, sizeof(int));
    w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->ctl_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (w->wake_fd < 0 || w->ctl_fd < 0)
        return seterr(err, "eventfd: %s", strerror(errno));
    rv = pthread_create(&w->thread, NULL, worker_main, w);
    if (rv != 0)
        return seterr(err, "cannot start a worker thread: %s (try a smaller -j)", strerror(rv));
    return 0;
}

void
worker_control(struct worker *w, const struct worker_ctl *ctl)
{
    uint64_t one = 1;

    pthread_mutex_lock(&w->ctl_lock);
    w->ctl = *ctl;
    pthread_mutex_unlock(&w->ctl_lock);
    if (write(w->ctl_fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
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
    free(w->pfds);
    free(w->pfd_client);
    close(w->wake_fd);
    close(w->ctl_fd);
    pthread_mutex_destroy(&w->ctl_lock);
    wstats_free(&w->stats[0]);
    wstats_free(&w->stats[1]);
}
