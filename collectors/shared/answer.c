/* answer: see answer.h. */
#include "answer.h"

#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

const char *
answer_kind(const unsigned char *buf, size_t n)
{
    if (n >= 5 && buf[4] == 10 && buf[3] == 0) /* a handshake packet, protocol 10 */
        return "a MySQL/MariaDB server";
    if (n >= 4 && memcmp(buf, "SSH-", 4) == 0)
        return "an SSH server";
    if (n >= 5 && memcmp(buf, "HTTP/", 5) == 0)
        return "an HTTP server";
    if (n >= 1 && (buf[0] == '+' || buf[0] == '-')) /* +PONG, or -ERR for the line before */
        return "Redis";
    if (n >= 5 && memcmp(buf, "ERROR", 5) == 0)
        return "memcached";
    return NULL;
}

/* Reads what arrives within wait_ms (one read); its length, 0 if nothing. */
static size_t
read_some(int fd, unsigned char *buf, size_t len, int wait_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    ssize_t n;

    if (poll(&p, 1, wait_ms) <= 0)
        return 0;
    n = recv(fd, buf, len, 0);
    return n > 0 ? (size_t)n : 0;
}

static int
connect_to(const char *host, const char *port, int wait_ms)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
    struct pollfd p = {.events = POLLOUT};
    int fd, e = 0;
    socklen_t len = sizeof e;

    if (getaddrinfo(host, port, &hints, &ai) != 0)
        return -1;
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        p.fd = fd;
        if (poll(&p, 1, wait_ms) <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 ||
            e != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    return fd;
}

const char *
answer_probe(const char *host, const char *port, int wait_ms)
{
    unsigned char buf[256];
    const char *kind = NULL;
    size_t n;
    int fd = connect_to(host, port, wait_ms);

    if (fd < 0)
        return NULL;
    n = read_some(fd, buf, sizeof buf, wait_ms);
    if (n == 0 && send(fd, "PING\r\n", 6, MSG_NOSIGNAL) == 6)
        n = read_some(fd, buf, sizeof buf, wait_ms);
    if (n > 0)
        kind = answer_kind(buf, n);
    close(fd);
    return kind;
}
