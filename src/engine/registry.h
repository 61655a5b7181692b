/* registry: the backends configure compiled in (collectors/registry.c). */
#ifndef BENCHTOP_REGISTRY_H
#define BENCHTOP_REGISTRY_H

#include "collector.h"
#include "driver.h"
#include "base/throwaway.h"

struct collector_class;

extern const struct driver_class *const driver_classes[];
extern const struct collector_class *const collector_classes[];
extern const struct server_class *const server_classes[];

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
