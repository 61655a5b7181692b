/* output: JSON lines and human-readable progress and summary. */
#include "output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "engine/collect.h"
#include "base/hdrlog.h"
#include "base/hist.h"
#include "base/json.h"
#include "tryreport.h"
#include "base/text.h"
#include "base/util.h"
#include "analysis/watch.h"

static double
per_s(uint64_t n, double secs)
{
    return secs > 0 ? (double)n / secs : 0.0;
}

void
json_errors_by_kind(FILE *f, const uint64_t *errors)
{
    fputs("\"errors_by_kind\":{", f);
    for (int k = ERR_NONE + 1; k < ERR__COUNT; k++)
        if (err_kind_used(k))
            fprintf(f, "%s\"%s\":%llu", k > ERR_NONE + 1 ? "," : "", err_kind_name(k),
                    (unsigned long long)errors[k]);
    fputc('}', f);
}

void
json_lat(FILE *f, const struct hist_summary *l)
{
    fprintf(f,
            "\"lat_us\":{\"mean\":%.1f,\"p50\":%llu,\"p90\":%llu,\"p95\":%llu,\"p99\":%llu,"
            "\"p999\":%llu,\"max\":%llu}",
            l->mean, (unsigned long long)l->p50, (unsigned long long)l->p90,
            (unsigned long long)l->p95, (unsigned long long)l->p99, (unsigned long long)l->p999,
            (unsigned long long)l->max);
}

static void
json_common(FILE *f, const struct wstats *s, double secs)
{
    struct hist_summary l;

    hist_summarize(s->lat, &l);
    fprintf(f, "\"tps\":%.3f,\"ops\":%.3f,\"errors\":%llu,\"late\":%llu,", per_s(s->txns, secs),
            per_s(s->ops, secs), (unsigned long long)wstats_errors(s), (unsigned long long)s->late);
    json_errors_by_kind(f, s->errors);
    fprintf(f, ",\"rx_bytes_per_s\":%.0f", per_s(s->rx_bytes, secs));
    fprintf(f, ",\"retried\":%llu,\"retries\":%llu", (unsigned long long)s->retried,
            (unsigned long long)s->retries);
    fprintf(
        f, ",\"reconnects\":%llu,\"connect_fails\":%llu,\"lag_us\":{\"mean\":%.1f,\"max\":%llu},",
        (unsigned long long)s->reconnects, (unsigned long long)s->connect_fails,
        s->txns ? (double)s->lag_sum_us / (double)s->txns : 0.0, (unsigned long long)s->lag_max_us);
    json_lat(f, &l);
}

/* The clients' time account behind the verdict: each share of the whole, 0..1. */
static void
json_account(FILE *f, const struct account *a)
{
    int k;

    if (!(a->total > 0))
        return;
    fprintf(f, ",\"account\":{\"clients\":%.0f", a->clients);
    for (k = 0; k < AS__COUNT; k++)
        if (account_share(a, k) >= 0.0005)
            fprintf(f, ",\"%s\":%.3f", account_key(k), account_share(a, k));
    fputc('}', f);
}

/* "advice":{"kind":"setting","name":..,"value":..,"n":..,"lo":..,"hi":..,"text":..} */
static void
json_advice(FILE *f, const struct advice *a)
{
    char text[160];

    fputs(",\"advice\":{\"kind\":", f);
    json_put_string(f, advice_key(a->kind));
    if (a->name[0])
        json_member_str(f, "name", a->name);
    if (a->value[0])
        json_member_str(f, "value", a->value);
    if (a->n > 0)
        fprintf(f, ",\"n\":%d", a->n);
    json_member_num(f, "lo", a->lo);
    json_member_num(f, "hi", a->hi);
    advice_text(a, text, sizeof text);
    json_member_str(f, "text", text);
    fputc('}', f);
}

/*
 * The model beside the verdict: its limit and Little's check, then
 * "findings":[{"kind":"commit","share":0.62,"bound":2894.7,"advice":{...}}].
 */
