/* watch: a server under someone else's load, through the model (see watch.h). */
#include "watch.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/units.h"
#include "param.h"

static double
z(double x)
{
    return isnan(x) ? 0 : x;
}

static void
addf(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;

    if (n + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/* An event loop: no sessions' states, a CPU limit of its own (Redis, memcached). */
static int
event_loop(const struct coll_signals *g)
{
    return isnan(g->active) && g->server_cpu_limit > 0;
}

static void
set_capacity(struct model_resource *r, double c, double busy, double x)
{
    r->capacity = c;
    r->util = busy / c;
    r->demand_s = x > 0 ? busy / x : NAN;
    r->bound = r->demand_s > 0 ? c / r->demand_s : NAN;
}

/* Pages read from disk with a hit ratio under P_MEMORY_HITS: the pool is short. */
static int
misses(const struct coll_signals *g)
{
    return g->disk_reads_s > 0 && g->hit_ratio < param(P_MEMORY_HITS);
}

/*
 * The server's CPU: what it used against the cores it can use (its limit,
 * never more than the host's), or its busiest thread against one core when
 * that is fuller (memcached's connections all on one of its -t threads;
 * Redis's main thread beside io-threads). Sessions on CPU against the cores
 * stand in only when the CPU is not known. 1: its busiest thread.
 */
static int
server_cpu(const struct watch_input *in, struct model_resource *r)
{
    const struct coll_signals *g = in->sig;
    double pct = isnan(g->server_cpu_pct) ? g->server_cpu_self_pct : g->server_cpu_pct;
    double c = g->server_cpu_limit > 0 ? g->server_cpu_limit / 100 : in->cores, busy = pct / 100;
    double thread = g->thread_max_pct / 100;

    if (in->cores > 0 && c > in->cores)
        c = in->cores;
    /*
     * Sessions shown running stand in for the CPU only when no data is
     * read from disk: MariaDB's processlist shows a session reading pages
     * as running (16 "running" on 2 cores at 0-90% of one core was called
     * "server CPU 100%").
     */
    if (isnan(busy) && !isnan(g->on_cpu) && !misses(g))
        busy = fmin(g->on_cpu, in->cores > 0 ? in->cores : 1), c = in->cores > 0 ? in->cores : 1;
    if (isnan(busy) || !(c > 0))
        return 0;
    if (thread > 0 && c > 1 && thread > busy / c) {
        set_capacity(r, 1, thread, in->x);
        return 1;
    }
    set_capacity(r, c, busy, in->x);
    return 0;
}

/*
 * A cache's memory: its fill against its limit. Full is how a cache is
 * meant to run; it is the limit only while it evicts keys that are looked
 * up again (a hit ratio under P_CACHE_HITS): then the working set does not
 * fit, and its utilization is the fill (1 when evicting).
 */
static int
cache_short(const struct coll_signals *g)
{
    return g->evictions_s > 0 && g->hit_ratio < param(P_CACHE_HITS) && g->mem_limit > 0;
}

static void
memory(const struct coll_signals *g, struct model_resource *r)
{
    if (!(g->mem_limit > 0) || isnan(g->mem_used))
        return;
    r->capacity = g->mem_limit;
    r->util = cache_short(g) ? fmax(g->mem_used / g->mem_limit, param(P_SATURATED)) : NAN;
}

/*
 * The account of the server's time. With sessions' states, the active
 * sessions' time: "on CPU" past what the server's CPU shows, while that
 * CPU has room, waited on something the server does not name (MariaDB's
 * processlist shows a session reading pages as running): data reads when
 * the buffer pool misses (hit ratio under P_MEMORY_HITS), else another
 * wait. An event loop's time: busy, stalled by others' commands, idle.
 */
static void
account_of(const struct watch_input *in, const struct model_resource *cpu, struct account *a)
{
    const struct coll_signals *g = in->sig;
    double act = z(g->active), on = z(g->on_cpu), lock = z(g->lock_wait), io = z(g->io_wait);
    double commit = z(g->commit_wait), sleep = z(g->sleep_wait), busy, hidden, sum;

    account_init(a);
    if (event_loop(g)) {
        busy = fmin(fmax(z(cpu->util), 0), 1);
        a->t[AS_STALL] = fmin(fmax(z(g->other_stall_share), 0), 1);
        a->t[AS_SERVER_CPU] = fmax(0, account_loop_busy(g, busy) * (1 - a->t[AS_STALL]));
        a->t[AS_IDLE] = fmax(0, 1 - a->t[AS_SERVER_CPU] - a->t[AS_STALL]);
        a->total = a->clients = 1;
        return;
    }
    if (!(act > 0))
        return;
    busy = cpu->util * cpu->capacity; /* cores busy */
    hidden = !isnan(busy) && cpu->util < param(P_SATURATED) && on > busy ? on - busy : 0;
    on -= hidden;
    if (misses(g))
        io += hidden, hidden = 0;
    sum = on + lock + io + commit + sleep + hidden;
    if (sum > act) /* counts from different glances: scaled to fit */
        on *= act / sum, lock *= act / sum, io *= act / sum, commit *= act / sum,
            sleep *= act / sum, hidden *= act / sum;
    a->t[AS_SERVER_CPU] = on;
    a->t[AS_LOCK] = lock;
    a->t[AS_DISK] = io;
    a->t[AS_COMMIT] = commit;
    a->t[AS_SLEEP] = sleep;
    a->t[AS_SERVER_OTHER] = fmax(0, act - on - lock - io - commit - sleep);
    a->total = a->clients = act;
}

static const enum account_share share_of[MR__COUNT] = {
    [MR_SERVER_CPU] = AS_SERVER_CPU,
    [MR_OTHERS] = AS__COUNT,
    [MR_BENCHTOP] = AS__COUNT,
    [MR_COMMIT] = AS_COMMIT,
    [MR_DISK] = AS_DISK,
    [MR_LOCK] = AS_LOCK,
    [MR_POOL] = AS_POOL,
    [MR_APP] = AS_APP,
    [MR_NETWORK] = AS__COUNT,
    [MR_STALL] = AS_STALL,
    [MR_CONNECT] = AS__COUNT,
    [MR_SLEEP] = AS_SLEEP,
    [MR_MEMORY] = AS__COUNT,
};

static void
resources(const struct watch_input *in, struct model *m, int *thread)
{
    const struct coll_signals *g = in->sig;

    for (int r = 0; r < MR__COUNT; r++) {
        m->r[r].capacity = m->r[r].demand_s = m->r[r].util = m->r[r].bound = NAN;
        m->r[r].share = m->r[r].resid_s = NAN;
    }
    *thread = server_cpu(in, &m->r[MR_SERVER_CPU]);
    if (g->log_syncs_s > 0 && !isnan(g->log_sync_ms_s))
        set_capacity(&m->r[MR_COMMIT], 1, g->log_sync_ms_s / 1000, in->x);
    if (g->pool_size > 0 && !isnan(g->pool_servers))
        set_capacity(&m->r[MR_POOL], g->pool_size, g->pool_servers, in->x);
    if (g->app_workers > 0 && !isnan(g->app_busy))
        set_capacity(&m->r[MR_APP], g->app_workers, g->app_busy, in->x);
    memory(g, &m->r[MR_MEMORY]);
}

static void
shares(const struct watch_input *in, const struct account *a, struct model *m)
{
    for (int r = 0; r < MR__COUNT; r++) {
        if (share_of[r] == AS__COUNT || !(a->total > 0))
            continue;
        m->r[r].share = account_share(a, share_of[r]);
        m->r[r].resid_s = in->x > 0 ? m->r[r].share * a->clients / in->x : NAN;
    }
}

static void
limit(struct model *m)
{
    m->limit = MR__COUNT;
    m->limit_util = NAN;
    for (int r = 0; r < MR__COUNT; r++)
        if (!isnan(m->r[r].util) && (m->limit == MR__COUNT || m->r[r].util > m->limit_util))
            m->limit = r, m->limit_util = m->r[r].util;
}

static void
advise(const struct coll_signals *g, enum model_res r, int thread, struct advice *a)
{
    memset(a, 0, sizeof *a);
    a->lo = a->hi = NAN;
    if ((r == MR_MEMORY || r == MR_DISK) && g->mem_limit_setting[0])
        advice_setting(a, 0, g->mem_limit_setting, "");
    else if (r == MR_COMMIT && g->commit_try[0]) {
        const char *eq = strchr(g->commit_try, '=');

        a->kind = ADV_SETTING;
        snprintf(a->name, sizeof a->name, "%.*s", eq ? (int)(eq - g->commit_try) : 47,
                 g->commit_try);
        snprintf(a->value, sizeof a->value, "%s", eq ? eq + 1 : "");
    } else if (r == MR_SERVER_CPU && thread && g->threads_setting[0] && !g->threads_io_only)
        advice_setting(a, 0, g->threads_setting, "");
    else if (r == MR_SERVER_CPU && g->rows_per_txn >= param(P_LARGE_ROWS) && g->seq_scans_s >= 1)
        a->kind = ADV_INDEX, snprintf(a->name, sizeof a->name, "%s", g->seq_scan_table);
    else if (r == MR_SERVER_CPU)
        a->kind = ADV_HARDWARE;
    else if (r == MR_LOCK)
        a->kind = ADV_TRIPS;
    else if (r == MR_STALL)
        a->kind = ADV_STOP_SESSIONS;
    else if (r == MR_POOL && g->pool_setting[0] && g->pool_size > 0) {
        char v[32];

        snprintf(v, sizeof v, "%.0f", 2 * g->pool_size);
        advice_setting(a, 1, g->pool_setting, v);
    } else if (r == MR_APP && g->app_limit[0])
        advice_setting(a, 0, g->app_limit, "");
}

/*
 * Relieving resource r: a saturated capacity doubled (a larger one: twice
 * its bound), or the share s of the sessions' time it holds freed (X / (1 -
 * s), as the closed loop of whoever loads it), never past the other
 * resources' bounds. A cache's memory has no throughput bound: its relief
 * is hits, not commands.
 */
static double
relieved(const struct watch_input *in, const struct model *m, enum model_res r)
{
    double s = z(m->r[r].share), b = s < 1 ? in->x / (1 - s) : INFINITY,
           cap = model_min_bound(m, r);

    if (!isnan(m->r[r].bound))
        b = fmin(b, 2 * m->r[r].bound);
    if (isinf(b))
        return NAN;
    return isnan(cap) ? b : fmin(b, cap);
}

static void
finding_add(struct model *m, enum model_res r, double bound, const struct advice *a)
{
    struct finding *f;

    if (m->nfindings >= MODEL_FINDINGS)
        return;
    f = &m->findings[m->nfindings++];
    f->res = r;
    f->share = m->r[r].share;
    f->bound = bound;
    f->advice = *a;
    f->advice.hi = bound / m->x;
    f->advice.lo = isnan(f->share) ? NAN : fmin(1 / (1 - f->share / 2), f->advice.hi);
}

/* Reliefs worth P_FINDING_MIN or more, ranked by bound; a short cache first (no bound). */
static void
findings(const struct watch_input *in, struct model *m, int thread)
{
    static const enum model_res order[] = {MR_SERVER_CPU, MR_COMMIT, MR_DISK, MR_LOCK,
                                           MR_STALL,      MR_POOL,   MR_APP};
    struct finding all[MR__COUNT];
    struct advice a;
    int n = 0;

    if (cache_short(in->sig)) {
        advise(in->sig, MR_MEMORY, thread, &a);
        finding_add(m, MR_MEMORY, NAN, &a);
    }
    if (!(in->x > 0))
        return;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        enum model_res r = order[i];
        int saturated = m->r[r].util >= param(P_SATURATED);
        double b;

        if (!saturated && !(m->r[r].share >= param(P_SHARE_MIN) && r != MR_SERVER_CPU))
            continue; /* a CPU with room relieved gains an open load nothing */
        b = relieved(in, m, r);
        if (isnan(b) || b < param(P_FINDING_MIN) * in->x)
            continue;
        advise(in->sig, r, thread, &all[n].advice);
        all[n].res = r;
        all[n++].bound = b;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && all[j].bound > all[j - 1].bound; j--) {
            struct finding t = all[j];

            all[j] = all[j - 1];
            all[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        finding_add(m, all[i].res, all[i].bound, &all[i].advice);
}

static enum verdict_kind
kind_of(enum model_res r, int thread)
{
    switch (r) {
    case MR_SERVER_CPU:
        return thread ? VK_THREAD : VK_SERVER_CPU;
    case MR_COMMIT:
        return VK_COMMIT;
    case MR_DISK:
        return VK_IO;
    case MR_LOCK:
        return VK_LOCK;
    case MR_STALL:
        return VK_STALL;
    case MR_POOL:
        return VK_POOL;
    case MR_APP:
        return VK_APP;
    case MR_MEMORY:
        return VK_MEMORY;
    default:
        return VK_NONE;
    }
}

/* The wait holding the largest share of the active sessions' time, P_WATCH_WAIT or more. */
static int
leading_wait(const struct model *m)
{
    static const enum model_res waits[] = {MR_LOCK, MR_DISK, MR_COMMIT, MR_STALL};
    int best = MR__COUNT;

    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++)
        if (m->r[waits[i]].share >= param(P_WATCH_WAIT) &&
            (best == MR__COUNT || m->r[waits[i]].share > m->r[best].share))
            best = waits[i];
    return best;
}

/*
 * Idle: under P_IDLE_RATE and no session active; or no client connected at
 * all, whose rate is then the monitors' own (an idle MariaDB counted 13
 * statements/s: the collector's own SELECTs, as autocommit transactions).
 */
static int
idle(const struct watch_input *in)
{
    const struct coll_signals *g = in->sig;

    return (in->x < param(P_IDLE_RATE) || g->sessions == 0) && !(g->active >= param(P_IDLE_ACTIVE));
}

/* The kind, and the resource behind it (MR__COUNT: none). */
static int
decide(const struct watch_input *in, int thread, struct verdict *v)
{
    const struct model *m = &v->model;
    const struct coll_signals *g = in->sig;
    int w = leading_wait(m), r = MR__COUNT;

    v->kind = VK_NONE;
    v->confidence = "clear";
    if (isnan(in->x)) /* the first sample, gauges only: no rate to judge a limit by */
        return r;
    if (m->limit < MR__COUNT && m->limit_util >= param(P_SATURATED))
        r = m->limit, v->kind = kind_of(m->limit, thread && m->limit == MR_SERVER_CPU);
    else if (g->max_sessions > 0 && g->sessions / g->max_sessions >= param(P_SATURATED))
        v->kind = VK_CONNECTION;
    else if (w < MR__COUNT && z(g->active) >= param(P_IDLE_ACTIVE))
        r = w, v->kind = kind_of(w, 0);
    else if (idle(in))
        v->kind = VK_UNDERLOADED;
    return r;
}

/* "48.0k commands/s" */
static void
rate_text(const struct watch_input *in, double x, char *buf, size_t len)
{
    char n[32];

    units_si(n, sizeof n, x, "");
    snprintf(buf, len, "%s %s/s", n, event_loop(in->sig) ? "commands" : "transactions");
}

static void
evidence_cpu(const struct watch_input *in, const struct model *m, int thread, char *ev, size_t len)
{
    const struct model_resource *c = &m->r[MR_SERVER_CPU];
    char b[48];

    if (isnan(c->util))
        return;
    if (thread)
        addf(ev, len, "; its busiest thread %.0f%% of a core", c->util * 100);
    else
        addf(ev, len, "; server CPU %.0f%% of %.3g core%s", c->util * 100, c->capacity,
             c->capacity == 1 ? "" : "s");
    if (!isnan(c->bound) && !(in->x < param(P_IDLE_RATE))) {
        rate_text(in, c->bound, b, sizeof b);
        addf(ev, len, " (bound about %s)", b);
    }
}

static void
evidence_sessions(const struct coll_signals *g, const struct account *a, char *ev, size_t len)
{
    static const struct {
        enum account_share s;
        const char *what;
    } waits[] = {{AS_SERVER_CPU, "on CPU"},      {AS_LOCK, "on locks"},
                 {AS_DISK, "on data reads"},     {AS_COMMIT, "on the commit"},
                 {AS_SERVER_OTHER, "elsewhere"}, {AS_SLEEP, "in sleeps"}};

    if (isnan(g->active))
        return;
    addf(ev, len, "; %.1f of %.0f sessions active", g->active, z(g->sessions));
    for (size_t i = 0; i < sizeof waits / sizeof waits[0] && a->total > 0; i++)
        if (account_share(a, waits[i].s) >= param(P_SHARE_MIN))
            addf(ev, len, ", %.0f%% %s", 100 * account_share(a, waits[i].s), waits[i].what);
}

static void
evidence_memory(const struct coll_signals *g, char *ev, size_t len)
{
    char used[16], lim[16];

    if (!isnan(g->hit_ratio))
        addf(ev, len, "; hit ratio %.1f%%", 100 * g->hit_ratio);
    if (g->evictions_s > 0)
        addf(ev, len, ", %.0f evictions/s", g->evictions_s);
    if (g->disk_reads_s > 0)
        addf(ev, len, ", %.0f disk reads/s", g->disk_reads_s);
    if (g->mem_limit > 0 && !isnan(g->mem_used) && cache_short(g)) {
        units_iec(used, sizeof used, g->mem_used, "");
        units_iec(lim, sizeof lim, g->mem_limit, "");
        addf(ev, len, ", %s of %s (%s)", used, lim, g->mem_limit_setting);
    }
}

static void
evidence_findings(const struct watch_input *in, const struct model *m, char *ev, size_t len)
{
    char adv[128], b[48];

    for (int i = 0; i < m->nfindings; i++) {
        const struct finding *f = &m->findings[i];

        advice_text(&f->advice, adv, sizeof adv);
        if (f->res == MR_MEMORY) {
            addf(ev, len, "; the working set does not fit the cache%s%s", adv[0] ? ": " : "", adv);
            continue;
        }
        rate_text(in, f->bound, b, sizeof b);
        addf(ev, len, "; relieving %s: up to about %s%s%s%s", model_res_label(f->res), b,
             adv[0] ? " (" : "", adv, adv[0] ? ")" : "");
    }
}

static void
evidence(const struct watch_input *in, int thread, struct verdict *v)
{
    char x[48];

    if (isnan(in->x))
        snprintf(x, sizeof x, "throughput unknown");
    else
        rate_text(in, in->x, x, sizeof x);
    snprintf(v->evidence, sizeof v->evidence, "%s", x);
    evidence_cpu(in, &v->model, thread, v->evidence, sizeof v->evidence);
    evidence_sessions(in->sig, &v->acct, v->evidence, sizeof v->evidence);
    evidence_memory(in->sig, v->evidence, sizeof v->evidence);
    if (v->kind == VK_CONNECTION)
        addf(v->evidence, sizeof v->evidence, "; %.0f of %.0f connections", in->sig->sessions,
             in->sig->max_sessions);
    evidence_findings(in, &v->model, v->evidence, sizeof v->evidence);
}

void
watch_judge(const struct watch_input *in, struct verdict *out)
{
    struct model *m = &out->model;
    struct advice a;
    int thread = 0, r;

    memset(out, 0, sizeof *out);
    out->first = out->second = VK_NONE;
    host_split_make(NAN, in->cores > 0 ? in->cores : 1, NAN, NAN, NAN, &out->host);
    m->made = 1;
    m->x = in->x;
    m->consistent = 1;
    m->x_closed = m->clients_to_saturate = m->little_n = m->little_xr = NAN;
    resources(in, m, &thread);
    account_of(in, &m->r[MR_SERVER_CPU], &out->acct);
    shares(in, &out->acct, m);
    limit(m);
    findings(in, m, thread);
    for (int i = 0; i < m->nfindings; i++)
        advice_list_add(&out->advice, &m->findings[i].advice);
    r = decide(in, thread, out);
    if (r < MR__COUNT && out->advice.n == 0) { /* no bound to tell (no throughput): the advice */
        advise(in->sig, r, thread, &a);
        advice_list_add(&out->advice, &a);
    }
    out->first = out->kind;
    out->score = isnan(m->limit_util) ? 0 : fmin(m->limit_util, 1);
    evidence(in, thread, out);
}

const char *
watch_label(const struct verdict *v)
{
    if (v->kind == VK_UNDERLOADED)
        return "idle";
    if (v->kind == VK_NONE)
        return "busy, no limit reached";
    return verdict_label(v->kind);
}
