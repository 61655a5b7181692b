/* verdict: scoring rules and hysteresis (see verdict.h and benchtop.1, VERDICT). */
#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum {
    STREAK_TO_SHOW = 2, /* intervals a new leader must lead before it is shown */
    EV = sizeof(((struct verdict *)0)->evidence),
};

static const double THRESHOLD = 0.3;     /* below this, a limit is not a limit */
static const double MIXED_GAP = 0.15;    /* two limits this close are both shown */
static const double SMOOTH = 0.5;        /* weight of the newest sample in the smoothed fractions */
static const double HOST_FULL = 90;      /* % of all cores: the host is saturated */
static const double FLAT_GAIN = 0.10;    /* a doubling of clients that gains less gains nothing */
static const double MIN_GAIN = 0.05;     /* ... and for small steps, noise: never below this */
static const double LARGE_ROWS = 1000;   /* rows read per transaction worth naming */
static const double LARGE_BLOCKS = 1000; /* blocks accessed per transaction worth naming */
static const double FAILING = 0.5;       /* share of failed transactions that leaves no verdict */
static const double OTHERS_LARGE = 0.25; /* others' share of a busy host that makes it theirs */
static const double LOOP_BUSY = 0.8;     /* an event loop this busy queues the collector's ping */
/* host-bound by others: the run's CPU must grow by at least this share of the tps gain */
static const double PAID = 0.5;

struct scores {
    double s[VK__COUNT];
    char ev[VK__COUNT][EV];
};

/* Figures every rule reads, computed once per interval so that all come from one window. */
struct window {
    const struct verdict_input *in;
    double host_used;  /* the host's busy CPU, % of one core (NAN unless the server is local) */
    int host_full;     /* ... above HOST_FULL */
    double server_pct; /* the server's processes, % of one core; NAN if unknown */
    struct host_split split; /* the host's busy CPU by whose it is */
    char server[112];        /* the server's load in words */
};

static const char *const labels[VK__COUNT] = {
    [VK_NONE] = "no verdict yet",
    [VK_CLIENT] = "client-bound",
    [VK_SERVER_CPU] = "server CPU-bound",
    [VK_LOCK] = "lock-bound",
    [VK_COMMIT] = "commit/I/O-bound",
    [VK_CONNECTION] = "connection-bound",
    [VK_NETWORK] = "network-bound",
    [VK_UNDERLOADED] = "not enough load",
    [VK_HOST] = "host CPU-bound",
    [VK_POOL] = "pool-bound",
    [VK_APP] = "app-bound",
    [VK_MIXED] = "mixed",
};

static const char *const keys[VK__COUNT] = {
    [VK_NONE] = "none",
    [VK_CLIENT] = "client",
    [VK_SERVER_CPU] = "server_cpu",
    [VK_LOCK] = "lock",
    [VK_COMMIT] = "commit",
    [VK_CONNECTION] = "connection",
    [VK_NETWORK] = "network",
    [VK_UNDERLOADED] = "underloaded",
    [VK_HOST] = "host",
    [VK_POOL] = "pool",
    [VK_APP] = "app",
    [VK_MIXED] = "mixed",
};

const char *
verdict_label(enum verdict_kind k)
{
    return k >= 0 && k < VK__COUNT ? labels[k] : "?";
}