static void
json_model(FILE *f, const struct model *m)
{
    const struct finding *x;

    if (!m->made)
        return;
    fputs(",\"model\":{\"limit\":", f);
    json_put_string(f, m->limit < MR__COUNT ? model_res_key(m->limit) : "none");
    json_member_num(f, "utilization", m->limit_util);
    fprintf(f, ",\"consistent\":%s", m->consistent ? "true" : "false");
    json_member_num(f, "in_flight", m->little_n);
    json_member_num(f, "x_r", m->little_xr);
    json_member_num(f, "closed_loop_bound", m->x_closed);
    fputs("},\"findings\":[", f);
    for (int i = 0; i < m->nfindings; i++) {
        x = &m->findings[i];
        fprintf(f, "%s{\"kind\":", i ? "," : "");
        json_put_string(f, x->res < MR__COUNT ? model_res_key(x->res) : "clients");
        json_member_num(f, "share", x->share);
        json_member_num(f, "bound", x->bound);
        json_advice(f, &x->advice);
        fputc('}', f);
    }
    fputc(']', f);
}

/* queries: --record-queries (the evidence quotes another session's command whole) */
static void
json_verdict(FILE *f, const struct verdict *v, int queries)
{
    fprintf(f, ",\"verdict\":{\"kind\":\"%s\",\"label\":", verdict_key(v->kind));
    json_put_string(f, verdict_label(v->kind));
    fprintf(f, ",\"confidence\":\"%s\",\"score\":", v->confidence ? v->confidence : "");
    json_number(f, v->score);
    if (v->kind == VK_MIXED || v->kind == VK_NONE) {
        fprintf(f, ",\"first\":\"%s\"", verdict_key(v->first));
        json_member_num(f, "first_score", v->first_score);
        fprintf(f, ",\"second\":\"%s\"", verdict_key(v->second));
        json_member_num(f, "second_score", v->second_score);
    }
    fputs(",\"evidence\":", f);
    text_json_sql(f, v->evidence, queries ? NULL : v->evidence_sql);
    json_account(f, &v->acct);
    json_model(f, &v->model);
    if (v->final) {
        int k, n = 0;

        fputs(",\"final\":true,\"share\":{", f);
        for (k = 0; k < VK__COUNT; k++)
            if (v->share[k] > 0)
                fprintf(f, "%s\"%s\":%.3f", n++ ? "," : "", verdict_key(k), v->share[k]);
        fputc('}', f);
    }
    fputc('}', f);
}

/* "tls":{"used":true,"protocol":"TLSv1.3","cipher":"..."}, or nothing when the driver cannot tell.
 */
static void
json_tls(FILE *f, const struct drv_tls *t)
{
    if (t == NULL)
        return;
    fprintf(f, ",\"tls\":{\"used\":%s", t->used ? "true" : "false");
    if (t->used) {
        json_member_str(f, "protocol", t->protocol);
        json_member_str(f, "cipher", t->cipher);
    }
    fputc('}', f);
}

/* "tls: TLSv1.3 (TLS_AES_256_GCM_SHA384)" or "tls: none", when the driver can tell. */
static void
human_tls(FILE *f, const struct drv_tls *t)
{
    char protocol[sizeof t->protocol], cipher[sizeof t->cipher];

    if (t == NULL)
        return;
    if (!t->used) {
        fputs("tls: none\n", f);
        return;
    }
    text_clean(protocol, sizeof protocol, t->protocol);
    text_clean(cipher, sizeof cipher, t->cipher);
    fprintf(f, "tls: %s (%s)\n", protocol, cipher);
}

