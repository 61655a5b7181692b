/* tui: the dashboard's hooks, keys and drawing (see tui.h). */
#include "tui.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dash.h"
#include "base/cpu.h"
#include "base/hist.h"
#include "base/text.h"
#include "keys.h"
#include "prompt.h"
#include "screen.h"
#include "segment.h"
#include "records/run-output.h"
#include "records/sweep-output.h"
#include "theme.h"
#include "try.h"
#include "base/util.h"
#include "analysis/watch.h"

struct tui {
    struct dash d;
    struct grid *g;
    const struct tui_conf *conf;
    struct session *s;
    struct report_ctx record; /* the --record file: JSON only, never the human text */
    double last_cpu_s;
    uint64_t last_cpu_us;
    double last_server_tps;
    double last_tick_s; /* the run's clock at the last tick that pushed a history point */
    int have_summary;
    enum verdict_kind last_verdict;
    double prev_tps;             /* the interval before the last, for a steadier "before" */
    struct host_split last_host; /* the last interval's host CPU split */
    struct {                     /* a +/- waiting to be compared with the verdict's prediction */
        int pending;             /* intervals to wait before measuring; 0 = none */
        int clients;             /* before the change */
        double tps;
        enum verdict_kind kind; /* the verdict shown before the change */
        struct host_split host; /* ... and the host's CPU split then */
    } step;
    struct prompt prompt;
    struct segments seg;
    struct report_seen seen[SESSION_MAX_COLLECT]; /* what the record holds of each collector */
    uint64_t applied[SESSION_MAX_COLLECT];        /* apply answers shown */
    char set_name[40], set_value[64];             /* set from here: its change is no second cut */
    uint64_t killed;                              /* kill answers shown (the first server's) */
    struct {                                      /* C, K or t waiting for its y */
        int active, terminate, trying;
        char id[24];
    } confirm;
    struct tui_try trial; /* t: the verdict's experiment */
};

enum { STEP_SETTLE = 3 }; /* intervals after +/- before tps counts: the change's own is mixed */

/*
 * The first failed write to --record (a full disk): said at once on the
 * dashboard, and recording stops so that the record ends at a whole line
 * (the run goes on). The exit status still says lines were lost.
 */
static void
record_check(struct tui *t)
{
    char name[128];
    int e = errno; /* the failed write's, if the flush in the line's writer failed */

    if (t->record.json == NULL || (fflush(t->record.json) == 0 && !ferror(t->record.json)))
        return;
    if (errno == ENOSPC || errno == EDQUOT || errno == EIO || errno == EFBIG)
        e = errno; /* this flush failed too: its reason is the fresher */
    snprintf(t->d.record_stop, sizeof t->d.record_stop, "recording stopped: %s",
             e ? strerror(e) : "write error");
    t->conf->report->json_errno = e;
    text_clean(name, sizeof name, t->s->rc->record ? t->s->rc->record : "the record");
    dash_event_add(&t->d, ROW_BAD, "%s (%s ends here; the run goes on)", t->d.record_stop, name);
    t->record.json = NULL;
}

/* benchtop's CPU since the last call, % of one core. */
static void
update_cpu(struct tui *t)
{
    double cpu = cpu_process_seconds();
    uint64_t now = now_us();

    if (t->last_cpu_us != 0 && now > t->last_cpu_us)
        t->d.own_cpu_pct = (cpu - t->last_cpu_s) * 1e8 / (double)(now - t->last_cpu_us);
    t->last_cpu_s = cpu;
    t->last_cpu_us = now;
}

static void
redraw(struct tui *t)
{
    int w, h;

    screen_size(&w, &h);
    if (t->g == NULL || t->g->w != w || t->g->h != h) {
        grid_free(t->g);
        t->g = grid_new(w, h);
    }
    layout_draw(&t->d, t->g);
    screen_draw(t->g);
}

static enum run_state
state_of(const struct tui *t, const struct snapshot *snap)
{
    const struct wstats *c = &snap->cur;

    if (snap->final)
        return RUN_DONE;
    if (t->s->eng && t->s->eng->paused)
        return RUN_PAUSED;
    if (c->connected < (uint64_t)snap->clients && (c->errors[ERR_CONN] || c->connect_fails))
        return RUN_RECONNECTING;
    return RUN_RUNNING;
}

static void
note_interval_events(struct tui *t, const struct snapshot *snap)
{
    const struct wstats *c = &snap->cur;
    uint64_t errs = wstats_errors(c);

    if (errs)
        dash_event_add(&t->d, c->errors[ERR_CONN] ? ROW_BAD : ROW_WARN,
                       "%llu failed transactions: %s", (unsigned long long)errs, c->last_error);
    if (c->reconnects)
        dash_event_add(&t->d, ROW_GOOD, "%llu connections re-established",
                       (unsigned long long)c->reconnects);
}

