/*
 * Tests for engine: a run's threads all end with it, also when a worker
 * cannot start (the ones started before it are stopped and joined, the
 * descriptors closed); and with -C a transaction that fails in its start
 * does not strand its client; a start that breaks driver.h's contract
 * stops the run; the edge-triggered watch (.reads_drain) keeps input
 * reported while a client waits to write. The drivers here talk to a pipe
 * or a socketpair: no server is needed and no load is made.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdatomic.h>

#include "engine/engine.h"
#include "base/util.h"

static void *
never_new(void *shared, int client_id, struct rng *rng)
{
    return xcalloc(1, 1);
}

/* The read end of a pipe nothing is written to: a client waits on it until the run stops. */
static int idle_fd = -1;

static int
never_fd(void *conn)
{
    return idle_fd;
}

static enum drv_status
never_connect(void *conn, char *err)
{
    return DRV_WANT_READ;
}

static enum drv_status
never_txn(void *conn, struct txn_result *res)
{
    return DRV_WANT_READ;
}

static void
never_disconnect(void *conn)
{
}

/* Clients made with an odd id, a freed count: which workers hold clients (ids interleave). */
static atomic_int odd_made, freed;

static void *
counting_new(void *shared, int client_id, struct rng *rng)
{
    if (client_id % 2)
        atomic_fetch_add(&odd_made, 1);
    return xcalloc(1, 1);
}

static void
counting_free(void *conn)
{
    atomic_fetch_add(&freed, 1);
    free(conn);
}

static const struct driver_class never_driver_class = {
    .name = "never",
    .conn_new = never_new,
    .conn_free = free,
    .conn_fd = never_fd,
    .conn_connect_start = never_connect,
    .conn_connect_poll = never_connect,
    .conn_txn_start = never_txn,
    .conn_txn_poll = never_txn,
    .conn_disconnect = never_disconnect,
};

/*
 * A driver whose connect succeeds as soon as its descriptor (a pipe's write
 * end) is writable, and whose every transaction fails before it is sent.
 */
static int ready_fd = -1;

static int
ready_fd_of(void *conn)
{
    return ready_fd;
}

static enum drv_status
connect_start(void *conn, char *err)
{
    return DRV_WANT_WRITE;
}

static enum drv_status
connect_done(void *conn, char *err)
{
    return DRV_DONE;
}

static enum drv_status
refused_txn(void *conn, struct txn_result *res)
{
    res->err = ERR_OTHER;
    snprintf(res->msg, sizeof res->msg, "refused before sending");
    return DRV_DONE;
}

static const struct driver_class refusing_driver_class = {
    .name = "refusing",
    .conn_new = never_new,
    .conn_free = free,
    .conn_fd = ready_fd_of,
    .conn_connect_start = connect_start,
    .conn_connect_poll = connect_done,
    .conn_txn_start = refused_txn,
    .conn_txn_poll = refused_txn,
    .conn_disconnect = never_disconnect,
};

/* A driver that breaks driver.h: its transactions succeed inside conn_txn_start. */
static enum drv_status
instant_txn(void *conn, struct txn_result *res)
{
    res->ops = 1;
    return DRV_DONE;
}

static const struct driver_class instant_driver_class = {
    .name = "instant",
    .conn_new = never_new,
    .conn_free = free,
    .conn_fd = ready_fd_of,
    .conn_connect_start = connect_start,
    .conn_connect_poll = connect_done,
    .conn_txn_start = instant_txn,
    .conn_txn_poll = instant_txn,
    .conn_disconnect = never_disconnect,
};

/*
 * A driver whose transactions are sent and answered inside conn_txn_start
 * (DRV_DONE_SENT), as MySQL's are when the server is fast; each connection
 * counts its transactions in sent_done[client_id].
 */
static atomic_int sent_done[4], sent_lead; /* the most client 0 was ahead of client 1 */

struct sent_conn {
    int id;
    int fd; /* an eventfd: writable at once, its own registration in the worker's epoll */
};

static void *
sent_new(void *shared, int client_id, struct rng *rng)
{
    struct sent_conn *c = malloc(sizeof *c);

    c->id = client_id;
    c->fd = eventfd(0, EFD_NONBLOCK);
    assert_true(c->fd >= 0);
    return c;
}

static void
sent_free(void *conn)
{
    close(((struct sent_conn *)conn)->fd);
    free(conn);
}

static int
sent_fd(void *conn)
{
    return ((struct sent_conn *)conn)->fd;
}

static enum drv_status
sent_txn(void *conn, struct txn_result *res)
{
    int id = ((struct sent_conn *)conn)->id;
    int lead = atomic_fetch_add(&sent_done[id], 1) + 1 - atomic_load(&sent_done[1]);

    if (id == 0 && lead > atomic_load(&sent_lead))
        atomic_store(&sent_lead, lead);
    res->ops = 1;
    return DRV_DONE_SENT;
}

