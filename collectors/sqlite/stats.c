/*
 * sqlite/stats: the counters SQLite load connections publish for the
 * collector (see sqlite.h). One struct per database file, found by path in
 * a short list under a mutex (taken at attach, detach and read: once per
 * connection and once per sample, never per transaction); the counters
 * themselves are relaxed atomics added once per transaction.
 */
#include "sqlite.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct sqlite_stats {
    struct sqlite_stats *next;
    char path[PATH_MAX];
    int refs;
    struct sqlite_counts c;
};

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sqlite_stats *stats_list;

static struct sqlite_stats *
find(const char *path)
{
    struct sqlite_stats *st;

    for (st = stats_list; st != NULL; st = st->next)
        if (strcmp(st->path, path) == 0)
            return st;
    return NULL;
}

/* The counters as an array, so that adding and copying need no list of fields. */
enum { NCOUNTS = sizeof(struct sqlite_counts) / sizeof(uint64_t) };

static uint64_t *
counts_array(struct sqlite_counts *c)
{
    return (uint64_t *)c;
}

struct sqlite_stats *
sqlite_stats_attach(const char *path)
{
    struct sqlite_stats *st;

    pthread_mutex_lock(&stats_lock);
    st = find(path);
    if (st == NULL) {
        st = xcalloc(1, sizeof *st);
        snprintf(st->path, sizeof st->path, "%s", path);
        st->next = stats_list;
        stats_list = st;
    }
    st->refs++;
    __atomic_add_fetch(&st->c.conns, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&stats_lock);
    return st;
}

/* The struct stays listed at zero references: a later run or the collector still finds its totals.
 */
void
sqlite_stats_detach(struct sqlite_stats *st)
{
    if (st == NULL)
        return;
    pthread_mutex_lock(&stats_lock);
    st->refs--;
    __atomic_sub_fetch(&st->c.conns, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&stats_lock);
}

void
sqlite_stats_add(struct sqlite_stats *st, const struct sqlite_counts *d)
{
    uint64_t *to = counts_array(&st->c);
    const uint64_t *from = (const uint64_t *)d;

    for (size_t i = 1; i < NCOUNTS; i++) /* [0] is conns, a gauge kept by attach/detach */
        if (from[i] != 0)
            __atomic_add_fetch(&to[i], from[i], __ATOMIC_RELAXED);
}

int
sqlite_stats_read(const char *path, struct sqlite_counts *out)
{
    struct sqlite_stats *st;
    uint64_t *to = counts_array(out);

    pthread_mutex_lock(&stats_lock);
    st = find(path);
    if (st != NULL)
        for (size_t i = 0; i < NCOUNTS; i++)
            to[i] = __atomic_load_n(&counts_array(&st->c)[i], __ATOMIC_RELAXED);
    pthread_mutex_unlock(&stats_lock);
    return st != NULL ? 0 : -1;
}
