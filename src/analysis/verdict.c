/* verdict: scoring rules and hysteresis (see verdict.h and benchtop.1, VERDICT). */
#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "param.h"

enum {
    STREAK_TO_SHOW = 2, /* intervals a new leader must lead before it is shown */
    HOST_FIGS = 6,      /* the host's figures verdict_state sums (host_fig) */
    EV = sizeof(((struct verdict *)0)->evidence),
};

/* Figures every rule reads, computed once per interval so that all come from one window. */
struct window {
    const struct verdict_input *in;
    double host_used;  /* the host's busy CPU, % of one core (NAN unless the server is local) */
    int host_full;     /* ... above param(P_HOST_FULL) */
    double server_pct; /* the server's processes, % of one core; NAN if unknown */
    struct host_split split;    /* the host's busy CPU by whose it is */
    char server[112];           /* the server's load in words */
    const struct account *acct; /* the interval's account */
};

/* Each kind's key (JSON, records) and label (screen, text), side by side. */
static const struct {
    const char *key;
    const char *label;
} names[VK__COUNT] = {
    [VK_NONE] = {"none", "no verdict yet"},
    [VK_CLIENT] = {"client", "client-bound"},
    [VK_SERVER_CPU] = {"server_cpu", "server CPU-bound"},
    [VK_LOCK] = {"lock", "lock-bound"},
    [VK_COMMIT] = {"commit", "commit/I/O-bound"},
    [VK_CONNECTION] = {"connection", "connection-bound"},
    [VK_NETWORK] = {"network", "network-bound"},
    [VK_UNDERLOADED] = {"underloaded", "not enough load"},
    [VK_HOST] = {"host", "host CPU-bound"},
    [VK_POOL] = {"pool", "pool-bound"},
    [VK_APP] = {"app", "app-bound"},
    [VK_IO] = {"io", "disk-read-bound"},
    [VK_MEMORY] = {"memory", "memory-bound"},
    [VK_STALL] = {"stall", "stalled by other sessions"},
    [VK_THREAD] = {"thread", "one server thread-bound"},
    [VK_OPEN_LOOP] = {"open_loop", "rate beyond the clients"},
    [VK_MIXED] = {"mixed", "mixed"},
};

const char *
verdict_label(enum verdict_kind k)
{
    return k >= 0 && k < VK__COUNT ? names[k].label : "?";
}

