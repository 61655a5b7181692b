/*
 * rows: the comparison's table as data (`benchtop report`): each row's
 * cells as text, differences against the first run judged against the
 * runs' own interval-to-interval noise, the footnotes, and the server
 * series worth showing. compare.c prints them in each format and html.c
 * draws them; both build on this.
 */
#include "rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "base/util.h"

/*
 * A difference is beyond noise when it is larger than NOISE_SIGMAS times
 * the spread of the difference of two single intervals, one from each run,
 * sqrt(sd_a^2 + sd_b^2). Not divided by sqrt(n): successive intervals are
 * not independent, and runs drift on a shared machine; a standard error
 * called two identical runs different.
 */
#define NOISE_SIGMAS 2.0

const char *const report_columns[REPORT_NCOLS] = {
    "run",     "secs",       "tps",      "tps vs 1st",   "p50 ms", "p50 vs 1st",
    "p99 ms",  "p99 vs 1st", "p99.9 ms", "p99.9 vs 1st", "errors", "errors/s vs 1st",
    "verdict", "server tps",
};

/*
 * "+12.3% ±4.1%*": b against a, with the noise band that decides the mark
 * (NOISE_SIGMAS times the spread, as a % of a): * when the gap is beyond
 * it, "?" when a run has too few intervals to tell. Empty when both are 0.
 */
static void
diff_cell(char *cell, double a, double b, double sd_a, double sd_b)
{
    double noise = NOISE_SIGMAS * sqrt(sd_a * sd_a + sd_b * sd_b);
    const char *mark = isnan(noise) ? "?" : fabs(b - a) > noise ? "*" : "";

    if (a == 0 && b == 0)
        cell[0] = '\0';
    else if (a == 0)
        snprintf(cell, 64, "n/a%s", mark);
    else if (isnan(noise))
        snprintf(cell, 64, "%+.1f%%?", (b - a) / a * 100.0);
    else
        snprintf(cell, 64, "%+.1f%% \u00b1%.1f%%%s", (b - a) / a * 100.0, noise / fabs(a) * 100.0,
                 mark);
}

int
report_beyond_noise(double a, double b, double sd_a, double sd_b)
{
    double noise = NOISE_SIGMAS * sqrt(sd_a * sd_a + sd_b * sd_b);

    return isnan(noise) ? -1 : fabs(b - a) > noise;
}

void
report_row_cells(const struct report_row *rows, int i, char cells[REPORT_NCOLS][64])
{
    const struct rec_summary *s = &rows[i].sum, *f = &rows[rows[i].base].sum;
    int c;

    for (c = 0; c < REPORT_NCOLS; c++)
        cells[c][0] = '\0';
    text_clean(cells[0], 64, rows[i].label);
    if (s->outage_s > 0) /* a step that lost its server: marked, and left out of the knee */
        snprintf(cells[1], 64, "%.1f!", s->secs);
    else
        snprintf(cells[1], 64, "%.1f", s->secs);
    snprintf(cells[2], 64, "%.1f", s->tps);
    snprintf(cells[4], 64, "%.3f", s->p50 / 1000.0);
    snprintf(cells[6], 64, "%.3f", s->p99 / 1000.0);
    snprintf(cells[8], 64, "%.3f", s->p999 / 1000.0);
    snprintf(cells[10], 64, "%llu", (unsigned long long)s->errors);
    snprintf(cells[12], 64, "%s %.0f%%", s->verdict[0] ? s->verdict : "-",
             s->verdict_share * 100.0);
    if (isnan(s->srv_tps))
        snprintf(cells[13], 64, "-");
    else
        snprintf(cells[13], 64, "%.1f", s->srv_tps);
    if (i == rows[i].base)
        return;
    diff_cell(cells[3], f->tps, s->tps, f->sd_tps, s->sd_tps);
    diff_cell(cells[5], f->p50, s->p50, f->sd_p50, s->sd_p50);
    diff_cell(cells[7], f->p99, s->p99, f->sd_p99, s->sd_p99);
    diff_cell(cells[9], f->p999, s->p999, f->sd_p999, s->sd_p999);
    diff_cell(cells[11], f->errors_per_s, s->errors_per_s, f->sd_errors, s->sd_errors);
}

