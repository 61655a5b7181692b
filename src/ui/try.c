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
             "try %.120s: %d A/B rounds of %.0f + %.0f s, then put back? y: yes, any other key: no",
             text, TRYRUN_ROUNDS, TRYRUN_SETTLE_S, TRYRUN_ROUND_S);
    return 1;
}

/* The overlay's rows: what B changes, a row per round, the one running, the result. */
static void
overlay(const struct tui_try *tt, struct dash *d, double now)
{
    const struct tryrun *r = &tt->run;
    struct dash_try *o = &d->trial;
    char change[sizeof r->text];

    text_clean(change, sizeof change, r->text);
    o->n = 0;
    snprintf(o->lines[o->n++], sizeof o->lines[0], "B: %.100s; A: as it was; %d rounds each side",
             change, r->rounds);
    snprintf(o->lines[o->n++], sizeof o->lines[0], "%-6s%-5s%10s%10s%10s%8s  %s", "round", "side",
             "tps", "p50 ms", "p99 ms", "errors", "verdict");
    for (int i = 0; i < r->n && o->n < DASH_TRY_LINES - 3; i++)
        snprintf(o->lines[o->n++], sizeof o->lines[0], "%-6d%-5s%10.1f%10.2f%10.2f%8llu  %s",
                 i / 2 + 1, r->r[i].b ? "B" : "A", r->r[i].tps, r->r[i].p50_ms, r->r[i].p99_ms,
                 (unsigned long long)r->r[i].errors, verdict_label(r->r[i].verdict));
    if (r->active)
        snprintf(o->lines[o->n++], sizeof o->lines[0], "%-6d%-5s%s %.0f of %.0f s", r->n / 2 + 1,
                 r->n % 2 ? "B" : "A", r->sw.phase == SWEEP_WARMUP ? "settling" : "measuring",
                 fmax(0, now - r->sw.phase_t),
                 r->sw.phase == SWEEP_WARMUP ? r->settle_s : r->round_s);
    if (r->done) {
        snprintf(o->lines[o->n++], sizeof o->lines[0], "%.150s", r->res.sentence);
        snprintf(o->lines[o->n++], sizeof o->lines[0], "%.150s", r->res.prediction);
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
    if (no == NULL && tryrun_start(&tt->run, s->rc, s->eng, &tt->p, t, err) < 0)
        no = err;
    if (no != NULL) {
        text_clean(text, sizeof text, no);
        dash_event_add(d, ROW_BAD, "try: %s", text);
        return;
    }
    text_clean(text, sizeof text, tt->run.text);
    dash_event_add(d, ROW_NORMAL, "try %s: %d A/B rounds", text, tt->run.rounds);
    d->trial.shown = 1;
    overlay(tt, d, t);
}

/* A round finished: its figures as an event. */
static void
round_event(const struct tui_try *tt, struct dash *d)
{
    const struct try_round *r = &tt->run.r[tt->run.n - 1];

    dash_event_add(d, ROW_NORMAL, "try round %d %s: %.0f tps, p99 %.2f ms", (tt->run.n - 1) / 2 + 1,
                   r->b ? "B" : "A", r->tps, r->p99_ms);
}

/* The result: the sentence in the events (and the record), the server back. */
static void
result(const struct tui_try *tt, struct dash *d, double t, FILE *record)
{
    const struct try_result *res = &tt->run.res;
    char text[sizeof tt->run.text];

    text_clean(text, sizeof text, tt->run.text);
    dash_event_add(d, res->beyond ? ROW_GOOD : ROW_NORMAL, "try %s: %s", text, res->sentence);
    dash_event_add(d, ROW_NORMAL, "try: %s; the server was put back", res->prediction);
    if (record != NULL)
        report_try_event(record, t, tt->run.text, res);
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