const char *
verdict_key(enum verdict_kind k)
{
    return k >= 0 && k < VK__COUNT ? names[k].key : "?";
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
appendf(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    if (used + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* NAN as 0. */
static double
z0(double x)
{
    return isnan(x) ? 0 : x;
}

static double
ramp(double x, double lo, double hi)
{
    if (isnan(x) || x <= lo)
        return 0;
    return x >= hi ? 1 : (x - lo) / (hi - lo);
}

/* Exponential smoothing that starts from the first known value and ignores unknowns. */
static double
smooth(double old, double x)
{
    if (isnan(x))
        return old;
    return isnan(old) ? x : old + param(P_SMOOTH) * (x - old);
}

static double
frac(double part, double whole)
{
    if (isnan(part) || isnan(whole))
        return NAN;
    return fmin(part / (whole > 1 ? whole : 1), 1);
}

static double
max2(double a, double b)
{
    if (isnan(a))
        return b;
    return isnan(b) || a > b ? a : b;
}

/* "3 of 8", "2.4 of 8": averages keep a decimal; the part never exceeds the whole. */
static void
n_of(char *buf, size_t len, double n, double m)
{
    if (isnan(n) || isnan(m)) {
        snprintf(buf, len, "?");
        return;
    }
    n = fmax(0, fmin(n, m));
    snprintf(buf, len, n == floor(n) ? "%.0f of %.0f" : "%.1f of %.0f", n, ceil(m));
}

/* 31,000 */
static void
fmt_count(char *buf, size_t len, double v)
{
    long long n = llround(v);

    if (n >= 1000000)
        snprintf(buf, len, "%lld,%03lld,%03lld", n / 1000000, n / 1000 % 1000, n % 1000);
    else if (n >= 1000)
        snprintf(buf, len, "%lld,%03lld", n / 1000, n % 1000);
    else
        snprintf(buf, len, "%lld", n);
}

/* Sessions whose waits count: benchtop's own when the collector tells them apart. */
static int
own_known(const struct coll_signals *g)
{
    return !isnan(g->own_active);
}

/*
 * The share of the server's CPU capacity in use (0..1): its own process CPU
 * against its limit, or its sessions on CPU against the cores; NAN if
 * nothing tells. A busy host alone is not the server (see score_host).
 */
static double
server_load(const struct verdict_state *st, const struct window *w)
{
    const struct verdict_input *in = w->in;
    double limit = in->sig.server_cpu_limit;

    /* a local server's threads cannot use more cores than the host has */
    if (!isnan(w->host_used) && in->cores > 0 && limit > 100.0 * in->cores)
        limit = 100.0 * in->cores;
    return max2(account_loop_busy(&in->sig, frac(in->sig.server_cpu_pct, limit)), st->cpu_frac);
}

static void
describe_server(const struct window *w, char *buf, size_t len)
{
    const struct coll_signals *g = &w->in->sig;
    char n[32];

    if (!isnan(g->server_cpu_pct)) {
        snprintf(buf, len, "server CPU %.0f%%", g->server_cpu_pct);
    } else if (!isnan(g->on_cpu)) {
        n_of(n, sizeof(n), g->on_cpu, g->sessions);
        snprintf(buf, len, "server %s sessions on CPU (%d cores)", n, w->in->cores);
    } else if (!isnan(w->server_pct)) {
        snprintf(buf, len, "server CPU %.0f%%", w->server_pct);
    } else {
        snprintf(buf, len, "server load unknown");
    }
}

static void
window_make(const struct verdict_input *in, struct window *w)
{
    memset(w, 0, sizeof(*w));
    w->in = in;
    w->host_used =
        isnan(in->host_busy_pct) ? NAN : in->host_busy_pct * (in->cores > 0 ? in->cores : 1);
    w->host_full = !isnan(in->host_busy_pct) && in->host_busy_pct >= param(P_HOST_FULL);
    w->server_pct = in->server_host_pct;
    if (isnan(w->server_pct) && !isnan(w->host_used) && !isnan(in->sig.server_cpu_pct))
        w->server_pct = in->sig.server_cpu_pct;
    describe_server(w, w->server, sizeof(w->server));
    host_split_make(in->host_busy_pct, in->cores, w->server_pct, in->own_cpu_pct,
                    in->host_irq_pct * (in->cores > 0 ? in->cores : 1), &w->split);
    if (in->server_names != NULL)
        snprintf(w->split.names, sizeof(w->split.names), "%s", in->server_names);
    w->split.event_loop = !isnan(in->sig.server_cpu_limit);
}

void
host_split_make(double busy_pct, int cores, double server, double benchtop, double kernel,
                struct host_split *out)
{
    double used, k;

    memset(out, 0, sizeof(*out));
    out->cores = cores > 0 ? cores : 1;
    out->busy = busy_pct;
    out->benchtop = benchtop;
    used = isnan(busy_pct) ? NAN : busy_pct * out->cores;
    out->server = isnan(used) || isnan(server) ? NAN : fmin(fmax(server, 0), used);
    out->others =
        isnan(out->server) || isnan(benchtop) ? NAN : fmax(0, used - out->server - benchtop);
    k = isnan(kernel) || isnan(out->others) ? NAN : fmin(fmax(kernel, 0), out->others);
    out->kernel = k;
    if (!isnan(k))
        out->others -= k;
}

int
host_split_others_hold(const struct host_split *h)
{
    double used = h->server + h->benchtop + h->others + (isnan(h->kernel) ? 0 : h->kernel);

    return !isnan(used) && used > 0 && h->others > h->benchtop &&
           h->others >= param(P_OTHERS_LARGE) * used;
}

/*
 * How saturated a server's CPU is (0..1) from its share of its capacity.
 * A server that runs on one thread (its limit is one core: Redis's event
 * loop) has room while its loop still sleeps, and each request gets
 * cheaper as more clients are ready per wakeup: only near 100% is it the
 * limit. A server on many cores is saturated earlier, as its processes
 * never fill every core evenly.
 */
static double
cpu_saturation(double load, double limit)
{
    if (!isnan(limit) && limit <= 100)
        return ramp(load, 0.9, 0.98);
    return ramp(load, 0.7, 0.95);
}

/* Log syncs per commit: counted, or 1 when a setting makes each commit sync; NAN unknown. */
static double
syncs_per_commit(const struct coll_signals *g)
{
    if (!(g->commits_s >= param(P_COMMITS_MIN)))
        return NAN;
    return g->sync_each_commit[0] ? 1 : g->log_syncs_s / g->commits_s;
}

/* A database behind the target that is the limit says so, with its own reason. */
static void
name_behind(const struct verdict_input *in, struct verdict *v)
{
    char text[EV];

    if (in->behind == NULL ||
        (v->kind != VK_SERVER_CPU && v->kind != VK_LOCK && v->kind != VK_COMMIT))
        return;
    snprintf(text, EV, "%s behind the app: %.250s", in->behind, v->evidence);
    memcpy(v->evidence, text, EV);
}

/* The primary share of a verdict kind, for its confidence. */
static enum account_share
primary_share(int k)
{
    switch (k) {
    case VK_SERVER_CPU:
        return AS_SERVER_CPU;
    case VK_LOCK:
        return AS_LOCK;
    case VK_IO:
        return AS_DISK;
    case VK_COMMIT:
        return AS_COMMIT;
    case VK_POOL:
        return AS_POOL;
    case VK_APP:
        return AS_APP;
    default:
        return AS_BENCHTOP; /* measured by benchtop itself */
    }
}

/*
 * As sure as the samples behind the leading share (two sampled sessions
 * never make it clear), and less when the second is close.
 */
static const char *
confidence_of(const struct account *a, const double g[VK__COUNT], int first, int second)
{
    const char *c = account_confidence(a, primary_share(first));

    if (g[first] < param(P_CLOSE_SECOND) * g[second])
        return "tentative";
    if (g[first] < param(P_CLEAR_MARGIN) * g[second] && strcmp(c, "clear") == 0)
        return "likely";
    return c;
}

/*
 * A server short of CPU because each transaction scans: the scans lead
 * the advice (a lookup by an unindexed column of 200k rows, 100,157 rows
 * a transaction: the index gave x392, field trial 7, case 14, where "a
 * faster or larger server" came first).
 */
static int
scans_lead(const struct verdict_state *st, const struct coll_signals *g)
{
    /*
     * MariaDB's collector counts no scans: ten times as many rows alone
     * (a lookup by an unindexed column, 93,988 rows a transaction: the
     * index gave x156)
     */
    return !isnan(st->rows_now) && ((st->rows_now >= param(P_LARGE_ROWS) && g->seq_scans_s >= 1) ||
                                    st->rows_now >= param(P_SCAN_ROWS));
}

/* "; each transaction reads 31,000 rows, rising; 12 sequential scans/s on table cache" */
static void
add_work(const struct verdict_state *st, const struct coll_signals *g, struct verdict *v)
{
    int rising = !isnan(st->rows_base) && st->rows_now >= 2 * st->rows_base &&
                 st->rows_now - st->rows_base >= 100 &&
                 st->rows_rising >= param(P_RISING_INTERVALS);
    char n[32];

    if (v->kind == VK_SERVER_CPU && scans_lead(st, g))
        return; /* said first */
    if (!isnan(st->rows_now) && (st->rows_now >= param(P_LARGE_ROWS) || rising)) {
        fmt_count(n, sizeof(n), st->rows_now);
        appendf(v->evidence, EV, "; each transaction reads %s rows%s", n, rising ? ", rising" : "");
    } else if (g->blocks_per_txn >= param(P_LARGE_BLOCKS)) {
        fmt_count(n, sizeof(n), g->blocks_per_txn);
        appendf(v->evidence, EV, "; each transaction reads %s blocks", n);
    } else {
        return;
    }
    if (g->seq_scans_s >= 1)
        appendf(v->evidence, EV, "; %.0f sequential scans/s%s%s", g->seq_scans_s,
                g->seq_scan_table[0] ? " on table " : "", g->seq_scan_table);
}

/*
 * A buffer pool not yet full: its misses fill it (a cold start), they say
 * nothing of whether the working set fits (field trial 4: runs began with
 * 2-5 intervals of "raise shared_buffers", right after). InnoDB says how
 * many pages are free; PostgreSQL 15 does not (buffers_alloc outlives a
 * restart), so its pool_fill stays unknown.
 */
static int
warming(const struct coll_signals *g)
{
    return g->pool_fill < param(P_WARM);
}

/* A cache (or buffer pool) evicting with misses: its working set does not fit. */
static int
evicting(const struct coll_signals *g)
{
    return g->evictions_s >= 1 && (isnan(g->hit_ratio) || g->hit_ratio < param(P_CACHE_HITS));
}

/*
 * "; the cache evicts 7,700/s, hit ratio 7%: raise -m for the hit ratio"
 * beside the limit: a cache's misses cost no more than its hits, so they
 * do not bound the tps (memcached -m 8, 1M keys of 1000 B, get/set 1:1:
 * -m 2048 gave 80.2k and 78.7k tps against 97.3k), but a user tuning it
 * must see that it misses (field trial 3, C15: a 7% hit ratio, never
 * said; -m 512 gave 100%).
 */
/* A note's setting, as data beside its words; nothing without a name. */
static void
note_setting(struct verdict *v, const char *name, const char *value)
{
    struct advice a;

    if (name[0] == '\0')
        return;
    advice_setting(&a, 0, name, value);
    advice_list_add(&v->advice, &a);
}

static void
add_cache(const struct coll_signals *g, struct verdict *v)
{
    char n[32];

    if (!evicting(g) || v->kind == VK_MEMORY || v->kind == VK_NONE)
        return;
    fmt_count(n, sizeof(n), g->evictions_s);
    appendf(v->evidence, EV, "; the cache evicts %s/s", n);
    if (!isnan(g->hit_ratio))
        appendf(v->evidence, EV, ", hit ratio %.0f%%", g->hit_ratio * 100);
    appendf(v->evidence, EV, ": raise %s for the hit ratio",
            g->mem_limit_setting[0] ? g->mem_limit_setting : "its memory");
    note_setting(v, g->mem_limit_setting, "");
}

/*
 * "; sorts and hashes spill 21.0 MB/s to temporary files: test a larger
 * work_mem (benchtop try --set work_mem=...)". A hypothesis, not advice:
 * an external merge of 10 MB a statement at work_mem 1MB gained +114%
 * from 64MB (field trial 3, C2), but a 200k-row sort at 64kB lost 25% at
 * 32MB, where PostgreSQL gave up its parallel sort for one quicksort.
 */
static void
add_temp(const struct coll_signals *g, struct verdict *v)
{
    if (!(g->temp_bytes_s >= param(P_TEMP_NAMED)) || v->kind == VK_NONE)
        return;
    note_setting(v, g->temp_setting, "");
    if (g->temp_setting[0])
        appendf(v->evidence, EV,
                "; sorts and hashes spill %.1f MB/s to temporary files: test a larger %s "
                "(benchtop try --set %s=...)",
                g->temp_bytes_s / 1e6, g->temp_setting, g->temp_setting);
    else
        appendf(v->evidence, EV, "; sorts and hashes spill %.1f MB/s to temporary files",
                g->temp_bytes_s / 1e6);
}

/*
 * "; io-threads 2 spin for work on a full host: try io-threads 1". Redis's
 * io threads busy-wait; on a host without a spare core they take the main
 * thread's (GET under a quota: 5,406 tps at io-threads 2, 100,180 at 1;
 * 100 KB SETs beside two yes: 998 and 2,232 against 6,839 and 9,339).
 */
static void
add_spin(const struct verdict_input *in, struct verdict *v)
{
    const struct coll_signals *g = &in->sig;

    if (!g->threads_io_only || !(g->server_threads >= 2) ||
        !(in->host_busy_pct >= param(P_HOST_FULL)) || v->kind == VK_NONE ||
        g->thread_max_pct >= param(P_IO_THREAD_RUNS))
        return;
    note_setting(v, g->threads_setting, "1");
    appendf(v->evidence, EV, "; %s %.0f spin for work on a full host: try %s 1",
            g->threads_setting[0] ? g->threads_setting : "io threads", g->server_threads,
            g->threads_setting[0] ? g->threads_setting : "one");
}

/*
 * Clients without a connection at the tick, and not in a connect, when
 * connects fail (with -C they are between connections: none). Clients
 * still connecting at the run's start are not refused (-c 64 on a full
 * host: 40 connecting at the first tick, field trial 7).
 */
static int
refused(const struct verdict_input *in)
{
    int away = in->clients - in->connected, down;

    if (!isnan(in->connect_share) || in->connected < 0 ||
        !(in->errors > 0 || (in->last_error != NULL && in->last_error[0])))
        return 0;
    if (in->whole_run) /* "11 of 32" at the last tick where 13 never got in: 2 were retrying */
        down = away < in->never_done ? away : in->never_done;
    else /* a refused client trying again at the tick is still refused ("refuses 4 of 32": 21) */
        down = away - (int)lround(z0(in->connecting) - z0(in->retrying));
    return down > 0 ? down : 0;
}

/*
 * "; 6 of 16 clients not connected: Too many connections": refused clients
 * spend no time the account can place, and the verdict is of the rest
 * (field trial 3, C7: max_connections 10 at -c 16 said nothing of them).
 */
static void
add_down(const struct verdict_input *in, struct verdict *v)
{
    int down = refused(in);

    if (down <= 0 || v->kind == VK_NONE || v->kind == VK_CONNECTION)
        return;
    appendf(v->evidence, EV, "; %d of %d clients not connected%s%s", down, in->clients,
            in->last_error && in->last_error[0] ? ": " : "", in->last_error ? in->last_error : "");
}

/* "; other sessions: 6 waiting on locks": others' waits are evidence, never benchtop's limit. */
static void
add_others(const struct coll_signals *g, struct verdict *v)
{
    double others = g->lock_wait - g->own_lock_wait;

    if (own_known(g) && others >= param(P_SESSION_SEEN))
        appendf(v->evidence, EV, "; other sessions: %.0f waiting on locks", others);
}

/*
 * No transaction finished and clients failed or reconnect, or most
 * transactions fail: the figures describe errors, not a limit. 1 with
 * the verdict filled.
 */
static int
failing(const struct verdict_input *in, struct verdict *v)
{
    double err = isnan(in->errors) ? 0 : in->errors;
    /* with -C clients are between connections all the time: only failures count */
    int down = isnan(in->connect_share) ? in->clients - in->connected : 0;
    /*
     * The refused clients' retries are not the transactions' failures: role
     * limit 12 at -c 32 through a 60 ms link, 18 retries/s beside 6 tps,
     * said "72% of transactions fail" and never the limit.
     */
    double txn_err = refused(in) > 0 ? fmax(err - z0(in->retry_errors), 0) : err;
    double share = txn_err + in->tps > 0 ? txn_err / (txn_err + in->tps) : 0;

    if (!(in->tps <= 0 && (err > 0 || down > 0)) && share < param(P_FAILING))
        return 0;
    /* clients still connecting while others hold the server (a SQLite file's lock): a stall */
    if (!(err > 0) && in->sig.other_stall_share > 0)
        return 0;
    memset(v, 0, sizeof(*v));
    v->kind = v->first = v->second = VK_NONE;
    v->confidence = "clear";
    if (err > 0)
        snprintf(v->evidence, EV, "no verdict: %.0f%% of transactions fail (%.0f/s)", share * 100,
                 err);
    else
        snprintf(v->evidence, EV, "no verdict: no transactions");
    if (down > 0)
        appendf(v->evidence, EV, ", %d of %d clients not connected",
                down > in->clients ? in->clients : down, in->clients);
    if (in->last_error && in->last_error[0])
        appendf(v->evidence, EV, "; last error: %s", in->last_error);
    return 1;
}

static void
update_smoothing(struct verdict_state *st, const struct verdict_input *in)
{
    const struct coll_signals *g = &in->sig;
    double rows;

    if (!in->have_server)
        return;
    st->cpu_frac = smooth(st->cpu_frac, isnan(g->on_cpu) ? NAN : fmin(g->on_cpu / in->cores, 1));
    rows = g->rows_per_txn;
    if (isnan(rows) || !(in->tps > 0))
        return;
    rows = smooth(st->rows_now, rows);
    /* one burst (an autovacuum in the same database) is not a trend */
    st->rows_rising =
        !isnan(st->rows_now) && rows >= param(P_ROWS_RISE) * st->rows_now ? st->rows_rising + 1 : 0;
    st->rows_now = rows;
    if (st->intervals > 2 && (isnan(st->rows_base) || st->rows_now < st->rows_base))
        st->rows_base = st->rows_now;
}

/*
 * The clients whose time the account holds: those connected or connecting.
 * A client the server refused waits out its reconnect backoff; that time
 * is no share's (add_down says how many), and counted as benchtop's it
 * made 5 refused of 16 "host-bound" at a host 32% busy (field trial 4).
 * With none connected the account keeps them all (the run is failing).
 */
static int
accounted_clients(const struct verdict_input *in)
{
    int n = in->connected + (int)ceil(isnan(in->connecting) ? 0 : in->connecting);

    if (!isnan(in->connect_share) || in->connected < 0 || n < 1 || n >= in->clients)
        return in->clients;
    return n;
}

/* The interval's quantities for the account; tps x latency stands in for an unmeasured flight. */
static void
account_input_make(const struct verdict_input *in, struct account_input *a)
{
    memset(a, 0, sizeof(*a));
    a->interval_s = in->interval_s > 0 ? in->interval_s : 1;
    a->clients = accounted_clients(in);
    a->rate = in->rate;
    a->flight_s = in->flight_s;
    if (!(a->flight_s > 0) && in->tps > 0 && in->lat_mean_ms > 0)
        a->flight_s = in->tps * in->lat_mean_ms / 1000 * a->interval_s *
                      (isnan(in->connect_share) ? 1 : 1 - in->connect_share);
    a->connect_s = in->connect_s;
    if (!(a->connect_s > 0) && in->connect_share > 0 && in->tps > 0)
        a->connect_s = in->tps * in->lat_mean_ms / 1000 * a->interval_s * in->connect_share;
    a->busy = in->busy;
    a->connecting = in->connecting;
    a->txns = in->tps * a->interval_s + (isnan(in->errors) ? 0 : in->errors * a->interval_s);
    a->worker_cpu = in->worker_cpu_max;
    a->worker_wait = in->worker_wait_max;
    a->throttled_pct = in->throttled_pct;
    a->rtt_ms = in->sig.rtt_ms;
    a->ops_per_txn = in->ops_per_txn;
    a->embedded = in->embedded;
    a->cores = in->cores;
    a->have_server = in->have_server;
    a->sig = in->sig;
}

/* The account smoothed: each share's per-second rate, newest weighted param(P_SMOOTH). */
static void
smooth_account(struct account *old, const struct account *now, int first)
{
    double w = first ? 1 : param(P_SMOOTH);

    for (int s = 0; s < AS__COUNT; s++) {
        old->t[s] += w * (now->t[s] - old->t[s]);
        old->obs[s] = now->obs[s];
    }
    old->total += w * (now->total - old->total);
    old->clients = now->clients;
    old->intervals = 1;
}

/*
 * Transit is the network when a round trip takes 1 ms or more and the
 * round trips are a real part of the latency (never longer than it: that
 * is a wait for a CPU); else the load is light on a short path.
 */
static enum verdict_kind
transit_kind(const struct verdict_input *in)
{
    double trips = in->ops_per_txn >= 1 ? in->ops_per_txn : 1, rtt = in->sig.rtt_ms;

    if (in->behind != NULL)
        return VK_APP; /* the database behind is idle: the request is above it */
    /*
     * A busy event loop on a full host answers the ping after every ready
     * client: a queue, as with many clients (250 at 40%). One that mostly
     * sleeps with a few (memcached at 11% with 8 behind a 1 ms proxy, the
     * host full of others: 4x clients gave x3.3) does not.
     */
    if (in->sig.server_cpu_limit > 0 && in->host_busy_pct >= param(P_HOST_FULL) &&
        (in->clients >= param(P_LOOP_QUEUE) ||
         !(in->sig.server_cpu_pct < param(P_LOOP_SLEEPS) * fmin(in->sig.server_cpu_limit, 100))))
        return VK_UNDERLOADED;
    /* one ping against a mean: half again the mean latency is a wait for a CPU, not the wire */
    if (!(rtt >= param(P_WIRE_MS)) || !(in->lat_mean_ms > 0) ||
        rtt > param(P_PING_WAITS) * in->lat_mean_ms)
        return VK_UNDERLOADED;
    return rtt * trips >= param(P_NETWORK_SHARE) * in->lat_mean_ms ? VK_NETWORK : VK_UNDERLOADED;
}

/*
 * Transit time t into the kinds it stands for. Behind an application tier
 * it is the clients' wait for the app's workers, which spend their time as
 * the database's sessions they hold do: a queue in front of workers that
 * wait on a row lock is the lock's (php holding a row 20 ms: 47 tps of 50,
 * sessions 73% in lock waits, more php workers gave nothing).
 */
static void
transit_split(const struct verdict_input *in, double t, double g[VK__COUNT])
{
    const struct coll_signals *s = &in->sig;
    enum verdict_kind k = transit_kind(in);
    double n = s->sessions,
           f[4] = {z0(s->lock_wait), z0(s->on_cpu), z0(s->commit_wait), z0(s->io_wait)};
    static const enum verdict_kind to[4] = {VK_LOCK, VK_SERVER_CPU, VK_COMMIT, VK_IO};
    double sum = f[0] + f[1] + f[2] + f[3];

    if (k != VK_APP || !(n >= 1) || !(sum > 0)) {
        g[k] += t;
        return;
    }
    for (size_t i = 0; i < sizeof to / sizeof to[0]; i++) {
        g[to[i]] += t * f[i] / fmax(n, sum);
        g[VK_APP] -= t * f[i] / fmax(n, sum);
    }
    g[VK_APP] += t;
}

/* The clients' time behind each verdict kind: the account's shares grouped. */
static void
group_shares(const struct verdict_state *st, const struct verdict_input *in,
             const struct account *a, double g[VK__COUNT])
{
    double transit = account_share(a, AS_TRANSIT), whole = 0;

    memset(g, 0, sizeof(double) * VK__COUNT);
    g[VK_CLIENT] =
        account_share(a, AS_BENCHTOP) + account_share(a, AS_RUNQ) + account_share(a, AS_QUOTA);
    g[VK_CONNECTION] = account_share(a, AS_CONNECT);
    g[VK_SERVER_CPU] = account_share(a, AS_SERVER_CPU) + account_share(a, AS_SERVER_OTHER);
    g[VK_LOCK] = account_share(a, AS_LOCK);
    g[VK_IO] = account_share(a, AS_DISK);
    g[VK_COMMIT] = account_share(a, AS_COMMIT);
    g[VK_STALL] = account_share(a, AS_STALL);
    g[VK_POOL] = account_share(a, AS_POOL);
    g[VK_APP] = account_share(a, AS_APP);
    /* the run's transit as each interval named its own (a round trip of one tick is noise) */
    for (int k = 0; k < VK__COUNT && a->intervals > 1; k++)
        whole += st->transit_by[k];
    for (int k = 0; k < VK__COUNT && whole > 0; k++)
        g[k] += transit * st->transit_by[k] / whole;
    if (!(whole > 0))
        transit_split(in, transit, g);
    /* a sleep the statements ask for is no resource's: more clients overlap more of them */
    g[VK_UNDERLOADED] +=
        account_share(a, AS_SCHEDULE) + account_share(a, AS_IDLE) + account_share(a, AS_SLEEP);
}

/* The two largest groups. */
static void
top_two(const double g[VK__COUNT], int *a, int *b)
{
    *a = *b = VK_NONE;
    for (int k = VK_CLIENT; k < VK_MIXED; k++) {
        if (*a == VK_NONE || g[k] > g[*a]) {
            *b = *a;
            *a = k;
        } else if (*b == VK_NONE || g[k] > g[*b]) {
            *b = k;
        }
    }
}

/* The server's CPU in use, 0..1 of what it may use (never above the host's cores). */
static double
server_used(const struct verdict_state *st, const struct window *w)
{
    return isnan(server_load(st, w)) ? 0 : server_load(st, w);
}

/*
 * A round trip that is a wire, even on a full host: 5 ms or more, or
 * within a quarter of the last interval's (waiting for a CPU jitters).
 */
static int
steady_rtt(const struct verdict_state *st, const struct verdict_input *in)
{
    double r = in->sig.rtt_ms, last = st->last_rtt_ms;

    return r >= param(P_STEADY_RTT_MS) || (r >= param(P_WIRE_MS) && last >= param(P_WIRE_MS) &&
                                           fabs(r - last) <= param(P_RTT_JITTER) * fmin(r, last));
}

/*
 * A wire is a floor under every transaction: even the fastest 1% took a
 * round trip of 1 ms or more each, near what the ping says. Waits for a
 * CPU on a full host start from nearly 0, so some transactions get
 * through fast (memcached behind a 1 ms proxy on a host two busy loops
 * filled: p1 above 2 ms, pings of 2.4-3.2 ms from tick to tick, "not
 * enough load" for 6 of 8 s; 4x clients gave x3.1).
 */
static int
wire_floor(const struct verdict_input *in)
{
    double trips = in->ops_per_txn >= 1 ? in->ops_per_txn : 1, f = in->lat_floor_ms / trips;

    return f >= param(P_WIRE_MS) && f >= param(P_FLOOR_RTT) * in->sig.rtt_ms;
}

/*
 * A full host that the run's own processes (server side and benchtop,
 * with the kernel's packet work) hold most of: its transit is their wake-ups waiting for a core
 * (select-only at 2 clients kept both cores busy, server 121% and
 * benchtop 78%, each session on CPU a quarter of the time).
 */
static int
run_holds_host(const struct window *w)
{
    const struct host_split *h = &w->split;

    return w->host_full && !w->in->embedded && !isnan(h->server) && w->host_used > 0 &&
           (h->server + h->benchtop + z0(h->kernel)) >= param(P_RUN_HOLDS) * w->host_used;
}

static int
run_fills_host(const struct window *w)
{
    return w->in->rate <= 0 && run_holds_host(w);
}

/* The host's cores nobody uses; NAN when its busy share is unknown. */
static double
cores_free(const struct window *w)
{
    return w->in->cores * (100 - w->in->host_busy_pct) / 100;
}

/* The server's busiest thread on a CPU or waiting for one 85% of the time, with a setting to add.
 */
static int
thread_full(const struct window *w, const struct coll_signals *g)
{
    /* threads that only move bytes help a thread that runs, not one that waits for a core */
    double wait = isnan(g->thread_wait_pct) || g->threads_io_only ? 0 : g->thread_wait_pct;

    /*
     * On a full host only a thread that runs nearly all the time: it has
     * its core and is still short (100 KB SETs, the main thread at 94% with
     * others taking 55-67%: io-threads 2 gave x2, field trial 4, C9); one
     * that runs 54% waits for a core, which helpers only take from it.
     */
    if (g->threads_io_only && w->host_full && !(g->thread_max_pct >= param(P_IO_THREAD_RUNS)))
        return 0;
    /*
     * I/O threads on a full host that the server and benchtop hold between
     * them: a helper takes its core from benchtop, and spins for work
     * (Redis mixed 1:1 of 1 KB values, its thread at 99%, benchtop 88% of
     * 2 cores: io-threads 2 gave 50.9k and 57.4k tps against 101.6k and
     * 105.5k). C9 above had others holding 55-67%.
     */
    if (g->threads_io_only && w->host_full && !isnan(w->split.others) &&
        w->split.others < param(P_OTHERS_SMALL))
        return 0;
    /*
     * ... and short of full, with less than half a core free and benchtop
     * at 40% of a core or more (GET at -c 50, the thread at 99%, benchtop
     * 78%, 0.2 cores free: io-threads 2 gave -33%, field trial 7, case 9b)
     */
    if (g->threads_io_only && !isnan(w->split.others) && w->split.others < param(P_OTHERS_SMALL) &&
        z0(w->split.benchtop) >= param(P_BENCHTOP_BUSY) && cores_free(w) < param(P_CORES_FREE))
        return 0;
    /*
     * On a full host, a thread that waits for a core longer than it runs,
     * or as many threads as the host has cores: more threads only share
     * the same cores (memcached -t 2 at 50% and 43% waiting on 2 cores:
     * -t 4 gave 90.7k and 75.0k tps against 86.6k and 90.0k).
     */
    if (w->host_full &&
        (wait > g->thread_max_pct || (w->in->cores > 0 && g->server_threads >= w->in->cores)))
        return 0;
    /* others' slow commands fill the thread too: a stall, not a short thread */
    double busy = 100 * account_loop_busy(g, (g->thread_max_pct + wait) / 100);

    return g->server_threads > 0 && busy >= param(P_THREAD_FULL) && g->threads_setting[0];
}

/*
 * A buffer pool that misses a tenth of its lookups or more, at a thousand
 * reads a second, while the server is busy: the reads come from the OS's
 * cache, too fast to show as I/O waits, and their copies are the server's
 * CPU. Only where the server's CPU is the limit: on a host others kept
 * busy (load 6-9), scale 30 with 128 MB shared_buffers (hit ratio 75%)
 * against 1.2 GB prewarmed gave 6,736 and 6,764 tps (two pairs each):
 * there the host was the limit, not the misses. Nor where each
 * transaction scans (param(P_SCAN_ROWS)).
 */
static int
misses_cost_cpu(const struct verdict_state *st, const struct window *w)
{
    const struct coll_signals *g = &w->in->sig;

    return g->hit_ratio < param(P_MISSES_COST) && g->disk_reads_s >= param(P_MISS_READS) &&
           g->mem_limit_setting[0] && !warming(g) &&
           (server_used(st, w) >= param(P_SERVER_BUSY) ||
            w->split.server >= 100 * param(P_SERVER_BUSY)) &&
           !(st->rows_now >= param(P_SCAN_ROWS));
}

/*
 * How much benchtop's CPU quota held it back, %: the interval's, or the
 * account's share when larger (the account is smoothed over intervals,
 * the final one is the run's: one interval that was throttled less must
 * not turn a quota that held the run into "host").
 */
static double
quota_pct(const struct window *w)
{
    double share = w->acct != NULL ? 100 * account_share(w->acct, AS_QUOTA) : 0;

    return fmax(z0(w->in->throttled_pct), share);
}

/* The host is full and others than the server hold a real part of it. */
static int
host_shared(const struct window *w)
{
    const struct host_split *h = &w->split;

    if (!w->host_full || w->in->embedded)
        return 0;
    /* without the server's own CPU, a full host is the host, not the server */
    return isnan(h->server) || host_split_others_hold(h) ||
           h->benchtop >= param(P_HOST_PART) * w->host_used;
}

/*
 * The server's processes hold half the busy host or more, benchtop little:
 * its CPU is the limit even with others on the host, who cost it at most
 * what they hold (a missing index at 8 clients, server 139% of 200%,
 * others 59%: the index gave x294; stopping the others could give x1.4).
 */
static int
server_holds_host(const struct window *w)
{
    const struct host_split *h = &w->split;

    return !isnan(h->server) && w->host_used > 0 &&
           h->server >= param(P_SERVER_HOLDS) * w->host_used &&
           z0(h->benchtop) < param(P_HOST_PART) * w->host_used;
}

/*
 * The kind the largest share names, made precise: benchtop or the server
 * with a full shared host is the host; a busy thread of a threaded server
 * is that thread; disk reads of a pool that misses are memory (a cache's
 * evictions are not: its misses cost no more than its hits, and add_cache
 * names them beside the limit); an idle
 * load at a rate it cannot keep is the rate; CPU that is not saturated is
 * not a limit (more clients would raise tps).
 */
static enum verdict_kind
refine(const struct verdict_state *st, const struct window *w, enum verdict_kind k)
{
    const struct verdict_input *in = w->in;
    const struct coll_signals *g = &in->sig;
    double wants = in->worker_cpu_max + (isnan(in->worker_wait_max) ? 0 : in->worker_wait_max);

    if (k == VK_IO && g->hit_ratio < param(P_MEMORY_HITS) && !warming(g))
        return VK_MEMORY;
    if (k == VK_SERVER_CPU && !host_shared(w) && misses_cost_cpu(st, w))
        return VK_MEMORY;
    /* a jittery few ms of transit on a full host are waits for a CPU, not a wire */
    if (k == VK_NETWORK && w->host_full && !steady_rtt(st, in) && !wire_floor(in))
        k = VK_UNDERLOADED;
    /*
     * Late starts with every client busy: the tick's gauge, or no time
     * spent waiting for the schedule (4 clients: one between transactions
     * at the tick is 75%, though none ever waited).
     */
    /*
     * ... unless the server and benchtop fill the host: more clients only
     * share the same cores (-R 80000 at -c 2, host 99.9%, server 125% and
     * benchtop 75%: -c 16 gave -12% and -c 4 -13%, field trial 5, C4).
     */
    if ((k == VK_UNDERLOADED || k == VK_NETWORK) && in->rate > 0 &&
        in->late_share >= param(P_LATE) &&
        (in->busy >= param(P_ALL_BUSY) * in->clients ||
         account_share(w->acct, AS_SCHEDULE) < param(P_SHARE_MIN)))
        return run_holds_host(w) ? VK_HOST : VK_OPEN_LOOP;
    /* an open loop that keeps its rate is limited by the rate, whatever its threads wait for */
    if ((k == VK_CLIENT || k == VK_UNDERLOADED) && in->rate > 0 &&
        in->tps >= param(P_RATE_KEPT) * in->rate && !(quota_pct(w) >= param(P_QUOTA_HELD)))
        return VK_UNDERLOADED;
    if (k == VK_CLIENT && quota_pct(w) >= param(P_QUOTA_HELD))
        return VK_CLIENT;
    /*
     * SQLite's work runs in benchtop's job threads: a loop thread that
     * mostly waits for a CPU (1% on one, 54% waiting, on a host others kept
     * busy) is not short of threads; the host's CPU is what it waits for.
     */
    if (k == VK_CLIENT && in->embedded)
        return z0(in->worker_wait_max) > in->worker_cpu_max ? VK_HOST : VK_CLIENT;
    /*
     * An event loop that others' slow commands hold a fifth of the time
     * or more is theirs first: the loop's busy rest includes writing their
     * replies, which no slowlog times (KEYS * over a million keys, 40% in
     * the slowlog, the thread 93% busy: stopping it gave x2.2).
     */
    if ((k == VK_SERVER_CPU || k == VK_UNDERLOADED || k == VK_NETWORK) && isnan(g->active) &&
        account_share(w->acct, AS_STALL) >= param(P_STALL_LOOP))
        return VK_STALL;
    /*
     * A server thread that wants a whole core (running or waiting for one)
     * is the serial limit, on a shared host too: more threads take more of
     * it (memcached -t 1 at 52% + 40% waiting on a full host: -t 4 gave +64%).
     */
    if ((k == VK_SERVER_CPU || k == VK_UNDERLOADED || k == VK_NETWORK) && thread_full(w, g))
        return VK_THREAD;
    /*
     * A thread that waits for a CPU longer than it runs, or wants a core
     * (running and waiting) but runs under 75% of one, is short of CPU, not
     * of threads (45% on one and 49% waiting, host 85%; 54% and 37%, host
     * 88%: nginx held the rest): the host, whoever holds it.
     */
    if (k == VK_CLIENT &&
        (w->host_full || z0(in->worker_wait_max) > in->worker_cpu_max ||
         (in->worker_cpu_max < param(P_WANTS_CORE) && wants >= param(P_WANTS_CORE))))
        return VK_HOST;
    /*
     * The host only where the account holds its waits: benchtop's time on a
     * full host it shares, or the server's CPU while others hold a real part
     * of it. Transit and a light load on a full host are not in CPU waits.
     */
    if (k == VK_SERVER_CPU && host_shared(w) && !server_holds_host(w))
        return VK_HOST;
    if (k == VK_UNDERLOADED && run_fills_host(w))
        return VK_HOST;
    if (k == VK_SERVER_CPU && !in->embedded && !w->host_full &&
        cpu_saturation(server_used(st, w), g->server_cpu_limit) < param(P_THRESHOLD))
        k = VK_UNDERLOADED;
    if (k == VK_CLIENT && wants < param(P_WANTS_CORE) && !w->host_full)
        k = VK_UNDERLOADED;
    return k;
}

/* What relieves lock waits, by what the waiters wait for. */
static const char *
lock_advice(enum lock_kind k)
{
    switch (k) {
    case LK_ROW:
        return " for rows others write: spread the writes over more rows (for the tpcb-like "
               "workload: a larger scale), or hold them for less (fewer round trips inside "
               "each transaction)";
    case LK_TABLE:
        return " for a whole table: row locks instead (a storage engine that has them, no "
               "LOCK TABLE), or cheaper statements while it is held";
    case LK_METADATA:
        return " for a table's metadata lock: DDL, or a long transaction on the table, "
               "holds it; end that";
    case LK_ADVISORY:
        return " for an advisory lock the application takes: a finer key (per row or "
               "client), or hold it for less (not across round trips)";
    case LK_FILE:
        return " for the file's one writer: fewer, larger transactions (--batch N)";
    default:
        return ": shorter transactions, or fewer clients writing the same rows";
    }
}

/*
 * Row locks whose holders mostly wait for their client between statements
 * (the chains' roots idle in their transactions): the rows are held across
 * round trips, and fewer of them is the first relief (pgbench scale 1,
 * -c 16: one function call a transaction x2.0, a larger scale x1.2).
 */
#define ROUND_TRIPS_ADVICE                                                                         \
    " for rows others write, held across round trips (their holders mostly wait for their "        \
    "client's next statement): fewer round trips inside each transaction (its statements in "      \
    "one function or request), or spread the writes over more rows (for the tpcb-like workload: "  \
    "a larger scale)"

static int
held_across_round_trips(const struct coll_signals *g)
{
    return g->lock_root_client > 0 && g->lock_root_client >= g->lock_root_commit &&
           g->lock_root_client >= g->lock_root_other;
}

/*
 * "3 of 4 active benchtop sessions wait on locks"; never "0 of 0" (the
 * last glance through PgBouncer saw none, field trial 7, case 5).
 */
static void
advise_waits(const struct coll_signals *g, const char *what, char *ev)
{
    int own = own_known(g);
    double n = own ? g->own_lock_wait : g->lock_wait;
    char nn[32];

    if (strcmp(what, "wait on locks") != 0)
        n = strcmp(what, "read from disk") == 0 ? (own ? g->own_io_wait : g->io_wait)
            : own ? g->own_commit_wait - (isnan(g->own_io_wait) ? 0 : g->own_io_wait)
                  : g->commit_wait;
    n_of(nn, sizeof(nn), n, own ? g->own_active : g->active);
    /* none at the glance the figures are of, though the account's earlier ones saw them */
    if (strcmp(nn, "?") == 0 || !(n > 0))
        snprintf(ev, EV, "sessions %s", what);
    else
        snprintf(ev, EV, "%s active %s sessions %s", nn, own ? "benchtop" : "client", what);
}

/*
 * Lock waiters whose chain ends at a session waiting for the commit (the
 * account's commit share holds them too): "; 6 more wait on locks held by
 * sessions that do". Nothing when no chain was followed.
 */
static void
advise_commit_locks(const struct coll_signals *g, char *ev)
{
    double roots = g->lock_root_commit + g->lock_root_client + g->lock_root_other;
    double lock = own_known(g) ? g->own_lock_wait : g->lock_wait;
    double n = lock * g->lock_root_commit / fmax(roots, g->lock_wait);

    if (n >= 0.05)
        appendf(ev, EV,
                n >= 10 || fabs(n - round(n)) < 0.05
                    ? "; %.0f more wait on locks held by sessions that do"
                    : "; %.1f more wait on locks held by sessions that do",
                n);
}

/*
 * The collector's "try ..." for a commit: its "--batch N" said to a run
 * that batches already is a larger batch (field trial 4, C6: --batch 100
 * was still told "try --batch N").
 */
static void
try_commit(const struct coll_signals *g, double ops_per_txn, char *ev)
{
    const char *b = strstr(g->commit_advice, "--batch N");

    if (b == NULL || !(ops_per_txn >= 2))
        appendf(ev, EV, "; try %s", g->commit_advice);
    else
        appendf(ev, EV, "; try %.*sa larger --batch (each commit holds %.0f statements now)",
                (int)(b - g->commit_advice), g->commit_advice, ops_per_txn);
}

/* What relieves a commit-bound run, with the log syncs when counted. */
static void
advise_commit(const struct coll_signals *g, double ops_per_txn, char *ev)
{
    double per = syncs_per_commit(g);

    advise_waits(g, "wait for the commit", ev);
    advise_commit_locks(g, ev);
    if (g->sync_each_commit[0] && !isnan(per))
        appendf(ev, EV, "; each of %.0f writes/s waits for a log sync (%s)", g->commits_s,
                g->sync_each_commit);
    else if (!isnan(per))
        appendf(ev, EV, "; %.2f log syncs per commit (%.0f/s)", per, g->log_syncs_s);
    if (!isnan(g->log_sync_ms_s))
        appendf(ev, EV, "; log sync %.0f ms/s", g->log_sync_ms_s);
    else if (g->sync_untimed[0])
        appendf(ev, EV, "; turn %s on for the sync time", g->sync_untimed);
    if (g->checkpoints_req_s > 0)
        appendf(ev, EV, "; %.1f requested checkpoints/s: raise the log size", g->checkpoints_req_s);
    if (g->redo_fill >= param(P_REDO_FULL) && g->redo_setting[0])
        appendf(ev, EV, "; the redo log is %.0f%% full (checkpoint age): raise %s",
                100 * g->redo_fill, g->redo_setting);
    if (g->commit_held[0])
        appendf(ev, EV, "; %s: end it", g->commit_held);
    /*
     * Syncs counted (or unknown) are what the setting relieves, a few too:
     * group commit shares one among commits that all wait for it (InnoDB
     * at 0.26 a commit: innodb_flush_log_at_trx_commit=2 gave x6.1); next
     * to none, the wait is not a sync.
     */
    if (g->commit_advice[0] && !(per < param(P_SYNCS_NONE)))
        try_commit(g, ops_per_txn, ev);
}

/*
 * benchtop may run on fewer CPUs than the host has (taskset, a cpuset)
 * and its thread waits for one a third of the time or more: the pin is
 * said, as a wider affinity often lets it run. Redis GET with benchtop and
 * a busy loop on CPU 0 of 2 said "others take the CPU" only; unpinning
 * gave +53% (field trial 7, case 20); here +8..17% (busy host), and
 * PostgreSQL select-only +4..25%; memcached on both CPUs -1%. A thread
 * that waits less (17-21%, one loop on its CPU) gained nothing: -1..-7%.
 */
static int
pinned_short(const struct verdict_input *in)
{
    return in->allowed_cpus > 0 && in->allowed_cpus < in->cores &&
           z0(in->worker_wait_max) >= param(P_PINNED_WAIT);
}

static void
add_affinity(const struct window *w, char *ev)
{
    const struct verdict_input *in = w->in;

    if (!pinned_short(in))
        return;
    appendf(ev, EV,
            "; benchtop may run on %d of the %d CPUs only (its affinity: taskset, a cpuset) and "
            "its thread waits for one %.0f%% of the time",
            in->allowed_cpus, in->cores, in->worker_wait_max);
    if (!isnan(in->outside_busy_pct))
        appendf(ev, EV, ", the others %.0f%% busy", in->outside_busy_pct);
    appendf(ev, EV, ": a wider affinity often lets it run");
}

static void
advise_client(const struct window *w, char *ev)
{
    const struct verdict_input *in = w->in;

    if (quota_pct(w) >= param(P_QUOTA_HELD))
        snprintf(ev, EV,
                 "benchtop held back by its CPU quota (%.2f cores, %s) %.0f%% of the time: raise "
                 "the quota",
                 in->quota, in->quota_where ? in->quota_where : "cgroup", quota_pct(w));
    else if (in->embedded)
        snprintf(ev, EV, "the database runs in benchtop's threads, busiest at %.0f%% CPU: add -j",
                 in->worker_cpu_max);
    else
        snprintf(ev, EV,
                 "benchtop thread at %.0f%% CPU and %.0f%% waiting for one: add -j or run "
                 "benchtop on another machine",
                 in->worker_cpu_max, isnan(in->worker_wait_max) ? 0 : in->worker_wait_max);
    add_affinity(w, ev);
}

/*
 * The server runs each session on a process or thread of its own (not an
 * event loop) and holds most of a full host with eight sessions a core or
 * more: each session's turn on a CPU costs switches the work does not
 * need. PostgreSQL select-only at -c 64 on 2 cores, host 99%, server 170%:
 * -c 8 gave +127% on the same CPU, -j 1 +13% (field trial 7); at -c 32
 * +98% (try). MariaDB point-select at -c 64: -c 8 gave +5% tps and p99
 * 6.98 -> 0.86 ms. The sessions, or 0.
 */
static double
many_sessions(const struct window *w)
{
    const struct host_split *h = &w->split;
    const struct coll_signals *g = &w->in->sig;
    double n = !isnan(g->own_sessions) ? g->own_sessions : g->sessions;

    if (h->event_loop || isnan(n) || h->cores <= 0 || n < param(P_SESSIONS_PER_CORE) * h->cores ||
        !(h->server >= param(P_SERVER_HOLDS) * w->host_used))
        return 0;
    return n;
}

static void
advise_host(const struct window *w, char *ev)
{
    const struct host_split *h = &w->split;
    const struct coll_signals *g = &w->in->sig;
    double sessions = many_sessions(w);

    if (w->in->embedded || isnan(h->server)) {
        snprintf(ev, EV,
                 "benchtop's thread waits for a CPU %.0f%% of the time (on one %.0f%%)%s: the "
                 "host's CPU is taken; stop other programs or run on a quiet host",
                 z0(w->in->worker_wait_max), w->in->worker_cpu_max,
                 w->in->embedded ? ", the database in its threads" : "");
        if (!isnan(h->busy))
            appendf(ev, EV, "; host CPU %.0f%% of %d cores", h->busy, h->cores);
        add_affinity(w, ev);
        return;
    }

    snprintf(ev, EV,
             "host CPU %.0f%% of %d cores: server %.0f%%%s%s%s, benchtop %.0f%%, others "
             "%.0f%%",
             h->busy, h->cores, h->server, h->names[0] ? " (" : "", h->names,
             h->names[0] ? ")" : "", h->benchtop, h->others);
    if (z0(h->kernel) >= param(P_KERNEL_NAMED))
        appendf(ev, EV, ", kernel (interrupts, packets) %.0f%%", h->kernel);
    if (host_split_others_hold(h))
        appendf(ev, EV,
                "; other programs take the CPU: results are not the database's "
                "capacity; stop them or run on a quiet host");
    else if (sessions > 0)
        appendf(ev, EV,
                ": %.0f sessions (a process or thread each) share %d cores: fewer clients often "
                "do as much or more at a fraction of the latency (benchtop try --try-clients "
                "%d), or run benchtop on another machine",
                sessions, h->cores, 4 * h->cores);
    else
        appendf(ev, EV, ": run benchtop on another machine%s",
                w->in->threads > 1 ? ", or fewer -j" : ""); /* at -j 1 there is none fewer */
    /*
     * Others below the share that makes the host theirs still hold what
     * they hold (two yes at 35% beside benchtop's 40%: stopping them gave
     * +34%, field trial 4, C13): said beside benchtop's part.
     */
    if (!host_split_others_hold(h) && h->others >= param(P_OTHERS_NAMED) &&
        h->others >= param(P_HOST_PART) * w->host_used)
        appendf(ev, EV, "; other programs take %.0f%%: stopping them frees as much", h->others);
    if (pinned_short(w->in))
        add_affinity(w, ev);
    else if (z0(w->in->worker_wait_max) >= param(P_WAIT_NAMED))
        appendf(ev, EV, "; benchtop's thread waits for a CPU %.0f%% of the time",
                w->in->worker_wait_max);
    /* an event loop below its core still gains from more clients ready per wakeup */
    if (h->event_loop && g->server_cpu_pct < param(P_SATURATED) * g->server_cpu_limit)
        appendf(ev, EV,
                "; its event loop at %.0f%% of %.0f%% can still gain from more clients per wakeup",
                g->server_cpu_pct, fmin(g->server_cpu_limit, 100.0 * h->cores));
}

/*
 * The busy thread runs one command a quarter of its time or more, and the
 * threads to add only read and write (Redis io-threads): more of them
 * cannot take that work, and each spins for the rest (LRANGE of 10k
 * elements, 90% of the thread: io-threads 2 gave -25% and -26%; of 100
 * elements, 5 us a call, 38%: -40%). GETs run 10% of it.
 */
static int
commands_fill_thread(const struct coll_signals *g)
{
    return g->threads_io_only && g->cmd_top[0] && g->thread_max_pct > 0 &&
           g->cmd_top_busy >= param(P_CMD_FILLS) * g->thread_max_pct / 100;
}

/* What the server's threads are: nginx's are worker processes. */
static const char *
thread_word(const struct coll_signals *g)
{
    return strstr(g->threads_setting, "processes") != NULL ? "worker" : "thread";
}

/* "; other programs take 94% of the host's 2 cores: ...": on a full host they hold. */
static void
add_others_hold(const struct window *w, char *ev)
{
    if (w->host_full && host_split_others_hold(&w->split))
        appendf(ev, EV,
                "; other programs take %.0f%% of the host's %d cores: figures below its "
                "capacity",
                w->split.others, w->split.cores);
}

/* "; benchtop takes 78% of a core on a host with 0.2 cores free: a thread more competes ..." */
static void
add_competes(const struct window *w, char *ev)
{
    if ((w->host_full || cores_free(w) < param(P_CORES_FREE)) &&
        z0(w->split.benchtop) >= param(P_BENCHTOP_BUSY) &&
        z0(w->split.others) < param(P_OTHERS_SMALL))
        appendf(ev, EV,
                "; benchtop takes %.0f%% of a core on a host with %.1f cores free: a %s more "
                "competes with it (run benchtop on another machine)",
                w->split.benchtop, fmax(cores_free(w), 0), thread_word(&w->in->sig));
}

static void
advise_server(const struct verdict_state *st, const struct window *w, enum verdict_kind k, char *ev)
{
    const struct coll_signals *g = &w->in->sig;
    double limit = g->server_cpu_limit;
    char rows[32];

    if (!isnan(w->host_used) && limit > 100.0 * w->in->cores)
        limit = 100.0 * w->in->cores; /* a limit is never above the host's cores */
    if (k == VK_THREAD && commands_fill_thread(g))
        snprintf(ev, EV,
                 "one of the server's %.0f threads at %.0f%% of a core, %.0f%% of one running "
                 "%s (%.0f us a call): %s does not run commands; cheaper commands (a smaller "
                 "range, fewer elements), or more shards",
                 g->server_threads, g->thread_max_pct, 100 * g->cmd_top_busy, g->cmd_top,
                 g->cmd_top_usec, g->threads_setting);
    else if (k == VK_THREAD && g->thread_wait_pct >= 1)
        snprintf(ev, EV,
                 "one of the server's %.0f %ss at %.0f%% of a core and %.0f%% waiting for "
                 "one: raise %s",
                 g->server_threads, thread_word(g), g->thread_max_pct, g->thread_wait_pct,
                 g->threads_setting);
    else if (k == VK_THREAD)
        snprintf(ev, EV, "one of the server's %.0f %ss at %.0f%% of a core: raise %s",
                 g->server_threads, thread_word(g), g->thread_max_pct, g->threads_setting);
    /*
     * A full host that benchtop shares with the server, nobody else: a
     * thread more takes its core from benchtop (memcached -t 1 beside
     * benchtop at 90%: -t 2 and -t 4 gave -8% to -57%, field trial 4, C10;
     * on a quieter host -t 4 gave +9% and +17%). Said, not hidden. Less
     * than half a core free is as full: nginx's one worker at 96% beside
     * benchtop at 71%, host 88%: worker_processes 2 gave 61.8k and 60.2k
     * tps against 54.2k and 62.1k (field trial 5, C12).
     */
    if (k == VK_THREAD)
        add_competes(w, ev);
    /*
     * others on a full host take cores a thread more would want (nginx's
     * one worker at 66% and 22% waiting beside two yes: worker_processes 2
     * gave +14%, stopping the yes x1.7)
     */
    if (k == VK_THREAD) {
        add_others_hold(w, ev);
        return;
    }
    if (scans_lead(st, g)) {
        fmt_count(rows, sizeof(rows), st->rows_now);
        if (g->seq_scans_s >= 1)
            snprintf(ev, EV,
                     "%s: each transaction reads %s rows, with %.0f sequential scans/s%s%s: an "
                     "index on what the statements filter by, else a faster or larger server",
                     w->server, rows, g->seq_scans_s, g->seq_scan_table[0] ? " on table " : "",
                     g->seq_scan_table);
        else
            snprintf(ev, EV,
                     "%s: each transaction reads %s rows: an index on what the statements "
                     "filter by, else a faster or larger server",
                     w->server, rows);
    } else if (!isnan(limit) && !isnan(g->server_cpu_pct))
        snprintf(ev, EV,
                 "server CPU %.0f%% of %.0f%%: a faster or larger server, or cheaper "
                 "queries",
                 g->server_cpu_pct, limit);
    else
        snprintf(ev, EV,
                 "%s (%.0f%% of its capacity): a faster or larger server, or cheaper "
                 "queries",
                 w->server, server_used(st, w) * 100);
    if (g->threads_io_only) /* its one thread: the threads to add would compete too */
        add_competes(w, ev);
    add_others_hold(w, ev);
}

static void
advise_memory(const struct coll_signals *g, char *ev)
{
    char n[32];

    fmt_count(n, sizeof(n), isnan(g->evictions_s) ? g->disk_reads_s : g->evictions_s);
    snprintf(ev, EV, "the working set does not fit: %s %s/s", n,
             isnan(g->evictions_s) ? "disk reads" : "evictions");
    if (!isnan(g->hit_ratio))
        appendf(ev, EV, ", hit ratio %.1f%%", g->hit_ratio * 100);
    if (g->mem_limit > 0)
        appendf(ev, EV, ", %.0f MB of %.0f MB", g->mem_used / 1048576, g->mem_limit / 1048576);
    appendf(ev, EV, ": raise %s", g->mem_limit_setting[0] ? g->mem_limit_setting : "its memory");
}

/* A full worker pool with a queue, or a database behind with room: the time is in the app. */
static void
advise_app(const struct window *w, char *ev)
{
    const struct verdict_input *in = w->in;
    const struct coll_signals *g = &in->sig;
    const struct host_split *h = &w->split;
    char n[32];

    /*
     * The queue's workers burn the host's CPU themselves: more only share
     * the same cores (a page of 6 ms of CPU, pm.max_children 16, 17
     * queued, the server side at 190% of 2 cores: 2 children gave +11%,
     * field trial 7, case 12b). A page that sleeps leaves the host idle.
     */
    if (g->app_workers > 0 && g->app_queue >= 1 && !in->behind &&
        (w->host_full || cores_free(w) < param(P_CORES_FREE)) && !host_split_others_hold(h) &&
        h->server >= param(P_RUN_HOLDS) * w->host_used) {
        snprintf(ev, EV,
                 "%s at %s %.0f, %.0f requests queued, and the server side%s%s%s takes %.0f%% "
                 "of the host's %d cores: more workers only share them; a cheaper page, or "
                 "more cores",
                 g->app_name, g->app_limit, g->app_workers, g->app_queue, h->names[0] ? " (" : "",
                 h->names, h->names[0] ? ")" : "", h->server, h->cores);
        return;
    }
    if (g->app_workers > 0 && g->app_queue >= 1) {
        snprintf(ev, EV, "%s at %s %.0f, %.0f requests queued; raise %s if %s", g->app_name,
                 g->app_limit, g->app_workers, g->app_queue, g->app_limit,
                 in->behind ? "the database has room" : "the host has room");
        return;
    }
    n_of(n, sizeof(n), g->active, g->sessions);
    snprintf(ev, EV, "%s has spare capacity (%s sessions active); latency is spent above it",
             in->behind ? in->behind : "the database", n);
}

/* Nothing saturated: more clients, unless the last rise gained nothing or the host is full. */
static void
advise_light(const struct window *w, char *ev)
{
    const struct verdict_input *in = w->in;
    double sleep = account_share(w->acct, AS_SLEEP);

    if (sleep >= param(P_SLEEP_NAMED) && in->rate <= 0) {
        snprintf(ev, EV,
                 "the statements sleep %.0f%% of the clients' time (pg_sleep, SLEEP()): the "
                 "server waits on their timers; add clients to overlap more of them",
                 sleep * 100);
        return;
    }
    if (isnan(in->worker_cpu_max))
        snprintf(ev, EV, "nothing is saturated (benchtop's threads not measured, %s)", w->server);
    else
        snprintf(ev, EV, "nothing is saturated (benchtop thread at %.0f%% CPU, %s)",
                 in->worker_cpu_max, w->server);
    if (in->rate > 0)
        appendf(ev, EV, ": the rate is the limit; raise -R");
    else if (w->host_full)
        appendf(ev, EV, ": more load would compete for a full host");
    else if (in->gain_per_doubling < param(P_FLAT_GAIN))
        appendf(ev, EV,
                "; the last rise in clients gained %.0f%% per doubling: a limit "
                "outside this account",
                in->gain_per_doubling * 100);
    else
        appendf(ev, EV, ": add clients");
}

/* The kinds whose advice is one sentence. */
static void
advise_other(const struct window *w, enum verdict_kind k, char *ev)
{
    const struct verdict_input *in = w->in;
    const struct coll_signals *g = &in->sig;

    if (k == VK_STALL && strstr(g->other_stall_what, LOCK_IDLE_WHAT) != NULL)
        snprintf(ev, EV,
                 "another session holds the locks, idle in its transaction: %s; end it "
                 "(cancel/terminate), or fix the application that leaves it open",
                 g->other_stall_what);
    else if (k == VK_STALL && strstr(g->other_stall_what, LOCK_FILE_WHAT) != NULL)
        snprintf(ev, EV, "another process holds the file's lock: %s; end its transaction%s",
                 g->other_stall_what,
                 strstr(g->other_stall_what, LOCK_FILE_READ) != NULL
                     ? ", or use journal_mode=wal (readers then keep no writer out)"
                     : "");
    else if (k == VK_STALL)
        snprintf(ev, EV, "other sessions' commands stall the server%s%s",
                 g->other_stall_what[0] ? ": " : "", g->other_stall_what);
    else if (k == VK_POOL)
        snprintf(ev, EV,
                 "%.0f clients wait for %.0f server connections (pool size %.0f): raise the pool "
                 "size%s%s%s%s",
                 g->pool_waiting, g->pool_servers, g->pool_size, g->pool_setting[0] ? " (" : "",
                 g->pool_setting, g->pool_setting[0] ? ")" : "",
                 strcmp(g->pool_mode, "session") == 0
                     ? "; in session mode a client holds its connection until it leaves: "
                       "transaction mode shares them"
                     : "");
    else if (k == VK_APP)
        advise_app(w, ev);
    else if (k == VK_CONNECTION && refused(in) > 0)
        snprintf(ev, EV,
                 "the server refuses %d of %d clients%s%s: raise its connection limit (-c %d "
                 "only ends the errors)",
                 refused(in), in->clients, in->last_error && in->last_error[0] ? ": " : "",
                 in->last_error ? in->last_error : "", in->clients - refused(in));
    else if (k == VK_CONNECTION && isnan(in->connect_share)) /* without -C */
        snprintf(ev, EV, "%.0f of %d clients connecting at the tick: %s", in->connecting,
                 in->clients,
                 in->errors > 0 ? "they connect again after errors (see the errors)"
                                : "the run's start (a connect waits for the host's CPU too), or "
                                  "a server that closes connections (its keep-alive, timeouts)");
    else if (k == VK_CONNECTION) /* through a pooler, keeping them open is what is left */
        snprintf(ev, EV, "connection set-up: keep connections open (without -C)%s",
                 isnan(g->pool_size) ? ", or a pooler" : "");
    else if (k == VK_NETWORK)
        snprintf(ev, EV,
                 "round trips of %.1f ms: the network or a proxy; more clients, or fewer round "
                 "trips per transaction",
                 fmin(in->sig.rtt_ms, in->lat_mean_ms)); /* a ping is never longer than a txn */
    else if (k == VK_OPEN_LOOP)
        snprintf(ev, EV,
                 "-R %.0f is beyond what %d clients can do: add clients (%.0f%% of transactions "
                 "late)",
                 in->rate, in->clients, in->late_share * 100);
    else if (in->have_server || in->unseen_hint == NULL)
        snprintf(ev, EV, "no verdict yet");
    else
        ev[0] = '\0'; /* explain() says what is unseen */
}

/* What the kind means and what relieves it, into ev. */
static void
advise(const struct verdict_state *st, const struct window *w, enum verdict_kind k, char *ev)
{
    const struct coll_signals *g = &w->in->sig;

    switch (k) {
    case VK_CLIENT:
        advise_client(w, ev);
        break;
    case VK_HOST:
        advise_host(w, ev);
        break;
    case VK_SERVER_CPU:
    case VK_THREAD:
        advise_server(st, w, k, ev);
        break;
    case VK_COMMIT:
        advise_commit(g, w->in->ops_per_txn, ev);
        break;
    case VK_MEMORY:
        advise_memory(g, ev);
        break;
    case VK_LOCK:
        advise_waits(g, "wait on locks", ev);
        if (g->lock_kind == LK_ROW && held_across_round_trips(g))
            appendf(ev, EV, "%s", ROUND_TRIPS_ADVICE);
        else
            appendf(ev, EV, "%s", lock_advice(g->lock_kind));
        break;
    case VK_IO:
        advise_waits(g, "read from disk", ev);
        if (warming(g))
            appendf(ev, EV,
                    ": the buffer pool is still filling (%.0f%% of %s holds pages); its "
                    "misses fall as it warms",
                    g->pool_fill * 100, g->mem_limit_setting[0] ? g->mem_limit_setting : "it");
        else
            appendf(ev, EV, ": more memory for the cache, or faster storage");
        break;
    case VK_UNDERLOADED:
        advise_light(w, ev);
        break;
    default:
        advise_other(w, k, ev);
        break;
    }
}

/* "NAME=VALUE" (a collector's commit_try) as a setting. */
static void
advise_assignment(struct advice *a, const char *nv)
{
    const char *eq = strchr(nv, '=');
    char name[48];

    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - nv) : (int)strlen(nv), nv);
    advice_setting(a, 0, name, eq ? eq + 1 : "");
}

/* The kind's advice as data, from the collectors' fields (advise() says it in words). */
static void
advise_data(const struct verdict_state *st, const struct window *w, enum verdict_kind k,
            struct advice_list *l)
{
    const struct verdict_input *in = w->in;
    const struct coll_signals *g = &in->sig;
    struct advice a;

    memset(&a, 0, sizeof a);
    a.lo = a.hi = NAN;
    if (k == VK_COMMIT && g->redo_fill >= param(P_REDO_FULL) && g->redo_setting[0])
        advice_setting(&a, 0, g->redo_setting, "");
    else if (k == VK_COMMIT && g->commit_try[0])
        advise_assignment(&a, g->commit_try);
    else if (k == VK_COMMIT)
        advice_batch(&a, in->ops_per_txn);
    else if ((k == VK_MEMORY || k == VK_IO) && g->mem_limit_setting[0])
        advice_setting(&a, 0, g->mem_limit_setting, "");
    else if (k == VK_THREAD && g->threads_setting[0] && !commands_fill_thread(g))
        advice_setting(&a, 0, g->threads_setting, "");
    else if (k == VK_POOL && g->pool_setting[0])
        advice_setting(&a, 1, g->pool_setting, "");
    else if (k == VK_APP && g->app_limit[0])
        advice_setting(&a, 0, g->app_limit, "");
    else if (k == VK_CLIENT)
        a.kind = quota_pct(w) >= param(P_QUOTA_HELD) ? ADV_QUOTA : ADV_THREADS,
        a.n = in->threads + 1;
    else if ((k == VK_UNDERLOADED && in->rate <= 0) || k == VK_NETWORK || k == VK_OPEN_LOOP)
        a.kind = ADV_CLIENTS, a.n = 2 * in->clients;
    else if (k == VK_HOST && host_split_others_hold(&w->split))
        a.kind = ADV_STOP_OTHERS;
    else if (k == VK_HOST && many_sessions(w) > 0)
        a.kind = ADV_CLIENTS, a.n = 4 * w->split.cores;
    else if (k == VK_SERVER_CPU && scans_lead(st, g))
        advice_setting(&a, 0, g->seq_scan_table, ""), a.kind = ADV_INDEX;
    else if (k == VK_SERVER_CPU)
        a.kind = ADV_HARDWARE;
    else if (k == VK_LOCK)
        a.kind = ADV_TRIPS;
    else if (k == VK_STALL)
        a.kind = ADV_STOP_SESSIONS;
    else if (k == VK_CONNECTION && !isnan(in->connect_share))
        a.kind = ADV_KEEP_CONNECTIONS;
    advice_list_add(l, &a);
}

/*
 * Other programs hold the host, and the run's own wait is next, a sixth
 * of the clients' time or more: where the neighbours cannot be stopped,
 * that is what pays. Field trial 7 on a host two busy loops held:
 * tpcb-like, commit 31% (synchronous_commit=off +63%, stopping the loops
 * +69%); point-select, disk reads 27% (a larger buffer pool +111%,
 * stopping the loops +95%).
 */
/*
 * The same for a pooler's queue: the pool's connections spend that time
 * in the wait, so a larger pool gains little alone (PgBouncer pool 2,
 * tpcb-like at -c 32, pool 57% and commit 26%: pool 16 gave +5% and
 * +19%, synchronous_commit=off -8%, both +64%, field trial 7, case 5).
 */
static void
add_own_limit(const struct verdict_state *st, const struct window *w, struct verdict *v)
{
    char own[EV];
    enum verdict_kind k = v->second;
    int host = v->kind == VK_HOST && host_split_others_hold(&w->split);

    if ((!host && v->kind != VK_POOL) || !(v->share[k] >= param(P_OWN_LIMIT)) ||
        (k != VK_COMMIT && k != VK_LOCK && k != VK_IO))
        return;
    own[0] = '\0';
    advise(st, w, refine(st, w, k), own);
    advise_data(st, w, refine(st, w, k), &v->advice);
    appendf(v->evidence, EV, "; %s: %s",
            host ? "where they cannot stop, the run's own limit"
                 : "a larger pool gains little alone, as its connections wait",
            own);
}

/* v's evidence: what its kind means and relieves, then the whole account. */
static void
explain(const struct verdict_state *st, const struct verdict_input *in, struct verdict *v)
{
    struct window w;
    char text[EV];

    window_make(in, &w);
    w.acct = &v->acct;
    advise(st, &w, v->kind, v->evidence);
    memset(&v->advice, 0, sizeof v->advice);
    advise_data(st, &w, v->kind, &v->advice);
    add_own_limit(st, &w, v);
    /*
     * whatever the kind, a server nothing samples is half the story: how to
     * see it (an app tier watched is seen: php-fpm's status page)
     */
    if (!in->have_server && in->unseen_hint != NULL && isnan(in->sig.app_workers))
        appendf(v->evidence, EV, "%sthe server's side is not seen: %s", v->evidence[0] ? "; " : "",
                in->unseen_hint);
    account_text(&v->acct, text, sizeof(text));
    appendf(v->evidence, EV, "; %s", text);
    if (in->behind != NULL && v->kind != VK_APP &&
        account_share(&v->acct, AS_TRANSIT) >= param(P_WAIT_SHARE))
        appendf(v->evidence, EV, " (transit: the queue for the app's workers, which wait so)");
    v->host = w.split;
}

/*
 * The largest share was no limit (a server's CPU far from saturated: not
 * enough load) while the next is a wait that is one whatever the load, and
 * a fifth of the time or more: that wait is the verdict. Redis blocked by
 * another client's DEBUG SLEEP 0.3 s a second: server CPU 51% (its loop
 * at 45%), stalled 27%; stopping the staller gave x1.57, more clients
 * would not have.
 */
static int
demoted_past(enum verdict_kind k, int first, int second, const double g[VK__COUNT])
{
    if (k != VK_UNDERLOADED || first == VK_UNDERLOADED || second == VK_NONE ||
        g[second] < param(P_WAIT_SHARE))
        return 0;
    return second == VK_STALL || second == VK_LOCK || second == VK_COMMIT || second == VK_IO ||
           second == VK_POOL || second == VK_MEMORY;
}

/*
 * With -C, connection set-up that holds a fifth of the clients' time or
 * more is what to relieve, also where benchtop's share (its CPU or a full
 * host) is larger: the account times the connect alone, while the
 * kernel's work for each new socket and its close lands in benchtop's
 * and the server's CPU. nginx static, -C -c 16 -j 2, full host:
 * connecting 40% (field trial) and 22% (here): keeping the connections
 * open gave x3.1 and x2.4-2.6; the verdict was the host.
 */
static int
set_up_first(const struct verdict_input *in, enum verdict_kind k, const double g[VK__COUNT])
{
    return !isnan(in->connect_share) && g[VK_CONNECTION] >= param(P_CONNECT_NAMED) &&
           (k == VK_CLIENT || k == VK_HOST);
}

/*
 * benchtop waiting for a CPU in a closed loop is partly the burst of
 * wake-ups a wait releases: when commits, locks or reads hold a sixth of
 * the clients' time or more, and over a third of that wait for a CPU,
 * relieving them pays and fewer threads do not. tpcb-like at 8 clients,
 * host 88-98% (field trial 5, C5, and session 10): benchtop waiting 28-42%,
 * commit 20-29%: synchronous_commit=off gave +18% to +50%, -j 1 -11%. At
 * 32 clients benchtop waits 64% against a commit of 14-16%: the host (off
 * gave +7% in three pairs here, 0% in the quiet-host trial). Not where
 * other programs hold the host.
 */
static int
wait_before_host(const struct window *w, enum verdict_kind k, int first, int second,
                 const double g[VK__COUNT])
{
    if (k != VK_HOST || first != VK_CLIENT || second == VK_NONE || g[second] < param(P_OWN_LIMIT) ||
        g[second] < param(P_RUNQ_PART) * account_share(w->acct, AS_RUNQ) ||
        host_split_others_hold(&w->split))
        return 0;
    return second == VK_COMMIT || second == VK_LOCK || second == VK_IO;
}

/*
 * A server that refuses a quarter of the clients or more, while the ones
 * it took leave it short of load: the refusal is the limit (Redis at
 * maxclients 10, -c 50: "not enough load: add clients"; maxclients 10000
 * gave +15% over -c 10 and +25% over the refused run). Where the rest
 * fill a CPU, that is the limit and the refused are said beside it
 * (MariaDB max_connections 5 at -c 16 on a full host: 50 gave nothing).
 */
static int
refused_first(const struct verdict_input *in, enum verdict_kind k)
{
    int down = refused(in);

    return down >= 2 && down >= param(P_REFUSED) * in->clients && in->connected > 0 &&
           (k == VK_UNDERLOADED || k == VK_NETWORK || k == VK_OPEN_LOOP || k == VK_NONE);
}

/*
 * The model over the account the verdict is named from. The run's (the
 * final verdict) has its mean tps and no one instant's clients in flight.
 */
static void
model_of(const struct verdict_state *st, const struct verdict_input *in, const struct window *w,
         struct model *m)
{
    struct model_input mi;
    int blind = !(st->run.total > 0);

    memset(&mi, 0, sizeof mi);
    mi.acct = w->acct;
    mi.sig = in->have_server ? &in->sig : NULL;
    mi.tps = in->tps;
    mi.lat_mean_ms = in->lat_mean_ms;
    mi.lat_floor_ms = in->lat_floor_ms;
    mi.interval_s = in->interval_s > 0 ? in->interval_s : 1;
    mi.in_flight = in->busy > 0 || !(in->tps > 0) ? in->busy : NAN;
    if (in->whole_run) {
        mi.tps = st->run_secs[blind] > 0 ? st->run_txns[blind] / st->run_secs[blind] : NAN;
        mi.lat_floor_ms = mi.in_flight = NAN;
    }
    mi.own_cpu_pct = in->own_cpu_pct;
    mi.host_busy_pct = in->host_busy_pct;
    mi.others_pct = w->split.others;
    mi.cores = in->cores;
    mi.threads = in->threads;
    mi.allowed_cpus = in->allowed_cpus;
    mi.quota = in->quota;
    mi.ops_per_txn = in->ops_per_txn;
    mi.clients = accounted_clients(in);
    model_make(&mi, m);
}

/* The verdict from an account: the largest group, refined, with its advice and the account. */
static void
decide(const struct verdict_state *st, const struct verdict_input *in, const struct account *a,
       struct verdict *v)
{
    struct window w;
    double g[VK__COUNT];
    int first, second;

    window_make(in, &w);
    w.acct = a;
    group_shares(st, in, a, g);
    top_two(g, &first, &second);
    memset(v, 0, sizeof(*v));
    snprintf(v->evidence_sql, sizeof v->evidence_sql, "%s",
             in->sig.other_stall_what +
                 (in->sig.other_stall_sql_at < sizeof in->sig.other_stall_what
                      ? in->sig.other_stall_sql_at
                      : 0));
    v->acct = *a;
    memcpy(v->share, g, sizeof(g));
    v->first = (enum verdict_kind)first;
    v->second = (enum verdict_kind)second;
    v->first_score = g[first];
    v->second_score = g[second];
    v->kind = account_share(a, AS_UNKNOWN) > g[first] || !(a->total > 0)
                  ? VK_NONE
                  : refine(st, &w, (enum verdict_kind)first);
    if (demoted_past(v->kind, first, second, g)) {
        int no_limit = first; /* the largest share was no limit: the next one that is */

        first = second;
        second = no_limit;
        v->kind = refine(st, &w, (enum verdict_kind)first);
    }
    if (wait_before_host(&w, v->kind, first, second, g)) {
        int host = first;

        first = second;
        second = host;
        v->kind = refine(st, &w, (enum verdict_kind)first);
    }
    if (refused_first(in, v->kind)) {
        v->kind = VK_CONNECTION; /* the light load's time is the refusal's */
    } else if (set_up_first(in, v->kind, g)) {
        second = first;
        first = VK_CONNECTION;
        v->kind = VK_CONNECTION;
    }
    if (v->kind != VK_NONE && v->kind != (enum verdict_kind)first) {
        v->share[v->kind] += v->share[first]; /* the time named moves with the name */
        v->share[first] = 0;
    }
    v->score = g[first];
    v->confidence = confidence_of(a, g, first, second);
    explain(st, in, v);
    model_of(st, in, &w, &v->model);
}

void
verdict_init(struct verdict_state *st)
{
    memset(st, 0, sizeof(*st));
    st->lock_frac = st->commit_frac = st->cpu_frac = st->busy_frac = NAN;
    st->rows_base = st->rows_now = st->last_rtt_ms = NAN;
    st->last.kind = st->shown = st->leader = VK_NONE;
    st->last.confidence = "tentative";
    host_split_make(NAN, 1, NAN, NAN, NAN, &st->last.host);
    snprintf(st->last.evidence, sizeof(st->last.evidence), "warming up");
}

static void
hold(struct verdict_state *st, const struct verdict *v, struct verdict *out)
{
    st->last = *v;
    st->held[v->kind]++;
    *out = *v;
}

/* The interval's host CPU split goes with the verdict (sweep steps and +/- check it). */
static void
attach_split(const struct verdict_input *in, struct verdict *v)
{
    struct window w;

    window_make(in, &w);
    v->host = w.split;
}

/* No load: the state starts over, keeping what each verdict held. */
static void
no_load(struct verdict_state *st, struct verdict *out)
{
    int held[VK__COUNT];
    struct account run = st->run, blind = st->run_blind;
    struct verdict_input last = st->last_in;
    double txns[2] = {st->run_txns[0], st->run_txns[1]},
           secs[2] = {st->run_secs[0], st->run_secs[1]};
    double transit_by[VK__COUNT];
    char last_error[sizeof st->last_error];

    memcpy(last_error, st->last_error, sizeof last_error);
    memcpy(held, st->held, sizeof(held));
    memcpy(transit_by, st->transit_by, sizeof(transit_by));
    verdict_init(st);
    memcpy(st->held, held, sizeof(held));
    memcpy(st->transit_by, transit_by, sizeof(transit_by));
    st->run = run;
    st->run_blind = blind;
    memcpy(st->run_txns, txns, sizeof txns);
    memcpy(st->run_secs, secs, sizeof secs);
    st->last_in = last;
    memcpy(st->last_error, last_error, sizeof last_error);
    snprintf(st->last.evidence, sizeof(st->last.evidence), "no load running");
    *out = st->last;
}

/* The host's figures of an input, in verdict_state's host_sum order. */
static double *
host_fig(struct verdict_input *in, int i)
{
    double *f[6] = {&in->host_busy_pct, &in->host_irq_pct,   &in->server_host_pct,
                    &in->own_cpu_pct,   &in->worker_cpu_max, &in->worker_wait_max};

    return f[i];
}

static void
host_add(struct verdict_state *st, const struct verdict_input *in, int blind)
{
    struct verdict_input c = *in;

    for (int i = 0; i < HOST_FIGS; i++)
        if (!isnan(*host_fig(&c, i))) {
            st->host_sum[blind][i] += *host_fig(&c, i);
            st->host_n[blind][i]++;
        }
}

/* The notes that ride on any verdict, an interval's or the run's, and the database behind named. */
static void
add_notes(const struct verdict_state *st, const struct verdict_input *in, struct verdict *v)
{
    add_work(st, &in->sig, v);
    add_others(&in->sig, v);
    add_cache(&in->sig, v);
    add_temp(&in->sig, v);
    add_spin(in, v);
    add_down(in, v);
    name_behind(in, v);
}

void
verdict_step(struct verdict_state *st, const struct verdict_input *in, struct verdict *out)
{
    struct account_input ai;
    struct account a;
    struct verdict v;
    int blind;

    if (!in->load) {
        no_load(st, out);
        return;
    }
    st->intervals++;
    if (failing(in, &v)) {
        st->shown = st->leader = VK_NONE;
        st->streak = 0;
        attach_split(in, &v);
        hold(st, &v, out);
        return;
    }
    update_smoothing(st, in);
    account_input_make(in, &ai);
    account_make(&ai, &a);
    /*
     * An interval the server's side did not tell (a collector's first
     * sample, from before the load) is judged alone: it neither enters the
     * smoothed account nor, once the server was seen, the run's.
     */
    blind = !in->have_server || account_share(&a, AS_UNKNOWN) >= param(P_BLIND);
    account_add(blind ? &st->run_blind : &st->run, &a);
    st->run_txns[blind] += in->tps * ai.interval_s;
    st->run_secs[blind] += ai.interval_s;
    host_add(st, in, blind);
    transit_split(in, a.t[AS_TRANSIT], st->transit_by);
    st->last_in = *in;
    if (in->last_error != NULL && in->last_error[0])
        snprintf(st->last_error, sizeof st->last_error, "%s", in->last_error);
    st->last_in.last_error = st->last_error;
    if (in->sig.other_stall_what[0]) {
        memcpy(st->stall_what, in->sig.other_stall_what, sizeof st->stall_what);
        st->stall_sql_at = in->sig.other_stall_sql_at;
    }
    if (!blind) {
        smooth_account(&st->smooth, &a, !st->seen || !(st->smooth.total > 0));
        st->seen = 1;
    }
    decide(st, in, blind ? &a : &st->smooth, &v);
    /* hysteresis: a new verdict must lead STREAK_TO_SHOW intervals; from nothing, it shows */
    st->streak = v.kind == st->leader ? st->streak + 1 : 1;
    st->leader = v.kind;
    if (v.kind != st->shown && st->shown != VK_NONE && st->streak < STREAK_TO_SHOW) {
        v.kind = st->shown; /* the figures are this interval's; the kind holds */
        v.confidence = "tentative";
        explain(st, in, &v);
    }
    st->shown = v.kind;
    add_notes(st, in, &v);
    st->last_rtt_ms = in->sig.rtt_ms;
    hold(st, &v, out);
}

void
verdict_finish(const struct verdict_state *st, struct verdict *out)
{
    int blind = !(st->run.total > 0);
    const struct account *run = blind ? &st->run_blind : &st->run;
    struct verdict_input in = st->last_in;

    in.whole_run = 1;
    if (!(run->total > 0)) {
        *out = st->last;
        out->final = 1;
        return;
    }
    /* a stall that ended before the run did is still named (a LOCK TABLES held 4 s of 10) */
    if (!in.sig.other_stall_what[0] && st->stall_what[0]) {
        memcpy(in.sig.other_stall_what, st->stall_what, sizeof st->stall_what);
        in.sig.other_stall_sql_at = st->stall_sql_at;
    }
    /* the run's host split, not its last interval's (which a late burst of others can fill) */
    for (int i = 0; i < HOST_FIGS; i++)
        *host_fig(&in, i) =
            st->host_n[blind][i] > 0 ? st->host_sum[blind][i] / st->host_n[blind][i] : NAN;
    decide(st, &in, run, out);
    add_notes(st, &in, out);
    out->final = 1;
}

void
verdict_final_text(const struct verdict *v, char *buf, size_t len)
{
    snprintf(buf, len, "final: %s (%.0f%% of the clients' time): %s", verdict_label(v->kind),
             v->share[v->kind] * 100, v->evidence);
}

/* --- the prediction, checked against the next step --- */

double
verdict_gain_per_doubling(int clients_lo, double tps_lo, int clients_hi, double tps_hi)
{
    if (clients_lo <= 0 || clients_hi <= clients_lo || !(tps_lo > 0) || isnan(tps_hi))
        return NAN;
    return (tps_hi / tps_lo - 1) / log2((double)clients_hi / clients_lo);
}

int
verdict_has(const struct verdict *v, enum verdict_kind k)
{
    return v->kind == k || (v->kind == VK_MIXED && (v->first == k || v->second == k));
}

void
verdict_point_init(struct verdict_point *p, enum verdict_kind k, int clients, double tps,
                   int locked)
{
    memset(p, 0, sizeof(*p));
    p->kind = k;
    p->clients = clients;
    p->tps = tps;
    p->locked = locked;
    host_split_make(NAN, 1, NAN, NAN, NAN, &p->host);
}

/* The tps gain from lo to hi, and whether it is flat for the rise in clients; 0 if untestable. */
static int
gain_of(const struct verdict_point *lo, const struct verdict_point *hi, double *gain, int *flat)
{
    if (lo->clients <= 0 || hi->clients <= lo->clients || !(lo->tps > 0) || isnan(hi->tps))
        return 0;
    *gain = hi->tps / lo->tps - 1;
    *flat = *gain <
            fmax(param(P_FLAT_GAIN) * log2((double)hi->clients / lo->clients), param(P_MIN_GAIN));
    return 1;
}

/*
 * Host-bound: the cores are full, so tps follows the CPU the server gets.
 * More clients may still get it more: from other programs (more server
 * processes or threads for the scheduler to share the cores with), or
 * from benchtop, whose CPU per transaction falls with more clients per
 * worker (select-only on 2 cores: PostgreSQL 149% -> 162%, benchtop 48%
 * -> 35%, tps +17%). Such a gain is paid for: where others hold much of
 * the host, their CPU fell and the run's (server and benchtop) grew by at
 * least param(P_PAID) of the tps gain; where the run fills it, the server's CPU
 * grew by that much. A gain the CPU did not pay for contradicts it,
 * except for an event-loop server (Redis): more clients ready per wakeup
 * make its requests cheaper, so a gain on the same CPU tests nothing (its
 * 4 -> 16 clients gained 27-63% on a host others held at 110-150%, the
 * split unchanged; and 56% on a host Redis and benchtop filled). Without
 * the next step's split nothing tells.
 */
static enum verdict_check
check_host_gain(const struct verdict_point *lo, const struct verdict_point *hi, double gain)
{
    double run_lo = lo->host.server + lo->host.benchtop;
    double run_hi = hi->host.server + hi->host.benchtop;
    int paid;

    if (isnan(lo->host.server))
        return VC_CONTRADICTED; /* no local server to give CPU to: more clients cannot help */
    if (isnan(hi->host.others) || isnan(run_hi) || !(run_lo > 0) || !(lo->host.server > 0))
        return VC_UNTESTED;
    if (host_split_others_hold(&lo->host))
        paid = hi->host.others < lo->host.others && run_hi / run_lo - 1 >= param(P_PAID) * gain;
    else
        paid = hi->host.server / lo->host.server - 1 >= param(P_PAID) * gain;
    if (paid)
        return VC_CONFIRMED;
    return lo->host.event_loop ? VC_UNTESTED : VC_CONTRADICTED;
}

enum verdict_check
verdict_check(const struct verdict_point *lo, const struct verdict_point *hi)
{
    double gain;
    int flat;

    if (!gain_of(lo, hi, &gain, &flat))
        return VC_UNTESTED;
    switch (lo->kind) {
    case VK_COMMIT:
        /*
         * Group commit: one sync serves every commit waiting for it, but
         * only commits that overlap. Clients that wait for each other's
         * row locks, held until the sync ends, commit one at a time: the
         * step tested the locks, not the sync.
         */
        if (hi->locked)
            return VC_UNTESTED;
        return flat ? VC_CONTRADICTED : VC_CONFIRMED;
    case VK_UNDERLOADED:
    case VK_NETWORK:
    case VK_OPEN_LOOP: /* -R beyond the clients: more of them keep more of the rate */
        return flat ? VC_CONTRADICTED : VC_CONFIRMED;
    case VK_HOST:
        return flat ? VC_CONFIRMED : check_host_gain(lo, hi, gain);
    case VK_SERVER_CPU:
    case VK_THREAD:
    case VK_LOCK:
    case VK_POOL:
    case VK_CLIENT:
        return flat ? VC_CONFIRMED : VC_CONTRADICTED;
    default:
        return VC_UNTESTED;
    }
}

const char *
verdict_check_key(enum verdict_check c)
{
    return c == VC_CONFIRMED ? "confirmed" : c == VC_CONTRADICTED ? "contradicted" : "untested";
}

/* The host-bound check's words: whose CPU paid for a gain, or why nothing was tested. */
static void
host_check_text(enum verdict_check c, const struct verdict_point *lo,
                const struct verdict_point *hi, char *buf, size_t len)
{
    const char *how = c == VC_CONFIRMED ? "consistent with" : "contradicts";

    if (c == VC_UNTESTED)
        snprintf(buf, len, "host CPU-bound: %s",
                 isnan(hi->host.others) || !(lo->host.server > 0)
                     ? "the CPU split is unknown"
                     : "an event loop's requests get cheaper with more "
                       "clients per wakeup, so a gain on the same CPU tests "
                       "nothing");
    else if (host_split_others_hold(&lo->host))
        snprintf(buf, len,
                 "%s host CPU-bound: other programs' CPU %.0f%% -> %.0f%%, the run's %.0f%% -> "
                 "%.0f%%%s",
                 how, lo->host.others, hi->host.others, lo->host.server + lo->host.benchtop,
                 hi->host.server + hi->host.benchtop,
                 c == VC_CONTRADICTED ? " (a gain must take CPU from them)" : "");
    else
        snprintf(buf, len,
                 "%s host CPU-bound: the server's CPU %.0f%% -> %.0f%%, benchtop's %.0f%% -> "
                 "%.0f%%%s",
                 how, lo->host.server, hi->host.server, lo->host.benchtop, hi->host.benchtop,
                 c == VC_CONTRADICTED ? " (on a full host a gain must give the server more CPU)"
                                      : "");
}

void
verdict_check_text(enum verdict_check c, const struct verdict_point *lo,
                   const struct verdict_point *hi, char *buf, size_t len)
{
    enum verdict_kind k = lo->kind;
    int more = k == VK_UNDERLOADED || k == VK_NETWORK || k == VK_COMMIT || k == VK_OPEN_LOOP;
    double gain = 0;
    int flat = 1, tested = gain_of(lo, hi, &gain, &flat);

    if (k == VK_HOST && tested && !flat)
        host_check_text(c, lo, hi, buf, len);
    else if (c == VC_CONFIRMED)
        snprintf(buf, len, "consistent with %s", verdict_label(k));
    else if (c == VC_CONTRADICTED)
        snprintf(buf, len, "contradicts %s (more clients should %s tps)", verdict_label(k),
                 more ? "raise" : "not raise");
    else if (k == VK_COMMIT && tested && hi->locked)
        snprintf(buf, len,
                 "commit/I/O-bound: the added clients waited on row locks, so group commit "
                 "was not tested");
    else
        snprintf(buf, len, "%s predicts nothing here", verdict_label(k));
}
