/* trystat: A/B rounds judged (trystat.h). */
#include "trystat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const double FLOOR = 0.03; /* the smallest change called beyond noise */

/* Student's t for a two-sided 95% interval, by degrees of freedom (1..10; then 2.0). */
static double
t95(int df)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571,
                               2.447,  2.365, 2.306, 2.262, 2.228};

    return df >= 1 && df <= 10 ? t[df - 1] : 2.0;
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

/* Sum and sum of squares of ln tps over one side's rounds; 0 when a round finished nothing. */
static int
log_sums(const struct try_round *r, int n, int b, double *sum, double *ss, int *k)
{
    double mean;
    int i;

    *sum = *ss = 0;
    *k = 0;
    for (i = 0; i < n; i++) {
        if (r[i].b != b)
            continue;
        if (!(r[i].tps > 0))
            return 0;
        *sum += log(r[i].tps);
        (*k)++;
    }
    mean = *k ? *sum / *k : 0;
    for (i = 0; i < n; i++)
        if (r[i].b == b)
            *ss += (log(r[i].tps) - mean) * (log(r[i].tps) - mean);
    return *k > 0;
}

/*
 * The pairs' log ratios, B over its pair's A (rounds 2i and 2i+1, AB or
 * BA, so that a drift of the host falls on both sides): their mean in *d and the
 * 95% half-width of a paired t interval in *h. 0 under PAIRED_MIN pairs:
 * two pairs give one degree of freedom (t = 12.7), weaker than the
 * two-sample interval (a x10 on a loaded machine was "no difference").
 */
enum { PAIRED_MIN = 3 };

static int
paired(const struct try_round *r, int n, double *d, double *h)
{
    double mean = 0, m2 = 0; /* Welford: the log ratios' mean and squared deviations */
    int k = 0, i;

    for (i = 0; i + 1 < n; i += 2) { /* a pair: rounds 2i and 2i+1, AB or BA */
        const struct try_round *a = r[i].b ? &r[i + 1] : &r[i], *b = r[i].b ? &r[i] : &r[i + 1];
        double x, delta;

        if (a->b == b->b)
            continue;
        x = log(b->tps / a->tps);
        delta = x - mean;
        mean += delta / ++k;
        m2 += delta * (x - mean);
    }
    if (k < PAIRED_MIN)
        return 0;
    *d = mean;
    *h = t95(k - 1) * sqrt(m2 / (k - 1) / k);
    return 1;
}

/*
 * B against A in log tps (a change multiplies throughput): the difference
 * of the sides' means, and the 95% half-width of a two-sample t interval
 * with the rounds' pooled variance (nA + nB - 2 degrees of freedom), or
 * with three pairs or more the paired interval,
 * turned back into a ratio: diff = B/A - 1, band = the distance from it to
 * the interval's end nearer no change (the interval is not symmetric as a
 * ratio), so the sentence's "± band" is beyond noise exactly when larger.
 */
static void
differences(const struct try_round *r, int n, struct try_result *out)
{
    double sa, ssa, sb, ssb, d, h;
    int na, nb, df;

    out->diff = out->band = NAN;
    if (!log_sums(r, n, 0, &sa, &ssa, &na) || !log_sums(r, n, 1, &sb, &ssb, &nb))
        return;
    out->pairs = na < nb ? na : nb;
    d = sb / nb - sa / na;
    out->diff = exp(d) - 1;
    df = na + nb - 2;
    if (df < 1)
        return;
    h = t95(df) * sqrt((ssa + ssb) / df * (1.0 / na + 1.0 / nb));
    /* three pairs or more: each B against its own A (B won every pair by 9-12% on a drifting host)
     */
    if (paired(r, n, &d, &h))
        out->diff = exp(d) - 1;
    /* the end nearer no change: then |diff| > band exactly when the interval leaves 0 out */
    out->band = fabs(exp(d) - exp(d >= 0 ? d - h : d + h));
    /*
     * Rounds that repeat almost exactly (a 20 ms fsync: 46.0 and 45.5 tps)
     * give a band near 0, and an A/A try was "slower by 1% ± 0%, beyond
     * noise": under FLOOR a difference is within what runs drift by.
     */
    out->band = fmax(out->band, FLOOR);
    out->beyond = fabs(d) > h && fabs(out->diff) > FLOOR;
}

static void
sentence(struct try_result *out)
{
    if (out->pairs == 0)
        snprintf(out->sentence, sizeof out->sentence,
                 "nothing to compare: a round finished no transaction");
    else if (isnan(out->band))
        snprintf(out->sentence, sizeof out->sentence,
                 "B differs by %+.0f%% (one round each: no noise band; use --rounds 3)",
                 out->diff * 100);
    else if (out->beyond)
        snprintf(out->sentence, sizeof out->sentence,
                 "B is %s by %.0f%% \u00b1 %.0f%%, beyond noise",
                 out->diff > 0 ? "faster" : "slower", fabs(out->diff) * 100, out->band * 100);
    else
        snprintf(out->sentence, sizeof out->sentence, "no difference beyond noise (\u00b1 %.0f%%)",
                 out->band * 100);
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

static void
prediction(struct try_result *out, enum try_change c, const struct advice_list *advice,
           const char *set, const char *split)
{
    int e = out->verdict == VK_NONE ? -1 : expects(out->verdict, c, &out->a, &out->b);
    int faster = out->beyond && out->diff > 0;
    static const char *const words[] = {"untested", "held", "did not hold", "held", "did not hold"};
    char why[160] = "";

    if (c == TRY_SETTING && set != NULL && advice != NULL && out->verdict != VK_NONE)
        e = advice_names(advice, set, why, sizeof why);
    if (e < 0)
        out->held = TRY_UNTESTED;
    else if (e == 1)
        out->held = faster ? TRY_HELD : TRY_NOT_HELD;
    else
        out->held = faster ? TRY_GAINED : TRY_NO_GAIN;
    if (out->verdict == VK_NONE)
        snprintf(out->prediction, sizeof out->prediction,
                 "the A rounds had no verdict: nothing was predicted");
    else if (why[0]) {
        out->held = TRY_UNTESTED;
        snprintf(out->prediction, sizeof out->prediction, "A was %s%s; its advice was %s: untested",
                 verdict_label(out->verdict), split, why);
    } else if (e < 0)
        snprintf(out->prediction, sizeof out->prediction,
                 "A was %s%s; its advice names no such change: untested",
                 verdict_label(out->verdict), split);
    else
        snprintf(out->prediction, sizeof out->prediction, "A was %s%s; its advice expected %s: %s",
                 verdict_label(out->verdict), split, e ? "B faster" : "no gain from more clients",
                 words[out->held]);
}

void
try_judge(const struct try_round *r, int n, enum try_change c, const char *set,
          struct try_result *out)
{
    int i;
    char split[96];

    memset(out, 0, sizeof *out);
    if (n > TRY_MAX_ROUNDS)
        n = TRY_MAX_ROUNDS;
    for (i = 0; i < n; i++)
        side_add(r[i].b ? &out->b : &out->a, &r[i]);
    side_mean(&out->a);
    side_mean(&out->b);
    differences(r, n, out);
    out->verdict = a_verdict(r, n);
    sentence(out);
    a_split(r, n, out->verdict, split, sizeof split);
    prediction(out, c, a_advice(r, n, out->verdict), set, split);
}

const char *
try_held_key(enum try_held h)
{
    static const char *const keys[] = {"untested", "held", "not_held", "no_gain", "gained"};

    return h <= TRY_GAINED ? keys[h] : "untested";
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
