/* session: the main loop (see session.h). */
#include "session.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/watch.h"
#include "base/util.h"

enum { FD_SIG, FD_FINISHED, FD_INPUT, FD_COLLECT };

int
session_block_signals(void)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP); /* a closed terminal ends the run as SIGTERM does, cleanly */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

void
session_set_interval(struct session *s, double interval_s)
{
    int i;

    s->interval_s = interval_s;
    for (i = 0; i < s->ncollect; i++)
        collect_set_interval(s->collect[i], interval_s);
}

/*
 * The run's local processes: the load target's server; when the target is
 * an application (no collector of its own server), the databases and the
 * application tier watched behind it; and what they connect to on
 * loopback (cpu_group_add_peers). Looked up when the load starts.
 */
static void
procs_find(struct session *s)
{
    int i, app = 1;

    cpu_group_init(&s->procs);
    s->procs_ready = 1;
    if (!s->rc->tgt.local)
        return;
    cpu_group_add(&s->procs, cpu_port_owner(s->rc->tgt.port));
    for (i = 0; i < s->nserver_ports; i++)
        if (s->server_ports[i] != s->rc->tgt.port)
            cpu_group_add(&s->procs, cpu_port_owner(s->server_ports[i]));
    for (i = 0; i < s->ncollect; i++)
        app &= s->role[i] != COLL_SERVER;
    for (i = 0; app && i < s->rc->watch.n; i++)
        if (s->rc->watch.t[i].local)
            cpu_group_add(&s->procs, cpu_port_owner(s->rc->watch.t[i].port));
}

/*
 * The run's local processes' CPU over the interval, % of one core (NAN
 * when the server is remote, behind a unix socket, or another user's): on
 * a shared host it splits the busy CPU between the server side, benchtop
 * and the rest.
 */
static double
server_cpu_pct(struct session *s, double interval_s)
{
    if (!s->procs_ready)
        procs_find(s);
    cpu_group_add_peers(&s->procs);
    return cpu_group_pct(&s->procs, interval_s);
}

/* How hard a database works: the larger of its sessions' waits and its CPU, 0..1. */
static double
pressure(const struct coll_signals *g)
{
    double waits = g->lock_wait + g->commit_wait + (isnan(g->io_wait) ? 0 : g->io_wait);
    double p = g->active >= 1 && !isnan(waits) ? waits / g->active : 0;
    double cpu = g->server_cpu_limit > 0 ? g->server_cpu_pct / g->server_cpu_limit : NAN;

    return isnan(cpu) || cpu < p ? p : cpu;
}

/*
 * The run's collectors merged by role into the signals the verdict reads:
 * the load target's own server; without one (an application's URL) the
 * hardest-working database watched behind it, whose sessions are all the
 * load's (its own_* fields are dropped: the app holds the connections).
 * A pooler's pool_* and an application tier's app_* fields are added.
 */
static void
merge_signals(struct session *s)
{
    struct coll_view blank;
    int i, base = -1, server = 0;

    for (i = 0; i < s->ncollect; i++) {
        if (s->role[i] != COLL_SERVER)
            continue;
        server = 1; /* a failed sample of the target's server is not a reason to judge another */
        if (s->have[i] && base < 0)
            base = i;
    }
    for (i = 0; i < s->ncollect && s->eng != NULL && !server; i++)
        if (s->have[i] && s->role[i] == COLL_BEHIND &&
            (base < 0 ||
             (s->role[base] == COLL_BEHIND && pressure(&s->sigs[i]) > pressure(&s->sigs[base]))))
            base = i;
    /* with nothing behind it, a web server whose workers are seen is the server (nginx) */
    for (i = 0; i < s->ncollect && s->eng != NULL && !server && base < 0; i++)
        if (s->have[i] && s->role[i] == COLL_APP && s->sigs[i].server_threads > 0)
            base = i;
    coll_view_reset(&blank);
    s->sig = base >= 0 ? s->sigs[base] : blank.sig;
    s->have_sig = base >= 0;
    s->server_tps = base >= 0 ? s->tps[base] : NAN;
    s->behind = base >= 0 && s->role[base] == COLL_BEHIND ? s->title[base] : NULL;
    if (s->behind != NULL)
        s->sig.own_sessions = s->sig.own_active = s->sig.own_lock_wait = s->sig.own_commit_wait =
            s->sig.own_on_cpu = s->sig.own_io_wait = s->sig.own_idle = s->sig.own_sleep = NAN;
    for (i = 0; i < s->ncollect; i++) {
        const struct coll_signals *g = &s->sigs[i];

        if (!s->have[i])
            continue;
        if (s->role[i] == COLL_POOLER) {
            s->sig.pool_waiting = g->pool_waiting;
            s->sig.pool_servers = g->pool_servers;
            s->sig.pool_size = g->pool_size;
            s->sig.pool_maxwait_ms = g->pool_maxwait_ms;
            memcpy(s->sig.pool_mode, g->pool_mode, sizeof(g->pool_mode));
            memcpy(s->sig.pool_setting, g->pool_setting, sizeof(g->pool_setting));
        } else if (s->role[i] == COLL_APP && !isnan(g->app_workers)) {
            s->sig.app_queue = g->app_queue;
            s->sig.app_busy = g->app_busy;
            s->sig.app_workers = g->app_workers;
            memcpy(s->sig.app_name, g->app_name, sizeof(g->app_name));
            memcpy(s->sig.app_limit, g->app_limit, sizeof(g->app_limit));
        }
    }
}

