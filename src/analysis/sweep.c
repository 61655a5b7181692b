/* sweep: step lists, SLOs, step figures, the knee, the rate search (see sweep.h). */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"

/* A number that ends at *end (strtod's rules, nothing else). */
static int
read_number(const char *s, const char **end, double *v)
{
    char *e;

    errno = 0;
    *v = strtod(s, &e);
    if (e == s || errno != 0 || !isfinite(*v))
        return -1;
    *end = e;
    return 0;
}

/* A list value: positive, and a whole number of clients at most -c's limit. */
static int
check_value(double v, int whole, const char *opt, const char *text, char *err)
{
    if (v <= 0 || (whole && (v != floor(v) || v > 100000)) || v > 1e9)
        return seterr(err, "%s '%s': each step must be %s (e.g. %s)", opt, text,
                      whole ? "a whole number of clients from 1 to 100000" : "a rate above 0",
                      whole ? "1,2,4,8" : "1000,2000,4000");
    return 0;
}

static int
add_step(struct sweep_list *l, double v, const char *opt, const char *text, char *err)
{
    if (l->n == SWEEP_MAX_STEPS)
        return seterr(err, "%s '%s' has more than %d steps (use a larger step or a shorter range)",
                      opt, text, SWEEP_MAX_STEPS);
    if (l->n > 0 && v <= l->v[l->n - 1])
        return seterr(err,
                      "%s '%s' is not increasing (give each step larger than the last, e.g. "
                      "1,2,4,8)",
                      opt, text);
    l->v[l->n++] = v;
    return 0;
}

static int
not_a_list(const char *opt, const char *text, char *err)
{
    return seterr(err,
                  "%s '%s' is not a list (write 1,2,4,8, 1..64 for doubling or "
                  "10..100+10 for a fixed step)",
                  opt, text);
}

/* "A..B" (doubling) or "A..B+S" (fixed step); the end is always the last step. */
static int
parse_range(const char *text, const char *dots, int whole, struct sweep_list *l, char *err)
{
    const char *opt = whole ? "--clients" : "--rates", *p;
    double a, b, step = 0;
    char start[64];

    /* strtod would read "1." of "1..64": the start is parsed on its own */
    snprintf(start, sizeof(start), "%.*s", (int)(dots - text), text);
    if (read_number(start, &p, &a) < 0 || *p != '\0' || dots - text >= (int)sizeof(start) ||
        read_number(dots + 2, &p, &b) < 0 || (*p == '+' && read_number(p + 1, &p, &step) < 0) ||
        *p != '\0')
        return not_a_list(opt, text, err);
    if (check_value(a, whole, opt, text, err) < 0 || check_value(b, whole, opt, text, err) < 0)
        return -1;
    if (b <= a)
        return seterr(err, "%s '%s': the range must end above its start (e.g. 1..64)", opt, text);
    if (strchr(dots, '+') != NULL && (step <= 0 || (whole && step != floor(step))))
        return seterr(err, "%s '%s': the step after + must be %s (e.g. 10..100+10)", opt, text,
                      whole ? "a whole number above 0" : "above 0");
    for (double v = a; v<b *(1 - 1e-9); v = step> 0 ? v + step : v * 2)
        if (add_step(l, v, opt, text, err) < 0)
            return -1;
    return add_step(l, b, opt, text, err);
}

int
sweep_list_parse(const char *text, int whole, struct sweep_list *out, char *err)
{
    const char *opt = whole ? "--clients" : "--rates", *p = text, *dots = strstr(text, "..");
    double v;

    out->n = 0;
    if (dots != NULL)
        return parse_range(text, dots, whole, out, err);
    for (;;) {
        if (read_number(p, &p, &v) < 0 || (*p != ',' && *p != '\0'))
            return not_a_list(opt, text, err);
        if (check_value(v, whole, opt, text, err) < 0 || add_step(out, v, opt, text, err) < 0)
            return -1;
        if (*p == '\0')
            return 0;
        p++;
    }
}

int
sweep_slo_parse(const char *text, struct sweep_slo *out, char *err)
{
    static const double pcts[] = {50, 90, 95, 99, 99.9};
    const char *p = text;
    double pct, limit;
    size_t i;

    while (*p == ' ')
        p++;
    if (*p++ != 'p' || read_number(p, &p, &pct) < 0)
        goto bad;
    for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]) && pct != pcts[i]; i++)
        ;
    while (*p == ' ')
        p++;
    if (i == sizeof(pcts) / sizeof(pcts[0]) || *p++ != '<')
        goto bad;
    while (*p == ' ')
        p++;
    if (read_number(p, &p, &limit) < 0 || limit <= 0)
        goto bad;
    while (*p == ' ')
        p++;
    if (strcmp(p, "ms") == 0)
        out->limit_us = limit * 1000;
    else if (strcmp(p, "us") == 0)
        out->limit_us = limit;
    else
        goto bad;
    out->pct = pct;
    snprintf(out->text, sizeof(out->text), "p%g < %g %s", pct, limit, p);
    return 0;
