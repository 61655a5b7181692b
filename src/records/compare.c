/* compare: recorded runs side by side (see compare.h). */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hdrlog.h"
#include "output.h"
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

static const char *const formats[] = {"text", "markdown", "csv", "json", NULL};

enum { SERVER_COLS = 4 }; /* server series shown beside the table */

/*
 * "+12.3%*": b against a, * when the gap is beyond noise (NOISE_SIGMAS),
 * "?" when a run has too few intervals to tell.
 */
static void
diff_cell(char *cell, double a, double b, double sd_a, double sd_b)
{
    double noise = NOISE_SIGMAS * sqrt(sd_a * sd_a + sd_b * sd_b);
    const char *mark = isnan(noise) ? "?" : fabs(b - a) > noise ? "*" : "";

    if (a == 0)
        snprintf(cell, 64, b == 0 ? "0%%%s" : "n/a%s", mark);
    else
        snprintf(cell, 64, "%+.1f%%%s", (b - a) / a * 100.0, mark);
}

static int
beyond_noise(double a, double b, double sd_a, double sd_b)
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
    snprintf(cells[0], 64, "%.63s", rows[i].label);
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
            if (!isnan(recs[r].smp[i].nums[k])) {
                lo = fmin(lo, recs[r].smp[i].nums[k]);
                hi = fmax(hi, recs[r].smp[i].nums[k]);
            }
    }
    if (!(hi > lo))
        return 0;
    return (hi - lo) / fmax(fabs(hi), fabs(lo));
}

struct scored {
    const char *name;
    double score;
    int order; /* the collector's row order breaks ties */
};

static int
by_score(const void *a, const void *b)
{
    const struct scored *x = a, *y = b;

    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    return x->order - y->order;
}

int
report_server_series(const struct record *recs, int nrec, const char **names, int max)
{
    struct scored *c = xcalloc((size_t)recs[0].nseries + 1, sizeof(*c));
    int n = 0, k;

    for (k = 1; k < recs[0].nseries; k++) {
        if (!recs[0].series_rate[k] || strstr(recs[0].series[k], "transactions/s") != NULL)
            continue;
        c[n].name = recs[0].series[k];
        c[n].order = k;
        c[n].score = series_score(recs, nrec, c[n].name);
        n += c[n].score > 0;
    }
    qsort(c, (size_t)n, sizeof(*c), by_score);
    n = n < max ? n : max;
    for (k = 0; k < n; k++)
        names[k] = c[k].name;
    free(c);
    return n;
}

/* --- formats --- */

static void
print_text(FILE *f, const struct report_row *rows, int n)
{
    char cells[REPORT_NCOLS][64];
    int width[REPORT_NCOLS], i, c;

    for (c = 0; c < REPORT_NCOLS; c++)
        width[c] = (int)strlen(report_columns[c]);
    for (i = 0; i < n; i++) {
        report_row_cells(rows, i, cells);
        for (c = 0; c < REPORT_NCOLS; c++)
            if ((int)strlen(cells[c]) > width[c])
                width[c] = (int)strlen(cells[c]);
    }
    for (c = 0; c < REPORT_NCOLS; c++)
        fprintf(f, c ? "  %*s" : "%-*s", width[c], report_columns[c]);
    fputc('\n', f);
    for (i = 0; i < n; i++) {
        report_row_cells(rows, i, cells);
        for (c = 0; c < REPORT_NCOLS; c++)
            fprintf(f, c ? "  %*s" : "%-*s", width[c], cells[c]);
        fputc('\n', f);
    }
    if (n > 1)
        fprintf(f,
                "* beyond the runs' interval-to-interval noise (%.0f times the spread); "
                "? too few intervals to tell\n",
                NOISE_SIGMAS);
    for (i = 0; i < n && rows[i].base == 0; i++)
        ;
    if (i < n)
        fprintf(f, "\"vs 1st\" of a later sweep's step: against the first record's step at the "
                   "same load\n");
}

static void
print_markdown(FILE *f, const struct report_row *rows, int n)
{
    char cells[REPORT_NCOLS][64];
    int i, c;

    for (c = 0; c < REPORT_NCOLS; c++)
        fprintf(f, "| %s ", report_columns[c]);
    fputs("|\n", f);
    for (c = 0; c < REPORT_NCOLS; c++)
        fputs(c ? "| ---: " : "| --- ", f);
    fputs("|\n", f);
    for (i = 0; i < n; i++) {
        report_row_cells(rows, i, cells);
        for (c = 0; c < REPORT_NCOLS; c++)
            fprintf(f, "| %s ", cells[c]);
        fputs("|\n", f);
    }
}

