/*
 * itest-memcached: what the memcached integration tests share: the
 * throwaway server's address (BENCHTOP_MC_*), its counters read with a
 * plain `stats` on a socket of our own (not benchtop's parsers, which are
 * what is under test), raw sets and gets, and restarting it through
 * `benchtop serve`. Header-only, like itest.h.
 */
#ifndef BENCHTOP_ITEST_MEMCACHED_H
#define BENCHTOP_ITEST_MEMCACHED_H

#include "itest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

/* The counters the tests compare with benchtop's own. */
struct mc_counts {
    long long cmd_get, cmd_set, get_hits, get_misses, curr_items, total_connections,
        curr_connections, pid;
};

static inline const char *
mc_target(void)
{
    return itest_env("BENCHTOP_MC_TARGET");
}

static inline int
mc_port(void)
{
    const char *colon = strrchr(mc_target(), ':');

    return colon ? atoi(colon + 1) : -1;
}

/* A blocking TCP connection to 127.0.0.1:port, or -1. */
static inline int
mc_dial(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((unsigned short)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static inline void
mc_send(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        assert_true(w > 0);
        s += w;
        n -= (size_t)w;
    }
}

/* Reads until buf ends with `end` (e.g. "END\r\n"); returns the length. */
static inline size_t
mc_read_until(int fd, char *buf, size_t cap, const char *end)
{
    size_t len = 0, el = strlen(end);

    while (len < el || memcmp(buf + len - el, end, el) != 0) {
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n <= 0) {
            fprintf(stderr, "memcached test server: read failed after %zu bytes\n", len);
            exit(1);
        }
        len += (size_t)n;
    }
    buf[len] = '\0';
    return len;
}

static inline long long
mc_field(const char *stats, const char *name)
{
    char pat[64];
    const char *p;

    snprintf(pat, sizeof pat, "STAT %s ", name);
    p = strstr(stats, pat);
    if (p == NULL) {
        fprintf(stderr, "memcached test server: no %s in stats\n", name);
        exit(1);
    }
    return strtoll(p + strlen(pat), NULL, 10);
}

/* The server's counters, on a connection opened for it (it counts in total_connections). */
static inline struct mc_counts
mc_counts_now(void)
{
    static char buf[65536];
    struct mc_counts c;
    int fd = mc_dial(mc_port());

    if (fd < 0) {
        fprintf(stderr, "cannot connect to the memcached test server: %s\n", strerror(errno));
        exit(1);
    }
    mc_send(fd, "stats\r\n", 7);
    mc_read_until(fd, buf, sizeof buf, "END\r\n");
    close(fd);
    c.cmd_get = mc_field(buf, "cmd_get");
    c.cmd_set = mc_field(buf, "cmd_set");
    c.get_hits = mc_field(buf, "get_hits");
    c.get_misses = mc_field(buf, "get_misses");
    c.curr_items = mc_field(buf, "curr_items");
    c.total_connections = mc_field(buf, "total_connections");
    c.curr_connections = mc_field(buf, "curr_connections");
    c.pid = mc_field(buf, "pid");
    return c;
}

/*
 * The counters once every other connection is gone: a request benchtop sent
 * just before it exited is still being served on another server thread
 * until its connection closes, and would otherwise land after our reading.
 */
static inline struct mc_counts
mc_counts(void)
{
    struct mc_counts c = mc_counts_now();

    for (int i = 0; i < 300 && c.curr_connections > 1; i++) {
        itest_sleep_ms(10);
        c = mc_counts_now();
    }
    return c;
}

/* Restarts the server through `benchtop serve` (SIGUSR1) and waits for its "restarted". */
static inline void
mc_restart(void)
{
    pid_t serve = (pid_t)atoi(itest_env("BENCHTOP_MC_SERVE_PID"));
    int fd = atoi(itest_env("BENCHTOP_MC_SERVE_FD"));
    char line[512];
    size_t n = 0;

    assert_int_equal(kill(serve, SIGUSR1), 0);
    for (;;) {
        char ch;
        assert_int_equal(read(fd, &ch, 1), 1);
        if (ch != '\n' && n < sizeof line - 1) {
            line[n++] = ch;
            continue;
        }
        line[n] = '\0';
        n = 0;
        if (strcmp(line, "restarted") == 0)
            return;
        if (strncmp(line, "restart-failed", 14) == 0)
            fail_msg("the memcached test server did not restart: %s", line);
    }
}

/* Runs benchtop, expects exit 2 and exactly one stderr line containing every word in want. */
static inline void
mc_expect_error(char **args, const char *const *want)
{
    struct run r = itest_runv(args);

    fprintf(stderr, "  %s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_int_equal(strlen(r.out), 0);
    assert_non_null(strstr(r.err, "benchtop: "));
    for (int i = 0; want[i] != NULL; i++)
        if (strstr(r.err, want[i]) == NULL)
            fail_msg("'%s' not in: %s", want[i], r.err);
    itest_free(&r);
}

#endif
