/* trystat: A/B rounds judged (trystat.h). */
#include "trystat.h"

#include "base/hist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * The regularized incomplete beta I_x(a, b) by its continued fraction
 * (Lentz; Numerical Recipes' betacf): Student's t tail below.
 */
static double
beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1), h;

    d = 1 / (fabs(d) < tiny ? tiny : d);
    h = d;
    for (int m = 1; m <= 300; m++) {
        double aa = m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)), del;

        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-14)
            break;
    }
    return h;
}

static double
beta_inc(double a, double b, double x)
{
    double front;

    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
    return x < (a + 1) / (a + b + 2) ? front * beta_cf(a, b, x) / a
                                     : 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(|T| > t), T Student's t with df degrees of freedom. */
static double
t_tail(double t, int df)
{
    return beta_inc(df / 2.0, 0.5, df / (df + t * t));
}

double
try_t_quantile(double level, int df)
{
    double lo = 0, hi = 1, alpha = 1 - level;

    if (df < 1 || !(alpha > 0 && alpha < 1))
        return NAN;
    while (t_tail(hi, df) > alpha && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 100 && hi - lo > 1e-7 * hi; i++) {
        double mid = (lo + hi) / 2;

        if (t_tail(mid, df) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/*
 * Alpha spending over the looks: 0.05 / (k (k + 1)) at look k sums to
 * 0.05 (1 - 1 / L) over L - 1 looks, and the last possible one takes
 * the rest, 0.05 / L: one look alone is the plain 95% interval.
 */
double
try_look_level(int k, int last)
{
    if (k < 1)
        k = 1;
    if (last > 0 && k >= last) /* beyond it (a longer try's look): as if it were the last */
        return 1 - 0.05 / k;
    return 1 - 0.05 / ((double)k * (k + 1));
}

/*
 * A pair's log ratio carries each round's own noise: a round of k
 * intervals whose log tps spread by sd adds sd^2 / k, two rounds
 * 2 sd^2 / k; under (min_effect / 2)^2 needs k >= 8 sd^2 / min_effect^2.
 * Longer rounds do nothing for drift between rounds (the pairs' t
 * interval sees that); they only keep the interval-to-interval noise
 * from deciding the pairs' spread.
 */
double
try_round_seconds(const double *tps, int n, double interval_s, double min_effect, double lo_s,
                  double hi_s)
{
    double m = 0, m2 = 0, sd, k;
    int used = 0;

    for (int i = n > 30 ? n - 30 : 0; i < n; i++) { /* the last 30 intervals */
        double x, delta;

        if (!(tps[i] > 0))
            continue;
        x = log(tps[i]);
        delta = x - m;
        m += delta / ++used;
        m2 += delta * (x - m);
    }
    if (used < 5 || !(interval_s > 0) || !(min_effect > 0))
        return lo_s;
    sd = sqrt(m2 / (used - 1));
    k = ceil(8 * sd * sd / (min_effect * min_effect));
    return fmin(hi_s, fmax(lo_s, k * interval_s));
}

static void
side_add(struct try_side *s, const struct try_round *r)
{
    s->n++;
    s->clients = r->clients;
    s->tps += r->tps;
    s->p50_ms += r->p50_ms;
    s->p95_ms += r->p95_ms;
    s->p99_ms += r->p99_ms;
    s->errors += r->errors;
}

static void
side_mean(struct try_side *s)
{
    if (s->n == 0)
        return;
    s->tps /= s->n;
    s->p50_ms /= s->n;
    s->p95_ms /= s->n;
    s->p99_ms /= s->n;
}

/* How many A rounds had each verdict; the count of those that had one. */
static int
a_counts(const struct try_round *r, int n, int count[VK__COUNT])
{
    int i, with = 0;

    memset(count, 0, sizeof(int) * VK__COUNT);
    for (i = 0; i < n; i++)
        if (!r[i].b && r[i].verdict != VK_NONE && r[i].verdict < VK__COUNT) {
            count[r[i].verdict]++;
            with++;
        }
    return with;
}

/* The verdict that held most A rounds (VK_NONE when none had one). */
static enum verdict_kind
a_verdict(const struct try_round *r, int n)
{
    int count[VK__COUNT], i, best = VK_NONE;

    a_counts(r, n, count);
    for (i = 1; i < VK__COUNT; i++)
        if (count[i] > count[best])
            best = i;
    return (enum verdict_kind)best;
}

/*
 * " in 2 of 3 rounds (1 host)" when the A rounds disagreed, else "": a
 * neighbour coming and going made one A round host-bound and the others
 * server-bound, and the prediction named the majority alone (trial 7,
 * case 19).
 */
static void
a_split(const struct try_round *r, int n, enum verdict_kind k, char *buf, size_t len)
{
    int count[VK__COUNT], with = a_counts(r, n, count), sep = 0;
    size_t used;

    buf[0] = '\0';
    if (k == VK_NONE || count[k] == with)
        return;
    snprintf(buf, len, " in %d of %d rounds (", count[k], with);
    for (int i = 1; i < VK__COUNT; i++) {
        used = strlen(buf);
        if (i != (int)k && count[i] > 0 && used < len)
            snprintf(buf + used, len - used, "%s%d %s", sep++ ? ", " : "", count[i],
                     verdict_label((enum verdict_kind)i));
    }
    used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

/*
 * The pairs' log ratios, B over its pair's A (rounds 2i and 2i+1, AB or
 * BA): how many, their mean and standard deviation. -1 when a round
 * finished nothing (no ratio to take).
 *
 * Why a t interval on the log ratios and not a bootstrap: with 3 pairs a
 * bootstrap has 10 distinct resamples and its percentile interval is
 * narrower than the data allow (it cannot reach beyond the smallest and
 * largest ratio), so it decides too early; the t interval widens with
 * few pairs as it must (t = 4.3 at 95% with 2 degrees of freedom).
 * Throughput ratios are near log-normal, so the log ratios are near
 * normal; one outlying pair widens the interval (an inconclusive try),
 * it does not decide one.
 */
static int
pair_ratios(const struct try_round *r, int n, double *mean, double *sd)
{
    double m = 0, m2 = 0; /* Welford: the log ratios' mean and squared deviations */
    int k = 0;

    for (int i = 0; i + 1 < n; i += 2) {
        const struct try_round *a = r[i].b ? &r[i + 1] : &r[i], *b = r[i].b ? &r[i] : &r[i + 1];
        double x, delta;

        if (a->b == b->b)
            continue;
        if (!(a->tps > 0) || !(b->tps > 0))
            return -1;
        x = log(b->tps / a->tps);
        delta = x - m;
        m += delta / ++k;
        m2 += delta * (x - m);
    }
    *mean = m;
    *sd = k > 1 ? sqrt(m2 / (k - 1)) : NAN;
    return k;
}

/* The outcome of an interval [lo, hi] of B/A - 1 against ±delta. */
static enum try_outcome
outcome_of(double lo, double hi, double delta)
{
    if (lo > delta)
        return TRY_FASTER;
    if (hi < -delta)
        return TRY_SLOWER;
    if (lo > -delta && hi < delta)
        return TRY_SAME;
    return TRY_INCONCLUSIVE;
}

/* The interval's half-width in logs with k pairs of spread sd, at look level. */
static double
half_width(double sd, int k, double level)
{
    return try_t_quantile(level, k - 1) * sd / sqrt(k);
}

/* The outcome with m pairs of these ratios, at the level of their look (last: the plan's). */
static enum try_outcome
outcome_with(double mean, double sd, int m, int first, int last, double delta)
{
    int look = m - first + 1;
    double h = half_width(sd, m, try_look_level(look, last));

    return outcome_of(exp(mean - h) - 1, exp(mean + h) - 1, delta);
}

/*
 * About how many more pairs would decide, if the ratios went on as they
 * did (their mean and spread): the fewest whose interval, at the level
 * of its look, is decisive; the interval narrows with the pairs
 * (as 1 / sqrt), so a bisection finds it. -1 beyond 64 more: the change
 * is too near ±delta to tell.
 */
static int
more_pairs(double mean, double sd, int k, int first, int last, double delta)
{
    int lo = k, hi = k + 64; /* lo: not decisive; hi: decisive, once checked */

    if (outcome_with(mean, sd, hi, first, last, delta) == TRY_INCONCLUSIVE)
        return -1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;

        if (outcome_with(mean, sd, mid, first, last, delta) == TRY_INCONCLUSIVE)
            lo = mid;
        else
            hi = mid;
    }
    return hi - k;
}

/* The A rounds in time order: the last one's tps over the first's, less 1; NAN under two. */
static double
a_drift(const struct try_round *r, int n)
{
    int first = -1, last = -1;

    for (int i = 0; i < n; i++)
        if (!r[i].b && r[i].tps > 0) {
            if (first < 0)
                first = i;
            last = i;
        }
    return first >= 0 && last > first ? r[last].tps / r[first].tps - 1 : NAN;
}

/*
 * B against A: the pairs' mean log ratio as diff, its interval at the
 * look's level as [lo, hi], the outcome, and the A side's drift. Before
 * the first look (fewer pairs than plan->first_look) the interval is
 * shown but decides nothing.
 */
static void
differences(const struct try_round *r, int n, const struct try_plan *p, struct try_result *out)
{
    double mean, sd, h;
    int k = pair_ratios(r, n, &mean, &sd), look = k - p->first_look + 1;
    int last = p->max_pairs > 0 ? p->max_pairs - p->first_look + 1 : 0;

    out->lo = out->hi = out->drift = NAN;
    out->diff = NAN;
    out->outcome = TRY_NOTHING;
    if (k <= 0)
        return;
    out->pairs = k;
    out->diff = exp(mean) - 1;
    if (k < 2)
        return;
    out->level = try_look_level(look, last);
    h = half_width(sd, k, out->level);
    out->lo = exp(mean - h) - 1;
    out->hi = exp(mean + h) - 1;
    out->outcome = look >= 1 ? outcome_of(out->lo, out->hi, p->min_effect) : TRY_INCONCLUSIVE;
    if (out->outcome == TRY_INCONCLUSIVE)
        out->more_pairs = look >= 1 ? more_pairs(mean, sd, k, p->first_look, last, p->min_effect)
                                    : p->first_look - k;
    out->drift = a_drift(r, n);
    /*
     * The first and last A rounds' log ratio has the spread of a pair's
     * (a difference of two rounds' logs): beyond the 95% range of the
     * pairs' own spread, and by more than counts, the host moved.
     */
    out->drifted = !isnan(out->drift) &&
                   fabs(log1p(out->drift)) > try_t_quantile(0.95, k - 1) * sd &&
                   fabs(out->drift) > p->min_effect;
}

/* A change as benchstat prints it: "+52%", "-3.1%" (a decimal under 10%). */
static const char *
pct_text(double v, char *buf, size_t len)
{
    snprintf(buf, len, fabs(v) < 0.1 ? "%+.1f%%" : "%+.0f%%", v * 100);
    return buf;
}

static void
sentence(struct try_result *out)
{
    static const char *const head[] = {"", "inconclusive", "B is faster", "B is slower",
                                       "no meaningful effect"};
    char d[16], lo[16], hi[16], delta[16], more[80] = "";

    snprintf(delta, sizeof delta, "%.3g%%", out->min_effect * 100);
    if (out->pairs == 0) {
        snprintf(out->sentence, sizeof out->sentence,
                 "nothing to compare: a round finished no transaction");
        return;
    }
    pct_text(out->diff, d, sizeof d);
    if (out->outcome == TRY_NOTHING) {
        snprintf(out->sentence, sizeof out->sentence,
                 "inconclusive: B differs by %s, 1 pair: no interval (use --rounds 3)", d);
        return;
    }
    if (out->outcome == TRY_INCONCLUSIVE && out->more_pairs > 0)
        snprintf(more, sizeof more, "; about %d more pair%s would decide it", out->more_pairs,
                 out->more_pairs == 1 ? "" : "s");
    else if (out->outcome == TRY_INCONCLUSIVE)
        snprintf(more, sizeof more, "; over 64 more pairs would be needed to decide it");
    snprintf(out->sentence, sizeof out->sentence, "%s: %s [%s, %s], %d pairs (%s \u00b1%s)%s",
             head[out->outcome], d, pct_text(out->lo, lo, sizeof lo),
             pct_text(out->hi, hi, sizeof hi), out->pairs,
             out->outcome == TRY_SAME           ? "within"
             : out->outcome == TRY_INCONCLUSIVE ? "against"
                                                : "beyond",
             delta, more);
    if (out->drifted)
        snprintf(out->note, sizeof out->note,
                 "drift: A went %s from its first round to its last, more than the interval "
                 "allows: the host changed during the try",
                 pct_text(out->drift, d, sizeof d));
}

/*
 * What the A rounds' verdict expects of change c: 1 faster, 0 no gain,
 * -1 nothing. A setting can relieve a server-side wait (the commit's sync,
 * reads, memory, a thread, the app's workers, the pooler's pool: try
 * sends default_pool_size to the pooler); more clients are what
 * verdict_check judges; more threads relieve benchtop's own.
 */
static int
expects(enum verdict_kind k, enum try_change c, const struct try_side *a, const struct try_side *b)
{
    if (c == TRY_SETTING)
        return k == VK_COMMIT || k == VK_IO || k == VK_MEMORY || k == VK_THREAD || k == VK_APP ||
                       k == VK_POOL
                   ? 1
                   : -1;
    if (c == TRY_THREADS)
        return k == VK_CLIENT ? 1 : -1;
    if (c == TRY_PIPELINE) /* fewer round trips per request: what a network-bound run lacks */
        return k == VK_NETWORK ? 1 : -1;
    if (c != TRY_CLIENTS || b->clients <= a->clients)
        return -1;
    if (k == VK_UNDERLOADED || k == VK_NETWORK || k == VK_COMMIT)
        return 1;
    return k == VK_SERVER_CPU || k == VK_LOCK || k == VK_CLIENT || k == VK_HOST ? 0 : -1;
}

/*
 * Whether the advice names one of B's settings (set: "NAME=VALUE" lines):
 * 1 with B's value, or only ever without one ("raise shared_buffers"); 0
 * with another value (said in why: an A/A try of synchronous_commit=on
 * under "synchronous_commit = off" tests nothing the advice said); -1 for
 * none of them. Names and values compare as the servers take them, in any
 * case.
 */
static int
advice_names(const struct advice_list *adv, const char *set, char *why, size_t len)
{
    const char *line = set, *eq, *end;
    int found = -1, bare = 0;

    for (; line != NULL && *line; line = *end ? end + 1 : end) {
        size_t nl, vl;

        end = line + strcspn(line, "\n");
        eq = memchr(line, '=', (size_t)(end - line));
        if (eq == NULL)
            continue;
        nl = (size_t)(eq - line);
        vl = (size_t)(end - eq - 1);
        for (int i = 0; i < adv->n && i < ADVICE_MAX; i++) {
            const struct advice *a = &adv->a[i];

            if ((a->kind != ADV_SETTING && a->kind != ADV_POOLER) || strlen(a->name) != nl ||
                strncasecmp(a->name, line, nl) != 0)
                continue;
            if (a->value[0] == '\0') {
                bare = 1;
                continue;
            }
            if (strlen(a->value) == vl && strncasecmp(a->value, eq + 1, vl) == 0)
                return 1;
            found = 0;
            snprintf(why, len, "%s = %s, B sets %.*s", a->name, a->value, (int)vl, eq + 1);
        }
    }
    if (found < 0 && bare)
        return 1;
    return found;
}

/* The advice of the A rounds that had their main verdict k (the last's); NULL if none. */
static const struct advice_list *
a_advice(const struct try_round *r, int n, enum verdict_kind k)
{
    const struct advice_list *a = NULL;

    for (int i = 0; i < n; i++)
        if (!r[i].b && r[i].verdict == k && r[i].adv.n > 0)
            a = &r[i].adv;
    return a;
}

int
try_decisive(const struct try_result *res)
{
    return res->outcome == TRY_FASTER || res->outcome == TRY_SLOWER || res->outcome == TRY_SAME;
}

int
try_settled(const struct try_result *res)
{
    return try_decisive(res) && res->held != TRY_UNTESTED;
}

/*
 * e (1: B faster, 0: no gain) against the outcome. Faster is held when
 * the interval's low end reaches the predicted gain (δ when only the
 * direction is predicted); not held only when its high end stays below
 * it: an interval that holds the predicted gain leaves it untested.
 */
static enum try_held
score(int e, const struct try_result *out)
{
    double g = out->gain > 0 ? out->gain : out->min_effect;

    if (e < 0)
        return TRY_UNPREDICTED;
    if (!try_decisive(out))
        return TRY_UNTESTED;
    if (e == 0)
        return out->outcome == TRY_FASTER ? TRY_NOT_HELD : TRY_HELD;
    if (out->outcome == TRY_FASTER && out->lo >= g)
        return TRY_HELD;
    return out->hi < g ? TRY_NOT_HELD : TRY_UNTESTED;
}

/* "held", "untested (inconclusive)", ...: the prediction's last words. */
static const char *
scored_text(const struct try_result *out)
{
    if (out->held == TRY_HELD)
        return "held";
    if (out->held == TRY_NOT_HELD)
        return "did not hold";
    return try_decisive(out) ? "untested (faster, but not surely by the predicted gain)"
                             : "untested (inconclusive)";
}

/*
 * "B faster by +82% to +190% (measured +132% [+54%, +251%])": the
 * predicted range beside the measured interval.
 */
static void
expected_range(const struct try_result *out, char *buf, size_t len)
{
    char g[16], h[16] = "", d[16], lo[16], hi[16], measured[64] = "";

    pct_text(out->gain, g, sizeof g);
    if (out->gain_hi > out->gain)
        pct_text(out->gain_hi, h, sizeof h);
    if (!isnan(out->lo))
        snprintf(measured, sizeof measured, " (measured %s [%s, %s])",
                 pct_text(out->diff, d, sizeof d), pct_text(out->lo, lo, sizeof lo),
                 pct_text(out->hi, hi, sizeof hi));
    if (h[0])
        snprintf(buf, len, "B faster by %s to %s%s", g, h, measured);
    else
        snprintf(buf, len, "B faster by %s at least%s", g, measured);
}

static void
prediction(struct try_result *out, enum try_change c, const struct advice_list *advice,
           const char *set, const char *split)
{
    int e = out->verdict == VK_NONE ? -1 : expects(out->verdict, c, &out->a, &out->b);
    char why[160] = "", expected[128] = "B faster";

    if (c == TRY_SETTING && set != NULL && advice != NULL && out->verdict != VK_NONE)
        e = advice_names(advice, set, why, sizeof why);
    if (why[0])
        e = -1;
    out->held = score(e, out);
    if (e == 0)
        snprintf(expected, sizeof expected, "no gain from more clients");
    else if (out->gain > 0)
        expected_range(out, expected, sizeof expected);
    if (out->verdict == VK_NONE)
        snprintf(out->prediction, sizeof out->prediction,
                 "the A rounds had no verdict: nothing was predicted");
    else if (why[0])
        snprintf(out->prediction, sizeof out->prediction,
                 "A was %s%s; its advice was %s: nothing to score", verdict_label(out->verdict),
                 split, why);
    else if (e < 0)
        snprintf(out->prediction, sizeof out->prediction,
                 "A was %s%s; its advice names no such change: nothing to score",
                 verdict_label(out->verdict), split);
    else
        snprintf(out->prediction, sizeof out->prediction, "A was %s%s; its advice expected %s: %s",
                 verdict_label(out->verdict), split, expected, scored_text(out));
}

/* set ("NAME=VALUE" lines) sets name, to value unless value is "" ("raise it"). */
static int
set_names(const char *set, const char *name, const char *value)
{
    for (const char *line = set, *end; line != NULL && *line; line = *end ? end + 1 : end) {
        const char *eq;

        end = line + strcspn(line, "\n");
        eq = memchr(line, '=', (size_t)(end - line));
        if (eq == NULL || strlen(name) != (size_t)(eq - line) ||
            strncasecmp(name, line, (size_t)(eq - line)) != 0)
            continue;
        if (value[0] == '\0' || (strlen(value) == (size_t)(end - eq - 1) &&
                                 strncasecmp(value, eq + 1, (size_t)(end - eq - 1)) == 0))
            return 1;
    }
    return 0;
}

/* Advice a is the change B makes (c, with set's settings): its range is B's prediction. */
static int
advice_is_change(const struct advice *a, enum try_change c, const char *set)
{
    if (c == TRY_SETTING)
        return (a->kind == ADV_SETTING || a->kind == ADV_POOLER) &&
               set_names(set, a->name, a->value);
    return (c == TRY_CLIENTS && a->kind == ADV_CLIENTS) ||
           (c == TRY_THREADS && a->kind == ADV_THREADS);
}

/*
 * Round r's predicted gain of change c, fractions: its own (gain > 0),
 * else the range of the advice that names c (lo and hi are factors of
 * the current tps; a factor of 1 or less, or NAN, predicts no gain).
 */
static void
round_range(const struct try_round *r, enum try_change c, const char *set, double *lo, double *hi)
{
    *lo = r->gain;
    *hi = r->gain_hi > r->gain ? r->gain_hi : NAN;
    if (*lo > 0)
        return;
    for (int i = 0; i < r->adv.n && i < ADVICE_MAX; i++) {
        const struct advice *a = &r->adv.a[i];

        if (!advice_is_change(a, c, set) || !(a->lo > 1))
            continue;
        *lo = a->lo - 1;
        *hi = a->hi >= a->lo ? a->hi - 1 : NAN;
        return;
    }
}

/*
 * The predicted range over the A rounds of verdict k: the smallest
 * minimum (the one B must reach to hold; 0 when none was predicted) and
 * the largest maximum (NAN: none).
 */
static void
a_range(const struct try_round *r, int n, enum verdict_kind k, enum try_change c, const char *set,
        struct try_result *out)
{
    out->gain = 0;
    out->gain_hi = NAN;
    for (int i = 0; i < n; i++) {
        double lo, hi;

        if (r[i].b || r[i].verdict != k)
            continue;
        round_range(&r[i], c, set, &lo, &hi);
        if (lo > 0 && (out->gain == 0 || lo < out->gain))
            out->gain = lo;
        if (hi > 0 && !(hi <= out->gain_hi))
            out->gain_hi = hi;
    }
    if (out->gain == 0)
        out->gain_hi = NAN;
}

void
try_judge(const struct try_round *r, int n, enum try_change c, const char *set,
          const struct try_plan *plan, struct try_result *out)
{
    const struct try_plan defaults = {TRY_MIN_EFFECT, TRY_FIRST_LOOK, 0};
    const struct advice_list *adv;
    char split[96];
    int i;

    if (plan == NULL)
        plan = &defaults;
    memset(out, 0, sizeof *out);
    if (n > TRY_MAX_ROUNDS)
        n = TRY_MAX_ROUNDS;
    for (i = 0; i < n; i++)
        side_add(r[i].b ? &out->b : &out->a, &r[i]);
    side_mean(&out->a);
    side_mean(&out->b);
    out->min_effect = plan->min_effect;
    differences(r, n, plan, out);
    out->verdict = a_verdict(r, n);
    a_range(r, n, out->verdict, c, set, out);
    adv = a_advice(r, n, out->verdict);
    if (adv != NULL && adv->n > 0) /* the record keeps the advice's sentence, made from its data */
        advice_text(&adv->a[0], out->advice, sizeof out->advice);
    sentence(out);
    a_split(r, n, out->verdict, split, sizeof split);
    prediction(out, c, adv, set, split);
}

static const char *const held_keys[] = {"none", "held", "not_held", "untested"};

const char *
try_held_key(enum try_held h)
{
    return h <= TRY_UNTESTED ? held_keys[h] : "none";
}

enum try_held
try_held_of(const char *key)
{
    for (int i = 0; i <= TRY_UNTESTED; i++)
        if (key != NULL && strcmp(key, held_keys[i]) == 0)
            return (enum try_held)i;
    return TRY_UNPREDICTED;
}

const char *
try_outcome_key(enum try_outcome o)
{
    static const char *const keys[] = {"none", "inconclusive", "faster", "slower", "no_effect"};

    return o <= TRY_SAME ? keys[o] : "none";
}

void
try_round_from_step(const struct sweep_step *st, int b, struct try_round *r)
{
    memset(r, 0, sizeof *r);
    r->b = b;
    r->clients = (int)st->clients;
    r->tps = st->tps;
    r->p50_ms = (double)st->lat.p50 / 1000.0;
    r->p95_ms = (double)st->lat.p95 / 1000.0;
    r->p99_ms = (double)st->lat.p99 / 1000.0;
    r->errors = sweep_step_errors(st);
    r->verdict = st->verdict;
    memcpy(r->advice, st->advice, sizeof r->advice);
    r->adv = st->adv;
    /* r->gain stays 0: the verdict names a direction, not yet a predicted gain */
}

void
try_side_latency(struct try_side *s, const struct hist *lat)
{
    if (lat == NULL || hist_count(lat) == 0)
        return;
    s->p50_ms = (double)hist_percentile(lat, 50) / 1000.0;
    s->p95_ms = (double)hist_percentile(lat, 95) / 1000.0;
    s->p99_ms = (double)hist_percentile(lat, 99) / 1000.0;
}

/* A setting's value as the server shows it ("128MB", "134217728"). NULL if not listed. */
static const char *
setting_value(const struct coll_settings *set, const char *name)
{
    for (int i = 0; set != NULL && i < set->n && i < COLL_MAX_SETTINGS; i++)
        if (strcasecmp(set->s[i].name, name) == 0)
            return set->s[i].value;
    return NULL;
}

/* "128MB" -> "256MB", "1048576" -> "2097152": the number doubled, its unit kept. 0, or -1. */
static int
double_size(const char *value, char *out, size_t len)
{
    char *end;
    double v = strtod(value, &end);

    if (end == value || !(v > 0) || strlen(end) > 2)
        return -1;
    snprintf(out, len, "%.0f%s", v * 2, end);
    return 0;
}

/* memory-bound: the cache's size setting, doubled; or why not. */
static void
propose_memory(const struct try_situation *in, struct try_proposal *out)
{
    const struct coll_signals *g = in->sig;
    const char *name = g ? g->mem_limit_setting : "", *value;
    char twice[64];

    if (name[0] == '\0') {
        snprintf(out->text, sizeof out->text,
                 "memory-bound: no cache size setting to try on this server: no experiment");
        return;
    }
    if (name[0] == '-') { /* a command-line option (memcached -m) */
        snprintf(out->text, sizeof out->text,
                 "memory-bound: the server's %s cannot be changed while it runs: no experiment",
                 name);
        return;
    }
    value = setting_value(in->settings, name);
    if (value == NULL && g->mem_limit > 0) {
        snprintf(twice, sizeof twice, "%.0f", g->mem_limit * 2);
    } else if (value == NULL || double_size(value, twice, sizeof twice) < 0) {
        snprintf(out->text, sizeof out->text,
                 "memory-bound: %s's size is not known (0 or unread): no experiment "
                 "(benchtop try --set %s=SIZE)",
                 name, name);
        return;
    }
    out->ok = 1;
    snprintf(out->set, sizeof out->set, "%s=%s", name, twice);
    snprintf(out->text, sizeof out->text, "%s (memory-bound: the cache x2)", out->set);
}

/* Server connections a pool may grow to: the server's limit less PostgreSQL's default reserve. */
#define POOL_RESERVED 3

/* pool-bound: the pooler's default_pool_size x2, capped by the server's connection limit. */
static void
propose_pool(const struct try_situation *in, struct try_proposal *out)
{
    double size = in->sig ? in->sig->pool_size : NAN, cap = NAN, want;

    if (isnan(size) || size < 1) {
        snprintf(out->text, sizeof out->text,
                 "pool-bound: %s's pool size is not known: no experiment "
                 "(benchtop try --set default_pool_size=N)",
                 in->pooler ? in->pooler : "the pooler");
        return;
    }
    if (in->sig->max_sessions > POOL_RESERVED)
        cap = in->sig->max_sessions - POOL_RESERVED;
    want = isnan(cap) ? size * 2 : fmin(size * 2, cap);
    if (want <= size) {
        snprintf(out->text, sizeof out->text,
                 "pool-bound: the pool (%.0f) is at the server's connection limit (%.0f less "
                 "%d reserved): no experiment",
                 size, in->sig->max_sessions, POOL_RESERVED);
        return;
    }
    out->ok = 1;
    snprintf(out->set, sizeof out->set, "default_pool_size=%.0f", want);
    snprintf(out->text, sizeof out->text, "%s (pool-bound: the pool x2%s)", out->set,
             want < size * 2 ? ", capped by max_connections" : "");
}

/* One more of benchtop's threads: a spare worker takes a share of the clients. */
static void
propose_threads(const struct try_situation *in, struct try_proposal *out)
{
    if (in->quota_held) { /* threads share the quota: what the verdict advises is the quota */
        snprintf(out->text, sizeof out->text,
                 "client-bound by benchtop's CPU quota: more threads share it; raise the quota "
                 "(no experiment from benchtop)");
        return;
    }
    if (in->threads >= in->max_threads) {
        /* no spare worker (an open loop, or a load not on the dashboard): a new load tries it */
        snprintf(out->text, sizeof out->text,
                 "client-bound: -j %d needs a new load (no spare thread in this one): "
                 "benchtop try TARGET --try-threads %d",
                 in->threads + 1, in->threads + 1);
        return;
    }
    out->ok = 1;
    out->change = TRY_THREADS;
    out->threads = in->threads + 1;
    snprintf(out->text, sizeof out->text, "-j %d (client-bound: one more thread)", out->threads);
}

static void
propose_commit(const struct try_situation *in, struct try_proposal *out)
{
    if (in->sig == NULL || in->sig->commit_try[0] == '\0') {
        snprintf(out->text, sizeof out->text,
                 "commit-bound: no commit setting to try on this server: no experiment");
        return;
    }
    out->ok = 1;
    snprintf(out->set, sizeof out->set, "%s", in->sig->commit_try);
    snprintf(out->text, sizeof out->text, "%s (commit-bound)", out->set);
}

/*
 * The experiment the advice names, where it is one: a setting with its
 * value, more clients, more threads, the quota. 0: the kind's own
 * proposal (a size doubled needs the setting's value, the pool its cap).
 */
static int
propose_advice(const struct try_situation *in, struct try_proposal *out)
{
    const struct advice *a = in->advice;

    if (a == NULL)
        return 0;
    if (a->kind == ADV_SETTING && a->value[0]) {
        out->ok = 1;
        snprintf(out->set, sizeof out->set, "%s=%s", a->name, a->value);
        snprintf(out->text, sizeof out->text, "%s (%s)", out->set, verdict_label(in->kind));
        return 1;
    }
    if (a->kind == ADV_CLIENTS && a->n > in->clients) {
        out->ok = 1;
        out->change = TRY_CLIENTS;
        out->clients = a->n;
        snprintf(out->text, sizeof out->text, "-c %d (%s: clients x%.3g)", out->clients,
                 verdict_label(in->kind), (double)a->n / in->clients);
        return 1;
    }
    if (a->kind == ADV_THREADS || a->kind == ADV_QUOTA) {
        struct try_situation q = *in;

        q.quota_held = a->kind == ADV_QUOTA;
        propose_threads(&q, out);
        return 1;
    }
    return 0;
}

void
try_propose(const struct try_situation *in, struct try_proposal *out)
{
    memset(out, 0, sizeof *out);
    out->change = TRY_SETTING;
    out->clients = in->clients;
    out->threads = in->threads;
    if (propose_advice(in, out))
        return;
    switch (in->kind) {
    case VK_COMMIT:
        propose_commit(in, out);
        return;
    case VK_MEMORY:
        propose_memory(in, out);
        return;
    case VK_POOL:
        propose_pool(in, out);
        return;
    case VK_CLIENT:
        propose_threads(in, out);
        return;
    case VK_NETWORK:
    case VK_UNDERLOADED:
        out->ok = 1;
        out->change = TRY_CLIENTS;
        out->clients = in->clients * 2;
        snprintf(out->text, sizeof out->text, "-c %d (%s: clients x2)", out->clients,
                 verdict_label(in->kind));
        return;
    default:
        snprintf(out->text, sizeof out->text, "no experiment for this verdict (%s)",
                 in->kind == VK_NONE ? "none yet" : verdict_label(in->kind));
    }
}
