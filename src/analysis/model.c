/* model: operational analysis over the account (see model.h and benchtop.1, VERDICT). */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "param.h"

static const struct {
    const char *key, *label;
} res_names[MR__COUNT] = {
    [MR_SERVER_CPU] = {"server_cpu", "the server's CPU"},
    [MR_OTHERS] = {"others", "others' CPU"},
    [MR_BENCHTOP] = {"benchtop", "benchtop's CPU"},
    [MR_COMMIT] = {"commit", "the commit"},
    [MR_DISK] = {"disk_read", "disk reads"},
    [MR_LOCK] = {"lock", "the locks"},
    [MR_POOL] = {"pool", "the pooler's pool"},
    [MR_APP] = {"app", "the app's workers"},
    [MR_NETWORK] = {"network", "the round trips"},
    [MR_STALL] = {"stall", "the stalls"},
    [MR_CONNECT] = {"connect", "connecting"},
    [MR_SLEEP] = {"sleep", "the statements' sleeps"},
    [MR_MEMORY] = {"memory", "the cache's memory"},
};

static const char *const advice_keys[ADV__COUNT] = {
    [ADV_NONE] = "none",
    [ADV_SETTING] = "setting",
    [ADV_POOLER] = "pooler",
    [ADV_CLIENTS] = "clients",
    [ADV_THREADS] = "threads",
    [ADV_INDEX] = "index",
    [ADV_BATCH] = "batch",
    [ADV_TRIPS] = "round_trips",
    [ADV_STOP_OTHERS] = "stop_other_programs",
    [ADV_STOP_SESSIONS] = "stop_other_sessions",
    [ADV_QUOTA] = "quota",
    [ADV_KEEP_CONNECTIONS] = "keep_connections",
    [ADV_HARDWARE] = "hardware",
};

const char *
model_res_label(enum model_res r)
{
    return r >= 0 && r < MR__COUNT ? res_names[r].label : "?";
}

const char *
model_res_key(enum model_res r)
{
    return r >= 0 && r < MR__COUNT ? res_names[r].key : "?";
}

const char *
advice_key(enum advice_kind k)
{
    return k >= 0 && k < ADV__COUNT ? advice_keys[k] : "?";
}

static double
z(double x)
{
    return isnan(x) ? 0 : x;
}

/* The account's shares behind each resource (OTHERS holds none of the clients' time). */
static double
res_share(const struct account *a, enum model_res r)
{
    switch (r) {
    case MR_SERVER_CPU:
        return account_share(a, AS_SERVER_CPU) + account_share(a, AS_SERVER_OTHER);
    case MR_BENCHTOP:
        return account_share(a, AS_BENCHTOP) + account_share(a, AS_RUNQ) +
               account_share(a, AS_QUOTA);
    case MR_COMMIT:
        return account_share(a, AS_COMMIT);
    case MR_DISK:
        return account_share(a, AS_DISK);
    case MR_LOCK:
        return account_share(a, AS_LOCK);
    case MR_POOL:
        return account_share(a, AS_POOL);
    case MR_APP:
        return account_share(a, AS_APP);
    case MR_NETWORK:
        return account_share(a, AS_TRANSIT);
    case MR_STALL:
        return account_share(a, AS_STALL);
    case MR_CONNECT:
        return account_share(a, AS_CONNECT);
    case MR_SLEEP:
        return account_share(a, AS_SLEEP);
    default:
        return 0;
    }
}

/* A resource with capacity c of which busy is in use, busy_own of it by this load at x tps. */
static void
set_capacity(struct model_resource *r, double c, double busy, double busy_own, double x)
{
    if (!(c > 0) || isnan(busy) || !(x > 0))
        return;
    r->capacity = c;
    r->util = busy / c;
    r->demand_s = busy_own / x;
    /* what the load may have of it: the capacity less what others hold */
    r->bound = r->demand_s > 0 ? fmax(c - (busy - busy_own), 0) / r->demand_s : NAN;
}

