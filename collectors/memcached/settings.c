/*
 * memcached/settings: the memcached settings that matter for tuning, from
 * `stats settings` (one round trip per sample). memcached cannot be
 * reconfigured over its protocol apart from a few slab and LRU commands,
 * so the class sets nothing; a change made with those still shows.
 */
#include "memcached.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/collector.h"

static const char *const names[] = {
    "maxbytes",
    "maxconns",
    "num_threads",
    "growth_factor",
    "chunk_size",
    "item_size_max",
    "slab_chunk_max",
    "evictions",
    "cas_enabled",
    "tcp_backlog",
    "binding_protocol",
    "reqs_per_event",
    "hashpower_init",
    "slab_reassign",
    "slab_automove",
    "lru_crawler",
    "lru_maintainer_thread",
    "hot_lru_pct",
    "warm_lru_pct",
    "temp_lru",
    "idle_timeout",
    "tail_repair_time",
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

/* "STAT name value" lines; the value is the rest of the line (it may hold spaces). */
void
mc_settings_parse(const char *text, size_t len, struct coll_settings *out)
{
    struct coll_settings all = {0};
    const char *p = text, *end = text + len;
    size_t i;

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *sp;
        char name[40], value[64];
        int nl, vl;

        eol = eol ? eol : end;
        if (eol - p > 5 && memcmp(p, "STAT ", 5) == 0 &&
            (sp = memchr(p + 5, ' ', (size_t)(eol - p - 5))) != NULL) {
            nl = (int)(sp - p - 5);
            vl = (int)(eol - sp - 1 - (eol > sp + 1 && eol[-1] == '\r'));
            snprintf(name, sizeof name, "%.*s", nl, p + 5);
            snprintf(value, sizeof value, "%.*s", vl, sp + 1);
            for (i = 0; i < NNAMES; i++)
                if (strcmp(names[i], name) == 0)
                    coll_setting_add(&all, name, value);
        }
        p = eol + 1;
    }
    for (i = 0; i < NNAMES; i++) {
        const char *v = coll_setting_get(&all, names[i]);
        if (v != NULL)
            coll_setting_add(out, names[i], v);
    }
}

int
mc_settings_read(int fd, const struct mc_addr *a, struct coll_settings *out, char *err)
{
    char *reply;
    size_t len;

    if (mc_stats_roundtrip(fd, a, "stats settings\r\n", &reply, &len, err) < 0)
        return -1;
    mc_settings_parse(reply, len, out);
    free(reply);
    return 0;
}
