/*
 * memcached/inspect: `benchtop inspect memcached://...`, what memcached's
 * `stats`, `stats slabs`, `stats items` and `lru_crawler metadump all`
 * say, in one report: the server's totals, uptime and version; each slab
 * class (chunk size, items, memory, evictions, the oldest item's age);
 * and a census of the keys by prefix, size and TTL from the metadump.
 * The metadump is the LRU crawler walking the items on its own thread, a
 * line per item: it does not hold the cache's locks for long, but a big
 * cache gives a long dump, so the census stops at --budget or after
 * --sample keys (the connection is closed, which ends the crawl) and says
 * so; its figures are of the keys it saw.
 */
#include "memcached.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/shared/census.h"
#include "engine/target.h"
#include "base/json.h"
#include "base/text.h"
#include "base/units.h"
#include "base/uri.h"
#include "base/progress.h"
#include "base/util.h"

enum {
    TIMEOUT_MS = 5000,
    NSIZES = 6,
    DUMP_BUF = 65536,
};

static const char *const size_names[NSIZES] = {"< 100 B",   "< 1 KiB", "< 10 KiB",
                                               "< 100 KiB", "< 1 MiB", ">= 1 MiB"};
static const double size_limits[NSIZES - 1] = {100, 1024, 10240, 102400, 1048576};

struct mc_census {
    struct mc_stats st;
    struct mc_slabs slabs;
    uint64_t seen, never_fetched, sizes[NSIZES], ttl[CENSUS_NTTL];
    double bytes, secs;
    struct census_prefixes prefixes;
    int budget_hit, sample_hit;
    int signo;          /* the signal that stopped the dump (inspect blocks them), else 0 */
    char dump_err[160]; /* why there is no census (the crawler refused), else "" */
    int64_t t0;         /* the server's clock when the dump began */
};

static int
size_bucket(uint64_t size)
{
    int b = 0;

    while (b < NSIZES - 1 && (double)size >= size_limits[b])
        b++;
    return b;
}

/* memcached writes the key %XX-encoded (its uriencode); n bytes of src into m->key. */
static int
key_decode(struct mc_meta *m, const char *src, size_t n)
{
    if (uri_decode(src, (struct uri_span){0, n}, m->key, sizeof m->key) < 0)
        return -1;
    m->key_len = strlen(m->key); /* a binary-protocol key with a NUL in it ends there */
    return 0;
}

/* One "name=value" field; *seen gets a bit per field the line must have. */
static int
meta_field(struct mc_meta *m, const char *f, size_t n, unsigned *seen)
{
    const char *eq = memchr(f, '=', n);
    size_t nl, vl;
    const char *v;
    long long x;
    char num[32];

    if (eq == NULL)
        return -1;
    nl = (size_t)(eq - f);
    v = eq + 1;
    vl = n - nl - 1;
    if (nl == 3 && memcmp(f, "key", 3) == 0)
        return *seen |= 1, key_decode(m, v, vl);
    if (nl == 5 && memcmp(f, "fetch", 5) == 0) {
        m->fetched = vl == 3 && memcmp(v, "yes", 3) == 0;
        return 0;
    }
    snprintf(num, sizeof num, "%.*s", (int)(vl < sizeof num ? vl : sizeof num - 1), v);
    if (safe_strtoll(num, &x) < 0)
        return 0; /* a field we do not read need not be a number */
    if (nl == 3 && memcmp(f, "exp", 3) == 0)
        m->exp = x, *seen |= 2;
    else if (nl == 2 && memcmp(f, "la", 2) == 0)
        m->la = x;
    else if (nl == 3 && memcmp(f, "cls", 3) == 0)
        m->cls = (int)x;
    else if (nl == 4 && memcmp(f, "size", 4) == 0 && x >= 0)
        m->size = (uint64_t)x, *seen |= 4;
    return 0;
}