/* "CLIENT-BOUND (clear): figures"; a change of verdict is also an event. */
static void
show_verdict(struct tui *t, const struct verdict *v)
{
    char label[48], head[96], advice[160] = "";
    size_t i;

    if (v->kind == VK_NONE && strcmp(v->evidence, "warming up") == 0) {
        t->d.verdict[0] = '\0';
        return;
    }
    if (v->final) {
        verdict_final_text(v, t->d.verdict, sizeof(t->d.verdict));
        t->d.verdict_level = ROW_NORMAL;
        return;
    }
    snprintf(label, sizeof(label), "%s",
             v->kind == VK_NONE ? "no verdict" : verdict_label(v->kind));
    for (i = 0; label[i]; i++)
        label[i] = (char)toupper((unsigned char)label[i]);
    if (v->kind == VK_NONE)
        snprintf(head, sizeof head, "%s", label);
    else
        snprintf(head, sizeof head, "%s (%s)", label, v->confidence);
    if (v->kind != VK_NONE && v->advice.n > 0)
        advice_text(&v->advice.a[0], advice, sizeof advice);
    dash_verdict_line(t->d.verdict, sizeof(t->d.verdict), head, advice, v->evidence);
    t->d.verdict_level = v->kind == VK_UNDERLOADED ? ROW_GOOD : ROW_WARN;
    if (v->kind != t->last_verdict)
        dash_event_add(&t->d, ROW_NORMAL, "limit: %s", verdict_label(v->kind));
    t->last_verdict = v->kind;
}

/* A finished step: its row, and an event line. */
static void
add_sweep_row(struct tui *t, const struct sweep *sw, const struct sweep_step *st)
{
    struct dash_sweep_row *row = &t->d.sweep.rows[t->d.sweep.nrows++];
    char load[48];

    row->x = sweep_step_x(st, sw->axis);
    row->tps = st->tps;
    row->p50_us = (double)st->lat.p50;
    row->p99_us = (double)st->lat.p99;
    row->errors = sweep_step_errors(st);
    snprintf(row->verdict, sizeof(row->verdict), "%s", verdict_label(st->verdict));
    row->probe = st->probe;
    row->met = st->slo_met;
    dash_event_add(&t->d, ROW_NORMAL, "step %d done: %s, %.0f tps, p95 %.2f ms, p99 %.2f ms",
                   st->index + 1, sweep_load_text(sw, st, load, sizeof(load)), st->tps,
                   (double)st->lat.p95 / 1000.0, (double)st->lat.p99 / 1000.0);
}

/* The sweep pane's rows, the step running now, and the finding so far. */
static void
update_sweep(struct tui *t, const struct sweep *sw, const struct snapshot *snap)
{
    struct dash_sweep *ds = &t->d.sweep;

    while (ds->nrows < sw->nsteps && ds->nrows < DASH_SWEEP_ROWS)
        add_sweep_row(t, sw, &sw->steps[ds->nrows]);
    ds->running = sw->phase != SWEEP_DONE && !snap->final;
    ds->running_x = sw->x;
    ds->warming = sw->phase == SWEEP_WARMUP;
    ds->running_s = snap->t - sw->warmup_t;
    ds->step_s = sw->warmup_s + sw->step_s;
    ds->knee = sw->find_rate ? -1 : sweep_knee(sw->steps, sw->nsteps, sw->axis);
    if (sw->find_rate)
        sweep_find_text(sw, ds->finding, sizeof(ds->finding));
    else if (ds->knee >= 0 || sw->phase == SWEEP_DONE)
        sweep_knee_text(sw, ds->finding, sizeof(ds->finding));
    if (sw->find_rate && sw->phase != SWEEP_DONE)
        ds->finding[0] = '\0'; /* the search's answer is only known at its end */
}

/*
 * After +/-, once the new client count has run STEP_SETTLE intervals: did
 * tps move as the verdict predicted? The lower step's verdict is the one
 * checked: before the change for +, after it for -.
 */
static void
check_step(struct tui *t, const struct snapshot *snap, const struct verdict *v)
{
    int now = snap->clients, before = t->step.clients, more = now > before;
    struct verdict_point then, cur;
    enum verdict_check c;
    char text[160];

    if (t->step.pending == 0 || --t->step.pending > 0)
        return;
    if (now == before || !(t->step.tps > 0))
        return;
    verdict_point_init(&then, t->step.kind, before, t->step.tps, t->step.kind == VK_LOCK);
    then.host = t->step.host;
    verdict_point_init(&cur, v->kind, now, t->d.tps, verdict_has(v, VK_LOCK));
    cur.host = v->host;
    c = more ? verdict_check(&then, &cur) : verdict_check(&cur, &then);
    if (more)
        verdict_check_text(c, &then, &cur, text, sizeof(text));
    else
        verdict_check_text(c, &cur, &then, text, sizeof(text));
    if (more)
        t->s->gain_per_doubling = verdict_gain_per_doubling(before, t->step.tps, now, t->d.tps);
    dash_event_add(&t->d, c == VC_CONTRADICTED ? ROW_WARN : ROW_NORMAL,
                   "%s %d client%s: tps %+.0f%%, %s", more ? "added" : "removed", abs(now - before),
                   abs(now - before) == 1 ? "" : "s", 100 * (t->d.tps / t->step.tps - 1), text);
}

