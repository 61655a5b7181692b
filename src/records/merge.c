/*
 * merge: the records of agents
 * that ran as one (--instance I/N, --start-at) become one record. Intervals
 * are aligned on the wall clock (the header's start plus each interval's
 * end), their counts summed and their histograms added, so a merged
 * percentile is the percentile of every agent's samples together, never an
 * average of percentiles. The server's samples (every agent's collector
 * watched the same server) are kept once, from the lowest instance that
 * has them. Records of different targets, workloads or intervals are
 * refused. The output reads like any record (`benchtop report`).
 */
#include "merge.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hdrlog.h"
#include "base/hist.h"
#include "base/text.h"
#include "record.h"
#include "base/util.h"

enum { MAX_SPREAD = 86400 }; /* seconds between the agents' starts: more is not one run */
#define MIN_STEP 0.001       /* the shortest -P a record may have */

struct agent {
    const char *path;
    json_t *run;    /* the header */
    json_t **lines; /* every other line, as read */
    int nlines, cap;
    struct hist *scratch; /* while reading: each interval's histogram is decoded once */
    double start;         /* the header's: seconds since the epoch */
    int instance;         /* -1: not one of a fleet */
    int next;             /* the merge's cursor into lines: intervals */
    int srv_next;         /* and the server's lines, when they are kept from this agent */
};

static int
is_type(const json_t *o, const char *type)
{
    return strcmp(record_jstr(o, "type"), type) == 0;
}

/*
 * An interval line's histogram, decoded once before anything is written:
 * a bad one refuses the record instead of leaving a partial output.
 */
static int
hist_check(const json_t *o, struct hist *scratch, char *err)
{
    const char *hdr = json_string_value(json_object_get(json_object_get(o, "hist_us"), "hdr"));

    if (hdr == NULL)
        return seterr(err, "no latency histogram (record with a newer benchtop)");
    hist_reset(scratch);
    return hdrlog_decode(hdr, scratch, err);
}

static int
agent_add_line(struct agent *a, const char *line, int lineno, int last, int quiet, char *err)
{
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    char msg[BT_ERRLEN];

    if (o == NULL && last) { /* cut while written (disk full, a killed pod): keep the rest */
        if (!quiet)
            fprintf(stderr,
                    "benchtop merge: %s:%d: the last line was cut short while written; "
                    "merging the lines before it\n",
                    a->path, lineno);
        return 0;
    }
    if (o == NULL)
        return seterr(err,
                      "%s:%d: not a JSON line (%s); give records written by --headless or --record",
                      a->path, lineno, je.text);
    if (is_type(o, "interval") &&
        (record_interval_check(o, msg) < 0 || hist_check(o, a->scratch, msg) < 0)) {
        json_decref(o);
        return seterr(err, "%s:%d: %s", a->path, lineno, msg);
    }
    if (is_type(o, "run") && a->run == NULL) {
        a->run = o;
        return 0;
    }
    a->lines = xgrow(a->lines, a->nlines, &a->cap, sizeof(*a->lines));
    a->lines[a->nlines++] = o;
    return 0;
}

static int
agent_load(struct agent *a, const char *path, int quiet, char *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, rv = 0;
    double step;

    a->path = path;
    if (f == NULL)
        return seterr(
            err, "cannot read %s (give the agents' records, written by --headless or --record)",
            path);
    a->scratch = hist_new();
    while (rv == 0 && (len = getline(&line, &cap, f)) > 0)
        if (line[strspn(line, " \t\r\n")] != '\0')
            rv = agent_add_line(a, line, ++lineno, line[len - 1] != '\n', quiet, err);
        else
            lineno++;
    free(line);
    fclose(f);
    if (rv < 0)
        return -1;
    if (a->run == NULL || !(record_jnum(a->run, "start") > 0) ||
        !(record_jnum(a->run, "start") < 1e11))
        return seterr(err, "%s has no run header with its start time (is it a benchtop record?)",
                      path);
    step = record_jnum(a->run, "interval_s");
    if (!(step >= MIN_STEP && step <= RECORD_MAX_INTERVAL))
        return seterr(err, "%s: interval_s %g is out of range (%g to %g s); is the record damaged?",
                      path, step, MIN_STEP, RECORD_MAX_INTERVAL);
    a->start = record_jnum(a->run, "start");
    a->instance = json_is_integer(json_object_get(a->run, "instance")) &&
                          record_ju64(a->run, "instance") < 100000
                      ? (int)record_ju64(a->run, "instance")
                      : -1;
    return 0;
}