bad:
    return seterr(err,
                  "--slo '%s' is not a latency target (write it like p99<5ms: p50, p90, p95, "
                  "p99 or p99.9, below a time in ms or us)",
                  text);
}

/* Waiting: every kind of wait the collector can tell; NAN when it tells none. */
void
sweep_server_from(const struct coll_signals *sig, double server_tps, struct sweep_server *out)
{
    double waits[4], sum = NAN;

    out->tps = server_tps;
    out->active = out->waiting = out->cpu_pct = NAN;
    if (sig == NULL)
        return;
    waits[0] = sig->lock_wait;
    waits[1] = sig->lwlock_wait;
    waits[2] = sig->io_wait;
    waits[3] = sig->commit_wait;
    for (int i = 0; i < 4; i++)
        if (!isnan(waits[i]))
            sum = isnan(sum) ? waits[i] : sum + waits[i];
    out->active = sig->active;
    out->waiting = sum;
    out->cpu_pct = sig->server_cpu_pct;
}

uint64_t
sweep_step_errors(const struct sweep_step *st)
{
    uint64_t n = 0;

    for (int k = ERR_NONE + 1; k < ERR__COUNT; k++)
        n += st->errors[k];
    return n;
}

double
sweep_step_x(const struct sweep_step *st, enum sweep_axis axis)
{
    return axis == SWEEP_CLIENTS ? st->clients : st->rate;
}

static void
sweep_acc_init(struct sweep_acc *a)
{
    memset(a, 0, sizeof(*a));
    a->lat = hist_new();
}

static void
sweep_acc_free(struct sweep_acc *a)
{
    hist_free(a->lat);
    a->lat = NULL;
}

static void
sweep_acc_reset(struct sweep_acc *a)
{
    struct hist *lat = a->lat;

    hist_reset(lat);
    memset(a, 0, sizeof(*a));
    a->lat = lat;
}

/* The host CPU split of the intervals that had one, summed (sweep_acc_finish averages it). */
static void
host_add(struct sweep_acc *a, const struct host_split *h)
{
    if (isnan(h->others))
        return;
    a->host.busy += h->busy;
    a->host.server += h->server;
    a->host.benchtop += h->benchtop;
    a->host.others += h->others;
    a->host.kernel += isnan(h->kernel) ? 0 : h->kernel;
    a->host.cores = h->cores;
    a->host.event_loop = h->event_loop;
    memcpy(a->host.names, h->names, sizeof(h->names));
    a->host_n++;
}

/*
 * Each advice of the verdict without a predicted range takes the one of
 * the model's finding that advises the same (kind, and the setting's
 * name and value): what a try of it is scored against (trystat.h).
 */
static void
advice_ranges(struct advice_list *l, const struct model *m)
{
    for (int i = 0; i < l->n && i < ADVICE_MAX; i++) {
        struct advice *a = &l->a[i];

        for (int f = 0; f < m->nfindings && f < MODEL_FINDINGS && !(a->lo > 0); f++) {
            const struct advice *p = &m->findings[f].advice;

            if (p->kind != a->kind || strcasecmp(p->name, a->name) != 0 ||
                (a->value[0] && strcasecmp(p->value, a->value) != 0))
                continue;
            a->lo = p->lo;
            /* "raise it": the finding's value is one step; more may give more */
            a->hi = a->value[0] || !p->value[0] ? p->hi : NAN;
        }
    }
}