int
mc_meta_parse(const char *line, size_t n, struct mc_meta *m)
{
    size_t pos = 0;
    unsigned seen = 0;

    memset(m, 0, sizeof *m);
    while (pos < n) {
        size_t len = strcspn(line + pos, " ");
        if (pos + len > n)
            len = n - pos;
        if (len > 0 && meta_field(m, line + pos, len, &seen) < 0)
            return -1;
        pos += len + 1;
    }
    return seen == 7 ? 0 : -1; /* key, exp and size at least */
}

/* --- the census: the metadump streamed, bounded by time and count --- */

static void
census_take(struct mc_census *c, const struct mc_meta *m, const char *sep)
{
    c->seen++;
    c->bytes += (double)m->size;
    c->never_fetched += !m->fetched;
    c->sizes[size_bucket(m->size)]++;
    c->ttl[census_ttl_bucket(m->exp < 0 ? -1 : (double)(m->exp - c->t0))]++;
    census_prefix_add(&c->prefixes, m->key, m->key_len, sep, (double)m->size);
}

/* One complete line of the dump: 1 at its END, 0 for an item, -1 for a refusal (dump_err). */
static int
dump_line(struct mc_census *c, const char *s, size_t n, const char *sep)
{
    struct mc_meta m;
    char clean[sizeof c->dump_err], raw[120];

    if (n > 0 && s[n - 1] == '\r')
        n--;
    if (n == 3 && memcmp(s, "END", 3) == 0)
        return 1;
    if (mc_meta_parse(s, n, &m) == 0) {
        census_take(c, &m, sep);
        return 0;
    }
    snprintf(raw, sizeof raw, "%.*s", (int)(n < sizeof raw ? n : sizeof raw - 1), s);
    text_clean(clean, sizeof clean, raw);
    snprintf(c->dump_err, sizeof c->dump_err, "%s", clean);
    return -1;
}

/* Takes the complete lines of buf[0..*len), keeps the rest; 1 at END or a cap, -1 refused. */
static int
dump_lines(struct mc_census *c, char *buf, size_t *len, const struct inspect_conf *ic)
{
    size_t pos = 0;
    int rc = 0;
    char *nl;

    while (rc == 0 && (nl = memchr(buf + pos, '\n', *len - pos)) != NULL) {
        rc = dump_line(c, buf + pos, (size_t)(nl - buf - pos), ic->separator);
        pos = (size_t)(nl - buf) + 1;
        if (rc == 0 && ic->sample > 0 && c->seen >= ic->sample) {
            c->sample_hit = 1;
            rc = 1;
        }
    }
    memmove(buf, buf + pos, *len - pos);
    *len -= pos;
    return rc;
}

/*
 * Waits for the dump's next bytes until the budget's end or a signal (looked
 * at every 100 ms: inspect blocks them); 1 readable, 0 budget over or
 * signalled (*signo), -1 err.
 */
static int
dump_wait(int fd, uint64_t deadline_us, int *signo, char *err)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    uint64_t now;
    int rc = 0;

    while (rc == 0 && (now = now_us()) < deadline_us && (*signo = progress_interrupted()) == 0) {
        uint64_t left_ms = (deadline_us - now + 999) / 1000;
        rc = poll(&p, 1, left_ms < 100 ? (int)left_ms : 100);
        if (rc < 0 && errno != EINTR)
            return seterr(err, "waiting for the metadump: %s", strerror(errno));
        rc = rc > 0;
    }
    return rc;
}

