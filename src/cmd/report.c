/* report: `benchtop report RUN...`: options checked, then records/compare.c. */
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
report_try(const char *path, const char *html)
{
    struct try_table *t = xcalloc(1, sizeof *t);
    char err[BT_ERRLEN];
    int rv = try_line_read(path, t, err);

    if (rv < 0)
        usage_fatal("%s", err);
    if (rv > 0)
        try_table_print(stdout, t);
    if (rv > 0 && html != NULL)
        try_html(html, path, t);
    free(t);
    return rv;
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
    if (npos == 1 && report_try(pos[0], rc->report_html))
        return 0;
    return compare_write(stdout, pos, npos, &o);
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_report_entry = {
    "report", CMD_REPORT, cmd_report,
    "benchtop report RUN... [--html FILE] [--format F] [--from S] [--to S]",
    "compare recorded runs (--record FILE / --headless > FILE), with charts"};
