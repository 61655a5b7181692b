/*
 * target: which driver a target string belongs to, and keeping its
 * password out of `ps`.
 */
#include "engine/registry.h"
#include "target.h"
#include "base/uri.h"

#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

const struct driver_class *
driver_for_target(const char *target)
{
    const struct driver_class *const *d;
    const char *const *s;

    for (d = driver_classes; *d != NULL; d++)
        for (s = (*d)->schemes; *s != NULL; s++)
            if (strncmp(target, *s, strlen(*s)) == 0)
                return *d;
    for (d = driver_classes; *d != NULL; d++)
        if ((*d)->claims != NULL && (*d)->claims(target))
            return *d;
    return NULL;
}

void
target_scrub_arg(char *arg, const char *masked)
{
    size_t n = strlen(arg), m = strlen(masked);

    if (strcmp(arg, masked) == 0)
        return;
    if (m <= n) {
        memcpy(arg, masked, m);
        memset(arg + m, '\0', n - m);
    } else {
        memset(arg, '*', n);
    }
}

void
target_known_schemes(char *buf, size_t len)
{
    const struct driver_class *const *d;
    size_t used = 0;

    buf[0] = '\0';
    for (d = driver_classes; *d != NULL && used < len; d++)
        used +=
            (size_t)snprintf(buf + used, len - used, "%s%s...", used ? ", " : "", (*d)->schemes[0]);
}

const struct collector_class *
collector_for(const char *name)
{
    const struct collector_class *const *c;

    for (c = collector_classes; *c != NULL; c++)
        if (strcmp((*c)->name, name) == 0)
            return *c;
    return NULL;
}

const struct collector_class *
pooler_for(const char *driver_name)
{
    const struct collector_class *const *c;

    for (c = collector_classes; *c != NULL; c++)
        if ((*c)->pools != NULL && strcmp((*c)->pools, driver_name) == 0)
            return *c;
    return NULL;
}

const struct collector_class *
watch_collector_for(const char *target)
{
    const struct collector_class *const *c;
    const struct driver_class *drv;

    for (c = collector_classes; *c != NULL; c++)
        if ((*c)->claims != NULL && (*c)->claims(target))
            return *c;
    drv = driver_for_target(target);
    return drv ? collector_for(drv->name) : NULL;
}

char *
target_mask(const char *target)
{
    const struct driver_class *drv = driver_for_target(target);
    struct uri u;

    if (drv != NULL)
        return drv->mask(target);
    if (uri_split(target, &u) < 0)
        return NULL;
    return u.has_password ? uri_replace(target, u.password, "***") : xstrdup(target);
}

int
target_port(const char *target)
{
    const char *p;
    struct uri u;
    int port;

    if (uri_split(target, &u) == 0)
        return uri_split_host(target, &u) == URI_HOST_OK && u.has_port &&
                       uri_port(target, u.port, &port) == 0
                   ? port
                   : 0;
    p = strstr(target, "port=");
    return p ? atoi(p + 5) : 0;
}
