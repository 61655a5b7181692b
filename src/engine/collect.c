/* collect: the collector thread (see collect.h). */
#include "collect.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

enum {
    STOP_WAIT_S = 1,               /* at most this long (plus a part) for the thread at the end */
    OVERDUE_MIN_US = 2 * 1000000u, /* a sample running this long is shown as overdue */
};

struct collect {
    const struct collector_class *cls;
    const struct target *target; /* the caller's: outlives the thread */
    pthread_t thread;
    int stop_fd;   /* main -> thread */
    int apply_fd;  /* main -> thread: a request is in `req` */
    int notify_fd; /* thread -> main */
    atomic_uint_fast64_t interval_us;
    atomic_uint_fast64_t busy_since_us; /* when the sample in progress began; 0: none */
    atomic_int want_sessions;
    atomic_int want_statements;
    atomic_uint_fast64_t phase_us; /* samples fall on phase + k * interval; 0: free */
    uint64_t start_us;
    pthread_mutex_t lock; /* guards pub and req */
    struct collect_result pub;
    struct {
        int pending;
        char name[40], value[64];
    } req;
    struct {
        int pending, terminate;
        char id[24];
    } kreq;
};

enum wake { WAKE_TICK, WAKE_STOP, WAKE_APPLY };

/* What the thread keeps between samples. */
struct sampler {
    void *conn;
    void *prev, *cur;
    int have_prev;
    uint64_t prev_us;
    uint64_t probes, probe_us; /* since the last sample: how many, and their time */
    struct collect_result res;
    struct coll_statements stmts_prev; /* the last read, for the next one's rates */
    uint64_t stmts_prev_us;            /* when it was taken; 0: none */
};

static void
publish(struct collect *c, const struct collect_result *res)
{
    pthread_mutex_lock(&c->lock);
    c->pub = *res;
    pthread_mutex_unlock(&c->lock);
    eventfd_post(c->notify_fd);
}

