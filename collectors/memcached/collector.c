/*
 * memcached/collector: the server's view of a memcached target, from
 * `stats`, `stats slabs` and `stats items` on one blocking connection of
 * the collector's own thread. derive() is pure: rates are counter deltas
 * over the seconds between two samples, so tests check it with hand-made
 * samples.
 */
#include "memcached.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"
#include "engine/target.h"

#define COLL_TIMEOUT_MS 2000
/* Slab classes shown one by one, the largest first; the rest are summed on one row. */
#define SLAB_ROWS 8
#define MB (1024.0 * 1024.0)

struct mc_coll {
    struct mc_addr addr;
    int fd;
    int local; /* the server is a process of this host: 1, 0 not, -1 not known yet */
};

/* ---- open, sample, close ---- */

static void *
mc_coll_open(const struct target *target, char *err)
{
    struct mc_coll *c = xcalloc(1, sizeof *c);

    c->local = -1;
    c->addr = *(const struct mc_addr *)target->parsed;
    if ((c->fd = mc_connect_blocking(&c->addr, COLL_TIMEOUT_MS, err)) < 0) {
        free(c);
        return NULL;
    }
    return c;
}

static void
mc_coll_close(void *conn)
{
    struct mc_coll *c = conn;

    close(c->fd);
    free(c);
}

/* One stats command whose reply goes through parse; -1 only when the connection failed. */
static int
ask(struct mc_coll *c, const char *req, char **reply, size_t *len, char *err)
{
    return mc_stats_roundtrip(c->fd, &c->addr, req, reply, len, err);
}

/* Slab and item stats are extras: when they fail to parse, the sample says so and goes on. */
static int
sample_slabs(struct mc_coll *c, struct mc_sample *s, char *err)
{
    char *reply, perr[BT_ERRLEN];
    size_t len;
    int ok;

    if (ask(c, "stats slabs\r\n", &reply, &len, err) < 0)
        return -1;
    ok = mc_slabs_parse(reply, len, &s->slabs, perr) == 0;
    free(reply);
    if (ask(c, "stats items\r\n", &reply, &len, err) < 0)
        return -1;
    ok = ok && mc_items_parse(reply, len, &s->slabs, perr) == 0;
    free(reply);
    s->have_slabs = ok;
    if (!ok)
        snprintf(s->slab_err, sizeof s->slab_err, "%.90s", perr);
    return 0;
}

/* The TCP port of a, or 0 (a Unix socket). */
static int
addr_port(const struct mc_addr *a)
{
    if (a->sa.ss_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)&a->sa)->sin_port);
    if (a->sa.ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)&a->sa)->sin6_port);
    return 0;
}

/* The server's threads, when its `stats` pid is the process listening on the target's port. */
static void
sample_threads(struct mc_coll *c, struct mc_sample *s)
{
    pid_t pid = (pid_t)s->st.v[MCS_PID];

    s->cores = cpu_cores();
    s->ntasks = -1;
    if (c->local < 0 && mc_stat_has(&s->st, MCS_PID))
        c->local = addr_port(&c->addr) > 0 && cpu_port_owner(addr_port(&c->addr)) == pid;
    if (c->local == 1)
        s->ntasks = cpu_tasks_read(pid, s->tasks, (int)(sizeof s->tasks / sizeof s->tasks[0]));
}

static int
mc_coll_sample(void *conn, void *out, char *err)
{
    struct mc_coll *c = conn;
    struct mc_sample *s = out;
    char *reply;
    size_t len;
    int rc;
    uint64_t t0 = now_us();

    if (ask(c, "stats\r\n", &reply, &len, err) < 0)
        return -1;
    s->rtt_ms = (double)(now_us() - t0) / 1000.0; /* a small reply: close to the network's */
    /* A `stats` reply we cannot read means the stream is out of step: reconnect. */
    rc = mc_stats_parse(reply, len, &s->st, err);
    free(reply);
    if (rc < 0)
        return -1;
    sample_threads(c, s);
    return sample_slabs(c, s, err);
}

/* ---- derive ---- */

static double
rate(const struct mc_stats *prev, const struct mc_stats *cur, enum mc_stat_field f, double secs)
{
    if (prev == NULL || !mc_stat_has(prev, f) || !mc_stat_has(cur, f))
        return NAN;
    return units_rate((double)prev->v[f], (double)cur->v[f], 1, secs);
}

/* The counter's growth since the previous sample: its rate over one second. */
static double
delta(const struct mc_stats *prev, const struct mc_stats *cur, enum mc_stat_field f)
{
    return rate(prev, cur, f, 1.0);
}

