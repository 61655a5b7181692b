/*
 * try: `benchtop try TARGET --set NAME=VALUE`: the verdict's advice tested.
 * A (the server as it is) and B (the settings, clients or threads changed)
 * alternate in rounds, each a load of its own with a settle (--warmup) and
 * a measured part (--for), so that drift on a shared host falls on both
 * sides; src/analysis/trystat.c judges them.
 *
 * The server is always put back: the values that undo each setting are in
 * the undo file (src/engine/tryset.h) before the first change, B is
 * reverted after each B round, and a SIGINT, SIGTERM or SIGHUP ends the
 * round and reverts before exit. Signals are blocked from the start, so
 * one that comes between rounds waits on sigfd and is taken there.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cmd.h"
#include "analysis/sweep.h"
#include "analysis/trystat.h"
#include "base/json.h"
#include "base/util.h"
#include "engine/registry.h"
#include "engine/tryset.h"
#include "run/options.h"

struct try_run {
    struct runconf *rc;
    struct tryset set;
    enum try_change change;
    FILE *out; /* -o FILE, or NULL */
    int sigfd;
    int n;
    struct try_round rounds[TRY_MAX_ROUNDS];
};

/* Puts the server back; a failure says what is left and where the undo file is. */
static void
put_back(struct try_run *t)
{
    char err[BT_ERRLEN];

    if (t->set.n > 0 && tryset_finish(&t->set, err) < 0)
        fprintf(stderr,
                "benchtop: %s; the undo file %s keeps the original values (run "
                "benchtop try --undo TARGET)\n",
                err, t->set.path);
}

/* A signal ended a round or waits: revert, say so, and end with the shell's 128 + N. */
static void
interrupted(struct try_run *t, int signo)
{
    put_back(t);
    fprintf(stderr, "benchtop: try stopped by %s; the server's settings were put back\n",
            strsignal(signo));
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
    if (rc->try_set == NULL && rc->try_clients == 0 && rc->try_threads == 0 && !rc->try_undo)
        usage_fatal("try needs what B changes: --set NAME=VALUE, --try-clients N or "
                    "--try-threads N");
    if (rc->try_rounds * 2 > TRY_MAX_ROUNDS)
        usage_fatal("--rounds %d is too many (at most %d)", rc->try_rounds, TRY_MAX_ROUNDS / 2);
    if (rc->try_for_s < rc->interval_s)
        usage_fatal("--for %g is shorter than the interval -P %g (lengthen --for or shorten -P)",
                    rc->try_for_s, rc->interval_s);
}

/* A try that died left its undo file: say so in one line and stop. */
static void
check_leftover(const struct runconf *rc)
{
    char path[512], err[BT_ERRLEN];

    if (tryset_undo_path(rc->target_masked, path, sizeof path, err) < 0)
        usage_fatal("%s", err);
    if (access(path, F_OK) == 0)
        usage_fatal("a try on %s did not finish and left settings changed (%s): put them back "
                    "with benchtop try --undo TARGET",
                    rc->target_masked, path);
}

/* The settings B changes: read what undoes them (restart-only refused), undo file written. */
static void
prepare_settings(struct try_run *t)
{
    struct runconf *rc = t->rc;
    char err[BT_ERRLEN];

    if (rc->try_set == NULL)
        return;
    if (tryset_parse(&t->set, rc->try_set, err) < 0)
        usage_fatal("%s", err);
    if (tryset_open(&t->set, collector_for(rc->driver->name), rc->target, err) < 0)
        usage_fatal("%s", err);
    if (tryset_save(&t->set, rc->target_masked, err) < 0) {
        t->set.cls->close(t->set.conn);
        usage_fatal("%s", err);
    }
}

/* B's change on the server; a refusal puts back what was set and ends with exit 2. */
static void
apply_b(struct try_run *t)
{
    char err[BT_ERRLEN];

    if (t->set.n == 0 || tryset_apply(&t->set, err) == 0)
        return;
    put_back(t);
    usage_fatal("%s", err);
}

static void
revert_b(struct try_run *t)
{
    char err[BT_ERRLEN];

    if (t->set.n > 0 && tryset_revert(&t->set, err) < 0) {
        put_back(t);
        fprintf(stderr, "benchtop: %s\n", err);
        exit(1);
    }
}