/* One interval of the step: its stats, length, verdict (with the host split), and the server's. */
static void
sweep_acc_add(struct sweep_acc *a, const struct wstats *cur, double secs, const struct verdict *v,
              const struct sweep_server *srv)
{
    const double fig[4] = {srv->tps, srv->active, srv->waiting, srv->cpu_pct};
    enum verdict_kind verdict = v->kind;
    uint64_t errors = 0;
    size_t n;

    hist_merge(a->lat, cur->lat);
    a->txns += cur->txns;
    a->ops += cur->ops;
    for (int k = 0; k < ERR__COUNT; k++) {
        a->errors[k] += cur->errors[k];
        errors += cur->errors[k];
    }
    a->secs += secs;
    /*
     * an outage finishes nothing and fails: a quiet interval without errors
     * is a slow schedule (a probe at 1.6/s), not the server away (issue 47)
     */
    a->outage_s += cur->txns == 0 && errors > 0 ? secs : 0;
    a->ticks++;
    a->verdict_ticks[verdict]++;
    n = strnlen(v->evidence, sizeof a->advice[verdict] - 1); /* the advice is at its start */
    memcpy(a->advice[verdict], v->evidence, n);
    a->advice[verdict][n] = '\0';
    a->adv[verdict] = v->advice;
    if (v->model.made)
        advice_ranges(&a->adv[verdict], &v->model);
    for (int i = 0; i < 4; i++) {
        if (isnan(fig[i]))
            continue;
        a->server_sum[i] += fig[i];
        a->server_n[i]++;
    }
    host_add(a, &v->host);
}

/* The verdict of most intervals; "none" only when no verdict was shown at all. */
static void
main_verdict(const struct sweep_acc *a, struct sweep_step *out)
{
    int best = VK_NONE;

    for (int k = VK_NONE + 1; k < VK__COUNT; k++)
        if (a->verdict_ticks[k] > a->verdict_ticks[best] ||
            (best == VK_NONE && a->verdict_ticks[k] > 0))
            best = k;
    out->verdict = (enum verdict_kind)best;
    out->verdict_share = a->ticks ? (double)a->verdict_ticks[best] / a->ticks : 0;
    memcpy(out->verdict_ticks, a->verdict_ticks, sizeof(out->verdict_ticks));
    memcpy(out->advice, a->advice[best], sizeof(out->advice));
    out->adv = a->adv[best];
}

/* Fills out's measured figures (not its index, load or times). */
static void
sweep_acc_finish(const struct sweep_acc *a, struct sweep_step *out)
{
    double *fig[4] = {&out->server.tps, &out->server.active, &out->server.waiting,
                      &out->server.cpu_pct};

    out->txns = a->txns;
    out->ops = a->ops;
    out->outage_s = a->outage_s;
    memcpy(out->errors, a->errors, sizeof(out->errors));
    out->tps = a->secs > 0 ? (double)a->txns / a->secs : 0;
    out->ops_s = a->secs > 0 ? (double)a->ops / a->secs : 0;
    hist_summarize(a->lat, &out->lat);
    main_verdict(a, out);
    for (int i = 0; i < 4; i++)
        *fig[i] = a->server_n[i] ? a->server_sum[i] / a->server_n[i] : NAN;
    host_split_make(NAN, 1, NAN, NAN, NAN, &out->host);
    if (a->host_n > 0) {
        out->host = a->host;
        out->host.busy /= a->host_n;
        out->host.server /= a->host_n;
        out->host.benchtop /= a->host_n;
        out->host.others /= a->host_n;
        out->host.kernel /= a->host_n;
    }
}

/* Doublings of the load from step a to step b; 0 when b is not more. */
static double
doublings(const struct sweep_step *a, const struct sweep_step *b, enum sweep_axis axis)
{
    double d = log2(sweep_step_x(b, axis) / sweep_step_x(a, axis));

    return d > 0 ? d : 0;
}

/* The next step from i on without an outage; n if none. */
static int
next_whole(const struct sweep_step *steps, int n, int i)
{
    while (i < n && (steps[i].outage_s > 0 || steps[i].txns == 0))
        i++;
    return i;
}

/* Throughput stopped growing from a to b: less than 10% per doubling. */
static int
tps_flat(const struct sweep_step *a, const struct sweep_step *b, double d)
{
    return a->tps > 0 && b->tps / a->tps < pow(1 + SWEEP_KNEE_GAIN, d);
}

/* p99 more than doubled per doubling from a to b. */
static int
p99_rose(const struct sweep_step *a, const struct sweep_step *b, double d)
{
    return a->lat.p99 > 0 && (double)b->lat.p99 / (double)a->lat.p99 > pow(SWEEP_KNEE_P99, d);
}

/*
 * The first step i (outage steps left out) whose next step j, with more
 * load, meets the rule; -1 if none. *next: j.
 */
static int
first_pair(const struct sweep_step *steps, int n, enum sweep_axis axis,
           int (*rule)(const struct sweep_step *, const struct sweep_step *, double), int *next)
{
    for (int i = next_whole(steps, n, 0), j; i < n; i = j) {
        j = next_whole(steps, n, i + 1);
        if (j < n && doublings(&steps[i], &steps[j], axis) > 0 &&
            rule(&steps[i], &steps[j], doublings(&steps[i], &steps[j], axis))) {
            *next = j;
            return i;
        }
    }
    return -1;
}