static void
agent_free(struct agent *a)
{
    int i;

    for (i = 0; i < a->nlines; i++)
        json_decref(a->lines[i]);
    free(a->lines);
    json_decref(a->run);
    hist_free(a->scratch);
}

/* The same field, or -1 with err naming both records. */
static int
check_same(const struct agent *a, const struct agent *b, const char *key, const char *what,
           char *err)
{
    if (strcmp(record_jstr(a->run, key), record_jstr(b->run, key)) != 0)
        return seterr(err,
                      "%s and %s are not one run: %s '%s' against '%s' (merge the agents of one "
                      "run only)",
                      a->path, b->path, what, record_jstr(a->run, key), record_jstr(b->run, key));
    return 0;
}

/* Agent i against the ones before it: one run, each record once. */
static int
agent_check(const struct agent *a, int i, char *err)
{
    if (check_same(&a[0], &a[i], "target", "target", err) < 0 ||
        check_same(&a[0], &a[i], "workload", "workload", err) < 0 ||
        check_same(&a[0], &a[i], "protocol", "protocol", err) < 0)
        return -1;
    if (fabs(record_jnum(a[0].run, "interval_s") - record_jnum(a[i].run, "interval_s")) > 1e-9)
        return seterr(err,
                      "%s and %s have different intervals (-P %g and %g): run the agents with "
                      "one -P",
                      a[0].path, a[i].path, record_jnum(a[0].run, "interval_s"),
                      record_jnum(a[i].run, "interval_s"));
    if (fabs(a[i].start - a[0].start) > MAX_SPREAD)
        return seterr(err,
                      "%s and %s started %.0f s apart: not one run (merge the agents of one run "
                      "only)",
                      a[0].path, a[i].path, fabs(a[i].start - a[0].start));
    for (int j = 0; j < i; j++) {
        if (a[i].instance >= 0 && a[i].instance == a[j].instance)
            return seterr(err, "%s and %s are both instance %d (give each agent's record once)",
                          a[j].path, a[i].path, a[i].instance);
        if (json_equal(a[i].run, a[j].run))
            return seterr(err, "%s and %s are the same record (give each agent's record once)",
                          a[j].path, a[i].path);
    }
    return 0;
}

static int
agents_check(const struct agent *a, int n, int quiet, char *err)
{
    uint64_t instances = record_ju64(a[0].run, "instances");
    int i, fleet = instances < 100000 ? (int)instances : 0;

    for (i = 1; i < n; i++)
        if (agent_check(a, i, err) < 0)
            return -1;
    if (!quiet && fleet > 1 && fleet != n)
        fprintf(stderr, "benchtop merge: %d records of a fleet of %d agents\n", n, fleet);
    return 0;
}

/* The bin an interval line falls in: its end on the wall clock, in intervals since base. */
static long
bin_of(const struct agent *a, const json_t *o, double base, double step)
{
    return lround((a->start + record_jnum(o, "t") - base) / step);
}

static void
bin_add_verdict(struct merge_bin *b, const json_t *o)
{
    const char *kind = record_jstr(json_object_get(o, "verdict"), "kind");
    int k;

    for (k = 0; k < b->nkind && strcmp(b->kinds[k], kind) != 0; k++)
        ;
    if (k == b->nkind && b->nkind == (int)(sizeof b->kinds / sizeof b->kinds[0]))
        return; /* a 17th kind: no verdict benchtop gives */
    if (k == b->nkind)
        b->kinds[b->nkind++] = kind;
    b->kind_agents[k]++;
}

