/*
 * delay-proxy LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS [SECONDS [CORRUPT_AFTER_MS]]
 *
 * A TCP proxy for tests that need a slow network. The test machines reach
 * their servers over loopback, where a round trip costs microseconds, so a
 * latency-bound workload cannot be shown there. Every chunk read from either
 * side is written to the other DELAY_MS milliseconds after it was read, in
 * order, so each request/response round trip gains 2 * DELAY_MS.
 *
 * It listens on 127.0.0.1:LISTEN_PORT (0 picks a free port), prints exactly
 * one line "port=N" on stdout once it accepts connections, and exits 0 after
 * SECONDS (default 600, so that it goes away even if the test that started
 * it dies) or on SIGTERM/SIGINT.
 *
 * TARGET_HOST must be a loopback address (127.0.0.0/8, ::1 or "localhost"):
 * anything else is refused with exit status 2 before any connection is
 * attempted, because the project's tools must never aim load off the machine.
 *
 * With CORRUPT_AFTER_MS, every byte a connection's target sends from that
 * long after the connection was accepted reaches the client inverted (XOR
 * 0xFF): a stream that desynchronises mid-run, for tests of a client that
 * must notice it (a length header turned huge makes it wait for bytes that
 * never come).
 *
 * When either side closes (or fails), the proxy stops reading from both,
 * delivers on time what it has already queued, and closes both sides once
 * that is done and DELAY_MS have passed since the close it saw. A half-close
 * is thus a full close, which database protocols never mind.
 *
 * One thread, one epoll loop; a timerfd is armed at the earliest pending
 * delivery, so nothing spins. A socket that cannot take more is waited for
 * with EPOLLOUT, and a side is no longer read while more than QUEUE_LIMIT
 * bytes wait to be delivered from it, so a slow reader slows its writer
 * as TCP itself would, instead of growing memory.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum {
    READ_SIZE = 64 * 1024,
    QUEUE_LIMIT = 4 * 1024 * 1024,
    MAX_EVENTS = 128,
    MAX_DELAY_MS = 3600 * 1000,
    DEFAULT_SECONDS = 600,
    EXIT_REFUSED = 2,
};

/* The two sides of a proxied connection, used as indexes. */
enum { CLIENT = 0, TARGET = 1 };

/* Marks "no pending deadline" for the delivery timer. */
static const uint64_t NEVER = UINT64_MAX;
static const uint64_t NS_PER_S = 1000000000u;
static const uint64_t NS_PER_MS = 1000000u;

/* What was read in one recv(), waiting for its delivery time. */
struct chunk {
    struct chunk *next;
    uint64_t due; /* CLOCK_MONOTONIC, ns */
    size_t len;
    size_t off; /* already written */
    char data[];
};

/* Bytes read from one side, oldest first, waiting to be written to the other. */
struct queue {
    struct chunk *head;
    struct chunk *tail;
    size_t bytes;
    bool blocked; /* the receiving socket was full: wait for its EPOLLOUT */
};

enum kind { K_LISTEN, K_SIGNAL, K_TIMER, K_LIFETIME, K_SIDE };

/* What an epoll event is about: epoll_data.ptr points at one of these. */
struct handle {
    enum kind kind;
    struct conn *conn;
    int side;
};

struct conn {
    struct conn *next;
    int fd[2];          /* -1 once that side is closed */
    struct queue q[2];  /* q[s] holds what was read from fd[s] */
    struct handle h[2]; /* for fd[s] */
    uint32_t events[2]; /* what fd[s] is registered for */
    bool connecting;
    bool closing;
    uint64_t corrupt_from; /* from then on, bytes from the target are inverted */
    uint64_t close_due;
};

struct proxy {
    int ep;
    int listen_fd;
    int signal_fd;
    int timer_fd;    /* the earliest pending delivery */
    int lifetime_fd; /* SECONDS */
    struct handle h_listen;
    struct handle h_signal;
    struct handle h_timer;
    struct handle h_lifetime;
    struct sockaddr_storage target;
    socklen_t target_len;
    uint64_t delay;
    uint64_t corrupt_after; /* CORRUPT_AFTER_MS in ns, or NEVER */
    uint64_t armed; /* when timer_fd fires, or NEVER */
    struct conn *conns;
    bool paused; /* not accepting: out of descriptors */
    bool stop;
    char buf[READ_SIZE];
};

