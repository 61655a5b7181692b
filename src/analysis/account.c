/* account: the clients' time split into shares (see account.h and benchtop.1, VERDICT). */
#include "account.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "param.h"

/* Each kind's key (JSON, records) and label (screen, text), side by side. */
static const struct {
    const char *key;
    const char *label;
} names[AS__COUNT] = {
    [AS_BENCHTOP] = {"benchtop", "benchtop"},
    [AS_RUNQ] = {"benchtop_runq", "benchtop waiting for a CPU"},
    [AS_QUOTA] = {"benchtop_quota", "benchtop held by its CPU quota"},
    [AS_SCHEDULE] = {"schedule", "waiting for the schedule"},
    [AS_CONNECT] = {"connect", "connecting"},
    [AS_SERVER_CPU] = {"server_cpu", "server CPU"},
    [AS_LOCK] = {"lock", "locks"},
    [AS_DISK] = {"disk_read", "disk reads"},
    [AS_COMMIT] = {"commit", "commit"},
    [AS_SERVER_OTHER] = {"server_other", "server waits"},
    [AS_SLEEP] = {"sleep", "statements sleeping"},
    [AS_STALL] = {"other_sessions", "stalled by other sessions"},
    [AS_POOL] = {"pool", "pooler queue"},
    [AS_APP] = {"app", "app tier"},
    [AS_TRANSIT] = {"transit", "transit"},
    [AS_IDLE] = {"idle", "idle"},
    [AS_UNKNOWN] = {"unknown", "unknown"},
};

const char *
account_key(enum account_share s)
{
    return s >= 0 && s < AS__COUNT ? names[s].key : "?";
}

static double
clamp(double x, double lo, double hi)
{
    return isnan(x) ? lo : fmin(fmax(x, lo), hi);
}

/* NAN as 0. */
static double
z(double x)
{
    return isnan(x) ? 0 : x;
}

void
account_init(struct account *a)
{
    memset(a, 0, sizeof(*a));
}

/* Moves up to want client-seconds from *pool into share s; what was moved. */
static double
take(struct account *a, double *pool, enum account_share s, double want, double obs)
{
    double t = clamp(want, 0, *pool);

    *pool -= t;
    a->t[s] += t;
    if (obs < 0)
        a->obs[s] = -1;
    else if (a->obs[s] >= 0)
        a->obs[s] += obs;
    return t;
}

/*
 * The busiest thread's wait for a CPU, %, less its cgroup's throttled
 * time: a throttled thread is runnable and counts in its run-queue delay
 * too (a 0.30-core quota: 65% waiting, 65% throttled, the host 33% busy).
 */
static double
runq_net(const struct account_input *in)
{
    return fmax(0, clamp(in->worker_wait, 0, 100) - clamp(in->throttled_pct, 0, 100));
}

/*
 * benchtop's own time, by what its busiest thread did: ran, waited for a
 * CPU, or was held back by the quota (all of its threads at once).
 */
static void
split_benchtop(const struct account_input *in, struct account *a, double t)
{
    double cpu = clamp(in->worker_cpu, 0, 100), wait = runq_net(in);
    double quota = clamp(in->throttled_pct, 0, 100), sum = cpu + wait + quota;

    if (isnan(in->worker_cpu) && isnan(in->worker_wait)) {
        /* no thread measured: what held it is not known, and is not said to be benchtop */
        take(a, &t, AS_QUOTA, t * quota / 100, -1);
        take(a, &t, AS_UNKNOWN, t, -1);
        return;
    }
    if (!(sum > 0)) {
        take(a, &t, AS_BENCHTOP, t, -1);
        return;
    }
    take(a, &t, AS_QUOTA, t * quota / sum, -1);
    take(a, &t, AS_RUNQ, t * wait / sum, -1);
    take(a, &t, AS_BENCHTOP, t, -1);
}

/* How busy benchtop's thread is, 0..1: a reply that comes while it runs or waits is not read. */
static double
client_busy(const struct account_input *in)
{
    return clamp((z(in->worker_cpu) + runq_net(in) + z(in->throttled_pct)) / 100, 0, 1);
}