const char *
merge_bin_verdict(const struct merge_bin *b, int *agree)
{
    int k, best = 0;

    for (k = 1; k < b->nkind; k++)
        best = b->kind_agents[k] > b->kind_agents[best] ? k : best;
    *agree = b->nkind ? b->kind_agents[best] : 0;
    return b->nkind ? b->kinds[best] : "";
}

static void
bin_add_kinds(struct merge_bin *b, const json_t *kinds)
{
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)kinds, k, v)
    {
        json_int_t old = json_integer_value(json_object_get(b->by_kind, k));
        json_object_set_new(b->by_kind, k, json_integer(old + json_integer_value(v)));
    }
}

void
merge_bin_start(struct merge_bin *b, struct hist *h)
{
    memset(b, 0, sizeof(*b));
    b->min = UINT64_MAX;
    b->by_kind = json_object();
    hist_reset(h);
}

void
merge_bin_free(struct merge_bin *b)
{
    json_decref(b->by_kind);
    b->by_kind = NULL;
}

int
merge_bin_add(struct merge_bin *b, const json_t *o, double end, struct hist *h, char *err)
{
    const json_t *hj = json_object_get(o, "hist_us");
    double len = record_jnum(o, "interval_s");
    char msg[BT_ERRLEN];

#define X(f) b->f += record_ju64(o, #f);
    MERGE_SUMS
#undef X
    b->ops += json_is_number(json_object_get(o, "ops")) ? record_jnum(o, "ops") * len : 0;
    b->len = len > b->len ? len : b->len;
    b->end = fmax(b->end, end);
    b->agents++;
    bin_add_kinds(b, json_object_get(o, "errors_by_kind"));
    bin_add_verdict(b, o);
    if (json_string_value(json_object_get(hj, "hdr")) == NULL)
        return seterr(err, "at %.3f s: no latency histogram (record with a newer benchtop)",
                      record_jnum(o, "t"));
    if (hdrlog_decode(record_jstr(hj, "hdr"), h, msg) < 0)
        return seterr(err, "at %.3f s: %s", record_jnum(o, "t"), msg);
    if (record_ju64(o, "transactions") + record_ju64(hj, "overflow") == 0 &&
        record_ju64(hj, "max") == 0)
        return 0; /* an empty interval's min and max say nothing */
    b->min = record_ju64(hj, "min") < b->min ? record_ju64(hj, "min") : b->min;
    b->max = record_ju64(hj, "max") > b->max ? record_ju64(hj, "max") : b->max;
    b->sum += record_ju64(hj, "sum");
    b->overflow += record_ju64(hj, "overflow");
    return 0;
}

void
merge_bin_finish(const struct merge_bin *b, struct hist *h)
{
    if (hist_count(h) > 0 || b->overflow > 0)
        hist_set_exact(h, b->min, b->max, b->sum, b->overflow);
}

static void
write_hist(FILE *f, const struct merge_bin *b, struct hist *h)
{
    struct hist_summary l;

    merge_bin_finish(b, h);
    hist_summarize(h, &l);
    fprintf(f,
            "{\"mean\":%.1f,\"p50\":%llu,\"p90\":%llu,\"p95\":%llu,\"p99\":%llu,\"p999\":%llu,"
            "\"max\":%llu}",
            l.mean, (unsigned long long)l.p50, (unsigned long long)l.p90, (unsigned long long)l.p95,
            (unsigned long long)l.p99, (unsigned long long)l.p999, (unsigned long long)l.max);
    hdrlog_write_json(f, h);
}