int
sweep_knee(const struct sweep_step *steps, int n, enum sweep_axis axis)
{
    int next;

    return first_pair(steps, n, axis, tps_flat, &next);
}

int
sweep_latency_rise(const struct sweep_step *steps, int n, enum sweep_axis axis, int *next)
{
    return first_pair(steps, n, axis, p99_rose, next);
}

int
sweep_best(const struct sweep_step *steps, int n)
{
    int best = -1;

    for (int i = 0; i < n; i++)
        if (steps[i].txns > 0 && (best < 0 || steps[i].tps > steps[best].tps))
            best = i;
    return best;
}

void
rate_search_init(struct rate_search *rs, double limit_us, double start_rate)
{
    memset(rs, 0, sizeof(*rs));
    rs->limit_us = limit_us;
    rs->next = start_rate;
}

void
rate_search_capacity(struct rate_search *rs, double tps)
{
    rs->capacity = tps > 0 ? tps * SWEEP_CAPACITY_MARGIN : 0;
    if (rs->capacity > 0 && rs->next > rs->capacity)
        rs->next = rs->capacity;
}

/* The rate after a probe at r: doubling, halving or bisecting, never above the capacity. */
static void
next_rate(struct rate_search *rs, double r)
{
    if (rs->fail == 0)
        rs->next = r * 2;
    else if (rs->pass == 0)
        rs->next = r / 2;
    else
        rs->next = (rs->pass + rs->fail) / 2;
    if (rs->capacity > 0 && rs->next > rs->capacity)
        rs->next = rs->pass >= rs->capacity ? 0 : rs->capacity;
}

/* Done: converged, out of probes, at the capacity, or below 1/s; then the answer is checked. */
static void
search_end(struct rate_search *rs)
{
    int converged = rs->pass > 0 && rs->fail > 0 && rs->fail <= rs->pass * (1 + SWEEP_SEARCH_TOL);
    int out = rs->probes >= SWEEP_MAX_PROBES || rs->next < 1 || rs->next > 1e9;

    if (!converged && !out)
        return;
    rs->done = 1;
    rs->below_floor = rs->pass == 0;
    if (rs->pass == 0)
        return;
    for (int i = 0; i < rs->nmet && rs->fail > 0; i++)
        if (rs->met[i] > rs->fail * (1 + 2 * SWEEP_SEARCH_TOL)) { /* 200 met, 125 missed twice */
            rs->nonmonotonic = 1;
            rs->met_max = fmax(rs->met_max, rs->met[i]);
        }
    if (rs->nonmonotonic)
        return;
    if (!rs->verified && rs->probes < SWEEP_MAX_PROBES) { /* the answer, once more */
        rs->verifying = 1;
        rs->next = rs->pass;
        rs->done = 0;
    }
}

/* r, the answer, missed on its re-probe: it fails, and the pass is the highest met below it. */
static void
fall_back(struct rate_search *rs, double r, double value_us)
{
    rs->fail = r;
    rs->fail_us = value_us;
    rs->pass = 0;
    for (int i = 0; i < rs->nmet; i++)
        rs->pass = rs->met[i] < r && rs->met[i] > rs->pass ? rs->met[i] : rs->pass;
    rs->next = rs->pass > 0 ? (rs->pass + rs->fail) / 2 : r / 2;
}

void
rate_search_feed(struct rate_search *rs, double value_us)
{
    double r = rs->next;
    int met = value_us < rs->limit_us; /* NAN (no answer) fails too */

    rs->probes++;
    if (rs->low == 0 || r < rs->low) {
        rs->low = r;
        rs->low_us = value_us;
    }
    if (rs->verifying && met) {
        rs->verifying = 0;
        rs->verified = 1;
        rs->done = 1;
        return;
    }
    if (rs->verifying) { /* the answer missed once more: it fails, the next one below is tried */
        rs->verifying = 0;
        fall_back(rs, r, value_us);
        search_end(rs);
        return;
    }
    if (!met && !rs->confirming) {
        rs->confirming = 1; /* one stall must not cap the search: probe r again */
        rs->done = rs->probes >= SWEEP_MAX_PROBES;
        return;
    }
    rs->confirming = 0;
    if (met && rs->nmet < SWEEP_MAX_PROBES)
        rs->met[rs->nmet++] = r;
    if (met) {
        rs->pass = r > rs->pass ? r : rs->pass;
        rs->pass_us = r >= rs->pass ? value_us : rs->pass_us;
        rs->met_max = r > rs->met_max ? r : rs->met_max;
    } else if (rs->fail == 0 || r < rs->fail) {
        rs->fail = r;
        rs->fail_us = value_us;
    }
    next_rate(rs, r);
    if (rs->next == 0) { /* the capacity itself met the target: nothing above to probe */
        rs->next = rs->pass;
        rs->fail = 0;
        rs->probes = rs->probes < SWEEP_MAX_PROBES ? rs->probes : SWEEP_MAX_PROBES;
        rs->done = 1;
        return;
    }
    search_end(rs);
}

