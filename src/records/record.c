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

/* Appends key: value to a header list. */
static void
kv_add(struct rec_kv **list, int *n, const char *key, const char *value)
{
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof(**list));
    (*list)[*n].key = xstrdup(key);
    (*list)[(*n)++].value = xstrdup(value);
}

static void
kv_free(struct rec_kv *list, int n)
{
    for (int i = 0; i < n; i++) {
        free(list[i].key);
        free(list[i].value);
    }
    free(list);
}

/* A JSON value as header text: strings as they are, anything else as compact JSON. */
static void
kv_add_json(struct rec_kv **list, int *n, const char *key, const json_t *v)
{
    char *text;

    if (json_is_string(v)) {
        kv_add(list, n, key, json_string_value(v));
        return;
    }
    text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    kv_add(list, n, key, text ? text : "");
    free(text);
}

/* Whether t (seconds into a run) is a time a record may hold. */
static int
record_time_ok(double t)
{
    return isfinite(t) && t >= 0 && t <= RECORD_MAX_T;
}

static void
event_add(struct record *r, double t, const char *text)
{
    if (text == NULL || !record_time_ok(t))
        return; /* a malformed event is left out, never dereferenced */
    r->ev = xgrow(r->ev, r->nevent, &r->ev_cap, sizeof(*r->ev));
    r->ev[r->nevent].t = t;
    r->ev[r->nevent].seq = r->nevent;
    r->ev[r->nevent++].text = xstrdup(text);
}

static void
read_run(struct record *r, const json_t *o)
{
    const json_t *host = json_object_get(o, "host"), *v;
    const char *key;
    char name[160];

    free(r->target);
    free(r->version);
    free(r->workload);
    r->target = xstrdup(record_jstr(o, "target"));
    r->version = xstrdup(record_jstr(o, "benchtop"));
    r->workload = xstrdup(record_jstr(o, "workload"));
    r->start = record_jnum(o, "start");
    kv_add(&r->head, &r->nhead, "benchtop", r->version);
    kv_add(&r->head, &r->nhead, "command", record_jstr(o, "command"));
    kv_add(&r->head, &r->nhead, "target", r->target);
    kv_add(&r->head, &r->nhead, "workload", r->workload);
    kv_add(&r->head, &r->nhead, "protocol", record_jstr(o, "protocol"));
    kv_add_json(&r->head, &r->nhead, "clients", json_object_get(o, "clients"));
    kv_add_json(&r->head, &r->nhead, "threads", json_object_get(o, "threads"));
    json_object_foreach((json_t *)json_object_get(o, "options"), key, v)
    {
        snprintf(name, sizeof name, "option %s", key);
        kv_add_json(&r->head, &r->nhead, name, v);
    }
    kv_add_json(&r->head, &r->nhead, "host cores", json_object_get(host, "cores"));
    kv_add(&r->head, &r->nhead, "host kernel", record_jstr(host, "kernel"));
}

/* A count field: absent, null, or a whole number from 0 below RECORD_MAX_COUNT. */
static int
count_ok(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    double d = json_is_number(v) ? json_number_value(v) : -1;

    return v == NULL || json_is_null(v) || (d >= 0 && d < RECORD_MAX_COUNT && d == floor(d));
}

int
record_interval_check(const json_t *o, char *err)
{
    double t = record_jnum(o, "t"), len = record_jnum(o, "interval_s");
    double tps = record_jnum(o, "tps");
    const char *const counts[] = {"transactions", "errors",    "reconnects",
                                  "clients",      "connected", "late",
                                  "retried",      "retries",   "connect_fails"};

    if (!record_time_ok(t) || !(len > 0 && len <= RECORD_MAX_INTERVAL))
        return seterr(err,
                      "interval at t %g of %g s is out of range (0 <= t <= %g, "
                      "0 < interval_s <= %g); is the record damaged?",
                      t, len, RECORD_MAX_T, RECORD_MAX_INTERVAL);
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        if (!count_ok(o, counts[i]))
            return seterr(err,
                          "interval at t %g: %s is negative, fractional or too large; is the "
                          "record damaged?",
                          t, counts[i]);
    if (json_object_get(o, "transactions") == NULL && !(tps >= 0 && tps * len < RECORD_MAX_COUNT))
        return seterr(err, "interval at t %g: tps %g is out of range; is the record damaged?", t,
                      tps);
    return 0;
}

