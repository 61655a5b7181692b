/*
 * redis/inspect: `benchtop inspect redis://...`, the jobs of redis-cli
 * --bigkeys, --memkeys and --hotkeys in one pass that never blocks the
 * server: SCAN with COUNT, then per batch of keys one pipeline of O(1)
 * commands (TYPE, and for the first --sample keys PTTL, MEMORY USAGE with
 * its default sampling, OBJECT FREQ under an LFU policy) and one of lengths
 * (STRLEN, LLEN, SCARD, ZCARD, HLEN, XLEN). Every key gets its type and
 * length, as --bigkeys does, so the biggest keys are found whatever the
 * sample; MEMORY USAGE of the keys outside the sample is asked only for
 * each type's biggest by length, at the end. The scan is paced by its own
 * SCAN's round trip: a slower server gets smaller batches and longer
 * pauses. It stops at the time budget and says so.
 */
#include "redis.h"
#include "collectors/shared/census.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/collector.h"
#include "engine/target.h"
#include "base/json.h"
#include "base/progress.h"
#include "base/text.h"
#include "base/units.h"
#include "base/util.h"

enum {
    SCAN_COUNT = 200,    /* most keys a SCAN step asks for: each step is short for the server */
    SCAN_COUNT_MIN = 10, /* fewest, as redis-cli --bigkeys asks for */
    TOP_N = 10,
    NAME_MAX_KEPT = 1024, /* a candidate's name kept whole, for its MEMORY USAGE at the end */
    KEY_SHOWN = CENSUS_KEY_SHOWN,
    TIMEOUT_MS = 5000,
};

enum rd_type { T_STRING, T_LIST, T_SET, T_ZSET, T_HASH, T_STREAM, T_OTHER, NTYPES };

static const char *const type_names[NTYPES] = {"string", "list",   "set",  "zset",
                                               "hash",   "stream", "other"};
static const char *const len_cmds[NTYPES] = {"STRLEN", "LLEN", "SCARD", "ZCARD",
                                             "HLEN",   "XLEN", NULL};

struct top {
    char key[KEY_SHOWN];
    double n;
    int type;
};

/* A type's biggest key by length, its whole name kept for MEMORY USAGE at the end. */
struct candidate {
    char name[NAME_MAX_KEPT];
    size_t len;
    double n;
};

/*
 * The scan's pace: SCAN is a tiny request, so its round trip is the
 * server's latency as another client sees it. Above PACE_SLOW_MS (or thrice
 * the quickest seen) the batch halves and the scan waits that round trip and
 * the batch's time; below, the batch grows and the scan waits as long as the
 * batch took, so it holds the server at most half the time, as redis-cli
 * --bigkeys's serial round trips do (on a 1M-key server on a loaded 2-core
 * host, waiting half the batch's time peaked at 366 ms against --bigkeys's
 * 302 ms).
 */
struct pace {
    int count;                       /* keys the next SCAN asks for */
    double base_ms, max_ms, wait_ms; /* quickest and slowest SCAN, time spent waiting */
    uint64_t slow;                   /* SCANs above the threshold */
};

#define PACE_SLOW_MS 5.0
#define PACE_WAIT_MAX_MS 200.0

struct census {
    uint64_t seen, dbsize, passed; /* keys in the sample, in the database, given type and length */
    uint64_t type_keys[NTYPES];    /* of every key passed, as the elements */
    double type_bytes[NTYPES], type_elems[NTYPES], bytes; /* bytes: of the sample */
    struct candidate cand[NTYPES][TOP_N];
    struct pace pace;
    struct top by_elems[TOP_N], by_mem[TOP_N], by_freq[TOP_N];
    struct census_prefixes prefixes;
    uint64_t ttl[CENSUS_NTTL];
    char policy[32];
    int lfu, budget_hit, sample_hit;
    int signo;   /* the signal that stopped the scan (inspect blocks them), else 0 */
    int masters; /* a cluster node's: the cluster's masters (CLUSTER SLOTS); 0 standalone */
    double secs;
    redisReply *keyspace; /* INFO keyspace */
};