/* watch: the server's side alone, labelled so: there is no load of ours to judge. */
static void
show_server_verdict(struct tui *t, const struct verdict *v)
{
    const char *label = watch_label(v);

    snprintf(t->d.verdict, sizeof(t->d.verdict), "server-side: %s: %.240s", label, v->evidence);
    t->d.verdict_level = v->kind == VK_UNDERLOADED || v->kind == VK_NONE ? ROW_NORMAL : ROW_WARN;
    if (v->kind != t->last_verdict)
        dash_event_add(&t->d, ROW_NORMAL, "server-side: %s", label);
    t->last_verdict = v->kind;
}

static void
on_tick(struct session *s, const struct snapshot *snap, const struct verdict *v, void *arg)
{
    struct tui *t = arg;
    struct dash *d = &t->d;
    double secs = snap->interval_s > 0 ? snap->interval_s : 1;

    d->elapsed_s = snap->t;
    d->clients = snap->clients;
    d->connected = (int)snap->cur.connected;
    d->rate = s->eng ? s->eng->rate : 0;
    d->tps = (double)snap->cur.txns / secs;
    d->ops = (double)snap->cur.ops / secs;
    d->rx_bytes_s = (double)snap->cur.rx_bytes / secs;
    d->errors = wstats_errors(&snap->cur);
    d->errors_total = wstats_errors(&snap->total);
    d->failed_pct = 100.0 * wstats_failed_share(&snap->cur);
    d->reconnects_total = snap->total.reconnects;
    d->retried_total = snap->total.retried;
    d->retries_total = snap->total.retries;
    d->late_total = snap->total.late;
    d->txns_total = snap->total.txns;
    d->state = state_of(t, snap);
    d->server_tps = t->last_server_tps;
    hist_summarize(snap->cur.lat, &d->lat_cur);
    hist_summarize(snap->total.lat, &d->lat_total);
    hist_log2_counts(snap->total.lat, d->lat_log2, DASH_LOG2);
    segments_add(&t->seg, snap->cur.lat, snap->cur.txns, snap->interval_s);
    segments_show(&t->seg, d);
    d->own_cpu_pct = snap->own_cpu_pct;
    if (!snap->final || snap->interval_s > 0.05)
        dash_history_push(d, d->tps, d->server_tps);
    t->last_tick_s = snap->t;
    show_verdict(t, v);
    if (!snap->final)
        check_step(t, snap, v);
    t->prev_tps = d->tps;
    t->last_host = v->host;
    note_interval_events(t, snap);
    tui_try_tick(&t->trial, d, s, snap, v, t->record.json);
    if (s->sweep != NULL)
        update_sweep(t, s->sweep, snap);
    if (snap->final)
        dash_event_add(d, ROW_NORMAL, "load finished: %llu transactions (press q to quit)",
                       (unsigned long long)snap->total.txns);
    if (t->record.json)
        report_snapshot(snap, v, &t->record);
    record_check(t);
    t->have_summary = snap->final;
    redraw(t);
}

/* When a result's sample was taken, on the run's clock: its round trip ago. */
static double
sample_taken_s(const struct session *s, const struct collect_result *res)
{
    return ((double)(now_us() - s->start_us) - res->cost_ms * 1000.0) / 1e6;
}

static void
on_idle_tick(struct session *s, void *arg)
{
    struct tui *t = arg;

    if (!s->eng) /* after a load the clock stays at its end */
        t->d.elapsed_s = (double)(now_us() - s->start_us) / 1e6;
    update_cpu(t);
    if (!s->eng)
        dash_history_push(&t->d, NAN, t->last_server_tps);
    redraw(t);
}

/* A new segment starts at a setting change or a marker; the panes show before / since. */
static void
cut(struct tui *t, const char *label)
{
    segments_cut(&t->seg, label);
    segments_show(&t->seg, &t->d);
}

/* The answer to a setting the user set from here. */
static void
note_applied(struct tui *t, int i, const struct collect_result *res)
{
    const char *name = t->d.servers[i].name;
    char label[128];

    t->applied[i] = res->applied;
    if (!res->apply_ok) {
        dash_event_add(&t->d, ROW_BAD, "%s: %s", name, res->apply_error);
        return;
    }
    dash_event_add(&t->d, ROW_GOOD, "%s: set %s = %s", name, res->apply_name, res->apply_value);
    snprintf(t->set_name, sizeof(t->set_name), "%s", res->apply_name);
    snprintf(t->set_value, sizeof(t->set_value), "%s", res->apply_value);
    snprintf(label, sizeof(label), "%s = %s", res->apply_name, res->apply_value);
    cut(t, label);
}