static int
read_interval(struct record *r, const json_t *o, int lineno, char *err)
{
    const json_t *h = json_object_get(o, "hist_us");
    const json_t *v = json_object_get(o, "verdict");
    struct rec_interval iv = {.t = record_jnum(o, "t"), .len = record_jnum(o, "interval_s")};
    char msg[BT_ERRLEN];

    if (record_interval_check(o, msg) < 0)
        return seterr(err, "%s:%d: %s", r->path, lineno, msg);
    iv.txns = json_object_get(o, "transactions") ? record_ju64(o, "transactions")
                                                 : u64_of(record_jnum(o, "tps") * iv.len);
    iv.errors = record_ju64(o, "errors");
    iv.reconnects = record_ju64(o, "reconnects");
    iv.clients = (int)record_ju64(o, "clients");
    snprintf(iv.verdict, sizeof iv.verdict, "%s", record_jstr(v, "kind"));
    if (json_string_value(json_object_get(h, "hdr"))) {
        iv.hdr = xstrdup(record_jstr(h, "hdr"));
        iv.min = record_ju64(h, "min");
        iv.max = record_ju64(h, "max");
        iv.sum = record_ju64(h, "sum");
        iv.overflow = record_ju64(h, "overflow");
    }
    r->iv = xgrow(r->iv, r->ninterval, &r->iv_cap, sizeof(*r->iv));
    r->iv[r->ninterval++] = iv;
    return 0;
}

/* The index of a series, added if new (-1 past RECORD_MAX_SERIES); rate: per second or a %. */
static int
series_index(struct record *r, const char *name, int rate)
{
    int i = record_series(r, name);

    if (i >= 0)
        return i;
    if (r->nseries >= RECORD_MAX_SERIES) {
        r->series_capped = 1;
        return -1;
    }
    if (r->series_ix == NULL)
        r->series_ix = json_object();
    json_object_set_new(r->series_ix, name, json_integer(r->nseries));
    r->series = xrealloc(r->series, (size_t)(r->nseries + 1) * sizeof(char *));
    r->series_rate = xrealloc(r->series_rate, (size_t)(r->nseries + 1) * sizeof(int));
    r->series[r->nseries] = xstrdup(name);
    r->series_rate[r->nseries] = rate;
    return r->nseries++;
}

/* The first sample's settings (section "settings") go to the run's header. */
static void
read_settings(struct record *r, const json_t *rows)
{
    size_t i;
    const json_t *row;
    char name[160];

    json_array_foreach(rows, i, row)
    {
        if (strcmp(record_jstr(row, "section"), "settings") == 0 ||
            strstr(record_jstr(row, "label"), "version") != NULL) {
            snprintf(name, sizeof name, "server %s", record_jstr(row, "label"));
            kv_add(&r->set, &r->nset, name, record_jstr(row, "value"));
        }
    }
}

/* Sample s's value of series k (grown to hold it). */
static void
sample_set(struct record *r, struct rec_sample *s, int k, double v)
{
    if (k < 0)
        return;
    if (k >= s->nnum) {
        s->nums = xrealloc(s->nums, (size_t)r->nseries * sizeof(double));
        for (int i = s->nnum; i < r->nseries; i++)
            s->nums[i] = NAN;
        s->nnum = r->nseries;
    }
    s->nums[k] = v;
}

static void
read_server(struct record *r, const json_t *o)
{
    const json_t *rows = json_object_get(o, "rows"), *row, *ev;
    struct rec_sample *s;
    double t = record_jnum(o, "t");
    size_t i;
    char name[160];

    if (!json_is_array(rows) || !record_time_ok(t))
        return;
    if (r->nsample == 0 && !r->have_settings_line)
        read_settings(r, rows);
    series_index(r, "server tps", 1);
    r->smp = xgrow(r->smp, r->nsample, &r->smp_cap, sizeof(*r->smp));
    s = &r->smp[r->nsample++];
    memset(s, 0, sizeof(*s));
    s->t = t;
    sample_set(r, s, 0, record_jnum(o, "server_tps"));
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
        sample_set(r, s, series_index(r, name, rate), record_jnum(row, "num"));
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
    char *buf;

    if (strcmp(kind, "setting") == 0)
        buf = xasprintf("%s: %s -> %s", record_jstr(o, "name"), record_jstr(o, "from"),
                        record_jstr(o, "to"));
    else if (strcmp(kind, "set") == 0)
        buf =
            xasprintf("set %s = %s%s%s", record_jstr(o, "name"), record_jstr(o, "value"),
                      json_is_false(json_object_get(o, "ok")) ? ": " : "", record_jstr(o, "error"));
    else if (strcmp(kind, "marker") == 0)
        buf = xasprintf("marker: %s", record_jstr(o, "label"));
    else
        buf = xasprintf("%s%s%s%s", kind, *kind ? ": " : "", record_jstr(o, "text"),
                        record_jstr(o, "label"));
    event_add(r, record_jnum(o, "t"), buf);
    free(buf);
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
    char key[160];

    if (r->have_settings_line || !json_is_object(settings))
        return;
    r->have_settings_line = 1;
    kv_free(r->set, r->nset);
    r->set = NULL;
    r->nset = 0;
    json_object_foreach((json_t *)settings, name, v)
    {
        snprintf(key, sizeof key, "server %s", name);
        kv_add(&r->set, &r->nset, key, json_string_value(v) ? json_string_value(v) : "");
    }
}