/* One key of a batch, as the pipeline answered. */
struct key_facts {
    const char *name;
    size_t len;
    int type, full; /* full: in the sample, with PTTL, MEMORY USAGE, OBJECT FREQ */
    double pttl, bytes, elems, freq;
};

static int
type_of(const char *s)
{
    for (int i = 0; i < T_OTHER; i++)
        if (strcmp(s, type_names[i]) == 0)
            return i;
    return T_OTHER;
}

static double
reply_num(const redisReply *r)
{
    return r != NULL && r->type == REDIS_REPLY_INTEGER ? (double)r->integer : NAN;
}

/* Keeps the n biggest, biggest first. */
static void
top_add(struct top *t, const struct key_facts *k, double n)
{
    int i = TOP_N - 1;

    if (isnan(n) || n <= t[i].n)
        return;
    for (; i > 0 && t[i - 1].n < n; i--)
        t[i] = t[i - 1];
    snprintf(t[i].key, sizeof t[i].key, "%.*s", (int)(k->len < KEY_SHOWN ? k->len : KEY_SHOWN - 1),
             k->name);
    t[i].n = n;
    t[i].type = k->type;
}

/* Keeps a type's n longest with their whole names (a longer name is not a candidate). */
static void
candidate_add(struct candidate *t, const struct key_facts *k)
{
    int i = TOP_N - 1;

    if (isnan(k->elems) || k->elems <= t[i].n || k->len >= NAME_MAX_KEPT)
        return;
    for (; i > 0 && t[i - 1].n < k->elems; i--)
        t[i] = t[i - 1];
    memcpy(t[i].name, k->name, k->len);
    t[i].len = k->len;
    t[i].n = k->elems;
}

/* Every key: its type and length. A key of the sample: the rest. */
static void
census_add(struct census *c, const struct key_facts *k, const char *sep)
{
    double bytes = isnan(k->bytes) ? 0 : k->bytes;

    c->passed++;
    c->type_keys[k->type]++;
    c->type_elems[k->type] += isnan(k->elems) ? 0 : k->elems;
    top_add(c->by_elems, k, k->elems);
    candidate_add(c->cand[k->type], k);
    if (!k->full)
        return;
    c->seen++;
    c->type_bytes[k->type] += bytes;
    c->bytes += bytes;
    census_prefix_add(&c->prefixes, k->name, k->len, sep, bytes);
    c->ttl[census_ttl_bucket(k->pttl < 0 ? -1 : k->pttl / 1e3)]++;
    top_add(c->by_mem, k, k->bytes);
    if (c->lfu)
        top_add(c->by_freq, k, k->freq);
}

/* --- talking to the server: a pipeline per batch, every command O(1) --- */

static int
lost(redisContext *ctx, char *err)
{
    return seterr(err, "lost the connection to redis: %s", ctx->errstr);
}

/* TYPE of every key of the batch; PTTL, MEMORY USAGE (and OBJECT FREQ) of the sample's. */
static int
read_facts(redisContext *ctx, struct key_facts *k, size_t n, int lfu, char *err)
{
    redisReply *r;

    for (size_t i = 0; i < n; i++) {
        redisAppendCommand(ctx, "TYPE %b", k[i].name, k[i].len);
        if (!k[i].full)
            continue;
        redisAppendCommand(ctx, "PTTL %b", k[i].name, k[i].len);
        redisAppendCommand(ctx, "MEMORY USAGE %b", k[i].name, k[i].len);
        if (lfu)
            redisAppendCommand(ctx, "OBJECT FREQ %b", k[i].name, k[i].len);
    }
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < (k[i].full ? 3 + lfu : 1); j++) {
            if (redis_reply(ctx, &r) != REDIS_OK)
                return lost(ctx, err);
            if (j == 0)
                k[i].type = r->type == REDIS_REPLY_STATUS && strcmp(r->str, "none") != 0
                                ? type_of(r->str)
                                : -1; /* gone since the SCAN */
            else if (j == 1)
                k[i].pttl = reply_num(r);
            else if (j == 2)
                k[i].bytes = reply_num(r);
            else
                k[i].freq = reply_num(r);
            freeReplyObject(r);
        }
    return 0;
}

