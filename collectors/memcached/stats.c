/*
 * memcached/stats: pure parsers of the `stats`, `stats slabs` and
 * `stats items` replies into plain structs. A reply is lines
 * "STAT name value\r\n" ending with "END\r\n"; anything else, or no END
 * (a reply cut short), is an error rather than a half-filled struct that
 * would show made-up rates.
 */
#include "memcached.h"

#include <stdio.h>
#include <string.h>

#include "base/text.h"

/* The names memcached prints, by field. */
static const char *const stat_names[MCS__COUNT] = {
    [MCS_PID] = "pid",
    [MCS_UPTIME] = "uptime",
    [MCS_TIME] = "time",
    [MCS_RUSAGE_USER] = "rusage_user",
    [MCS_RUSAGE_SYSTEM] = "rusage_system",
    [MCS_MAX_CONNECTIONS] = "max_connections",
    [MCS_CURR_CONNECTIONS] = "curr_connections",
    [MCS_TOTAL_CONNECTIONS] = "total_connections",
    [MCS_REJECTED_CONNECTIONS] = "rejected_connections",
    [MCS_CMD_GET] = "cmd_get",
    [MCS_CMD_SET] = "cmd_set",
    [MCS_GET_HITS] = "get_hits",
    [MCS_GET_MISSES] = "get_misses",
    [MCS_GET_EXPIRED] = "get_expired",
    [MCS_BYTES_READ] = "bytes_read",
    [MCS_BYTES_WRITTEN] = "bytes_written",
    [MCS_LIMIT_MAXBYTES] = "limit_maxbytes",
    [MCS_LISTEN_DISABLED_NUM] = "listen_disabled_num",
    [MCS_THREADS] = "threads",
    [MCS_CONN_YIELDS] = "conn_yields",
    [MCS_BYTES] = "bytes",
    [MCS_CURR_ITEMS] = "curr_items",
    [MCS_TOTAL_ITEMS] = "total_items",
    [MCS_EVICTIONS] = "evictions",
};

/* One "STAT name value" line, split. */
struct stat_line {
    const char *name;
    size_t name_len;
    const char *val;
    size_t val_len;
    int lineno;
};

typedef int (*stat_fn)(void *arg, const struct stat_line *l, char *err);

static int
name_is(const struct stat_line *l, size_t from, const char *word)
{
    size_t n = strlen(word);

    return l->name_len - from == n && memcmp(l->name + from, word, n) == 0;
}

/*
 * rusage into microseconds. Servers print "seconds.fraction" (six digits);
 * the 1.4 protocol document writes "seconds:microseconds". Both are taken,
 * each with its own meaning: "1.5" is 1.5 s, "1:5" is 1 s and 5 us.
 */
static int
parse_seconds_us(const char *s, size_t n, uint64_t *out)
{
    size_t sep = 0, digits;
    uint64_t secs, frac = 0;

    while (sep < n && s[sep] != '.' && s[sep] != ':')
        sep++;
    if (safe_strntoull(s, sep, &secs) < 0 || secs > UINT64_MAX / 1000000u)
        return -1;
    if (sep < n) {
        digits = n - sep - 1;
        if (digits == 0 || digits > 6 || safe_strntoull(s + sep + 1, digits, &frac) < 0)
            return -1;
        for (; s[sep] == '.' && digits < 6; digits++)
            frac *= 10;
    }
    *out = secs * 1000000u + frac;
    return 0;
}

/* Splits "STAT name value" (line without its end); -1 if it is not one. */
static int
split_stat(const char *s, size_t n, struct stat_line *l)
{
    const char *sp;

    if (n < 6 || memcmp(s, "STAT ", 5) != 0)
        return -1;
    l->name = s + 5;
    sp = memchr(l->name, ' ', n - 5);
    if (sp == NULL || sp == l->name)
        return -1;
    l->name_len = (size_t)(sp - l->name);
    l->val = sp + 1;
    l->val_len = n - 5 - l->name_len - 1;
    return 0;
}

