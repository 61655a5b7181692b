/* registry: the backends configure compiled in (collectors/registry.c). */
#ifndef BENCHTOP_REGISTRY_H
#define BENCHTOP_REGISTRY_H

#include <stddef.h>

#include "collector.h"
#include "driver.h"
#include "base/throwaway.h"

struct collector_class;

/*
 * The classes compiled in, by position in the registry's order (its
 * arrays are collectors/registry.c's own): NULL past the last, so
 * `for (i = 0; (d = driver_class_at(i)) != NULL; i++)` walks them all.
 */
const struct driver_class *driver_class_at(size_t i);
const struct collector_class *collector_class_at(size_t i);
const struct server_class *server_class_at(size_t i);

/* drv's position (driver_class_at(i) == drv), for tables kept per driver; -1 if none. */
int driver_class_index(const struct driver_class *drv);

/* The collector with this name (the driver's name), or NULL. */
const struct collector_class *collector_for(const char *name);

/* The collector of a pooler in front of the named driver's servers, or NULL. */
const struct collector_class *pooler_for(const char *driver_name);

/*
 * The collector that reads a --watch target: a class that claims it (an
 * application tier's status URL), else its driver's collector; NULL if none.
 */
const struct collector_class *watch_collector_for(const char *target);

/* The driver for a target (by URI scheme, then by claims()), or NULL. */
const struct driver_class *driver_for_target(const char *target);

/* "postgres://..., redis://..." for error messages. */
void target_known_schemes(char *buf, size_t len);

/* The throwaway server class by name or demo_name (NULL if not compiled in). */
const struct server_class *server_class_find(const char *name);

#endif
