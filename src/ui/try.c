/* try (ui): the dashboard's experiment (try.h). */
#include "try.h"

#include <math.h>
#include <string.h>

#include "base/text.h"
#include "base/util.h"
#include "analysis/account.h"
#include "records/output.h"

/* The pooler's name when one is watched (its pool size is the pool-bound experiment). */
static const char *
pooler_title(const struct session *s)
{
    for (int i = 0; i < s->ncollect; i++)
        if (s->role[i] == COLL_POOLER)
            return s->title[i];
    return NULL;
}

/* Why `t` cannot run now; NULL when it can. */
static const char *
refusal(const struct tui_try *tt, const struct session *s)
{
    if (s->rc->read_only)
        return "experiments are not run with --read-only (they change the server's settings)";
    if (s->eng == NULL || s->load_over)
        return s->eng ? "the load is over: no experiment" : "no load in watch mode: no experiment";
    if (s->sweep != NULL)
        return "the sweep sets the load: no experiment during it";
    if (tt->run.active)
        return "an experiment runs already (q stops it and puts the server back)";
    return NULL;
}

/* Rounds long enough for the run's own interval-to-interval noise (try_round_seconds). */
static double
round_length(const struct dash *d, const struct session *s)
{
    double delta = s->rc->try_min_effect > 0 ? s->rc->try_min_effect / 100 : TRY_MIN_EFFECT;

    return try_round_seconds(d->tps_hist, d->nhist, s->rc->interval_s, delta, TRYRUN_ROUND_S,
                             TRYRUN_ROUND_MAX_S);
}

int
tui_try_ask(struct tui_try *tt, struct dash *d, struct session *s, enum verdict_kind shown)
{
    const char *no = refusal(tt, s);
    struct try_situation in = {
        .kind = shown,
        .sig = s->have_sig ? &s->sig : NULL,
        .settings = tt->have_settings ? &tt->settings : NULL,
        .pooler = pooler_title(s),
        .clients = s->eng ? s->eng->clients : 0,
        .threads = s->eng ? s->eng->active : s->rc->threads,
        .max_threads = s->eng ? s->eng->nworkers : s->rc->threads,
        .quota_held = account_share(&s->now.acct, AS_QUOTA) >= 0.1,
        .advice = s->now.kind == shown && s->now.advice.n > 0 ? &s->now.advice.a[0] : NULL};
    char text[sizeof tt->p.text];

    if (no != NULL) {
        dash_event_add(d, ROW_WARN, "%s", no);
        return 0;
    }
    try_propose(&in, &tt->p);
    text_clean(text, sizeof text, tt->p.text); /* a setting's value is the server's text */
    if (!tt->p.ok) {
        dash_event_add(d, ROW_WARN, "%s", text);
        return 0;
    }
    snprintf(d->prompt, sizeof d->prompt,
             "try %.80s: A/B pairs of %.0f+%.0f s until decisive (3 to %d, %.0f s at most), "
             "then put back? y: yes, any other key: no",
             text, TRYRUN_SETTLE_S, round_length(d, s), TRYRUN_MAX_PAIRS,
             s->rc->budget_s > 0 ? s->rc->budget_s : TRY_BUDGET_S);
    return 1;
}

/* Pair i's row: its order, each side's tps and p99, B/A. */
static void
pair_row(const struct tryrun *r, int i, char *line, size_t len)
{
    const struct try_round *x = &r->r[2 * i], *y = &r->r[2 * i + 1];
    const struct try_round *a = x->b ? y : x, *b = x->b ? x : y;

    snprintf(line, len, "%-5d%-6s%10.1f%10.1f%+9.0f%%%10.2f%10.2f  %s", i + 1,
             r->ba[i] ? "BA" : "AB", a->tps, b->tps, a->tps > 0 ? (b->tps / a->tps - 1) * 100 : 0,
             a->p99_ms, b->p99_ms, verdict_label(a->verdict));
}

/*
 * The overlay's rows: what B changes, a row per pair (the latest that
 * fit), the round running, the interval so far, the result.
 */
