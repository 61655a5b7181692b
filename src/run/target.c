/*
 * target: a target's password masked and kept out of `ps`; its port (the
 * lookups by scheme are in engine/registry.c).
 */
#include "engine/registry.h"
#include "target.h"
#include "base/uri.h"

#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

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
