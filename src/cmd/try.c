/*
 * try: `benchtop try TARGET --set NAME=VALUE`: the verdict's advice tested.
 * A (the server as it is) and B (the settings, clients or threads changed)
 * run in pairs of rounds, AB or BA as a seeded draw says, each round a
 * load of its own with a settle (--warmup) and a measured part (--for),
 * so that drift on a shared host falls on both sides. After 3 pairs
 * (fewer when --rounds caps them) src/analysis/trystat.c judges the
 * pairs after each one, and the try stops once the outcome is decisive,
 * at --rounds, or when the --budget would be spent by one more pair.
 *
 * A setting only a pooler in front of the server knows (--pooler, or found
 * at the target's port) is changed on the pooler (run/tryrun.h's
 * tryrun_pooler). The server is always put back: the values that undo
 * each setting are in the undo file (src/run/tryset.h) before the
 * first change, B is reverted after each B round, and a SIGINT, SIGTERM
 * or SIGHUP ends the round and reverts before exit. Signals are blocked
 * from the start, so one that comes between rounds waits on sigfd and is
 * taken there.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cmd.h"
#include "analysis/sweep.h"
#include "analysis/trystat.h"
#include "base/hist.h"
#include "base/rand.h"
#include "base/text.h"
#include "base/util.h"
#include "engine/registry.h"
#include "run/tryset.h"
#include "records/sweep-output.h"
#include "records/tryreport.h"
#include "run/options.h"
#include "run/tryrun.h"

struct try_run {
    struct runconf *rc;
    struct tryset set;
    enum try_change change;
    FILE *out;        /* -o FILE, or NULL */
    const char *what; /* "sweep" for sweep --set-values, else NULL: a try */
    int sigfd;
    int n;
    struct try_round rounds[TRY_MAX_ROUNDS];
    int a_pipeline, a_connect; /* A's client side, put back after each B round */
    char *a_mode;
    struct try_plan plan;
    struct rng order;    /* each pair's AB or BA */
    uint64_t seed;       /* ... drawn from this, printed and recorded */
    char stop[120];      /* why the rounds stopped */
    double budget_s;     /* --budget, or TRY_BUDGET_S */
    struct hist *lat[2]; /* each side's rounds' latencies, merged (a mean of p99s is no p99) */
};

/* A signal ended a round or waits: revert, say so, and end with the shell's 128 + N. */
static void
interrupted(struct try_run *t, int signo)
{
    tryset_put_back(&t->set);
    fprintf(stderr, "benchtop: %s stopped by %s; the server's settings were put back\n",
            t->what ? t->what : "try", strsignal(signo));
    exit(128 + signo);
}

static int
pending_signal(int sigfd)
{
    struct signalfd_siginfo si;

    return read(sigfd, &si, sizeof si) == (ssize_t)sizeof si ? (int)si.ssi_signo : 0;
}

/* Refuses what try cannot do, before anything is connected. */
static void
check_options(const struct runconf *rc)
{
    if (rc->read_only)
        usage_fatal("--read-only refuses try: a try changes the server's settings (drop "
                    "--read-only, or use benchtop run)");
    if (rc->try_set == NULL && rc->try_clients == 0 && rc->try_threads == 0 &&
        rc->try_pipeline == 0 && rc->try_protocol == NULL && !rc->try_connect && !rc->try_undo)
        usage_fatal("try needs what B changes: --set NAME=VALUE, --try-clients N, "
                    "--try-threads N, --try-pipeline N, --try-protocol MODE or --try-connect");
    if (rc->try_restart && rc->try_set == NULL)
        usage_fatal("--restart goes with --set NAME=VALUE (a restart-only setting to try)");
    if (rc->try_rounds * 2 > TRY_MAX_ROUNDS)
        usage_fatal("--rounds %d is too many (at most %d)", rc->try_rounds, TRY_MAX_ROUNDS / 2);
    if (rc->try_for_s < rc->interval_s)
        usage_fatal("--for %g is shorter than the interval -P %g (lengthen --for or shorten -P)",
                    rc->try_for_s, rc->interval_s);
}

/* "simple, extended, prepared": the driver's -M modes. */
static const char *
modes_text(const struct driver_class *d, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; d->modes != NULL && d->modes[i] != NULL && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", d->modes[i]);
    return buf;
}