static int
dump_read(int fd, const struct mc_addr *a, struct mc_census *c, const struct inspect_conf *ic,
          char *err)
{
    uint64_t t0 = now_us(), deadline = t0 + (uint64_t)(ic->budget_s * 1e6);
    char *buf = xmalloc(DUMP_BUF);
    size_t len = 0;
    int rc = 0;

    while (rc == 0) {
        ssize_t n;
        rc = dump_wait(fd, deadline, &c->signo, err);
        if (rc <= 0) {
            c->budget_hit = rc == 0 && c->signo == 0;
            rc = rc < 0 ? -1 : 1;
            break;
        }
        n = recv(fd, buf + len, DUMP_BUF - 1 - len, 0);
        if (n <= 0) {
            rc = seterr(err, "%s closed the connection during the metadump", a->name);
            break;
        }
        len += (size_t)n;
        rc = dump_lines(c, buf, &len, ic);
        if (rc == 0 && len == DUMP_BUF - 1)
            rc = seterr(err, "a metadump line of %s is over %d bytes", a->name, DUMP_BUF);
    }
    free(buf);
    c->secs = (double)(now_us() - t0) / 1e6;
    return rc < 0 && c->dump_err[0] == '\0' ? -1 : 0;
}

/* --- the server's stats --- */

static int
read_stats(int fd, const struct mc_addr *a, struct mc_census *c, char *err)
{
    char *reply;
    size_t len;
    int rc;

    if (mc_stats_roundtrip(fd, a, "stats\r\n", &reply, &len, err) < 0)
        return -1;
    rc = mc_stats_parse(reply, len, &c->st, err);
    free(reply);
    if (rc < 0 || mc_stats_roundtrip(fd, a, "stats slabs\r\n", &reply, &len, err) < 0)
        return -1;
    rc = mc_slabs_parse(reply, len, &c->slabs, err);
    free(reply);
    if (rc < 0 || mc_stats_roundtrip(fd, a, "stats items\r\n", &reply, &len, err) < 0)
        return -1;
    rc = mc_items_parse(reply, len, &c->slabs, err);
    free(reply);
    c->t0 = (int64_t)c->st.v[MCS_TIME];
    return rc;
}

static int
send_line(int fd, const struct mc_addr *a, const char *s, char *err)
{
    size_t n = strlen(s);

    if (send(fd, s, n, MSG_NOSIGNAL) != (ssize_t)n)
        return seterr(err, "cannot send to %s: %s", a->name, strerror(errno));
    return 0;
}

/* --- the report --- */

static void
text_totals(FILE *f, const struct mc_census *c, const char *where)
{
    const uint64_t *v = c->st.v;
    char up[32], used[32], max[32], ver[sizeof c->st.version * 4];
    double lookups = (double)(v[MCS_GET_HITS] + v[MCS_GET_MISSES]);

    text_clean(ver, sizeof ver, c->st.version);
    units_duration(up, sizeof up, (double)v[MCS_UPTIME]);
    units_iec(used, sizeof used, (double)v[MCS_BYTES], "");
    units_iec(max, sizeof max, (double)v[MCS_LIMIT_MAXBYTES], "");
    fprintf(f, "memcached %s: version %s, up %s, %d threads, %llu connections\n", where, ver, up,
            (int)v[MCS_THREADS], (unsigned long long)v[MCS_CURR_CONNECTIONS]);
    fprintf(f, "items: %llu now, %llu stored since start; %s of %s; %llu evictions\n",
            (unsigned long long)v[MCS_CURR_ITEMS], (unsigned long long)v[MCS_TOTAL_ITEMS], used,
            max, (unsigned long long)v[MCS_EVICTIONS]);
    fprintf(f, "gets: %llu hits, %llu misses (hit ratio %.1f%%), %llu sets\n",
            (unsigned long long)v[MCS_GET_HITS], (unsigned long long)v[MCS_GET_MISSES],
            lookups > 0 ? 100 * (double)v[MCS_GET_HITS] / lookups : 0.0,
            (unsigned long long)v[MCS_CMD_SET]);
}

/* memcached-tool display's "Full?": every chunk of the class's pages holds an item. */
static int
slab_full(const struct mc_slab_class *k)
{
    return k->total_chunks > 0 && k->used_chunks == k->total_chunks;
}