/* The length of every key by its type: elements, or a string's bytes. */
static int
read_lengths(redisContext *ctx, struct key_facts *k, size_t n, char *err)
{
    redisReply *r;

    for (size_t i = 0; i < n; i++)
        if (k[i].type >= 0 && len_cmds[k[i].type] != NULL)
            redisAppendCommand(ctx, "%s %b", len_cmds[k[i].type], k[i].name, k[i].len);
    for (size_t i = 0; i < n; i++) {
        k[i].elems = NAN;
        if (k[i].type < 0 || len_cmds[k[i].type] == NULL)
            continue;
        if (redis_reply(ctx, &r) != REDIS_OK)
            return lost(ctx, err);
        k[i].elems = reply_num(r);
        freeReplyObject(r);
    }
    return 0;
}

/* After a SCAN that took rtt_ms and its batch batch_ms: the next COUNT; the ms to wait. */
static double
pace_next(struct pace *p, double rtt_ms, double batch_ms)
{
    double wait;

    if (p->base_ms == 0 || rtt_ms < p->base_ms)
        p->base_ms = rtt_ms;
    p->max_ms = fmax(p->max_ms, rtt_ms);
    if (rtt_ms > fmax(3 * p->base_ms, PACE_SLOW_MS)) {
        p->slow++;
        p->count = p->count / 2 > SCAN_COUNT_MIN ? p->count / 2 : SCAN_COUNT_MIN;
        wait = fmin(rtt_ms + batch_ms, PACE_WAIT_MAX_MS);
    } else {
        p->count =
            p->count + p->count / 4 + 1 < SCAN_COUNT ? p->count + p->count / 4 + 1 : SCAN_COUNT;
        wait = fmin(batch_ms, PACE_WAIT_MAX_MS);
    }
    p->wait_ms += wait;
    return wait;
}

