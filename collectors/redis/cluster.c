/*
 * redis/cluster: Redis Cluster's pure parts. A key's slot (CRC16 XMODEM
 * of the key, or of its {hashtag}, mod 16384, as the cluster specification
 * gives it); whether INFO cluster says the server is a cluster node; the
 * slot map read from a CLUSTER SLOTS reply tree; and a MOVED or ASK
 * redirection read from an error reply; the key a script's command is
 * routed by. Nothing here talks to a server.
 */
#include "redis.h"

#include "collectors/shared/kv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * CRC16 XMODEM: polynomial 0x1021, initial value 0, no reflection; a bit at
 * a time (keys are short; no table to initialise across threads).
 */
uint16_t
redis_crc16(const char *buf, size_t len)
{
    uint16_t crc = 0;

    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)((unsigned char)buf[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

int
redis_key_slot(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len);

    if (open) {
        size_t from = (size_t)(open - key) + 1;
        const char *close = memchr(open + 1, '}', len - from);

        /* "{}" or no '}' after the first '{': the whole key is hashed. */
        if (close && close > open + 1)
            return redis_crc16(open + 1, (size_t)(close - open - 1)) & (REDIS_SLOTS - 1);
    }
    return redis_crc16(key, len) & (REDIS_SLOTS - 1);
}

int
redis_info_cluster_enabled(const char *text, size_t len)
{
    static const char field[] = "cluster_enabled:";
    const char *p = text, *end = text + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);

        if (n > sizeof field - 1 && memcmp(p, field, sizeof field - 1) == 0)
            return p[sizeof field - 1] == '1';
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* The node index for host:port in m, added when new; -1 when m is full. */
static int
node_index(struct redis_slot_map *m, const char *host, size_t hlen, int port)
{
    for (int i = 0; i < m->nnodes; i++)
        if (m->node[i].port == port && strlen(m->node[i].host) == hlen &&
            memcmp(m->node[i].host, host, hlen) == 0)
            return i;
    if (m->nnodes == REDIS_CLUSTER_MAX_NODES || hlen >= sizeof m->node[0].host)
        return -1;
    memcpy(m->node[m->nnodes].host, host, hlen);
    m->node[m->nnodes].host[hlen] = '\0';
    m->node[m->nnodes].port = port;
    return m->nnodes++;
}

/* One CLUSTER SLOTS entry: [from, to, [host, port, id...], replicas...]. */
static int
slots_entry(const redisReply *e, struct redis_slot_map *m, char *err)
{
    const redisReply *master;
    long long from, to;
    int node;

    if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 ||
        e->element[0]->type != REDIS_REPLY_INTEGER || e->element[1]->type != REDIS_REPLY_INTEGER ||
        e->element[2]->type != REDIS_REPLY_ARRAY)
        return snprintf(err, 256, "CLUSTER SLOTS: an entry is not [from, to, [host, port]]"), -1;
    from = e->element[0]->integer;
    to = e->element[1]->integer;
    master = e->element[2];
    if (from < 0 || to >= REDIS_SLOTS || from > to)
        return snprintf(err, 256, "CLUSTER SLOTS: slots %lld-%lld out of range", from, to), -1;
    if (master->elements < 2 || master->element[0]->type != REDIS_REPLY_STRING ||
        master->element[1]->type != REDIS_REPLY_INTEGER)
        return snprintf(err, 256, "CLUSTER SLOTS: a master is not [host, port]"), -1;
    node = node_index(m, master->element[0]->str, master->element[0]->len,
                      (int)master->element[1]->integer);
    if (node < 0)
        return snprintf(err, 256, "CLUSTER SLOTS: more than %d masters", REDIS_CLUSTER_MAX_NODES),
               -1;
    for (long long s = from; s <= to; s++)
        m->slot[s] = (int16_t)node;
    return 0;
}

int
redis_slot_map_parse(const redisReply *r, struct redis_slot_map *m, char *err)
{
    memset(m, 0, sizeof *m);
    for (int s = 0; s < REDIS_SLOTS; s++)
        m->slot[s] = -1;
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return snprintf(err, 256, "CLUSTER SLOTS: the reply is not an array"), -1;
    for (size_t i = 0; i < r->elements; i++)
        if (slots_entry(r->element[i], m, err) < 0)
            return -1;
    for (int s = 0; s < REDIS_SLOTS; s++)
        if (m->slot[s] < 0)
            return snprintf(err, 256,
                            "CLUSTER SLOTS: slot %d has no master (fix the cluster first)", s),
                   -1;
    return 0;
}

