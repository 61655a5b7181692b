/*
 * registry: the lookups over the backends configure compiled in (the
 * arrays are collectors/registry.c's, reached by position through
 * driver_class_at and its kin).
 */
#include "registry.h"

#include <stdio.h>
#include <string.h>

const struct driver_class *
driver_for_target(const char *target)
{
    const struct driver_class *d;
    const char *const *s;
    size_t i;

    for (i = 0; (d = driver_class_at(i)) != NULL; i++)
        for (s = d->schemes; *s != NULL; s++)
            if (strncmp(target, *s, strlen(*s)) == 0)
                return d;
    for (i = 0; (d = driver_class_at(i)) != NULL; i++)
        if (d->claims != NULL && d->claims(target))
            return d;
    return NULL;
}

int
driver_class_index(const struct driver_class *drv)
{
    const struct driver_class *d;
    size_t i;

    for (i = 0; (d = driver_class_at(i)) != NULL; i++)
        if (d == drv)
            return (int)i;
    return -1;
}

const struct collector_class *
collector_for(const char *name)
{
    const struct collector_class *c;
    size_t i;

    for (i = 0; (c = collector_class_at(i)) != NULL; i++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

const struct collector_class *
pooler_for(const char *driver_name)
{
    const struct collector_class *c;
    size_t i;

    for (i = 0; (c = collector_class_at(i)) != NULL; i++)
        if (c->pools != NULL && strcmp(c->pools, driver_name) == 0)
            return c;
    return NULL;
}

const struct collector_class *
watch_collector_for(const char *target)
{
    const struct collector_class *c;
    const struct driver_class *drv;
    size_t i;

    for (i = 0; (c = collector_class_at(i)) != NULL; i++)
        if (c->claims != NULL && c->claims(target))
            return c;
    drv = driver_for_target(target);
    return drv ? collector_for(drv->name) : NULL;
}

void
target_known_schemes(char *buf, size_t len)
{
    const struct driver_class *d;
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; (d = driver_class_at(i)) != NULL && used < len; i++)
        used +=
            (size_t)snprintf(buf + used, len - used, "%s%s...", used ? ", " : "", d->schemes[0]);
}

const struct server_class *
server_class_find(const char *name)
{
    const struct server_class *c;
    size_t i;

    for (i = 0; (c = server_class_at(i)) != NULL; i++)
        if (strcmp(c->name, name) == 0 || (c->demo_name != NULL && strcmp(c->demo_name, name) == 0))
            return c;
    return NULL;
}
