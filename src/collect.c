/* collect: the collector thread (see collect.h). */
#include "collect.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

enum {
    STOP_WAIT_S = 1,               /* at most this long (plus a part) for the thread at the end */
    OVERDUE_MIN_US = 2 * 1000000u, /* a sample running this long is shown as overdue */
};

struct collect {
    const struct collector_class *cls;
    char *target;
    pthread_t thread;
    int stop_fd;   /* main -> thread */
    int notify_fd; /* thread -> main */
    atomic_uint_fast64_t interval_us;
    atomic_uint_fast64_t busy_since_us; /* when the sample in progress began; 0: none */
    uint64_t start_us;
    pthread_mutex_t lock; /* guards pub */
    struct collect_result pub;
};

/* What the thread keeps between samples. */
struct sampler {
    void *conn;
    void *prev, *cur;
    int have_prev;
    uint64_t prev_us;
    struct collect_result res;
};

static void
publish(struct collect *c, const struct collect_result *res)
{
    uint64_t one = 1;

    pthread_mutex_lock(&c->lock);
    c->pub = *res;
    pthread_mutex_unlock(&c->lock);
    if (write(c->notify_fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
}

/* Waits until `deadline` or a stop request; 1 when asked to stop. */
static int
wait_stop(struct collect *c, uint64_t deadline)
{
    struct pollfd p = {.fd = c->stop_fd, .events = POLLIN};
    uint64_t now = now_us();
    struct timespec ts = {0, 0};

    if (deadline > now) {
        ts.tv_sec = (time_t)((deadline - now) / 1000000u);
        ts.tv_nsec = (long)((deadline - now) % 1000000u) * 1000;
    }
    if (ppoll(&p, 1, &ts, NULL) < 0 && errno != EINTR)
        fatal("ppoll: %s", strerror(errno));
    return p.revents != 0;
}

/* A failed sample: nothing of the last good one is shown as current. */
static void
lost(struct collect *c, struct sampler *s, uint64_t t0, const char *err)
{
    if (s->conn != NULL)
        c->cls->close(s->conn);
    s->conn = NULL;
    s->have_prev = 0;
    s->res.ok = 0;
    s->res.have_view = 0;
    s->res.t = (double)(now_us() - c->start_us) / 1e6; /* now, not the last good sample's t */
    s->res.cost_ms = (double)(now_us() - t0) / 1000.0;
    first_line(s->res.error, sizeof(s->res.error), err);
}

static void
take_sample(struct collect *c, struct sampler *s)
{
    char err[BT_ERRLEN];
    uint64_t t0 = now_us();
    void *tmp;

    if (s->conn == NULL && (s->conn = c->cls->open(c->target, err)) == NULL) {
        lost(c, s, t0, err);
        return;
    }
    memset(s->cur, 0, c->cls->sample_size);
    if (c->cls->sample(s->conn, s->cur, err) < 0) {
        lost(c, s, t0, err);
        return;
    }
    s->res.cost_ms = (double)(now_us() - t0) / 1000.0;
    s->res.t = (double)(t0 - c->start_us) / 1e6;
    s->res.samples++;
    c->cls->derive(s->have_prev ? s->prev : NULL, s->cur,
                   s->have_prev ? (double)(t0 - s->prev_us) / 1e6 : 0.0, &s->res.view);
    s->res.ok = 1;
    s->res.have_view = 1;
    s->res.error[0] = '\0';
    tmp = s->prev;
    s->prev = s->cur;
    s->cur = tmp;
    s->have_prev = 1;
    s->prev_us = t0;
}

static void *
collect_main(void *arg)
{
    struct collect *c = arg;
    struct sampler s;
    uint64_t next = now_us(), interval;

    memset(&s, 0, sizeof(s));
    s.prev = xcalloc(1, c->cls->sample_size);
    s.cur = xcalloc(1, c->cls->sample_size);
    while (!wait_stop(c, next)) {
        atomic_store(&c->busy_since_us, now_us());
        take_sample(c, &s);
        atomic_store(&c->busy_since_us, 0);
        publish(c, &s.res);
        interval = atomic_load(&c->interval_us);
        next += interval;
        if (next <= now_us()) { /* the sample overran: skip the ticks it covered */
            uint64_t behind = (now_us() - next) / interval + 1;
            s.res.late += behind;
            next += behind * interval;
        }
    }
    if (s.conn != NULL)
        c->cls->close(s.conn);
    free(s.prev);
    free(s.cur);
    return NULL;
}

struct collect *
collect_start(const struct collector_class *cls, const char *target, double interval_s, char *err)
{
    struct collect *c = xcalloc(1, sizeof(*c));
    int rv;

    c->cls = cls;
    c->target = xstrdup(target);
    atomic_store(&c->interval_us, (uint64_t)(interval_s * 1e6));
    c->start_us = now_us();
    pthread_mutex_init(&c->lock, NULL);
    c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    c->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    snprintf(c->pub.error, sizeof(c->pub.error), "connecting");
    if (c->stop_fd < 0 || c->notify_fd < 0) {
        seterr(err, "eventfd: %s", strerror(errno));
        return NULL;
    }
    rv = pthread_create(&c->thread, NULL, collect_main, c);
    if (rv != 0) {
        seterr(err, "cannot start the collector thread: %s", strerror(rv));
        return NULL;
    }
    return c;
}

int
collect_notify_fd(const struct collect *c)
{
    return c->notify_fd;
}

void
collect_read(struct collect *c, struct collect_result *out)
{
    uint64_t v;

    if (read(c->notify_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
        fatal("eventfd read: %s", strerror(errno));
    pthread_mutex_lock(&c->lock);
    *out = c->pub;
    pthread_mutex_unlock(&c->lock);
}

int
collect_overdue(struct collect *c, struct collect_result *out)
{
    uint64_t since = atomic_load(&c->busy_since_us), now = now_us();
    uint64_t grace = 2 * atomic_load(&c->interval_us);

    if (since == 0 || now - since < (grace > OVERDUE_MIN_US ? grace : OVERDUE_MIN_US))
        return 0;
    pthread_mutex_lock(&c->lock);
    *out = c->pub;
    pthread_mutex_unlock(&c->lock);
    out->ok = 0;
    out->have_view = 0;
    out->t = (double)(now - c->start_us) / 1e6;
    snprintf(out->error, sizeof(out->error), "no answer for %.1f s", (double)(now - since) / 1e6);
    return 1;
}

void
collect_set_interval(struct collect *c, double interval_s)
{
    atomic_store(&c->interval_us, (uint64_t)(interval_s * 1e6));
}

void
collect_stop(struct collect *c)
{
    uint64_t one = 1;

    struct timespec until;

    if (write(c->stop_fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
    /*
     * A thread stuck on a frozen server (its calls have deadlines, but a
     * connect or sample may still have seconds to run) must not hold up
     * the exit: it is left behind, with c, for the process's end to reap.
     */
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += STOP_WAIT_S;
    if (pthread_timedjoin_np(c->thread, NULL, &until) != 0) {
        pthread_detach(c->thread);
        return;
    }
    close(c->stop_fd);
    close(c->notify_fd);
    pthread_mutex_destroy(&c->lock);
    free(c->target);
    free(c);
}
