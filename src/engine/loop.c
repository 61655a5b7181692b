/*
 * loop: what a worker does for its clients (loop.h): a client's socket in
 * the worker's epoll set, its timer in the heap, its sends in the sendq,
 * the stats buffer it counts into. client.c and worker.c both call it; it
 * calls neither.
 */
#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "client-state.h"
#include "engine-state.h"
#include "base/sendq.h"
#include "base/util.h"

struct wstats *
worker_stats(struct worker *w)
{
    return &w->stats[w->cur];
}

/* epoll data: the client's index and the fd it was registered with (fds are reused). */
static uint64_t
ev_data(int fd, uint32_t idx)
{
    return (uint64_t)(uint32_t)fd << 32 | idx;
}

int
worker_ev_ctl(struct worker *w, int op, int fd, uint32_t events, uint32_t idx)
{
    struct epoll_event ev = {.events = events, .data.u64 = ev_data(fd, idx)};

    return epoll_ctl(w->epfd, op, fd, &ev);
}

/* Registers fd for events (op: ADD for a new fd, MOD for a change), whatever the set holds. */
static void
ev_register(struct worker *w, int op, int fd, uint32_t events, uint32_t idx)
{
    if (worker_ev_ctl(w, op, fd, events, idx) < 0) {
        op = errno == ENOENT ? EPOLL_CTL_ADD : errno == EEXIST ? EPOLL_CTL_MOD : -1;
        if (op < 0 || worker_ev_ctl(w, op, fd, events, idx) < 0)
            fatal("epoll_ctl on fd %d: %s", fd, strerror(errno));
    }
}

int
worker_waits_on_socket(const struct client *c)
{
    return c->want != 0 && (c->state == CS_CONNECTING || c->state == CS_RUNNING);
}

/*
 * Edge-triggered: whether c->ready holds what the client waits for. If so
 * it is taken (cleared) and want is 0: the client goes on at once.
 */
int
worker_take_ready(struct client *c)
{
    uint32_t mask = (c->want & POLLOUT ? EPOLLOUT : EPOLLIN) | EPOLLERR | EPOLLHUP;

    if (!(c->ready & mask))
        return 0;
    c->ready &= ~mask;
    c->want = 0;
    return 1;
}

int
worker_watch(struct worker *w, struct client *c)
{
    int fd, op;
    uint32_t events, idx = (uint32_t)(c - w->clients);

    if (!worker_waits_on_socket(c))
        return 0; /* left registered: disarmed lazily if it fires (see handle_event) */
    fd = w->eng->drv->conn_fd(c->conn);
    if (w->edge && fd == c->reg_fd)
        return c->sending == 0 && worker_take_ready(c);
    events = w->edge ? EPOLLIN | EPOLLOUT | EPOLLET : c->want & POLLOUT ? EPOLLOUT : EPOLLIN;
    if (fd == c->reg_fd && events == c->reg_events)
        return 0;
    /* a new fd: the driver closed the old one, which left the set with it */
    op = fd == c->reg_fd ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    ev_register(w, op, fd, events, idx);
    c->reg_fd = fd;
    c->reg_events = events;
    c->ready = 0; /* edge-triggered: the ADD reports what is ready now */
    return 0;
}

void
worker_unwatch(struct worker *w, struct client *c)
{
    if (c->reg_fd >= 0)
        epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->reg_fd, NULL); /* ENOENT: already gone */
    c->reg_fd = -1;
    c->reg_events = 0;
    c->ready = 0;
}

uint64_t
worker_sendq(struct worker *w, struct client *c, struct txn_result *res)
{
    res->sendq = w->sq;
    res->send_tag = (uint32_t)(c - w->clients);
    return w->sq != NULL ? sendq_total(w->sq) : 0;
}

void
worker_sendq_after(struct worker *w, struct client *c, uint64_t before)
{
    if (w->sq != NULL)
        c->sending += (int)(sendq_total(w->sq) - before);
}

/* Takes the finished sends: counts them off their clients, notes the failures. */
void
worker_reap_sends(struct worker *w)
{
    uint32_t tag;
    int failed;
    char msg[BT_ERRLEN];

    while (sendq_next(w->sq, &tag, &failed, msg, sizeof msg)) {
        struct client *c = &w->clients[tag];
        if (failed && c->send_failed == NULL)
            c->send_failed = xstrdup(msg);
        if (--c->sending > 0)
            continue;
        w->sent = xgrow(w->sent, w->nsent, &w->sent_cap, sizeof(*w->sent));
        w->sent[w->nsent++] = tag;
    }
}

void
worker_drop_sends(struct worker *w, struct client *c)
{
    if (c->sending > 0) {
        sendq_cancel(w->sq, w->eng->drv->conn_fd(c->conn));
        while (worker_reap_sends(w), c->sending > 0)
            sendq_wait(w->sq);
    }
    free(c->send_failed);
    c->send_failed = NULL;
}

static void
heap_swap(struct wtimer *h, int a, int b)
{
    struct wtimer t = h[a];

    h[a] = h[b];
    h[b] = t;
}

void
worker_timer(struct worker *w, struct client *c)
{
    struct wtimer *h;
    int i;

    w->timers = xgrow(w->timers, w->ntimers, &w->timers_cap, sizeof(*w->timers));
    h = w->timers;
    i = w->ntimers++;
    h[i].at = c->wake_us;
    h[i].client = (int)(c - w->clients);
    for (; i > 0 && h[(i - 1) / 2].at > h[i].at; i = (i - 1) / 2)
        heap_swap(h, i, (i - 1) / 2);
}

struct wtimer
worker_timer_pop(struct worker *w)
{
    struct wtimer *h = w->timers, top = h[0];
    int i = 0, n = --w->ntimers;

    h[0] = h[n];
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l].at < h[m].at)
            m = l;
        if (r < n && h[r].at < h[m].at)
            m = r;
        if (m == i)
            return top;
        heap_swap(h, i, m);
        i = m;
    }
}