static void
csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++)
        fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
    fputc('"', f);
}

static void
print_csv(FILE *f, const struct report_row *rows, int n)
{
    char cells[REPORT_NCOLS][64];
    int i, c;

    for (c = 0; c < REPORT_NCOLS; c++) {
        fputs(c ? "," : "", f);
        csv_field(f, report_columns[c]);
    }
    fputc('\n', f);
    for (i = 0; i < n; i++) {
        report_row_cells(rows, i, cells);
        for (c = 0; c < REPORT_NCOLS; c++) {
            fputs(c ? "," : "", f);
            csv_field(f, cells[c]);
        }
        fputc('\n', f);
    }
}

static void
json_num(FILE *f, const char *key, double v)
{
    fprintf(f, isnan(v) ? ",\"%s\":null" : ",\"%s\":%.3f", key, v);
}

static void
json_diff(FILE *f, const char *sep, const char *key, double a, double b, double sd_a, double sd_b)
{
    int beyond = beyond_noise(a, b, sd_a, sd_b);

    fprintf(f, "%s\"%s\":{", sep, key);
    if (a != 0)
        fprintf(f, "\"pct\":%.3f,", (b - a) / a * 100.0);
    fprintf(f, "\"beyond_noise\":%s}", beyond < 0 ? "null" : beyond ? "true" : "false");
}

static void
print_json_row(FILE *f, const struct report_row *rows, int i)
{
    const struct rec_summary *s = &rows[i].sum, *a = &rows[rows[i].base].sum;

    fputs("{\"run\":", f);
    json_put_string(f, rows[i].label);
    json_member_str(f, "target", rows[i].rec->target);
    json_num(f, "from", rows[i].from);
    json_num(f, "secs", s->secs);
    fprintf(f, ",\"intervals\":%d,\"transactions\":%llu,\"errors\":%llu", s->n,
            (unsigned long long)s->txns, (unsigned long long)s->errors);
    json_num(f, "tps", s->tps);
    json_num(f, "p50_us", s->p50);
    json_num(f, "p99_us", s->p99);
    json_num(f, "p999_us", s->p999);
    json_num(f, "max_us", s->max);
    json_num(f, "server_tps", s->srv_tps);
    json_member_str(f, "verdict", s->verdict);
    json_num(f, "verdict_share", s->verdict_share);
    if (i != rows[i].base) {
        json_member_str(f, "vs", rows[rows[i].base].label);
        fputs(",\"vs_first\":{", f);
        json_diff(f, "", "tps", a->tps, s->tps, a->sd_tps, s->sd_tps);
        json_diff(f, ",", "p50", a->p50, s->p50, a->sd_p50, s->sd_p50);
        json_diff(f, ",", "p99", a->p99, s->p99, a->sd_p99, s->sd_p99);
        json_diff(f, ",", "p999", a->p999, s->p999, a->sd_p999, s->sd_p999);
        json_diff(f, ",", "errors_per_s", a->errors_per_s, s->errors_per_s, a->sd_errors,
                  s->sd_errors);
        fputc('}', f);
    }
}

static void
print_json(FILE *f, const struct record *recs, int nrec, const struct report_row *rows, int n)
{
    const char *names[SERVER_COLS];
    int ns = report_server_series(recs, nrec, names, SERVER_COLS), i, c;

    fputs("[", f);
    for (i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", f);
        print_json_row(f, rows, i);
        fputs(",\"server\":{", f);
        for (c = 0; c < ns; c++) {
            int k = record_series(rows[i].rec, names[c]);
            double m = k < 0 ? NAN : record_series_mean(rows[i].rec, k, rows[i].from, rows[i].to);
            fputs(c ? "," : "", f);
            json_put_string(f, names[c]);
            fprintf(f, isnan(m) ? ":null" : ":%.3f", m);
        }
        fputs("}}", f);
    }
    fputs("\n]\n", f);
}

/* A row's mean of a named series over its window, as text. */
static void
server_cell(const struct report_row *row, const char *name, char *cell, size_t len)
{
    int k = record_series(row->rec, name);
    double m = k < 0 ? NAN : record_series_mean(row->rec, k, row->from, row->to);

    snprintf(cell, len, isnan(m) ? "-" : fabs(m) >= 100 ? "%.0f" : "%.2f", m);
}