static void
json_header(FILE *f, const struct snapshot *snap, const struct report_ctx *ctx)
{
    const struct runconf *rc = ctx->rc;
    struct utsname u;
    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    if (uname(&u) != 0)
        memset(&u, 0, sizeof u);
    fprintf(f, "{\"type\":\"run\",\"benchtop\":\"%s\",\"command\":", PACKAGE_VERSION);
    json_put_string(f, rc->command ? rc->command : "run");
    fprintf(f, ",\"start\":%.3f", (double)now.tv_sec + now.tv_nsec / 1e9 - snap->t);
    json_member_str(f, "target", rc->tgt.masked ? rc->tgt.masked : "");
    json_member_str(f, "workload", ctx->workload ? ctx->workload : "");
    json_member_str(f, "protocol", ctx->mode ? ctx->mode : "");
    json_tls(f, ctx->tls);
    if (ctx->target_note != NULL)
        json_member_str(f, "target_note", ctx->target_note);
    fprintf(f, ",\"clients\":%d,\"threads\":%d,\"rate\":%.3f,\"interval_s\":%.3f,", snap->clients,
            rc->threads, rc->rate, rc->interval_s);
    if (rc->pipeline > 1) /* the depth the load ran with (try's B may differ from --pipeline) */
        fprintf(f, "\"pipeline\":%d,", rc->pipeline);
    fputs("\"options\":{", f);
    if (ctx->print_options != NULL)
        ctx->print_options(f, rc);
    fputc('}', f);
    if (rc->instances > 1) /* one agent of a fleet: benchtop merge checks and sums them */
        fprintf(f, ",\"instance\":%d,\"instances\":%d", rc->instance, rc->instances);
    if (rc->start_at > 0)
        fprintf(f, ",\"start_at\":%.3f", rc->start_at);
    fprintf(f, ",\"host\":{\"cores\":%ld,\"kernel\":", sysconf(_SC_NPROCESSORS_ONLN));
    json_put_string(f, u.release);
    json_member_str(f, "machine", u.machine);
    fputs("}}\n", f);
}

void
report_ready(FILE *f, const struct runconf *rc)
{
    fprintf(f, "{\"type\":\"ready\",\"start_at\":%.3f,\"instance\":%d,\"instances\":%d}\n",
            rc->start_at, rc->instance, rc->instances > 0 ? rc->instances : 1);
    fflush(f);
}

/* A local server's host: its busy CPU and whose it is (the verdict's split), % of one core. */
static void
json_host_split(FILE *f, const struct host_split *h)
{
    json_member_num(f, "host_busy", h->busy);
    json_member_num(f, "server", h->server);
    json_member_num(f, "others", h->others);
    json_member_num(f, "kernel", h->kernel);
    fprintf(f, ",\"server_event_loop\":%s", h->event_loop ? "true" : "false");
    json_member_str(f, "server_procs", h->names);
}

static void
json_interval(FILE *f, const struct snapshot *snap, const struct verdict *v, int queries)
{
    fprintf(
        f,
        "{\"type\":\"interval\",\"t\":%.3f,\"interval_s\":%.3f,\"clients\":%d,\"connected\":%llu,",
        snap->t, snap->interval_s, snap->clients, (unsigned long long)snap->cur.connected);
    json_common(f, &snap->cur, snap->interval_s);
    fprintf(f, ",\"transactions\":%llu", (unsigned long long)snap->cur.txns);
    hdrlog_write_json(f, snap->cur.lat);
    fputs(",\"cpu\":{\"benchtop\":", f);
    json_number(f, snap->own_cpu_pct);
    json_member_num(f, "worker_max", snap->worker_cpu_max);
    json_member_num(f, "worker_wait", snap->worker_wait_max);
    json_host_split(f, &v->host);
    fputc('}', f);
    json_verdict(f, v, queries);
    fputs("}\n", f);
    fflush(f);
}

static void
json_messages(FILE *f, const struct wstats *s)
{
    const struct err_msg *top[STATS_MSGS];
    int i, n = wstats_top_msgs(s, top);

    json_member_num(f, "failed_share", wstats_failed_share(s));
    fputs(",\"error_messages\":[", f);
    for (i = 0; i < n; i++) {
        fputs(i ? ",{\"message\":" : "{\"message\":", f);
        json_put_string(f, top[i]->text);
        fprintf(f, ",\"count\":%llu}", (unsigned long long)top[i]->n);
    }
    fprintf(f, "],\"error_messages_other\":%llu", (unsigned long long)s->msgs_other);
}