static void
text_slabs(FILE *f, const struct mc_slabs *sl)
{
    char chunk[32], mem[32], req[32], age[32], evage[32];

    fprintf(f, "slab classes:\n  %5s %10s %10s %21s %6s %5s %10s %10s %9s %9s %5s %8s\n", "class",
            "chunk", "items", "chunks used/total", "pages", "full?", "memory", "requested",
            "evicted", "evict age", "oom", "oldest");
    for (int i = 1; i < MC_MAX_SLAB_CLASSES; i++) {
        const struct mc_slab_class *k = &sl->cls[i];
        if (!k->present)
            continue;
        units_iec(chunk, sizeof chunk, (double)k->chunk_size, "");
        units_iec(mem, sizeof mem, (double)(k->total_chunks * k->chunk_size), "");
        units_iec(req, sizeof req, (double)k->mem_requested, "");
        units_duration(age, sizeof age, (double)k->age);
        units_duration(evage, sizeof evage, (double)k->evicted_time);
        fprintf(f, "  %5d %10s %10llu %10llu/%-10llu %6llu %5s %10s %10s %9llu %9s %5llu %8s\n", i,
                chunk, (unsigned long long)k->items, (unsigned long long)k->used_chunks,
                (unsigned long long)k->total_chunks, (unsigned long long)k->total_pages,
                slab_full(k) ? "yes" : "no", mem, req, (unsigned long long)k->evicted,
                k->evicted ? evage : "-", (unsigned long long)k->outofmemory, k->items ? age : "-");
    }
}

static void
text_census(FILE *f, const struct mc_census *c, const struct inspect_conf *ic)
{
    if (c->dump_err[0] != '\0') {
        fprintf(f,
                "keys: lru_crawler metadump refused (\"%s\"): memcached 1.4.31 or later with "
                "the LRU crawler on (-o lru_crawler, the default since 1.5) gives the census\n",
                c->dump_err);
        return;
    }
    fprintf(f, "keys (lru_crawler metadump all): %llu of %llu looked at in %.2f s%s%s%s\n",
            (unsigned long long)c->seen, (unsigned long long)c->st.v[MCS_CURR_ITEMS], c->secs,
            c->signo ? " (stopped by " : "", c->signo ? strsignal(c->signo) : "",
            c->signo        ? ": what was counted so far)"
            : c->budget_hit ? " (stopped at --budget)"
            : c->sample_hit ? " (a sample: --sample)"
                            : "");
    census_prefix_text(f, &c->prefixes, ic->separator, c->bytes);
    fprintf(f, "item size (header, key and value):\n");
    for (int i = 0; i < NSIZES; i++)
        fprintf(f, "  %-10s %10llu keys\n", size_names[i], (unsigned long long)c->sizes[i]);
    census_ttl_text(f, c->ttl);
    fprintf(f, "never fetched: %llu keys\n", (unsigned long long)c->never_fetched);
}

static void
json_counts(FILE *f, const char *key, const char *const *names, const uint64_t *n, int count)
{
    fprintf(f, ",\"%s\":{", key);
    for (int i = 0; i < count; i++)
        fprintf(f, "%s\"%s\":%llu", i ? "," : "", names[i], (unsigned long long)n[i]);
    fputc('}', f);
}

static void
json_slabs(FILE *f, const struct mc_slabs *sl)
{
    fprintf(f, ",\"slabs\":[");
    for (int i = 1, n = 0; i < MC_MAX_SLAB_CLASSES; i++) {
        const struct mc_slab_class *k = &sl->cls[i];
        if (!k->present)
            continue;
        fprintf(f,
                "%s{\"class\":%d,\"chunk_size\":%llu,\"items\":%llu,\"used_chunks\":%llu,"
                "\"total_chunks\":%llu,\"pages\":%llu,\"full\":%s,\"memory\":%llu,"
                "\"requested\":%llu,\"evicted\":%llu,\"evicted_time_s\":%llu,"
                "\"outofmemory\":%llu,\"oldest_age_s\":%llu}",
                n++ ? "," : "", i, (unsigned long long)k->chunk_size, (unsigned long long)k->items,
                (unsigned long long)k->used_chunks, (unsigned long long)k->total_chunks,
                (unsigned long long)k->total_pages, slab_full(k) ? "true" : "false",
                (unsigned long long)(k->total_chunks * k->chunk_size),
                (unsigned long long)k->mem_requested, (unsigned long long)k->evicted,
                (unsigned long long)k->evicted_time, (unsigned long long)k->outofmemory,
                (unsigned long long)k->age);
    }
    fputc(']', f);
}