static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Strict decimal: all of s, within [min, max]. */
static bool
parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/*
 * Fills *addr (port left 0) if host is a loopback address, refusing everything
 * else. Only literals are parsed and "localhost" is taken as 127.0.0.1 without
 * a lookup, so no resolver configuration can send us anywhere else.
 */
static bool
loopback_address(const char *host, struct sockaddr_storage *addr, socklen_t *len)
{
    struct sockaddr_in *in = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)addr;

    memset(addr, 0, sizeof *addr);
    if (strcasecmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        *len = sizeof *in;
        return ntohl(in->sin_addr.s_addr) >> 24 == 127;
    }
    if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        *len = sizeof *in6;
        return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
    return false;
}

static void
set_port(struct sockaddr_storage *addr, int port)
{
    if (addr->ss_family == AF_INET)
        ((struct sockaddr_in *)addr)->sin_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in6 *)addr)->sin6_port = htons((uint16_t)port);
}

static bool
queue_push(struct queue *q, const char *data, size_t len, uint64_t due)
{
    struct chunk *k = malloc(sizeof *k + len);

    if (!k)
        return false;
    k->next = NULL;
    k->due = due;
    k->len = len;
    k->off = 0;
    memcpy(k->data, data, len);
    if (q->tail)
        q->tail->next = k;
    else
        q->head = k;
    q->tail = k;
    q->bytes += len;
    return true;
}

static void
queue_pop(struct queue *q)
{
    struct chunk *k = q->head;

    q->head = k->next;
    if (!q->head)
        q->tail = NULL;
    q->bytes -= k->len - k->off;
    free(k);
}

static void
queue_clear(struct queue *q)
{
    while (q->head)
        queue_pop(q);
    q->blocked = false;
}

static bool
can_read(const struct conn *c, int s)
{
    if (c->closing || c->fd[s] < 0 || c->q[s].bytes > QUEUE_LIMIT)
        return false;
    /* The client may talk while we connect: its bytes just wait in the queue. */
    return s == CLIENT || !c->connecting;
}

static uint32_t
wanted_events(const struct conn *c, int s)
{
    uint32_t ev = 0;

    if (can_read(c, s))
        ev |= EPOLLIN;
    if ((s == TARGET && c->connecting) || c->q[1 - s].blocked)
        ev |= EPOLLOUT;
    return ev;
}

static void
update_events(struct proxy *p, struct conn *c, int s)
{
    struct epoll_event e = {.events = wanted_events(c, s), .data.ptr = &c->h[s]};

    if (c->fd[s] < 0 || e.events == c->events[s])
        return;
    if (epoll_ctl(p->ep, EPOLL_CTL_MOD, c->fd[s], &e) == 0)
        c->events[s] = e.events;
}

/* The close reaches the other side DELAY_MS later, like the data before it. */
static void
start_closing(struct proxy *p, struct conn *c, uint64_t now)
{
    if (c->closing)
        return;
    c->closing = true;
    c->close_due = now + p->delay;
}

/* Side s is gone: what was queued toward it can never be delivered. */
static void
side_dead(struct proxy *p, struct conn *c, int s, uint64_t now)
{
    close(c->fd[s]);
    c->fd[s] = -1;
    queue_clear(&c->q[1 - s]);
    start_closing(p, c, now);
}

/* Nothing more to deliver: the connection goes away at the next service(). */
static void
conn_abort(struct conn *c)
{
    for (int s = 0; s < 2; s++) {
        if (c->fd[s] >= 0)
            close(c->fd[s]);
        c->fd[s] = -1;
        queue_clear(&c->q[s]);
    }
    c->closing = true;
    c->close_due = 0;
}

static void
conn_free(struct conn *c)
{
    conn_abort(c);
    free(c);
}