/* -r: "statements":[{"script":..,"line":..,"text":..,"count":..,"failed":..,"lat_us_mean":..}] */
static void
json_statements(FILE *f, const struct wstats *s, const struct stmt_label *labels)
{
    fputs(",\"statements\":[", f);
    for (int i = 0; i < s->nstmts; i++) {
        const struct stmt_stat *st = &s->stmts[i];
        fputs(i ? ",{\"script\":" : "{\"script\":", f);
        json_put_string(f, labels[i].script);
        fprintf(f, ",\"line\":%d,\"text\":", labels[i].line);
        json_put_string(f, labels[i].text);
        fprintf(f, ",\"count\":%llu,\"failed\":%llu,\"lat_us_mean\":%.1f}",
                (unsigned long long)st->n, (unsigned long long)st->errors,
                st->n ? (double)st->sum_us / (double)st->n : 0.0);
    }
    fputc(']', f);
}

/* "clients_history":[4,8,1], "outage_s", and "tps_answered": tps over the time the server answered.
 */
static void
json_outage(FILE *f, const struct snapshot *snap)
{
    fputs(",\"clients_history\":[", f);
    for (int i = 0; i < snap->nclients_seen; i++)
        fprintf(f, "%s%d", i ? "," : "", snap->clients_seen[i]);
    fprintf(f, "],\"outage_s\":%.3f,\"tps_answered\":%.3f", snap->outage_s,
            per_s(snap->total.txns, snap->t - snap->outage_s));
    fprintf(f, ",\"clients_never_done\":%llu,\"oldest_in_flight_s\":%.3f",
            (unsigned long long)snap->cur.never_done, (double)snap->cur.oldest_us / 1e6);
}

static void
json_summary(FILE *f, const struct snapshot *snap, const struct verdict *v,
             const struct report_ctx *ctx)
{
    const struct runconf *rc = ctx->rc;
    const struct wstats *s = &snap->total;

    fprintf(f, "{\"type\":\"summary\",\"duration_s\":%.3f,\"transactions\":%llu,\"ops_total\":%llu",
            snap->t, (unsigned long long)s->txns, (unsigned long long)s->ops);
    json_member_str(f, "workload", ctx->workload);
    json_member_str(f, "protocol", ctx->mode);
    json_member_str(f, "target", rc->tgt.masked);
    json_tls(f, ctx->tls);
    if (ctx->target_note != NULL)
        json_member_str(f, "target_note", ctx->target_note);
    fprintf(f, ",\"clients\":%d,\"threads\":%d,\"rate\":%.3f,\"connect_per_txn\":%s,",
            snap->clients, rc->threads, rc->rate, rc->connect_per_txn ? "true" : "false");
    fprintf(f, "\"connects\":%llu,\"connect_us_mean\":%.1f,", (unsigned long long)s->connects,
            s->connects ? (double)s->connect_us / (double)s->connects : 0.0);
    json_common(f, s, snap->t);
    json_outage(f, snap);
    json_messages(f, s);
    if (s->nstmts > 0)
        json_statements(f, s, ctx->stmt_labels);
    json_verdict(f, v, rc->record_queries);
    fputs("}\n", f);
    fflush(f);
}

static void
human_progress(FILE *f, const struct snapshot *snap)
{
    const struct wstats *s = &snap->cur;

    fprintf(f, "progress: %.1f s, %.1f tps, lat %.3f ms p95 %.3f ms p99 %.3f ms, %llu failed",
            snap->t, per_s(s->txns, snap->interval_s), hist_mean(s->lat) / 1000.0,
            (double)hist_percentile(s->lat, 95) / 1000.0,
            (double)hist_percentile(s->lat, 99) / 1000.0, (unsigned long long)wstats_errors(s));
    if (s->retries)
        fprintf(f, ", %llu retried", (unsigned long long)s->retried);
    if (s->reconnects)
        fprintf(f, ", %llu reconnects", (unsigned long long)s->reconnects);
    if (s->connect_fails)
        fprintf(f, ", %llu failed reconnects", (unsigned long long)s->connect_fails);
    if (s->late)
        fprintf(f, ", %llu late", (unsigned long long)s->late);
    if (s->last_error[0])
        fprintf(f, " (last error: %s)", s->last_error);
    fputc('\n', f);
}