/*
 * The target is a database file (no host, its path a regular file): the
 * database runs in benchtop's own threads, with no server process.
 */
static int
target_embedded(const struct target *t)
{
    struct stat sb;

    return t->scheme != NULL && t->host[0] == '\0' && t->path[0] != '\0' &&
           stat(t->path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The engine's time account of the interval (account.h) into in. */
static void
judge_account(struct session *s, const struct snapshot *snap, struct verdict_input *in)
{
    const struct wstats *c = &snap->cur;
    uint64_t started = c->txns + wstats_errors(c);

    in->interval_s = snap->interval_s;
    in->flight_s = (double)c->flight_us / 1e6;
    in->connect_s = (double)c->connect_us / 1e6;
    in->busy = (double)c->busy;
    in->connecting = (double)c->connecting;
    in->retrying = (double)c->retrying;
    in->late_share = started ? fmin((double)c->late / (double)started, 1) : 0;
    in->throttled_pct = snap->throttled_pct;
    in->quota = snap->quota;
    in->quota_where = snap->quota_where;
    in->embedded = s->embedded;
}

/*
 * The target's event loop stalled by others' commands (Redis's slowlog):
 * each sample times the stall since the one before, and a long stall
 * holds the sample back too (KEYS over a million keys: 2.5 s, the
 * collector's own INFO behind it). Its seconds are owed to the intervals
 * judged next, an interval at most each, so that the run's account counts
 * every stalled second once, not one sample's share of one interval.
 */
static void
stall_owe(struct session *s, const struct collect_result *res)
{
    const struct coll_signals *g = &res->view.sig;
    double span = s->stall_last_t > 0 ? res->t - s->stall_last_t : s->interval_s;

    s->stall_last_t = res->t;
    if (!isnan(g->active) || !(g->other_stall_share > 0) || !(span > 0))
        return;
    s->stall_debt_s += g->other_stall_share * span;
    memcpy(s->stall_what, g->other_stall_what, sizeof(s->stall_what));
    s->stall_sql_at = g->other_stall_sql_at;
}

_Static_assert(sizeof(((struct session *)0)->stall_what) ==
                   sizeof(((struct coll_signals *)0)->other_stall_what),
               "stall_what is copied whole both ways");

/* The interval's stall share from what is owed (event loops only; see stall_owe). */
static void
stall_pay(struct session *s, double interval_s, struct coll_signals *g)
{
    double paid = fmin(s->stall_debt_s, interval_s);

    if (!isnan(g->active) || !(interval_s > 0))
        return;
    s->stall_debt_s -= paid;
    g->other_stall_share = paid / interval_s;
    if (paid > 0 && g->other_stall_what[0] == '\0') {
        memcpy(g->other_stall_what, s->stall_what, sizeof(g->other_stall_what));
        g->other_stall_sql_at = s->stall_sql_at;
    }
}

/* The verdict's inputs from the interval just merged, the collector and the host. */
/*
 * The interval's most frequent error, else the latest: a server at its
 * client limit says why in its error ("ERR max number of clients
 * reached", 42k of them), while the latest is often what followed
 * ("Broken pipe" on the closed connection).
 */
static const char *
top_error(const struct wstats *c)
{
    const struct err_msg *top[STATS_MSGS];

    return wstats_top_msgs(c, top) > 0 ? top[0]->text : c->last_error;
}

static void
judge(struct session *s, struct snapshot *snap)
{
    struct verdict_input in = {0};
    const struct wstats *c = &snap->cur;
    struct cpu_host now;
    double lat_sum_us = hist_mean(c->lat) * (double)hist_count(c->lat);

    if (snap->final) { /* the sliver of an interval at the end says nothing new */
        verdict_finish(&s->verdict, &s->now);
        return;
    }
    /* a stall with no transaction finished is load too: often the one that matters */
    in.load = !s->eng->paused && snap->clients > 0;
    in.tps = snap->interval_s > 0 ? (double)c->txns / snap->interval_s : 0;
    in.lat_mean_ms = hist_count(c->lat) ? hist_mean(c->lat) / 1000.0 : NAN;
    in.lat_floor_ms = hist_count(c->lat) ? (double)hist_percentile(c->lat, 1) / 1000.0 : NAN;
    in.ops_per_txn = c->txns ? (double)c->ops / (double)c->txns : NAN;
    in.connect_share = s->rc->connect_per_txn && lat_sum_us > 0
                           ? fmin((double)c->connect_us / lat_sum_us, 1.0)
                           : NAN;
    in.worker_cpu_max = snap->worker_cpu_max;
    in.worker_wait_max = snap->worker_wait_max;
    in.own_cpu_pct = snap->own_cpu_pct;
    in.cores = cpu_cores();
    in.allowed_cpus = s->allowed_cpus;
    in.clients = snap->clients;
    in.threads = s->eng->active;
    in.rate = s->eng->rate;
    in.errors =
        snap->interval_s > 0 ? (double)(wstats_errors(c) + c->connect_fails) / snap->interval_s : 0;
    in.retry_errors = snap->interval_s > 0 ? (double)c->connect_fails / snap->interval_s : 0;
    in.connected = (int)c->connected;
    in.never_done = (int)c->never_done;
    in.last_error = top_error(c);
    in.server_host_pct = server_cpu_pct(s, snap->interval_s);
    in.server_names = s->procs.names;
    in.gain_per_doubling = s->gain_per_doubling;
    in.host_busy_pct = in.host_irq_pct = in.outside_busy_pct = NAN;
    if (cpu_host_read(&now) == 0) {
        if (s->host.total)
            in.outside_busy_pct = cpu_host_outside_busy_pct(&s->host, &now);
        if ((s->rc->tgt.local || s->embedded) && s->host.total) {
            in.host_busy_pct = cpu_host_busy_pct(&s->host, &now);
            in.host_irq_pct = cpu_host_irq_pct(&s->host, &now);
        }
        s->host = now;
    }
    in.have_server = s->have_sig;
    /* a tier watched (nginx's stub_status) is seen, even when it says nothing of sessions */
    in.unseen_hint = s->rc->no_collect ? "run without --no-collect"
                     : s->ncollect > 0 ? NULL
                                       : s->eng->drv->unseen_hint;
    in.sig = s->sig;
    if (s->behind == NULL && s->have_sig)
        stall_pay(s, snap->interval_s, &in.sig);
    in.behind = s->behind;
    judge_account(s, snap, &in);
    verdict_step(&s->verdict, &in, &s->now);
}

/* A sweep's step boundaries: after the interval swap, before the hooks report. */
static void
sweep_step(struct session *s, const struct snapshot *snap)
{
    struct sweep_server srv;
    struct sweep_action act;

    sweep_server_from(s->have_sig ? &s->sig : NULL, s->server_tps, &srv);
    sweep_tick(s->sweep, snap, &s->now, &srv, &act);
    if (act.set && s->sweep->axis == SWEEP_CLIENTS)
        engine_set_clients(s->eng, (int)act.x);
    else if (act.set)
        engine_set_rate(s->eng, act.x);
    if (act.done)
        s->eng->end_us = now_us(); /* the loop ends the load at its next turn */
}

/* The pending tick judged and reported, with the server's samples that came for it. */
static void
tick_finish(struct session *s)
{
    struct snapshot *snap = s->pending;

    if (snap == NULL)
        return;
    s->pending = NULL;
    judge(s, snap);
    if (s->sweep != NULL)
        sweep_step(s, snap);
    s->hooks.on_tick(s, snap, &s->now, s->arg);
}

/* Every collector has answered since the tick. */
static int
tick_ready(const struct session *s)
{
    for (int i = 0; i < s->ncollect; i++)
        if (!s->fresh[i])
            return 0;
    return 1;
}

/*
 * The client interval is taken now; its judgement waits for the samples
 * the collectors take on the same tick (a sample takes 5-100 ms), at most
 * 40% of the interval or 400 ms: a slow or gone server is judged on what
 * came before.
 */
static void
tick_start(struct session *s)
{
    uint64_t wait = (uint64_t)(fmin(0.4 * s->interval_s, 0.4) * 1e6);

    s->pending = engine_tick(s->eng);
    s->pending_until = now_us() + wait;
    memset(s->fresh, 0, sizeof(s->fresh));
    if (tick_ready(s))
        tick_finish(s);
}

static void
end_load(struct session *s)
{
    struct snapshot *snap;

    tick_finish(s); /* the engine's snapshot is about to be overwritten */
    snap = engine_stop(s->eng);

    s->load_over = 1;
    judge(s, snap);
    s->hooks.on_tick(s, snap, &s->now, s->arg);
}

static int
fill(struct session *s, int sigfd, struct pollfd *p)
{
    int i;

    memset(p, 0, sizeof(*p) * (FD_COLLECT + SESSION_MAX_COLLECT));
    p[FD_SIG].fd = sigfd;
    p[FD_FINISHED].fd = s->eng && !s->load_over ? engine_notify_fd(s->eng) : -1;
    p[FD_INPUT].fd = s->input_fd;
    for (i = 0; i < s->ncollect; i++)
        p[FD_COLLECT + i].fd = collect_notify_fd(s->collect[i]);
    for (i = 0; i < FD_COLLECT + s->ncollect; i++)
        p[i].events = POLLIN;
    return FD_COLLECT + s->ncollect;
}

/*
 * watch: a local server's processes' CPU (% of one core) into a view that
 * has none of the server's own, against the host's cores: the model's
 * capacity for a server whose sessions run on every core.
 */
static void
watch_cpu(struct session *s, int i, struct coll_view *v)
{
    double pct;

    if (s->watch_port[i] == 0)
        return;
    if (!s->watch_found[i]) { /* at the first result: the first with figures has a CPU */
        cpu_group_init(&s->watch_procs[i]);
        cpu_group_add(&s->watch_procs[i], cpu_port_owner(s->watch_port[i]));
        s->watch_found[i] = 1;
        return;
    }
    if (v == NULL || !isnan(v->sig.server_cpu_pct))
        return;
    pct = cpu_group_pct(&s->watch_procs[i], s->interval_s);
    if (isnan(pct))
        return;
    v->sig.server_cpu_pct = pct;
    v->sig.server_cpu_limit = 100.0 * cpu_cores();
}

/* Waits for the next event or until deadline; returns 1 when the session must end. */
static int
wait_events(struct session *s, int sigfd, uint64_t deadline)
{
    struct pollfd p[FD_COLLECT + SESSION_MAX_COLLECT];
    struct signalfd_siginfo si;
    struct collect_result res;
    struct verdict server_side;
    uint64_t now = now_us();
    struct timespec ts = {0, 0};
    int i, n = fill(s, sigfd, p);

    if (deadline > now) {
        ts.tv_sec = (time_t)((deadline - now) / 1000000u);
        ts.tv_nsec = (long)((deadline - now) % 1000000u) * 1000;
    }
    if (ppoll(p, (nfds_t)n, &ts, NULL) < 0) {
        if (errno != EINTR) /* SIGWINCH lands here for the dashboard */
            fatal("ppoll: %s", strerror(errno));
        return 0;
    }
    if (p[FD_SIG].revents && read(sigfd, &si, sizeof(si)) > 0) {
        s->signo = (int)si.ssi_signo; /* try reverts the server and exits on it */
        return 1;
    }
    for (i = 0; i < s->ncollect; i++) {
        if (p[FD_COLLECT + i].revents) {
            collect_read(s->collect[i], &res);
            int judged = s->eng == NULL && res.ok && res.have_view;

            res.role = s->role[i];
            if (s->eng == NULL && s->follow == NULL)
                watch_cpu(s, i, judged ? &res.view : NULL);
            if (judged) /* watch: the server's side alone, no load of ours to judge */
                watch_judge(&(struct watch_input){.sig = &res.view.sig,
                                                  .x = res.view.server_tps,
                                                  .cores = cpu_cores()},
                            &server_side);
            s->sigs[i] = res.view.sig;
            s->have[i] = res.ok && res.have_view;
            if (res.ok && res.have_view && s->role[i] == COLL_SERVER)
                stall_owe(s, &res);
            s->fresh[i] = 1;
            s->tps[i] = res.ok && res.have_view ? res.view.server_tps : NAN;
            merge_signals(s);
            s->hooks.on_server(s, i, &res, judged ? &server_side : NULL, s->arg);
        }
    }
    if (p[FD_FINISHED].revents && engine_finished(s->eng)) {
        end_load(s);
        if (!s->stay_after_load)
            return 1;
    }
    if (p[FD_INPUT].revents && s->hooks.on_input(s, s->arg))
        return 1;
    return s->quit;
}

/* The load's end (-T), or a watch's end; 0 when none is due. */
static uint64_t
end_time(const struct session *s)
{
    if (s->eng)
        return s->load_over ? 0 : s->eng->end_us;
    return s->until_us;
}

static uint64_t
deadline(const struct session *s, uint64_t next)
{
    uint64_t end = end_time(s);

    return end && end < next ? end : next;
}

/* A collector stuck on a frozen server is shown as failed, not as its last good sample. */
static void
check_overdue(struct session *s)
{
    struct collect_result res;
    int i;

    for (i = 0; i < s->ncollect; i++) {
        if (!collect_overdue(s->collect[i], &res))
            continue;
        res.role = s->role[i];
        s->have[i] = 0;
        merge_signals(s);
        s->hooks.on_server(s, i, &res, NULL, s->arg);
    }
}

/* The records' server samples of the interval follow_next gave, as collectors after ours. */
static void
follow_servers(struct session *s)
{
    const struct follow_server *fs;

    while ((fs = follow_server_next(s->follow)) != NULL)
        if (s->ncollect + fs->slot < SESSION_MAX_COLLECT && s->hooks.on_record_server)
            s->hooks.on_record_server(s, s->ncollect + fs->slot, fs, s->arg);
}

/* Each merged interval the records completed is a tick, as the engine's would be. */
static void
follow_tick(struct session *s)
{
    const struct snapshot *snap;
    struct follow_state st;
    int n = 0;

    while (!s->quit && (snap = follow_next(s->follow)) != NULL) {
        follow_servers(s);
        s->hooks.on_tick(s, snap, follow_verdict(s->follow), s->arg);
        n++;
    }
    follow_servers(s); /* once every record ended: the samples after the last interval */
    follow_state(s->follow, &st);
    if (s->hooks.on_follow)
        s->hooks.on_follow(s, &st, s->arg);
    if (n == 0 && s->hooks.on_idle_tick)
        s->hooks.on_idle_tick(s, s->arg);
}

void
session_run(struct session *s, int sigfd)
{
    uint64_t next;

    s->start_us = s->eng ? s->eng->start_us : now_us();
    for (int i = 0; s->eng != NULL && i < s->ncollect; i++)
        collect_align(s->collect[i], s->start_us); /* server samples on the engine's ticks */
    verdict_init(&s->verdict);
    merge_signals(s);
    s->gain_per_doubling = NAN;
    if (s->eng != NULL)
        procs_find(s); /* before the first tick: its CPU counts from the start */
    s->embedded = s->rc != NULL && s->rc->tgt.raw != NULL && target_embedded(&s->rc->tgt);
    s->allowed_cpus = cpu_allowed();
    cpu_host_read(&s->host);
    next = s->start_us + (uint64_t)(s->interval_s * 1e6);
    for (;;) {
        if (wait_events(s, sigfd, deadline(s, s->pending ? s->pending_until : next)))
            break;
        if (s->pending && (tick_ready(s) || now_us() >= s->pending_until))
            tick_finish(s);
        if (end_time(s) && now_us() >= end_time(s)) {
            if (s->eng == NULL)
                return;
            end_load(s);
            if (!s->stay_after_load)
                return;
        }
        if (now_us() < next)
            continue;
        check_overdue(s);
        tick_finish(s); /* a tick still waiting when the next is due */
        if (s->eng && !s->load_over)
            tick_start(s);
        else if (s->follow)
            follow_tick(s);
        else if (s->hooks.on_idle_tick)
            s->hooks.on_idle_tick(s, s->arg);
        if (s->quit)
            break;
        next += (uint64_t)(s->interval_s * 1e6);
        if (next <= now_us()) /* we fell behind (a stopped process): skip, do not burst */
            next = now_us() + (uint64_t)(s->interval_s * 1e6);
    }
    if (s->eng && !s->load_over)
        end_load(s);
}