static void
side_read(struct proxy *p, struct conn *c, int s, uint64_t now)
{
    ssize_t n = recv(c->fd[s], p->buf, sizeof p->buf, 0);

    if (n > 0) {
        if (s == TARGET && now >= c->corrupt_from)
            for (ssize_t i = 0; i < n; i++)
                p->buf[i] ^= (char)0xFF;
        if (!queue_push(&c->q[s], p->buf, (size_t)n, now + p->delay)) {
            fprintf(stderr, "delay-proxy: out of memory, dropping a connection\n");
            conn_abort(c);
        }
    } else if (n == 0) {
        start_closing(p, c, now);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        side_dead(p, c, s, now);
    }
}

/* Writes what is due from q[s] to the other side, until done or the socket is full. */
static void
flush_queue(struct proxy *p, struct conn *c, int s, uint64_t now)
{
    struct queue *q = &c->q[s];
    int out = c->fd[1 - s];

    if (out < 0 || (s == CLIENT && c->connecting))
        return;
    while (q->head && q->head->due <= now && !q->blocked) {
        struct chunk *k = q->head;
        ssize_t n = send(out, k->data + k->off, k->len - k->off, MSG_NOSIGNAL);

        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                q->blocked = true;
            else if (errno != EINTR)
                side_dead(p, c, 1 - s, now);
            continue;
        }
        k->off += (size_t)n;
        q->bytes -= (size_t)n;
        if (k->off == k->len)
            queue_pop(q);
    }
}