/* B's client-side changes are ones this driver has. */
static void
check_client_side(const struct runconf *rc)
{
    const struct driver_class *d = rc->tgt.driver;
    char list[160];
    int i;

    if (rc->try_pipeline && (d->pipeline_depth == NULL || !d->pipelining))
        usage_fatal("--try-pipeline: %s's load does not pipeline requests (drop it; "
                    "--try-clients adds requests in flight)",
                    d->name);
    for (i = 0; rc->try_protocol != NULL && d->modes != NULL && d->modes[i] != NULL; i++)
        if (strcmp(d->modes[i], rc->try_protocol) == 0)
            break;
    if (rc->try_protocol != NULL && (d->modes == NULL || d->modes[i] == NULL))
        usage_fatal("--try-protocol %s: %s speaks %s (give one of them)", rc->try_protocol, d->name,
                    modes_text(d, list, sizeof list));
    if (rc->try_connect && rc->connect_per_txn)
        usage_fatal("--try-connect: A already opens a connection per transaction (drop -C or "
                    "--try-connect)");
}

/* The settings B changes: read what undoes them (restart-only refused), undo file written. */
static void
prepare_settings(struct try_run *t)
{
    struct runconf *rc = t->rc;
    char err[BT_ERRLEN], more[BT_ERRLEN];

    if (rc->try_set == NULL)
        return;
    if (tryset_parse(&t->set, rc->try_set, err) < 0)
        usage_fatal("%s", err);
    if (tryset_open(&t->set, collector_for(rc->tgt.driver->name), &rc->tgt, err) < 0)
        usage_fatal("%s", err);
    if (tryrun_pooler(&t->set, rc, 1, err) < 0 ||
        (rc->try_restart && tryset_restart_on(&t->set, rc->tgt.masked, err) < 0) ||
        tryset_save(&t->set, rc->tgt.masked, err) < 0) {
        tryset_finish(&t->set, more); /* nothing is applied yet: only closes */
        usage_fatal("%s", err);
    }
    tryset_guard(&t->set); /* any exit() on the way (a failed write) puts them back first */
}

/* B's change on the server; a refusal puts back what was set and ends with exit 2. */
static void
apply_b(struct try_run *t)
{
    char err[BT_ERRLEN];

    if (t->set.n == 0 || tryset_apply(&t->set, err) == 0)
        return;
    tryset_put_back(&t->set);
    usage_fatal("%s", err);
}

static void
revert_b(struct try_run *t)
{
    char err[BT_ERRLEN];

    if (t->set.n > 0 && tryset_revert(&t->set, err) < 0) {
        tryset_put_back(&t->set);
        fprintf(stderr, "benchtop: %s\n", err);
        exit(1);
    }
}

/* B's pipeline depth, protocol and -C on rc, or A's back (each a load of its own reads them). */
static void
client_side(struct try_run *t, int b)
{
    struct runconf *rc = t->rc;
    char depth[16];

    if (rc->try_pipeline) {
        snprintf(depth, sizeof depth, "%d", b ? rc->try_pipeline : t->a_pipeline);
        options_set(rc, "pipeline", depth); /* the driver's option struct reads it */
        rc->pipeline = rc->tgt.driver->pipeline_depth(rc->driver_conf);
    }
    rc->mode = b && rc->try_protocol ? rc->try_protocol : t->a_mode;
    rc->connect_per_txn = b && rc->try_connect ? 1 : t->a_connect;
}

/* One round's load: a one-step sweep (settle, then the measured part). */
static int
run_round(struct try_run *t, int clients, int threads, struct hist *lat, struct sweep_step *out)
{
    struct runconf *rc = t->rc;
    struct sweep *sw = xcalloc(1, sizeof *sw);
    struct launch_round round = {.json = t->out};
    int a_clients = rc->clients, a_threads = rc->threads, got;

    sw->axis = SWEEP_CLIENTS;
    sw->list.n = 1;
    sw->list.v[0] = clients;
    sw->warmup_s = rc->warmup_s;
    sw->step_s = rc->try_for_s;
    sw->clients = clients;
    sw->rate = rc->rate;
    sw->lat_into = lat;
    sweep_init(sw);
    rc->clients = clients;
    rc->threads = threads < clients ? threads : clients;
    /* a bound: the sweep ends the load after its one step, long before this */
    rc->duration_s = rc->warmup_s + rc->try_for_s + 10 * rc->interval_s + 10;
    launch_load(rc, sw, &round, cmd_front_end);
    rc->clients = a_clients;
    rc->threads = a_threads;
    got = sw->nsteps > 0;
    if (got)
        *out = sw->steps[0];
    sweep_free(sw);
    free(sw);
    return round.signo ? -round.signo : got ? 0 : 1;
}

