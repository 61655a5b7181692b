/*
 * redis/info: pure parsers for what the Redis collector reads: INFO (all
 * sections), INFO commandstats and SLOWLOG GET. No I/O: tests feed them
 * captured replies. INFO is split once into key:value lines; the fields
 * benchtop shows are found through one table, so a new field is one line.
 */
#include "redis.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text.h"
#include "base/util.h"

enum field_type { F_U64, F_INT, F_DOUBLE, F_STRING };

struct info_field {
    const char *name;
    enum field_type type;
    size_t offset;
    unsigned have; /* REDIS_HAVE_* bit set when present, for fields older servers lack */
};

#define OFF(f) offsetof(struct redis_info, f)

static const struct info_field info_fields[] = {
    {"redis_version", F_STRING, OFF(version), 0},
    {"role", F_STRING, OFF(role), 0},
    {"uptime_in_seconds", F_U64, OFF(uptime_s), 0},
    {"connected_clients", F_U64, OFF(connected_clients), 0},
    {"blocked_clients", F_U64, OFF(blocked_clients), 0},
    {"used_memory", F_U64, OFF(used_memory), 0},
    {"used_memory_rss", F_U64, OFF(used_memory_rss), 0},
    {"maxmemory", F_U64, OFF(maxmemory), 0},
    {"mem_fragmentation_ratio", F_DOUBLE, OFF(mem_fragmentation_ratio), REDIS_HAVE_FRAG},
    {"loading", F_INT, OFF(loading), 0},
    {"rdb_bgsave_in_progress", F_INT, OFF(rdb_bgsave_in_progress), 0},
    {"aof_rewrite_in_progress", F_INT, OFF(aof_rewrite_in_progress), 0},
    {"aof_enabled", F_INT, OFF(aof_enabled), 0},
    {"rdb_changes_since_last_save", F_U64, OFF(rdb_changes), REDIS_HAVE_CHANGES},
    {"total_connections_received", F_U64, OFF(total_connections_received), 0},
    {"total_commands_processed", F_U64, OFF(total_commands_processed), 0},
    {"rejected_connections", F_U64, OFF(rejected_connections), 0},
    {"expired_keys", F_U64, OFF(expired_keys), 0},
    {"evicted_keys", F_U64, OFF(evicted_keys), 0},
    {"keyspace_hits", F_U64, OFF(keyspace_hits), 0},
    {"keyspace_misses", F_U64, OFF(keyspace_misses), 0},
    {"latest_fork_usec", F_U64, OFF(latest_fork_usec), 0},
    {"total_forks", F_U64, OFF(total_forks), REDIS_HAVE_TOTAL_FORKS},
    {"process_id", F_U64, OFF(process_id), 0},
    {"used_cpu_sys", F_DOUBLE, OFF(used_cpu_sys), REDIS_HAVE_CPU},
    {"used_cpu_user", F_DOUBLE, OFF(used_cpu_user), REDIS_HAVE_CPU},
};

#undef OFF

_Static_assert(sizeof((struct redis_info *)0)->role == sizeof((struct redis_info *)0)->version,
               "F_STRING fields are as long as version");

/* One line of a reply, without its "\r\n". */
struct line {
    const char *p;
    size_t len;
    int no; /* 1-based, for messages */
};

/* The next line from *pos; 0 at the end. The caller checked that text ends with '\n'. */
static int
next_line(const char *text, size_t len, size_t *pos, struct line *l)
{
    const char *end;

    if (*pos >= len)
        return 0;
    l->p = text + *pos;
    end = memchr(l->p, '\n', len - *pos);
    l->len = (size_t)(end - l->p);
    *pos += l->len + 1;
    if (l->len > 0 && l->p[l->len - 1] == '\r')
        l->len--;
    l->no++;
    return 1;
}

/*
 * Calls each_fn on every line of a whole reply (named what in messages)
 * but the blank ones and "# Section" headers; stops at its first -1.
 */
static int
each_line(const char *text, size_t len, const char *what,
          int (*each_fn)(const struct line *, void *, char *), void *out, char *err)
{
    struct line l = {0};
    size_t pos = 0;

    if (len == 0)
        return seterr(err, "empty %s reply", what);
    if (text[len - 1] != '\n')
        return seterr(err, "truncated %s reply: its last line has no end", what);
    while (next_line(text, len, &pos, &l)) {
        if (l.len == 0 || l.p[0] == '#')
            continue;
        if (each_fn(&l, out, err) < 0)
            return -1;
    }
    return 0;
}

/* A length-limited and printable copy of s for messages, "..." where it was cut. */
static void
quote(char *out, size_t outlen, const char *s, size_t n)
{
    size_t k = text_ascii(out, outlen - 3, s, n);

    if (k < n)
        memcpy(out + k, "...", 4);
}