/* Settings that changed between two reads, whoever changed them. */
static void
note_changes(struct tui *t, int i, const struct collect_result *res)
{
    char label[128];

    for (int k = 0; k < res->nchanges; k++) {
        const struct coll_change *ch = &res->changes[k];

        dash_event_add(&t->d, ROW_WARN, "%s: %s: %s -> %s", t->d.servers[i].name, ch->name,
                       ch->from, ch->to);
        if (strcasecmp(ch->name, t->set_name) == 0) { /* ours: already cut when it was set */
            t->set_name[0] = '\0';
            continue;
        }
        snprintf(label, sizeof(label), "%s = %s", ch->name, ch->to);
        cut(t, label);
    }
}

/* The selected session's row by its id, so the selection follows it when the order changes. */
static void
keep_selection(struct dash_sessions *ss, const char *id)
{
    for (int k = 0; k < ss->list.n; k++)
        if (strcmp(ss->list.s[k].id, id) == 0) {
            ss->sel = k;
            return;
        }
    if (ss->sel >= ss->list.n)
        ss->sel = ss->list.n > 0 ? ss->list.n - 1 : 0;
}

static const struct coll_session *
selected(const struct dash_sessions *ss)
{
    return ss->have && ss->sel >= 0 && ss->sel < ss->list.n ? &ss->list.s[ss->sel] : NULL;
}

/* The lists cost a query per sample: read only the one on the screen. */
static void
want_sessions(struct tui *t)
{
    int seen = t->d.zoom == 7 || (t->d.zoom == 0 && t->d.sessions.shown);

    if (t->s->ncollect == 0)
        return;
    collect_want_sessions(t->s->collect[0], seen && !t->d.sessions.top);
    collect_want_statements(t->s->collect[0], seen && t->d.sessions.top);
}

/* The first server's sessions list, sorted, and the answer to a C or K. */
static void
update_sessions(struct tui *t, const struct collect_result *res)
{
    struct dash_sessions *ss = &t->d.sessions;
    const struct coll_session *cur = selected(ss);
    char id[24], clean[200];

    snprintf(id, sizeof id, "%s", cur ? cur->id : "");
    if (res->have_sessions) {
        ss->list = res->sessions;
        dash_sessions_sort(&ss->list, ss->sort);
        keep_selection(ss, id);
    }
    ss->have = res->have_sessions || (ss->have && res->sessions_error[0] == '\0');
    text_clean(ss->error, sizeof ss->error, res->sessions_error);
    if (res->have_statements)
        ss->statements = res->statements;
    ss->have_top = res->have_statements || (ss->have_top && res->statements_error[0] == '\0');
    text_clean(ss->top_error, sizeof ss->top_error, res->statements_error);
    if (res->killed == t->killed)
        return;
    t->killed = res->killed;
    text_clean(clean, sizeof clean, res->kill_ok ? res->kill_id : res->kill_error);
    if (res->kill_ok)
        dash_event_add(&t->d, ROW_GOOD, "%s session %s",
                       res->kill_terminate ? "terminated" : "cancelled the query of", clean);
    else
        dash_event_add(&t->d, ROW_BAD, "%s", clean);
}

static void
on_server(struct session *s, int i, const struct collect_result *res, const struct verdict *v,
          void *arg)
{
    struct tui *t = arg;
    struct dash_server *ds = &t->d.servers[i];
    /* one event per failure, not one per "no answer for N s" while it lasts */
    int k, news = ds->ok || strncmp(ds->error, res->error, 12) != 0;

    ds->ok = res->ok;
    ds->have_view = res->have_view;
    ds->cost_ms = res->cost_ms;
    ds->late = res->late;
    snprintf(ds->error, sizeof(ds->error), "%s", res->error);
    if (res->have_view) {
        ds->view = res->view;
        t->last_server_tps = t->s->server_tps; /* the verdict's database's */
        for (k = 0; k < res->view.nevents; k++)
            dash_event_add(&t->d, ROW_NORMAL, "%s: %s", ds->name, res->view.events[k]);
    }
    if (!res->ok) {
        t->last_server_tps = t->s->server_tps; /* not the figure from before a failure */
        if (news)
            dash_event_add(&t->d, ROW_BAD, "%s: %s", ds->name, res->error);
    }
    if ((res->have_view || !res->ok) && t->s->eng != NULL && !t->s->load_over)
        dash_server_sample(&t->d, t->last_server_tps, sample_taken_s(t->s, res), t->last_tick_s,
                           t->s->interval_s);
    else if ((res->have_view || !res->ok) && t->s->eng == NULL && t->s->follow == NULL)
        t->d.server_tps = t->last_server_tps; /* watch: no tick of a load sets the header's */
    if (v != NULL && i == 0)
        show_server_verdict(t, v);
    if (i == 0)
        update_sessions(t, res);
    if (i == 0 && res->have_settings) { /* t's memory experiment reads the cache's size */
        t->trial.settings = res->settings;
        t->trial.have_settings = 1;
    }
    if (res->applied != t->applied[i])
        note_applied(t, i, res);
    note_changes(t, i, res);
    if (t->record.json) {
        report_server(t->record.json, res->t, ds->name, ds->target, res, v,
                      t->s->rc->record_queries);
        report_settings_events(t->record.json, ds->name, res, &t->seen[i]);
        record_check(t);
    }
    redraw(t);
}

