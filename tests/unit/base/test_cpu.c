/*
 * Tests for cpu: a listening port's owner found through /proc/net/tcp{,6}
 * and /proc/PID/fd, and a group's peers (the listeners its processes
 * connect to on loopback). The processes are this test's children on
 * loopback: no server is needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cpu.h"

/* A socket listening on loopback (IPv4 or IPv6) on a port the kernel picks; its port in *port. */
static int
listener(int family, int *port)
{
    struct sockaddr_storage ss = {0};
    socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    int fd = socket(family, SOCK_STREAM, 0);

    assert_true(fd >= 0);
    ss.ss_family = (sa_family_t)family;
    if (family == AF_INET)
        ((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else
        ((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
    assert_int_equal(bind(fd, (struct sockaddr *)&ss, len), 0);
    assert_int_equal(listen(fd, 4), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
    *port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                    : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

static void
test_port_owner_is_the_listener(void **state)
{
    (void)state;
    int port4, port6, fd4 = listener(AF_INET, &port4), fd6 = listener(AF_INET6, &port6);

    assert_int_equal(cpu_port_owner(port4), getpid());
    assert_int_equal(cpu_port_owner(port6), getpid());
    close(fd4);
    close(fd6);
    /* nothing listens there any more (a connection's port is not a listener) */
    assert_int_equal(cpu_port_owner(port4), -1);
    assert_int_equal(cpu_port_owner(0), -1);
}

/*
 * A child that listens on loopback (its port written to `out`, and again
 * once it accepted a connection) or, with port > 0, connects to that port; either way it then waits
 * until the `stop` pipe's write end closes. Its pid.
 */
static pid_t
child(int port, int out, const int stop[2])
{
    pid_t pid = fork();
    char c;

    assert_true(pid >= 0);
    if (pid > 0)
        return pid;
    close(stop[1]);
    if (port == 0) {
        int p, fd = listener(AF_INET, &p);

        if (write(out, &p, sizeof p) != sizeof p || accept(fd, NULL, NULL) < 0 ||
            write(out, &p, sizeof p) != sizeof p)
            _exit(1);
    } else {
        struct sockaddr_in sa = {.sin_family = AF_INET};
        int fd = socket(AF_INET, SOCK_STREAM, 0);

        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sa.sin_port = htons((uint16_t)port);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
            write(out, &port, sizeof port) < 0)
            _exit(1);
    }
    while (read(stop[0], &c, 1) > 0)
        ;
    _exit(0);
}

/*
 * A group of one process connected to a loopback listener gains that
 * listener's owner as a peer, and the listener's group gains nobody (its
 * accepted connection is not followed). A tree's starting CPU is known
 * when it is added, unknown for a pid that is gone.
 */
static void
test_group_follows_outgoing_connections(void **state)
{
    (void)state;
    int ready[2], stop[2], port, got;
    pid_t server, client;
    struct cpu_group g, s;

    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(stop), 0);
    server = child(0, ready[1], stop);
    assert_int_equal(read(ready[0], &port, sizeof port), sizeof port);
    client = child(port, ready[1], stop);
    for (int i = 0; i < 2; i++) { /* connected, and accepted */
        assert_int_equal(read(ready[0], &got, sizeof got), sizeof got);
        assert_int_equal(got, port);
    }
    assert_int_equal(cpu_port_owner(port), server);

    cpu_group_init(&g);
    cpu_group_add(&g, client);
    assert_int_equal(g.n, 1);
    assert_true(g.last_s[0] >= 0);
    cpu_group_add_peers(&g);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.root[1], server);
    assert_true(g.last_s[1] == -1); /* found mid-interval */
    assert_int_equal(g.ntried, 1);
    assert_int_equal(g.tried[0], port);

    assert_int_equal(g.peers_every, 1); /* it found someone: looks again at the next call */

    cpu_group_init(&s);
    cpu_group_add(&s, server);
    cpu_group_add_peers(&s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.ntried, 0);
    /* finding no one, it backs off: looks at calls 1, 2, 4, 8, 16, 32 of 40 */
    for (int i = 1; i < 40; i++)
        cpu_group_add_peers(&s);
    assert_int_equal(s.peers_every, 16);
    assert_int_equal(s.peers_skip, 7);

    close(stop[1]);
    assert_int_equal(waitpid(server, NULL, 0), server);
    assert_int_equal(waitpid(client, NULL, 0), client);
    cpu_group_init(&g);
    cpu_group_add(&g, client);
    assert_int_equal(g.n, 1);
    assert_true(g.last_s[0] < 0);
    assert_true(isnan(cpu_group_pct(&g, 1.0)));
    close(stop[0]);
    close(ready[0]);
    close(ready[1]);
}

/* This process's connection to a listener is found by its local port; the listener's is not. */
static void
test_own_ports(void **state)
{
    (void)state;
    int port, lfd = listener(AF_INET, &port), cfd = socket(AF_INET, SOCK_STREAM, 0), afd;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof sa;
    int ports[4];

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof sa), 0);
    afd = accept(lfd, NULL, NULL);
    assert_true(afd >= 0);
    assert_int_equal(getsockname(cfd, (struct sockaddr *)&sa, &len), 0);
    assert_int_equal(cpu_own_ports(port, ports, 4), 1);
    assert_int_equal(ports[0], ntohs(sa.sin_port));
    assert_int_equal(cpu_own_ports(0, ports, 4), 0);
    close(afd);
    close(cfd);
    close(lfd);
}

/* This process's own threads read as another's; the busiest thread between two readings. */
static void
test_tasks(void **state)
{
    (void)state;
    struct cpu_task a[4] = {{10, 1.0, 0.2}, {11, 5.0, 0}, {12, 2.0, 0}},
                    b[4] = {{10, 1.5, 0.9}, {11, 5.1, 3}, {13, 9, 0}};
    struct cpu_task mine[8];
    double wait;

    assert_true(cpu_tasks_read(getpid(), mine, 8) >= 1);
    assert_int_equal(mine[0].tid, getpid()); /* the main thread is listed first */
    assert_int_equal(cpu_tasks_read(0, mine, 8), -1);
    /* tid 10: 0.5 s in 2 s, the busiest; 12 is gone, 13 is new (no earlier reading) */
    assert_true(mine[0].wait_s >= 0); /* schedstat read */
    /* ... and it waited 0.7 s for a CPU (35%): its wait, not tid 11's */
    assert_true(fabs(cpu_tasks_max_pct(a, 3, b, 3, 2.0, &wait) - 25.0) < 1e-9);
    assert_true(fabs(wait - 35.0) < 1e-9);
    assert_true(isnan(cpu_tasks_max_pct(a, 3, b + 2, 1, 2.0, &wait)));
    assert_true(isnan(wait));
    assert_true(isnan(cpu_tasks_max_pct(a, 3, b, 3, 0, NULL)));
}

/*
 * A group's CPU is over the time since its last read, whatever interval
 * the caller names: the session reads it late on a loaded host, and a
 * server on both cores read as 56% and 200% in turn.
 */
static void
test_group_pct_over_its_own_time(void **state)
{
    (void)state;
    struct cpu_group g;
    pid_t spin = fork();
    double pct;

    assert_true(spin >= 0);
    if (spin == 0) {
        alarm(10); /* bounded: killed long before */
        for (;;)
            ;
    }
    cpu_group_init(&g);
    cpu_group_add(&g, spin);
    usleep(500000);
    /* 1000 s named: the old reading gave 0.05% at most; a spinning child gets far more */
    pct = cpu_group_pct(&g, 1000.0);
    kill(spin, SIGKILL);
    assert_int_equal(waitpid(spin, NULL, 0), spin);
    assert_true(pct > 5.0 && pct <= 110.0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_ports),
        cmocka_unit_test(test_tasks),
        cmocka_unit_test(test_port_owner_is_the_listener),
        cmocka_unit_test(test_group_follows_outgoing_connections),
        cmocka_unit_test(test_group_pct_over_its_own_time),
    };
    return cmocka_run_group_tests_name("cpu", tests, NULL, NULL);
}
