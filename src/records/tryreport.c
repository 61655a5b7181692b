/* tryreport: a try's table and its record line (tryreport.h). */
#include "tryreport.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/text.h"
#include "base/util.h"
#include "record.h"

static double
pct(double b, double a)
{
    return a > 0 ? (b / a - 1) * 100 : 0;
}

/*
 * v as the record keeps it (json_number's 6 digits): the live table and
 * `report` of the record print the same figures (2.485000x ms printed
 * 2.49 live and, read back as 2.485, 2.48 in the report).
 */
static double
as_recorded(double v)
{
    char buf[32];

    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

static struct try_side
side_recorded(const struct try_side *s)
{
    struct try_side r = *s;

    r.tps = as_recorded(s->tps);
    r.p50_ms = as_recorded(s->p50_ms);
    r.p95_ms = as_recorded(s->p95_ms);
    r.p99_ms = as_recorded(s->p99_ms);
    return r;
}

static void
side_row(FILE *f, const char *name, const struct try_side *s)
{
    fprintf(f, "%-6s %12.1f %10.2f %10.2f %10.2f %8llu\n", name, s->tps, s->p50_ms, s->p95_ms,
            s->p99_ms, (unsigned long long)s->errors);
}

void
try_table_print(FILE *f, const struct try_table *t)
{
    struct try_side as = side_recorded(&t->res.a), bs = side_recorded(&t->res.b);
    const struct try_side *a = &as, *b = &bs;
    char target[600], change[600];

    /* a record is foreign text: escaped as every server string is */
    text_clean(target, sizeof target, t->target);
    text_clean(change, sizeof change, t->change);
    fprintf(f, "try %s: B = %s; %d pairs of %g s after %g s settle (at most %d, %g s budget)\n",
            target, change, t->res.pairs, t->for_s, t->warmup_s, t->rounds, t->budget_s);
    text_clean(change, sizeof change, t->stop);
    fprintf(f, "stopped: %s; each pair AB or BA by seed %llu\n", change,
            (unsigned long long)t->seed);
    fprintf(f, "%-6s %12s %10s %10s %10s %8s\n", "", "tps", "p50 ms", "p95 ms", "p99 ms", "errors");
    side_row(f, "A", a);
    side_row(f, "B", b);
    fprintf(f, "%-6s %+11.0f%% %+9.0f%% %+9.0f%% %+9.0f%%\n", "B/A", pct(b->tps, a->tps),
            pct(b->p50_ms, a->p50_ms), pct(b->p95_ms, a->p95_ms), pct(b->p99_ms, a->p99_ms));
    text_clean(change, sizeof change, t->res.sentence);
    fprintf(f, "%s\n", change);
    if (t->res.note[0]) {
        text_clean(change, sizeof change, t->res.note);
        fprintf(f, "%s\n", change);
    }
    text_clean(change, sizeof change, t->res.prediction);
    fprintf(f, "%s\n", change);
}

/* The figures a round and a side both have, as members of their object. */
static void
figures_json(FILE *f, double tps, double p50_ms, double p95_ms, double p99_ms, uint64_t errors)
{
    json_member_num(f, "tps", tps);
    json_member_num(f, "p50_ms", p50_ms);
    json_member_num(f, "p95_ms", p95_ms);
    json_member_num(f, "p99_ms", p99_ms);
    fprintf(f, ",\"errors\":%llu", (unsigned long long)errors);
}

static void
side_json(FILE *f, const char *key, const struct try_side *s)
{
    fprintf(f, ",\"%s\":{\"rounds\":%d,\"clients\":%d", key, s->n, s->clients);
    figures_json(f, s->tps, s->p50_ms, s->p95_ms, s->p99_ms, s->errors);
    fputc('}', f);
}

static void
rounds_json(FILE *f, const struct try_table *t)
{
    int i;

    fputs(",\"rounds\":[", f);
    for (i = 0; i < t->n; i++) {
        const struct try_round *r = &t->r[i];

        fprintf(f, "%s{\"side\":\"%s\",\"clients\":%d", i ? "," : "", r->b ? "B" : "A", r->clients);
        figures_json(f, r->tps, r->p50_ms, r->p95_ms, r->p99_ms, r->errors);
        json_member_str(f, "verdict", verdict_key(r->verdict));
        fputc('}', f);
    }
    fputc(']', f);
}

void
try_result_json(FILE *f, const struct try_result *res)
{
    fprintf(f, ",\"pairs\":%d", res->pairs);
    json_member_num(f, "diff", res->diff);
    json_member_num(f, "lo", res->lo);
    json_member_num(f, "hi", res->hi);
    json_member_num(f, "level", res->level);
    json_member_num(f, "min_effect", res->min_effect);
    json_member_str(f, "outcome", try_outcome_key(res->outcome));
    fprintf(f, ",\"more_pairs\":%d", res->more_pairs);
    json_member_num(f, "drift", res->drift);
    fprintf(f, ",\"drifted\":%s", res->drifted ? "true" : "false");
    json_member_str(f, "sentence", res->sentence);
    json_member_str(f, "note", res->note);
    json_member_str(f, "verdict", verdict_key(res->verdict));
    json_member_str(f, "advice", res->advice);
    json_member_num(f, "predicted_gain", res->gain > 0 ? res->gain : NAN);
    json_member_num(f, "predicted_gain_hi", res->gain > 0 ? res->gain_hi : NAN);
    json_member_str(f, "held", try_held_key(res->held));
    json_member_str(f, "prediction", res->prediction);
}

void
try_line_write(FILE *f, const struct try_table *t)
{
    const struct try_result *res = &t->res;

    fputs("{\"type\":\"try\"", f);
    json_member_str(f, "target", t->target);
    json_member_str(f, "change", t->change);
    fprintf(f, ",\"pairs_asked\":%d", t->rounds);
    json_member_num(f, "for_s", t->for_s);
    json_member_num(f, "warmup_s", t->warmup_s);
    json_member_num(f, "budget_s", t->budget_s);
    fprintf(f, ",\"seed\":%llu", (unsigned long long)t->seed);
    json_member_str(f, "stop", t->stop);
    rounds_json(f, t);
    side_json(f, "a", &res->a);
    side_json(f, "b", &res->b);
    try_result_json(f, res);
    fputs("}\n", f);
}

static void
side_read(const json_t *o, struct try_side *s)
{
    s->n = (int)record_jnum(o, "rounds");
    s->clients = (int)record_jnum(o, "clients");
    s->tps = record_jnum(o, "tps");
    s->p50_ms = record_jnum(o, "p50_ms");
    s->p95_ms = record_jnum(o, "p95_ms");
    s->p99_ms = record_jnum(o, "p99_ms");
    s->errors = u64_of(record_jnum(o, "errors"));
}

/* The judged members try_result_json wrote, back into res. */
static void
result_read(const json_t *o, struct try_result *res)
{
    const char *outcome = record_jstr(o, "outcome");

    res->pairs = (int)record_jnum(o, "pairs");
    res->diff = record_jnum(o, "diff");
    res->lo = record_jnum(o, "lo");
    res->hi = record_jnum(o, "hi");
    res->level = record_jnum(o, "level");
    res->min_effect = record_jnum(o, "min_effect");
    for (int i = 0; i <= TRY_SAME; i++)
        if (strcmp(outcome, try_outcome_key((enum try_outcome)i)) == 0)
            res->outcome = (enum try_outcome)i;
    res->drift = record_jnum(o, "drift");
    res->drifted = json_is_true(json_object_get(o, "drifted"));
    for (int k = 0; k < VK__COUNT; k++)
        if (strcmp(record_jstr(o, "verdict"), verdict_key((enum verdict_kind)k)) == 0)
            res->verdict = (enum verdict_kind)k;
    res->held = try_held_of(record_jstr(o, "held"));
    res->gain = record_jnum(o, "predicted_gain");
    res->gain_hi = record_jnum(o, "predicted_gain_hi");
    if (!(res->gain > 0)) /* no prediction: 0, as try_judge leaves it */
        res->gain = 0, res->gain_hi = NAN;
    snprintf(res->sentence, sizeof res->sentence, "%s", record_jstr(o, "sentence"));
    snprintf(res->note, sizeof res->note, "%s", record_jstr(o, "note"));
    snprintf(res->advice, sizeof res->advice, "%s", record_jstr(o, "advice"));
    snprintf(res->prediction, sizeof res->prediction, "%s", record_jstr(o, "prediction"));
}

/* The line's figures into t; the rounds, if a later report wants them, stay in the line. */
static void
line_read(const json_t *o, struct try_table *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->target, sizeof t->target, "%s", record_jstr(o, "target"));
    snprintf(t->change, sizeof t->change, "%s", record_jstr(o, "change"));
    snprintf(t->stop, sizeof t->stop, "%s", record_jstr(o, "stop"));
    t->rounds = (int)record_jnum(o, "pairs_asked");
    t->for_s = record_jnum(o, "for_s");
    t->warmup_s = record_jnum(o, "warmup_s");
    t->budget_s = record_jnum(o, "budget_s");
    t->seed = record_ju64(o, "seed");
    side_read(json_object_get(o, "a"), &t->res.a);
    side_read(json_object_get(o, "b"), &t->res.b);
    result_read(o, &t->res);
}