static void
round_line(const struct try_run *t, const struct try_round *r)
{
    if (t->rc->quiet)
        return;
    fprintf(stderr, "round %d %s: %.1f tps, p99 %.2f ms, %llu errors, %s\n", t->n / 2 + 1,
            r->b ? "B" : "A", r->tps, r->p99_ms, (unsigned long long)r->errors,
            verdict_label(r->verdict));
}

/* One round of side b (0: A, 1: B), measured into t->rounds. */
static void
one_round(struct try_run *t, int b)
{
    struct runconf *rc = t->rc;
    struct try_round *r = &t->rounds[t->n];
    struct sweep_step st;
    int signo, rv;

    if ((signo = pending_signal(t->sigfd)) != 0)
        interrupted(t, signo);
    if (b)
        apply_b(t);
    client_side(t, b);
    rv = run_round(t, b && rc->try_clients ? rc->try_clients : rc->clients,
                   b && rc->try_threads ? rc->try_threads : rc->threads, t->lat[b], &st);
    client_side(t, 0);
    if (b)
        revert_b(t);
    if (rv < 0)
        interrupted(t, -rv);
    if (rv > 0) {
        tryset_put_back(&t->set);
        fatal("round %d ended before its measured part was done", t->n / 2 + 1);
    }
    try_round_from_step(&st, b, r);
    round_line(t, r);
    t->n++;
}

/* The pairs so far judged; each side's percentiles from its merged histogram. */
static void
judge(const struct try_run *t, struct try_result *res)
{
    try_judge(t->rounds, t->n, t->change, t->change == TRY_SETTING ? t->rc->try_set : NULL,
              &t->plan, res);
    try_side_latency(&res->a, t->lat[0]);
    try_side_latency(&res->b, t->lat[1]);
}

/*
 * The pairs, each AB or BA by the seeded draw, until the outcome is
 * decisive (from the first look on), --rounds is reached, or one more
 * pair, as long as the longest so far, would end after the --budget.
 */
static void
pairs(struct try_run *t, struct try_result *res)
{
    const struct runconf *rc = t->rc;
    uint64_t start = now_us(), last = start;
    double longest = 0, elapsed;
    int p;

    for (p = 1; p <= rc->try_rounds; p++) {
        int ba = (int)(rng_next(&t->order) >> 63);

        one_round(t, ba);
        one_round(t, !ba);
        longest = fmax(longest, (double)(now_us() - last) / 1e6);
        last = now_us();
        elapsed = (double)(last - start) / 1e6;
        judge(t, res);
        if (p < t->plan.first_look)
            continue;
        if (!rc->quiet)
            fprintf(stderr, "after %d pair%s: %s\n", p, p == 1 ? "" : "s", res->sentence);
        if (try_settled(res) || res->pairs == 0) { /* 0: a round finished nothing */
            snprintf(t->stop, sizeof t->stop, "%s after %d pairs",
                     try_decisive(res) ? "decisive" : "nothing to compare", p);
            return;
        }
        if (p < rc->try_rounds && elapsed + longest > t->budget_s) {
            snprintf(t->stop, sizeof t->stop,
                     "one more pair (%.0f s) would end after --budget %g s (at %.0f s now), "
                     "after %d pairs",
                     longest, t->budget_s, elapsed, p);
            return;
        }
    }
    snprintf(t->stop, sizeof t->stop, "--rounds %d reached", rc->try_rounds);
}

/* The table as try prints it and -o records it (src/records/tryreport.c). */
static void
report(const struct try_run *t, const struct try_result *res)
{
    struct try_table *tab = xcalloc(1, sizeof *tab);
    const struct runconf *rc = t->rc;

    snprintf(tab->target, sizeof tab->target, "%s", t->rc->tgt.masked);
    tryrun_change_text(&t->set,
                       &(struct try_client){rc->try_clients, rc->try_threads, rc->try_pipeline,
                                            rc->try_connect, rc->try_protocol},
                       tab->change, sizeof tab->change);
    tab->rounds = t->rc->try_rounds;
    tab->for_s = t->rc->try_for_s;
    tab->warmup_s = t->rc->warmup_s;
    tab->budget_s = t->budget_s;
    tab->seed = t->seed;
    snprintf(tab->stop, sizeof tab->stop, "%s", t->stop);
    tab->n = t->n;
    memcpy(tab->r, t->rounds, sizeof tab->r);
    tab->res = *res;
    try_table_print(stdout, tab);
    if (t->out != NULL)
        try_line_write(t->out, tab);
    free(tab);
}