static void
finish_connect(struct conn *c)
{
    int err = 0;
    socklen_t len = sizeof err;

    if (getsockopt(c->fd[TARGET], SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err == EINPROGRESS || err == EALREADY)
        return;
    if (err) {
        fprintf(stderr, "delay-proxy: cannot connect to the target: %s\n", strerror(err));
        conn_abort(c);
        return;
    }
    c->connecting = false;
}

static void
on_side(struct proxy *p, struct handle *h, uint32_t ev, uint64_t now)
{
    struct conn *c = h->conn;
    int s = h->side;

    if (c->fd[s] < 0)
        return;
    if (s == TARGET && c->connecting) {
        if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            finish_connect(c);
        return;
    }
    /* Read first: a hang-up may come with the last bytes still to read. */
    if ((ev & EPOLLIN) && can_read(c, s)) {
        side_read(p, c, s, now);
    } else if (ev & (EPOLLERR | EPOLLHUP)) {
        /* Not reading any more, so this would be reported again and again. */
        side_dead(p, c, s, now);
        return;
    }
    if ((ev & EPOLLOUT) && c->fd[s] >= 0)
        c->q[1 - s].blocked = false;
}

static void
set_nodelay(int fd)
{
    int one = 1;

    /* Nagle would hold small writes back and add its own delay to ours. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Registered for nothing yet: service() sets what it needs. */
static bool
add_side(struct proxy *p, struct conn *c, int s)
{
    struct epoll_event e = {.events = 0, .data.ptr = &c->h[s]};

    c->h[s] = (struct handle){.kind = K_SIDE, .conn = c, .side = s};
    set_nodelay(c->fd[s]);
    return epoll_ctl(p->ep, EPOLL_CTL_ADD, c->fd[s], &e) == 0;
}

/* Takes ownership of client, which is closed on failure. */
static void
conn_open(struct proxy *p, int client)
{
    struct conn *c = calloc(1, sizeof *c);
    int target = socket(p->target.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int rc;

    if (!c || target < 0) {
        fprintf(stderr, "delay-proxy: cannot open a connection: %s\n", strerror(errno));
        free(c);
        close(client);
        if (target >= 0)
            close(target);
        return;
    }
    c->fd[CLIENT] = client;
    c->fd[TARGET] = target;
    c->corrupt_from = p->corrupt_after == NEVER ? NEVER : now_ns() + p->corrupt_after;
    /* From here on, service() frees it whatever happens. */
    c->next = p->conns;
    p->conns = c;
    if (!add_side(p, c, CLIENT) || !add_side(p, c, TARGET)) {
        perror("delay-proxy: epoll_ctl");
        conn_abort(c);
        return;
    }
    rc = connect(target, (struct sockaddr *)&p->target, p->target_len);
    if (rc < 0 && errno != EINPROGRESS) {
        fprintf(stderr, "delay-proxy: cannot connect to the target: %s\n", strerror(errno));
        conn_abort(c);
        return;
    }
    c->connecting = rc < 0;
}

static void
set_accepting(struct proxy *p, bool on)
{
    struct epoll_event e = {.events = on ? EPOLLIN : 0, .data.ptr = &p->h_listen};

    if (epoll_ctl(p->ep, EPOLL_CTL_MOD, p->listen_fd, &e) == 0)
        p->paused = !on;
}

static void
accept_all(struct proxy *p)
{
    for (;;) {
        int fd = accept4(p->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd >= 0) {
            conn_open(p, fd);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            /* Out of descriptors: the listener would stay readable and spin us. */
            fprintf(stderr, "delay-proxy: accept: %s; pausing until a connection ends\n",
                    strerror(errno));
            set_accepting(p, false);
        }
        return;
    }
}

static void
drain(int fd)
{
    char buf[sizeof(struct signalfd_siginfo)];
    ssize_t n = read(fd, buf, sizeof buf);

    (void)n;
}

static void
dispatch(struct proxy *p, struct handle *h, uint32_t ev, uint64_t now)
{
    switch (h->kind) {
    case K_LISTEN:
        accept_all(p);
        break;
    case K_SIGNAL:
    case K_LIFETIME:
        drain(h->kind == K_SIGNAL ? p->signal_fd : p->lifetime_fd);
        p->stop = true;
        break;
    case K_TIMER:
        /* Only wakes us up: service() delivers what is due. */
        drain(p->timer_fd);
        break;
    case K_SIDE:
        on_side(p, h, ev, now);
        break;
    }
}

/* Nothing left to deliver either way, and the close is due. */
static bool
conn_finished(const struct conn *c, uint64_t now)
{
    return c->closing && now >= c->close_due && !c->q[0].head && !c->q[1].head;
}

/* The earliest moment this connection needs us without a socket event. */
static uint64_t
conn_next_due(const struct conn *c, uint64_t now)
{
    uint64_t next = NEVER;

    for (int s = 0; s < 2; s++) {
        const struct chunk *k = c->q[s].head;

        if (k && !c->q[s].blocked && k->due > now && k->due < next)
            next = k->due;
    }
    if (c->closing && c->close_due > now && c->close_due < next)
        next = c->close_due;
    return next;
}

static void
arm_timer(struct proxy *p, uint64_t due)
{
    struct itimerspec its = {0};

    if (due == p->armed)
        return;
    /* An all-zero it_value disarms the timer. */
    if (due != NEVER) {
        its.it_value.tv_sec = (time_t)(due / NS_PER_S);
        its.it_value.tv_nsec = (long)(due % NS_PER_S);
    }
    timerfd_settime(p->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
    p->armed = due;
}

/*
 * After each batch of events: deliver what is due, drop finished connections,
 * register what each socket must wait for, and arm the timer for the rest.
 * A scan of every connection each time is fine for the dozens a test opens.
 */
static void
service(struct proxy *p)
{
    uint64_t now = now_ns(), next = NEVER;
    struct conn **pp = &p->conns;
    bool freed = false;

    while (*pp) {
        struct conn *c = *pp;

        flush_queue(p, c, CLIENT, now);
        flush_queue(p, c, TARGET, now);
        if (conn_finished(c, now)) {
            *pp = c->next;
            conn_free(c);
            freed = true;
            continue;
        }
        update_events(p, c, CLIENT);
        update_events(p, c, TARGET);
        uint64_t due = conn_next_due(c, now);
        if (due < next)
            next = due;
        pp = &c->next;
    }
    if (freed && p->paused)
        set_accepting(p, true);
    arm_timer(p, next);
}

static void
run(struct proxy *p)
{
    struct epoll_event ev[MAX_EVENTS];

    while (!p->stop) {
        int n = epoll_wait(p->ep, ev, MAX_EVENTS, -1);
        uint64_t now = now_ns();

        if (n < 0) {
            if (errno == EINTR)
                continue;
            perror("delay-proxy: epoll_wait");
            return;
        }
        for (int i = 0; i < n; i++)
            dispatch(p, ev[i].data.ptr, ev[i].events, now);
        service(p);
    }
}

static int
open_listener(int port, int *bound)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    socklen_t len = sizeof a;
    int one = 1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, SOMAXCONN) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        close(fd);
        return -1;
    }
    *bound = ntohs(a.sin_port);
    return fd;
}

static int
open_signalfd(void)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL}, ign = {.sa_handler = SIG_IGN};
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    /* A shell starts `cmd &` with SIGINT ignored, and an ignored signal never reaches a signalfd.
     */
    sigaction(SIGTERM, &dfl, NULL);
    sigaction(SIGINT, &dfl, NULL);
    /* send() has MSG_NOSIGNAL; this covers the "port=" line to a reader that left. */
    sigaction(SIGPIPE, &ign, NULL);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int