/* A line that is not STAT: END, a server error, or garbage. 1 for END, -1 otherwise. */
static int
other_line(const char *s, size_t n, int lineno, char *err)
{
    char q[49]; /* 48 bytes of the line, made printable */

    if (n == 3 && memcmp(s, "END", 3) == 0)
        return 1;
    text_ascii(q, sizeof q, s, n);
    if ((n >= 5 && memcmp(s, "ERROR", 5) == 0) || (n > 13 && memcmp(s + 6, "_ERROR ", 7) == 0))
        return seterr(err, "the server refused the stats command: %s", q);
    return seterr(err, "malformed stats reply at line %d: \"%s\"", lineno, q);
}

/* Calls fn for every STAT line; 0 once END is reached, -1 on anything else. */
static int
each_stat(const char *text, size_t len, stat_fn fn, void *arg, char *err)
{
    size_t pos = 0;
    struct stat_line l;
    int lineno = 0;

    while (pos < len) {
        const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
        size_t n;
        if (nl == NULL)
            break; /* a line without its end: cut short */
        n = (size_t)(nl - s);
        pos += n + 1;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        lineno++;
        if (split_stat(s, n, &l) < 0) {
            int rc = other_line(s, n, lineno, err);
            if (rc == 1 && pos != len)
                return seterr(err, "malformed stats reply: data after END (line %d)", lineno);
            return rc == 1 ? 0 : -1;
        }
        l.lineno = lineno;
        if (fn(arg, &l, err) < 0)
            return -1;
    }
    return seterr(err, "stats reply cut short after %d lines (no END)", lineno);
}

static int
bad_number(const struct stat_line *l, char *err)
{
    char q[49]; /* 48 bytes of the line, made printable */

    text_ascii(q, sizeof q, l->val, l->val_len);
    return seterr(err, "malformed stats reply at line %d: %.*s is \"%s\", not a number", l->lineno,
                  (int)l->name_len, l->name, q);
}

/* ---- stats ---- */

static int
take_general(void *arg, const struct stat_line *l, char *err)
{
    struct mc_stats *st = arg;
    int f;

    if (name_is(l, 0, "version")) {
        snprintf(st->version, sizeof st->version, "%.*s", (int)l->val_len, l->val);
        return 0;
    }
    for (f = 0; f < MCS__COUNT; f++)
        if (name_is(l, 0, stat_names[f]))
            break;
    if (f == MCS__COUNT)
        return 0; /* a field we do not show */
    if (f == MCS_RUSAGE_USER || f == MCS_RUSAGE_SYSTEM) {
        if (parse_seconds_us(l->val, l->val_len, &st->v[f]) < 0)
            return bad_number(l, err);
    } else if (safe_strntoull(l->val, l->val_len, &st->v[f]) < 0) {
        return bad_number(l, err);
    }
    st->have |= 1u << f;
    return 0;
}

/* ---- stats slabs and stats items: "ID:name" and "items:ID:name" ---- */

/* The class named by "ID:" at the start of name; *rest is what follows the colon. */
static struct mc_slab_class *
class_of(struct mc_slabs *sl, const struct stat_line *l, size_t from, size_t *rest, char *err)
{
    size_t i = from;
    uint64_t id;

    while (i < l->name_len && l->name[i] != ':')
        i++;
    if (i == l->name_len || safe_strntoull(l->name + from, i - from, &id) < 0) {
        seterr(err, "malformed slab stats at line %d: \"%.*s\"", l->lineno, (int)l->name_len,
               l->name);
        return NULL;
    }
    if (id < 1 || id >= MC_MAX_SLAB_CLASSES) {
        seterr(err, "slab class %llu at line %d is out of range (1 to %d)", (unsigned long long)id,
               l->lineno, MC_MAX_SLAB_CLASSES - 1);
        return NULL;
    }
    if (!sl->cls[id].present) {
        sl->cls[id].present = 1;
        sl->nclasses++;
    }
    *rest = i + 1;
    return &sl->cls[id];
}