/* A "per second" row: "-" when there is no previous sample, dimmed when the server lacks it. */
static void
rate_row(struct coll_view *v, const char *section, const char *label, double r,
         const struct mc_stats *cur, enum mc_stat_field f, enum row_level busy)
{
    if (!mc_stat_has(cur, f))
        coll_row_add(v, section, label, NAN, ROW_DIM, "n/a");
    else if (isnan(r))
        coll_row_add(v, section, label, NAN, ROW_NORMAL, "-");
    else
        coll_row_add(v, section, label, r, r > 0 ? busy : ROW_NORMAL,
                     r > 0 && r < 0.05 ? "%.2g" : "%.1f", r); /* a few are never 0.0 */
}

static void
commands(struct coll_view *v, const struct mc_stats *p, const struct mc_stats *c, double secs)
{
    double hits = delta(p, c, MCS_GET_HITS), misses = delta(p, c, MCS_GET_MISSES), pct;
    enum row_level lv;

    rate_row(v, "commands", "get/s", rate(p, c, MCS_CMD_GET, secs), c, MCS_CMD_GET, ROW_NORMAL);
    rate_row(v, "commands", "set/s", rate(p, c, MCS_CMD_SET, secs), c, MCS_CMD_SET, ROW_NORMAL);
    rate_row(v, "commands", "hits/s", rate(p, c, MCS_GET_HITS, secs), c, MCS_GET_HITS, ROW_NORMAL);
    rate_row(v, "commands", "misses/s", rate(p, c, MCS_GET_MISSES, secs), c, MCS_GET_MISSES,
             ROW_NORMAL);
    if (isnan(hits) || isnan(misses) || hits + misses == 0) {
        coll_row_add(v, "commands", "hit %", NAN, ROW_NORMAL, "-");
        return;
    }
    pct = 100.0 * hits / (hits + misses);
    v->sig.hit_ratio = pct / 100;
    lv = pct >= 90 ? ROW_GOOD : pct < 50 ? ROW_WARN : ROW_NORMAL;
    coll_row_add(v, "commands", "hit %", pct, lv, "%.1f%%", pct);
}

static void
connections(struct coll_view *v, const struct mc_stats *p, const struct mc_stats *c, double secs)
{
    uint64_t cur = c->v[MCS_CURR_CONNECTIONS], max = c->v[MCS_MAX_CONNECTIONS];

    /* less the collector's own (memcached counts its listening socket too: one more) */
    if (mc_stat_has(c, MCS_CURR_CONNECTIONS))
        v->sig.sessions = cur > 1 ? (double)(cur - 1) : 0;
    if (mc_stat_has(c, MCS_MAX_CONNECTIONS) && max > 0)
        coll_row_add(v, "connections", "current", (double)cur,
                     cur * 10 >= max * 9 ? ROW_WARN : ROW_NORMAL, "%llu of %llu",
                     (unsigned long long)cur, (unsigned long long)max);
    else
        coll_row_add(v, "connections", "current", (double)cur, ROW_NORMAL, "%llu",
                     (unsigned long long)cur);
    rate_row(v, "connections", "new/s", rate(p, c, MCS_TOTAL_CONNECTIONS, secs), c,
             MCS_TOTAL_CONNECTIONS, ROW_NORMAL);
    rate_row(v, "connections", "rejected/s", rate(p, c, MCS_REJECTED_CONNECTIONS, secs), c,
             MCS_REJECTED_CONNECTIONS, ROW_BAD);
    /* The server stopped accepting: it reached -c and new clients wait in the backlog. */
    rate_row(v, "connections", "listen_disabled/s", rate(p, c, MCS_LISTEN_DISABLED_NUM, secs), c,
             MCS_LISTEN_DISABLED_NUM, ROW_BAD);
    /* A connection had more than -R requests ready and was sent to the back of the queue. */
    rate_row(v, "connections", "conn_yields/s", rate(p, c, MCS_CONN_YIELDS, secs), c,
             MCS_CONN_YIELDS, ROW_WARN);
}