/* The share of the server's busy CPU that is benchtop's sessions'; 1 when nothing tells. */
static double
own_cpu_share(const struct coll_signals *g)
{
    if (!isnan(g->own_on_cpu) && g->on_cpu > 0)
        return fmin(g->own_on_cpu / g->on_cpu, 1);
    if (!isnan(g->own_active) && g->active > 0)
        return fmin(g->own_active / g->active, 1);
    return 1;
}

static void
server_cpu(const struct model_input *in, struct model *m)
{
    const struct coll_signals *g = in->sig;
    double pct = isnan(g->server_cpu_pct) ? g->server_cpu_self_pct : g->server_cpu_pct;
    double c = g->server_cpu_limit > 0 ? g->server_cpu_limit / 100 : in->cores;
    double busy = pct / 100, own;

    if (in->cores > 0 && c > in->cores)
        c = in->cores; /* a server cannot use more cores than the host has */
    /* sessions on CPU against the cores: those past the cores wait for one (U at most 1) */
    if (isnan(busy) && !isnan(g->on_cpu))
        busy = fmin(g->on_cpu, in->cores), c = in->cores;
    own = busy * own_cpu_share(g);
    set_capacity(&m->r[MR_SERVER_CPU], c, busy, own, in->tps);
    if (!isnan(busy) && c > 0)
        m->r[MR_OTHERS].util = (busy - own) / c;
    m->r[MR_OTHERS].capacity = c;
}

/* benchtop's CPU: its threads, the CPUs it may run on, its quota, the host's cores. */
static void
benchtop_cpu(const struct model_input *in, struct model *m)
{
    double c = in->threads > 0 ? in->threads : in->cores;

    if (in->cores > 0)
        c = fmin(c, in->cores);
    if (in->allowed_cpus > 0)
        c = fmin(c, in->allowed_cpus);
    if (in->quota > 0)
        c = fmin(c, in->quota);
    set_capacity(&m->r[MR_BENCHTOP], c, in->own_cpu_pct / 100, in->own_cpu_pct / 100, in->tps);
}

/*
 * The log syncs one at a time: its utilization is the time in syncs per
 * second (timed syncs only), its bound at today's syncs per commit; group
 * commit lowers the syncs per commit as more commits wait for one.
 */
static void
commit_log(const struct model_input *in, struct model *m)
{
    const struct coll_signals *g = in->sig;
    double busy = g->log_sync_ms_s / 1000;

    if (g->log_syncs_s > 0 && !isnan(busy))
        set_capacity(&m->r[MR_COMMIT], 1, busy, busy, in->tps);
    /* the redo log's room is the commit's too: full, every write waits for pages to flush */
    if (g->redo_fill > m->r[MR_COMMIT].util || (isnan(m->r[MR_COMMIT].util) && g->redo_fill >= 0))
        m->r[MR_COMMIT].util = g->redo_fill;
}

/*
 * Transit (the clients' time outside the server's sessions and benchtop)
 * is the network only on a wire: a round trip of P_WIRE_MS or more that
 * makes P_NETWORK_SHARE of the latency. On a short path it is the
 * clients' own gap between a reply and the next request, which more
 * clients overlap (no resource), or, P_STALL_MS a round trip and more,
 * a stall: the server answered no one (another client's CLIENT PAUSE).
 * Without a measured round trip it stays the network's.
 */
static void
transit_as(const struct model_input *in, struct model *m)
{
    struct model_resource *net = &m->r[MR_NETWORK], *stall = &m->r[MR_STALL];
    double rtt = in->sig != NULL ? in->sig->rtt_ms : NAN;
    double trips = in->ops_per_txn >= 1 ? in->ops_per_txn : 1;

    if (isnan(rtt) || !(net->share > 0))
        return;
    if (rtt >= param(P_WIRE_MS) && rtt * trips >= param(P_NETWORK_SHARE) * in->lat_mean_ms)
        return;
    if (net->resid_s * 1000 / trips >= param(P_STALL_MS)) {
        stall->share += net->share;
        stall->resid_s = z(stall->resid_s) + net->resid_s;
    }
    net->share = net->resid_s = 0;
}

