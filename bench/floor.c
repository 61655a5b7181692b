/*
 * bench/floor: the least a client can do per request on this kernel, to
 * measure benchtop against (bench/floor builds it into build/floor). One
 * thread, one epoll set, CONNS non-blocking TCP connections to 127.0.0.1:PORT,
 * each sending one fixed request and, when its socket is readable, taking
 * the response with one recv(): no parsing (a response is assumed to fit in
 * one read, true of the small replies used here), no statistics, no timing
 * but the end. A connection the server closes (nginx after keepalive_requests)
 * is opened again and its request sent again.
 *
 * usage: build/floor redis|memcached|http PORT CONNS SECONDS [PATH]
 * prints: "REQUESTS_PER_S REQUESTS"
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char req[512];
static size_t req_len;
static struct sockaddr_in addr;

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A blocking connect (the set-up is not what is measured), then non-blocking. */
static int
open_conn(int ep, int slot)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)slot};

    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        perror("floor: connect");
        exit(1);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ||
        send(fd, req, req_len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)req_len) {
        perror("floor: send");
        exit(1);
    }
    return fd;
}

static void
make_request(const char *proto, const char *path)
{
    const char *key = "key:000000000001";

    if (strcmp(proto, "redis") == 0)
        req_len = (size_t)snprintf(req, sizeof req, "*2\r\n$3\r\nGET\r\n$%zu\r\n%s\r\n", strlen(key),
                                   key);
    else if (strcmp(proto, "memcached") == 0)
        req_len = (size_t)snprintf(req, sizeof req, "get %s\r\n", key);
    else if (strcmp(proto, "http") == 0)
        req_len = (size_t)snprintf(req, sizeof req,
                                   "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n",
                                   path);
    else {
        fprintf(stderr, "floor: redis, memcached or http, not %s\n", proto);
        exit(2);
    }
}

int
main(int argc, char **argv)
{
    static char buf[65536];
    struct epoll_event evs[256];
    int ep, n, conns, *fds;
    double secs, start, end;
    unsigned long long done = 0;

    if (argc < 5) {
        fprintf(stderr, "usage: floor redis|memcached|http PORT CONNS SECONDS [PATH]\n");
        return 2;
    }
    make_request(argv[1], argc > 5 ? argv[5] : "/");
    addr = (struct sockaddr_in){.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)atoi(argv[2])),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    conns = atoi(argv[3]);
    secs = atof(argv[4]);
    ep = epoll_create1(0);
    fds = calloc((size_t)conns, sizeof *fds);
    for (int i = 0; i < conns; i++)
        fds[i] = open_conn(ep, i);
    start = now_s();
    end = start + secs;
    while ((n = epoll_wait(ep, evs, 256, 100)) >= 0) {
        for (int i = 0; i < n; i++) {
            int s = (int)evs[i].data.u32;
            ssize_t got = recv(fds[s], buf, sizeof buf, MSG_DONTWAIT);
            if (got > 0) {
                done++;
                if (send(fds[s], req, req_len, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)req_len)
                    continue;
            } else if (got < 0 && errno == EAGAIN) {
                continue;
            }
            close(fds[s]); /* closed by the server: again on a new connection */
            fds[s] = open_conn(ep, s);
        }
        if (now_s() >= end)
            break;
    }
    printf("%.1f %llu\n", (double)done / (now_s() - start), done);
    return 0;
}