static void
wait_ms(double ms)
{
    struct timespec ts = {.tv_sec = (time_t)(ms / 1e3), .tv_nsec = (long)(fmod(ms, 1e3) * 1e6)};

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* One SCAN step and its keys' facts into the census, paced; *cursor 0 when the scan is over. */
static int
scan_step(redisContext *ctx, struct census *c, const struct inspect_conf *ic,
          unsigned long long *cursor, char *err)
{
    uint64_t t0 = now_us(), t1;
    redisReply *r = redis_command(ctx, "SCAN %llu COUNT %d", *cursor, c->pace.count);
    struct key_facts k[SCAN_COUNT * 2];
    size_t n = 0;
    int rc = 0;

    if (r == NULL)
        return lost(ctx, err);
    t1 = now_us();
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
        r->element[0]->type != REDIS_REPLY_STRING || r->element[1]->type != REDIS_REPLY_ARRAY) {
        freeReplyObject(r);
        return seterr(err, "SCAN refused or answered oddly (is the ACL missing +scan?)");
    }
    *cursor = strtoull(r->element[0]->str, NULL, 10);
    for (size_t i = 0; i < r->element[1]->elements && n < SCAN_COUNT * 2; i++)
        if (r->element[1]->element[i]->type == REDIS_REPLY_STRING)
            k[n++] = (struct key_facts){.name = r->element[1]->element[i]->str,
                                        .len = r->element[1]->element[i]->len};
    for (size_t i = 0; i < n; i++) {
        k[i].full = ic->sample == 0 || c->seen + i < ic->sample;
        c->sample_hit |= !k[i].full;
    }
    rc = read_facts(ctx, k, n, c->lfu, err);
    if (rc == 0)
        rc = read_lengths(ctx, k, n, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (k[i].type >= 0)
            census_add(c, &k[i], ic->separator);
    freeReplyObject(r);
    if (rc == 0 && *cursor != 0)
        wait_ms(pace_next(&c->pace, (double)(t1 - t0) / 1e3, (double)(now_us() - t1) / 1e3));
    return rc;
}

/* MEMORY USAGE of each type's longest keys outside the sample, into the biggest by memory. */
static int
read_candidates(redisContext *ctx, struct census *c, char *err)
{
    for (int t = 0; t < NTYPES; t++)
        for (int i = 0; i < TOP_N && c->cand[t][i].n > 0; i++) {
            struct candidate *k = &c->cand[t][i];
            struct key_facts f = {.name = k->name, .len = k->len, .type = t};
            redisReply *r = redis_command(ctx, "MEMORY USAGE %b", k->name, k->len);
            int known = 0;

            if (r == NULL)
                return lost(ctx, err);
            f.bytes = reply_num(r);
            freeReplyObject(r);
            for (int j = 0; j < TOP_N && c->by_mem[j].n > 0; j++)
                known |= strncmp(c->by_mem[j].key, k->name, KEY_SHOWN - 1) == 0 &&
                         (k->len >= KEY_SHOWN - 1 || c->by_mem[j].key[k->len] == '\0');
            if (!known)
                top_add(c->by_mem, &f, f.bytes);
        }
    return 0;
}

/* A cluster node holds its own slots' keys only: the cluster's masters counted, to say so. */
static int
read_cluster(redisContext *ctx, struct census *c, char *err)
{
    redisReply *r = redis_command(ctx, "INFO cluster");
    struct redis_slot_map *m;
    char why[256];

    if (r == NULL)
        return lost(ctx, err);
    c->masters = r->type == REDIS_REPLY_STRING && redis_info_cluster_enabled(r->str, r->len);
    freeReplyObject(r);
    if (!c->masters)
        return 0;
    if ((r = redis_command(ctx, "CLUSTER SLOTS")) == NULL)
        return lost(ctx, err);
    m = xmalloc(sizeof *m);
    if (redis_slot_map_parse(r, m, why) == 0)
        c->masters = m->nnodes;
    else
        c->masters = -1; /* a cluster node, its masters unknown */
    free(m);
    freeReplyObject(r);
    return 0;
}

/* DBSIZE, the eviction policy (LFU gives OBJECT FREQ), INFO keyspace. */
static int
read_server(redisContext *ctx, struct census *c, char *err)
{
    redisReply *r = redis_command(ctx, "DBSIZE");

    if (r == NULL)
        return lost(ctx, err);
    c->dbsize = r->type == REDIS_REPLY_INTEGER ? (uint64_t)r->integer : 0;
    freeReplyObject(r);
    if ((r = redis_command(ctx, "CONFIG GET maxmemory-policy")) == NULL)
        return lost(ctx, err);
    snprintf(c->policy, sizeof c->policy, "%s",
             r->type == REDIS_REPLY_ARRAY && r->elements == 2 ? r->element[1]->str : "unknown");
    freeReplyObject(r);
    c->lfu = strstr(c->policy, "lfu") != NULL;
    if ((c->keyspace = redis_command(ctx, "INFO keyspace")) == NULL)
        return lost(ctx, err);
    return read_cluster(ctx, c, err);
}

static int
scan_all(redisContext *ctx, struct census *c, const struct inspect_conf *ic, char *err)
{
    unsigned long long cursor = 0;
    uint64_t t0 = now_us();

    c->pace.count = SCAN_COUNT_MIN;
    do {
        if (scan_step(ctx, c, ic, &cursor, err) < 0)
            return -1;
        c->budget_hit = cursor != 0 && (double)(now_us() - t0) / 1e6 >= ic->budget_s;
        c->signo = cursor != 0 ? progress_interrupted() : 0;
    } while (cursor != 0 && !c->budget_hit && !c->signo);
    if (!c->signo && read_candidates(ctx, c, err) < 0)
        return -1;
    c->secs = (double)(now_us() - t0) / 1e6;
    census_prefix_sort(&c->prefixes);
    return 0;
}

/* --- the report --- */

static void
text_top(FILE *f, const char *title, const struct top *t, int bytes)
{
    char clean[KEY_SHOWN * 4], num[32];

    fprintf(f, "%s:\n", title);
    for (int i = 0; i < TOP_N && t[i].n > 0; i++) {
        text_clean(clean, sizeof clean, t[i].key);
        if (bytes)
            units_iec(num, sizeof num, t[i].n, "");
        else
            snprintf(num, sizeof num, "%.0f", t[i].n);
        fprintf(f, "  %-40s %-7s %12s\n", clean, type_names[t[i].type], num);
    }
}

/* INFO keyspace's lines ("db0:keys=10,expires=2,avg_ttl=0") as they are, escaped. */
static void
text_keyspace(FILE *f, const struct census *c)
{
    char line[256], clean[1024];
    const char *p = c->keyspace->type == REDIS_REPLY_STRING ? c->keyspace->str : "";

    fprintf(f, "keys and expires per database (INFO keyspace):\n");
    for (; (p = strstr(p, "db")) != NULL; p += strcspn(p, "\r\n")) {
        snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\r\n"), p);
        text_clean(clean, sizeof clean, line);
        fprintf(f, "  %s\n", clean);
    }
}

/* Why the scan ended before the last key: " (stopped at --budget)", ...; "" when it did not. */
static const char *
scan_end(const struct census *c, char *buf, size_t len)
{
    if (c->signo)
        snprintf(buf, len, " (stopped by %s: what was counted so far)", strsignal(c->signo));
    else
        snprintf(buf, len, "%s", c->budget_hit ? " (stopped at --budget)" : "");
    return buf;
}

static void
text_report(FILE *f, const struct census *c, const struct inspect_conf *ic, const char *where)
{
    char b1[32], note[96], node[80];

    if (c->masters > 0)
        snprintf(node, sizeof node, ", one node of a cluster of %d masters (its keys only)",
                 c->masters);
    else
        snprintf(node, sizeof node, "%s",
                 c->masters < 0 ? ", one node of a cluster (its keys only)" : "");
    fprintf(f, "redis %s%s: %llu of %llu keys' types and lengths read in %.2f s%s\n", where, node,
            (unsigned long long)c->passed, (unsigned long long)c->dbsize, c->secs,
            scan_end(c, note, sizeof note));
    fprintf(f, "%llu of %llu keys looked at in full (TTL, MEMORY USAGE, prefix)%s\n",
            (unsigned long long)c->seen, (unsigned long long)c->passed,
            c->sample_hit ? " (a sample: --sample)" : "");
    fprintf(f,
            "paced by SCAN's round trip: %.2f ms quickest, %.2f ms slowest, %llu above %.0f ms; "
            "waited %.2f s\n",
            c->pace.base_ms, c->pace.max_ms, (unsigned long long)c->pace.slow, PACE_SLOW_MS,
            c->pace.wait_ms / 1e3);
    fprintf(f, "keys by type (memory: of the keys looked at in full):\n");
    for (int i = 0; i < NTYPES; i++) {
        if (c->type_keys[i] == 0)
            continue;
        units_iec(b1, sizeof b1, c->type_bytes[i], "");
        fprintf(f, "  %-8s %10llu keys %14.0f elements %12s\n", type_names[i],
                (unsigned long long)c->type_keys[i], c->type_elems[i], b1);
    }
    text_top(f, "biggest keys by elements (a string's bytes)", c->by_elems, 0);
    text_top(f,
             "biggest keys by MEMORY USAGE (of those looked at in full, and each type's longest)",
             c->by_mem, 1);
    census_prefix_text(f, &c->prefixes, ic->separator, c->bytes);
    census_ttl_text(f, c->ttl);
    if (c->lfu)
        text_top(f, "hot keys by OBJECT FREQ", c->by_freq, 0);
    else
        fprintf(f,
                "hot keys: maxmemory-policy is %s; OBJECT FREQ needs an LFU policy (CONFIG SET "
                "maxmemory-policy allkeys-lfu)\n",
                c->policy);
    text_keyspace(f, c);
}

static void
json_top(FILE *f, const char *key, const struct top *t)
{
    fprintf(f, ",\"%s\":[", key);
    for (int i = 0; i < TOP_N && t[i].n > 0; i++) {
        fprintf(f, "%s{\"key\":", i ? "," : "");
        json_put_string(f, t[i].key);
        fprintf(f, ",\"type\":\"%s\",\"n\":", type_names[t[i].type]);
        json_number(f, t[i].n);
        fputc('}', f);
    }
    fputc(']', f);
}

static void
json_report(FILE *f, const struct census *c, const struct inspect_conf *ic)
{
    fprintf(f,
            "{\"type\":\"inspect\",\"server\":\"redis\",\"seen\":%llu,\"passed\":%llu,"
            "\"dbsize\":%llu",
            (unsigned long long)c->seen, (unsigned long long)c->passed,
            (unsigned long long)c->dbsize);
    if (c->masters != 0) /* a cluster node's keys only: -1 when its masters are unknown */
        fprintf(f, ",\"cluster_masters\":%d", c->masters);
    fprintf(
        f, ",\"pace\":{\"scan_min_ms\":%.3f,\"scan_max_ms\":%.3f,\"slow\":%llu,\"waited_s\":%.3f}",
        c->pace.base_ms, c->pace.max_ms, (unsigned long long)c->pace.slow, c->pace.wait_ms / 1e3);
    fprintf(f, ",\"secs\":%.3f,\"budget_hit\":%s,\"sample_hit\":%s,\"signal\":%d,\"types\":{",
            c->secs, c->budget_hit ? "true" : "false", c->sample_hit ? "true" : "false", c->signo);
    for (int i = 0, n = 0; i < NTYPES; i++)
        if (c->type_keys[i] > 0)
            fprintf(f, "%s\"%s\":{\"keys\":%llu,\"elements\":%.0f,\"bytes\":%.0f}", n++ ? "," : "",
                    type_names[i], (unsigned long long)c->type_keys[i], c->type_elems[i],
                    c->type_bytes[i]);
    fputc('}', f);
    json_top(f, "by_elements", c->by_elems);
    json_top(f, "by_memory", c->by_mem);
    json_top(f, "hot", c->by_freq);
    census_prefix_json(f, &c->prefixes);
    census_ttl_json(f, c->ttl);
    fprintf(f, ",\"policy\":");
    json_put_string(f, c->policy);
    fprintf(f, ",\"separator\":");
    json_put_string(f, ic->separator);
    fprintf(f, "}\n");
}

int
redis_inspect(const struct target *target, const struct inspect_conf *ic, char *err)
{
    const struct redis_target *t = target->parsed;
    redisContext *ctx;
    struct census *c;
    char where[300];
    int rc;

    if (redis_connect_blocking(t, TIMEOUT_MS, &ctx, NULL, err) < 0)
        return -1;
    redis_target_where(t, where, sizeof where);
    snprintf(where + strlen(where), sizeof where - strlen(where), " db %d", t->db);
    c = xcalloc(1, sizeof *c);
    rc = read_server(ctx, c, err);
    if (rc == 0)
        rc = scan_all(ctx, c, ic, err);
    if (rc == 0 && ic->json)
        json_report(ic->out, c, ic);
    else if (rc == 0)
        text_report(ic->out, c, ic, where);
    if (c->keyspace != NULL)
        freeReplyObject(c->keyspace);
    free(c);
    redisFree(ctx);
    return rc;
}