static void
overlay(const struct tui_try *tt, struct dash *d, double now)
{
    const struct tryrun *r = &tt->run;
    struct dash_try *o = &d->trial;
    char change[sizeof r->text], text[sizeof r->res.prediction];
    int pairs = r->n / 2, room = DASH_TRY_LINES - 8, i;

    text_clean(change, sizeof change, r->text);
    o->n = 0;
    snprintf(o->lines[o->n++], sizeof o->lines[0],
             "B: %.90s; A: as it was; pairs AB or BA (seed %llu), 3 to %d", change,
             (unsigned long long)r->seed, r->rounds);
    snprintf(o->lines[o->n++], sizeof o->lines[0], "%-5s%-6s%10s%10s%10s%10s%10s  %s", "pair",
             "order", "A tps", "B tps", "B/A", "A p99 ms", "B p99 ms", "A's verdict");
    for (i = pairs > room ? pairs - room : 0; i < pairs; i++)
        pair_row(r, i, o->lines[o->n++], sizeof o->lines[0]);
    if (r->active)
        snprintf(o->lines[o->n++], sizeof o->lines[0], "%-5d%-6s%s %s %.0f of %.0f s", pairs + 1,
                 r->ba[pairs] ? "BA" : "AB", r->sw.lat_into == r->lat[1] ? "B" : "A",
                 r->sw.phase == SWEEP_WARMUP ? "settling" : "measuring",
                 fmax(0, now - r->sw.phase_t),
                 r->sw.phase == SWEEP_WARMUP ? r->settle_s : r->round_s);
    if (r->active && r->res.pairs >= 2) { /* the running interval: decides nothing before 3 */
        text_clean(text, sizeof text, r->res.sentence);
        snprintf(o->lines[o->n++], sizeof o->lines[0], "so far: %.140s", text);
    }
    if (r->done) {
        const char *lines[] = {r->res.sentence, r->res.note, r->res.prediction, r->stop};

        for (i = 0; i < 4; i++)
            if (lines[i][0]) {
                text_clean(text, sizeof text, lines[i]);
                snprintf(o->lines[o->n++], sizeof o->lines[0], "%s%.150s",
                         i == 3 ? "stopped: " : "", text);
            }
    }
    snprintf(o->lines[o->n++], sizeof o->lines[0], "%s",
             r->active ? "q stops it and puts the server back" : "any key closes this");
}

void
tui_try_answer(struct tui_try *tt, struct dash *d, struct session *s, int yes, double t)
{
    char err[BT_ERRLEN], text[BT_ERRLEN];
    const char *no;

    if (!yes) {
        dash_event_add(d, ROW_NORMAL, "no experiment run: nothing changed");
        return;
    }
    no = refusal(tt, s); /* the load may have ended while the question was up */
    if (no == NULL && tryrun_start(&tt->run, s->rc, s->eng, &tt->p, round_length(d, s), t, err) < 0)
        no = err;
    if (no != NULL) {
        text_clean(text, sizeof text, no);
        dash_event_add(d, ROW_BAD, "try: %s", text);
        return;
    }
    text_clean(text, sizeof text, tt->run.text);
    dash_event_add(d, ROW_NORMAL, "try %s: A/B pairs until decisive (3 to %d)", text,
                   tt->run.rounds);
    d->trial.shown = 1;
    overlay(tt, d, t);
}

/* A round finished: its figures as an event. */
static void
round_event(const struct tui_try *tt, struct dash *d)
{
    const struct try_round *r = &tt->run.r[tt->run.n - 1];

    dash_event_add(d, ROW_NORMAL, "try pair %d %s: %.0f tps, p99 %.2f ms", (tt->run.n - 1) / 2 + 1,
                   r->b ? "B" : "A", r->tps, r->p99_ms);
}

/* The result: the sentence in the events (and the record), the server back. */
static void
result(const struct tui_try *tt, struct dash *d, double t, FILE *record)
{
    const struct try_result *res = &tt->run.res;
    char text[sizeof tt->run.text], line[sizeof res->prediction];

    text_clean(text, sizeof text, tt->run.text);
    text_clean(line, sizeof line, res->sentence);
    dash_event_add(d, try_decisive(res) ? ROW_GOOD : ROW_NORMAL, "try %s: %s", text, line);
    if (res->note[0]) {
        text_clean(line, sizeof line, res->note);
        dash_event_add(d, ROW_WARN, "try: %s", line);
    }
    text_clean(line, sizeof line, res->prediction);
    /* put back first: the prediction with its range may run past the pane's edge */
    dash_event_add(d, ROW_NORMAL, "try: the server was put back; %s", line);
    if (record != NULL)
        report_try_event(record, t, tt->run.text, tt->run.seed, res);
}

void
tui_try_tick(struct tui_try *tt, struct dash *d, struct session *s, const struct snapshot *snap,
             const struct verdict *v, FILE *record)
{
    struct sweep_server srv;
    char err[BT_ERRLEN], text[BT_ERRLEN];
    int rv;

    if (!tt->run.active)
        return;
    if (snap->final) {
        rv = tryrun_abort(&tt->run, NULL, err);
        text_clean(text, sizeof text, rv < 0 ? err : "the server was put back");
        dash_event_add(d, rv < 0 ? ROW_BAD : ROW_WARN, "the load ended before the try did: %s",
                       text);
        return;
    }
    sweep_server_from(s->have_sig ? &s->sig : NULL, s->server_tps, &srv);
    rv = tryrun_tick(&tt->run, s->eng, snap, v, &srv, err);
    if (rv < 0) {
        text_clean(text, sizeof text, err);
        dash_event_add(d, ROW_BAD, "try stopped: %s", text);
    } else if (rv == TRYRUN_ROUND) {
        round_event(tt, d);
    } else if (rv == TRYRUN_DONE) {
        round_event(tt, d);
        result(tt, d, snap->t, record);
    }
    overlay(tt, d, snap->t);
}

int
tui_try_running(const struct tui_try *tt)
{
    return tt->run.active;
}

int
tui_try_end(struct tui_try *tt, char *err)
{
    return tryrun_abort(&tt->run, NULL, err);
}