/* Sessions states: benchtop's own when the collector tells them apart. */
struct states {
    double active, cpu, lock, disk, commit, sleep, other, obs;
};

/* Counts averaged from different glances may add up past the active sessions: scaled to fit. */
static void
states_fit(struct states *s)
{
    double sum = s->cpu + s->lock + s->disk + s->commit + s->sleep;

    if (sum <= s->active || !(sum > 0))
        return;
    s->cpu *= s->active / sum;
    s->lock *= s->active / sum;
    s->disk *= s->active / sum;
    s->commit *= s->active / sum;
    s->sleep *= s->active / sum;
}

static int
states_read(const struct coll_signals *g, struct states *s)
{
    int own = !isnan(g->own_active);
    double io = own ? g->own_io_wait : g->io_wait;

    memset(s, 0, sizeof(*s));
    s->active = own ? g->own_active : g->active;
    if (!(s->active > 0))
        return isnan(s->active) ? -1 : 0;
    s->lock = z(own ? g->own_lock_wait : g->lock_wait);
    /* own_commit_wait counts the commit's sync and the data file reads (own_io_wait) together */
    s->disk = z(io);
    s->commit = own ? fmax(0, z(g->own_commit_wait) - s->disk) : z(g->commit_wait);
    s->sleep = z(own ? g->own_sleep : g->sleep_wait);
    s->cpu = own && !isnan(g->own_on_cpu) ? g->own_on_cpu
             : own ? fmax(0, s->active - s->lock - s->disk - s->commit - s->sleep)
                   : z(g->on_cpu);
    states_fit(s);
    s->other = fmax(0, s->active - s->cpu - s->lock - s->disk - s->commit - s->sleep);
    s->obs = (g->samples >= 1 ? g->samples : 1);
    return 0;
}

/*
 * Lock waits behind a holder idle in its transaction, waiting for its
 * client (benchtop) to send the next statement: the lock is held across
 * the client's round trips. While benchtop's thread was busy the holder
 * waited for benchtop (its CPU, as for transit); the rest is the lock's
 * own time, which fewer round trips inside each transaction relieve
 * (pgbench scale 1, -c 16: the whole transaction in one function call gave
 * x2.0, synchronous_commit=off x1.5, scale 16 x1.2; "transit" had said
 * "add clients", which only queues more on the row).
 */
static void
client_roots(const struct account_input *in, struct account *a, double *pool, double t, double obs)
{
    double bt = fmin(t * client_busy(in), *pool);

    *pool -= bt;
    split_benchtop(in, a, bt);
    take(a, pool, AS_LOCK, t - bt, obs);
}

/*
 * Lock waits by the root of their chain: a blocker that waits for the
 * commit makes the wait the commit's; one idle in a transaction waits for
 * its client (client_roots). A running root (lock_root_other) is the
 * locks' own time when it is one of benchtop's sessions (hot rows);
 * benchtop's waiters behind another application's running statement
 * (other_stall_share of its sessions' time, in waiters: stalled) are a
 * stall by other sessions.
 */
static void
split_locks(const struct account_input *in, struct account *a, double *pool, double lock, double k,
            double obs)
{
    const struct coll_signals *g = &in->sig;
    double roots = z(g->lock_root_commit) + z(g->lock_root_client) + z(g->lock_root_other);
    /*
     * The waiters whose chains were followed stand for all: a chain read
     * on some glances only (and 64 rows at most) left the rest "lock",
     * and a hot row whose holders waited for their commit was called
     * lock-bound 53% to commit 24% (synchronous_commit=off gave x2.7;
     * field trial 4, C14: x11).
     */
    double whole = roots > 0 ? roots : z(g->lock_wait), stalled = z(g->other_stall_share);
    double running = whole > 0 ? lock * z(g->lock_root_other) / whole : 0;

    if (whole > 0 && roots > 0) {
        take(a, pool, AS_COMMIT, lock * z(g->lock_root_commit) / whole, obs);
        client_roots(in, a, pool, lock * z(g->lock_root_client) / whole, obs);
        lock *= 1 - (z(g->lock_root_commit) + z(g->lock_root_client)) / whole;
    }
    if (!isnan(g->own_sessions))
        stalled *= g->own_sessions;
    lock -= take(a, pool, AS_STALL, fmin(stalled * k, fmin(running, lock)), obs);
    take(a, pool, AS_LOCK, lock, obs);
}

