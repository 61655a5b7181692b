/*
 * registry: the lookups over the backends configure compiled in (the
 * arrays are collectors/registry.c's). The only place above collectors/
 * that walks them.
 */
#include "registry.h"

#include <stdio.h>
#include <string.h>

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

const struct server_class *
server_class_find(const char *name)
{
    for (const struct server_class *const *c = server_classes; *c != NULL; c++)
        if (strcmp((*c)->name, name) == 0 ||
            ((*c)->demo_name != NULL && strcmp((*c)->demo_name, name) == 0))
            return *c;
    return NULL;
}