/* watch --records: a server sample of the agents' records, as collector i of our own. */
static void
on_record_server(struct session *s, int i, const struct follow_server *fs, void *arg)
{
    struct tui *t = arg;
    struct dash_server *ds = &t->d.servers[i];

    if (i >= DASH_SERVERS)
        return;
    if (i >= t->d.nservers) {
        t->d.nservers = i + 1;
        snprintf(ds->name, sizeof ds->name, "%s", fs->name);
        snprintf(ds->target, sizeof ds->target, "%s", fs->target);
    }
    on_server(s, i, &fs->res, NULL, arg);
    if (i == s->ncollect) /* the fleet's server beside the fleet's tps */
        t->last_server_tps = fs->res.have_view ? fs->res.view.server_tps : NAN;
}

/* watch --records: the countdown before the fleet starts, "done" when every agent ended. */
static void
on_follow(struct session *s, const struct follow_state *st, void *arg)
{
    struct tui *t = arg;

    if (t->d.state == RUN_DONE) /* said once; the figures stay until q */
        return;
    follow_status_text(st, wall_now(), t->d.status, sizeof t->d.status);
    if (!st->done)
        return;
    t->d.state = RUN_DONE;
    dash_event_add(&t->d, ROW_GOOD, "fleet %s (press q to quit)", t->d.status);
    redraw(t);
}

static void
change_clients(struct tui *t, int delta)
{
    struct engine *e = t->s->eng;
    int before = e->clients;

    if (t->step.pending == 0) { /* a second press extends the step being measured */
        t->step.clients = before;
        t->step.tps = t->prev_tps > 0 ? (t->prev_tps + t->d.tps) / 2 : t->d.tps;
        t->step.kind = t->last_verdict;
        t->step.host = t->last_host;
    }
    t->step.pending = STEP_SETTLE;
    engine_set_clients(e, e->clients + delta);
    dash_event_add(&t->d, ROW_NORMAL, "clients %d -> %d", before, e->clients);
    t->d.clients = e->clients;
}

/* r / R: 10% steps; from a closed loop, the first step starts at the current tps. */
static void
change_rate(struct tui *t, double factor)
{
    struct engine *e = t->s->eng;
    double base = e->rate > 0 ? e->rate : t->d.tps;

    if (base <= 0) {
        dash_event_add(&t->d, ROW_WARN, "no throughput yet to base a rate on");
        return;
    }
    engine_set_rate(e, ceil(base * factor));
    t->d.rate = e->rate;
    dash_event_add(&t->d, ROW_NORMAL, "target rate %.0f tps (open loop)", e->rate);
}

static void
change_interval(struct tui *t, double factor)
{
    double v = t->s->interval_s * factor;

    v = v < 0.1 ? 0.1 : v > 60 ? 60 : v;
    session_set_interval(t->s, v);
    t->d.interval_s = v;
    dash_event_add(&t->d, ROW_NORMAL, "refresh interval %.2g s", v);
}

static int
load_key(struct tui *t, enum key_action act)
{
    struct engine *e = t->s->eng;

    if (e == NULL || t->s->load_over) {
        dash_event_add(&t->d, ROW_WARN, "%s", e ? "the load is over" : "no load in watch mode");
        return 0;
    }
    if (t->s->sweep != NULL || tui_try_running(&t->trial)) { /* it would spoil the figures */
        dash_event_add(&t->d, ROW_WARN, "the %s sets the load: space + - r R are off",
                       t->s->sweep ? "sweep" : "try");
        return 0;
    }
    if (act == KEY_ACT_PAUSE) {
        engine_set_paused(e, !e->paused);
        t->d.state = e->paused ? RUN_PAUSED : RUN_RUNNING;
        dash_event_add(&t->d, ROW_NORMAL, "%s", e->paused ? "paused" : "resumed");
    } else if (act == KEY_ACT_MORE_CLIENTS || act == KEY_ACT_FEWER_CLIENTS) {
        change_clients(t, act == KEY_ACT_MORE_CLIENTS ? 1 : -1);
    } else {
        change_rate(t, act == KEY_ACT_RAISE_RATE ? 1.1 : 0.9);
    }
    return 0;
}