/* (max - min) / max |value| of series k: over the runs' means, or one run's samples. */
static double
series_score(const struct record *recs, int nrec, const char *name)
{
    double lo = INFINITY, hi = -INFINITY;
    int r, i;

    for (r = 0; r < nrec; r++) {
        int k = record_series(&recs[r], name);
        if (k < 0)
            continue;
        if (nrec > 1) {
            double m = record_series_mean(&recs[r], k, 0, 0);
            lo = isnan(m) ? lo : fmin(lo, m);
            hi = isnan(m) ? hi : fmax(hi, m);
            continue;
        }
        for (i = 0; i < recs[r].nsample; i++)
            if (!isnan(record_sample(&recs[r], i, k))) {
                lo = fmin(lo, record_sample(&recs[r], i, k));
                hi = fmax(hi, record_sample(&recs[r], i, k));
            }
    }
    if (!(hi > lo))
        return 0;
    return (hi - lo) / fmax(fabs(hi), fabs(lo));
}

struct scored {
    const char *name;
    int tier; /* what the verdict reads first: 2 its own limit's series, 1 any limit's, 0 other */
    double score;
    int order; /* the collector's row order breaks ties */
};

static int
by_score(const void *a, const void *b)
{
    const struct scored *x = a, *y = b;

    if (x->tier != y->tier)
        return y->tier - x->tier;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    return x->order - y->order;
}

/*
 * The words of the series each verdict is judged on (the collectors' row
 * labels and sections, whatever the database): a report shows the CPU,
 * the waits, the locks and the syncs before rollbacks/s.
 */
static const struct {
    const char *verdict, *words[6];
} verdict_words[] = {
    {"server_cpu", {"cpu", NULL}},
    {"lock", {"lock", "wait", "blocked", NULL}},
    {"commit", {"sync", "commit", "flush", "wal", "i/o", NULL}},
    {"pool", {"pool", "wait", "queue", NULL}},
    {"connection", {"connect", NULL}},
    {"app", {"worker", "busy", "queue", NULL}},
};

/* Whether name holds one of the verdict's words (verdict NULL: any verdict's). */
static int
series_matches(const char *name, const char *verdict)
{
    for (size_t v = 0; v < sizeof verdict_words / sizeof *verdict_words; v++) {
        if (verdict != NULL && strcmp(verdict, verdict_words[v].verdict) != 0)
            continue;
        for (int w = 0; verdict_words[v].words[w] != NULL; w++)
            if (strcasestr(name, verdict_words[v].words[w]) != NULL)
                return 1;
    }
    return 0;
}

int
report_server_series(const struct record *recs, int nrec, const char **names, int max)
{
    struct scored *c = xcalloc((size_t)recs[0].nseries + 1, sizeof(*c));
    struct rec_summary s = {0};
    int n = 0, k;

    record_top_verdict(&recs[0], 0, 0, &s);
    for (k = 1; k < recs[0].nseries; k++) {
        if (!recs[0].series_rate[k] || strstr(recs[0].series[k], "transactions/s") != NULL)
            continue;
        c[n].name = recs[0].series[k];
        c[n].order = k;
        c[n].score = series_score(recs, nrec, c[n].name);
        c[n].tier = series_matches(c[n].name, s.verdict) ? 2 : series_matches(c[n].name, NULL);
        n += c[n].score > 0;
    }
    qsort(c, (size_t)n, sizeof(*c), by_score);
    n = n < max ? n : max;
    for (k = 0; k < n; k++)
        names[k] = c[k].name;
    free(c);
    return n;
}

void
report_notes(FILE *f, const struct report_row *rows, int n, const char *pre, const char *post)
{
    int i, later = 0, outage = 0;

    for (i = 0; i < n; i++) {
        later |= rows[i].step != NULL && rows[i].rec != rows[0].rec && rows[i].base != i &&
                 rows[rows[i].base].rec == rows[0].rec;
        outage |= rows[i].sum.outage_s > 0;
    }
    if (n > 1)
        fprintf(f,
                "%s\"vs 1st\": against the first run; a sweep's step against the step before. "
                "\u00b1 the noise band: %.0f times the spread of the two runs' intervals; "
                "* beyond it; ? too few intervals to tell%s",
                pre, NOISE_SIGMAS, post);
    if (later)
        fprintf(f,
                "%s\"vs 1st\" of a later sweep's step: against the first record's step at the "
                "same load%s",
                pre, post);
    if (outage)
        fprintf(f,
                "%ssecs with !: some intervals finished no transaction (an outage or a "
                "stall); such a step is left out of the knee%s",
                pre, post);
}
