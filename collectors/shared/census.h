/*
 * census: what `benchtop inspect` counts the same way for every key-value
 * server (Redis, memcached): keys and bytes by prefix (the name up to the
 * first separator, a bounded table with an "(other)" row) and the
 * distribution of time to live in fixed buckets. Pure.
 */
#ifndef BENCHTOP_CENSUS_H
#define BENCHTOP_CENSUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
    CENSUS_KEY_SHOWN = 128, /* bytes of a name kept for the report */
    CENSUS_PREFIXES = 256,  /* more distinct prefixes than this go to "(other)" */
    CENSUS_NTTL = 6,
};

struct census_prefix {
    char name[CENSUS_KEY_SHOWN];
    uint64_t keys;
    double bytes;
};

struct census_prefixes {
    int n;
    struct census_prefix p[CENSUS_PREFIXES + 1]; /* the last: "(other)" */
};

/* "no TTL", "< 1 min", ... ">= 1 week": the buckets' names, for text and JSON. */
extern const char *const census_ttl_names[CENSUS_NTTL];

/* The bucket of a time to live in seconds; negative: no TTL (bucket 0). */
int census_ttl_bucket(double secs);

/* Counts a key of len bytes and its bytes under its prefix: the name up to sep, else "(no SEP)". */
void census_prefix_add(struct census_prefixes *t, const char *key, size_t len, const char *sep,
                       double bytes);

/* Biggest bytes first. */
void census_prefix_sort(struct census_prefixes *t);

/* The table as text: a heading naming sep, then a line per prefix, its share of total bytes. */
void census_prefix_text(FILE *f, const struct census_prefixes *t, const char *sep, double total);
/* The table as a JSON member: ,"prefixes":[{"prefix":...,"keys":N,"bytes":N}...]. */
void census_prefix_json(FILE *f, const struct census_prefixes *t);
/* The TTL buckets as text ("  no TTL  12 keys" lines) and as a JSON member ,"ttl":{...}. */
void census_ttl_text(FILE *f, const uint64_t *ttl);
void census_ttl_json(FILE *f, const uint64_t *ttl);

#endif
