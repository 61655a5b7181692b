/* tryrun: A/B rounds inside a running load (tryrun.h). */
#include "tryrun.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "engine/registry.h"
#include "launch.h"

int
tryrun_pooler(struct tryset *set, const struct runconf *rc, int route, char *err)
{
    const struct target *at;
    const char *masked;
    const struct collector_class *pool;

    if (!route && !tryset_pooled(set))
        return 0;
    pool = launch_pooler(rc, &at, &masked);
    if (route && (pool == NULL || pool->has_setting == NULL))
        return 0; /* a pooler that cannot say what it has takes none: the server's, as before */
    if (pool == NULL)
        return seterr(err, "the try left settings of the pooler %s changed: give it with --pooler",
                      set->pool_masked[0] ? set->pool_masked : "in front of the target");
    if (tryset_open_pooler(set, pool, at, masked, err) < 0)
        return -1;
    return route ? tryset_route(set, err) : 0;
}

/* The setting B changes: the values that put it back read, the undo file written. */
static int
open_settings(struct tryrun *tr, const struct runconf *rc, const char *set, char *err)
{
    char more[BT_ERRLEN];

    /* tryset_save refuses a leftover undo file of this server, or another try running */
    if (tryset_parse(&tr->set, set, err) < 0 ||
        tryset_open(&tr->set, collector_for(rc->tgt.driver->name), &rc->tgt, err) < 0)
        return -1;
    if (tryrun_pooler(&tr->set, rc, 1, err) < 0 || tryset_save(&tr->set, rc->tgt.masked, err) < 0) {
        tryset_finish(&tr->set, more); /* nothing applied yet: closes both */
        tryset_free(&tr->set);
        return -1;
    }
    tryset_guard(&tr->set);
    return 0;
}

uint64_t
tryrun_seed(const struct runconf *rc)
{
    uint64_t s = rc->seed ? rc->seed : now_us() ^ ((uint64_t)getpid() << 32);

    return s & ((1ULL << 53) - 1);
}

/* Round n's side: pair n / 2's order, its first or second round. */
static int
side_of(const struct tryrun *tr, int n)
{
    return tr->ba[n / 2] ^ (n % 2);
}

/* A step per round from run time t: as many as the cap allows, most end sooner. */
static void
rounds_init(struct tryrun *tr, double t)
{
    struct sweep *sw = &tr->sw;

    sw->axis = SWEEP_SETTING; /* no load of its own to set: the steps only time the rounds */
    sw->list.n = 2 * tr->rounds;
    for (int i = 0; i < sw->list.n; i++)
        sw->list.v[i] = i + 1;
    sw->warmup_s = tr->settle_s;
    sw->step_s = tr->round_s;
    sw->clients = tr->a_clients;
    sweep_init(sw);
    sw->phase_t = sw->warmup_t = t;
    tr->start_t = tr->pair_t = t;
}

/* The next side on the server or the load. */
static int
switch_side(struct tryrun *tr, struct engine *e, int b, char *err)
{
    tr->sw.lat_into = tr->lat[b];
    if (tr->change == TRY_CLIENTS) {
        engine_set_clients(e, b ? tr->b_clients : tr->a_clients);
        return 0;
    }
    if (tr->change == TRY_THREADS) {
        engine_set_threads(e, b ? tr->b_threads : tr->a_threads);
        return 0;
    }
    return b ? tryset_apply(&tr->set, err) : tryset_revert(&tr->set, err);
}

/* The try is over: A's clients back, the settings put back (undo file removed), closed. */
static int
end(struct tryrun *tr, struct engine *e, char *err)
{
    int rv = 0;

    tr->active = 0;
    sweep_free(&tr->sw);
    if (tr->change == TRY_CLIENTS && e != NULL)
        engine_set_clients(e, tr->a_clients);
    if (tr->change == TRY_THREADS && e != NULL)
        engine_set_threads(e, tr->a_threads);
    if (tr->set.conn != NULL)
        rv = tryset_finish(&tr->set, err);
    tryset_guard(NULL);
    tryset_free(&tr->set);
    for (int b = 0; b < 2; b++) {
        hist_free(tr->lat[b]);
        tr->lat[b] = NULL;
    }
    return rv;
}

int
tryrun_start(struct tryrun *tr, const struct runconf *rc, struct engine *e,
             const struct try_proposal *p, double round_s, double t, char *err)
{
    char more[BT_ERRLEN];

    memset(tr, 0, sizeof *tr);
    tr->change = p->change;
    tr->a_clients = e->clients;
    tr->b_clients = p->change == TRY_CLIENTS ? p->clients : e->clients;
    tr->a_threads = e->active;
    tr->b_threads = p->change == TRY_THREADS ? p->threads : e->active;
    tr->rounds = TRYRUN_MAX_PAIRS;
    tr->settle_s = TRYRUN_SETTLE_S;
    tr->round_s = round_s > 0 ? round_s : TRYRUN_ROUND_S;
    tr->budget_s = rc->budget_s > 0 ? rc->budget_s : TRY_BUDGET_S;
    tr->plan = (struct try_plan){rc->try_min_effect > 0 ? rc->try_min_effect / 100 : TRY_MIN_EFFECT,
                                 TRY_FIRST_LOOK, tr->rounds};
    tr->seed = tryrun_seed(rc);
    rng_seed(&tr->order, tr->seed);
    tr->ba[0] = (int)(rng_next(&tr->order) >> 63);
    if (p->change == TRY_SETTING && open_settings(tr, rc, p->set, err) < 0)
        return -1;
    snprintf(tr->set_lines, sizeof tr->set_lines, "%s", p->change == TRY_SETTING ? p->set : "");
    tryrun_change_text(&tr->set,
                       &(struct try_client){.clients = p->change == TRY_CLIENTS ? p->clients : 0,
                                            .threads = p->change == TRY_THREADS ? p->threads : 0},
                       tr->text, sizeof tr->text);
    tr->lat[0] = hist_new();
    tr->lat[1] = hist_new();
    rounds_init(tr, t);
    tr->active = 1;
    tr->sw.lat_into = tr->lat[0];
    if (tr->ba[0] && switch_side(tr, e, 1, err) < 0) { /* a BA pair starts with B */
        end(tr, e, more);
        return -1;
    }
    return 0;
}