/* s: the prompt, unless --read-only or there is no server to set. */
static void
ask_setting(struct tui *t)
{
    if (t->s->rc->read_only)
        dash_event_add(&t->d, ROW_WARN, "settings are not changed with --read-only");
    else if (t->s->ncollect == 0)
        dash_event_add(&t->d, ROW_WARN, "no server is watched (--no-collect): nothing to set");
    else
        prompt_open(&t->prompt, PROMPT_SETTING);
}

static void
set_setting(struct tui *t, const char *text)
{
    char name[40], value[64], err[BT_ERRLEN];

    if (prompt_split_setting(text, name, sizeof(name), value, sizeof(value), err) < 0 ||
        collect_apply(t->s->collect[0], name, value, err) < 0)
        dash_event_add(&t->d, ROW_BAD, "%s", err);
}

static void
add_marker(struct tui *t, const char *text)
{
    char label[sizeof(t->prompt.text)];

    if (text[0] != '\0')
        snprintf(label, sizeof(label), "%s", text);
    else
        snprintf(label, sizeof(label), "marker %d", t->seg.cuts + 1);
    dash_event_add(&t->d, ROW_NORMAL, "marker: %s", label);
    if (t->record.json)
        report_marker(t->record.json, (double)(now_us() - t->s->start_us) / 1e6, label);
    record_check(t);
    cut(t, label);
}

/* A key while the prompt is open: edits it; Enter acts on the text. */
static void
prompt_input(struct tui *t, int key)
{
    enum prompt_kind kind = t->prompt.kind;

    if (prompt_key(&t->prompt, key) == PROMPT_DONE) {
        if (kind == PROMPT_SETTING)
            set_setting(t, t->prompt.text);
        else
            add_marker(t, t->prompt.text);
    }
}

/* Whether the keys move the sessions' selection (else they scroll a zoomed pane). */
static int
sessions_in_view(const struct dash *d)
{
    return d->zoom == 7 || (d->zoom == 0 && d->sessions.shown && !d->load);
}

static void
move_selection(struct tui *t, enum key_action act)
{
    struct dash_sessions *ss = &t->d.sessions;
    int page = 10, n = ss->top ? ss->statements.n : ss->list.n;
    int saved = ss->sel;

    if (ss->top)
        ss->sel = ss->top_sel; /* the statements scroll by their first row shown */

    switch (act) {
    case KEY_ACT_UP:
        ss->sel--;
        break;
    case KEY_ACT_DOWN:
        ss->sel++;
        break;
    case KEY_ACT_PAGE_UP:
        ss->sel -= page;
        break;
    case KEY_ACT_PAGE_DOWN:
        ss->sel += page;
        break;
    case KEY_ACT_HOME:
        ss->sel = 0;
        break;
    default:
        ss->sel = n - 1;
        break;
    }
    ss->sel = ss->sel >= n ? n - 1 : ss->sel;
    ss->sel = ss->sel < 0 ? 0 : ss->sel;
    if (ss->top) {
        ss->top_sel = ss->sel;
        ss->sel = saved;
    }
}

/*
 * A zoomed pane's scroll: *s rows from its start, up adding `up` (events
 * count back from the newest: +1; the server's rows from the top: -1),
 * kept within 0..max.
 */
static void
scroll_pane(int *s, enum key_action act, int up, int max)
{
    int page = 10;

    switch (act) {
    case KEY_ACT_UP:
        *s += up;
        break;
    case KEY_ACT_DOWN:
        *s -= up;
        break;
    case KEY_ACT_PAGE_UP:
        *s += up * page;
        break;
    case KEY_ACT_PAGE_DOWN:
        *s -= up * page;
        break;
    case KEY_ACT_HOME:
        *s = up > 0 ? max : 0;
        break;
    default:
        *s = up > 0 ? 0 : max;
        break;
    }
    *s = *s < 0 ? 0 : *s > max ? max : *s;
}

static void
toggle_sort(struct tui *t)
{
    struct dash_sessions *ss = &t->d.sessions;
    const struct coll_session *cur = selected(ss);
    char id[24];

    snprintf(id, sizeof id, "%s", cur ? cur->id : "");
    ss->sort = ss->sort == DASH_SORT_DURATION ? DASH_SORT_STATE : DASH_SORT_DURATION;
    dash_sessions_sort(&ss->list, ss->sort);
    keep_selection(ss, id);
}