/*
 * Time queued behind lock waiters, split as their chains' roots say: a
 * root waiting for its commit makes it commit time; the rest, idle holders
 * (client_roots' reasoning) and running ones, is the locks'.
 */
static void
lock_by_roots(const struct coll_signals *g, struct account *a, double t)
{
    double roots = z(g->lock_root_commit) + z(g->lock_root_client) + z(g->lock_root_other);

    if (roots > 0) {
        a->t[AS_COMMIT] += t * z(g->lock_root_commit) / roots;
        t *= 1 - z(g->lock_root_commit) / roots;
    }
    a->t[AS_LOCK] += t;
}

/*
 * Clients queued in a pooler wait for its server connections: behind
 * sessions that wait on locks, the disk or the commit, the queue is those
 * waits' time too (a larger pool would only add waiters; a hot row behind
 * PgBouncer was called lock-bound 36% to commit 35% while
 * synchronous_commit=off gave x4.4); the rest is the pool's.
 */
static void
split_pool(const struct coll_signals *g, const struct states *s, struct account *a, double pool)
{
    double w = s->active > 0 ? (s->lock + s->disk + s->commit) / s->active : 0;

    if (!(pool > 0))
        return;
    if (!(s->active > 0)) {
        a->t[AS_POOL] += pool;
        return;
    }
    w = clamp(w, 0, 1);
    lock_by_roots(g, a, pool * s->lock / s->active);
    a->t[AS_DISK] += pool * s->disk / s->active;
    a->t[AS_COMMIT] += pool * s->commit / s->active;
    a->t[AS_POOL] += pool * (1 - w);
    a->obs[AS_POOL] = -1;
}

/* The server's part of *flight from its sampled sessions: each active session-second is one. */
static int
server_by_states(const struct account_input *in, struct account *a, double *flight, double pool)
{
    struct states s;
    double t, k;

    if (states_read(&in->sig, &s) < 0)
        return -1;
    t = fmin(s.active * in->interval_s, *flight);
    k = s.active > 0 ? t / s.active : 0; /* client-seconds per active session */
    take(a, flight, AS_SERVER_CPU, s.cpu * k, s.cpu * s.obs);
    split_locks(in, a, flight, s.lock * k, k, s.lock * s.obs);
    take(a, flight, AS_DISK, s.disk * k, s.disk * s.obs);
    take(a, flight, AS_COMMIT, s.commit * k, s.commit * s.obs);
    take(a, flight, AS_SERVER_OTHER, s.other * k, s.other * s.obs);
    take(a, flight, AS_SLEEP, s.sleep * k, s.sleep * s.obs);
    split_pool(&in->sig, &s, a, pool);
    return 0;
}

double
account_loop_busy(const struct coll_signals *g, double busy)
{
    double s = isnan(g->active) ? clamp(g->other_stall_share, 0, 1) : 0;

    if (isnan(busy) || !(s > 0))
        return busy;
    return s >= 1 ? 0 : fmax(0, busy - s) / (1 - s);
}

/*
 * A server without session states (an event loop: Redis, memcached): its
 * busy share of its capacity (its busiest thread's, when one is full) is
 * the share of the in-flight time spent queued for or on its CPU.
 */
static int
server_by_cpu(const struct account_input *in, struct account *a, double *flight)
{
    const struct coll_signals *g = &in->sig;
    double cpu = isnan(g->server_cpu_pct) ? g->server_cpu_self_pct : g->server_cpu_pct;
    double limit = g->server_cpu_limit > 0 ? g->server_cpu_limit : NAN;
    double u = cpu / limit;

    /* its busiest thread busy or waiting for a CPU: either way its clients wait for it */
    if (g->thread_max_pct > 0)
        u = fmax(z(u), (g->thread_max_pct + z(g->thread_wait_pct)) / 100);
    if (isnan(u))
        return -1;
    u = account_loop_busy(g, u); /* the stall, taken first, was its busy time too */
    take(a, flight, AS_SERVER_CPU, *flight * clamp(u, 0, 1), -1);
    /*
     * A loop that syncs its log before every write's reply (Redis
     * appendfsync always) spends the rest of each request in the sync:
     * the collector's own round trip waits for the same syncs, so it
     * cannot tell the wire apart.
     */
    if (g->sync_each_commit[0] && g->commits_s > 0)
        take(a, flight, AS_COMMIT, *flight, -1);
    return 0;
}

