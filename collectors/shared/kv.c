/* kv: see kv.h. */
#include "kv.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/optdef.h"
#include "base/progress.h"
#include "base/util.h"

#define KV_OFF(field) offsetof(struct kv_conf, field)

static const struct option_def kv_defs[] = {
    {"keys", 0, OPT_LLONG, KV_OFF(keys), 1, 1e12, "100000", "N", CMD_LOAD, "size of the key space"},
    {"key-pattern", 0, OPT_STRING, KV_OFF(key_pattern), 0, 0, "uniform", "P", CMD_LOAD,
     "how keys are drawn: seq, uniform or zipf"},
    {"value-size", 0, OPT_INT, KV_OFF(value_size), 1, 64 << 20, "32", "BYTES", CMD_LOAD,
     "bytes per value written"},
    {"ratio", 0, OPT_STRING, KV_OFF(ratio), 0, 0, "", "SET:GET", CMD_LOAD,
     "mix of the mixed workload (redis 1:10, memcached 1:9)"},
    {"fill", 0, OPT_FLAG, KV_OFF(fill), 0, 1, "0", "", CMD_LOAD,
     "write every key once before the run"},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL},
};

const struct option_group kv_options = {"key-value", kv_defs, NULL};

static const char *const kv_patterns[] = {"seq", "uniform", "zipf", NULL};

/* "SET:GET": two numbers (fractions too, as memaslap's), not both 0, into the chance of a SET. */
static int
parse_ratio(const char *s, double *set_p)
{
    const char *colon = strchr(s, ':');
    double set, get;

    if (colon == NULL || safe_strntod(s, (size_t)(colon - s), &set) < 0 ||
        safe_strtod(colon + 1, &get) < 0 || !(set >= 0) || !(get >= 0) || set + get <= 0 ||
        set + get > 1e12)
        return -1;
    *set_p = set / (set + get);
    return 0;
}

int
kv_setup(struct kv_workload *w, const struct kv_conf *c, int clients, int mixed,
         const char *default_ratio, char *err)
{
    const char *ratio = c->ratio ? c->ratio : default_ratio;
    int p = str_index(kv_patterns, c->key_pattern ? c->key_pattern : "uniform");

    memset(w, 0, sizeof *w);
    if (p < 0)
        return seterr(err, "unknown key pattern '%s' (use --key-pattern seq, uniform or zipf)",
                      c->key_pattern);
    if (c->ratio != NULL && !mixed)
        return seterr(err, "--ratio applies to -w mixed only (add -w mixed or drop --ratio)");
    if (parse_ratio(ratio, &w->set_p) < 0)
        return seterr(err,
                      "--ratio takes SET:GET, two numbers that are not both 0, not '%s' "
                      "(e.g. --ratio %s)",
                      ratio, default_ratio);
    w->pattern = (enum kv_pattern)p;
    w->keys = (uint64_t)c->keys; /* at least 1: the option's range */
    w->clients = clients > 0 ? clients : 1;
    if (w->pattern == KV_KP_ZIPF)
        zipf_init(&w->zipf, w->keys, ZIPF_THETA);
    w->value_size = (size_t)c->value_size;
    w->value = xmalloc(w->value_size + 3);
    memset(w->value, 'x', w->value_size);
    memcpy(w->value + w->value_size, "\r\n", 3);
    return 0;
}

void
kv_release(struct kv_workload *w)
{
    free(w->value);
    w->value = NULL;
}

uint64_t
kv_first_key(const struct kv_workload *w, int client_id)
{
    return (uint64_t)(client_id % w->clients) * w->keys / (uint64_t)w->clients;
}

int
kv_fill(const struct kv_workload *w, uint64_t batch, int quiet,
        int (*write_batch)(void *ctx, uint64_t first, uint64_t n, char *err), void *ctx, char *err)
{
    struct progress p;
    uint64_t k, n, start = now_us();

    progress_start(&p, "fill", (int64_t)w->keys, quiet);
    for (k = 0; k < w->keys; k += n) {
        n = w->keys - k < batch ? w->keys - k : batch;
        if (write_batch(ctx, k, n, err) < 0)
            return -1;
        progress_show(&p, (int64_t)(k + n));
    }
    if (!quiet)
        fprintf(stderr, "fill: %llu keys of %zu bytes in %.1f s\n", (unsigned long long)w->keys,
                w->value_size, (double)(now_us() - start) / 1e6);
    return 0;
}