/* The try line or the dashboard's try event of one record line: its verdict and score. */
static int
tally_line(const char *line, struct try_tally *tally)
{
    json_t *o;
    struct try_result res;
    int is_try = strncmp(line, "{\"type\":\"try\"", 13) == 0;

    if (!is_try &&
        (strncmp(line, "{\"type\":\"event\"", 15) != 0 || strstr(line, "\"kind\":\"try\"") == NULL))
        return 0;
    if ((o = json_loads(line, 0, NULL)) == NULL || !json_is_object(o) ||
        (!is_try && strcmp(record_jstr(o, "kind"), "try") != 0) ||
        json_object_get(o, "held") == NULL) { /* a record from before the advice's record */
        json_decref(o);
        return 0;
    }
    memset(&res, 0, sizeof res);
    result_read(o, &res);
    json_decref(o);
    tally->n[res.verdict][res.held]++;
    return 1;
}

int
try_tally_read(const char *path, struct try_tally *tally, char *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    int n = 0;

    if (f == NULL)
        return seterr(err, "cannot read %s: %s", path, strerror(errno));
    while (getline(&line, &cap, f) > 0)
        n += tally_line(line, tally);
    free(line);
    fclose(f);
    return n;
}

/* "12 tries: 9 held, 1 did not, 2 inconclusive, 3 predicted nothing" from counts by score. */
static void
tally_line_print(FILE *f, const char *head, const int *c)
{
    int all = 0;

    for (int h = 0; h <= TRY_UNTESTED; h++)
        all += c[h];
    fprintf(f, "%s%d %s: %d held, %d did not, %d inconclusive", head, all,
            all == 1 ? "try" : "tries", c[TRY_HELD], c[TRY_NOT_HELD], c[TRY_UNTESTED]);
    if (c[TRY_UNPREDICTED])
        fprintf(f, ", %d predicted nothing", c[TRY_UNPREDICTED]);
    fputc('\n', f);
}