/* C or K: the question on the bottom line; y answers it (confirm_key). */
static void
ask_kill(struct tui *t, int terminate)
{
    const struct coll_session *cur = selected(&t->d.sessions);
    char app[64], state[64];

    if (t->s->rc->read_only) {
        dash_event_add(&t->d, ROW_WARN, "sessions are not cancelled with --read-only");
        return;
    }
    if (cur == NULL || !sessions_in_view(&t->d) || t->d.sessions.top) {
        dash_event_add(&t->d, ROW_WARN, "no session selected (7 shows the sessions; T toggles)");
        return;
    }
    t->confirm.active = 1;
    t->confirm.trying = 0;
    t->confirm.terminate = terminate;
    snprintf(t->confirm.id, sizeof t->confirm.id, "%s", cur->id);
    text_clean(app, sizeof app, cur->app[0] ? cur->app : cur->client);
    text_clean(state, sizeof state, cur->state);
    snprintf(t->d.prompt, sizeof t->d.prompt,
             "%s session %s (%.40s, %.30s)? y: yes, any other key: no",
             terminate ? "terminate" : "cancel the query of", cur->id, app, state);
}

static void
confirm_key(struct tui *t, int key)
{
    char err[BT_ERRLEN];

    t->confirm.active = 0;
    if (t->confirm.trying) {
        tui_try_answer(&t->trial, &t->d, t->s, key == 'y' || key == 'Y', t->last_tick_s);
        return;
    }
    if (key != 'y' && key != 'Y') {
        dash_event_add(&t->d, ROW_NORMAL, "left session %s alone", t->confirm.id);
        return;
    }
    if (collect_kill(t->s->collect[0], t->confirm.id, t->confirm.terminate, err) < 0)
        dash_event_add(&t->d, ROW_BAD, "%s", err);
}

/* One key; 1 to quit. */
static int
handle_key(struct tui *t, int key)
{
    enum key_action act = keys_action(key);

    if (key == SCREEN_RESIZE)
        return 0;
    if (t->prompt.kind != PROMPT_NONE) {
        prompt_input(t, key);
        return 0;
    }
    if (t->confirm.active) {
        confirm_key(t, key);
        return 0;
    }
    if ((t->d.help || t->d.verdict_open) && act != KEY_ACT_QUIT) {
        t->d.help = t->d.verdict_open = 0; /* any key closes the help or the verdict */
        return 0;
    }
    if (t->d.trial.shown && !tui_try_running(&t->trial) && act != KEY_ACT_QUIT) {
        t->d.trial.shown = 0; /* ... and a finished try's rounds (the events keep its result) */
        return 0;
    }
    switch (act) {
    case KEY_ACT_QUIT:
        return 1;
    case KEY_ACT_PAUSE:
    case KEY_ACT_MORE_CLIENTS:
    case KEY_ACT_FEWER_CLIENTS:
    case KEY_ACT_LOWER_RATE:
    case KEY_ACT_RAISE_RATE:
        return load_key(t, act);
    case KEY_ACT_SHORTER_INTERVAL:
    case KEY_ACT_LONGER_INTERVAL:
        change_interval(t, act == KEY_ACT_SHORTER_INTERVAL ? 0.5 : 2.0);
        return 0;
    case KEY_ACT_HELP:
        t->d.help = 1;
        return 0;
    case KEY_ACT_VERDICT:
        t->d.verdict_open = 1;
        return 0;
    case KEY_ACT_ZOOM:
        t->d.zoom = t->d.zoom == key - '0' ? 0 : key - '0';
        t->d.scroll = 0; /* each zoomed pane starts at its top (events: the newest) */
        want_sessions(t);
        return 0;
    case KEY_ACT_UNZOOM:
        t->d.zoom = 0;
        t->d.scroll = 0;
        want_sessions(t);
        return 0;
    case KEY_ACT_SET:
        ask_setting(t);
        return 0;
    case KEY_ACT_MARKER:
        prompt_open(&t->prompt, PROMPT_MARKER);
        return 0;
    case KEY_ACT_SORT:
        toggle_sort(t);
        return 0;
    case KEY_ACT_TOP:
        t->d.sessions.top = !t->d.sessions.top;
        want_sessions(t);
        return 0;
    case KEY_ACT_UP:
    case KEY_ACT_DOWN:
    case KEY_ACT_PAGE_UP:
    case KEY_ACT_PAGE_DOWN:
    case KEY_ACT_HOME:
    case KEY_ACT_END:
        if (sessions_in_view(&t->d))
            move_selection(t, act);
        else if (t->d.zoom == 4)
            scroll_pane(&t->d.scroll, act, 1, DASH_EVENTS);
        else if (t->d.zoom == 3 || t->d.zoom == 5)
            scroll_pane(&t->d.scroll, act, -1, COLL_MAX_ROWS - 1);
        return 0;
    case KEY_ACT_CANCEL:
    case KEY_ACT_TERMINATE:
        ask_kill(t, act == KEY_ACT_TERMINATE);
        return 0;
    case KEY_ACT_TRY:
        t->confirm.active = t->confirm.trying =
            tui_try_ask(&t->trial, &t->d, t->s, t->last_verdict);
        return 0;
    case KEY_ACT_NONE:
        return 0;
    }
    return 0;
}

