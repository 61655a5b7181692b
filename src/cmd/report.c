/*
 * report: `benchtop report RUN...`: options checked; try records (-o) as
 * their A/B tables, else records/compare.c; then the advice's record over
 * all of them (the tries' scores by kind of advice) when any holds a try.
 */
#include "cmd.h"

#include "records/compare.h"
#include "records/tryreport.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/options.h"
#include "base/util.h"

/* --html FILE of a try's record: the table and A, B over time. */
static void
try_html(const char *html, const char *path, const struct try_table *t)
{
    char err[BT_ERRLEN];
    FILE *f = fopen(html, "w");

    if (f == NULL)
        usage_fatal("cannot write --html %s: %s (check the path)", html, strerror(errno));
    if (try_html_write(f, path, t, err) < 0)
        usage_fatal("%s", err);
    if (fclose(f) != 0)
        usage_fatal("cannot write --html %s: %s", html, strerror(errno));
}

/* A try's record (-o FILE): its A/B table, as try printed it (and --html). 0: not a try's. */
static int
report_try(const char *path, const char *html, int sep)
{
    struct try_table *t = xcalloc(1, sizeof *t);
    char err[BT_ERRLEN];
    int rv = try_line_read(path, t, err);

    if (rv < 0)
        usage_fatal("%s", err);
    if (rv > 0 && sep)
        fputc('\n', stdout);
    if (rv > 0)
        try_table_print(stdout, t);
    if (rv > 0 && html != NULL)
        try_html(html, path, t);
    free(t);
    return rv;
}

/* Every record a try's (-o FILE): each table, then the advice's record. 0 when one is not. */
static int
report_tries(char **pos, int npos, const char *html)
{
    char err[BT_ERRLEN];
    struct try_table *t = xcalloc(1, sizeof *t);
    int all = 1;

    for (int i = 0; i < npos && all; i++) {
        int rv = try_line_read(pos[i], t, err);

        if (rv < 0)
            usage_fatal("%s", err);
        all = rv > 0;
    }
    free(t);
    if (!all)
        return 0;
    if (npos > 1 && html != NULL)
        usage_fatal("--html of tries takes one record (give one try's -o FILE)");
    for (int i = 0; i < npos; i++)
        report_try(pos[i], html, i > 0);
    return 1;
}

/* The tries' scores over all the records (try lines and the dashboard's t), by kind of advice. */
static void
advice_record(char **pos, int npos, int sep)
{
    struct try_tally *tally = xcalloc(1, sizeof *tally);
    char err[BT_ERRLEN];
    int n = 0, got;

    for (int i = 0; i < npos; i++) {
        if ((got = try_tally_read(pos[i], tally, err)) < 0)
            usage_fatal("%s", err);
        n += got;
    }
    if (n > 0 && sep)
        fputc('\n', stdout);
    if (n > 0)
        try_tally_print(stdout, tally);
    free(tally);
}

static int
cmd_report(struct runconf *rc, char **pos, int npos)
{
    struct compare_opts o = {0};
    const char *name = rc->report_format ? rc->report_format : "text";

    o.format = compare_format(name);
    if (o.format < 0)
        usage_fatal("--format takes text, markdown, csv or json, not '%s'", name);
    o.from = rc->report_from;
    o.to = options_given(rc, "to") ? rc->report_to : 0;
    o.html = rc->report_html;
    o.hlog = rc->report_hlog;
    if (npos == 0)
        usage_fatal("report needs at least one record (e.g. benchtop report run1.jsonl "
                    "run2.jsonl; make one with --record FILE or --headless > FILE)");
    if (options_given(rc, "to") && rc->report_to <= rc->report_from)
        usage_fatal("--to %g must be later than --from %g", rc->report_to, rc->report_from);
    if (rc->report_hlog && npos != 1)
        usage_fatal("--hlog writes one run's interval log: give one record");
    if (report_tries(pos, npos, rc->report_html)) {
        if (npos > 1)
            advice_record(pos, npos, 1);
        return 0;
    }
    if (compare_write(stdout, pos, npos, &o) != 0)
        return 1;
    if (o.format == compare_format("text"))
        advice_record(pos, npos, 1); /* the dashboard's tries in run records */
    return 0;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_report_entry = {
    "report", CMD_REPORT, cmd_report,
    "benchtop report RUN... [--html FILE] [--format F] [--from S] [--to S]",
    "compare recorded runs (--record FILE / --headless > FILE), with charts"};
