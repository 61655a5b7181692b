/*
 * redis/target: what a redis://, rediss:// or redis+unix:// target names
 * (struct redis_target in redis.h): parsed once, by the driver class's
 * parse (engine/target.h), its TLS parameters, and the password masked.
 */
#include "redis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/uri.h"
#include "base/util.h"
#include "engine/target.h"

const char *const redis_schemes[] = {"redis://", "rediss://", "redis+unix://", NULL};

/* ---- targets ---- */

/* The password's place: after the ':', or the whole userinfo (redis-cli reads a lone word so). */
static struct uri_span
password_span(const struct uri *u)
{
    return u->has_password ? u->password : u->user;
}

static int
parse_userinfo(const char *target, const struct uri *u, struct redis_target *t)
{
    if (!u->has_password)
        return uri_decode(target, u->user, t->pass, sizeof t->pass);
    return uri_decode(target, u->user, t->user, sizeof t->user) < 0
               ? -1
               : uri_decode(target, u->password, t->pass, sizeof t->pass);
}

/* For the target parsers: records why and fails. */
static int
bad(const char **why, const char *what)
{
    *why = what;
    return -1;
}

/* A database number (0 to 1000000) filling exactly n bytes. */
static int
parse_db_number(const char *s, size_t n, int *out)
{
    uint64_t v;

    if (safe_strntoull(s, n, &v) < 0 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

/* "host", "host:port", "[v6]:port". */
static int
parse_hostport(const char *target, struct uri *u, struct redis_target *t, const char **why)
{
    switch (uri_split_host(target, u)) {
    case URI_HOST_NO_CLOSE_BRACKET:
        return bad(why, "an IPv6 address needs its closing ']'");
    case URI_HOST_AFTER_BRACKET:
        return bad(why, "expected ':PORT' after ']'");
    case URI_HOST_OK:
        break;
    }
    if (u->host.len >= sizeof t->host)
        return bad(why, "the host name is too long");
    memcpy(t->host, target + u->host.off, u->host.len);
    t->host[u->host.len] = '\0';
    if (u->host.len == 0)
        snprintf(t->host, sizeof t->host, "127.0.0.1");
    t->port = RD_DEFAULT_PORT;
    if (u->has_port && uri_port(target, u->port, &t->port) < 0)
        return bad(why, "the port must be a number from 1 to 65535");
    return 0;
}

/* The path: "" or "/" or "/DB". */
static int
parse_db(const char *s, size_t n, struct redis_target *t, const char **why)
{
    if (n <= 1)
        return 0;
    if (parse_db_number(s + 1, n - 1, &t->db) < 0)
        return bad(why, "the database after '/' must be a number (e.g. /0)");
    return 0;
}

/* redis+unix: "/path" or "/path?db=N". */
static int
parse_socket(const char *target, const struct uri *u, struct redis_target *t, const char **why)
{
    const char *q = target + u->query.off;

    if (u->path.len == 0 || target[u->path.off] != '/')
        return bad(why,
                   "redis+unix:// takes an absolute socket path (redis+unix:///run/redis.sock)");
    if (u->path.len >= sizeof t->path)
        return bad(why, "the socket path is too long");
    memcpy(t->path, target + u->path.off, u->path.len);
    t->path[u->path.len] = '\0';
    if (u->has_query &&
        (strncmp(q, "db=", 3) != 0 || parse_db_number(q + 3, u->query.len - 3, &t->db) < 0))
        return bad(why, "the only parameter is ?db=N");
    return 0;
}

/* One rediss:// parameter, n bytes at target + off: cacert=PATH, insecure[=1|0]. */
static int
parse_tls_param(const char *target, size_t off, size_t n, struct redis_target *t, const char **why)
{
    const char *p = target + off;

    if (n == 8 && strncmp(p, "insecure", 8) == 0)
        t->insecure = 1;
    else if (n == 10 && strncmp(p, "insecure=", 9) == 0 && (p[9] == '0' || p[9] == '1'))
        t->insecure = p[9] == '1';
    else if (n > 7 && strncmp(p, "cacert=", 7) == 0)
        return uri_decode(target, (struct uri_span){off + 7, n - 7}, t->cacert, sizeof t->cacert) <
                       0
                   ? bad(why, "cacert= is too long or has a bad %-escape")
                   : 0;
    else
        return bad(why, "rediss:// takes ?cacert=PATH and insecure, joined by '&'");
    return 0;
}

/* rediss://'s query: its '&'-separated parameters. */
static int
parse_tls_query(const char *target, struct uri_span q, struct redis_target *t, const char **why)
{
    size_t at = q.off, end = q.off + q.len;

    while (at <= end) {
        const char *amp = memchr(target + at, '&', end - at);
        size_t n = amp != NULL ? (size_t)(amp - target) - at : end - at;
        if (parse_tls_param(target, at, n, t, why) < 0)
            return -1;
        at += n + 1;
    }
    return 0;
}

static int
parse_rest(const char *scheme, const char *target, struct redis_target *t, const char **why)
{
    struct uri u;

    uri_split(target, &u);
    if (u.has_userinfo && parse_userinfo(target, &u, t) < 0)
        return bad(why, "the user or password is too long or has a bad %-escape");
    if (strcmp(scheme, "redis+unix://") == 0) {
        if (u.authority.len != 0)
            return bad(why, "redis+unix:// takes no host: redis+unix:///path/to/redis.sock");
        return parse_socket(target, &u, t, why);
    }
    if (u.has_query && !t->tls)
        return bad(why, "redis:// takes no ?parameters (the database is /DB; cacert= and "
                        "insecure are for rediss://)");
    if (parse_hostport(target, &u, t, why) < 0 ||
        (u.has_query && parse_tls_query(target, u.query, t, why) < 0))
        return -1;
    return parse_db(target + u.path.off, u.path.len, t, why);
}

int
redis_target_parse(const char *target, struct redis_target *t, char *err)
{
    const char *scheme = uri_scheme_in(target, redis_schemes), *why = NULL;

    memset(t, 0, sizeof *t);
    if (scheme == NULL)
        return seterr(err, "not a redis target (use redis://HOST:PORT/DB)");
    t->tls = strcmp(scheme, "rediss://") == 0;
    if (parse_rest(scheme, target, t, &why) == 0)
        return 0;
    return target_invalid(target, redis_mask_target, why,
                          t->tls ? "(e.g. rediss://:PASSWORD@127.0.0.1:6380/0?cacert=/path/ca.crt)"
                                 : "(e.g. redis://:PASSWORD@127.0.0.1:6379/0)",
                          err);
}

void *
redis_target_new(const char *target, char *err)
{
    struct redis_target *t = xmalloc(sizeof *t);

    if (redis_target_parse(target, t, err) == 0)
        return t;
    free(t);
    return NULL;
}

void
redis_target_delete(void *t)
{
    explicit_bzero(t, sizeof(struct redis_target)); /* the password */
    free(t);
}

char *
redis_mask_target(const char *target)
{
    struct uri u;

    if (uri_scheme_in(target, redis_schemes) == NULL || uri_split(target, &u) < 0 ||
        !u.has_userinfo)
        return xstrdup(target);
    return uri_replace(target, password_span(&u), "***");
}

void
redis_target_where(const struct redis_target *t, char *out, size_t len)
{
    if (t->path[0] != '\0')
        snprintf(out, len, "%s", t->path);
    else if (strchr(t->host, ':') != NULL)
        snprintf(out, len, "[%s]:%d", t->host, t->port);
    else
        snprintf(out, len, "%s:%d", t->host, t->port);
}
