/*
 * kv: the key-value workload, apart from any protocol, as memtier_benchmark's
 * object generator serves every protocol. The Redis and memcached drivers
 * both take its option group (--keys, --key-pattern, --value-size, --ratio,
 * --pipeline, --fill) and draw from it: which key next (seq, uniform, zipf),
 * whether a mixed request is a SET, the key's digits, the value's bytes,
 * and the --fill loop with its progress. Nothing here allocates per request.
 */
#ifndef BENCHTOP_KV_H
#define BENCHTOP_KV_H

#include <stddef.h>
#include <stdint.h>

#include "base/rand.h"
#include "base/zipf.h"

/* Every key is this prefix and a fixed number of digits, so a request's length never changes. */
#define KV_KEY_PREFIX "key:"
#define KV_KEY_PREFIX_LEN 4

/* The key-value options (kv_options), as parsed. */
struct kv_conf {
    long long keys;    /* --keys: the key space, keys 0 .. keys-1 */
    char *key_pattern; /* --key-pattern: seq, uniform or zipf */
    int value_size;    /* --value-size: bytes per value written */
    char *ratio;       /* --ratio SET:GET; NULL: the driver's default */
    int pipeline;      /* --pipeline (batch.h's group, listed at this field's offset) */
    int fill;          /* --fill: write every key once before the run */
};

extern const struct option_group kv_options;

enum kv_pattern { KV_KP_SEQ, KV_KP_UNIFORM, KV_KP_ZIPF };

/* The workload, read-only once kv_setup returned: every connection of every thread shares it. */
struct kv_workload {
    enum kv_pattern pattern;
    uint64_t keys;
    int clients;
    double set_p; /* -w mixed: the chance that a request is a SET */
    struct zipf zipf;
    char *value; /* value_size bytes of 'x' (redis-benchmark's filler), then "\r\n" */
    size_t value_size;
};

/*
 * From the options: mixed says whether the workload is -w mixed (the only
 * one --ratio applies to), default_ratio its mix when --ratio is not given
 * ("1:10"). 0, or -1 with a one-line "problem (fix)" in err.
 */
int kv_setup(struct kv_workload *w, const struct kv_conf *c, int clients, int mixed,
             const char *default_ratio, char *err);
void kv_release(struct kv_workload *w);

/* Where connection client_id starts in the key space (seq: connections spread evenly). */
uint64_t kv_first_key(const struct kv_workload *w, int client_id);

/* Per request, so inline: as cheap as when each driver had its own copy. */

/* The next key for a connection whose seq position is *seq. */
static inline uint64_t
kv_next_key(const struct kv_workload *w, uint64_t *seq, struct rng *rng)
{
    uint64_t k;

    switch (w->pattern) {
    case KV_KP_SEQ:
        k = *seq;
        *seq = k + 1 >= w->keys ? 0 : k + 1;
        return k;
    case KV_KP_ZIPF:
        return zipf_next(&w->zipf, rng);
    case KV_KP_UNIFORM:
        break;
    }
    return (uint64_t)rng_range(rng, 0, (int64_t)w->keys - 1);
}

/* -w mixed: 1 if the next request is a SET, 0 for a GET. */
static inline int
kv_next_is_set(const struct kv_workload *w, struct rng *rng)
{
    return rng_double(rng) < w->set_p;
}

/* Writes key's last `digits` decimal digits at dst, zero-padded. */
static inline void
kv_put_digits(char *dst, int digits, uint64_t key)
{
    int i;

    for (i = digits - 1; i >= 0; i--) {
        dst[i] = (char)('0' + key % 10);
        key /= 10;
    }
}

/*
 * --fill: writes keys 0 .. keys-1 through write_batch(ctx, first, n, err),
 * at most `batch` keys per call, with progress on stderr (unless quiet) and
 * a last line "fill: N keys of B bytes in S s". 0, or -1 with err.
 */
int kv_fill(const struct kv_workload *w, uint64_t batch, int quiet,
            int (*write_batch)(void *ctx, uint64_t first, uint64_t n, char *err), void *ctx,
            char *err);

#endif
