/* record: reading a record back and summarising its windows (see record.h). */
#include "record.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hdrlog.h"
#include "base/util.h"

#define EPS 1e-6

const char *
record_jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : "";
}

double
record_jnum(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

uint64_t
record_ju64(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static void text_add(char **text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends a line to *text. */
static void
text_add(char **text, const char *fmt, ...)
{
    size_t old = *text ? strlen(*text) : 0;
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    *text = xrealloc(*text, old + strlen(line) + 2);
    sprintf(*text + old, "%s\n", line);
}

static void
event_add(struct record *r, double t, const char *text)
{
    r->ev = xrealloc(r->ev, (size_t)(r->nevent + 1) * sizeof(*r->ev));
    r->ev[r->nevent].t = t;
    r->ev[r->nevent].seq = r->nevent;
    r->ev[r->nevent++].text = xstrdup(text);
}

static void
read_run(struct record *r, const json_t *o)
{
    const json_t *host = json_object_get(o, "host");
    char *opts = json_dumps(json_object_get(o, "options"), JSON_COMPACT);

    free(r->target);
    free(r->version);
    free(r->workload);
    r->target = xstrdup(record_jstr(o, "target"));
    r->version = xstrdup(record_jstr(o, "benchtop"));
    r->workload = xstrdup(record_jstr(o, "workload"));
    r->start = record_jnum(o, "start");
    text_add(&r->header_text, "benchtop %s %s, target %s", r->version, record_jstr(o, "command"),
             r->target);
    text_add(&r->header_text, "workload %s (%s), %d clients, %d threads", r->workload,
             record_jstr(o, "protocol"), (int)record_jnum(o, "clients"),
             (int)record_jnum(o, "threads"));
    text_add(&r->header_text, "options %s", opts ? opts : "{}");
    text_add(&r->header_text, "host: %d cores, kernel %s", (int)record_jnum(host, "cores"),
             record_jstr(host, "kernel"));
    free(opts);
}

static void
read_interval(struct record *r, const json_t *o)
{
    const json_t *h = json_object_get(o, "hist_us");
    const json_t *v = json_object_get(o, "verdict");
    struct rec_interval *iv;

    r->iv = xrealloc(r->iv, (size_t)(r->ninterval + 1) * sizeof(*r->iv));
    iv = &r->iv[r->ninterval++];
    memset(iv, 0, sizeof(*iv));
    iv->t = record_jnum(o, "t");
    iv->len = record_jnum(o, "interval_s");
    iv->clients = (int)record_jnum(o, "clients");
    iv->txns = json_object_get(o, "transactions")
                   ? record_ju64(o, "transactions")
                   : (uint64_t)llround(record_jnum(o, "tps") * iv->len);
    iv->errors = record_ju64(o, "errors");
    iv->reconnects = record_ju64(o, "reconnects");
    snprintf(iv->verdict, sizeof iv->verdict, "%s", record_jstr(v, "kind"));
    if (h != NULL && json_string_value(json_object_get(h, "hdr"))) {
        iv->hdr = xstrdup(record_jstr(h, "hdr"));
        iv->min = record_ju64(h, "min");
        iv->max = record_ju64(h, "max");
        iv->sum = record_ju64(h, "sum");
        iv->overflow = record_ju64(h, "overflow");
    }
}

/* The index of a series, added if new; rate: its values are per second or a %. */
static int
series_index(struct record *r, const char *name, int rate)
{
    int i = record_series(r, name);

    if (i >= 0)
        return i;
    r->series = xrealloc(r->series, (size_t)(r->nseries + 1) * sizeof(char *));
    r->series_rate = xrealloc(r->series_rate, (size_t)(r->nseries + 1) * sizeof(int));
    r->series[r->nseries] = xstrdup(name);
    r->series_rate[r->nseries] = rate;
    for (i = 0; i < r->nsample; i++) {
        r->smp[i].nums = xrealloc(r->smp[i].nums, (size_t)(r->nseries + 1) * sizeof(double));
        r->smp[i].nums[r->nseries] = NAN;
    }
    return r->nseries++;
}

/* The first sample's settings (section "settings") go to the run's header. */
static void
read_settings(struct record *r, const json_t *rows)
{
    size_t i;
    const json_t *row;

    json_array_foreach(rows, i, row)
    {
        if (strcmp(record_jstr(row, "section"), "settings") == 0 ||
            strstr(record_jstr(row, "label"), "version") != NULL)
            text_add(&r->server_text, "server %s: %s", record_jstr(row, "label"),
                     record_jstr(row, "value"));
    }
}

static void
read_server(struct record *r, const json_t *o)
{
    const json_t *rows = json_object_get(o, "rows"), *row, *ev;
    struct rec_sample *s;
    double t = record_jnum(o, "t");
    size_t i;
    char name[128];

    if (rows == NULL)
        return;
    if (r->nsample == 0 && !r->have_settings_line)
        read_settings(r, rows);
    series_index(r, "server tps", 1);
    r->smp = xrealloc(r->smp, (size_t)(r->nsample + 1) * sizeof(*r->smp));
    s = &r->smp[r->nsample++];
    s->t = t;
    s->nums = xmalloc((size_t)r->nseries * sizeof(double));
    for (i = 0; i < (size_t)r->nseries; i++)
        s->nums[i] = NAN;
    s->nums[0] = record_jnum(o, "server_tps");
    json_array_foreach(rows, i, row)
    {
        if (!json_is_number(json_object_get(row, "num")))
            continue;
        const char *value = record_jstr(row, "value");
        size_t vlen = strlen(value);
        int rate = (vlen >= 2 && strcmp(value + vlen - 2, "/s") == 0) ||
                   (vlen >= 1 && value[vlen - 1] == '%');
        snprintf(name, sizeof name, "%s: %s", record_jstr(row, "section"),
                 record_jstr(row, "label"));
        int k = series_index(r, name, rate);
        r->smp[r->nsample - 1].nums[k] = record_jnum(row, "num");
    }
    json_array_foreach(json_object_get(o, "events"), i, ev) event_add(r, t, json_string_value(ev));
}

/*
 * {"type":"event"} lines: a setting that changed ("kind":"setting", name,
 * from, to), one set from the dashboard ("set": name, value, ok, error), a
 * marker ("marker": label); any other kind by its text or label.
 */
static void
read_event(struct record *r, const json_t *o)
{
    const char *kind = record_jstr(o, "kind");
    char buf[512];

    if (strcmp(kind, "setting") == 0)
        snprintf(buf, sizeof buf, "%s: %s -> %s", record_jstr(o, "name"), record_jstr(o, "from"),
                 record_jstr(o, "to"));
    else if (strcmp(kind, "set") == 0)
        snprintf(buf, sizeof buf, "set %s = %s%s%s", record_jstr(o, "name"),
                 record_jstr(o, "value"), json_is_false(json_object_get(o, "ok")) ? ": " : "",
                 record_jstr(o, "error"));
    else if (strcmp(kind, "marker") == 0)
        snprintf(buf, sizeof buf, "marker: %s", record_jstr(o, "label"));
    else
        snprintf(buf, sizeof buf, "%s%s%s%s", kind, *kind ? ": " : "", record_jstr(o, "text"),
                 record_jstr(o, "label"));
    event_add(r, record_jnum(o, "t"), buf);
}

/*
 * A collector's first {"type":"settings"} line: the settings at the start.
 * It replaces what the first server line's "settings" rows said.
 */
static void
read_settings_line(struct record *r, const json_t *o)
{
    const json_t *settings = json_object_get(o, "settings"), *v;
    const char *name;

    if (r->have_settings_line)
        return;
    r->have_settings_line = 1;
    free(r->server_text);
    r->server_text = NULL;
    json_object_foreach((json_t *)settings, name, v) text_add(
        &r->server_text, "server %s: %s", name, json_string_value(v) ? json_string_value(v) : "");
}

/* A sweep step: its measured window (start_t .. end_t) and what changed. */
static void
read_step(struct record *r, const json_t *o)
{
    struct rec_window *w;
    double rate = record_jnum(o, "rate");

    r->steps = xrealloc(r->steps, (size_t)(r->nstep + 1) * sizeof(*r->steps));
    w = &r->steps[r->nstep++];
    w->from = record_jnum(o, "start_t");
    w->to = record_jnum(o, "end_t");
    if (rate > 0)
        snprintf(w->label, sizeof w->label, "%.0f/s", rate);
    else
        snprintf(w->label, sizeof w->label, "%.0f clients", record_jnum(o, "clients"));
}

static int
read_line(struct record *r, const char *line, int lineno, char *err)
{
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    const char *type;

    if (o == NULL)
        return seterr(err, "%s:%d: not a JSON line (%s); is this a benchtop record?", r->path,
                      lineno, je.text);
    type = record_jstr(o, "type");
    if (strcmp(type, "run") == 0)
        read_run(r, o);
    else if (strcmp(type, "interval") == 0)
        read_interval(r, o);
    else if (strcmp(type, "server") == 0)
        read_server(r, o);
    else if (strcmp(type, "event") == 0)
        read_event(r, o);
    else if (strcmp(type, "settings") == 0)
        read_settings_line(r, o);
    else if (strcmp(type, "step") == 0)
        read_step(r, o);
    json_decref(o);
    return 0;
}

/* What the client side shows as events: verdict changes, reconnects, errors starting. */
static void
client_events(struct record *r)
{
    char buf[128];
    int i;

    for (i = 0; i < r->ninterval; i++) {
        const struct rec_interval *iv = &r->iv[i], *prev = i ? &r->iv[i - 1] : NULL;
        if (prev && strcmp(iv->verdict, prev->verdict) != 0) {
            snprintf(buf, sizeof buf, "verdict: %s -> %s", prev->verdict, iv->verdict);
            event_add(r, iv->t, buf);
        }
        if (iv->reconnects) {
            snprintf(buf, sizeof buf, "%llu reconnects", (unsigned long long)iv->reconnects);
            event_add(r, iv->t, buf);
        }
        if (iv->errors && (prev == NULL || prev->errors == 0)) {
            snprintf(buf, sizeof buf, "errors begin: %llu", (unsigned long long)iv->errors);
            event_add(r, iv->t, buf);
        }
    }
}

static int
by_time(const void *a, const void *b)
{
    const struct rec_event *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq - y->seq;
}

int
record_load(const char *path, struct record *r, char *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rv = 0;
    const char *slash = strrchr(path, '/');

    memset(r, 0, sizeof(*r));
    if (f == NULL)
        return seterr(err, "cannot read %s: %s (give a file written by --record or --headless)",
                      path, strerror(errno));
    r->path = xstrdup(path);
    r->name = xstrdup(slash ? slash + 1 : path);
    r->target = xstrdup("");
    r->version = xstrdup("");
    r->workload = xstrdup("");
    while (rv == 0 && getline(&line, &cap, f) > 0) {
        lineno++;
        if (line[strspn(line, " \t\r\n")] != '\0')
            rv = read_line(r, line, lineno, err);
    }
    free(line);
    fclose(f);
    client_events(r);
    if (r->nevent > 1)
        qsort(r->ev, (size_t)r->nevent, sizeof(*r->ev), by_time);
    if (r->server_text) /* its lines end in newlines already */
        text_add(&r->header_text, "%.*s", (int)strlen(r->server_text) - 1, r->server_text);
    if (rv == 0 && r->ninterval == 0)
        rv = seterr(err, "%s has no interval lines (record a run with --record FILE or --headless)",
                    path);
    return rv;
}

void
record_free(struct record *r)
{
    int i;

    for (i = 0; i < r->ninterval; i++)
        free(r->iv[i].hdr);
    for (i = 0; i < r->nsample; i++)
        free(r->smp[i].nums);
    for (i = 0; i < r->nseries; i++)
        free(r->series[i]);
    for (i = 0; i < r->nevent; i++)
        free(r->ev[i].text);
    free(r->iv);
    free(r->smp);
    free(r->series);
    free(r->series_rate);
    free(r->ev);
    free(r->steps);
    free(r->path);
    free(r->name);
    free(r->target);
    free(r->version);
    free(r->workload);
    free(r->header_text);
    free(r->server_text);
    memset(r, 0, sizeof(*r));
}

int
record_series(const struct record *r, const char *name)
{
    int i;

    for (i = 0; i < r->nseries; i++)
        if (strcmp(r->series[i], name) == 0)
            return i;
    return -1;
}

static int
in_window(const struct rec_interval *iv, double from, double to)
{
    return iv->t - iv->len >= from - EPS && (to <= 0 || iv->t <= to + EPS);
}

/* Decodes one interval's histogram into h (added to what h holds). */
static int
interval_hist(const struct record *r, const struct rec_interval *iv, struct hist *h, char *err)
{
    char msg[BT_ERRLEN];

    if (iv->hdr == NULL)
        return seterr(err, "%s has no latency histograms (recorded by an older benchtop)", r->path);
    if (hdrlog_decode(iv->hdr, h, msg) < 0)
        return seterr(err, "%s at %.3f s: %s", r->path, iv->t, msg);
    return 0;
}

int
record_merge_hist(const struct record *r, double from, double to, struct hist *h, char *err)
{
    uint64_t min = UINT64_MAX, max = 0, sum = 0, overflow = 0;
    int i;

    for (i = 0; i < r->ninterval; i++) {
        const struct rec_interval *iv = &r->iv[i];
        if (!in_window(iv, from, to))
            continue;
        if (interval_hist(r, iv, h, err) < 0)
            return -1;
        if (iv->txns + iv->overflow == 0 && iv->max == 0)
            continue;
        min = iv->min < min ? iv->min : min;
        max = iv->max > max ? iv->max : max;
        sum += iv->sum;
        overflow += iv->overflow;
    }
    if (hist_count(h) > 0 || overflow > 0)
        hist_set_exact(h, min, max, sum, overflow);
    return 0;
}

/* Running mean and variance (Welford). */
struct acc {
    int n;
    double mean, m2;
};

static void
acc_add(struct acc *a, double x)
{
    double d = x - a->mean;

    a->n++;
    a->mean += d / a->n;
    a->m2 += d * (x - a->mean);
}

static double
acc_sd(const struct acc *a)
{
    return a->n > 1 ? sqrt(a->m2 / (a->n - 1)) : NAN;
}

/* The spread of the per-interval tps, errors and percentiles: the noise. */
static int
interval_noise(const struct record *r, double from, double to, struct rec_summary *s, char *err)
{
    struct acc tps = {0}, p50 = {0}, p99 = {0}, p999 = {0}, errs = {0};
    struct hist *h = hist_new();
    int i;

    for (i = 0; i < r->ninterval; i++) {
        const struct rec_interval *iv = &r->iv[i];
        if (!in_window(iv, from, to) || iv->len <= 0)
            continue;
        hist_reset(h);
        if (interval_hist(r, iv, h, err) < 0) {
            hist_free(h);
            return -1;
        }
        acc_add(&tps, (double)iv->txns / iv->len);
        acc_add(&errs, (double)iv->errors / iv->len);
        if (hist_count(h) == 0)
            continue;
        acc_add(&p50, (double)hist_percentile(h, 50));
        acc_add(&p99, (double)hist_percentile(h, 99));
        acc_add(&p999, (double)hist_percentile(h, 99.9));
    }
    hist_free(h);
    s->sd_tps = acc_sd(&tps);
    s->sd_p50 = acc_sd(&p50);
    s->sd_p99 = acc_sd(&p99);
    s->sd_p999 = acc_sd(&p999);
    s->sd_errors = acc_sd(&errs);
    return 0;
}

/* The verdict that held for most intervals, and its share. */
static void
top_verdict(const struct record *r, double from, double to, struct rec_summary *s)
{
    int i, j, best = 0, n = 0;

    s->verdict[0] = '\0';
    for (i = 0; i < r->ninterval; i++) {
        int c = 0;
        if (!in_window(&r->iv[i], from, to))
            continue;
        n++;
        for (j = 0; j < r->ninterval; j++)
            c += in_window(&r->iv[j], from, to) && strcmp(r->iv[j].verdict, r->iv[i].verdict) == 0;
        if (c > best) {
            best = c;
            snprintf(s->verdict, sizeof s->verdict, "%s", r->iv[i].verdict);
        }
    }
    s->verdict_share = n ? (double)best / n : 0;
}

double
record_series_mean(const struct record *r, int k, double from, double to)
{
    struct acc a = {0};
    int i;

    for (i = 0; i < r->nsample; i++)
        if (k < r->nseries && r->smp[i].t >= from - EPS && (to <= 0 || r->smp[i].t <= to + EPS) &&
            !isnan(r->smp[i].nums[k]))
            acc_add(&a, r->smp[i].nums[k]);
    return a.n ? a.mean : NAN;
}

int
record_summarize(const struct record *r, double from, double to, struct rec_summary *out, char *err)
{
    struct hist *h = hist_new();
    int i, rv;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < r->ninterval; i++) {
        const struct rec_interval *iv = &r->iv[i];
        if (!in_window(iv, from, to))
            continue;
        out->n++;
        out->secs += iv->len;
        out->txns += iv->txns;
        out->errors += iv->errors;
    }
    if (out->n == 0) {
        hist_free(h);
        return seterr(err, "%s has no whole interval from %g s to %s (check --from/--to)", r->path,
                      from, to > 0 ? "the --to time" : "its end");
    }
    rv = record_merge_hist(r, from, to, h, err);
    if (rv == 0)
        rv = interval_noise(r, from, to, out, err);
    out->tps = out->secs > 0 ? (double)out->txns / out->secs : 0;
    out->errors_per_s = out->secs > 0 ? (double)out->errors / out->secs : 0;
    out->p50 = (double)hist_percentile(h, 50);
    out->p99 = (double)hist_percentile(h, 99);
    out->p999 = (double)hist_percentile(h, 99.9);
    out->max = (double)hist_max(h);
    top_verdict(r, from, to, out);
    out->srv_tps = record_series_mean(r, 0, from, to);
    hist_free(h);
    return rv;
}