/* The server series that differ most, mean per row (text and markdown). */
static void
print_server(FILE *f, const struct record *recs, int nrec, const struct report_row *rows, int n,
             int markdown)
{
    const char *names[SERVER_COLS];
    int ns = report_server_series(recs, nrec, names, SERVER_COLS), i, c, w0 = 3;
    char cell[64];

    if (ns == 0)
        return;
    for (i = 0; i < n; i++)
        if ((int)strlen(rows[i].label) > w0)
            w0 = (int)strlen(rows[i].label);
    fputs("\nserver, mean over each row's window:\n", f);
    if (markdown) {
        fputs("\n| run ", f);
        for (c = 0; c < ns; c++)
            fprintf(f, "| %s ", names[c]);
        fputs("|\n| --- ", f);
        for (c = 0; c < ns; c++)
            fputs("| ---: ", f);
        fputs("|\n", f);
    } else {
        fprintf(f, "%-*s", w0, "run");
        for (c = 0; c < ns; c++)
            fprintf(f, "  %s", names[c]);
        fputc('\n', f);
    }
    for (i = 0; i < n; i++) {
        if (markdown)
            fprintf(f, "| %s ", rows[i].label);
        else
            fprintf(f, "%-*s", w0, rows[i].label);
        for (c = 0; c < ns; c++) {
            server_cell(&rows[i], names[c], cell, sizeof cell);
            if (markdown)
                fprintf(f, "| %s ", cell);
            else
                fprintf(f, "  %*s", (int)strlen(names[c]), cell);
        }
        fputs(markdown ? "|\n" : "\n", f);
    }
}

/* Whether the '\n'-ended lines of text hold the line p (len bytes, without its '\n'). */
static int
has_line(const char *text, const char *p, int len)
{
    const char *q = text;

    for (; q != NULL && *q; q = strchr(q, '\n'), q = q ? q + 1 : NULL)
        if (strncmp(q, p, (size_t)len) == 0 && q[len] == '\n')
            return 1;
    return 0;
}

/* Whether every record's header holds the line p. */
static int
common_line(const struct record *recs, int nrec, const char *p, int len)
{
    int i;

    for (i = 0; i < nrec; i++)
        if (!has_line(recs[i].header_text ? recs[i].header_text : "", p, len))
            return 0;
    return 1;
}

/* The lines of text that are (want 1) or are not (want 0) in every record's header. */
static void
print_lines(FILE *f, const char *text, const struct record *recs, int nrec, int want, int markdown)
{
    const char *p = text, *nl;

    for (; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if ((nrec > 1 && common_line(recs, nrec, p, (int)(nl - p))) == want)
            fprintf(f, markdown ? "- %.*s\n" : "   %.*s\n", (int)(nl - p), p);
    }
}

/*
 * The run headers: what was run where, settings at start, events (text and
 * markdown). With several runs, what all of them share is said once, first,
 * so that each run's block shows what differs: the setting a tuning step
 * changed stands out instead of hiding in twenty equal lines.
 */
static void
print_headers(FILE *f, const struct record *recs, int nrec, int markdown)
{
    const char *first = recs[0].header_text ? recs[0].header_text : "";
    int i, j;

    if (nrec > 1 && *first) {
        fprintf(f, markdown ? "### In every run\n\n" : "in every run:\n");
        print_lines(f, first, recs, nrec, 1, markdown);
        fputc('\n', f);
    }
    for (i = 0; i < nrec; i++) {
        fprintf(f, markdown ? "### %d. %s\n\n" : "%d. %s\n", i + 1, recs[i].name);
        print_lines(f, recs[i].header_text ? recs[i].header_text : "", recs, nrec, 0, markdown);
        for (j = 0; j < recs[i].nevent; j++)
            fprintf(f, markdown ? "- event at %.1f s: %s\n" : "   event at %.1f s: %s\n",
                    recs[i].ev[j].t, recs[i].ev[j].text);
        fputc('\n', f);
    }
}

/* --- rows --- */

