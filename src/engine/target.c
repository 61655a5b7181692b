/* target: a target string parsed once (see target.h). */
#include "target.h"

#include <stdlib.h>
#include <string.h>

#include "base/uri.h"
#include "base/util.h"
#include "registry.h"

/* Copies n bytes of s into buf (len with the NUL), cut to fit. */
static void
copy_span(char *buf, size_t len, const char *s, size_t n)
{
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

/* A scheme://user@host:port/path target: host, port, the socket or file path. */
static void
parse_uri(struct target *t, const char *raw, struct uri *u)
{
    if (uri_split_host(raw, u) != URI_HOST_OK)
        return; /* the driver names the mistake when it connects */
    copy_span(t->host, sizeof t->host, raw + u->host.off, u->host.len);
    if (!u->has_port || uri_port(raw, u->port, &t->port) < 0)
        t->port = 0;
    if (u->authority.len == 0 && u->path.len > 0)
        copy_span(t->path, sizeof t->path, raw + u->path.off, u->path.len);
}

/* A conninfo string ("host=... port=...") or a bare path. */
static void
parse_words(struct target *t, const char *raw)
{
    const char *h = strstr(raw, "host="), *p = strstr(raw, "port=");

    if (h != NULL)
        copy_span(t->host, sizeof t->host, h + 5, strcspn(h + 5, " \t"));
    if (p != NULL)
        t->port = atoi(p + 5);
    if (t->host[0] == '/')
        copy_span(t->path, sizeof t->path, t->host, strlen(t->host));
    else if (raw[0] == '/')
        copy_span(t->path, sizeof t->path, raw, strlen(raw));
}

int
target_parse(struct target *t, const char *raw, char *err)
{
    const struct driver_class *drv = driver_for_target(raw);
    struct uri u;

    memset(t, 0, sizeof *t);
    t->raw = xstrdup(raw);
    t->driver = drv;
    t->masked = drv != NULL ? drv->mask(raw) : uri_mask(raw);
    t->scheme = drv != NULL ? uri_scheme_in(raw, drv->schemes) : NULL;
    t->collector = watch_collector_for(raw);
    t->local = uri_is_local(raw);
    if (uri_split(raw, &u) == 0)
        parse_uri(t, raw, &u);
    else
        parse_words(t, raw);
    err[0] = '\0';
    if (drv == NULL)
        return -1;
    if (drv->parse != NULL && (t->parsed = drv->parse(raw, err)) == NULL)
        return -1;
    return 0;
}

int
target_invalid(const char *raw, char *(*mask)(const char *), const char *why, const char *hint,
               char *err)
{
    char *masked = mask(raw);

    seterr(err, "invalid target '%s': %s %s", masked, why, hint);
    free(masked);
    return -1;
}

void
target_free(struct target *t)
{
    if (t->parsed != NULL)
        t->driver->free_parsed(t->parsed);
    if (t->raw != NULL)
        free_secret(t->raw);
    free(t->masked);
    memset(t, 0, sizeof *t);
}
