/* util: checked allocation, clocks and error exits. */
#include "util.h"
#include "text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "text.h"

static void
oom(size_t n)
{
    fprintf(stderr, "benchtop: out of memory allocating %zu bytes\n", n);
    abort();
}

void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        oom(n);
    return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (p == NULL)
        oom(nmemb * size);
    return p;
}

void *
xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        oom(n);
    return q;
}

void *
xgrow(void *p, int n, int *cap, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : 64;
    return xrealloc(p, (size_t)*cap * size);
}

char *
xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *
xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        oom(0);
    va_end(ap);
    return s;
}

uint64_t
u64_of(double x)
{
    x = round(x);
    if (!(x > 0))
        return 0;
    return x >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)x;
}

uint64_t
now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* "benchtop: PREFIXMESSAGE" in one write: the line arrives whole even when stderr is shared. */
static void
print_line(const char *prefix, const char *fmt, va_list ap)
{
    char line[2048], safe[sizeof(line)];

    vsnprintf(line, sizeof(line), fmt, ap);
    text_clean(safe, sizeof(safe), line); /* it may quote a server's reply */
    fprintf(stderr, "benchtop: %s%s\n", prefix, safe);
}

int
usage_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    print_line("", fmt, ap);
    va_end(ap);
    return 2;
}

void
usage_fatal(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    print_line("", fmt, ap);
    va_end(ap);
    exit(2);
}

void
fatal(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    print_line("internal error: ", fmt, ap);
    va_end(ap);
    abort();
}

int
seterr(char *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, BT_ERRLEN, fmt, ap);
    va_end(ap);
    return -1;
}

void
first_line(char *dst, size_t dstlen, const char *src)
{
    char line[BT_ERRLEN];
    size_t n;

    while (*src == ' ' || *src == '\t' || *src == '\n')
        src++;
    n = strcspn(src, "\n");
    while (n > 0 && (src[n - 1] == ' ' || src[n - 1] == '\r'))
        n--;
    if (n >= sizeof(line))
        n = sizeof(line) - 1;
    memcpy(line, src, n);
    line[n] = '\0';
    text_clean(dst, dstlen, line); /* library and server messages are foreign text */
}

int
safe_strntoull(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (n == 0 || n > 20)
        return -1;
    for (i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int
safe_strtoull(const char *s, uint64_t *out)
{
    return safe_strntoull(s, strlen(s), out);
}

const char *
i64_dec(int64_t v, char *tmp)
{
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char *p = tmp + 23;

    *p = '\0';
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        *--p = '-';
    return p;
}

int
safe_strtoll(const char *s, long long *out)
{
    int neg = s[0] == '-';
    uint64_t v;

    if (safe_strtoull(s + neg, &v) < 0 || v > (uint64_t)LLONG_MAX + neg)
        return -1;
    *out = neg ? (long long)(0 - v) : (long long)v;
    return 0;
}

int
safe_strntod(const char *s, size_t n, double *out)
{
    char buf[64], *end;
    double v;
    size_t i;

    if (n == 0 || n >= sizeof buf)
        return -1;
    for (i = 0; i < n; i++) /* strtod would also take spaces, hex, "inf" and "nan" */
        if (strchr("0123456789.eE+-", s[i]) == NULL || s[i] == '\0')
            return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    v = strtod(buf, &end);
    if (errno != 0 || end != buf + n || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int
safe_strtod(const char *s, double *out)
{
    return safe_strntod(s, strlen(s), out);
}

double
str_num_or_nan(const char *s)
{
    double d;

    return s != NULL && safe_strtod(s, &d) == 0 ? d : NAN;
}

void
free_secret(char *s)
{
    if (s == NULL)
        return;
    explicit_bzero(s, strlen(s));
    free(s);
}

void
eventfd_post(int fd)
{
    uint64_t one = 1;

    if (write(fd, &one, sizeof(one)) != sizeof(one))
        fatal("eventfd write: %s", strerror(errno));
}

int
socket_error(int fd)
{
    int e = 0;
    socklen_t len = sizeof e;

    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
        return errno;
    return e;
}

int
iov_advance(struct iovec *iov, int at, int n, size_t sent)
{
    while (sent > 0 && at < n) {
        size_t step = sent < iov[at].iov_len ? sent : iov[at].iov_len;
        iov[at].iov_base = (char *)iov[at].iov_base + step;
        iov[at].iov_len -= step;
        sent -= step;
        if (iov[at].iov_len == 0)
            at++;
    }
    return at;
}

void
be32_put(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

uint32_t
be32_get(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

double
wall_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
str_index(const char *const *names, const char *name)
{
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

int
str_index_n(const char *const *names, const char *name, size_t len)
{
    for (int i = 0; names[i] != NULL; i++)
        if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
            return i;
    return -1;
}