static void
human_errors(FILE *f, const struct wstats *s)
{
    int k;

    fprintf(f, "number of failed transactions: %llu", (unsigned long long)wstats_errors(s));
    for (k = ERR_NONE + 1; k < ERR__COUNT; k++)
        if (s->errors[k])
            fprintf(f, ", %s %llu", err_kind_name(k), (unsigned long long)s->errors[k]);
    fputc('\n', f);
    if (s->retries) /* as pgbench says it */
        fprintf(f, "number of transactions retried: %llu\ntotal number of retries: %llu\n",
                (unsigned long long)s->retried, (unsigned long long)s->retries);
    if (s->last_error[0])
        fprintf(f, "last error: %s\n", s->last_error);
}

/*
 * Failures come first, with what the server said, so a run that mostly
 * failed never reads as a throughput figure; above 1% in capitals. A few
 * (8 of 47,241) are said too, in lower case: a run is not clean because
 * its share is small.
 */
static void
human_failures(FILE *f, const struct wstats *s)
{
    const struct err_msg *top[STATS_MSGS];
    double share = wstats_failed_share(s);
    int i, n;

    if (wstats_errors(s) == 0)
        return;
    n = wstats_top_msgs(s, top);
    fprintf(f, "%s: %.*f%% of transactions (%llu of %llu)\n",
            share > FAILED_FLAG_SHARE ? "FAILED" : "failed", share >= 0.001 ? 1 : 3, 100.0 * share,
            (unsigned long long)wstats_errors(s), (unsigned long long)(wstats_errors(s) + s->txns));
    for (i = 0; i < n; i++)
        fprintf(f, "  %llu x %s\n", (unsigned long long)top[i]->n, top[i]->text);
    if (s->msgs_other)
        fprintf(f, "  %llu x other messages\n", (unsigned long long)s->msgs_other);
}

/* "clients: 4 -> 8 -> 1": every count the run went through, not only the last. */
static void
human_clients(FILE *f, const struct snapshot *snap)
{
    fprintf(f, "clients: ");
    if (snap->nclients_seen < 2) {
        fprintf(f, "%d", snap->clients);
        return;
    }
    for (int i = 0; i < snap->nclients_seen; i++)
        fprintf(f, "%s%d", i ? " -> " : "", snap->clients_seen[i]);
}

/* -r, as pgbench -r: under each script, each statement's mean latency, count and failures. */
static void
human_statements(FILE *f, const struct wstats *s, const struct stmt_label *labels)
{
    char text[120];

    fputs("statement latencies in milliseconds, counts and failures:\n", f);
    for (int i = 0; i < s->nstmts; i++) {
        const struct stmt_stat *st = &s->stmts[i];
        if (i == 0 || strcmp(labels[i].script, labels[i - 1].script) != 0) {
            text_clean(text, sizeof text, labels[i].script);
            fprintf(f, "  %s:\n", text);
        }
        text_clean(text, sizeof text, labels[i].text);
        fprintf(f, "  %10.3f %10llu %8llu  %s\n",
                st->n ? (double)st->sum_us / (double)st->n / 1000.0 : 0.0,
                (unsigned long long)st->n, (unsigned long long)st->errors, text);
    }
}

/*
 * Clients that finished no transaction in the whole run (a session
 * pooler's queue, a lock never granted): the latency figures above are of
 * the others only, so the summary says how many and how long they waited.
 */
static void
human_never_done(FILE *f, const struct snapshot *snap)
{
    const struct wstats *c = &snap->cur;

    if (c->never_done == 0 || snap->clients <= 0)
        return;
    fprintf(f,
            "clients that never finished a transaction: %llu of %d (the latency above is the "
            "others'; the longest wait still open %.1f s)\n",
            (unsigned long long)c->never_done, snap->clients, (double)c->oldest_us / 1e6);
}

/*
 * The max above counts finished transactions only: one still in flight at
 * the end that had waited longer (8 behind a lock for 13.3 s while the
 * max read 570 ms) is said, or the summary would hide the worst wait.
 * Clients that never finished one are human_never_done's.
 */