/* try --undo: the leftover file's values put back (found by the server's identity). */
static int
undo(struct runconf *rc)
{
    struct tryset set = {0};
    char target[512], path[512], err[BT_ERRLEN];
    int i, found;

    if (tryset_open(&set, collector_for(rc->tgt.driver->name), &rc->tgt, err) < 0 ||
        (found = tryset_find_undo(&set, rc->tgt.masked, err)) < 0) {
        tryset_finish(&set, target);
        usage_fatal("%s", err);
    }
    if (!found) {
        tryset_finish(&set, err);
        fprintf(stderr, "benchtop: no try left settings changed on %s: nothing to put back\n",
                rc->tgt.masked);
        return 0;
    }
    snprintf(path, sizeof path, "%s", set.path);
    if (tryset_load(&set, path, target, sizeof target, err) < 0 ||
        tryrun_pooler(&set, rc, 0, err) < 0 ||
        (set.restart && tryset_restart_on(&set, rc->tgt.masked, err) < 0)) {
        set.applied = 0; /* nothing done: only closes, the file stays */
        set.path[0] = '\0';
        tryset_finish(&set, target);
        usage_fatal("%s", err);
    }
    if (tryset_finish(&set, err) < 0) {
        fprintf(stderr, "benchtop: %s (the undo file %s is kept)\n", err, set.path);
        return 1;
    }
    for (i = 0; i < set.n; i++) {
        fprintf(stderr, "benchtop: put %s back to ", set.orig[i].name);
        text_put(stderr, set.orig[i].value, TEXT_TERM);
        fputc('\n', stderr);
    }
    tryset_free(&set);
    return 0;
}

static void
open_output(struct try_run *t)
{
    if (t->rc->try_output == NULL)
        return;
    t->out = fopen(t->rc->try_output, "w");
    if (t->out == NULL)
        usage_fatal("cannot write -o %s: %s (check the path)", t->rc->try_output, strerror(errno));
}

/* What B changes, for the verdict's prediction: the first of them. */
static enum try_change
change_of(const struct runconf *rc)
{
    if (rc->try_set != NULL)
        return TRY_SETTING;
    if (rc->try_clients || rc->try_threads)
        return rc->try_clients ? TRY_CLIENTS : TRY_THREADS;
    if (rc->try_pipeline)
        return TRY_PIPELINE;
    return rc->try_protocol != NULL ? TRY_PROTOCOL : TRY_CONNECT;
}

static int
cmd_try_exec(struct runconf *rc, char **pos, int npos)
{
    struct try_run *t = xcalloc(1, sizeof *t);
    struct try_result res;

    if (npos != 1)
        usage_fatal(npos ? "unexpected argument '%s' (give one target; options start with -)"
                         : "no target given (e.g. benchtop try SCHEME://HOST/... --set NAME=VALUE)",
                    npos ? pos[1] : "");
    launch_target(rc, pos[0], 1);
    check_options(rc);
    if (rc->try_undo)
        return undo(rc);
    check_client_side(rc);
    t->rc = rc;
    t->change = change_of(rc);
    t->a_pipeline = rc->pipeline;
    t->a_connect = rc->connect_per_txn;
    t->a_mode = rc->mode;
    rc->headless = 1;
    if (rc->threads > rc->clients)
        rc->threads = rc->clients;
    t->sigfd = session_block_signals(); /* before the first change: a signal must not kill us */
    prepare_settings(t);
    open_output(t);
    t->plan = (struct try_plan){rc->try_min_effect / 100,
                                rc->try_rounds < TRY_FIRST_LOOK ? rc->try_rounds : TRY_FIRST_LOOK,
                                rc->try_rounds};
    t->budget_s = rc->budget_s > 0 ? rc->budget_s : TRY_BUDGET_S;
    t->lat[0] = hist_new();
    t->lat[1] = hist_new();
    t->seed = tryrun_seed(rc);
    rng_seed(&t->order, t->seed);
    pairs(t, &res);
    tryset_put_back(&t->set);
    report(t, &res);
    tryset_guard(NULL);
    tryset_free(&t->set);
    if (t->out != NULL && fclose(t->out) != 0)
        usage_fatal("cannot write -o %s: %s", rc->try_output, strerror(errno));
    hist_free(t->lat[0]);
    hist_free(t->lat[1]);
    free(t);
    return 0;
}