const char *
verdict_key(enum verdict_kind k)
{
    return k >= 0 && k < VK__COUNT ? keys[k] : "?";
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
    return isnan(old) ? x : old + SMOOTH * (x - old);
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

static double
waits_active(const struct coll_signals *g)
{
    return own_known(g) ? g->own_active : g->active;
}

static double
waits_lock(const struct coll_signals *g)
{
    return own_known(g) ? g->own_lock_wait : g->lock_wait;
}

static double
waits_commit(const struct coll_signals *g)
{
    if (own_known(g))
        return g->own_commit_wait;
    return isnan(g->io_wait) ? g->commit_wait : g->commit_wait + g->io_wait;
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
    return max2(frac(in->sig.server_cpu_pct, limit), st->cpu_frac);
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
    w->host_full = !isnan(in->host_busy_pct) && in->host_busy_pct >= HOST_FULL;
    w->server_pct = in->server_host_pct;
    if (isnan(w->server_pct) && !isnan(w->host_used) && !isnan(in->sig.server_cpu_pct))
        w->server_pct = in->sig.server_cpu_pct;
    describe_server(w, w->server, sizeof(w->server));
    host_split_make(in->host_busy_pct, in->cores, w->server_pct, in->own_cpu_pct, &w->split);
    if (in->server_names != NULL)
        snprintf(w->split.names, sizeof(w->split.names), "%s", in->server_names);
    w->split.event_loop = !isnan(in->sig.server_cpu_limit);
}

void
host_split_make(double busy_pct, int cores, double server, double benchtop, struct host_split *out)
{
    double used;

    memset(out, 0, sizeof(*out));
    out->cores = cores > 0 ? cores : 1;
    out->busy = busy_pct;
    out->benchtop = benchtop;
    used = isnan(busy_pct) ? NAN : busy_pct * out->cores;
    out->server = isnan(used) || isnan(server) ? NAN : fmin(fmax(server, 0), used);
    out->others =
        isnan(out->server) || isnan(benchtop) ? NAN : fmax(0, used - out->server - benchtop);
}

int
host_split_others_hold(const struct host_split *h)
{
    double used = h->server + h->benchtop + h->others;

    return !isnan(used) && used > 0 && h->others > h->benchtop && h->others >= OTHERS_LARGE * used;
}

/*
 * A worker thread that runs or waits for a CPU all the time can start no
 * more work: its share of a core plus its run-queue wait is what counts.
 * But on a saturated host where benchtop is the minority user, its wait
 * for a CPU is the host's limit, not benchtop's (score_host).
 */
static void
score_client(const struct window *w, struct scores *sc)
{
    const struct verdict_input *in = w->in;
    double wait = isnan(in->worker_wait_max) ? 0 : in->worker_wait_max;

    sc->s[VK_CLIENT] = ramp(in->worker_cpu_max + wait, 75, 95);
    if (w->host_full && in->own_cpu_pct < 0.5 * w->host_used)
        sc->s[VK_CLIENT] = 0;
    snprintf(sc->ev[VK_CLIENT], EV, "benchtop thread at %.0f%% CPU", in->worker_cpu_max);
    if (wait >= 10)
        appendf(sc->ev[VK_CLIENT], EV, " and %.0f%% waiting for one", wait);
    appendf(sc->ev[VK_CLIENT], EV, "; %s: add -j or run benchtop on another machine", w->server);
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

static void
score_server_cpu(const struct verdict_state *st, const struct window *w, struct scores *sc)
{
    const struct verdict_input *in = w->in;

    sc->s[VK_SERVER_CPU] = cpu_saturation(server_load(st, w), in->sig.server_cpu_limit);
    snprintf(sc->ev[VK_SERVER_CPU], EV, "%s", w->server);
    if (!isnan(in->host_busy_pct))
        appendf(sc->ev[VK_SERVER_CPU], EV, "; host CPU %.0f%% of %d cores, benchtop %.0f%% of one",
                in->host_busy_pct, in->cores, in->own_cpu_pct);
}

/*
 * The server runs on this machine and the machine is full: how much of it
 * goes to others than the server (benchtop, other programs) says whether
 * sharing the host is the limit. Without the server's own CPU, its sessions
 * on CPU stand in for it (each at most one core).
 */
/*
 * How much the run wants CPU (0..1): benchtop's sessions busy on the
 * server, its worker running or waiting for a core, or the server's own
 * load. A load that leaves its sessions idle (a low -R) wants none.
 */
static double
cpu_demand(const struct verdict_state *st, const struct window *w)
{
    const struct verdict_input *in = w->in;
    double want = in->worker_cpu_max + (isnan(in->worker_wait_max) ? 0 : in->worker_wait_max);
    double d = fmax(ramp(want, 50, 80), ramp(server_load(st, w), 0.3, 0.6));

    /*
     * The run's own processes filling a full host want its CPU, though each
     * looks light: select-only at 2 clients kept both cores busy (server
     * 121%, benchtop 78%) with its sessions sampled on CPU a quarter of the
     * time and each worker at 39%, the rest being wake-ups and the socket.
     */
    if (w->host_full && !isnan(w->split.server) && w->host_used > 0)
        d = fmax(d, ramp((w->split.server + w->split.benchtop) / w->host_used, 0.6, 0.85));
    if (in->rate > 0 && in->tps >= 0.9 * in->rate)
        return 0; /* an open loop that keeps its rate is limited by nothing but the rate */
    return isnan(st->busy_frac) ? fmax(d, in->rate > 0 ? 0 : 1)
                                : fmax(d, ramp(st->busy_frac, 0.2, 0.5));
}

/* "server 150% (postgres)": the server side's CPU with its processes' names. */
static void
describe_split_server(const struct host_split *h, char *buf, size_t len)
{
    snprintf(buf, len, "server %.0f%%", h->server);
    if (h->names[0])
        appendf(buf, len, " (%s)", h->names);
}

static void
score_host(const struct verdict_state *st, const struct window *w, struct scores *sc)
{
    const struct verdict_input *in = w->in;
    double used = w->host_used, competing;
    double waits = fmax(fmax(sc->s[VK_NETWORK], sc->s[VK_CONNECTION]),
                        fmax(fmax(sc->s[VK_LOCK], sc->s[VK_COMMIT]), sc->s[VK_POOL]));
    struct host_split h = w->split;
    char server[96];

    if (!w->host_full) {
        snprintf(sc->ev[VK_HOST], EV, "host CPU %.0f%%", in->host_busy_pct);
        return;
    }
    if (!isnan(h.server)) {
        competing = (used - h.server) / used;
        describe_split_server(&h, server, sizeof(server));
        if (host_split_others_hold(&h))
            snprintf(sc->ev[VK_HOST], EV, "others %.0f%%, %s, benchtop %.0f%% of %d cores",
                     h.others, server, h.benchtop, in->cores);
        else
            snprintf(sc->ev[VK_HOST], EV, "%s, benchtop %.0f%%, others %.0f%% of %d cores", server,
                     h.benchtop, h.others, in->cores);
    } else {
        /* without the server's own CPU, its sessions on CPU stand in for it (each one core) */
        double est = isnan(in->sig.on_cpu) ? NAN : fmin(in->sig.on_cpu * 100, used);

        host_split_make(in->host_busy_pct, in->cores, est, in->own_cpu_pct, &h);
        competing = max2(in->own_cpu_pct / used, isnan(est) ? NAN : 1 - est / used);
        snprintf(sc->ev[VK_HOST], EV, "server and others %.0f%%, benchtop %.0f%% of %d cores",
                 fmax(0, used - in->own_cpu_pct), in->own_cpu_pct, in->cores);
    }
    if (host_split_others_hold(&h))
        appendf(sc->ev[VK_HOST], EV,
                " (host %.0f%%); other programs take the CPU: results are not the database's "
                "capacity; stop them or run on a quiet host",
                in->host_busy_pct);
    else
        appendf(sc->ev[VK_HOST], EV, " (host %.0f%%): run benchtop on another machine, or fewer -j",
                in->host_busy_pct);
    /*
     * An event loop below its core still gains from more clients, each
     * wakeup serving more of them (Redis 4 -> 16 clients: +27-63% on a full
     * host, the split unchanged): say so, as the check cannot test it.
     */
    if (h.event_loop && frac(in->sig.server_cpu_pct, in->sig.server_cpu_limit) < LOOP_BUSY)
        appendf(sc->ev[VK_HOST], EV,
                "; its event loop at %.0f%% of %.0f%% can still gain from more clients per wakeup",
                in->sig.server_cpu_pct, in->sig.server_cpu_limit);
    /*
     * Sessions that mostly wait on the wire, on locks, on the disk, on
     * connecting or for a pooler's connection, and a load that wants no CPU,
     * are not slowed by a full host (16 clients queued for a pool of 2 kept
     * pgbouncer, PostgreSQL and benchtop busy enough to fill it).
     */
    sc->s[VK_HOST] = ramp(in->host_busy_pct, 85, 95) * ramp(competing, 0.1, 0.25) * (1 - waits) *
                     cpu_demand(st, w);
}

static void
score_locks(const struct verdict_state *st, const struct window *w, struct scores *sc)
{
    const struct coll_signals *g = &w->in->sig;
    double others = g->lock_wait - g->own_lock_wait;
    char n[32];

    sc->s[VK_LOCK] = ramp(st->lock_frac, 0.25, 0.6);
    n_of(n, sizeof(n), waits_lock(g), waits_active(g));
    snprintf(sc->ev[VK_LOCK], EV, "%s active %s sessions wait on locks", n,
             own_known(g) ? "benchtop" : "client");
    if (own_known(g) && others >= 0.5)
        appendf(sc->ev[VK_LOCK], EV, "; other sessions: %.0f waiting on locks", others);
}

/* Log syncs per commit: counted, or 1 when a setting makes each commit sync; NAN unknown. */
static double
syncs_per_commit(const struct coll_signals *g)
{
    if (!(g->commits_s >= 5))
        return NAN;
    return g->sync_each_commit[0] ? 1 : g->log_syncs_s / g->commits_s;
}

/*
 * The share of the sessions' time on CPU (0..1 after the ramp): sampled
 * sessions seen running, or a one-thread server's own CPU.
 */
static double
busy_computing(const struct coll_signals *g)
{
    if (g->samples > 1 && g->active > 0)
        return ramp(frac(g->on_cpu, g->active), 0.5, 0.8);
    if (g->server_cpu_limit <= 100)
        return ramp(frac(g->server_cpu_pct, g->server_cpu_limit), 0.5, 0.8);
    return 0;
}

/*
 * One log sync per commit means each commit waits for the disk, even at
 * one client and even when the server does not time its syncs; it counts
 * while benchtop's sessions are busy on the server (not at a set rate
 * with idle sessions), and yields to lock waits and to sessions the
 * sampled states saw on CPU (a scan per transaction, its sync a small part).
 */
static double
sync_per_commit_score(const struct verdict_state *st, const struct verdict_input *in)
{
    const struct coll_signals *g = &in->sig;
    double per = syncs_per_commit(g);
    double busy = isnan(st->busy_frac) ? (in->rate > 0 ? 0 : 1) : ramp(st->busy_frac, 0.2, 0.5);
    double locks = isnan(st->lock_frac) ? 0 : st->lock_frac;
    /* sessions (or a one-thread server) seen mostly on CPU spend little of each commit syncing */
    return 0.7 * ramp(per, 0.5, 0.9) * busy * (1 - locks) * (1 - busy_computing(g));
}

static void
score_commit(const struct verdict_state *st, const struct window *w, struct scores *sc)
{
    const struct verdict_input *in = w->in;
    const struct coll_signals *g = &in->sig;
    double sync = isnan(g->log_sync_ms_s) ? NAN : g->log_sync_ms_s / 1000.0;
    double per = syncs_per_commit(g);
    char *ev = sc->ev[VK_COMMIT], n[32];

    sc->s[VK_COMMIT] =
        max2(ramp(max2(st->commit_frac, sync), 0.25, 0.6), sync_per_commit_score(st, in));
    n_of(n, sizeof(n), waits_commit(g), waits_active(g));
    snprintf(ev, EV, "%s active %s sessions wait on the log sync or I/O", n,
             own_known(g) ? "benchtop" : "client");
    if (g->sync_each_commit[0] && !isnan(per)) {
        if (strcmp(n, "?") == 0)
            ev[0] = '\0'; /* a server without sessions to count (Redis) */
        appendf(ev, EV, "%seach of %.0f writes/s waits for a log sync (%s)", ev[0] ? "; " : "",
                g->commits_s, g->sync_each_commit);
    } else if (!isnan(per))
        appendf(ev, EV, "; %.2f log syncs per commit (%.0f/s)", per, g->log_syncs_s);
    if (!isnan(sync))
        appendf(ev, EV, "; log sync %.0f ms/s", g->log_sync_ms_s);
    else if (g->sync_untimed[0])
        appendf(ev, EV, "; turn %s on for the sync time", g->sync_untimed);
    if (g->commit_advice[0])
        appendf(ev, EV, "; try %s", g->commit_advice);
}

static void
score_connection(const struct verdict_input *in, struct scores *sc)
{
    sc->s[VK_CONNECTION] = ramp(in->connect_share, 0.3, 0.6);
    snprintf(sc->ev[VK_CONNECTION], EV,
             "connection set-up is %.0f%% of each transaction (%.2f of %.2f ms)",
             in->connect_share * 100, in->connect_share * in->lat_mean_ms, in->lat_mean_ms);
}

/*
 * Round trips, measured on the collector's connection with no transaction
 * in them, against the clients' latency: the network only when they are
 * most of it. A round trip longer than the whole latency, or a few ms to a
 * local server on a saturated host, is waiting for a CPU, not the wire.
 */
static void
score_network(const struct verdict_state *st, const struct window *w, struct scores *sc)
{
    const struct verdict_input *in = w->in;
    double rtt = fmin(in->sig.rtt_ms, isnan(st->last_rtt_ms) ? INFINITY : st->last_rtt_ms);
    double trips = in->ops_per_txn >= 1 ? in->ops_per_txn : 1;
    /* with -C the set-up is connection-bound's share; the statements have the rest */
    double lat = in->lat_mean_ms * (isnan(in->connect_share) ? 1 : 1 - in->connect_share);
    double ratio = rtt >= 1.0 ? fmin(rtt * trips / lat, 1) : NAN;
    double busy = fmax(sc->s[VK_CLIENT], sc->s[VK_SERVER_CPU]);

    /*
     * On a saturated host the path is not idle: only a steady round trip of
     * 5 ms or more (a wire, or a delaying hop) is taken for the network;
     * waiting for a CPU jitters from one interval to the next.
     */
    if (w->host_full &&
        (rtt < 5 || isnan(st->last_rtt_ms) ||
         fabs(in->sig.rtt_ms - st->last_rtt_ms) > 0.25 * fmin(in->sig.rtt_ms, st->last_rtt_ms)))
        ratio = NAN;
    /*
     * An event loop (its collector gives a CPU limit: Redis) answers the
     * collector's ping after every client ready before it: on a full host,
     * or with the loop itself busy, that is a steady queue, not a wire
     * (Redis INCR at 250 clients: "network-bound" with others holding the
     * host, and again with Redis at 94% of its core on a host at 90%).
     */
    if (!isnan(in->sig.server_cpu_limit) &&
        (w->host_full || frac(in->sig.server_cpu_pct, in->sig.server_cpu_limit) >= LOOP_BUSY))
        ratio = NAN;
    /* with a sync before every write's reply (Redis appendfsync always) each reply waits for it */
    if (rtt > 1.05 * lat || in->sig.sync_each_commit[0])
        ratio = NAN;
    sc->s[VK_NETWORK] = ramp(ratio, 0.35, 0.5) * (1 - busy); /* full at a majority */
    snprintf(sc->ev[VK_NETWORK], EV,
             "a round trip takes %.1f ms of %.1f ms latency; benchtop %.0f%% CPU, %s", rtt,
             in->lat_mean_ms, in->worker_cpu_max, w->server);
}

/*
 * A pooler in front of the server: clients queue for its server
 * connections (every one busy) while the server behind is not what limits
 * them. The pool size, not the database, decides the throughput then.
 */
static void
score_pool(const struct window *w, struct scores *sc)
{
    const struct coll_signals *g = &w->in->sig;
    double waiting = g->pool_waiting, busy = g->pool_servers, server;

    if (isnan(waiting) || isnan(busy) || !(waiting > 0))
        return;
    server = fmax(fmax(sc->s[VK_SERVER_CPU], sc->s[VK_LOCK]), sc->s[VK_COMMIT]);
    sc->s[VK_POOL] = ramp(frac(waiting, waiting + busy), 0.2, 0.5) *
                     (g->pool_size > 0 && busy >= g->pool_size ? 1 : 0.5) * (1 - server);
    snprintf(sc->ev[VK_POOL], EV,
             "%.0f clients wait for %.0f server connections (pool size %.0f, longest wait "
             "%.0f ms); %s: raise the pool size",
             waiting, busy, g->pool_size, g->pool_maxwait_ms, w->server);
}

/* "no waits", "1.5 waiting on locks, 0.5 on the log sync or I/O" */
static void
describe_waits(const struct coll_signals *g, char *buf, size_t len)
{
    double lock = isnan(g->lock_wait) ? 0 : g->lock_wait;
    double commit = isnan(g->commit_wait) ? 0 : g->commit_wait;

    if (!isnan(g->io_wait))
        commit += g->io_wait;
    if (lock + commit < 0.5)
        snprintf(buf, len, "no waits");
    else
        snprintf(buf, len, "%.1f waiting on locks, %.1f on the log sync or I/O", lock, commit);
}

/*
 * The application in front of the databases. A worker pool that is full
 * with requests queued (php-fpm at pm.max_children) limits the run
 * whatever is behind it. Else a database watched behind the target with
 * CPU to spare and no waits says the latency is spent above it. Either
 * yields to the database's own limits and to benchtop's.
 */
static void
score_app(const struct verdict_state *st, const struct window *w, struct scores *sc)
{
    const struct verdict_input *in = w->in;
    const struct coll_signals *g = &in->sig;
    double db = fmax(fmax(sc->s[VK_SERVER_CPU], sc->s[VK_LOCK]), sc->s[VK_COMMIT]);
    double ours =
        fmax(fmax(sc->s[VK_CLIENT], sc->s[VK_HOST]), fmax(sc->s[VK_NETWORK], sc->s[VK_CONNECTION]));
    char *ev = sc->ev[VK_APP], n[32], waits[80];

    if (g->app_workers > 0 && g->app_busy >= g->app_workers && g->app_queue >= 1) {
        sc->s[VK_APP] =
            ramp(frac(g->app_queue, g->app_queue + g->app_busy), 0.1, 0.4) * (1 - db) * (1 - ours);
        snprintf(ev, EV, "%s at %s %.0f, %.0f requests queued; raise %s if %s", g->app_name,
                 g->app_limit, g->app_workers, g->app_queue, g->app_limit,
                 in->behind ? "the database has room" : "the host has room");
        return;
    }
    if (in->behind == NULL || !in->have_server)
        return;
    sc->s[VK_APP] = 0.7 * (1 - ramp(server_load(st, w), 0.5, 0.7)) *
                    (1 - ramp(st->lock_frac, 0.1, 0.25)) * (1 - ramp(st->commit_frac, 0.1, 0.25)) *
                    (1 - db) * (1 - ours);
    n_of(n, sizeof(n), g->active, g->sessions);
    describe_waits(g, waits, sizeof(waits));
    snprintf(ev, EV, "%s has spare capacity (%s sessions active, %s); latency is spent above it",
             in->behind, n, waits);
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

static void
score_underloaded(const struct window *w, struct scores *sc)
{
    const struct verdict_input *in = w->in;
    double top = 0,
           wants = in->worker_cpu_max + (isnan(in->worker_wait_max) ? 0 : in->worker_wait_max);
    /*
     * A load more clients did not raise has no spare capacity, and neither
     * has a full host (score_host gave nothing: the load wants no CPU):
     * the run is light, but more clients would compete for the CPU, so
     * they need not raise tps. An open loop that keeps its rate is limited
     * by the rate alone, full host or not.
     */
    int room = !(w->host_full && in->rate <= 0) && !(in->gain_per_doubling < FLAT_GAIN), k;

    for (k = VK_CLIENT; k < VK_MIXED; k++)
        if (k != VK_UNDERLOADED)
            top = fmax(top, sc->s[k]);
    sc->s[VK_UNDERLOADED] = top < THRESHOLD && wants < 60 && room ? 0.6 : 0;
    snprintf(sc->ev[VK_UNDERLOADED], EV, "benchtop thread at %.0f%% CPU, %s, %d clients%s: %s",
             in->worker_cpu_max, w->server, in->clients, in->rate > 0 ? " at a set rate" : "",
             w->host_full   ? "more load would compete for a full host"
             : in->rate > 0 ? "raise the rate"
                            : "add clients");
}

static void
score_all(struct verdict_state *st, const struct verdict_input *in, struct scores *sc)
{
    struct window w;

    memset(sc, 0, sizeof(*sc));
    window_make(in, &w);
    score_client(&w, sc);
    score_server_cpu(st, &w, sc);
    score_locks(st, &w, sc);
    score_commit(st, &w, sc);
    score_connection(in, sc);
    score_network(st, &w, sc);
    score_pool(&w, sc);
    score_host(st, &w, sc);
    score_app(st, &w, sc);
    score_underloaded(&w, sc);
}

static void
update_smoothing(struct verdict_state *st, const struct verdict_input *in)
{
    const struct coll_signals *g = &in->sig;
    double rows;

    if (!in->have_server)
        return;
    st->lock_frac = smooth(st->lock_frac, frac(waits_lock(g), waits_active(g)));
    st->commit_frac = smooth(st->commit_frac, frac(waits_commit(g), waits_active(g)));
    st->cpu_frac = smooth(st->cpu_frac, isnan(g->on_cpu) ? NAN : fmin(g->on_cpu / in->cores, 1));
    /* behind an app, every session of the database is the load's */
    st->busy_frac = smooth(st->busy_frac, in->behind ? frac(g->active, g->sessions)
                                                     : frac(g->own_active, g->own_sessions));
    rows = g->rows_per_txn;
    if (isnan(rows) || !(in->tps > 0))
        return;
    rows = smooth(st->rows_now, rows);
    /* one burst (an autovacuum in the same database) is not a trend */
    st->rows_rising = !isnan(st->rows_now) && rows >= 1.05 * st->rows_now ? st->rows_rising + 1 : 0;
    st->rows_now = rows;
    if (st->intervals > 2 && (isnan(st->rows_base) || st->rows_now < st->rows_base))
        st->rows_base = st->rows_now;
}

static const char *
confidence(double score)
{
    return score >= 0.8 ? "clear" : score >= 0.5 ? "likely" : "tentative";
}

/* The two leading candidates (never NONE or MIXED). */
static void
leaders(const struct scores *sc, int *a, int *b)
{
    int k;

    *a = *b = VK_NONE;
    for (k = VK_CLIENT; k < VK_MIXED; k++) {
        if (*a == VK_NONE || sc->s[k] > sc->s[*a]) {
            *b = *a;
            *a = k;
        } else if (*b == VK_NONE || sc->s[k] > sc->s[*b]) {
            *b = k;
        }
    }
}

/* v's text for its kind from this interval's scores: rebuilt every interval. */
static void
describe(const struct scores *sc, struct verdict *v)
{
    int a = v->first, b = v->second;

    if (v->kind == VK_MIXED) {
        snprintf(v->evidence, EV, "%s: %.135s | %s: %.135s", verdict_label(a), sc->ev[a],
                 verdict_label(b), sc->ev[b]);
        v->score = fmin(sc->s[a], sc->s[b]);
    } else if (v->kind == VK_NONE) {
        snprintf(v->evidence, EV, "undecided: %s %.2f, %s %.2f", verdict_label(a), sc->s[a],
                 verdict_label(b), sc->s[b]);
        v->score = sc->s[a];
    } else {
        snprintf(v->evidence, EV, "%s", sc->ev[v->kind]);
        v->score = sc->s[v->kind];
    }
    v->first_score = sc->s[a];
    v->second_score = sc->s[b];
    v->confidence = confidence(v->score);
}

/* The leading candidate (VK_MIXED when the first two are close), and its figures. */
static void
lead(const struct scores *sc, struct verdict *v)
{
    int a, b;

    leaders(sc, &a, &b);
    memset(v, 0, sizeof(*v));
    v->first = (enum verdict_kind)a;
    v->second = (enum verdict_kind)b;
    v->kind = sc->s[a] < THRESHOLD ? VK_NONE : (enum verdict_kind)a;
    if (v->kind != VK_NONE && sc->s[b] >= 0.5 && sc->s[a] - sc->s[b] < MIXED_GAP)
        v->kind = VK_MIXED;
    describe(sc, v);
}

/* "; each transaction reads 31,000 rows, rising; 12 sequential scans/s on table cache" */
static void
add_work(const struct verdict_state *st, const struct coll_signals *g, struct verdict *v)
{
    int rising = !isnan(st->rows_base) && st->rows_now >= 2 * st->rows_base &&
                 st->rows_now - st->rows_base >= 100 && st->rows_rising >= 3;
    char n[32];

    if (!isnan(st->rows_now) && (st->rows_now >= LARGE_ROWS || rising)) {
        fmt_count(n, sizeof(n), st->rows_now);
        appendf(v->evidence, EV, "; each transaction reads %s rows%s", n, rising ? ", rising" : "");
    } else if (g->blocks_per_txn >= LARGE_BLOCKS) {
        fmt_count(n, sizeof(n), g->blocks_per_txn);
        appendf(v->evidence, EV, "; each transaction reads %s blocks", n);
    } else {
        return;
    }
    if (g->seq_scans_s >= 1)
        appendf(v->evidence, EV, "; %.0f sequential scans/s%s%s", g->seq_scans_s,
                g->seq_scan_table[0] ? " on table " : "", g->seq_scan_table);
}

/* "; other sessions: 6 waiting on locks": others' waits are evidence, never benchtop's limit. */
static void
add_others(const struct coll_signals *g, struct verdict *v)
{
    double others = g->lock_wait - g->own_lock_wait;

    if (own_known(g) && others >= 0.5 && !verdict_has(v, VK_LOCK))
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
    double share = err + in->tps > 0 ? err / (err + in->tps) : 0;

    if (!(in->tps <= 0 && (err > 0 || down > 0)) && share < FAILING)
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

void
verdict_init(struct verdict_state *st)
{
    memset(st, 0, sizeof(*st));
    st->lock_frac = st->commit_frac = st->cpu_frac = st->busy_frac = NAN;
    st->rows_base = st->rows_now = st->last_rtt_ms = NAN;
    st->last.kind = st->shown = st->leader = VK_NONE;
    st->last.confidence = "tentative";
    host_split_make(NAN, 1, NAN, NAN, &st->last.host);
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

void
verdict_step(struct verdict_state *st, const struct verdict_input *in, struct verdict *out)
{
    struct scores sc;
    struct verdict v;
    enum verdict_kind lead_kind;

    if (!in->load) {
        int held[VK__COUNT];

        memcpy(held, st->held, sizeof(held));
        verdict_init(st);
        memcpy(st->held, held, sizeof(held));
        snprintf(st->last.evidence, sizeof(st->last.evidence), "no load running");
        *out = st->last;
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
    score_all(st, in, &sc);
    lead(&sc, &v);
    /*
     * The top candidate's streak: "mixed with B" and "A" alone are both A
     * leading, and nothing scoring leads as "undecided", so that a verdict
     * whose signs are gone gives way (it stayed shown with a score of 0).
     */
    lead_kind = v.kind == VK_NONE ? VK_NONE : v.first;
    st->streak = lead_kind == st->leader ? st->streak + 1 : 1;
    st->leader = lead_kind;
    /* hysteresis: a new verdict must lead STREAK_TO_SHOW intervals; the shown one is rebuilt */
    /* from nothing shown, a likely leader shows at once: "undecided" must not last a whole run */
    if (v.kind == st->shown || st->streak >= STREAK_TO_SHOW ||
        (st->shown == VK_NONE && st->intervals > 1 && v.score >= 0.5)) {
        st->shown = v.kind;
    } else {
        if (st->shown == VK_MIXED) {
            v.first = st->last.first;
            v.second = st->last.second;
        }
        v.kind = st->shown;
        describe(&sc, &v);
    }
    add_work(st, &in->sig, &v);
    add_others(&in->sig, &v);
    name_behind(in, &v);
    st->last_rtt_ms = in->sig.rtt_ms;
    attach_split(in, &v);
    hold(st, &v, out);
}

void
verdict_finish(const struct verdict_state *st, struct verdict *out)
{
    int k, total = 0, best = VK_NONE;

    *out = st->last;
    /* a tie goes to the verdict shown last: the run had settled there */
    if (st->last.kind != VK_NONE && st->held[st->last.kind] > 0)
        best = st->last.kind;
    for (k = 0; k < VK__COUNT; k++)
        total += st->held[k];
    for (k = 0; k < VK__COUNT; k++) {
        out->share[k] = total ? (double)st->held[k] / total : 0;
        if (k != VK_NONE && st->held[k] > 0 && (best == VK_NONE || st->held[k] > st->held[best]))
            best = k;
    }
    out->final = 1;
    if (best != (int)out->kind && best != VK_NONE) {
        out->kind = (enum verdict_kind)best;
        snprintf(out->evidence, sizeof(out->evidence), "held %.0f%% of the run; last: %s",
                 out->share[best] * 100, verdict_label(st->last.kind));
    }
}

void
verdict_final_text(const struct verdict *v, char *buf, size_t len)
{
    int k, shown[VK__COUNT] = {0};

    snprintf(buf, len, "final: %s (%.0f%% of the run)", verdict_label(v->kind),
             v->share[v->kind] * 100);
    shown[v->kind] = 1;
    for (;;) {
        int best = -1;

        for (k = 0; k < VK__COUNT; k++)
            if (!shown[k] && v->share[k] >= 0.005 && (best < 0 || v->share[k] > v->share[best]))
                best = k;
        if (best < 0)
            break;
        shown[best] = 1;
        appendf(buf, len, ", %s %.0f%%", verdict_label(best), v->share[best] * 100);
    }
}

/* --- watch: the server's side only --- */

void
verdict_server(const struct coll_signals *g, int cores, struct verdict *out)
{
    struct scores sc;
    double active = isnan(g->active) ? 0 : g->active;
    double commit = isnan(g->io_wait) ? g->commit_wait : g->commit_wait + g->io_wait;
    double per = syncs_per_commit(g);
    double cpu = max2(frac(g->server_cpu_pct, g->server_cpu_limit),
                      isnan(g->on_cpu) ? NAN : fmin(g->on_cpu / (cores > 0 ? cores : 1), 1));
    char n[32];
    int a, b;

    memset(&sc, 0, sizeof(sc));
    sc.s[VK_SERVER_CPU] = cpu_saturation(cpu, g->server_cpu_limit);
    snprintf(sc.ev[VK_SERVER_CPU], EV, "server CPU %.0f%% of its capacity", cpu * 100);
    sc.s[VK_LOCK] = active >= 1 ? ramp(frac(g->lock_wait, active), 0.25, 0.6) : 0;
    n_of(n, sizeof(n), g->lock_wait, active);
    snprintf(sc.ev[VK_LOCK], EV, "%s active sessions wait on locks", n);
    sc.s[VK_COMMIT] = active >= 1 ? ramp(frac(commit, active), 0.25, 0.6) : 0;
    sc.s[VK_COMMIT] = max2(sc.s[VK_COMMIT], 0.7 * ramp(per, 0.5, 0.9) * (active >= 0.5));
    n_of(n, sizeof(n), commit, active);
    snprintf(sc.ev[VK_COMMIT], EV, "%s active sessions wait on the log sync or I/O", n);
    if (!isnan(per))
        appendf(sc.ev[VK_COMMIT], EV, "; %.2f log syncs per commit", per);
    sc.s[VK_CONNECTION] = ramp(frac(g->sessions, g->max_sessions), 0.8, 0.95);
    n_of(n, sizeof(n), g->sessions, g->max_sessions);
    snprintf(sc.ev[VK_CONNECTION], EV, "connections saturated: %s allowed", n);
    /* without a load of its own, only the server's side can lead (no "client-bound 0.00") */
    for (a = VK_CLIENT; a < VK_MIXED; a++)
        if (a != VK_SERVER_CPU && a != VK_LOCK && a != VK_COMMIT && a != VK_CONNECTION)
            sc.s[a] = -1;
    leaders(&sc, &a, &b);
    memset(out, 0, sizeof(*out));
    out->first = (enum verdict_kind)a;
    out->second = (enum verdict_kind)b;
    out->kind = sc.s[a] >= THRESHOLD ? (enum verdict_kind)a : VK_NONE;
    describe(&sc, out);
    if (out->kind == VK_NONE && active < 0.5) {
        out->kind = VK_UNDERLOADED;
        n_of(n, sizeof(n), active, g->sessions);
        snprintf(out->evidence, EV, "server idle: %s sessions active", n);
        out->confidence = "clear";
    }
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
    host_split_make(NAN, 1, NAN, NAN, &p->host);
}

/* The tps gain from lo to hi, and whether it is flat for the rise in clients; 0 if untestable. */
static int
gain_of(const struct verdict_point *lo, const struct verdict_point *hi, double *gain, int *flat)
{
    if (lo->clients <= 0 || hi->clients <= lo->clients || !(lo->tps > 0) || isnan(hi->tps))
        return 0;
    *gain = hi->tps / lo->tps - 1;
    *flat = *gain < fmax(FLAT_GAIN * log2((double)hi->clients / lo->clients), MIN_GAIN);
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
 * least PAID of the tps gain; where the run fills it, the server's CPU
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
        paid = hi->host.others < lo->host.others && run_hi / run_lo - 1 >= PAID * gain;
    else
        paid = hi->host.server / lo->host.server - 1 >= PAID * gain;
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
        return flat ? VC_CONTRADICTED : VC_CONFIRMED;
    case VK_HOST:
        return flat ? VC_CONFIRMED : check_host_gain(lo, hi, gain);
    case VK_SERVER_CPU:
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
    int more = k == VK_UNDERLOADED || k == VK_NETWORK || k == VK_COMMIT;
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