static void
write_interval(FILE *f, const struct merge_bin *b, struct hist *h)
{
    int agree;
    const char *kind = merge_bin_verdict(b, &agree);
    char *kinds = json_dumps(b->by_kind, JSON_COMPACT | JSON_PRESERVE_ORDER);

    fprintf(f, "{\"type\":\"interval\",\"t\":%.3f,\"interval_s\":%.3f,\"agents\":%d", b->end,
            b->len, b->agents);
#define X(fld) fprintf(f, ",\"%s\":%llu", #fld, (unsigned long long)b->fld);
    MERGE_SUMS
#undef X
    fprintf(f, ",\"tps\":%.3f,\"ops\":%.3f,\"errors_by_kind\":%s,\"lat_us\":",
            b->len > 0 ? (double)b->transactions / b->len : 0, b->len > 0 ? b->ops / b->len : 0,
            kinds ? kinds : "{}");
    write_hist(f, b, h);
    fputs(",\"verdict\":{\"kind\":", f);
    text_json(f, kind);
    fprintf(f, ",\"agents_agreeing\":%d}}\n", agree);
    free(kinds);
}

/* The header: the first agent's, for the whole fleet. */
static void
write_header(FILE *f, const struct agent *a, int n, double base)
{
    json_t *run = json_deep_copy(a[0].run), *opts = json_object_get(run, "options");
    double clients = 0, rate = 0;
    char *text;
    int i;

    for (i = 0; i < n; i++) {
        double c = record_jnum(a[i].run, "clients"), r = record_jnum(a[i].run, "rate");
        clients += c >= 0 && c < 1e7 ? c : 0; /* a damaged header's NAN or 1e300: left out */
        rate += r >= 0 && r < 1e12 ? r : 0;
    }
    json_object_set_new(run, "start", json_real(base));
    json_object_set_new(run, "clients", json_integer((json_int_t)clients));
    json_object_set_new(run, "rate", json_real(rate));
    json_object_set_new(run, "command", json_string("merge"));
    json_object_set_new(run, "agents", json_integer(n));
    json_object_del(run, "instance");
    json_object_del(run, "instances");
    json_object_del(opts, "instance");
    text = json_dumps(run, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(13));
    fprintf(f, "%s\n", text);
    free(text);
    json_decref(run);
}

/* The agent whose server samples are kept: the lowest instance that has some. */
static struct agent *
server_source(struct agent *a, int n)
{
    struct agent *best = NULL;
    int i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < a[i].nlines; j++)
            if (is_type(a[i].lines[j], "server")) {
                if (best == NULL || a[i].instance < best->instance)
                    best = &a[i];
                break;
            }
    return best;
}

/* The server's lines up to `until` (seconds since base), their times moved onto base. */
static void
write_server_lines(FILE *f, struct agent *src, double base, double until)
{
    char *text;

    for (; src != NULL && src->srv_next < src->nlines; src->srv_next++) {
        json_t *o = src->lines[src->srv_next];
        double t = src->start + record_jnum(o, "t") - base;
        if (is_type(o, "interval") || is_type(o, "summary") || is_type(o, "step") ||
            is_type(o, "ready"))
            continue;
        if (t > until + 1e-6)
            return;
        if (json_object_get(o, "t") != NULL)
            json_object_set_new(o, "t", json_real(round(t * 1000) / 1000));
        text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        fprintf(f, "%s\n", text);
        free(text);
    }
}

static void
write_summary(FILE *f, const struct agent *a, int n, const struct merge_bin *all, struct hist *h)
{
    fprintf(f, "{\"type\":\"summary\",\"duration_s\":%.3f,\"agents\":%d,\"transactions\":%llu,",
            all->end, n, (unsigned long long)all->transactions);
    fputs("\"target\":", f);
    text_json(f, record_jstr(a[0].run, "target"));
    fputs(",\"workload\":", f);
    text_json(f, record_jstr(a[0].run, "workload"));
    fprintf(f, ",\"clients\":%llu,\"tps\":%.3f,\"errors\":%llu,\"lat_us\":",
            (unsigned long long)all->clients,
            all->len > 0 ? (double)all->transactions / all->len : 0,
            (unsigned long long)all->errors);
    write_hist(f, all, h);
    fputs("}\n", f);
}