/* --set-values 'NAME=V1,V2,...' into sw's setting and values; exits 2 on a bad list. */
static void
values_parse(const char *text, struct sweep *sw)
{
    const char *eq = strchr(text, '='), *p, *end;

    if (eq == NULL || eq == text || (size_t)(eq - text) >= sizeof sw->setting || eq[1] == '\0')
        usage_fatal("--set-values '%s' is not NAME=V1,V2,... (e.g. work_mem=4MB,16MB,64MB)", text);
    snprintf(sw->setting, sizeof sw->setting, "%.*s", (int)(eq - text), text);
    for (p = eq + 1; *p; p = *end ? end + 1 : end) {
        end = p + strcspn(p, ",");
        if (end == p || (size_t)(end - p) >= sizeof sw->values[0] || sw->list.n == SWEEP_MAX_STEPS)
            usage_fatal("--set-values: an empty, too long (63) or 65th value in '%s'", text);
        snprintf(sw->values[sw->list.n++], sizeof sw->values[0], "%.*s", (int)(end - p), p);
    }
}

/* One step of a setting sweep: the value applied, one load measured (reverted at the end). */
static void
setting_step(struct try_run *t, struct sweep *sw, int i)
{
    struct sweep_step *st = &sw->steps[i];
    char err[BT_ERRLEN];
    int signo, rv;

    if ((signo = pending_signal(t->sigfd)) != 0)
        interrupted(t, signo);
    tryset_want(&t->set, 0, sw->values[i]);
    if (tryset_apply(&t->set, err) < 0) {
        tryset_put_back(&t->set);
        usage_fatal("%s", err);
    }
    rv = run_round(t, t->rc->clients, t->rc->threads, NULL, st);
    if (rv < 0)
        interrupted(t, -rv);
    if (rv > 0) {
        tryset_put_back(&t->set);
        fatal("step %d ended before its measured part was done", i + 1);
    }
    st->index = i;
    sw->nsteps = i + 1;
    report_step_json(stdout, sw, st);
}

int
cmd_try_sweep(struct runconf *rc)
{
    struct try_run *t = xcalloc(1, sizeof *t);
    struct sweep *sw = xcalloc(1, sizeof *sw);
    struct report_ctx ctx = {.rc = rc, .workload = rc->workload ? rc->workload : "default"};
    char text[256];
    int i;

    if (rc->read_only)
        usage_fatal("--read-only refuses --set-values: it changes the server's settings");
    values_parse(rc->sweep_set_values, sw);
    t->rc = rc;
    t->what = "sweep";
    rc->try_for_s = rc->step_s;
    rc->headless = 1;
    if (rc->threads > rc->clients)
        rc->threads = rc->clients;
    sw->axis = SWEEP_SETTING;
    sw->warmup_s = rc->warmup_s;
    sw->step_s = rc->step_s;
    sw->clients = rc->clients;
    t->sigfd = session_block_signals();
    snprintf(text, sizeof text, "%s=%s", sw->setting, sw->values[0]);
    rc->try_set = text;
    prepare_settings(t); /* reads what undoes it, refuses restart-only ones, writes the undo file */
    for (i = 0; i < sw->list.n; i++)
        setting_step(t, sw, i);
    tryset_put_back(&t->set);
    report_sweep_json(stdout, sw);
    if (!rc->quiet)
        report_sweep_table(stderr, sw, &ctx);
    tryset_guard(NULL);
    tryset_free(&t->set);
    free(sw);
    free(t);
    return 0;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_try_entry = {
    "try", CMD_TRY, cmd_try_exec,
    "benchtop try TARGET --set NAME=VALUE [--min-effect PCT] [--budget S] [--for S]",
    "A/B rounds until decisive: the server as it is against a setting (or clients, threads) "
    "changed, then put back"};