static enum drv_status
sent_poll(void *conn, struct txn_result *res)
{
    fail_msg("conn_txn_poll called after DRV_DONE_SENT");
    return DRV_ERROR;
}

static const struct driver_class sent_driver_class = {
    .name = "sent",
    .conn_new = sent_new,
    .conn_free = sent_free,
    .conn_fd = sent_fd,
    .conn_connect_start = connect_start,
    .conn_connect_poll = connect_done,
    .conn_txn_start = sent_txn,
    .conn_txn_poll = sent_poll,
    .conn_disconnect = never_disconnect,
};

/*
 * A driver with .reads_drain over a socketpair whose far end the driver
 * plays itself, so what the worker's epoll reports is fixed: each start
 * fills the socket until a send comes back with EAGAIN, then the far end
 * answers (input) and takes everything sent (output). The next epoll
 * report holds both while the client waits to write; conn_txn_poll sends
 * one more byte and waits to read without reading (driver.h allows it),
 * so only the input kept in client.ready from that report brings the
 * client on: the kernel reports nothing new.
 */
struct edge_conn {
    int fd[2]; /* [0] the client's end, [1] the far end */
    int reading;
};

static void *
edge_new(void *shared, int client_id, struct rng *rng)
{
    struct edge_conn *c = xcalloc(1, sizeof *c);

    c->fd[0] = c->fd[1] = -1;
    return c;
}

static int
edge_fd(void *conn)
{
    return ((struct edge_conn *)conn)->fd[0];
}

static enum drv_status
edge_connect(void *conn, char *err)
{
    struct edge_conn *c = conn;
    int small = 4096;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, c->fd) < 0) {
        snprintf(err, BT_ERRLEN, "socketpair: %s", strerror(errno));
        return DRV_ERROR;
    }
    setsockopt(c->fd[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    return DRV_WANT_WRITE;
}

static enum drv_status
edge_connected(void *conn, char *err)
{
    return DRV_DONE;
}

/* Reads fd until it is empty; bytes read. */
static size_t
drain(int fd)
{
    char buf[4096];
    size_t sum = 0;
    ssize_t n;

    while ((n = read(fd, buf, sizeof buf)) > 0)
        sum += (size_t)n;
    return sum;
}

static enum drv_status
edge_txn_start(void *conn, struct txn_result *res)
{
    struct edge_conn *c = conn;
    char req[512] = {0};

    while (write(c->fd[0], req, sizeof req) > 0)
        ;
    if (errno != EAGAIN)
        return DRV_ERROR;
    /* the reply, and room to send again (no cmocka assert: this is the worker's thread) */
    if (write(c->fd[1], "R", 1) != 1 || drain(c->fd[1]) == 0)
        return DRV_ERROR;
    c->reading = 0;
    return DRV_WANT_WRITE;
}

static enum drv_status
edge_txn_poll(void *conn, struct txn_result *res)
{
    struct edge_conn *c = conn;
    char b[2];

    if (!c->reading) {
        if (write(c->fd[0], "E", 1) != 1)
            return DRV_ERROR;
        c->reading = 1;
        return DRV_WANT_READ;
    }
    if (read(c->fd[0], b, sizeof b) != 1 || b[0] != 'R')
        return DRV_ERROR; /* short: the socket is empty again */
    res->ops = 1;
    return DRV_DONE;
}

static void
edge_disconnect(void *conn)
{
    struct edge_conn *c = conn;

    for (int i = 0; i < 2; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
    c->fd[0] = c->fd[1] = -1;
}

static const struct driver_class edge_driver_class = {
    .name = "edge",
    .reads_drain = 1,
    .conn_new = edge_new,
    .conn_free = free,
    .conn_fd = edge_fd,
    .conn_connect_start = edge_connect,
    .conn_connect_poll = edge_connected,
    .conn_txn_start = edge_txn_start,
    .conn_txn_poll = edge_txn_poll,
    .conn_disconnect = edge_disconnect,
};

static int
threads_now(void)
{
    char line[128];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");

    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return n;
}

/* Which descriptors are open (open[i]), and how many; the directory's own is left out. */
static int
fds_open(char *open, int size)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    memset(open, 0, (size_t)size);
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] == '.' || fd == dirfd(d) || fd >= size)
            continue;
        open[fd] = 1;
        n++;
    }
    closedir(d);
    return n;
}

static void *
noop(void *arg)
{
    return arg;
}

/*
 * ThreadSanitizer starts a thread of its own at the first pthread_create:
 * one thread made and joined first keeps threads_now() steady after.
 */