/* Gathers bin k from every agent (each agent's intervals come in time order). */
static void
bin_gather(struct merge_bin *b, struct agent *a, int n, long k, double base, double step,
           struct hist *h)
{
    char err[BT_ERRLEN];
    int i;

    merge_bin_start(b, h);
    for (i = 0; i < n; i++)
        for (; a[i].next < a[i].nlines; a[i].next++) {
            json_t *o = a[i].lines[a[i].next];
            if (!is_type(o, "interval"))
                continue;
            if (bin_of(&a[i], o, base, step) > k)
                break;
            /* its histogram decoded when read (hist_check): this cannot fail */
            merge_bin_add(b, o, a[i].start + record_jnum(o, "t") - base, h, err);
        }
}

/* Adds bin b into the run's total (the summary), clients as the most at once. */
static void
total_add(struct merge_bin *all, const struct merge_bin *b, struct hist *total,
          const struct hist *h)
{
    all->transactions += b->transactions;
    all->errors += b->errors;
    all->clients = b->clients > all->clients ? b->clients : all->clients;
    all->len += b->len;
    all->end = b->end;
    all->min = b->min < all->min ? b->min : all->min;
    all->max = b->max > all->max ? b->max : all->max;
    all->sum += b->sum;
    all->overflow += b->overflow;
    hist_merge(total, h);
}

/* The first bin after k that an agent's next interval falls in; LONG_MAX when none is left. */
static long
next_bin(const struct agent *a, int n, double base, double step)
{
    long next = LONG_MAX, k;
    int i, j;

    for (i = 0; i < n; i++)
        for (j = a[i].next; j < a[i].nlines; j++)
            if (is_type(a[i].lines[j], "interval")) {
                k = bin_of(&a[i], a[i].lines[j], base, step);
                next = k < next ? k : next;
                break;
            }
    return next;
}

static long
last_bin(const struct agent *a, int n, double base, double step)
{
    long last = 0, k;
    int i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < a[i].nlines; j++)
            if (is_type(a[i].lines[j], "interval") &&
                (k = bin_of(&a[i], a[i].lines[j], base, step)) > last)
                last = k;
    return last;
}

static void
merge_write(FILE *f, struct agent *a, int n)
{
    double base = a[0].start, step = record_jnum(a[0].run, "interval_s");
    struct agent *src = server_source(a, n);
    struct hist *h = hist_new(), *total = hist_new();
    struct merge_bin b, all = {.min = UINT64_MAX};
    long k, last;
    int i;

    for (i = 1; i < n; i++)
        base = a[i].start < base ? a[i].start : base;
    last = last_bin(a, n, base, step);
    write_header(f, a, n, base);
    /* from one bin with data to the next: never a walk through empty ones */
    for (k = next_bin(a, n, base, step); k <= last; k = next_bin(a, n, base, step)) {
        bin_gather(&b, a, n, k, base, step, h);
        if (b.agents > 0) {
            write_server_lines(f, src, base, b.end);
            write_interval(f, &b, h);
            total_add(&all, &b, total, h);
        }
        merge_bin_free(&b);
    }
    write_server_lines(f, src, base, INFINITY);
    write_summary(f, a, n, &all, total);
    hist_free(h);
    hist_free(total);
}

int
merge_records(FILE *out, char **paths, int n, int quiet, char *err)
{
    struct agent *a = xcalloc((size_t)n, sizeof(*a));
    int i, rv = 0;

    for (i = 0; i < n && rv == 0; i++)
        rv = agent_load(&a[i], paths[i], quiet, err);
    if (rv == 0)
        rv = agents_check(a, n, quiet, err);
    if (rv == 0)
        merge_write(out, a, n);
    for (i = 0; i < n; i++)
        agent_free(&a[i]);
    free(a);
    return rv;
}