/* One round's load: a one-step sweep (settle, then the measured part). */
static int
run_round(struct try_run *t, int clients, int threads, struct sweep_step *out)
{
    struct runconf *rc = t->rc;
    struct sweep *sw = xcalloc(1, sizeof *sw);
    struct cmd_round round = {.json = t->out};
    int a_clients = rc->clients, a_threads = rc->threads, got;

    sw->axis = SWEEP_CLIENTS;
    sw->list.n = 1;
    sw->list.v[0] = clients;
    sw->warmup_s = rc->warmup_s;
    sw->step_s = rc->try_for_s;
    sw->clients = clients;
    sw->rate = rc->rate;
    sweep_init(sw);
    rc->clients = clients;
    rc->threads = threads < clients ? threads : clients;
    /* a bound: the sweep ends the load after its one step, long before this */
    rc->duration_s = rc->warmup_s + rc->try_for_s + 10 * rc->interval_s + 10;
    cmd_run_round(rc, sw, &round);
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

/* Round i (even: A, odd: B), measured into t->rounds. */
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
    rv = run_round(t, b && rc->try_clients ? rc->try_clients : rc->clients,
                   b && rc->try_threads ? rc->try_threads : rc->threads, &st);
    if (b)
        revert_b(t);
    if (rv < 0)
        interrupted(t, -rv);
    if (rv > 0) {
        put_back(t);
        fatal("round %d ended before its measured part was done", t->n / 2 + 1);
    }
    r->b = b;
    r->clients = (int)st.clients;
    r->tps = st.tps;
    r->p50_ms = (double)st.lat.p50 / 1000.0;
    r->p95_ms = (double)st.lat.p95 / 1000.0;
    r->p99_ms = (double)st.lat.p99 / 1000.0;
    r->errors = sweep_step_errors(&st);
    r->verdict = st.verdict;
    round_line(t, r);
    t->n++;
}

static const char *
change_text(const struct try_run *t, char *buf, size_t len)
{
    size_t at = 0;
    int i;

    buf[0] = '\0';
    for (i = 0; i < t->set.n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", at ? ", " : "", t->set.want[i].name,
                               t->set.want[i].value);
    if (t->rc->try_clients && at < len)
        at += (size_t)snprintf(buf + at, len - at, "%s-c %d", at ? ", " : "", t->rc->try_clients);
    if (t->rc->try_threads && at < len)
        snprintf(buf + at, len - at, "%s-j %d", at ? ", " : "", t->rc->try_threads);
    return buf;
}

static double
pct(double b, double a)
{
    return a > 0 ? (b / a - 1) * 100 : 0;
}

/* The A/B table, the sentence and the prediction on stdout. */
static void
print_result(const struct try_run *t, const struct try_result *res)
{
    char what[512];
    const struct try_side *a = &res->a, *b = &res->b;

    printf("try %s: B = %s; %d rounds of %g s after %g s settle\n", t->rc->target_masked,
           change_text(t, what, sizeof what), t->rc->try_rounds, t->rc->try_for_s, t->rc->warmup_s);
    printf("%-6s %12s %10s %10s %10s %8s\n", "", "tps", "p50 ms", "p95 ms", "p99 ms", "errors");
    printf("%-6s %12.1f %10.2f %10.2f %10.2f %8llu\n", "A", a->tps, a->p50_ms, a->p95_ms, a->p99_ms,
           (unsigned long long)a->errors);
    printf("%-6s %12.1f %10.2f %10.2f %10.2f %8llu\n", "B", b->tps, b->p50_ms, b->p95_ms, b->p99_ms,
           (unsigned long long)b->errors);
    printf("%-6s %+11.0f%% %+9.0f%% %+9.0f%% %+9.0f%%\n", "B/A", pct(b->tps, a->tps),
           pct(b->p50_ms, a->p50_ms), pct(b->p95_ms, a->p95_ms), pct(b->p99_ms, a->p99_ms));
    printf("%s\n%s\n", res->sentence, res->prediction);
}

static void
side_json(FILE *f, const char *key, const struct try_side *s)
{
    fprintf(f, ",\"%s\":{\"rounds\":%d,\"clients\":%d", key, s->n, s->clients);
    json_member_num(f, "tps", s->tps);
    json_member_num(f, "p50_ms", s->p50_ms);
    json_member_num(f, "p95_ms", s->p95_ms);
    json_member_num(f, "p99_ms", s->p99_ms);
    fprintf(f, ",\"errors\":%llu}", (unsigned long long)s->errors);
}