static void
resources(const struct model_input *in, struct model *m)
{
    const struct coll_signals *g = in->sig;
    double n = in->acct->clients;

    for (int r = 0; r < MR__COUNT; r++) {
        struct model_resource *x = &m->r[r];

        x->share = res_share(in->acct, r);
        x->resid_s = in->tps > 0 ? x->share * n / in->tps : NAN;
        x->capacity = x->demand_s = x->util = x->bound = NAN;
    }
    transit_as(in, m);
    benchtop_cpu(in, m);
    if (g == NULL)
        return;
    server_cpu(in, m);
    commit_log(in, m);
    set_capacity(&m->r[MR_POOL], g->pool_size, g->pool_servers, g->pool_servers, in->tps);
    set_capacity(&m->r[MR_APP], g->app_workers, g->app_busy, g->app_busy, in->tps);
}

/* The bottleneck's bound: the smallest capacity / demand known, except skip's; NAN none. */
double
model_min_bound(const struct model *m, int skip)
{
    double b = NAN;

    for (int r = 0; r < MR__COUNT; r++)
        if (r != skip && !isnan(m->r[r].bound) && (isnan(b) || m->r[r].bound < b))
            b = m->r[r].bound;
    return b;
}

/*
 * Little's law: clients in flight = X x R. A stall (clients in flight,
 * none finishing) or a gauge far from the product says the figures do not
 * describe one steady interval.
 */
static void
little(const struct model_input *in, struct model *m)
{
    double tol = param(P_LITTLE_TOL), ratio;

    m->little_n = in->in_flight;
    m->little_xr = z(in->tps) * in->lat_mean_ms / 1000;
    m->consistent = 1;
    if (isnan(in->in_flight) || isnan(m->little_xr))
        return;
    if (!(m->little_xr > 0)) {
        m->consistent = !(in->in_flight >= 1);
        return;
    }
    ratio = in->in_flight / m->little_xr;
    m->consistent = ratio <= 1 + tol && ratio >= 1 / (1 + tol);
}

/* The closed loop: N / (R_min + Z), and the clients the bottleneck's bound needs. */
static void
closed_loop(const struct model_input *in, struct model *m)
{
    double zt = m->r[MR_BENCHTOP].resid_s, rmin = in->lat_floor_ms / 1000,
           b = model_min_bound(m, -1);

    m->x_closed = m->clients_to_saturate = NAN;
    if (isnan(rmin) || !(rmin + z(zt) > 0))
        return;
    m->x_closed = in->clients / (rmin + z(zt));
    if (!isnan(b))
        m->clients_to_saturate = b * (rmin + z(zt));
}

static void
limit(struct model *m)
{
    m->limit = MR__COUNT;
    m->limit_util = NAN;
    for (int r = 0; r < MR__COUNT; r++)
        if (r != MR_OTHERS && !isnan(m->r[r].util) &&
            (m->limit == MR__COUNT || m->r[r].util > m->limit_util)) {
            m->limit = r;
            m->limit_util = m->r[r].util;
        }
}

/* --- advice, from the collectors' fields --- */

static void
adv_set(struct advice *a, enum advice_kind k, const char *name, const char *value)
{
    a->kind = k;
    snprintf(a->name, sizeof a->name, "%.47s", name ? name : "");
    snprintf(a->value, sizeof a->value, "%s", value ? value : "");
}

/* "NAME=VALUE" (a collector's commit_try) into a setting. */
static void
adv_assignment(struct advice *a, const char *nv)
{
    const char *eq = strchr(nv, '=');

    a->kind = ADV_SETTING;
    snprintf(a->name, sizeof a->name, "%.*s", eq ? (int)(eq - nv) : (int)strlen(nv), nv);
    snprintf(a->value, sizeof a->value, "%s", eq ? eq + 1 : "");
}

