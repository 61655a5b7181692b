/*
 * census: keys by prefix and TTL buckets for `benchtop inspect`, shared by
 * the Redis and memcached inspectors so both reports read alike.
 */
#include "census.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/text.h"
#include "base/units.h"

const char *const census_ttl_names[CENSUS_NTTL] = {"no TTL",  "< 1 min",  "< 1 hour",
                                                   "< 1 day", "< 1 week", ">= 1 week"};
static const double ttl_limits_s[CENSUS_NTTL - 1] = {0, 60, 3600, 86400, 604800};

int
census_ttl_bucket(double secs)
{
    int b = 1;

    if (secs < 0)
        return 0;
    while (b < CENSUS_NTTL - 1 && secs >= ttl_limits_s[b])
        b++;
    return b;
}

static struct census_prefix *
prefix_find(struct census_prefixes *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->p[i].name, name) == 0)
            return &t->p[i];
    if (t->n == CENSUS_PREFIXES) {
        snprintf(t->p[CENSUS_PREFIXES].name, CENSUS_KEY_SHOWN, "(other)");
        return &t->p[CENSUS_PREFIXES];
    }
    snprintf(t->p[t->n].name, CENSUS_KEY_SHOWN, "%s", name);
    return &t->p[t->n++];
}

void
census_prefix_add(struct census_prefixes *t, const char *key, size_t len, const char *sep,
                  double bytes)
{
    const char *end = memmem(key, len, sep, strlen(sep));
    size_t n = end ? (size_t)(end - key) : len;
    char name[CENSUS_KEY_SHOWN];
    struct census_prefix *p;

    if (end == NULL)
        snprintf(name, sizeof name, "(no %s)", sep);
    else
        snprintf(name, sizeof name, "%.*s", (int)(n < CENSUS_KEY_SHOWN ? n : CENSUS_KEY_SHOWN - 1),
                 key);
    p = prefix_find(t, name);
    p->keys++;
    p->bytes += bytes;
}

static int
by_bytes(const void *a, const void *b)
{
    const struct census_prefix *x = a, *y = b;

    return x->bytes > y->bytes ? -1 : x->bytes < y->bytes;
}

void
census_prefix_sort(struct census_prefixes *t)
{
    qsort(t->p, (size_t)t->n, sizeof t->p[0], by_bytes);
}

void
census_prefix_text(FILE *f, const struct census_prefixes *t, const char *sep, double total)
{
    char b[32], clean[CENSUS_KEY_SHOWN * 4];

    fprintf(f, "memory by prefix (up to the first '%s'):\n", sep);
    for (int i = 0; i <= CENSUS_PREFIXES; i++)
        if (t->p[i].keys > 0) {
            text_clean(clean, sizeof clean, t->p[i].name);
            units_iec(b, sizeof b, t->p[i].bytes, "");
            fprintf(f, "  %-40s %10llu keys %12s %5.1f%%\n", clean,
                    (unsigned long long)t->p[i].keys, b,
                    total > 0 ? 100 * t->p[i].bytes / total : 0);
        }
}

void
census_prefix_json(FILE *f, const struct census_prefixes *t)
{
    fprintf(f, ",\"prefixes\":[");
    for (int i = 0, n = 0; i <= CENSUS_PREFIXES; i++)
        if (t->p[i].keys > 0) {
            fprintf(f, "%s{\"prefix\":", n++ ? "," : "");
            json_put_string(f, t->p[i].name);
            fprintf(f, ",\"keys\":%llu,\"bytes\":%.0f}", (unsigned long long)t->p[i].keys,
                    t->p[i].bytes);
        }
    fputc(']', f);
}

void
census_ttl_text(FILE *f, const uint64_t *ttl)
{
    fprintf(f, "TTL:\n");
    for (int i = 0; i < CENSUS_NTTL; i++)
        fprintf(f, "  %-10s %10llu keys\n", census_ttl_names[i], (unsigned long long)ttl[i]);
}

void
census_ttl_json(FILE *f, const uint64_t *ttl)
{
    fprintf(f, ",\"ttl\":{");
    for (int i = 0; i < CENSUS_NTTL; i++)
        fprintf(f, "%s\"%s\":%llu", i ? "," : "", census_ttl_names[i], (unsigned long long)ttl[i]);
    fputc('}', f);
}
