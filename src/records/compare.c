/* compare: recorded runs side by side (see compare.h). */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/hdrlog.h"
#include "base/text.h"
#include "html.h"
#include "output.h"
#include "base/util.h"

static const char *const formats[] = {"text", "markdown", "csv", "json", NULL};

enum { SERVER_COLS = 4 }; /* server series shown beside the table */

/* --- formats --- */

/* Columns a cell takes on a terminal: its UTF-8 lead bytes ("±" is one). */
static int
cell_width(const char *s)
{
    int n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static void
print_cell(FILE *f, const char *cell, int width, int left)
{
    int pad = width - cell_width(cell);

    fprintf(f, "%*s%s%*s", left ? 0 : pad, "", cell, left ? pad : 0, "");
}

static void
print_text(FILE *f, const struct report_row *rows, int n)
{
    char cells[REPORT_NCOLS][64];
    int width[REPORT_NCOLS], i, c;

    for (c = 0; c < REPORT_NCOLS; c++)
        width[c] = cell_width(report_columns[c]);
    for (i = 0; i < n; i++) {
        report_row_cells(rows, i, cells);
        for (c = 0; c < REPORT_NCOLS; c++)
            width[c] = cell_width(cells[c]) > width[c] ? cell_width(cells[c]) : width[c];
    }
    for (c = 0; c < REPORT_NCOLS; c++) {
        fputs(c ? "  " : "", f);
        print_cell(f, report_columns[c], width[c], c == 0);
    }
    fputc('\n', f);
    for (i = 0; i < n; i++) {
        report_row_cells(rows, i, cells);
        for (c = 0; c < REPORT_NCOLS; c++) {
            fputs(c ? "  " : "", f);
            print_cell(f, cells[c], width[c], c == 0);
        }
        fputc('\n', f);
    }
    report_notes(f, rows, n, "", "\n");
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
        for (c = 0; c < REPORT_NCOLS; c++) {
            fputs("| ", f);
            text_put(f, cells[c], TEXT_MARKDOWN);
            fputc(' ', f);
        }
        fputs("|\n", f);
    }
    fputc('\n', f);
    report_notes(f, rows, n, "- ", "\n");
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
    int beyond = report_beyond_noise(a, b, sd_a, sd_b);

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
    json_num(f, "outage_s", s->outage_s); /* > 0: the step is marked and left out of the knee */
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
    for (i = 0; i < n; i++) {
        text_clean(cell, sizeof cell, rows[i].label);
        w0 = cell_width(cell) > w0 ? cell_width(cell) : w0;
    }
    fputs("\nserver, mean over each row's window:\n", f);
    if (markdown) {
        fputs("\n| run ", f);
        for (c = 0; c < ns; c++) {
            fputs("| ", f);
            text_put(f, names[c], TEXT_MARKDOWN);
            fputc(' ', f);
        }
        fputs("|\n| --- ", f);
        for (c = 0; c < ns; c++)
            fputs("| ---: ", f);
        fputs("|\n", f);
    } else {
        fprintf(f, "%-*s", w0, "run");
        for (c = 0; c < ns; c++) {
            fputs("  ", f);
            text_put(f, names[c], TEXT_TERM);
        }
        fputc('\n', f);
    }
    for (i = 0; i < n; i++) {
        text_clean(cell, sizeof cell, rows[i].label);
        if (markdown) {
            fputs("| ", f);
            text_put(f, cell, TEXT_MARKDOWN);
            fputc(' ', f);
        } else {
            print_cell(f, cell, w0, 1);
        }
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

/* "   key: value" (want_same 1) or "   key: 1. a; 2. b" for the keys that differ. */
static int
print_heads(FILE *f, const struct record *recs, int nrec, int want_same, int markdown)
{
    enum text_mode m = markdown ? TEXT_MARKDOWN : TEXT_TERM;
    int r, i, k, n = 0;

    for (r = 0; r < nrec; r++)
        for (i = 0; i < recs[r].nhead; i++) {
            const char *key = recs[r].head[i].key, *v;
            if (!record_head_first(recs, r, key) || record_head_same(recs, nrec, key) != want_same)
                continue;
            fputs(markdown ? "- " : "   ", f);
            text_put(f, key, m);
            fputs(":", f);
            for (k = 0; k < nrec; k++) {
                if (want_same && k > 0)
                    break;
                v = record_head(&recs[k], key);
                fprintf(f, want_same ? " " : "%s %d. ", k ? ";" : "", k + 1);
                text_put(f, v ? v : "(none)", m);
            }
            fputc('\n', f);
            n++;
        }
    return n;
}

/* Each run's name and events. */
static void
print_events(FILE *f, const struct record *recs, int nrec, int markdown)
{
    enum text_mode m = markdown ? TEXT_MARKDOWN : TEXT_TERM;
    int i, j;

    for (i = 0; i < nrec; i++) {
        fprintf(f, markdown ? "### %d. " : "%d. ", i + 1);
        text_put(f, recs[i].name, m);
        fputs(markdown ? "\n\n" : "\n", f);
        for (j = 0; j < recs[i].nevent; j++) {
            fprintf(f, markdown ? "- event at %.1f s: " : "   event at %.1f s: ", recs[i].ev[j].t);
            text_put(f, recs[i].ev[j].text, m);
            fputc('\n', f);
        }
        fputc('\n', f);
    }
}

/*
 * What changed first (text and markdown): the settings, options, versions
 * and host that differ between the runs, in one block before the table.
 * One run: its whole header.
 */
static void
print_differences(FILE *f, const struct record *recs, int nrec, int markdown)
{
    if (nrec == 1) {
        fputs(markdown ? "### The run\n\n" : "the run:\n", f);
        print_heads(f, recs, nrec, 1, markdown);
        fputc('\n', f);
        return;
    }
    fputs(markdown ? "### What differs between the runs\n\n" : "what differs between the runs:\n",
          f);
    if (print_heads(f, recs, nrec, 0, markdown) == 0)
        fputs(markdown ? "- nothing in settings, options, versions or host\n"
                       : "   nothing in settings, options, versions or host\n",
              f);
    fputc('\n', f);
}

/*
 * After the table: what every run shares, folded (a <details> block in
 * markdown), then each run's events.
 */
static void
print_common(FILE *f, const struct record *recs, int nrec, int markdown)
{
    fputc('\n', f);
    if (nrec > 1) {
        fputs(markdown ? "<details><summary>In every run</summary>\n\n" : "in every run:\n", f);
        print_heads(f, recs, nrec, 1, markdown);
        fputs(markdown ? "\n</details>\n\n" : "\n", f);
    }
    print_events(f, recs, nrec, markdown);
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
 * The row each row is compared with: the first. A sweep's step goes
 * against the step before it (what one more step of load bought), but a
 * later sweep's step goes against the first record's step at the same load
 * when it has one: 4 clients with synchronous_commit off against 4 clients
 * with it on, not against 1 client.
 */
static void
report_bases(struct report_row *rows, int n)
{
    int i, j;

    for (i = 0; i < n; i++) {
        rows[i].base = 0;
        if (rows[i].step == NULL)
            continue;
        if (i > 0 && rows[i - 1].rec == rows[i].rec)
            rows[i].base = i - 1;
        else if (rows[i].rec == rows[0].rec)
            rows[i].base = i;
        for (j = 0; j < n && rows[j].rec == rows[0].rec && rows[i].rec != rows[0].rec; j++)
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
        if (iv->hdr == NULL || !record_in_window(iv, from, to))
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
    return str_index(formats, name);
}

/* Whether path is one of the records (the same file, by device and inode). */
static int
is_a_record(const char *path, char *const *paths, int npos)
{
    struct stat a, b;

    if (path == NULL || stat(path, &a) != 0)
        return 0;
    for (int i = 0; i < npos; i++)
        if (stat(paths[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return 1;
    return 0;
}

/* What was left out of a record, said on stderr. */
static void
record_warn(const struct record *r)
{
    char name[256];

    text_clean(name, sizeof name, r->path);
    if (r->cut_line)
        fprintf(stderr,
                "benchtop report: %s:%d: the last line was cut short while written; "
                "reporting the lines before it\n",
                name, r->cut_line);
    if (r->series_capped)
        fprintf(stderr, "benchtop report: %s: more than %d server series; the rest left out\n",
                name, RECORD_MAX_SERIES);
}

int
compare_write(FILE *out, char *const *paths, int npos, const struct compare_opts *o)
{
    int fmt = o->format;
    struct record *recs;
    struct report_row *rows = NULL;
    char err[BT_ERRLEN];
    int i, nrows = 0;

    if (is_a_record(o->html, paths, npos) || is_a_record(o->hlog, paths, npos))
        usage_fatal("--%s %s is one of the records to report: give a new file name",
                    is_a_record(o->html, paths, npos) ? "html" : "hlog",
                    is_a_record(o->html, paths, npos) ? o->html : o->hlog);
    recs = xcalloc((size_t)npos, sizeof(*recs));
    for (i = 0; i < npos; i++) {
        if (record_load(paths[i], &recs[i], err) < 0 ||
            add_rows(&recs[i], o->from, o->to, &rows, &nrows, err) < 0)
            usage_fatal("%s", err);
        record_warn(&recs[i]);
    }
    report_bases(rows, nrows);
    if (fmt <= 1)
        print_differences(out, recs, npos, fmt == 1);
    if (fmt == 0)
        print_text(out, rows, nrows);
    else if (fmt == 1)
        print_markdown(out, rows, nrows);
    else if (fmt == 2)
        print_csv(out, rows, nrows);
    else
        print_json(out, recs, npos, rows, nrows);
    if (fmt <= 1) {
        print_server(out, recs, npos, rows, nrows, fmt == 1);
        print_common(out, recs, npos, fmt == 1);
    }
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