static void
json_census(FILE *f, const struct mc_census *c, const struct inspect_conf *ic)
{
    fprintf(f,
            ",\"seen\":%llu,\"secs\":%.3f,\"budget_hit\":%s,\"signal\":%d,\"sample_hit\":%s,"
            "\"metadump_error\":",
            (unsigned long long)c->seen, c->secs, c->budget_hit ? "true" : "false", c->signo,
            c->sample_hit ? "true" : "false");
    if (c->dump_err[0] != '\0')
        json_put_string(f, c->dump_err);
    else
        fputs("null", f);
    fprintf(f, ",\"never_fetched\":%llu", (unsigned long long)c->never_fetched);
    census_prefix_json(f, &c->prefixes);
    json_counts(f, "sizes", size_names, c->sizes, NSIZES);
    census_ttl_json(f, c->ttl);
    fprintf(f, ",\"separator\":");
    json_put_string(f, ic->separator);
}

static void
json_report(FILE *f, const struct mc_census *c, const struct inspect_conf *ic)
{
    const uint64_t *v = c->st.v;

    fprintf(f, "{\"type\":\"inspect\",\"server\":\"memcached\",\"version\":");
    json_put_string(f, c->st.version);
    fprintf(f,
            ",\"uptime_s\":%llu,\"threads\":%llu,\"connections\":%llu,\"items\":%llu,"
            "\"total_items\":%llu,\"bytes\":%llu,\"limit_maxbytes\":%llu,\"evictions\":%llu,"
            "\"get_hits\":%llu,\"get_misses\":%llu,\"cmd_set\":%llu",
            (unsigned long long)v[MCS_UPTIME], (unsigned long long)v[MCS_THREADS],
            (unsigned long long)v[MCS_CURR_CONNECTIONS], (unsigned long long)v[MCS_CURR_ITEMS],
            (unsigned long long)v[MCS_TOTAL_ITEMS], (unsigned long long)v[MCS_BYTES],
            (unsigned long long)v[MCS_LIMIT_MAXBYTES], (unsigned long long)v[MCS_EVICTIONS],
            (unsigned long long)v[MCS_GET_HITS], (unsigned long long)v[MCS_GET_MISSES],
            (unsigned long long)v[MCS_CMD_SET]);
    json_slabs(f, &c->slabs);
    json_census(f, c, ic);
    fprintf(f, "}\n");
}

int
mc_inspect(const struct target *target, const struct inspect_conf *ic, char *err)
{
    const struct mc_addr a = *(const struct mc_addr *)target->parsed;
    struct mc_census *c;
    int fd, rc;

    if ((fd = mc_connect_blocking(&a, TIMEOUT_MS, err)) < 0)
        return -1;
    c = xcalloc(1, sizeof *c);
    rc = read_stats(fd, &a, c, err);
    if (rc == 0)
        rc = send_line(fd, &a, "lru_crawler metadump all\r\n", err);
    if (rc == 0)
        rc = dump_read(fd, &a, c, ic, err);
    close(fd); /* before the report: a dump cut short ends with its connection */
    census_prefix_sort(&c->prefixes);
    if (rc == 0 && ic->json)
        json_report(ic->out, c, ic);
    else if (rc == 0) {
        text_totals(ic->out, c, a.name);
        text_slabs(ic->out, &c->slabs);
        text_census(ic->out, c, ic);
    }
    free(c);
    return rc;
}