int
redis_redirect_parse(const char *text, size_t len, struct redis_redirect *out)
{
    char buf[320];
    char *sp, *colon, *end;
    long slot, port;

    if (len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (strncmp(buf, "MOVED ", 6) == 0)
        out->ask = 0;
    else if (strncmp(buf, "ASK ", 4) == 0)
        out->ask = 1;
    else
        return -1;
    slot = strtol(buf + (out->ask ? 4 : 6), &sp, 10);
    if (*sp != ' ' || slot < 0 || slot >= REDIS_SLOTS)
        return -1;
    colon = strrchr(sp + 1, ':');
    if (!colon || colon == sp + 1 || (size_t)(colon - sp - 1) >= sizeof out->host)
        return -1;
    port = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || (*end && *end != '\r' && *end != '\n') || port <= 0 || port > 65535)
        return -1;
    memcpy(out->host, sp + 1, (size_t)(colon - sp - 1));
    out->host[colon - sp - 1] = '\0';
    out->slot = (int)slot;
    out->port = (int)port;
    return 0;
}

/* A RESP "*N\r\n" or "$N\r\n" header at *p of type t: N, and *p past it; -1 if malformed. */
static long
resp_header(const char **p, const char *end, char t)
{
    const char *q = *p;
    long n = 0;

    if (q >= end || *q++ != t)
        return -1;
    while (q < end && *q >= '0' && *q <= '9' && n < 1L << 40)
        n = n * 10 + (*q++ - '0');
    if (end - q < 2 || q[0] != '\r' || q[1] != '\n' || q == *p + 1)
        return -1;
    *p = q + 2;
    return n;
}

/* Whether the command word (n bytes) takes numkeys before its keys: scripts and functions. */
static int
takes_numkeys(const char *w, size_t n)
{
    static const char *const names[] = {"eval",  "evalsha",  "eval_ro", "evalsha_ro",
                                        "fcall", "fcall_ro", NULL};

    for (int i = 0; names[i] != NULL; i++)
        if (strlen(names[i]) == n && strncasecmp(names[i], w, n) == 0)
            return 1;
    return 0;
}

/* The argument numkeys (n bytes): > 0 when the command has a key. */
static int
has_keys(const char *w, size_t n)
{
    long v = 0;

    for (size_t i = 0; i < n && i < 9; i++)
        v = w[i] >= '0' && w[i] <= '9' ? v * 10 + (w[i] - '0') : -1;
    return n > 0 && v > 0;
}

size_t
redis_resp_route(const char *p, size_t len, const char **key, size_t *klen)
{
    const char *q = p, *end = p + len, *word[4] = {NULL};
    size_t wlen[4] = {0};
    long argc = resp_header(&q, end, '*');

    *key = NULL;
    *klen = 0;
    if (argc < 1)
        return 0;
    for (long i = 0; i < argc; i++) {
        long n = resp_header(&q, end, '$');
        if (n < 0 || end - q < n + 2)
            return 0;
        if (i < 4) {
            word[i] = q;
            wlen[i] = (size_t)n;
        }
        q += n + 2;
    }
    if (takes_numkeys(word[0], wlen[0])) {
        if (argc >= 4 && has_keys(word[2], wlen[2]))
            *key = word[3], *klen = wlen[3];
    } else if (argc >= 2) {
        *key = word[1], *klen = wlen[1];
    }
    return (size_t)(q - p);
}

void
redis_slot_set_of(const struct redis_slot_map *m, int node, struct redis_slot_set *out)
{
    memset(out, 0, sizeof *out);
    for (int s = 0; s < REDIS_SLOTS; s++)
        if (m->slot[s] == node)
            out->bit[s >> 6] |= (uint64_t)1 << (s & 63);
}

/* Whether key k, written into key's digits, hashes to a slot of own. */
static int
key_owned(uint64_t k, const struct redis_slot_set *own, char *key, size_t prefix_len, int digits)
{
    kv_put_digits(key + prefix_len, digits, k);
    return redis_slot_set_has(own, redis_key_slot(key, prefix_len + (size_t)digits));
}

int64_t
redis_draw_key(const struct kv_workload *w, uint64_t *seq, struct rng *rng,
               const struct redis_slot_set *own, char *key, size_t prefix_len, int digits)
{
    uint64_t k = 0;
    int i;

    for (i = 0; i < REDIS_DRAW_TRIES; i++)
        if (key_owned(k = kv_next_key(w, seq, rng), own, key, prefix_len, digits))
            return (int64_t)k;
    for (i = 0; i < REDIS_DRAW_SCAN && (uint64_t)i < w->keys; i++) {
        k = k + 1 >= w->keys ? 0 : k + 1;
        if (key_owned(k, own, key, prefix_len, digits))
            return (int64_t)k;
    }
    return -1;
}

int64_t
redis_first_key(uint64_t keys, const struct redis_slot_set *own, char *key, size_t prefix_len,
                int digits)
{
    for (uint64_t k = 0; k < keys && k < (uint64_t)REDIS_DRAW_SCAN * 16; k++)
        if (key_owned(k, own, key, prefix_len, digits))
            return (int64_t)k;
    return -1;
}