static int
add_rows(struct record *r, double from, double to, struct report_row **rows, int *n, char *err)
{
    int k, nwin = r->nstep ? r->nstep : 1;

    for (k = 0; k < nwin; k++) {
        struct report_row *row;
        *rows = xrealloc(*rows, (size_t)(*n + 1) * sizeof(**rows));
        row = &(*rows)[(*n)++];
        memset(row, 0, sizeof(*row));
        row->rec = r;
        row->from = r->nstep ? fmax(r->steps[k].from, from) : from;
        row->to = r->nstep ? (to > 0 ? fmin(r->steps[k].to, to) : r->steps[k].to) : to;
        row->step = r->nstep ? r->steps[k].label : NULL;
        if (r->nstep)
            snprintf(row->label, sizeof row->label, "%s %s", r->name, r->steps[k].label);
        else
            snprintf(row->label, sizeof row->label, "%s", r->name);
        if (record_summarize(r, row->from, row->to, &row->sum, err) < 0)
            return -1;
    }
    return 0;
}

/*
 * The row each row is compared with: the first. But a later sweep's step
 * goes against the first record's step at the same load when it has one:
 * 4 clients with synchronous_commit off against 4 clients with it on,
 * not against 1 client.
 */
static void
report_bases(struct report_row *rows, int n)
{
    int i, j;

    for (i = 0; i < n; i++) {
        rows[i].base = 0;
        if (rows[i].step == NULL || rows[i].rec == rows[0].rec)
            continue;
        for (j = 0; j < n && rows[j].rec == rows[0].rec; j++)
            if (rows[j].step != NULL && strcmp(rows[j].step, rows[i].step) == 0) {
                rows[i].base = j;
                break;
            }
    }
}

static void
write_hlog(const char *path, const struct record *r, double from, double to)
{
    FILE *f = fopen(path, "w");
    int i;

    if (f == NULL)
        usage_fatal("cannot write --hlog %s: %s (check the path)", path, strerror(errno));
    hdrlog_write_header(f, isnan(r->start) ? 0 : r->start);
    for (i = 0; i < r->ninterval; i++) {
        const struct rec_interval *iv = &r->iv[i];
        if (iv->hdr == NULL || iv->t - iv->len < from - 1e-6 || (to > 0 && iv->t > to + 1e-6))
            continue;
        hdrlog_write_interval(f, iv->t - iv->len, iv->len, iv->max, iv->hdr);
    }
    if (fclose(f) != 0)
        usage_fatal("cannot write --hlog %s: %s", path, strerror(errno));
}

static void
write_html(const char *path, struct record *recs, int nrec, const struct report_row *rows,
           int nrows, double from, double to)
{
    FILE *f = fopen(path, "w");
    char err[BT_ERRLEN];

    if (f == NULL)
        usage_fatal("cannot write --html %s: %s (check the path)", path, strerror(errno));
    if (report_html_write(f, recs, nrec, rows, nrows, from, to, err) < 0)
        usage_fatal("%s", err);
    if (fclose(f) != 0)
        usage_fatal("cannot write --html %s: %s", path, strerror(errno));
}

int
compare_format(const char *name)
{
    int i;

    for (i = 0; formats[i] != NULL; i++)
        if (strcmp(formats[i], name) == 0)
            return i;
    return -1;
}

int
compare_write(FILE *out, char *const *paths, int npos, const struct compare_opts *o)
{
    int fmt = o->format;
    struct record *recs;
    struct report_row *rows = NULL;
    char err[BT_ERRLEN];
    int i, nrows = 0;

    recs = xcalloc((size_t)npos, sizeof(*recs));
    for (i = 0; i < npos; i++)
        if (record_load(paths[i], &recs[i], err) < 0 ||
            add_rows(&recs[i], o->from, o->to, &rows, &nrows, err) < 0)
            usage_fatal("%s", err);
    report_bases(rows, nrows);
    if (fmt <= 1)
        print_headers(out, recs, npos, fmt == 1);
    if (fmt == 0)
        print_text(out, rows, nrows);
    else if (fmt == 1)
        print_markdown(out, rows, nrows);
    else if (fmt == 2)
        print_csv(out, rows, nrows);
    else
        print_json(out, recs, npos, rows, nrows);
    if (fmt <= 1)
        print_server(out, recs, npos, rows, nrows, fmt == 1);
    if (o->html)
        write_html(o->html, recs, npos, rows, nrows, o->from, o->to);
    if (o->hlog)
        write_hlog(o->hlog, &recs[0], o->from, o->to);
    for (i = 0; i < npos; i++)
        record_free(&recs[i]);
    free(recs);
    free(rows);
    return fflush(out) == 0 && !ferror(out) ? 0 : 1;
}