static void
start_phase(struct sweep *sw, double t)
{
    sw->phase = sw->warmup_s > 0 ? SWEEP_WARMUP : SWEEP_MEASURE;
    sw->phase_t = t;
    sw->warmup_t = t;
    sw->warmup_txns = 0;
    sweep_acc_reset(&sw->acc);
}

void
sweep_init(struct sweep *sw)
{
    sweep_acc_init(&sw->acc);
    sw->nsteps = 0;
    if (sw->find_rate)
        rate_search_init(&sw->search, sw->slo.limit_us, sw->rate > 0 ? sw->rate : 100);
    /* find-rate measures the closed-loop capacity first (rate 0): no probe goes above it */
    sw->capacity_step = sw->find_rate;
    sw->x = sw->find_rate ? 0 : sw->list.v[0];
    start_phase(sw, 0);
}

void
sweep_free(struct sweep *sw)
{
    sweep_acc_free(&sw->acc);
}

/* The SLO's percentile over the probe; NAN (a failure) without transactions or with >1% errors. */
static double
probe_value(const struct sweep *sw, const struct sweep_step *st)
{
    uint64_t errs = sweep_step_errors(st);

    if (st->txns == 0 || (double)errs > 0.01 * (double)(st->txns + errs))
        return NAN;
    return (double)hist_percentile(sw->acc.lat, sw->slo.pct);
}

static void
finish_step(struct sweep *sw, double t)
{
    struct sweep_step *st = &sw->steps[sw->nsteps];

    memset(st, 0, sizeof(*st));
    st->index = sw->nsteps++;
    st->clients = sw->axis == SWEEP_CLIENTS ? sw->x : sw->clients;
    st->rate = sw->axis == SWEEP_RATE ? sw->x : sw->rate;
    st->warmup_t = sw->warmup_t;
    st->start_t = sw->phase_t;
    st->end_t = t;
    st->warmup_txns = sw->warmup_txns;
    sweep_acc_finish(&sw->acc, st);
    if (sw->lat_into != NULL)
        hist_merge(sw->lat_into, sw->acc.lat);
    if (!sw->find_rate)
        return;
    if (sw->capacity_step) {
        sw->capacity_step = 0;
        st->capacity = 1;
        rate_search_capacity(&sw->search, st->outage_s > 0 ? 0 : st->tps);
        return;
    }
    st->probe = 1;
    st->probe_again = sw->search.confirming;
    st->slo_value_us = probe_value(sw, st);
    st->slo_met = st->slo_value_us < sw->slo.limit_us;
    rate_search_feed(&sw->search, st->slo_value_us);
}

/* The next step's load; 0 when the sweep is over. */
static int
next_load(struct sweep *sw, double *x)
{
    if (sw->nsteps == SWEEP_MAX_STEPS)
        return 0;
    if (sw->find_rate) {
        *x = sw->search.next;
        return !sw->search.done;
    }
    if (sw->nsteps >= sw->list.n)
        return 0;
    *x = sw->list.v[sw->nsteps];
    return 1;
}

void
sweep_tick(struct sweep *sw, const struct snapshot *snap, const struct verdict *v,
           const struct sweep_server *srv, struct sweep_action *act)
{
    double elapsed = snap->t - sw->phase_t, slack = snap->interval_s / 2;

    memset(act, 0, sizeof(*act));
    if (sw->phase == SWEEP_DONE || snap->final)
        return;
    if (sw->phase == SWEEP_WARMUP) {
        sw->warmup_txns += snap->cur.txns;
        if (elapsed >= sw->warmup_s - slack) {
            sw->phase = SWEEP_MEASURE;
            sw->phase_t = snap->t;
        }
        return;
    }
    sweep_acc_add(&sw->acc, &snap->cur, snap->interval_s, v, srv);
    if (elapsed < sw->step_s - slack)
        return;
    finish_step(sw, snap->t);
    act->step_done = 1;
    if (!next_load(sw, &act->x)) {
        sw->phase = SWEEP_DONE;
        act->done = 1;
        return;
    }
    act->set = 1;
    sw->x = act->x;
    start_phase(sw, snap->t);
}