static void
advise_res(const struct model_input *in, enum model_res r, struct advice *a)
{
    const struct coll_signals *g = in->sig;
    char v[32];

    memset(a, 0, sizeof *a);
    if (r == MR_BENCHTOP) {
        if (in->quota > 0)
            a->kind = ADV_QUOTA;
        else
            a->kind = ADV_THREADS, a->n = in->threads + 1;
        return;
    }
    if (r == MR_CONNECT) {
        a->kind = ADV_KEEP_CONNECTIONS;
        return;
    }
    if (r == MR_NETWORK) {
        a->kind = ADV_TRIPS;
        return;
    }
    if (g == NULL)
        return;
    if (r == MR_COMMIT && g->redo_fill >= param(P_REDO_FULL) && g->redo_setting[0])
        adv_set(a, ADV_SETTING, g->redo_setting, "");
    else if (r == MR_COMMIT && g->commit_try[0])
        adv_assignment(a, g->commit_try);
    else if (r == MR_COMMIT)
        advice_batch(a, in->ops_per_txn);
    else if (r == MR_DISK && g->mem_limit_setting[0] && g->mem_limit_setting[0] != '-')
        adv_set(a, ADV_SETTING, g->mem_limit_setting, "");
    else if (r == MR_SERVER_CPU && g->rows_per_txn >= param(P_LARGE_ROWS) && g->seq_scans_s >= 1)
        adv_set(a, ADV_INDEX, g->seq_scan_table, "");
    else if (r == MR_SERVER_CPU || r == MR_DISK)
        a->kind = ADV_HARDWARE;
    else if (r == MR_OTHERS || r == MR_STALL) /* who: the evidence, digested in records */
        a->kind = ADV_STOP_SESSIONS;
    else if (r == MR_LOCK)
        a->kind = ADV_TRIPS;
    else if (r == MR_POOL && g->pool_setting[0] && g->pool_size > 0) {
        snprintf(v, sizeof v, "%.0f", 2 * g->pool_size);
        adv_set(a, ADV_POOLER, g->pool_setting, v);
    } else if (r == MR_APP && g->app_limit[0])
        adv_set(a, ADV_SETTING, g->app_limit, "");
}

/* --- findings --- */

static void
finding_add(struct finding *all, int *n, enum model_res r, double share, double bound, double x)
{
    if (isnan(bound) || !(bound >= param(P_FINDING_MIN) * x))
        return;
    all[*n].res = r;
    all[*n].share = share;
    all[*n].bound = bound;
    all[*n].advice.hi = bound / x;
    /* half the time relieved: the lower end of the range */
    all[*n].advice.lo = isnan(share) ? NAN : fmin(1 / (1 - share / 2), bound / x);
    (*n)++;
}

/*
 * Relieving a share s of the clients' time: X / (1 - s) at most, by the
 * closed loop, and never past another resource's bound.
 */
static double
relieved(const struct model_input *in, const struct model *m, enum model_res r, double x)
{
    double s = m->r[r].share, cap = model_min_bound(m, r);

    /*
     * Row locks are held until the holder's commit ends: a shorter commit
     * shortens every hold, so its relief frees the lock waits too (at
     * most). tpcb-like at scale 1, -c 8, commit 32% and locks 23%:
     * synchronous_commit=off gave +129% where the commit alone bounded
     * +47%.
     */
    if (r == MR_COMMIT && in->sig != NULL && in->sig->lock_kind == LK_ROW)
        s += m->r[MR_LOCK].share;
    double b = s < 1 ? x / (1 - s) : INFINITY;

    /* a resource with a capacity is relieved by twice as much of it (a larger server) */
    if (!isnan(m->r[r].bound))
        b = fmin(b, 2 * m->r[r].bound);
    return isnan(cap) ? (isinf(b) ? NAN : b) : fmin(b, cap);
}

/*
 * Others' CPU stopped: the server's whole capacity for the load (other
 * sessions in it), or a saturated host's cores that other programs hold
 * (the run's CPU per transaction unchanged). Either frees at most the
 * clients' time on or waiting for a CPU (X / (1 - s)). The larger, with
 * its advice.
 */