/* A sweep step: its measured window (start_t .. end_t) and what changed. */
static void
read_step(struct record *r, const json_t *o)
{
    struct rec_window *w;
    double rate = record_jnum(o, "rate"), clients = record_jnum(o, "clients");
    double from = record_jnum(o, "start_t"), to = record_jnum(o, "end_t");

    if (!record_time_ok(from) || !record_time_ok(to) || !(to > from))
        return;
    r->steps = xrealloc(r->steps, (size_t)(r->nstep + 1) * sizeof(*r->steps));
    w = &r->steps[r->nstep++];
    w->from = from;
    w->to = to;
    if (json_is_true(json_object_get(o, "capacity")))
        snprintf(w->label, sizeof w->label, "closed loop");
    else if (rate > 0 && rate < 1e12)
        snprintf(w->label, sizeof w->label, "%.0f/s", rate);
    else if (clients >= 0 && clients < 1e7)
        snprintf(w->label, sizeof w->label, "%.0f client%s", clients, clients == 1 ? "" : "s");
    else
        snprintf(w->label, sizeof w->label, "step %d", r->nstep);
}

static int
read_line(struct record *r, const char *line, int lineno, int last, char *err)
{
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    const char *type;
    int rv = 0;

    if (o == NULL && last) { /* cut while written: keep what came before */
        r->cut_line = lineno;
        return 0;
    }
    if (o == NULL)
        return seterr(err, "%s:%d: not a JSON line (%s); is this a benchtop record?", r->path,
                      lineno, je.text);
    type = record_jstr(o, "type");
    if (strcmp(type, "run") == 0)
        read_run(r, o);
    else if (strcmp(type, "interval") == 0)
        rv = read_interval(r, o, lineno, err);
    else if (strcmp(type, "server") == 0)
        read_server(r, o);
    else if (strcmp(type, "event") == 0)
        read_event(r, o);
    else if (strcmp(type, "settings") == 0)
        read_settings_line(r, o);
    else if (strcmp(type, "step") == 0)
        read_step(r, o);
    json_decref(o);
    return rv;
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

/* The load's window, and the server's settings after the run's lines in the header. */
static void
load_finish(struct record *r)
{
    client_events(r);
    if (r->nevent > 1)
        qsort(r->ev, (size_t)r->nevent, sizeof(*r->ev), by_time);
    for (int i = 0; i < r->nset; i++)
        kv_add(&r->head, &r->nhead, r->set[i].key, r->set[i].value);
    r->load_from = INFINITY;
    r->load_to = 0;
    for (int i = 0; i < r->ninterval; i++) {
        r->load_from = fmin(r->load_from, r->iv[i].t - r->iv[i].len);
        r->load_to = fmax(r->load_to, r->iv[i].t);
    }
    if (r->ninterval == 0)
        r->load_from = 0;
}

int
record_load(const char *path, struct record *r, char *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
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
    while (rv == 0 && (n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[strspn(line, " \t\r\n")] != '\0')
            rv = read_line(r, line, lineno, line[n - 1] != '\n', err);
    }
    if (rv == 0 && ferror(f))
        rv = seterr(err, "cannot read %s: %s (give a file written by --record or --headless)", path,
                    strerror(errno));
    free(line);
    fclose(f);
    load_finish(r);
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
    json_decref(r->series_ix);
    kv_free(r->head, r->nhead);
    kv_free(r->set, r->nset);
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
    memset(r, 0, sizeof(*r));
}

const char *
record_head(const struct record *r, const char *key)
{
    for (int i = 0; i < r->nhead; i++)
        if (strcmp(r->head[i].key, key) == 0)
            return r->head[i].value;
    return NULL;
}

int
record_head_same(const struct record *recs, int nrec, const char *key)
{
    const char *v = record_head(&recs[0], key);

    for (int r = 1; r < nrec; r++) {
        const char *w = record_head(&recs[r], key);
        if (v == NULL || w == NULL || strcmp(v, w) != 0)
            return 0;
    }
    return v != NULL;
}

int
record_head_first(const struct record *recs, int i, const char *key)
{
    for (int j = 0; j < i; j++)
        if (record_head(&recs[j], key) != NULL)
            return 0;
    return 1;
}

int
record_series(const struct record *r, const char *name)
{
    const json_t *k = json_object_get(r->series_ix, name);

    return k ? (int)json_integer_value(k) : -1;
}

double
record_sample(const struct record *r, int i, int k)
{
    return k >= 0 && k < r->smp[i].nnum ? r->smp[i].nums[k] : NAN;
}

int
record_in_window(const struct rec_interval *iv, double from, double to)
{
    double mid = iv->t - iv->len / 2;

    return mid >= from && (to <= 0 || mid <= to);
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

/* h's exact min, max, sum and overflow from the intervals' own, within [from, to]. */
static void
merge_exact(const struct record *r, double from, double to, struct hist *h)
{
    uint64_t min = UINT64_MAX, max = 0, sum = 0, overflow = 0;

    for (int i = 0; i < r->ninterval; i++) {
        const struct rec_interval *iv = &r->iv[i];
        if (!record_in_window(iv, from, to) || (iv->txns + iv->overflow == 0 && iv->max == 0))
            continue;
        min = iv->min < min ? iv->min : min;
        max = iv->max > max ? iv->max : max;
        sum += iv->sum;
        overflow += iv->overflow;
    }
    if (hist_count(h) > 0 || overflow > 0)
        hist_set_exact(h, min, max, sum, overflow);
}

int
record_merge_hist(const struct record *r, double from, double to, struct hist *h, char *err)
{
    for (int i = 0; i < r->ninterval; i++)
        if (record_in_window(&r->iv[i], from, to) && interval_hist(r, &r->iv[i], h, err) < 0)
            return -1;
    merge_exact(r, from, to, h);
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

/*
 * The spread of the per-interval tps, errors and percentiles: the noise.
 * Each interval is decoded once, and merged into total on the way.
 */
static int
interval_noise(const struct record *r, double from, double to, struct rec_summary *s,
               struct hist *total, char *err)
{
    struct acc tps = {0}, p50 = {0}, p99 = {0}, p999 = {0}, errs = {0};
    struct hist *h = hist_new();
    int i;

    for (i = 0; i < r->ninterval; i++) {
        const struct rec_interval *iv = &r->iv[i];
        if (!record_in_window(iv, from, to) || iv->len <= 0)
            continue;
        hist_reset(h);
        if (interval_hist(r, iv, h, err) < 0) {
            hist_free(h);
            return -1;
        }
        hist_merge(total, h);
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

/* The verdict that held for most intervals, and its share: counted once, over the few kinds. */
void
record_top_verdict(const struct record *r, double from, double to, struct rec_summary *s)
{
    enum { KINDS = 32 };
    const char *kind[KINDS];
    int count[KINDS], nkind = 0, i, k, best = 0, n = 0;

    s->verdict[0] = '\0';
    for (i = 0; i < r->ninterval; i++) {
        if (!record_in_window(&r->iv[i], from, to))
            continue;
        n++;
        for (k = 0; k < nkind && strcmp(kind[k], r->iv[i].verdict) != 0; k++)
            ;
        if (k == nkind && nkind == KINDS)
            continue; /* a hostile record's 33rd kind: not a verdict benchtop writes */
        if (k == nkind) {
            kind[nkind] = r->iv[i].verdict;
            count[nkind++] = 0;
        }
        if (++count[k] > best) {
            best = count[k];
            snprintf(s->verdict, sizeof s->verdict, "%s", kind[k]);
        }
    }
    s->verdict_share = n ? (double)best / n : 0;
}

double
record_series_mean(const struct record *r, int k, double from, double to)
{
    struct acc a = {0};
    int i;

    from = fmax(from, r->load_from);
    to = to > 0 ? fmin(to, r->load_to) : r->load_to;
    for (i = 0; i < r->nsample; i++)
        if (r->smp[i].t >= from - EPS && r->smp[i].t <= to + EPS && !isnan(record_sample(r, i, k)))
            acc_add(&a, record_sample(r, i, k));
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
        if (!record_in_window(iv, from, to))
            continue;
        out->n++;
        out->secs += iv->len;
        out->outage_s += iv->txns == 0 ? iv->len : 0;
        out->txns += iv->txns;
        out->errors += iv->errors;
    }
    if (out->n == 0) {
        hist_free(h);
        return seterr(err, "%s has no whole interval from %g s to %s (check --from/--to)", r->path,
                      from, to > 0 ? "the --to time" : "its end");
    }
    rv = interval_noise(r, from, to, out, h, err);
    if (rv == 0)
        merge_exact(r, from, to, h);
    out->tps = out->secs > 0 ? (double)out->txns / out->secs : 0;
    out->errors_per_s = out->secs > 0 ? (double)out->errors / out->secs : 0;
    out->p50 = (double)hist_percentile(h, 50);
    out->p99 = (double)hist_percentile(h, 99);
    out->p999 = (double)hist_percentile(h, 99.9);
    out->max = (double)hist_max(h);
    record_top_verdict(r, from, to, out);
    out->srv_tps = record_series_mean(r, 0, from, to);
    hist_free(h);
    return rv;
}