/* Waits until `deadline`, a stop request or an apply request. */
static enum wake
wait_wake(struct collect *c, uint64_t deadline)
{
    struct pollfd p[2] = {{.fd = c->stop_fd, .events = POLLIN},
                          {.fd = c->apply_fd, .events = POLLIN}};
    uint64_t now = now_us(), v;
    struct timespec ts = {0, 0};

    if (deadline > now) {
        ts.tv_sec = (time_t)((deadline - now) / 1000000u);
        ts.tv_nsec = (long)((deadline - now) % 1000000u) * 1000;
    }
    if (ppoll(p, 2, &ts, NULL) < 0 && errno != EINTR)
        fatal("ppoll: %s", strerror(errno));
    if (p[0].revents)
        return WAKE_STOP;
    if (p[1].revents) {
        if (read(c->apply_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
            fatal("eventfd read: %s", strerror(errno));
        return WAKE_APPLY;
    }
    return WAKE_TICK;
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

/* What glancing at the sessions between samples costs, as a row; then the count restarts. */
static void
show_probes(struct collect *c, struct sampler *s, uint64_t t0)
{
    double secs = s->have_prev ? (double)(t0 - s->prev_us) / 1e6 : 0;

    if (c->cls->probe == NULL)
        return;
    s->res.probes_s = secs > 0 ? (double)s->probes / secs : NAN;
    s->res.probe_ms = s->probes ? (double)s->probe_us / (double)s->probes / 1000.0 : NAN;
    coll_row_states(&s->res.view);
    if (s->probes)
        coll_row_add(&s->res.view, "sessions", "state samples", s->res.probes_s, ROW_NORMAL,
                     "%.0f/s, %.2f ms each (%.1f ms/s)", s->res.probes_s, s->res.probe_ms,
                     s->res.probes_s * s->res.probe_ms);
    s->probes = s->probe_us = 0;
}

/* One glance at the sessions between samples (collector_class.probe). */
static void
take_probe(struct collect *c, struct sampler *s)
{
    char err[BT_ERRLEN];
    uint64_t t0 = now_us();

    if (s->conn == NULL)
        return;
    if (c->cls->probe(s->conn, err) < 0) {
        lost(c, s, t0, err);
        return;
    }
    s->probes++;
    s->probe_us += now_us() - t0;
}

/* Reads the settings and notes what changed since the last read (kept across reconnects). */
static void
read_settings(struct collect *c, struct sampler *s)
{
    struct coll_settings now;
    char err[BT_ERRLEN];
    uint64_t t0 = now_us();

    if (c->cls->read_settings == NULL || s->conn == NULL)
        return;
    memset(&now, 0, sizeof(now));
    if (c->cls->read_settings(s->conn, &now, err) < 0) {
        first_line(s->res.settings_error, sizeof(s->res.settings_error), err);
        return;
    }
    s->res.settings_ms = (double)(now_us() - t0) / 1000.0;
    s->res.settings_error[0] = '\0';
    if (s->res.have_settings)
        s->res.nchanges +=
            coll_settings_diff(&s->res.settings, &now, s->res.changes + s->res.nchanges,
                               COLL_MAX_CHANGES - s->res.nchanges);
    s->res.settings = now;
    s->res.have_settings = 1;
}

/* The user's request: set it, then read the settings so the change shows at once. */
static void
apply(struct collect *c, struct sampler *s)
{
    char err[BT_ERRLEN] = "", name[40], value[64];

    pthread_mutex_lock(&c->lock);
    memcpy(name, c->req.name, sizeof(name));
    memcpy(value, c->req.value, sizeof(value));
    pthread_mutex_unlock(&c->lock);
    if (s->conn == NULL && (s->conn = c->cls->open(c->target, err)) == NULL)
        s->have_prev = 0;
    s->res.apply_ok = s->conn != NULL && c->cls->apply_setting(s->conn, name, value, err) == 0;
    first_line(s->res.apply_error, sizeof(s->res.apply_error), s->res.apply_ok ? "" : err);
    snprintf(s->res.apply_name, sizeof(s->res.apply_name), "%s", name);
    snprintf(s->res.apply_value, sizeof(s->res.apply_value), "%s", value);
    s->res.apply_t = (double)(now_us() - c->start_us) / 1e6;
    s->res.applied++;
    if (s->res.apply_ok)
        read_settings(c, s);
    pthread_mutex_lock(&c->lock);
    c->req.pending = 0;
    pthread_mutex_unlock(&c->lock);
}

/* The sessions list, when a front end shows it; a failure leaves the sample alone. */
static void
read_sessions(struct collect *c, struct sampler *s)
{
    char err[BT_ERRLEN];

    if (c->cls->sessions == NULL || !atomic_load(&c->want_sessions) || s->conn == NULL)
        return;
    memset(&s->res.sessions, 0, sizeof(s->res.sessions));
    if (c->cls->sessions(s->conn, &s->res.sessions, err) < 0) {
        first_line(s->res.sessions_error, sizeof(s->res.sessions_error), err);
        s->res.have_sessions = 0;
        return;
    }
    s->res.sessions_error[0] = '\0';
    s->res.have_sessions = 1;
}

/* The top statements, when a front end shows them; a failure leaves the sample alone. */
static void
read_statements(struct collect *c, struct sampler *s)
{
    char err[BT_ERRLEN];
    uint64_t t = now_us();

    if (c->cls->statements == NULL || !atomic_load(&c->want_statements) || s->conn == NULL) {
        s->stmts_prev_us = 0; /* a later read starts again: no rate over the gap */
        return;
    }
    memset(&s->res.statements, 0, sizeof(s->res.statements));
    if (c->cls->statements(s->conn, &s->res.statements, err) < 0) {
        first_line(s->res.statements_error, sizeof(s->res.statements_error), err);
        s->res.have_statements = 0;
        s->stmts_prev_us = 0;
        return;
    }
    coll_statements_derive(s->stmts_prev_us ? &s->stmts_prev : NULL, &s->res.statements,
                           (double)(t - s->stmts_prev_us) / 1e6);
    s->stmts_prev = s->res.statements;
    s->stmts_prev_us = t;
    s->res.statements_error[0] = '\0';
    s->res.have_statements = 1;
}

/* The user's confirmed cancel or terminate, then the list again so the change shows. */
static void
kill_session(struct collect *c, struct sampler *s)
{
    char err[BT_ERRLEN] = "", id[24];
    int terminate;

    pthread_mutex_lock(&c->lock);
    memcpy(id, c->kreq.id, sizeof(id));
    terminate = c->kreq.terminate;
    pthread_mutex_unlock(&c->lock);
    if (s->conn == NULL && (s->conn = c->cls->open(c->target, err)) == NULL)
        s->have_prev = 0;
    s->res.kill_ok = s->conn != NULL && c->cls->kill(s->conn, id, terminate, err) == 0;
    first_line(s->res.kill_error, sizeof(s->res.kill_error), s->res.kill_ok ? "" : err);
    snprintf(s->res.kill_id, sizeof(s->res.kill_id), "%s", id);
    s->res.kill_terminate = terminate;
    s->res.killed++;
    read_sessions(c, s);
    pthread_mutex_lock(&c->lock);
    c->kreq.pending = 0;
    pthread_mutex_unlock(&c->lock);
}

/* Whichever requests are pending: a setting, a kill. */
static void
serve_requests(struct collect *c, struct sampler *s)
{
    int setting, kill;

    pthread_mutex_lock(&c->lock);
    setting = c->req.pending;
    kill = c->kreq.pending;
    pthread_mutex_unlock(&c->lock);
    if (setting)
        apply(c, s);
    if (kill)
        kill_session(c, s);
}

/* What a front end shows until the first sample: the connection is made, its answer awaited. */
static void
say_waiting(struct collect *c)
{
    pthread_mutex_lock(&c->lock);
    snprintf(c->pub.error, sizeof(c->pub.error), "connected; no answer to the first sample yet");
    pthread_mutex_unlock(&c->lock);
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
    if (s->res.samples == 0) /* a first sample that never ends is not "connecting" */
        say_waiting(c);
    /* before the sample: PostgreSQL's then run in the glances' transaction */
    read_sessions(c, s);
    read_statements(c, s);
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
    show_probes(c, s, t0);
    s->res.ok = 1;
    s->res.have_view = 1;
    s->res.error[0] = '\0';
    tmp = s->prev;
    s->prev = s->cur;
    s->cur = tmp;
    s->have_prev = 1;
    s->prev_us = t0;
    read_settings(c, s);
}

/* next moved to the nearest phase + k * interval (collect_align), never to the past. */
static uint64_t
aligned(struct collect *c, uint64_t next, uint64_t interval)
{
    uint64_t phase = atomic_load(&c->phase_us);

    if (phase == 0 || next < phase || interval == 0)
        return next;
    next = phase + (next - phase + interval / 2) / interval * interval;
    return next > now_us() ? next : next + interval;
}

static void *
collect_main(void *arg)
{
    struct collect *c = arg;
    struct sampler s;
    uint64_t next = now_us(), interval, wake = next;
    uint64_t gap = c->cls->probe ? 1000000u / (uint64_t)c->cls->probe_hz : 0;
    enum wake w;

    memset(&s, 0, sizeof(s));
    s.res.probes_s = s.res.probe_ms = NAN;
    s.prev = xcalloc(1, c->cls->sample_size);
    s.cur = xcalloc(1, c->cls->sample_size);
    while ((w = wait_wake(c, wake)) != WAKE_STOP) {
        atomic_store(&c->busy_since_us, now_us());
        if (w == WAKE_APPLY) {
            serve_requests(c, &s);
            atomic_store(&c->busy_since_us, 0);
            publish(c, &s.res);
            s.res.nchanges = 0;
            continue;
        }
        /* between samples, glance at the sessions; never so late that a sample slips */
        if (gap && now_us() + gap / 2 < next) {
            take_probe(c, &s);
            atomic_store(&c->busy_since_us, 0);
            wake = now_us() + gap < next ? now_us() + gap : next;
            continue;
        }
        take_sample(c, &s);
        atomic_store(&c->busy_since_us, 0);
        publish(c, &s.res);
        s.res.nchanges = 0;
        interval = atomic_load(&c->interval_us);
        next = aligned(c, next + interval, interval);
        if (next <= now_us()) { /* the sample overran: skip the ticks it covered */
            uint64_t behind = (now_us() - next) / interval + 1;
            s.res.late += behind;
            next += behind * interval;
        }
        wake = gap && now_us() + gap < next ? now_us() + gap : next;
    }
    if (s.conn != NULL)
        c->cls->close(s.conn);
    free(s.prev);
    free(s.cur);
    return NULL;
}

struct collect *
collect_start(const struct collector_class *cls, const struct target *target, double interval_s,
              char *err)
{
    struct collect *c = xcalloc(1, sizeof(*c));
    int rv;

    c->cls = cls;
    c->target = target;
    atomic_store(&c->interval_us, (uint64_t)(interval_s * 1e6));
    c->start_us = now_us();
    pthread_mutex_init(&c->lock, NULL);
    c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    c->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    c->apply_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    snprintf(c->pub.error, sizeof(c->pub.error), "connecting");
    if (c->stop_fd < 0 || c->notify_fd < 0 || c->apply_fd < 0) {
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
collect_align(struct collect *c, uint64_t phase_us)
{
    atomic_store(&c->phase_us, phase_us);
}

void
collect_set_interval(struct collect *c, double interval_s)
{
    atomic_store(&c->interval_us, (uint64_t)(interval_s * 1e6));
}

int
collect_apply(struct collect *c, const char *name, const char *value, char *err)
{
    uint64_t one = 1;
    int busy;

    if (c->cls->apply_setting == NULL)
        return seterr(err, "benchtop cannot change %s settings", c->cls->name);
    pthread_mutex_lock(&c->lock);
    busy = c->req.pending;
    if (!busy) {
        c->req.pending = 1;
        snprintf(c->req.name, sizeof(c->req.name), "%s", name);
        snprintf(c->req.value, sizeof(c->req.value), "%s", value);
    }
    pthread_mutex_unlock(&c->lock);
    if (busy)
        return seterr(err, "the previous setting is still being applied; try again");
    if (write(c->apply_fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
    return 0;
}

void
collect_want_sessions(struct collect *c, int on)
{
    atomic_store(&c->want_sessions, on);
}

void
collect_want_statements(struct collect *c, int on)
{
    atomic_store(&c->want_statements, on);
}

int
collect_kill(struct collect *c, const char *id, int terminate, char *err)
{
    uint64_t one = 1;
    int busy;

    if (c->cls->kill == NULL)
        return seterr(err, "benchtop cannot end %s sessions", c->cls->name);
    pthread_mutex_lock(&c->lock);
    busy = c->kreq.pending;
    if (!busy) {
        c->kreq.pending = 1;
        c->kreq.terminate = terminate;
        snprintf(c->kreq.id, sizeof(c->kreq.id), "%s", id);
    }
    pthread_mutex_unlock(&c->lock);
    if (busy)
        return seterr(err, "the previous cancel is still on its way; try again");
    if (write(c->apply_fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
    return 0;
}

void
collect_stop(struct collect *c)
{
    struct timespec until;

    eventfd_post(c->stop_fd);
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
    close(c->apply_fd);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