open_lifetime(long seconds)
{
    struct itimerspec its = {.it_value.tv_sec = (time_t)seconds};
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

    if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool
watch(struct proxy *p, int fd, struct handle *h, enum kind kind)
{
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = h};

    h->kind = kind;
    return fd >= 0 && epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &e) == 0;
}

/* Everything but the target, which main() has checked already. */
static bool
setup(struct proxy *p, int listen_port, long seconds, int *bound)
{
    p->armed = NEVER;
    p->ep = epoll_create1(EPOLL_CLOEXEC);
    p->listen_fd = open_listener(listen_port, bound);
    p->signal_fd = open_signalfd();
    p->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    p->lifetime_fd = open_lifetime(seconds);
    return p->ep >= 0 && watch(p, p->listen_fd, &p->h_listen, K_LISTEN) &&
           watch(p, p->signal_fd, &p->h_signal, K_SIGNAL) &&
           watch(p, p->timer_fd, &p->h_timer, K_TIMER) &&
           watch(p, p->lifetime_fd, &p->h_lifetime, K_LIFETIME);
}

static void
teardown(struct proxy *p)
{
    while (p->conns) {
        struct conn *c = p->conns;

        p->conns = c->next;
        conn_free(c);
    }
    close(p->listen_fd);
    close(p->signal_fd);
    close(p->timer_fd);
    close(p->lifetime_fd);
    close(p->ep);
}

static int
usage(void)
{
    fprintf(stderr, "usage: delay-proxy LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS [SECONDS "
                    "[CORRUPT_AFTER_MS]]\n");
    return EXIT_REFUSED;
}

int
main(int argc, char **argv)
{
    struct proxy *p;
    long listen_port, target_port, delay_ms, seconds = DEFAULT_SECONDS, corrupt_ms = -1;
    int bound = 0;

    if (argc < 5 || argc > 7)
        return usage();
    p = calloc(1, sizeof *p);
    if (!p)
        return 1;
    /* The safety rule comes first: nothing below may run for a remote target. */
    if (!loopback_address(argv[2], &p->target, &p->target_len)) {
        fprintf(stderr,
                "delay-proxy: refusing target \"%s\": only 127.0.0.0/8, ::1 and localhost are "
                "allowed\n",
                argv[2]);
        return EXIT_REFUSED;
    }
    if (!parse_long(argv[1], 0, 65535, &listen_port) ||
        !parse_long(argv[3], 1, 65535, &target_port) ||
        !parse_long(argv[4], 0, MAX_DELAY_MS, &delay_ms) ||
        (argc >= 6 && !parse_long(argv[5], 1, 365L * 24 * 3600, &seconds)) ||
        (argc == 7 && !parse_long(argv[6], 0, MAX_DELAY_MS, &corrupt_ms)))
        return usage();
    p->corrupt_after = corrupt_ms < 0 ? NEVER : (uint64_t)corrupt_ms * NS_PER_MS;
    set_port(&p->target, (int)target_port);
    p->delay = (uint64_t)delay_ms * NS_PER_MS;
    if (!setup(p, (int)listen_port, seconds, &bound)) {
        perror("delay-proxy: setup");
        return 1;
    }
    printf("port=%d\n", bound);
    fflush(stdout);
    run(p);
    teardown(p);
    free(p);
    return 0;
}