/* Copies n bytes into a NUL-terminated buffer; -1 if they do not fit. */
static int
copy_token(char *dst, size_t dstlen, const char *s, size_t n)
{
    if (n >= dstlen)
        return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

static const struct info_field *
find_field(const char *key, size_t klen)
{
    size_t i;

    for (i = 0; i < sizeof info_fields / sizeof info_fields[0]; i++)
        if (strlen(info_fields[i].name) == klen && memcmp(info_fields[i].name, key, klen) == 0)
            return &info_fields[i];
    return NULL;
}

static int
store_field(const struct info_field *f, const char *val, size_t vlen, struct redis_info *out)
{
    void *p = (char *)out + f->offset;
    uint64_t u;

    switch (f->type) {
    case F_U64:
        return safe_strntoull(val, vlen, p);
    case F_INT:
        if (safe_strntoull(val, vlen, &u) < 0 || u > 1000000)
            return -1;
        *(int *)p = (int)u;
        return 0;
    case F_DOUBLE:
        return safe_strntod(val, vlen, p);
    case F_STRING:
        return copy_token(p, sizeof out->version, val, vlen); /* each string is as long */
    }
    return -1;
}

/* Redis prints a ratio it cannot compute (mem_fragmentation_ratio just after a
 * restart, with nothing allocated yet) as "nan", "-nan" or "inf": not a bad
 * reply, only a value not known yet. */
static int
is_nonfinite(const char *val, size_t vlen)
{
    if (vlen > 0 && (val[0] == '-' || val[0] == '+')) {
        val++;
        vlen--;
    }
    return (vlen == 3 && (strncasecmp(val, "nan", 3) == 0 || strncasecmp(val, "inf", 3) == 0)) ||
           (vlen == 8 && strncasecmp(val, "infinity", 8) == 0);
}

/* The value of "name=" in "a=1,b=2", or NULL; *n gets its length. */
static const char *
kv_find(const char *s, size_t len, const char *name, size_t *n)
{
    size_t nl = strlen(name), i = 0;

    while (i < len) {
        const char *item = s + i;
        const char *comma = memchr(item, ',', len - i);
        size_t ilen = comma ? (size_t)(comma - item) : len - i;
        if (ilen > nl && memcmp(item, name, nl) == 0 && item[nl] == '=') {
            *n = ilen - nl - 1;
            return item + nl + 1;
        }
        i += ilen + 1;
    }
    return NULL;
}

/* An optional counter in a "a=1,b=2" list: absent is 0, present must be a number. */
static int
kv_u64(const char *s, size_t len, const char *name, uint64_t *out, int required)
{
    size_t n;
    const char *v = kv_find(s, len, name, &n);

    *out = 0;
    if (v == NULL)
        return required ? -1 : 0;
    return safe_strntoull(v, n, out);
}

/* "db3:keys=1,expires=1,avg_ttl=999387" */
static int
is_keyspace(const char *key, size_t klen)
{
    size_t i;

    if (klen < 3 || memcmp(key, "db", 2) != 0)
        return 0;
    for (i = 2; i < klen; i++)
        if (key[i] < '0' || key[i] > '9')
            return 0;
    return 1;
}

static int
add_keyspace(const char *val, size_t vlen, struct redis_info *out)
{
    uint64_t keys, expires;

    if (kv_u64(val, vlen, "keys", &keys, 1) < 0 || kv_u64(val, vlen, "expires", &expires, 0) < 0)
        return -1;
    out->keys += keys;
    out->expires += expires;
    return 0;
}

static int
info_line(const struct line *l, void *dst, char *err)
{
    struct redis_info *out = dst;
    const char *colon = memchr(l->p, ':', l->len);
    const struct info_field *f;
    char shown[48];
    size_t klen;

    quote(shown, sizeof shown, l->p, l->len);
    if (colon == NULL)
        return seterr(err, "line %d of INFO is not key:value: '%s'", l->no, shown);
    klen = (size_t)(colon - l->p);
    if (is_keyspace(l->p, klen)) {
        if (add_keyspace(colon + 1, l->len - klen - 1, out) < 0)
            return seterr(err, "line %d of INFO: bad keyspace entry '%s'", l->no, shown);
        return 0;
    }
    f = find_field(l->p, klen);
    if (f == NULL || (f->type == F_DOUBLE && is_nonfinite(colon + 1, l->len - klen - 1)))
        return 0;
    if (store_field(f, colon + 1, l->len - klen - 1, out) < 0)
        return seterr(err, "line %d of INFO: bad value for %s: '%s'", l->no, f->name, shown);
    out->have |= f->have;
    return 0;
}

int
redis_info_parse(const char *text, size_t len, struct redis_info *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (each_line(text, len, "INFO", info_line, out, err) < 0)
        return -1;
    if (out->version[0] == '\0')
        return seterr(err, "not an INFO reply: it has no redis_version line");
    return 0;
}

static int
cmdstat_line(const struct line *l, void *dst, char *err)
{
    struct redis_cmdstats *out = dst;
    static const char prefix[] = "cmdstat_";
    const size_t plen = sizeof prefix - 1;
    const char *colon = memchr(l->p, ':', l->len);
    struct redis_cmdstat cs;
    const char *v;
    size_t klen, vlen;
    char shown[48];
    uint64_t usec;

    memset(&cs, 0, sizeof cs);
    quote(shown, sizeof shown, l->p, l->len);
    if (colon == NULL)
        return seterr(err, "line %d of INFO commandstats is not key:value: '%s'", l->no, shown);
    klen = (size_t)(colon - l->p);
    if (klen <= plen || memcmp(l->p, prefix, plen) != 0)
        return 0; /* another section's line (INFO all): not ours */
    v = colon + 1;
    vlen = l->len - klen - 1;
    if (copy_token(cs.name, sizeof cs.name, l->p + plen, klen - plen) < 0 ||
        kv_u64(v, vlen, "calls", &cs.calls, 1) < 0 || kv_u64(v, vlen, "usec", &usec, 1) < 0 ||
        kv_u64(v, vlen, "rejected_calls", &cs.rejected_calls, 0) < 0 ||
        kv_u64(v, vlen, "failed_calls", &cs.failed_calls, 0) < 0)
        return seterr(err, "line %d of INFO commandstats: expected calls=N,usec=N: '%s'", l->no,
                      shown);
    cs.usec = usec;
    if (out->n == REDIS_MAX_CMDSTATS) {
        out->dropped++;
        return 0;
    }
    out->cmd[out->n++] = cs;
    return 0;
}

int
redis_cmdstats_parse(const char *text, size_t len, struct redis_cmdstats *out, char *err)
{
    memset(out, 0, sizeof *out);
    return each_line(text, len, "INFO commandstats", cmdstat_line, out, err);
}

const struct redis_cmdstat *
redis_cmdstat_find(const struct redis_cmdstats *cs, const char *name)
{
    int i;

    for (i = 0; i < cs->n; i++)
        if (strcmp(cs->cmd[i].name, name) == 0)
            return &cs->cmd[i];
    return NULL;
}

static int
is_type(const redisReply *r, int type)
{
    return r != NULL && r->type == type;
}

/* "DEBUG SLEEP 0.3": the command and its first arguments, as far as they fit. */
static void
entry_what(const redisReply *args, char *out, size_t len)
{
    size_t at = 0;

    out[0] = '\0';
    for (size_t i = 0; i < args->elements && at + 1 < len; i++) {
        const redisReply *a = args->element[i];
        if (!is_type(a, REDIS_REPLY_STRING) && !is_type(a, REDIS_REPLY_STATUS))
            break;
        at += (size_t)snprintf(out + at, len - at, "%s%.*s", i ? " " : "", (int)a->len, a->str);
    }
}

/* [id, unix time, microseconds, [command, args...], (4.0 on:) client address, name] */
static int
slow_entry(const redisReply *e, struct redis_slow_entry *out)
{
    const redisReply *addr;

    if (!is_type(e, REDIS_REPLY_ARRAY) || e->elements < 4 ||
        !is_type(e->element[0], REDIS_REPLY_INTEGER) ||
        !is_type(e->element[2], REDIS_REPLY_INTEGER) || !is_type(e->element[3], REDIS_REPLY_ARRAY))
        return -1;
    out->id = e->element[0]->integer;
    out->usec = e->element[2]->integer;
    entry_what(e->element[3], out->what, sizeof out->what);
    addr = e->elements > 4 ? e->element[4] : NULL;
    if (is_type(addr, REDIS_REPLY_STRING))
        snprintf(out->client, sizeof out->client, "%.*s", (int)addr->len, addr->str);
    return 0;
}

int
redis_slowlog_parse(const redisReply *r, struct redis_slowlog *out, char *err)
{
    const redisReply *args;

    memset(out, 0, sizeof *out);
    out->last_id = -1;
    if (!is_type(r, REDIS_REPLY_ARRAY))
        return seterr(err, "SLOWLOG GET: the reply is not an array");
    for (size_t i = 0; i < r->elements && i < REDIS_SLOWLOG_KEEP; i++)
        if (slow_entry(r->element[i], &out->e[out->n++]) < 0)
            return seterr(err, "SLOWLOG GET: an entry is not [id, time, usec, [command ...]]");
    if (r->elements == 0)
        return 0;
    out->last_id = out->e[0].id;
    out->last_usec = out->e[0].usec;
    args = r->element[0]->element[3];
    if (args->elements > 0 && is_type(args->element[0], REDIS_REPLY_STRING))
        snprintf(out->last_cmd, sizeof out->last_cmd, "%.*s", (int)args->element[0]->len,
                 args->element[0]->str);
    return 0;
}