/*
 * The application tier's queue: its gauge times the interval. Requests
 * queue for workers that are busy; the part of the workers' time spent in
 * the database behind (its active sessions per busy worker) is queued
 * behind the database: its waits on locks, the disk and the commit (more
 * workers would only add waiters), and its CPU when that is near full (70%
 * of its limit, or sessions on CPU for 70% of the cores: a page's
 * unindexed query, the workers waiting on the scan). The rest, and
 * any time sleeping or in other waits, is the app's.
 */
static void
front_tiers(const struct account_input *in, struct account *a, double *flight)
{
    const struct coll_signals *g = &in->sig;
    double q = z(g->app_queue) * in->interval_s, behind, k;
    int cpu_full =
        g->server_cpu_limit > 0 && g->server_cpu_pct >= param(P_CPU_FULL) * g->server_cpu_limit;
    struct states s;

    if (q > 0 && in->have_server && g->app_busy > 0 && states_read(g, &s) == 0 && s.active > 0) {
        cpu_full |= in->cores > 0 &&
                    s.cpu >= param(P_CPU_FULL) * in->cores; /* sessions on CPU fill the cores */
        behind = q * clamp(s.active / g->app_busy, 0, 1);
        k = behind / s.active;
        q -= take(a, flight, AS_LOCK, s.lock * k, s.lock * s.obs);
        q -= take(a, flight, AS_DISK, s.disk * k, s.disk * s.obs);
        q -= take(a, flight, AS_COMMIT, s.commit * k, s.commit * s.obs);
        if (cpu_full)
            q -= take(a, flight, AS_SERVER_CPU, s.cpu * k, s.cpu * s.obs);
    }
    take(a, flight, AS_APP, q, -1);
}

/*
 * In flight (and connecting, for a pooler's queue): stalls by others first (they hold every client
 * in flight), then the server's part, the tiers in front of it, and transit: the rest, of which
 * benchtop's share is what came while its thread was busy.
 */
static void
split_flight(const struct account_input *in, struct account *a, double flight, double *connect)
{
    const struct coll_signals *g = &in->sig;
    double benchtop, pool;

    front_tiers(in, a, &flight);
    if (!in->have_server) {
        /* the server unseen: only what came while benchtop's thread was busy is known */
        benchtop = flight * client_busy(in);
        flight -= benchtop;
        split_benchtop(in, a, benchtop);
        take(a, &flight, AS_UNKNOWN, flight, -1);
        return;
    }
    /*
     * A server without session states says how long others stalled it
     * (Redis's slowlog); with them, the stalled are among the lock waiters.
     */
    if (isnan(g->active))
        take(a, &flight, AS_STALL, flight * clamp(g->other_stall_share, 0, 1), -1);
    /*
     * A session pooler holds its queue at login (those clients are
     * connecting); a transaction pooler holds it in flight.
     */
    pool = z(g->pool_waiting) * in->interval_s -
           take(a, connect, AS_POOL, z(g->pool_waiting) * in->interval_s, -1);
    pool = clamp(pool, 0, flight);
    flight -= pool;
    /* an event loop's load is its one thread's CPU, not its connections' states */
    if (!(g->server_cpu_limit > 0 && g->server_cpu_limit <= 100) ||
        server_by_cpu(in, a, &flight) < 0) {
        if (server_by_states(in, a, &flight, pool) == 0)
            pool = 0;
        else if (server_by_cpu(in, a, &flight) < 0)
            take(a, &flight, AS_UNKNOWN, flight, -1);
    }
    take(a, &pool, AS_POOL, pool, -1); /* the pooler's own gauge: measured */
    benchtop = flight * client_busy(in);
    flight -= benchtop;
    split_benchtop(in, a, benchtop);
    take(a, &flight, AS_TRANSIT, flight, -1);
}

