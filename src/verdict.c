/* verdict: scoring rules and hysteresis (see verdict.h and benchtop.1, VERDICT). */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum {
    STREAK_TO_SHOW = 2, /* intervals a new leader must lead before it is shown */
};

static const double THRESHOLD = 0.3;  /* below this, a limit is not a limit */
static const double MIXED_GAP = 0.15; /* two limits this close are both shown */
static const double SMOOTH = 0.5;     /* weight of the newest sample in the smoothed fractions */

struct scores {
    double s[VK__COUNT];
    char ev[VK__COUNT][200];
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
    [VK_MIXED] = "mixed",
};

static const char *const keys[VK__COUNT] = {
    [VK_NONE] = "none",       [VK_CLIENT] = "client",           [VK_SERVER_CPU] = "server_cpu",
    [VK_LOCK] = "lock",       [VK_COMMIT] = "commit",           [VK_CONNECTION] = "connection",
    [VK_NETWORK] = "network", [VK_UNDERLOADED] = "underloaded", [VK_MIXED] = "mixed",
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
    return part / (whole > 1 ? whole : 1);
}

static double
max2(double a, double b)
{
    if (isnan(a))
        return b;
    return isnan(b) || a > b ? a : b;
}

/*
 * The share of the server's CPU capacity in use (0..1): its own process CPU
 * against its limit, or its sessions on CPU against the cores; NAN if
 * nothing tells. The host's CPU is evidence only: on a shared machine
 * anything else running would pass for the server.
 */
static double
server_load(const struct verdict_state *st, const struct verdict_input *in)
{
    double limit = in->sig.server_cpu_limit;

    /* a local server's threads cannot use more cores than the host has */
    if (!isnan(in->host_busy_pct) && in->cores > 0 && limit > 100.0 * in->cores)
        limit = 100.0 * in->cores;
    return max2(frac(in->sig.server_cpu_pct, limit), st->cpu_frac);
}

static void
describe_server(const struct verdict_state *st, const struct verdict_input *in, char *buf,
                size_t len)
{
    const struct coll_signals *g = &in->sig;

    if (!isnan(g->server_cpu_pct))
        snprintf(buf, len, "server CPU %.0f%%", g->server_cpu_pct);
    else if (!isnan(g->on_cpu))
        snprintf(buf, len, "server %.0f of %.0f sessions on CPU (%d cores)", g->on_cpu, g->sessions,
                 in->cores);
    else if (!isnan(in->host_busy_pct))
        snprintf(buf, len, "host CPU %.0f%%", in->host_busy_pct);
    else
        snprintf(buf, len, "server load unknown");
}

/*
 * A worker thread that runs or waits for a CPU all the time can start no
 * more work: its share of a core plus its run-queue wait is what counts.
 */
static void
score_client(const struct verdict_state *st, const struct verdict_input *in, struct scores *sc,
             const char *server)
{
    double wait = isnan(in->worker_wait_max) ? 0 : in->worker_wait_max;

    sc->s[VK_CLIENT] = ramp(in->worker_cpu_max + wait, 75, 95);
    if (wait >= 10)
        snprintf(sc->ev[VK_CLIENT], sizeof(sc->ev[0]),
                 "benchtop thread at %.0f%% CPU and %.0f%% waiting for one; %s", in->worker_cpu_max,
                 wait, server);
    else
        snprintf(sc->ev[VK_CLIENT], sizeof(sc->ev[0]), "benchtop thread at %.0f%% CPU; %s",
                 in->worker_cpu_max, server);
}

static void
score_server_cpu(const struct verdict_state *st, const struct verdict_input *in, struct scores *sc,
                 const char *server)
{
    double load = server_load(st, in);

    sc->s[VK_SERVER_CPU] = ramp(load, 0.7, 0.95);
    if (!isnan(in->host_busy_pct))
        snprintf(sc->ev[VK_SERVER_CPU], sizeof(sc->ev[0]),
                 "%s; host CPU %.0f%% of %d cores, benchtop %.0f%% of one", server,
                 in->host_busy_pct, in->cores, in->own_cpu_pct);
    else
        snprintf(sc->ev[VK_SERVER_CPU], sizeof(sc->ev[0]), "%s", server);
}

static void
score_waits(struct verdict_state *st, const struct verdict_input *in, struct scores *sc)
{
    const struct coll_signals *g = &in->sig;
    double sync = isnan(g->log_sync_ms_s) ? NAN : g->log_sync_ms_s / 1000.0;
    double commit = max2(st->commit_frac, sync);

    sc->s[VK_LOCK] = ramp(st->lock_frac, 0.25, 0.6);
    snprintf(sc->ev[VK_LOCK], sizeof(sc->ev[0]), "%.0f of %.0f active sessions wait on locks",
             g->lock_wait, g->active);
    sc->s[VK_COMMIT] = ramp(commit, 0.25, 0.6);
    snprintf(sc->ev[VK_COMMIT], sizeof(sc->ev[0]),
             "%.0f of %.0f active sessions wait on the log sync or I/O",
             g->commit_wait + g->io_wait, g->active);
    if (!isnan(sync))
        snprintf(sc->ev[VK_COMMIT] + strlen(sc->ev[VK_COMMIT]),
                 sizeof(sc->ev[0]) - strlen(sc->ev[VK_COMMIT]), "; log sync %.0f ms/s",
                 g->log_sync_ms_s);
}

static void
score_connection(const struct verdict_input *in, struct scores *sc)
{
    sc->s[VK_CONNECTION] = ramp(in->connect_share, 0.3, 0.6);
    snprintf(sc->ev[VK_CONNECTION], sizeof(sc->ev[0]),
             "connection set-up is %.0f%% of each transaction (%.2f of %.2f ms)",
             in->connect_share * 100, in->connect_share * in->lat_mean_ms, in->lat_mean_ms);
}