static void
human_stuck(FILE *f, const struct snapshot *snap, double max_us)
{
    const struct wstats *c = &snap->cur;

    if (c->never_done > 0 || (double)c->oldest_us <= max_us)
        return;
    fprintf(f,
            "stuck at the end: a transaction still in flight had waited %.1f s, longer than the "
            "max above (finished transactions only)\n",
            (double)c->oldest_us / 1e6);
}

void
report_run_summary(FILE *f, const struct snapshot *snap, const struct verdict *v,
                   const struct report_ctx *ctx)
{
    const struct runconf *rc = ctx->rc;
    const struct wstats *s = &snap->total;
    struct hist_summary l;
    char workload[256], target[512];

    hist_summarize(s->lat, &l);
    human_failures(f, s);
    if (snap->outage_s > 0 && s->txns == 0) /* not "for 2.0 s" of a run that never got one */
        fprintf(f,
                "OUTAGE: no transaction finished in the %.1f s run (they failed, waited, or "
                "could not connect)\n",
                snap->t);
    else if (snap->outage_s > 0) /* a server that stopped answering comes next, before figures */
        fprintf(f,
                "OUTAGE: the server answered nothing for %.1f s of the %.1f s run, from %.1f s "
                "(transactions failed or could not connect)\n",
                snap->outage_s, snap->t, snap->outage_from);
    text_clean(workload, sizeof(workload), ctx->workload); /* a -f path is foreign text too */
    text_clean(target, sizeof(target), rc->tgt.masked);
    fprintf(f, "workload: %s\nprotocol: %s\ntarget: %s\n", workload, ctx->mode, target);
    human_tls(f, ctx->tls);
    if (ctx->target_note != NULL) {
        char note[256];

        text_clean(note, sizeof note, ctx->target_note);
        fprintf(f, "%s\n", note);
    }
    human_clients(f, snap);
    fprintf(f, ", threads: %d%s\n", rc->threads,
            rc->connect_per_txn ? ", new connection per transaction" : "");
    fprintf(f, "duration: %.3f s\nnumber of transactions: %llu\n", snap->t,
            (unsigned long long)s->txns);
    human_errors(f, s);
    if (s->reconnects || s->connect_fails)
        fprintf(f, "reconnects: %llu (failed attempts: %llu)\n", (unsigned long long)s->reconnects,
                (unsigned long long)s->connect_fails);
    if (rc->rate > 0)
        fprintf(f, "rate: %.1f tps target, schedule lag mean %.3f ms max %.3f ms, late %llu\n",
                rc->rate, s->txns ? (double)s->lag_sum_us / (double)s->txns / 1000.0 : 0.0,
                (double)s->lag_max_us / 1000.0, (unsigned long long)s->late);
    fprintf(f, "latency ms: mean %.3f p50 %.3f p90 %.3f p95 %.3f p99 %.3f p99.9 %.3f max %.3f\n",
            l.mean / 1000.0, l.p50 / 1000.0, l.p90 / 1000.0, l.p95 / 1000.0, l.p99 / 1000.0,
            l.p999 / 1000.0, l.max / 1000.0);
    if (s->nstmts > 0)
        human_statements(f, s, ctx->stmt_labels);
    if (s->connects)
        fprintf(f, "connections: %llu, mean set-up %.3f ms\n", (unsigned long long)s->connects,
                (double)s->connect_us / (double)s->connects / 1000.0);
    human_never_done(f, snap);
    human_stuck(f, snap, l.max);
    if (s->rx_bytes)
        fprintf(f, "received: %llu bytes, %.1f KiB/s\n", (unsigned long long)s->rx_bytes,
                per_s(s->rx_bytes, snap->t) / 1024.0);
    fprintf(f, "tps = %.3f", per_s(s->txns, snap->t));
    /* a batch, a script or a pipeline: what each transaction held (--batch 100's rows/s) */
    if (s->txns > 0 && s->ops > s->txns)
        fprintf(f, " (operations/s = %.3f, %.1f a transaction)", per_s(s->ops, snap->t),
                (double)s->ops / (double)s->txns);
    if (snap->outage_s > 0 && s->txns > 0) /* none done: every answer was an error */
        fprintf(f, " (over the whole run; %.3f over the %.1f s the server answered)",
                per_s(s->txns, snap->t - snap->outage_s), snap->t - snap->outage_s);
    fputc('\n', f);
    if (v != NULL && v->final) {
        char text[600];

        verdict_final_text(v, text, sizeof(text));
        fprintf(f, "verdict: %s\n", text);
        for (int i = 0; i < v->model.nfindings; i++) {
            char clean[sizeof text];

            /* a setting's or a table's name comes from the server */
            finding_text(&v->model.findings[i], v->model.x, text, sizeof text);
            text_clean(clean, sizeof clean, text);
            fprintf(f, "finding %d: %s\n", i + 1, clean);
        }
    }
}

