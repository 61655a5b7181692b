/*
 * registry: the database backends compiled in. configure decides which
 * files are built; this is the one place that lists their classes, and
 * the arrays stay here: others walk them by position (engine/registry.h).
 */
#include "config.h"

#include <stddef.h>

#include "engine/collector.h"
#include "engine/driver.h"
#include "engine/registry.h"
#include "base/throwaway.h"

#ifdef HAVE_POSTGRES
extern const struct driver_class postgres_driver_class;
extern const struct server_class postgres_server_class;
extern const struct collector_class postgres_collector_class;
extern const struct server_class pgbouncer_server_class;
extern const struct collector_class pgbouncer_collector_class;
#endif
#ifdef HAVE_REDIS
extern const struct driver_class redis_driver_class;
extern const struct server_class redis_server_class;
extern const struct server_class redis_cluster_server_class;
extern const struct server_class redis_cluster_replicas_server_class;
extern const struct server_class redis_cluster_tls_server_class;
extern const struct collector_class redis_collector_class;
#endif
#ifdef HAVE_MEMCACHED
extern const struct driver_class memcached_driver_class;
extern const struct server_class memcached_server_class;
extern const struct collector_class memcached_collector_class;
#endif
#ifdef HAVE_SQLITE
extern const struct driver_class sqlite_driver_class;
extern const struct collector_class sqlite_collector_class;
#endif
#ifdef HAVE_HTTP
extern const struct driver_class http_driver_class;
extern const struct driver_class https_driver_class;
extern const struct server_class nginx_server_class;
extern const struct collector_class webstatus_collector_class;
#endif
#ifdef HAVE_MYSQL
extern const struct driver_class mysql_driver_class;
extern const struct collector_class mysql_collector_class;
extern const struct server_class mysql_server_class;
#endif

static const struct driver_class *const driver_classes[] = {
#ifdef HAVE_POSTGRES
    &postgres_driver_class,
#endif
#ifdef HAVE_MYSQL
    &mysql_driver_class,
#endif
#ifdef HAVE_REDIS
    &redis_driver_class,
#endif
#ifdef HAVE_MEMCACHED
    &memcached_driver_class,
#endif
#ifdef HAVE_SQLITE
    &sqlite_driver_class,
#endif
#ifdef HAVE_HTTP
    &http_driver_class,
    &https_driver_class,
#endif
    NULL,
};

static const struct server_class *const server_classes[] = {
#ifdef HAVE_POSTGRES
    &postgres_server_class,
    &pgbouncer_server_class,
#endif
#ifdef HAVE_MYSQL
    &mysql_server_class,
#endif
#ifdef HAVE_REDIS
    &redis_server_class,
    &redis_cluster_server_class,
    &redis_cluster_replicas_server_class,
    &redis_cluster_tls_server_class,
#endif
#ifdef HAVE_MEMCACHED
    &memcached_server_class,
#endif
#ifdef HAVE_HTTP
    &nginx_server_class,
#endif
    NULL,
};

/* Found by the driver's name (collector.h). */
static const struct collector_class *const collector_classes[] = {
#ifdef HAVE_POSTGRES
    &postgres_collector_class,
    &pgbouncer_collector_class,
#endif
#ifdef HAVE_REDIS
    &redis_collector_class,
#endif
#ifdef HAVE_MEMCACHED
    &memcached_collector_class,
#endif
#ifdef HAVE_MYSQL
    &mysql_collector_class,
#endif
#ifdef HAVE_SQLITE
    &sqlite_collector_class,
#endif
#ifdef HAVE_HTTP
    &webstatus_collector_class,
#endif
    NULL,
};

/* The arrays' last element is their NULL. */
const struct driver_class *
driver_class_at(size_t i)
{
    return i < sizeof driver_classes / sizeof driver_classes[0] ? driver_classes[i] : NULL;
}

const struct collector_class *
collector_class_at(size_t i)
{
    return i < sizeof collector_classes / sizeof collector_classes[0] ? collector_classes[i] : NULL;
}

const struct server_class *
server_class_at(size_t i)
{
    return i < sizeof server_classes / sizeof server_classes[0] ? server_classes[i] : NULL;
}