static double
others_relieved(const struct model_input *in, const struct model *m, struct advice *a)
{
    const struct model_resource *s = &m->r[MR_SERVER_CPU];
    double cap = model_min_bound(m, MR_SERVER_CPU), c = in->cores, x = in->tps;
    double b = s->demand_s > 0 && m->r[MR_OTHERS].util > 0 ? s->capacity / s->demand_s : NAN;
    double used = in->host_busy_pct / 100 * c, o = in->others_pct / 100, h = NAN;
    double cpu = s->share + m->r[MR_BENCHTOP].share;

    if (!isnan(b))
        b = fmin(b, x / (1 - fmin(s->share, 0.999)));
    if (c > 0 && used >= param(P_SATURATED) * c && o > 0 && used - o > 0)
        h = fmin(x * used / (used - o), x / (1 - fmin(cpu, 0.999)));
    if (!isnan(h) && !(b >= h)) {
        memset(a, 0, sizeof *a);
        a->kind = ADV_STOP_OTHERS;
        b = h;
        cap = model_min_bound(m, -1);
    }
    if (isnan(b))
        return NAN;
    return isnan(cap) ? b : fmin(b, cap);
}

/*
 * More clients: at most as many more transactions as clients (a response
 * time does not fall with load), the closed loop's N / (R_min + Z), and
 * the bottleneck's bound; twice as many, or those that saturate it.
 */
static double
clients_relieved(const struct model_input *in, const struct model *m, int *n)
{
    double b = model_min_bound(m, -1), twice = 2.0 * in->clients;
    static const enum model_res queues[] = {MR_COMMIT, MR_DISK, MR_LOCK};

    if (!(m->limit_util < param(P_SATURATED)) || !(in->clients > 0))
        return NAN;
    /*
     * Added clients join the queues: one whose capacity nothing tells (an
     * untimed log, the disk, a lock) leaves the bound unknown (tpcb-like
     * at scale 1, -c 8, commit 32% untimed and locks 23%: -c 16 gave -20%).
     */
    for (size_t i = 0; i < sizeof queues / sizeof queues[0]; i++)
        if (m->r[queues[i]].share >= param(P_SHARE_MIN) && isnan(m->r[queues[i]].bound))
            return NAN;
    *n = (int)twice;
    if (!isnan(m->clients_to_saturate) && m->clients_to_saturate < twice &&
        m->clients_to_saturate > in->clients)
        *n = (int)ceil(m->clients_to_saturate);
    b = fmin(isnan(b) ? INFINITY : b, in->tps * *n / in->clients);
    if (!isnan(m->x_closed) && m->x_closed > 0)
        b = fmin(b, m->x_closed * *n / in->clients);
    return b;
}

static void
rank(struct finding *all, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && all[j].bound > all[j - 1].bound; j--) {
            struct finding t = all[j];

            all[j] = all[j - 1];
            all[j - 1] = t;
        }
}

static void
findings(const struct model_input *in, struct model *m)
{
    struct finding all[MR__COUNT + 1];
    double x = in->tps, b;
    int n = 0, clients = 0;

    memset(all, 0, sizeof all);
    for (int r = 0; r < MR__COUNT; r++) {
        if (r == MR_OTHERS || m->r[r].share < param(P_SHARE_MIN))
            continue;
        advise_res(in, r, &all[n].advice);
        finding_add(all, &n, r, m->r[r].share, relieved(in, m, r, x), x);
    }
    advise_res(in, MR_OTHERS, &all[n].advice);
    finding_add(all, &n, MR_OTHERS, NAN, others_relieved(in, m, &all[n].advice), x);
    b = clients_relieved(in, m, &clients);
    memset(&all[n].advice, 0, sizeof all[n].advice);
    all[n].advice.kind = ADV_CLIENTS;
    all[n].advice.n = clients;
    finding_add(all, &n, MR__COUNT, NAN, b, x);
    rank(all, n);
    m->nfindings = n < MODEL_FINDINGS ? n : MODEL_FINDINGS;
    memcpy(m->findings, all, sizeof(struct finding) * (size_t)m->nfindings);
}