void
report_interval_lines(const struct snapshot *snap, const struct verdict *v, struct report_ctx *ctx)
{
    if (ctx->json && !ctx->header_done) {
        json_header(ctx->json, snap, ctx);
        ctx->header_done = 1;
    }
    if (ctx->json)
        json_interval(ctx->json, snap, v, ctx->rc->record_queries);
    /* as pgbench -P (a sweep tells its steps); not the final sliver of an interval */
    if (ctx->human && !ctx->sweep && (!snap->final || snap->interval_s >= ctx->rc->interval_s / 2))
        human_progress(ctx->human, snap);
}

void
report_summary_json(const struct snapshot *snap, const struct verdict *v,
                    const struct report_ctx *ctx)
{
    if (ctx->json)
        json_summary(ctx->json, snap, v, ctx);
}

/* queries: --record-queries, other sessions' statements kept whole, else digested. */
static void
json_rows(FILE *f, const struct coll_view *v, int queries)
{
    int i;

    fputs(",\"rows\":[", f);
    for (i = 0; i < v->nrows; i++) {
        const struct coll_row *r = &v->rows[i];
        fputs(i ? ",{\"section\":" : "{\"section\":", f);
        json_put_string(f, r->section);
        json_member_str(f, "label", r->label);
        fputs(",\"value\":", f);
        text_json_sql(f, r->value, queries || r->sql_at == 0 ? NULL : r->value + r->sql_at);
        json_member_num(f, "num", r->num);
        fputc('}', f);
    }
    fputs("],\"events\":[", f);
    for (i = 0; i < v->nevents; i++) {
        if (i)
            fputc(',', f);
        json_put_string(f, v->events[i]);
    }
    fputc(']', f);
}

/* The top statements as a member of the server line: what the server keeps, or the note. */
static void
json_top_statements(FILE *f, const struct coll_statements *l)
{
    fputs(",\"statements\":{\"source\":", f);
    json_put_string(f, l->source);
    json_member_str(f, "note", l->note);
    fprintf(f, ",\"kept\":%d", l->total);
    json_member_num(f, "all_ms", l->all_ms);
    json_member_num(f, "all_calls", l->all_calls);
    fputs(",\"top\":[", f);
    for (int i = 0; i < l->n; i++) {
        const struct coll_statement *s = &l->s[i];
        fprintf(f, "%s{\"id\":", i ? "," : "");
        json_put_string(f, s->id);
        json_member_str(f, "text", s->text);
        json_member_num(f, "calls", s->calls);
        json_member_num(f, "calls_s", s->calls_s);
        json_member_num(f, "total_ms", s->total_ms);
        json_member_num(f, "interval_ms", s->interval_ms);
        json_member_num(f, "mean_ms", s->mean_ms);
        json_member_num(f, "share", s->share);
        json_member_num(f, "rows_per_call", s->rows_per_call);
        fputc('}', f);
    }
    fputs("]}", f);
}