static int
take_slab(void *arg, const struct stat_line *l, char *err)
{
    struct mc_slabs *sl = arg;
    struct mc_slab_class *c;
    uint64_t v;
    size_t rest;

    if (l->name[0] < '0' || l->name[0] > '9') {
        if (name_is(l, 0, "total_malloced") &&
            safe_strntoull(l->val, l->val_len, &sl->total_malloced) < 0)
            return bad_number(l, err);
        return 0; /* active_slabs: counted from the classes themselves */
    }
    c = class_of(sl, l, 0, &rest, err);
    if (c == NULL)
        return -1;
    if (safe_strntoull(l->val, l->val_len, &v) < 0)
        return bad_number(l, err);
    if (name_is(l, rest, "chunk_size"))
        c->chunk_size = v;
    else if (name_is(l, rest, "total_pages"))
        c->total_pages = v;
    else if (name_is(l, rest, "total_chunks"))
        c->total_chunks = v;
    else if (name_is(l, rest, "used_chunks"))
        c->used_chunks = v;
    else if (name_is(l, rest, "mem_requested"))
        c->mem_requested = v;
    return 0;
}

static int
take_item(void *arg, const struct stat_line *l, char *err)
{
    struct mc_slabs *sl = arg;
    struct mc_slab_class *c;
    uint64_t *dst = NULL;
    size_t rest;

    if (l->name_len < 6 || memcmp(l->name, "items:", 6) != 0)
        return seterr(err, "malformed items stats at line %d: \"%.*s\"", l->lineno,
                      (int)l->name_len, l->name);
    c = class_of(sl, l, 6, &rest, err);
    if (c == NULL)
        return -1;
    /* Some fields are not counters (1.6: "age_hot"...); only the ones we keep must be numbers. */
    if (name_is(l, rest, "number"))
        dst = &c->items;
    else if (name_is(l, rest, "evicted"))
        dst = &c->evicted;
    else if (name_is(l, rest, "outofmemory"))
        dst = &c->outofmemory;
    else if (name_is(l, rest, "evicted_time"))
        dst = &c->evicted_time;
    else if (name_is(l, rest, "age"))
        dst = &c->age;
    else if (name_is(l, rest, "mem_requested")) /* 1.6 moved it here from `stats slabs` */
        dst = &c->mem_requested;
    if (dst != NULL && safe_strntoull(l->val, l->val_len, dst) < 0)
        return bad_number(l, err);
    return 0;
}

/* ---- one numeric field of any reply ---- */

struct find_arg {
    const char *name;
    uint64_t *out;
    int found;
};

static int
take_one(void *arg, const struct stat_line *l, char *err)
{
    struct find_arg *f = arg;

    if (!f->found && name_is(l, 0, f->name) && safe_strntoull(l->val, l->val_len, f->out) == 0)
        f->found = 1;
    return 0;
}

int
mc_stat_has(const struct mc_stats *s, enum mc_stat_field f)
{
    return (s->have >> f) & 1u;
}

int
mc_stats_parse(const char *text, size_t len, struct mc_stats *out, char *err)
{
    memset(out, 0, sizeof *out);
    return each_stat(text, len, take_general, out, err);
}

int
mc_slabs_parse(const char *text, size_t len, struct mc_slabs *out, char *err)
{
    return each_stat(text, len, take_slab, out, err);
}

int
mc_items_parse(const char *text, size_t len, struct mc_slabs *out, char *err)
{
    return each_stat(text, len, take_item, out, err);
}

int
mc_stats_find(const char *text, size_t len, const char *name, uint64_t *out)
{
    struct find_arg f = {.name = name, .out = out};
    char err[BT_ERRLEN];

    if (each_stat(text, len, take_one, &f, err) < 0)
        return -1;
    return f.found ? 0 : -1;
}