/* The result as the record's last line ("type":"try"), for benchtop report. */
static void
result_json(const struct try_run *t, const struct try_result *res)
{
    char what[512];
    FILE *f = t->out;
    int i;

    if (f == NULL)
        return;
    fputs("{\"type\":\"try\"", f);
    json_member_str(f, "target", t->rc->target_masked);
    json_member_str(f, "change", change_text(t, what, sizeof what));
    fputs(",\"rounds\":[", f);
    for (i = 0; i < t->n; i++) {
        fprintf(f, "%s{\"side\":\"%s\"", i ? "," : "", t->rounds[i].b ? "B" : "A");
        json_member_num(f, "tps", t->rounds[i].tps);
        json_member_num(f, "p99_ms", t->rounds[i].p99_ms);
        json_member_str(f, "verdict", verdict_key(t->rounds[i].verdict));
        fputc('}', f);
    }
    fputc(']', f);
    side_json(f, "a", &res->a);
    side_json(f, "b", &res->b);
    json_member_num(f, "diff", res->diff);
    json_member_num(f, "band", res->band);
    fprintf(f, ",\"beyond_noise\":%s", res->beyond ? "true" : "false");
    json_member_str(f, "sentence", res->sentence);
    json_member_str(f, "verdict", verdict_key(res->verdict));
    json_member_str(f, "prediction", try_held_key(res->held));
    fputs("}\n", f);
}

/* try --undo: the leftover file's values put back. */
static int
undo(struct runconf *rc)
{
    struct tryset set = {0};
    char path[512], target[512], err[BT_ERRLEN];
    int i;

    if (tryset_undo_path(rc->target_masked, path, sizeof path, err) < 0)
        usage_fatal("%s", err);
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "benchtop: no try left settings changed on %s: nothing to put back\n",
                rc->target_masked);
        return 0;
    }
    if (tryset_load(&set, path, target, sizeof target, err) < 0 ||
        tryset_open(&set, collector_for(rc->driver->name), rc->target, err) < 0)
        usage_fatal("%s", err);
    if (tryset_finish(&set, err) < 0) {
        fprintf(stderr, "benchtop: %s (the undo file %s is kept)\n", err, path);
        return 1;
    }
    for (i = 0; i < set.n; i++)
        fprintf(stderr, "benchtop: put %s back to %s\n", set.orig[i].name, set.orig[i].value);
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

static int
cmd_try_exec(struct runconf *rc, char **pos, int npos)
{
    struct try_run *t = xcalloc(1, sizeof *t);
    struct try_result res;
    int i;

    if (npos != 1)
        usage_fatal(npos ? "unexpected argument '%s' (give one target; options start with -)"
                         : "no target given (e.g. benchtop try SCHEME://HOST/... --set NAME=VALUE)",
                    npos ? pos[1] : "");
    cmd_resolve_target(rc, pos[0], 1);
    check_options(rc);
    if (rc->try_undo)
        return undo(rc);
    check_leftover(rc);
    t->rc = rc;
    t->change = rc->try_set ? TRY_SETTING : rc->try_clients ? TRY_CLIENTS : TRY_THREADS;
    rc->headless = 1;
    if (rc->threads > rc->clients)
        rc->threads = rc->clients;
    t->sigfd = session_block_signals(); /* before the first change: a signal must not kill us */
    prepare_settings(t);
    open_output(t);
    for (i = 0; i < 2 * rc->try_rounds; i++)
        one_round(t, i % 2);
    put_back(t);
    try_judge(t->rounds, t->n, t->change, &res);
    print_result(t, &res);
    result_json(t, &res);
    if (t->out != NULL && fclose(t->out) != 0)
        usage_fatal("cannot write -o %s: %s", rc->try_output, strerror(errno));
    free(t);
    return 0;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_try_entry = {
    "try", CMD_TRY, cmd_try_exec, "benchtop try TARGET --set NAME=VALUE [--rounds N] [--for S]",
    "A/B rounds: the server as it is against a setting (or clients, threads) changed, then put "
    "back"};