static void
settle_threads(void)
{
    pthread_t t;

    if (pthread_create(&t, NULL, noop, NULL) == 0)
        pthread_join(t, NULL);
}

static struct runconf
conf(int threads)
{
    struct runconf rc = {0};

    rc.tgt.driver = &never_driver_class;
    rc.threads = threads;
    rc.clients = threads;
    rc.late_ms = 1000;
    rc.seed = 1;
    return rc;
}

static void
test_stop_joins_every_worker(void **state)
{
    (void)state;
    struct runconf rc = conf(3);
    char err[BT_ERRLEN] = "";
    int before = threads_now();
    struct engine *e = engine_start(&rc, NULL, err);

    assert_non_null(e);
    assert_int_equal(threads_now(), before + 3);
    engine_stop(e);
    engine_free(e);
    assert_int_equal(threads_now(), before);
}

/* Descriptors one running engine of `threads` workers holds. */
static int
fds_held(int threads)
{
    struct runconf rc = conf(threads);
    char err[BT_ERRLEN] = "", open[1024];
    int before = fds_open(open, sizeof open), n;
    struct engine *e = engine_start(&rc, NULL, err);

    assert_non_null(e);
    n = fds_open(open, sizeof open) - before;
    engine_free(e);
    return n;
}

/*
 * With room for the engine's descriptors and the first worker's only, the
 * second worker cannot start: engine_start fails, and the first worker's
 * thread and every descriptor are gone.
 */
static void
test_failed_worker_stops_the_others(void **state)
{
    (void)state;
    struct runconf rc = conf(2);
    char err[BT_ERRLEN] = "", open[1024];
    int before_threads = threads_now(), before_fds = fds_open(open, sizeof open);
    struct rlimit old, tight;
    struct engine *e;
    int per_worker = fds_held(2) - fds_held(1), need = fds_held(1), limit, room = 0;

    assert_true(per_worker >= 1);
    for (limit = 0; limit < (int)sizeof open && room < need; limit++)
        room += !open[limit];
    getrlimit(RLIMIT_NOFILE, &old);
    tight = old;
    tight.rlim_cur = (rlim_t)limit;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &tight), 0);
    e = engine_start(&rc, NULL, err);
    setrlimit(RLIMIT_NOFILE, &old);
    assert_null(e);
    assert_true(strlen(err) > 0);
    assert_int_equal(threads_now(), before_threads);
    assert_int_equal(fds_open(open, sizeof open), before_fds);
}

/* Waits (5 s at most) until *n reaches want; its value. */
static int
wait_count(atomic_int *n, int want)
{
    for (int i = 0; i < 500 && atomic_load(n) < want; i++)
        usleep(10000);
    return atomic_load(n);
}

/*
 * -j 1 with a spare worker (the dashboard's client-bound experiment): the
 * spare one holds no client (worker 0 makes the even ids, the spare the
 * odd ones) until engine_set_threads(2) spreads the 4 clients over both:
 * the spare makes 2, worker 0 frees 2; back to 1, the spare frees its 2.
 * An open loop gets no spare. The thread count is clamped to the workers.
 */
static void
test_spare_worker_takes_clients(void **state)
{
    (void)state;
    struct runconf rc = conf(1);
    char err[BT_ERRLEN] = "";
    int before = threads_now();
    struct engine *e;
    struct driver_class counting = never_driver_class; /* never connects; counts its clients */

    counting.conn_new = counting_new;
    counting.conn_free = counting_free;
    rc.tgt.driver = &counting;
    rc.clients = 4;
    rc.spare_threads = 1;
    atomic_store(&odd_made, 0);
    atomic_store(&freed, 0);
    e = engine_start(&rc, NULL, err);
    assert_non_null(e);
    assert_int_equal(e->nworkers, 2);
    assert_int_equal(e->active, 1);
    assert_int_equal(threads_now(), before + 2);
    usleep(100000);
    assert_int_equal(atomic_load(&odd_made), 0);
    engine_set_threads(e, 2);
    assert_int_equal(wait_count(&odd_made, 2), 2);
    assert_int_equal(wait_count(&freed, 2), 2);
    engine_set_threads(e, 1);
    assert_int_equal(wait_count(&freed, 4), 4);
    engine_set_threads(e, 9);
    assert_int_equal(e->active, 2);
    engine_free(e);
    rc.rate = 100;
    e = engine_start(&rc, NULL, err);
    assert_non_null(e);
    assert_int_equal(e->nworkers, 1);
    engine_free(e);
}

/*
 * -C, closed loop: a transaction that fails in its start leaves the client
 * disconnected; it must connect again and go on until its -t is done (it
 * used to wait forever after the first).
 */