void
try_tally_print(FILE *f, const struct try_tally *tally)
{
    int sum[TRY_UNTESTED + 1] = {0}, any = 0;
    char head[96];

    for (int k = 0; k < VK__COUNT; k++)
        for (int h = 0; h <= TRY_UNTESTED; h++) {
            sum[h] += tally->n[k][h];
            any += tally->n[k][h];
        }
    if (!any)
        return;
    tally_line_print(f, "the advice's record: ", sum);
    for (int k = 0; k < VK__COUNT; k++) {
        int n = 0;

        for (int h = 0; h <= TRY_UNTESTED; h++)
            n += tally->n[k][h];
        if (n == 0)
            continue;
        snprintf(head, sizeof head,
                 "  %s: ", k == VK_NONE ? "no verdict" : verdict_label((enum verdict_kind)k));
        tally_line_print(f, head, tally->n[k]);
    }
}

int
try_line_read(const char *path, struct try_table *t, char *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    json_t *o;
    int found = 0;

    if (f == NULL)
        return seterr(err, "cannot read %s: %s", path, strerror(errno));
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, "{\"type\":\"try\"", 13) != 0)
            continue;
        if ((o = json_loads(line, 0, NULL)) == NULL || !json_is_object(o)) {
            json_decref(o);
            continue;
        }
        line_read(o, t);
        json_decref(o);
        found = 1;
    }
    free(line);
    fclose(f);
    return found;
}