void
model_make(const struct model_input *in, struct model *out)
{
    memset(out, 0, sizeof *out);
    out->limit = MR__COUNT;
    out->x = in->tps;
    if (in->acct == NULL)
        return;
    out->made = 1;
    resources(in, out);
    limit(out);
    closed_loop(in, out);
    little(in, out);
    if (out->consistent && in->tps > 0)
        findings(in, out);
}

void
advice_list_add(struct advice_list *l, const struct advice *a)
{
    if (a->kind != ADV_NONE && l->n >= 0 && l->n < ADVICE_MAX)
        l->a[l->n++] = *a;
}

void
advice_batch(struct advice *a, double ops_per_txn)
{
    a->kind = ADV_BATCH;
    a->n = ops_per_txn >= 2 && ops_per_txn < 1e6 ? (int)(ops_per_txn + 0.5) : 0;
}

void
advice_setting(struct advice *a, int pooler, const char *name, const char *value)
{
    memset(a, 0, sizeof *a);
    a->lo = a->hi = NAN;
    adv_set(a, pooler ? ADV_POOLER : ADV_SETTING, name, value);
}

void
advice_text(const struct advice *a, char *buf, size_t len)
{
    switch (a->kind) {
    case ADV_SETTING:
    case ADV_POOLER:
        if (a->value[0])
            snprintf(buf, len, "%s = %s%s", a->name, a->value,
                     a->kind == ADV_POOLER ? " (the pooler's)" : "");
        else
            snprintf(buf, len, "raise %s", a->name);
        break;
    case ADV_CLIENTS:
        snprintf(buf, len, "-c %d", a->n);
        break;
    case ADV_THREADS:
        snprintf(buf, len, "-j %d", a->n);
        break;
    case ADV_INDEX:
        snprintf(buf, len, "an index on what the statements filter by%s%s",
                 a->name[0] ? " (table " : "", a->name[0] ? a->name : "");
        if (a->name[0])
            snprintf(buf + strlen(buf), len - strlen(buf), ")");
        break;
    case ADV_BATCH: /* a run that batches already is told of a larger batch, not "--batch N" */
        if (a->n >= 2)
            snprintf(buf, len, "a larger --batch (each commit holds %d statements now)", a->n);
        else
            snprintf(buf, len, "fewer, larger transactions (--batch N)");
        break;
    case ADV_TRIPS:
        snprintf(buf, len, "fewer round trips inside each transaction");
        break;
    case ADV_STOP_OTHERS:
        snprintf(buf, len, "stop other programs on the host");
        break;
    case ADV_STOP_SESSIONS:
        snprintf(buf, len, "stop the other sessions' work");
        break;
    case ADV_QUOTA:
        snprintf(buf, len, "raise benchtop's CPU quota");
        break;
    case ADV_KEEP_CONNECTIONS:
        snprintf(buf, len, "keep connections open (without -C)");
        break;
    case ADV_HARDWARE:
        snprintf(buf, len, "a faster or larger server");
        break;
    default:
        snprintf(buf, len, "%s", "");
    }
}

/* 2,857 -> "2,900": two significant digits, grouped. */
static void
about(double v, char *buf, size_t len)
{
    double mag = v >= 100 ? pow(10, floor(log10(v)) - 1) : 1;
    long long n = llround(round(v / mag) * mag);

    if (n >= 1000000)
        snprintf(buf, len, "%lld,%03lld,%03lld", n / 1000000, n / 1000 % 1000, n % 1000);
    else if (n >= 1000)
        snprintf(buf, len, "%lld,%03lld", n / 1000, n % 1000);
    else
        snprintf(buf, len, "%lld", n);
}

void
finding_text(const struct finding *f, double tps, char *buf, size_t len)
{
    char b[32], x[32], adv[128];

    about(f->bound, b, sizeof b);
    about(tps, x, sizeof x);
    advice_text(&f->advice, adv, sizeof adv);
    if (f->res == MR__COUNT)
        snprintf(buf, len, "more clients: up to about %s tps from %s (%s)", b, x, adv);
    else
        snprintf(buf, len, "relieving %s: up to about %s tps from %s%s%s%s",
                 model_res_label(f->res), b, x, adv[0] ? " (" : "", adv, adv[0] ? ")" : "");
}