/* CPU seconds per second of user + system time against the worker threads: saturation. */
static void
cpu(struct coll_view *v, const struct mc_stats *p, const struct mc_stats *c, double secs, int cores)
{
    double user = rate(p, c, MCS_RUSAGE_USER, secs) / 1e6;
    double sys = rate(p, c, MCS_RUSAGE_SYSTEM, secs) / 1e6;
    double threads = (double)c->v[MCS_THREADS], pct;
    enum row_level lv;

    if (isnan(user) || isnan(sys)) {
        coll_row_add(v, "cpu", "user+sys", NAN, ROW_NORMAL, "-");
        return;
    }
    v->sig.server_cpu_self_pct = 100.0 * (user + sys); /* rusage: true on any host */
    if (!mc_stat_has(c, MCS_THREADS) || threads <= 0) {
        coll_row_add(v, "cpu", "user+sys", user + sys, ROW_NORMAL, "%.2f cores", user + sys);
        return;
    }
    pct = 100.0 * (user + sys) / threads;
    v->sig.server_cpu_pct = 100.0 * (user + sys);
    /* its worker threads, each at most a core, and never more cores than the host has */
    v->sig.server_cpu_limit = 100.0 * (cores > 0 && cores < threads ? cores : threads);
    lv = pct >= 95 ? ROW_BAD : pct >= 80 ? ROW_WARN : ROW_NORMAL;
    coll_row_add(v, "cpu", "user+sys", pct, lv, "%.2f of %.0f threads (%.0f%%)", user + sys,
                 threads, pct);
    coll_row_add(v, "cpu", "user", user, ROW_NORMAL, "%.2f cores", user);
    coll_row_add(v, "cpu", "system", sys, ROW_NORMAL, "%.2f cores", sys);
}

/*
 * Its worker threads (-t), each serving its own connections: one at 100%
 * of a core stalls its clients however idle the others are. The busiest
 * from /proc when the server runs on this host.
 */
static void
threads(struct coll_view *v, const struct mc_sample *p, const struct mc_sample *c, double secs)
{
    if (mc_stat_has(&c->st, MCS_THREADS))
        coll_threads(v, (double)c->st.v[MCS_THREADS], "-t", p ? p->tasks : NULL, p ? p->ntasks : 0,
                     c->tasks, c->ntasks, secs);
}

static void
memory(struct coll_view *v, const struct mc_stats *p, const struct mc_stats *c, double secs)
{
    double used = (double)c->v[MCS_BYTES], limit = (double)c->v[MCS_LIMIT_MAXBYTES], pct;

    v->sig.mem_used = used;
    v->sig.evictions_s = rate(p, c, MCS_EVICTIONS, secs);
    if (limit > 0) {
        v->sig.mem_limit = limit;
        snprintf(v->sig.mem_limit_setting, sizeof v->sig.mem_limit_setting, "-m");
    }
    if (limit > 0) {
        pct = 100.0 * used / limit;
        coll_row_add(v, "memory", "bytes", pct, pct >= 90 ? ROW_WARN : ROW_NORMAL,
                     "%.1f of %.1f MB (%.0f%%)", used / MB, limit / MB, pct);
    } else {
        coll_row_add(v, "memory", "bytes", used, ROW_NORMAL, "%.1f MB", used / MB);
    }
    v->sig.keys = (double)c->v[MCS_CURR_ITEMS];
    coll_row_add(v, "memory", "items", (double)c->v[MCS_CURR_ITEMS], ROW_NORMAL, "%llu",
                 (unsigned long long)c->v[MCS_CURR_ITEMS]);
    rate_row(v, "memory", "evictions/s", rate(p, c, MCS_EVICTIONS, secs), c, MCS_EVICTIONS,
             ROW_WARN);
}

static double
class_bytes(const struct mc_slab_class *k)
{
    return (double)k->total_chunks * (double)k->chunk_size;
}

/* Present classes, largest memory first (ties: smaller id first). n is returned. */
static int
order_classes(const struct mc_slabs *sl, int *ids)
{
    int n = 0;

    for (int id = 1; id < MC_MAX_SLAB_CLASSES; id++) {
        if (!sl->cls[id].present)
            continue;
        int j = n++;
        while (j > 0 && class_bytes(&sl->cls[ids[j - 1]]) < class_bytes(&sl->cls[id])) {
            ids[j] = ids[j - 1];
            j--;
        }
        ids[j] = id;
    }
    return n;
}

static void
slab_row(struct coll_view *v, const struct mc_sample *p, const struct mc_sample *c, int id,
         double secs)
{
    const struct mc_slab_class *k = &c->slabs.cls[id];
    const struct mc_slab_class *pk = p && p->have_slabs ? &p->slabs.cls[id] : NULL;
    char label[32];

    snprintf(label, sizeof label, "class %d (%llu B)", id, (unsigned long long)k->chunk_size);
    if (pk == NULL || !pk->present || k->evicted < pk->evicted || secs <= 0) {
        coll_row_add(v, "slabs", label, (double)k->items, ROW_NORMAL,
                     "%llu items, %llu evicted, %.1f MB", (unsigned long long)k->items,
                     (unsigned long long)k->evicted, class_bytes(k) / MB);
        return;
    }
    double ev = (double)(k->evicted - pk->evicted) / secs;
    coll_row_add(v, "slabs", label, (double)k->items, ev > 0 ? ROW_WARN : ROW_NORMAL,
                 "%llu items, %.1f evict/s, %.1f MB", (unsigned long long)k->items, ev,
                 class_bytes(k) / MB);
}

