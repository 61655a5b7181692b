/*
 * engine: the main thread's side of a run: workers, ticks, stop.
 * SIGINT and SIGTERM are blocked in every thread and read through a
 * signalfd here, so a signal never interrupts a worker mid-step.
 */
#include "engine.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "worker.h"

struct ticker {
    struct engine *e;
    struct snapshot snap;
    uint64_t last_tick_us;
    uint64_t end_us;      /* 0 with -t */
    uint64_t interval_us;
    int sigfd;
};

static void
wake(int fd)
{
    uint64_t one = 1;

    if (write(fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
}

/* Blocks until n workers acknowledged a swap. */
static void
wait_acks(int fd, int n)
{
    uint64_t got = 0, v;
    struct pollfd p = {.fd = fd, .events = POLLIN};

    while (got < (uint64_t)n) {
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            fatal("poll: %s", strerror(errno));
        if (read(fd, &v, sizeof(v)) == sizeof(v))
            got += v;
    }
    atomic_thread_fence(memory_order_acquire);
}

/* Merges the buffer each worker just left into the snapshot, then empties it. */
static void
collect(struct ticker *t, int both)
{
    struct engine *e = t->e;
    int i, b;

    wstats_reset(&t->snap.cur);
    for (i = 0; i < e->nworkers; i++) {
        struct worker *w = &e->workers[i];
        for (b = 0; b < 2; b++) {
            if (!both && b == w->cur)
                continue;
            wstats_merge(&t->snap.cur, &w->stats[b]);
            wstats_reset(&w->stats[b]);
        }
    }
    wstats_merge(&t->snap.total, &t->snap.cur);
}

static void
tick(struct ticker *t, uint64_t now, int final, report_fn report, void *arg)
{
    struct engine *e = t->e;
    int i;

    if (final) {
        atomic_store(&e->stop, 1);
        for (i = 0; i < e->nworkers; i++)
            wake(e->workers[i].wake_fd);
        for (i = 0; i < e->nworkers; i++)
            worker_join(&e->workers[i]);
        collect(t, 1);
        t->snap.cur.connected = 0;
    } else {
        for (i = 0; i < e->nworkers; i++)
            wake(e->workers[i].wake_fd);
        wait_acks(e->ack_fd, e->nworkers);
        collect(t, 0);
    }
    t->snap.t = (double)(now - e->start_us) / 1e6;
    t->snap.interval_s = (double)(now - t->last_tick_us) / 1e6;
    t->snap.final = final;
    t->last_tick_us = now;
    report(&t->snap, arg);
}

static int
all_finished(const struct engine *e)
{
    int i;

    for (i = 0; i < e->nworkers; i++)
        if (!atomic_load(&e->workers[i].finished))
            return 0;
    return 1;
}

/* Waits for the next tick, a signal or a finished worker; returns 1 when the run must end. */
static int
wait_tick(struct ticker *t, uint64_t next)
{
    struct pollfd p[2] = {{.fd = t->sigfd, .events = POLLIN},
                          {.fd = t->e->notify_fd, .events = POLLIN}};
    uint64_t now = now_us(), deadline = next, v;
    struct timespec ts;

    if (t->end_us && t->end_us < deadline)
        deadline = t->end_us;
    if (deadline > now) {
        ts.tv_sec = (time_t)((deadline - now) / 1000000u);
        ts.tv_nsec = (long)((deadline - now) % 1000000u) * 1000;
        if (ppoll(p, 2, &ts, NULL) < 0 && errno != EINTR)
            fatal("ppoll: %s", strerror(errno));
    }
    if (p[0].revents) {
        struct signalfd_siginfo si;
        if (read(t->sigfd, &si, sizeof(si)) > 0)
            return 1;
    }
    if (p[1].revents && read(t->e->notify_fd, &v, sizeof(v)) > 0 && all_finished(t->e))
        return 1;
    return t->end_us && now_us() >= t->end_us;
}

static void
main_loop(struct ticker *t, report_fn report, void *arg)
{
    uint64_t next = t->e->start_us + t->interval_us;

    for (;;) {
        int end = wait_tick(t, next);
        uint64_t now = now_us();
        if (end) {
            tick(t, now, 1, report, arg);
            return;
        }
        if (now < next)
            continue;
        tick(t, now, 0, report, arg);
        next += t->interval_us;
        if (next <= now) /* we fell behind (stopped process): skip, do not burst */
            next = now + t->interval_us;
    }
}

static int
block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int
start_workers(struct engine *e, char *err)
{
    const struct runconf *rc = e->rc;
    int i, first = 0;

    e->workers = xcalloc((size_t)e->nworkers, sizeof(*e->workers));
    for (i = 0; i < e->nworkers; i++) {
        /* spread clients evenly: the first (clients % threads) workers get one more */
        int n = rc->clients / e->nworkers + (i < rc->clients % e->nworkers);
        if (worker_start(&e->workers[i], e, i, first, n, err) < 0)
            return -1;
        first += n;
    }
    return 0;
}

int
engine_run(const struct runconf *rc, void *shared, report_fn report, void *arg, char *err)
{
    struct engine e = {.rc = rc, .drv = rc->driver, .shared = shared};
    struct ticker t = {.e = &e};
    sigset_t set;
    int i;

    e.nworkers = rc->threads < rc->clients ? rc->threads : rc->clients;
    e.late_us = (uint64_t)(rc->late_ms * 1000.0);
    e.ack_fd = eventfd(0, EFD_CLOEXEC);
    e.notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    t.sigfd = block_signals(&set);
    if (e.ack_fd < 0 || e.notify_fd < 0 || t.sigfd < 0)
        return seterr(err, "cannot create event descriptors: %s", strerror(errno));
    wstats_init(&t.snap.cur);
    wstats_init(&t.snap.total);
    t.snap.clients = rc->clients;
    t.interval_us = (uint64_t)(rc->interval_s * 1e6);
    e.start_us = now_us();
    t.last_tick_us = e.start_us;
    t.end_us = rc->duration_s > 0 ? e.start_us + (uint64_t)(rc->duration_s * 1e6) : 0;
    if (start_workers(&e, err) < 0)
        return -1; /* threads already started cannot be undone cleanly: the caller exits */
    main_loop(&t, report, arg);
    for (i = 0; i < e.nworkers; i++)
        worker_free(&e.workers[i]);
    free(e.workers);
    wstats_free(&t.snap.cur);
    wstats_free(&t.snap.total);
    close(e.ack_fd);
    close(e.notify_fd);
    close(t.sigfd);
    /* SIGINT/SIGTERM stay blocked: a second Ctrl-C must not kill the summary */
    return 0;
}