static void
test_connect_per_txn_failed_start_goes_on(void **state)
{
    (void)state;
    struct runconf rc = conf(1);
    char err[BT_ERRLEN] = "";
    struct engine *e;
    struct snapshot *snap;
    int i;

    rc.tgt.driver = &refusing_driver_class;
    rc.connect_per_txn = 1;
    rc.transactions = 20;
    e = engine_start(&rc, NULL, err);
    assert_non_null(e);
    for (i = 0; i < 500 && !engine_finished(e); i++)
        usleep(10000); /* bounded: 5 s at most */
    snap = engine_stop(e);
    assert_int_equal(snap->total.errors[ERR_OTHER], 20);
    assert_int_equal(snap->total.txns, 0);
    engine_free(e);
}

/*
 * A start that finishes a transaction without an error (driver.h allows
 * DRV_DONE there only for one that failed before sending) stops the run:
 * nothing would wake its client again (it used to be woken by the timer
 * meant for failed starts, one loop turn per transaction).
 */
static void
test_success_at_start_is_refused(void **state)
{
    (void)state;
    int status;
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        struct runconf rc = conf(1);
        struct rlimit no_core = {0, 0};
        char err[BT_ERRLEN] = "";
        struct engine *e;

        setrlimit(RLIMIT_CORE, &no_core);
        freopen("/dev/null", "w", stderr);
        rc.tgt.driver = &instant_driver_class;
        rc.transactions = 20;
        if ((e = engine_start(&rc, NULL, err)) == NULL)
            _exit(3);
        for (int i = 0; i < 200 && !engine_finished(e); i++)
            usleep(10000); /* bounded: 2 s at most */
        _exit(engine_stop(e)->total.txns == 20 ? 0 : 4);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

/* Runs the sent driver's clients on one worker until each did -t n; the snapshot's total txns. */
static uint64_t
run_sent(int clients, int per_txn, long long n)
{
    struct runconf rc = conf(1);
    char err[BT_ERRLEN] = "";
    struct engine *e;
    uint64_t txns;

    for (int i = 0; i < 4; i++)
        atomic_store(&sent_done[i], 0);
    atomic_store(&sent_lead, 0);
    rc.tgt.driver = &sent_driver_class;
    rc.clients = clients;
    rc.connect_per_txn = per_txn;
    rc.transactions = n;
    e = engine_start(&rc, NULL, err);
    assert_non_null(e);
    for (int i = 0; i < 500 && !engine_finished(e); i++)
        usleep(10000); /* bounded: 5 s at most */
    txns = engine_stop(e)->total.txns;
    engine_free(e);
    return txns;
}

/*
 * Transactions over within their start (DRV_DONE_SENT) count once each and
 * the client goes on, also with -C; conn_txn_poll is never called. Two
 * clients on one worker take turns, a transaction each per loop turn:
 * client 0 is never more than a few ahead (one that kept the loop would
 * run all its 2000 before client 1 had one).
 */
static void
test_done_in_start_goes_on(void **state)
{
    (void)state;
    assert_int_equal(run_sent(1, 0, 50), 50);
    assert_int_equal(atomic_load(&sent_done[0]), 50);
    assert_int_equal(run_sent(1, 1, 20), 20);
    assert_int_equal(run_sent(2, 0, 2000), 4000); /* -t is each client's */
    assert_int_equal(atomic_load(&sent_done[0]), 2000);
    assert_int_equal(atomic_load(&sent_done[1]), 2000);
    assert_true(atomic_load(&sent_lead) <= 3);
}

/* Edge-triggered: input reported while a client waits to write brings it on when it waits to read.
 */
static void
test_edge_input_kept_while_writing(void **state)
{
    (void)state;
    struct runconf rc = conf(1);
    char err[BT_ERRLEN] = "";
    struct engine *e;
    struct snapshot *snap;

    rc.tgt.driver = &edge_driver_class;
    rc.transactions = 20;
    e = engine_start(&rc, NULL, err);
    assert_non_null(e);
    for (int i = 0; i < 300 && !engine_finished(e); i++)
        usleep(10000); /* bounded: 3 s at most */
    snap = engine_stop(e);
    assert_int_equal(snap->total.errors[ERR_CONN], 0);
    assert_int_equal(snap->total.txns, 20);
    engine_free(e);
}

int
main(void)
{
    int p[2];

    if (pipe(p) < 0)
        return 1;
    settle_threads();
    idle_fd = p[0];
    ready_fd = p[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_joins_every_worker),
        cmocka_unit_test(test_failed_worker_stops_the_others),
        cmocka_unit_test(test_connect_per_txn_failed_start_goes_on),
        cmocka_unit_test(test_spare_worker_takes_clients),
        cmocka_unit_test(test_success_at_start_is_refused),
        cmocka_unit_test(test_done_in_start_goes_on),
        cmocka_unit_test(test_edge_input_kept_while_writing),
    };
    return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