static void
slabs(struct coll_view *v, const struct mc_sample *p, const struct mc_sample *c, double secs)
{
    int ids[MC_MAX_SLAB_CLASSES], n, i;
    uint64_t items = 0;
    double bytes = 0;

    if (!c->have_slabs) {
        coll_row_add(v, "slabs", "classes", NAN, ROW_DIM, "n/a");
        return;
    }
    n = order_classes(&c->slabs, ids);
    coll_row_add(v, "slabs", "classes", n, ROW_NORMAL, "%d active, %.1f MB malloced", n,
                 (double)c->slabs.total_malloced / MB);
    for (i = 0; i < n && i < SLAB_ROWS; i++)
        slab_row(v, p, c, ids[i], secs);
    for (; i < n; i++) {
        items += c->slabs.cls[ids[i]].items;
        bytes += class_bytes(&c->slabs.cls[ids[i]]);
    }
    if (n > SLAB_ROWS)
        coll_row_add(v, "slabs", "other classes", (double)items, ROW_NORMAL,
                     "%d classes, %llu items, %.1f MB", n - SLAB_ROWS, (unsigned long long)items,
                     bytes / MB);
}

/* Things that happened between the samples, and what the view lacks. */
static void
events(struct coll_view *v, const struct mc_stats *p, const struct mc_sample *c)
{
    double ld = delta(p, &c->st, MCS_LISTEN_DISABLED_NUM);
    double ev = delta(p, &c->st, MCS_EVICTIONS);

    if (ld > 0)
        coll_event_add(v, "connection limit reached: listening stopped %.0f times", ld);
    if (ev > 0)
        coll_event_add(v, "%.0f items evicted: memory is full", ev);
    if (!c->have_slabs)
        snprintf(v->note, sizeof v->note, "slab stats unavailable: %s", c->slab_err);
    else if (!mc_stat_has(&c->st, MCS_CONN_YIELDS) || !mc_stat_has(&c->st, MCS_MAX_CONNECTIONS))
        snprintf(v->note, sizeof v->note, "memcached %s lacks some counters (shown n/a)",
                 c->st.version[0] ? c->st.version : "(unknown version)");
}

static void
mc_coll_derive(const void *prev, const void *cur, double secs, struct coll_view *view)
{
    const struct mc_sample *p = prev, *c = cur;
    const struct mc_stats *ps = p ? &p->st : NULL;
    double g, s;

    coll_view_reset(view);
    view->sig.rtt_ms = c->rtt_ms;
    /* A restart resets every counter: compare with nothing rather than show negative rates. */
    if (ps != NULL &&
        (c->st.v[MCS_PID] != ps->v[MCS_PID] || c->st.v[MCS_UPTIME] < ps->v[MCS_UPTIME])) {
        coll_event_add(view, "memcached restarted (up %llu s)",
                       (unsigned long long)c->st.v[MCS_UPTIME]);
        ps = NULL;
        p = NULL;
    }
    commands(view, ps, &c->st, secs);
    connections(view, ps, &c->st, secs);
    cpu(view, ps, &c->st, secs, c->cores);
    threads(view, p, c, secs);
    memory(view, ps, &c->st, secs);
    slabs(view, p, c, secs);
    events(view, ps, c);
    g = rate(ps, &c->st, MCS_CMD_GET, secs);
    s = rate(ps, &c->st, MCS_CMD_SET, secs);
    view->server_tps = g + s; /* NAN when either is unknown */
}

static int
mc_coll_settings(void *conn, struct coll_settings *out, char *err)
{
    struct mc_coll *c = conn;

    return mc_settings_read(c->fd, &c->addr, out, err);
}

const struct collector_class memcached_collector_class = {
    .name = "memcached",
    .title = "memcached",
    .sample_size = sizeof(struct mc_sample),
    .open = mc_coll_open,
    .close = mc_coll_close,
    .sample = mc_coll_sample,
    .derive = mc_coll_derive,
    .read_settings = mc_coll_settings,
    .inspect = mc_inspect,
};