void
report_server(FILE *f, double t, const char *name, const char *target,
              const struct collect_result *res, const struct verdict *v, int queries)
{
    fprintf(f, "{\"type\":\"server\",\"t\":%.3f,\"collector\":", t);
    json_put_string(f, name);
    json_member_str(f, "target", target);
    fprintf(f, ",\"role\":\"%s\"", coll_role_key(res->role));
    fprintf(f, ",\"ok\":%s,\"cost_ms\":%.3f,\"late\":%llu", res->ok ? "true" : "false",
            res->cost_ms, (unsigned long long)res->late);
    if (!res->ok) /* no figure from an earlier sample passes for current */
        json_member_str(f, "error", res->error);
    if (res->have_settings)
        fprintf(f, ",\"settings_ms\":%.3f", res->settings_ms);
    if (!res->ok) {
        fputs(",\"server_tps\":null,\"rows\":[],\"events\":[]", f);
    } else if (res->have_view) {
        json_member_num(f, "server_tps", res->view.server_tps);
        json_member_str(f, "note", res->view.note);
        json_rows(f, &res->view, queries);
        if (!isnan(res->probes_s))
            fprintf(f, ",\"state_samples\":{\"per_s\":%.1f,\"ms_each\":%.3f}", res->probes_s,
                    res->probe_ms);
    }
    if (res->have_statements)
        json_top_statements(f, &res->statements);
    else if (res->statements_error[0] != '\0')
        json_member_str(f, "statements_error", res->statements_error);
    if (v != NULL) { /* watch: what the server shows, with no load of ours to judge */
        fputs(",\"server_verdict\":{\"kind\":", f);
        json_put_string(f, verdict_key(v->kind));
        json_member_str(f, "label", watch_label(v));
        json_member_str(f, "evidence", v->evidence);
        json_model(f, &v->model);
        fputc('}', f);
    }
    fputs("}\n", f);
    fflush(f);
}

static void
json_event_head(FILE *f, double t, const char *kind, const char *collector)
{
    fprintf(f, "{\"type\":\"event\",\"t\":%.3f,\"kind\":", t);
    json_put_string(f, kind);
    if (collector != NULL)
        json_member_str(f, "collector", collector);
}

static void
json_settings(FILE *f, const char *name, const struct collect_result *res)
{
    int i;

    fprintf(f, "{\"type\":\"settings\",\"t\":%.3f,\"collector\":", res->t);
    json_put_string(f, name);
    fprintf(f, ",\"cost_ms\":%.3f,\"settings\":{", res->settings_ms);
    for (i = 0; i < res->settings.n; i++) {
        if (i > 0)
            fputc(',', f);
        json_put_string(f, res->settings.s[i].name);
        fputc(':', f);
        json_put_string(f, res->settings.s[i].value);
    }
    fputs("}}\n", f);
}

void
report_settings_events(FILE *f, const char *name, const struct collect_result *res,
                       struct report_seen *seen)
{
    int i;

    if (res->applied != seen->applied) {
        json_event_head(f, res->apply_t, "set", name);
        json_member_str(f, "name", res->apply_name);
        json_member_str(f, "value", res->apply_value);
        fprintf(f, ",\"ok\":%s", res->apply_ok ? "true" : "false");
        if (!res->apply_ok)
            json_member_str(f, "error", res->apply_error);
        fputs("}\n", f);
        seen->applied = res->applied;
    }
    if (res->have_settings && !seen->settings) {
        json_settings(f, name, res);
        seen->settings = 1;
    }
    for (i = 0; i < res->nchanges; i++) {
        json_event_head(f, res->t, "setting", name);
        json_member_str(f, "name", res->changes[i].name);
        json_member_str(f, "from", res->changes[i].from);
        json_member_str(f, "to", res->changes[i].to);
        fputs("}\n", f);
    }
    fflush(f);
}

void
report_marker(FILE *f, double t, const char *label)
{
    json_event_head(f, t, "marker", NULL);
    json_member_str(f, "label", label);
    fputs("}\n", f);
    fflush(f);
}

void
report_try_event(FILE *f, double t, const char *change, uint64_t seed, const struct try_result *res)
{
    char text[400];

    snprintf(text, sizeof text, "%s: %s", change, res->sentence); /* what report shows */
    json_event_head(f, t, "try", NULL);
    json_member_str(f, "text", text);
    json_member_str(f, "change", change);
    json_member_num(f, "a_tps", res->a.tps);
    json_member_num(f, "b_tps", res->b.tps);
    fprintf(f, ",\"seed\":%llu", (unsigned long long)seed);
    try_result_json(f, res);
    fputs("}\n", f);
    fflush(f);
}