/* Round trips, measured on the collector's connection, against the clients' latency. */
static void
score_network(const struct verdict_input *in, struct scores *sc, const char *server)
{
    double rtt = in->sig.rtt_ms;
    double ratio = rtt >= 1.0 ? rtt / in->lat_mean_ms : NAN;
    double busy = sc->s[VK_CLIENT] > sc->s[VK_SERVER_CPU] ? sc->s[VK_CLIENT] : sc->s[VK_SERVER_CPU];

    /*
     * On a saturated host a local round trip of a few ms is slow because
     * nobody gets a CPU, not because of the network.
     */
    if (!isnan(in->host_busy_pct) && in->host_busy_pct >= 90 && rtt < 5)
        ratio = NAN;
    sc->s[VK_NETWORK] = ramp(ratio, 0.2, 0.5) * (1 - busy);
    snprintf(sc->ev[VK_NETWORK], sizeof(sc->ev[0]),
             "a round trip takes %.1f ms of %.1f ms latency; benchtop %.0f%% CPU, %s", rtt,
             in->lat_mean_ms, in->worker_cpu_max, server);
}

static void
score_underloaded(const struct verdict_input *in, struct scores *sc, const char *server)
{
    double top = 0,
           wants = in->worker_cpu_max + (isnan(in->worker_wait_max) ? 0 : in->worker_wait_max);
    int k;

    for (k = VK_CLIENT; k < VK_UNDERLOADED; k++)
        top = sc->s[k] > top ? sc->s[k] : top;
    sc->s[VK_UNDERLOADED] = top < THRESHOLD && wants < 60 ? 0.6 : 0;
    snprintf(sc->ev[VK_UNDERLOADED], sizeof(sc->ev[0]),
             "benchtop thread at %.0f%% CPU, %s, %d clients%s: add clients", in->worker_cpu_max,
             server, in->clients, in->rate > 0 ? " at a set rate" : "");
}

static void
score_all(struct verdict_state *st, const struct verdict_input *in, struct scores *sc)
{
    char server[96];

    memset(sc, 0, sizeof(*sc));
    describe_server(st, in, server, sizeof(server));
    score_client(st, in, sc, server);
    score_server_cpu(st, in, sc, server);
    score_waits(st, in, sc);
    score_connection(in, sc);
    score_network(in, sc, server);
    score_underloaded(in, sc, server);
}

static void
update_smoothing(struct verdict_state *st, const struct verdict_input *in)
{
    const struct coll_signals *g = &in->sig;

    if (!in->have_server)
        return;
    st->lock_frac = smooth(st->lock_frac, frac(g->lock_wait, g->active));
    st->commit_frac = smooth(st->commit_frac, frac(g->commit_wait + g->io_wait, g->active));
    st->cpu_frac = smooth(st->cpu_frac, isnan(g->on_cpu) ? NAN : fmin(g->on_cpu / in->cores, 1));
}

static const char *
confidence(double score)
{
    return score >= 0.8 ? "clear" : score >= 0.5 ? "likely" : "tentative";
}

/* The leading candidate (VK_MIXED when the first two are close), and its figures. */
static void
lead(const struct scores *sc, struct verdict *v)
{
    int k, a = VK_NONE, b = VK_NONE;

    for (k = VK_CLIENT; k < VK_MIXED; k++) {
        if (a == VK_NONE || sc->s[k] > sc->s[a]) {
            b = a;
            a = k;
        } else if (b == VK_NONE || sc->s[k] > sc->s[b]) {
            b = k;
        }
    }
    memset(v, 0, sizeof(*v));
    v->first = (enum verdict_kind)a;
    v->second = (enum verdict_kind)b;
    v->score = sc->s[a];
    v->kind = sc->s[a] < THRESHOLD ? VK_NONE : (enum verdict_kind)a;
    if (v->kind != VK_NONE && sc->s[b] >= 0.5 && sc->s[a] - sc->s[b] < MIXED_GAP) {
        v->kind = VK_MIXED;
        snprintf(v->evidence, sizeof(v->evidence), "%s: %.90s | %s: %.90s", verdict_label(a),
                 sc->ev[a], verdict_label(b), sc->ev[b]);
    } else {
        snprintf(v->evidence, sizeof(v->evidence), "%s", sc->ev[a]);
    }
    v->confidence = confidence(v->score);
}

void
verdict_init(struct verdict_state *st)
{
    memset(st, 0, sizeof(*st));
    st->lock_frac = st->commit_frac = st->cpu_frac = NAN;
    st->last.kind = st->shown = VK_NONE;
    st->last.confidence = "tentative";
    snprintf(st->last.evidence, sizeof(st->last.evidence), "warming up");
}

void
verdict_step(struct verdict_state *st, const struct verdict_input *in, struct verdict *out)
{
    struct scores sc;
    struct verdict v;

    if (!in->load) {
        verdict_init(st);
        snprintf(st->last.evidence, sizeof(st->last.evidence), "no load running");
        *out = st->last;
        return;
    }
    st->intervals++;
    update_smoothing(st, in);
    score_all(st, in, &sc);
    lead(&sc, &v);
    st->streak = v.kind == st->leader ? st->streak + 1 : 1;
    st->leader = v.kind;
    /* hysteresis: a new verdict must lead STREAK_TO_SHOW intervals; the shown one updates */
    if (v.kind == st->shown || st->streak >= STREAK_TO_SHOW) {
        st->shown = v.kind;
        st->last = v;
    }
    *out = st->last;
}
