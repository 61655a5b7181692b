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

struct collect {
    const struct collector_class *cls;
    char *target;
    pthread_t thread;
    int stop_fd;   /* main -> thread */
    int notify_fd; /* thread -> main */
    atomic_uint_fast64_t interval_us;
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

static void
lost(struct collect *c, struct sampler *s, const char *err)
{
    if (s->conn != NULL)
        c->cls->close(s->conn);
    s->conn = NULL;
    s->have_prev = 0;
    s->res.ok = 0;
    first_line(s->res.error, sizeof(s->res.error), err);
}

static void
take_sample(struct collect *c, struct sampler *s)
{
    char err[BT_ERRLEN];
    uint64_t t0 = now_us();
    void *tmp;

    if (s->conn == NULL && (s->conn = c->cls->open(c->target, err)) == NULL) {
        lost(c, s, err);
        return;
    }
    memset(s->cur, 0, c->cls->sample_size);
    if (c->cls->sample(s->conn, s->cur, err) < 0) {
        lost(c, s, err);
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
        take_sample(c, &s);
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

void
collect_set_interval(struct collect *c, double interval_s)
{
    atomic_store(&c->interval_us, (uint64_t)(interval_s * 1e6));
}

void
collect_stop(struct collect *c)
{
    uint64_t one = 1;

    if (write(c->stop_fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
    pthread_join(c->thread, NULL);
    close(c->stop_fd);
    close(c->notify_fd);
    pthread_mutex_destroy(&c->lock);
    free(c->target);
    free(c);
}