/* The pairs so far judged, each side's percentiles from its merged latencies. */
static void
judge(struct tryrun *tr)
{
    try_judge(tr->r, tr->n, tr->change, tr->set_lines, &tr->plan, &tr->res);
    try_side_latency(&tr->res.a, tr->lat[0]);
    try_side_latency(&tr->res.b, tr->lat[1]);
}

/* A pair ended at run time t: whether the rounds stop here (why in tr->stop). */
static int
pair_stops(struct tryrun *tr, double t)
{
    int pairs = tr->n / 2;

    tr->longest = fmax(tr->longest, t - tr->pair_t);
    tr->pair_t = t;
    if (pairs >= tr->plan.first_look && (try_settled(&tr->res) || tr->res.pairs == 0))
        snprintf(tr->stop, sizeof tr->stop, "%s after %d pairs",
                 try_decisive(&tr->res) ? "decisive" : "nothing to compare", pairs);
    else if (pairs >= tr->rounds)
        snprintf(tr->stop, sizeof tr->stop, "%d pairs, the most the dashboard runs", pairs);
    else if (pairs >= tr->plan.first_look && t - tr->start_t + tr->longest > tr->budget_s)
        snprintf(tr->stop, sizeof tr->stop, "the budget (%.0f s) spent after %d pairs",
                 tr->budget_s, pairs);
    else
        return 0;
    return 1;
}

int
tryrun_tick(struct tryrun *tr, struct engine *e, const struct snapshot *snap,
            const struct verdict *v, const struct sweep_server *srv, char *err)
{
    struct sweep_action act;
    struct try_round *r = &tr->r[tr->n];
    char more[BT_ERRLEN];
    int side, next;

    if (!tr->active)
        return TRYRUN_NOTHING;
    sweep_tick(&tr->sw, snap, v, srv, &act);
    if (!act.step_done)
        return TRYRUN_NOTHING;
    side = side_of(tr, tr->n);
    try_round_from_step(&tr->sw.steps[tr->sw.nsteps - 1], side, r);
    r->clients = side ? tr->b_clients : tr->a_clients;
    tr->n++;
    if (tr->n % 2 == 0) {
        judge(tr);
        if (act.done || pair_stops(tr, snap->t)) {
            if (end(tr, e, err) < 0)
                return -1;
            tr->done = 1;
            return TRYRUN_DONE;
        }
        tr->ba[tr->n / 2] = (int)(rng_next(&tr->order) >> 63);
    }
    next = side_of(tr, tr->n);
    if (next == side || switch_side(tr, e, next, err) == 0)
        return TRYRUN_ROUND;
    if (end(tr, e, more) < 0) /* the first failure is the one to tell; the undo file stays */
        snprintf(err + strlen(err), BT_ERRLEN - strlen(err), "; %.200s", more);
    return -1;
}

int
tryrun_abort(struct tryrun *tr, struct engine *e, char *err)
{
    return tr->active ? end(tr, e, err) : 0;
}

/* One part of the change text after the others; *at moves past it (never past len). */
static void
part(char *buf, size_t len, size_t *at, const char *fmt, const char *name, const char *value)
{
    if (*at < len)
        *at += (size_t)snprintf(buf + *at, len - *at, fmt, *at ? ", " : "", name, value);
}

const char *
tryrun_change_text(const struct tryset *set, const struct try_client *c, char *buf, size_t len)
{
    char n[3][16];
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < set->n; i++)
        part(buf, len, &at, "%s%s=%s", set->want[i].name, set->want[i].value);
    snprintf(n[0], sizeof n[0], "%d", c->clients);
    snprintf(n[1], sizeof n[1], "%d", c->threads);
    snprintf(n[2], sizeof n[2], "%d", c->pipeline);
    if (c->clients)
        part(buf, len, &at, "%s%s %s", "-c", n[0]);
    if (c->threads)
        part(buf, len, &at, "%s%s %s", "-j", n[1]);
    if (c->pipeline)
        part(buf, len, &at, "%s%s %s", "--pipeline", n[2]);
    if (c->mode != NULL)
        part(buf, len, &at, "%s%s %s", "-M", c->mode);
    if (c->connect)
        part(buf, len, &at, "%s%s%s", "-C", "");
    return buf;
}