static int
on_input(struct session *s, void *arg)
{
    struct tui *t = arg;
    int key, quit = 0;

    while (!quit && (key = screen_key()) >= 0)
        quit = handle_key(t, key);
    if (!t->confirm.active)
        t->d.prompt[0] = '\0';
    if (t->prompt.kind != PROMPT_NONE)
        prompt_line(&t->prompt, t->d.prompt, sizeof(t->d.prompt));
    redraw(t);
    return quit;
}

static int
load_theme(const struct tui_conf *conf, struct theme *th, char *err)
{
    const char *no_color = getenv("NO_COLOR");
    int mono = no_color != NULL && no_color[0] != '\0';
    const char *name = conf->theme ? conf->theme : mono ? "mono" : "default";

    if (theme_load(th, name, err) < 0)
        return -1;
    if (mono)
        theme_strip_colors(th);
    return 0;
}

static void
fill_header(struct tui *t, const struct session *s)
{
    struct dash *d = &t->d;
    const struct report_ctx *rc = t->conf->report;
    int i;

    d->load = s->eng != NULL || s->follow != NULL;
    d->state = d->load ? RUN_STARTING : RUN_WATCHING;
    d->interval_s = s->interval_s;
    d->duration_s = s->rc->duration_s;
    d->threads = s->rc->threads;
    d->clients = s->rc->clients;
    d->rate = s->rc->rate;
    d->server_tps = NAN;
    t->last_server_tps = NAN;
    snprintf(d->target, sizeof(d->target), "%s", s->rc->tgt.masked ? s->rc->tgt.masked : "");
    snprintf(d->workload, sizeof(d->workload), "%s", rc && rc->workload ? rc->workload : "watch");
    snprintf(d->mode, sizeof(d->mode), "%s", rc && rc->mode ? rc->mode : "");
    d->sweep.active = s->sweep != NULL;
    d->sweep.knee = -1;
    if (s->sweep != NULL && s->sweep->find_rate)
        snprintf(d->sweep.title, sizeof(d->sweep.title), "find-rate %s", s->sweep->slo.text);
    else if (s->sweep != NULL)
        snprintf(d->sweep.title, sizeof(d->sweep.title), "sweep: %s",
                 s->sweep->axis == SWEEP_CLIENTS ? "clients" : "rate");
    d->nservers = s->ncollect;
    d->sessions.shown = !d->load && s->ncollect > 0;
    d->sessions.can_kill = !s->rc->read_only;
    for (i = 0; i < s->ncollect; i++) {
        snprintf(d->servers[i].name, sizeof(d->servers[i].name), "%s", t->conf->names[i]);
        snprintf(d->servers[i].target, sizeof(d->servers[i].target), "%s", t->conf->targets[i]);
        snprintf(d->servers[i].error, sizeof(d->servers[i].error), "connecting");
    }
    keys_help_lines(d->help_lines, (int)(sizeof(d->help_lines) / sizeof(d->help_lines[0])));
}

int
tui_check_theme(const char *theme, char *err)
{
    struct theme th;

    return theme == NULL ? 0 : theme_load(&th, theme, err);
}

int
tui_check_terminal(char *err)
{
    return screen_check(err);
}

int
tui_run(struct session *s, int sigfd, const struct tui_conf *conf, char *err)
{
    struct tui *t = xcalloc(1, sizeof(*t));
    struct theme th;
    char put_err[BT_ERRLEN];
    int put_back;

    t->conf = conf;
    t->s = s;
    if (conf->report) {
        t->record = *conf->report;
        t->record.human = NULL;
    }
    if (load_theme(conf, &th, err) < 0 || screen_init(&th, err) < 0) {
        free(t);
        return -1;
    }
    t->d.utf8 = screen_utf8();
    segments_init(&t->seg);
    fill_header(t, s);
    want_sessions(t);
    s->input_fd = screen_input_fd();
    s->stay_after_load = 1;
    s->hooks = (struct session_hooks){.on_tick = on_tick,
                                      .on_server = on_server,
                                      .on_input = on_input,
                                      .on_idle_tick = on_idle_tick,
                                      .on_record_server = on_record_server,
                                      .on_follow = on_follow};
    s->arg = t;
    redraw(t);
    session_run(s, sigfd);
    put_back = tui_try_end(&t->trial, put_err); /* before anything else: q, SIGINT, SIGTERM */
    screen_end();
    if (put_back < 0)
        fprintf(stderr,
                "benchtop: %s; the undo file keeps the original values (run benchtop try "
                "--undo TARGET)\n",
                put_err);
    if (s->eng && conf->report && conf->report->human)
        report_human_summary(conf->report->human, &s->eng->snap, &s->now, conf->report);
    grid_free(t->g);
    segments_free(&t->seg);
    free(t);
    return 0;
}
