/* uri: see uri.h. */
#include "uri.h"

#include <string.h>

#include "util.h"

/* The first c in [from, to), or to. */
static size_t
first_of(const char *t, size_t from, size_t to, char c)
{
    const char *p = memchr(t + from, c, to - from);

    return p ? (size_t)(p - t) : to;
}

/* The last c in [from, to), or to. */
static size_t
last_of(const char *t, size_t from, size_t to, char c)
{
    size_t i;

    for (i = to; i > from; i--)
        if (t[i - 1] == c)
            return i - 1;
    return to;
}

/* Where the userinfo's '@' is (see uri.h), or end when there is none. */
static size_t
userinfo_end(const char *t, size_t start, size_t q, size_t end)
{
    size_t at;

    if (t[start] == '/')
        return end;
    at = last_of(t, start, q, '@');
    if (at < q)
        return at;
    return last_of(t, q, end, '@');
}

static void
split_userinfo(const char *t, size_t start, size_t at, struct uri *u)
{
    size_t colon = first_of(t, start, at, ':');

    u->has_userinfo = 1;
    u->user = (struct uri_span){start, colon - start};
    if (colon < at) {
        u->has_password = 1;
        u->password = (struct uri_span){colon + 1, at - colon - 1};
    }
}

const char *
uri_scheme_in(const char *target, const char *const *schemes)
{
    for (; *schemes != NULL; schemes++)
        if (strncmp(target, *schemes, strlen(*schemes)) == 0)
            return *schemes;
    return NULL;
}

int
uri_split(const char *t, struct uri *u)
{
    const char *sep = strstr(t, "://");
    size_t start, end, at, q, host, slash;

    memset(u, 0, sizeof *u);
    if (sep == NULL)
        return -1;
    start = (size_t)(sep - t) + 3;
    end = strlen(t);
    u->scheme = (struct uri_span){0, start};
    q = first_of(t, start, end, '?');
    at = userinfo_end(t, start, q, end);
    host = start;
    if (at < end) {
        split_userinfo(t, start, at, u);
        host = at + 1;
        q = first_of(t, host, end, '?');
    }
    slash = first_of(t, host, q, '/');
    u->authority = (struct uri_span){host, slash - host};
    u->host = u->authority;
    u->port = (struct uri_span){slash, 0};
    u->path = (struct uri_span){slash, q - slash};
    u->has_query = q < end;
    u->query = (struct uri_span){u->has_query ? q + 1 : end, u->has_query ? end - q - 1 : 0};
    return 0;
}

enum uri_host_error
uri_split_host(const char *t, struct uri *u)
{
    size_t from = u->authority.off, end = from + u->authority.len, close, colon;

    u->port = (struct uri_span){end, 0};
    if (u->authority.len > 0 && t[from] == '[') {
        close = first_of(t, from, end, ']');
        if (close == end)
            return URI_HOST_NO_CLOSE_BRACKET;
        u->host = (struct uri_span){from + 1, close - from - 1};
        if (close + 1 < end && t[close + 1] != ':')
            return URI_HOST_AFTER_BRACKET;
        u->has_port = close + 1 < end;
        if (u->has_port)
            u->port = (struct uri_span){close + 2, end - close - 2};
        return URI_HOST_OK;
    }
    colon = first_of(t, from, end, ':');
    u->host = (struct uri_span){from, colon - from};
    u->has_port = colon < end;
    if (u->has_port)
        u->port = (struct uri_span){colon + 1, end - colon - 1};
    return URI_HOST_OK;
}

int
uri_port(const char *t, struct uri_span p, int *port)
{
    uint64_t v;

    if (safe_strntoull(t + p.off, p.len, &v) < 0 || v < 1 || v > 65535)
        return -1;
    *port = (int)v;
    return 0;
}

static int
hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int
uri_decode(const char *t, struct uri_span s, char *out, size_t outlen)
{
    const char *p = t + s.off;
    size_t i, k = 0;

    for (i = 0; i < s.len; i++) {
        char c = p[i];
        if (c == '%') {
            int hi = i + 2 < s.len ? hex_value(p[i + 1]) : -1;
            int lo = i + 2 < s.len ? hex_value(p[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                return -1;
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (k + 1 >= outlen)
            return -1;
        out[k++] = c;
    }
    out[k] = '\0';
    return 0;
}

char *
uri_replace(const char *t, struct uri_span s, const char *with)
{
    return xasprintf("%.*s%s%s", (int)s.off, t, with, t + s.off + s.len);
}

char *
uri_mask(const char *t)
{
    const char *sep = strstr(t, "://");
    size_t start = sep ? (size_t)(sep - t) + 3 : 0, end = strlen(t);
    size_t q = first_of(t, start, end, '?');
    size_t at = start < end ? userinfo_end(t, start, q, end) : end;

    if (at >= end)
        return xstrdup(t);
    return uri_replace(t, (struct uri_span){start, at - start}, "***");
}

static int
uri_host_is_local(const char *host, size_t n)
{
    if (n == 0 || host[0] == '/')
        return 1; /* no host: a unix socket or the library's local default */
    if (n >= 4 && strncmp(host, "127.", 4) == 0)
        return 1;
    return (n == 9 && strncmp(host, "localhost", 9) == 0) ||
           (n == 5 && strncmp(host, "[::1]", 5) == 0) || (n == 3 && strncmp(host, "::1", 3) == 0);
}

int
uri_is_local(const char *target)
{
    const char *h;
    size_t n;
    struct uri u;

    if (uri_split(target, &u) == 0) {
        if (uri_split_host(target, &u) != URI_HOST_OK)
            return 0;
        return uri_host_is_local(target + u.host.off, u.host.len);
    }
    h = strstr(target, "host=");
    if (h == NULL)
        return 1;
    h += 5;
    n = strcspn(h, " \t");
    return uri_host_is_local(h, n);
}