/*
 * Connects that wait behind another session's lock are that stall's time:
 * SQLite reads the schema at open, which waits while another process holds
 * the file (4 clients beside a reader: 3 of them connecting all the run,
 * which said "connection"; 0 tps, and 1,100-1,500 with the reader gone).
 * The lock waits the server counts beyond the clients in flight are theirs.
 */
static void
connects_stalled(const struct account_input *in, struct account *a, double flight, double *connect)
{
    const struct coll_signals *g = &in->sig;
    double waits;

    if (!in->have_server || !(g->other_stall_share > 0) || !(z(g->lock_root_other) > 0))
        return;
    waits = clamp(z(g->lock_root_other) * in->interval_s - flight, 0, *connect);
    take(a, connect, AS_STALL, waits, -1);
}

void
account_make(const struct account_input *in, struct account *a)
{
    double total = fmax(in->clients, 0) * fmax(in->interval_s, 0), flight, connect, rest;

    account_init(a);
    a->total = total;
    a->clients = in->clients;
    a->intervals = 1;
    flight = clamp(in->flight_s, 0, total);
    /* no transaction finished (a stall): the clients in flight were so all along */
    if (!(in->txns > 0))
        flight = fmax(flight, clamp(in->busy * in->interval_s, 0, total));
    /* connects that never end (a session pooler's queue at login) count from the gauge */
    connect = clamp(fmax(z(in->connect_s), z(in->connecting) * in->interval_s), 0, total - flight);
    /*
     * A session pooler's queue past the login waits for other clients to
     * leave: those transactions do not finish, so flight_s misses them.
     */
    if (strcmp(in->sig.pool_mode, "session") == 0)
        flight +=
            clamp(z(in->sig.pool_waiting) * in->interval_s - connect, 0, total - flight - connect);
    rest = total - flight - connect;
    split_flight(in, a, flight, &connect);
    connects_stalled(in, a, flight, &connect);
    take(a, &connect, AS_CONNECT, connect, -1);
    if (in->rate > 0) /* an open loop's clients between transactions wait for the schedule */
        take(a, &rest, AS_SCHEDULE, rest * (1 - client_busy(in)), -1);
    split_benchtop(in, a, rest);
}

void
account_add(struct account *sum, const struct account *a)
{
    for (int s = 0; s < AS__COUNT; s++) {
        sum->t[s] += a->t[s];
        sum->obs[s] = sum->obs[s] < 0 || a->obs[s] < 0 ? -1 : sum->obs[s] + a->obs[s];
    }
    sum->clients = (sum->clients * sum->intervals + a->clients) / (sum->intervals + 1);
    sum->intervals++;
    sum->total += a->total;
}

double
account_share(const struct account *a, enum account_share s)
{
    return a->total > 0 ? a->t[s] / a->total : 0;
}

const char *
account_confidence(const struct account *a, enum account_share s)
{
    if (a->obs[s] < 0 || a->obs[s] >= param(P_CLEAR_OBS))
        return "clear";
    return a->obs[s] >= param(P_LIKELY_OBS) ? "likely" : "tentative";
}

void
account_text(const struct account *a, char *buf, size_t len)
{
    int shown[AS__COUNT] = {0}, k, n = 0;
    size_t used;

    snprintf(buf, len, "%.0f %s time:", a->clients, a->clients == 1 ? "client's" : "clients'");
    for (;;) {
        int best = -1;

        for (k = 0; k < AS__COUNT; k++)
            if (!shown[k] && account_share(a, k) >= param(P_MIN_SHOWN) &&
                (best < 0 || a->t[k] > a->t[best]))
                best = k;
        if (best < 0)
            break;
        shown[best] = 1;
        used = strlen(buf);
        if (used + 1 < len)
            snprintf(buf + used, len - used, "%s %s %.0f%%", n++ ? "," : "", names[best].label,
                     account_share(a, best) * 100);
    }
}
