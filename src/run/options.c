/*
 * options: the engine's option table, the drivers' option groups, and
 * everything derived from them. getopt_long's arrays are built from the
 * merged list (struct opt_ref) at parse time.
 */
#include "options.h"

#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/driver.h"
#include "engine/registry.h"
#include "base/json.h"
#include "target.h"
#include "base/util.h"

#define OFF(field) offsetof(struct runconf, field)
#define SHOW (CMD_RUN | CMD_DEMO | CMD_WATCH | CMD_SWEEP | CMD_TRY)

/*
 * sweep's --clients takes a list: an entry of the same name for sweep
 * alone and without a short name, before the number (-c stays a number).
 */
const struct option_def option_table[] = {
    {"clients", 0, OPT_STRING, OFF(sweep_clients), 0, 0, "", "LIST", CMD_SWEEP,
     "sweep: client counts to step through: 1,2,4,8, 1..64 (doubling) or 10..100+10"},
    {"rates", 0, OPT_STRING, OFF(sweep_rates), 0, 0, "", "LIST", CMD_SWEEP,
     "sweep: open-loop rates to step through at a fixed -c (same forms as --clients)"},
    {"set-values", 0, OPT_STRING, OFF(sweep_set_values), 0, 0, "", "NAME=V1,V2,...", CMD_SWEEP,
     "sweep: a server setting's values to step through at a fixed -c (work_mem=4MB,16MB,64MB); "
     "put back at the end, as try does"},
    {"warmup", 0, OPT_DOUBLE, OFF(warmup_s), 0, 3600, "2", "SECONDS", CMD_SWEEP | CMD_TRY,
     "sweep, try: run each step or round this long before measuring it (the settle)"},
    {"step-time", 0, OPT_DOUBLE, OFF(step_s), 0.01, 1e6, "10", "SECONDS", CMD_SWEEP,
     "sweep: measure each step this long"},
    {"find-rate", 0, OPT_FLAG, OFF(find_rate), 0, 1, "0", "", CMD_SWEEP,
     "sweep: find the highest open-loop rate that meets --slo (from -R, default 100)"},
    {"slo", 0, OPT_STRING, OFF(slo), 0, 0, "", "TARGET", CMD_SWEEP,
     "sweep --find-rate: the latency target, e.g. 'p99<5ms' (p50, p90, p95, p99, p99.9; ms or us)"},
    {"set", 0, OPT_LIST, OFF(try_set), 0, 0, "", "NAME=VALUE", CMD_TRY,
     "try: B changes this server setting (repeatable); put back after each B round and at the "
     "end"},
    {"rounds", 0, OPT_INT, OFF(try_rounds), 1, 16, "16", "N", CMD_TRY,
     "try: at most N pairs of rounds, A and B, each pair AB or BA at random (3 at least, then "
     "more until decisive or the --budget is spent)"},
    {"min-effect", 0, OPT_DOUBLE, OFF(try_min_effect), 0.1, 1000, "5", "PERCENT", CMD_TRY,
     "try: the smallest change in tps that counts: B/A's 95% interval wholly beyond it is "
     "faster or slower, wholly within it no meaningful effect, else inconclusive"},
    {"for", 0, OPT_DOUBLE, OFF(try_for_s), 0.01, 1e6, "10", "SECONDS", CMD_TRY,
     "try: measure each round this long"},
    {"try-clients", 0, OPT_INT, OFF(try_clients), 1, 100000, "", "N", CMD_TRY,
     "try: B runs N clients instead of -c (no server permission needed)"},
    {"try-threads", 0, OPT_INT, OFF(try_threads), 1, 1024, "", "N", CMD_TRY,
     "try: B runs N worker threads instead of -j"},
    {"try-pipeline", 0, OPT_INT, OFF(try_pipeline), 1, 10000, "", "N", CMD_TRY,
     "try: B keeps N requests in flight per connection instead of --pipeline (drivers that "
     "pipeline)"},
    {"try-protocol", 0, OPT_STRING, OFF(try_protocol), 0, 0, "", "MODE", CMD_TRY,
     "try: B speaks protocol MODE instead of -M (the driver's -M modes)"},
    {"try-connect", 0, OPT_FLAG, OFF(try_connect), 0, 1, "0", "", CMD_TRY,
     "try: B opens a new connection for every transaction (as -C)"},
    {"restart", 0, OPT_FLAG, OFF(try_restart), 0, 1, "0", "", CMD_TRY,
     "try: a restart-only --set is allowed on a throwaway server benchtop serve keeps: it is "
     "restarted after each change"},
    {"undo", 0, OPT_FLAG, OFF(try_undo), 0, 1, "0", "", CMD_TRY,
     "try: put back the settings a try that died left changed on TARGET (its undo file)"},
    {"output", 'o', OPT_STRING, OFF(try_output), 0, 0, "", "FILE", CMD_TRY,
     "try: write the rounds' JSON lines and the result to FILE (benchtop report reads it)"},
    {"clients", 'c', OPT_INT, OFF(clients), 1, 100000, "1", "N", CMD_LOAD,
     "number of concurrent clients (connections)"},
    {"threads", 'j', OPT_INT, OFF(threads), 1, 1024, "1", "N", CMD_LOAD,
     "number of worker threads; clients are spread over them"},
    {"pin", 0, OPT_FLAG, OFF(pin), 0, 1, "0", "", CMD_LOAD,
     "keep each -j thread on a CPU of its own, as memaslap does"},
    {"time", 'T', OPT_DOUBLE, OFF(duration_s), 0.001, 1e7, "", "SECONDS",
     CMD_RUN | CMD_DEMO | CMD_WATCH,
     "run for this long (headless default 10; the dashboard runs until q)"},
    {"transactions", 't', OPT_LLONG, OFF(transactions), 1, 1e15, "", "N", CMD_RUN | CMD_DEMO,
     "run this many transactions per client instead of -T"},
    {"rate", 'R', OPT_DOUBLE, OFF(rate), 0, 1e9, "0", "TPS", CMD_LOAD,
     "open loop: this many transactions/s in total (Poisson arrivals)"},
    {"late-ms", 0, OPT_DOUBLE, OFF(late_ms), 0, 1e7, "10", "MS", CMD_LOAD,
     "with -R, a transaction starting this long after its schedule is late"},
    {"interval", 'P', OPT_DOUBLE, OFF(interval_s), 0.01, 3600, "1", "SECONDS", SHOW,
     "report and sample interval (fractions allowed)"},
    {"workload", 'w', OPT_STRING, OFF(workload), 0, 0, "", "NAME", CMD_LOAD,
     "built-in workload (listed per database below)"},
    {"protocol", 'M', OPT_STRING, OFF(mode), 0, 0, "", "MODE", CMD_LOAD,
     "protocol (listed per database below)"},
    {"file", 'f', OPT_LIST, OFF(script_file), 0, 0, "", "FILE[@W]", CMD_LOAD,
     "run a custom script (the database's statements with :name variables and \\set lines; "
     "see SCRIPTS in benchtop(1)); "
     "repeat for a mix, W the weight"},
    {"builtin", 'b', OPT_LIST, OFF(builtin), 0, 0, "", "NAME[@W]", CMD_LOAD,
     "add a built-in workload to the mix, W its weight (repeatable; with -f too)"},
    {"report-per-command", 'r', OPT_FLAG, OFF(per_stmt), 0, 1, "0", "", CMD_RUN,
     "per-statement latency and counts in the summary (as pgbench -r)"},
    {"connect", 'C', OPT_FLAG, OFF(connect_per_txn), 0, 1, "0", "", CMD_LOAD,
     "open a new connection for every transaction"},
    {"max-tries", 0, OPT_INT, OFF(max_tries), 1, 1000000, "1", "N", CMD_LOAD,
     "try a transaction that hit a serialization failure or deadlock up to N times"},
    {"stall-timeout", 0, OPT_DOUBLE, OFF(stall_timeout_s), 0, 1e6, "60", "SECONDS", CMD_LOAD,
     "a connect or transaction with no reply this long is a lost connection (0: never)"},
    {"headless", 0, OPT_FLAG, OFF(headless), 0, 1, "0", "", SHOW,
     "JSON lines on stdout instead of the dashboard (also when stdout is not a terminal)"},
    {"record", 0, OPT_STRING, OFF(record), 0, 0, "", "FILE", SHOW,
     "write the JSON lines to FILE while the dashboard runs; with --headless, to FILE "
     "instead of standard output"},
    {"record-queries", 0, OPT_FLAG, OFF(record_queries), 0, 1, "0", "", SHOW,
     "keep other sessions' statement text whole in the JSON lines (records); without it a "
     "statement there is its first word and a digest (UPDATE #3f2a9c)"},
    {"no-collect", 0, OPT_FLAG, OFF(no_collect), 0, 1, "0", "", CMD_LOAD,
     "do not sample the server (client figures only)"},
    {"pooler", 0, OPT_TARGET, OFF(pooler_target), 0, 0, "", "TARGET", SHOW,
     "a connection pooler's admin console, watched beside the server (found by itself when the "
     "target's port is a pooler's; none: do not look)"},
    {"server", 0, OPT_TARGET, OFF(server_target), 0, 0, "", "TARGET", CMD_LOAD,
     "with a pooler as the target: the server behind it, whose own figures the server pane shows"},
    {"watch", 0, OPT_TARGETS, OFF(watch), 0, 0, "", "TARGET", CMD_LOAD,
     "also watch TARGET (repeatable): a database behind the load's target, or an application "
     "tier's status URL; the verdict says whether it is the limit"},
    {"read-only", 0, OPT_FLAG, OFF(read_only), 0, 1, "0", "", SHOW,
     "the dashboard changes nothing: its s (set a setting), C and K (cancel, end a session) "
     "keys are off; try is refused"},
    {"theme", 0, OPT_STRING, OFF(theme), 0, 0, "", "NAME", SHOW,
     "dashboard colours: default, light, mono, or a .theme file"},
    {"seed", 0, OPT_U64, OFF(seed), 0, 1.8e19, "0", "N", CMD_LOAD,
     "random seed (0 = from the clock)"},
    {"instance", 0, OPT_STRING, OFF(instance_spec), 0, 0, "", "I/N", CMD_RUN,
     "be agent I (from 0) of N that act as one run of N times -c clients: client ids and key "
     "ranges split, seeds differ"},
    {"instances", 0, OPT_INT, OFF(instances), 1, 100000, "1", "N", CMD_RUN,
     "the agent count N when the index comes from JOB_COMPLETION_INDEX (a Kubernetes Indexed "
     "Job; or set BENCHTOP_INSTANCES)"},
    {"start-at", 0, OPT_STRING, OFF(start_at_spec), 0, 0, "", "TIME", CMD_RUN,
     "start the load at TIME (+10s, epoch seconds or 2026-12-01T02:00:00Z), so every agent's "
     "intervals line up on the wall clock"},
    {"target-file", 0, OPT_STRING, OFF(target_file), 0, 0, "", "FILE",
     CMD_RUN | CMD_INIT | CMD_SWEEP | CMD_WATCH,
     "read the target from FILE (a mounted Secret) when none is given, else from "
     "$BENCHTOP_TARGET: its password is then in no process's arguments"},
    {"records", 0, OPT_STRING, OFF(records_glob), 0, 0, "", "PATTERN", CMD_WATCH,
     "watch: follow the growing records that match PATTERN (e.g. 'records/*.jsonl', quoted) "
     "and show their agents live as one run"},
    {"stat", 0, OPT_FLAG, OFF(stat), 0, 1, "0", "", CMD_WATCH,
     "watch, headless: one line per interval with the server's main figures (as redis-cli "
     "--stat and vmstat), the header again every 20 lines, instead of JSON"},
    {"force", 0, OPT_FLAG, OFF(force), 0, 1, "0", "", CMD_INIT,
     "init: drop and recreate existing tables"},
    {"budget", 0, OPT_DOUBLE, OFF(budget_s), 0.001, 1e6, "", "SECONDS", CMD_INSPECT | CMD_TRY,
     "inspect: stop scanning the keys after this long (300; what was seen is reported); try: "
     "start no pair of rounds after this long (180; the first 3 pairs always run)"},
    {"sample", 0, OPT_U64, OFF(inspect_sample), 0, 1e12, "100000", "N", CMD_INSPECT,
     "inspect: look at N keys in full (0: all; Redis reads every key's type and length anyway)"},
    {"separator", 0, OPT_STRING, OFF(inspect_separator), 0, 0, ":", "TEXT", CMD_INSPECT,
     "inspect: a key's prefix ends at the first TEXT (user:42 is in user)"},
    {"json", 0, OPT_FLAG, OFF(inspect_json), 0, 1, "0", "", CMD_INSPECT,
     "inspect: one JSON object instead of text"},
    {"format", 0, OPT_STRING, OFF(report_format), 0, 0, "", "FMT", CMD_REPORT,
     "report: text (the default), markdown, csv or json"},
    {"from", 0, OPT_DOUBLE, OFF(report_from), 0, 1e9, "0", "SECONDS", CMD_REPORT,
     "report: leave out what was measured before this time into the run (warm-up)"},
    {"to", 0, OPT_DOUBLE, OFF(report_to), 0, 1e9, "", "SECONDS", CMD_REPORT,
     "report: leave out what was measured after this time into the run"},
    {"html", 0, OPT_STRING, OFF(report_html), 0, 0, "", "FILE", CMD_REPORT,
     "report: also write the runs' charts to FILE, one self-contained HTML page"},
    {"hlog", 0, OPT_STRING, OFF(report_hlog), 0, 0, "", "FILE", CMD_REPORT,
     "report: also write the run's latency as an HdrHistogram interval log (one RUN)"},
    {"quiet", 'q', OPT_FLAG, OFF(quiet), 0, 1, "0", "", CMD_ALL | CMD_MERGE,
     "no progress or summary on stderr"},
    {"help", 'h', OPT_FLAG, OFF(show_help), 0, 1, "0", "",
     CMD_ALL | CMD_REPORT | CMD_MERGE | CMD_SERVE | CMD_INSPECT, "show this help and exit"},
    {"version", 'V', OPT_FLAG, OFF(show_version), 0, 1, "0", "",
     CMD_ALL | CMD_REPORT | CMD_MERGE | CMD_SERVE | CMD_INSPECT,
     "show the version and the compiled-in backends, and exit"},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL},
};

/* One option of the merged list: the engine's (group NULL) or a driver group's. */
struct opt_ref {
    const struct option_def *def;
    const struct option_group *group;
};

/* Built once from constant tables: the engine's options, then each group once. */
static struct opt_ref refs[OPTIONS_MAX];
static int nrefs;

static void
add_ref(const struct option_def *def, const struct option_group *group)
{
    int i;

    for (i = 0; i < nrefs; i++)
        if (strcmp(refs[i].def->name, def->name) == 0 &&
            (refs[i].def->short_name == 0) == (def->short_name == 0))
            fatal("options: --%s is declared twice", def->name); /* but see long_name_hidden */
    if (nrefs == OPTIONS_MAX)
        fatal("options: more than %d options (raise OPTIONS_MAX)", OPTIONS_MAX);
    refs[nrefs].def = def;
    refs[nrefs++].group = group;
}

static int
group_listed(const struct option_group *g)
{
    int i;

    for (i = 0; i < nrefs; i++)
        if (refs[i].group == g)
            return 1;
    return 0;
}

static void
build_refs(void)
{
    const struct driver_class *d;
    const struct driver_options *o;
    const struct option_def *def;

    if (nrefs > 0)
        return;
    for (def = option_table; def->name != NULL; def++)
        add_ref(def, NULL);
    for (size_t i = 0; (d = driver_class_at(i)) != NULL; i++)
        for (o = d->options; o != NULL && o->group != NULL; o++)
            if (!group_listed(o->group))
                for (def = o->group->defs; def->name != NULL; def++)
                    add_ref(def, o->group);
}

/* Where driver drv keeps group g's struct, or -1 if it does not take g. */
static long
group_offset(const struct driver_class *drv, const struct option_group *g)
{
    const struct driver_options *o;

    for (o = drv->options; o != NULL && o->group != NULL; o++)
        if (o->group == g)
            return (long)o->offset;
    return -1;
}

/* "1000000000000" for whole bounds (not "1e+12"), "0.01" otherwise. */
static const char *
bound(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e20)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%g", v);
    return buf;
}

static void
range_fatal(const struct option_def *o, const char *arg)
{
    char lo[32], hi[32];

    usage_fatal("--%s must be between %s and %s, not %s", o->name, bound(o->min, lo, sizeof lo),
                bound(o->max, hi, sizeof hi), arg);
}

/* arg is not a number of o's type: say why (a whole number in range but written "1e3", too). */
static void
number_fatal(const struct option_def *o, const char *arg)
{
    double d;
    int parsed = safe_strtod(arg, &d) == 0 && o->type != OPT_DOUBLE;

    if (parsed && d == floor(d)) {
        if (d < o->min || d > o->max)
            range_fatal(o, arg);
        usage_fatal("--%s takes a whole number in digits, not '%s' (e.g. --%s %.0f)", o->name, arg,
                    o->name, d);
    }
    if (parsed)
        usage_fatal("--%s takes a whole number, not '%s'", o->name, arg);
    usage_fatal("--%s takes a number, not '%s' (e.g. --%s %s)", o->name, arg, o->name,
                o->defval[0] ? o->defval : "1");
}

static long long
parse_whole(const struct option_def *o, const char *arg)
{
    long long v;

    if (safe_strtoll(arg, &v) < 0)
        number_fatal(o, arg);
    if ((double)v < o->min || (double)v > o->max)
        range_fatal(o, arg);
    return v;
}

/* -f a.sql -f b.sql: one string "a.sql\nb.sql"; a value cannot hold the separator. */
static void
list_append(char **list, const struct option_def *o, const char *arg)
{
    size_t had = *list ? strlen(*list) : 0, n = strlen(arg);

    if (n == 0 || strchr(arg, '\n') != NULL)
        usage_fatal("--%s needs a %s without a newline, not '%s'", o->name, o->metavar, arg);
    *list = xrealloc(*list, had + n + 2);
    if (had > 0)
        (*list)[had++] = '\n';
    memcpy(*list + had, arg, n + 1);
}

static void
set_value(void *p, const struct option_def *o, const char *arg)
{
    uint64_t u;
    double d;

    switch (o->type) {
    case OPT_INT:
        *(int *)p = (int)parse_whole(o, arg);
        break;
    case OPT_LLONG:
        *(long long *)p = parse_whole(o, arg);
        break;
    case OPT_U64:
        if (safe_strtoull(arg, &u) < 0)
            number_fatal(o, arg);
        if ((double)u < o->min || (double)u > o->max)
            range_fatal(o, arg);
        *(uint64_t *)p = u;
        break;
    case OPT_DOUBLE:
        if (safe_strtod(arg, &d) < 0)
            number_fatal(o, arg);
        if (d < o->min || d > o->max)
            range_fatal(o, arg);
        *(double *)p = d;
        break;
    case OPT_STRING:
        free(*(char **)p);
        *(char **)p = arg[0] ? xstrdup(arg) : NULL;
        break;
    case OPT_TARGET:
        *(char **)p = arg[0] ? (char *)arg : NULL;
        break;
    case OPT_TARGETS:
        if (((struct target_list *)p)->n == RC_MAX_WATCH)
            usage_fatal("--%s is given more than %d times (watch fewer targets)", o->name,
                        RC_MAX_WATCH);
        if (arg[0])
            ((struct target_list *)p)->v[((struct target_list *)p)->n++] = (char *)arg;
        break;
    case OPT_FLAG:
        *(int *)p = 1;
        break;
    case OPT_LIST:
        list_append((char **)p, o, arg);
        break;
    }
}

/* Sets option r to arg in rc, or in the option struct of every driver that takes its group. */
static void
apply(struct runconf *rc, const struct opt_ref *r, const char *arg)
{
    const struct driver_class *drv;
    long off;
    size_t d;

    if (r->group == NULL) {
        set_value((char *)rc + r->def->offset, r->def, arg);
        return;
    }
    for (d = 0; (drv = driver_class_at(d)) != NULL; d++)
        if ((off = group_offset(drv, r->group)) >= 0)
            set_value((char *)rc->driver_confs[d] + off + r->def->offset, r->def, arg);
}

void
options_defaults(struct runconf *rc)
{
    const struct driver_class *drv;
    size_t d, n;
    int i;

    build_refs();
    for (n = 0; driver_class_at(n) != NULL; n++)
        continue;
    rc->driver_confs = xcalloc(n + 1, sizeof(void *));
    for (d = 0; (drv = driver_class_at(d)) != NULL; d++)
        rc->driver_confs[d] = xcalloc(1, drv->options_size);
    /* flags start at 0: the structs are zeroed, and runconf by the caller */
    for (i = 0; i < nrefs; i++)
        if (refs[i].def->type != OPT_FLAG && refs[i].def->defval[0] != '\0')
            apply(rc, &refs[i], refs[i].def->defval);
}

static const struct opt_ref *
find_ref(const char *name)
{
    int i;

    build_refs();
    for (i = 0; i < nrefs; i++)
        if (strcmp(refs[i].def->name, name) == 0)
            return &refs[i];
    return NULL;
}

/*
 * Two entries may share a long name when only one has a short name (sweep's
 * --clients LIST beside -c/--clients N): for cmd the long name goes to the
 * one without a short name if it applies, else to the one that applies.
 */
static int
long_name_hidden(int i, unsigned cmd)
{
    const struct option_def *o = refs[i].def;

    for (int j = 0; j < nrefs; j++) {
        const struct option_def *p = refs[j].def;
        if (j == i || strcmp(p->name, o->name) != 0 || !(p->commands & cmd))
            continue;
        if (!(o->commands & cmd) || (p->short_name == 0 && o->short_name != 0))
            return 1;
    }
    return 0;
}

static void
build_getopt(unsigned cmd, struct option *longs, char *shorts)
{
    int i;

    *shorts++ = '+'; /* stop at the first positional: keeps the order honest */
    *shorts++ = ':'; /* report a missing value as ':' */
    for (i = 0; i < nrefs; i++) {
        const struct option_def *o = refs[i].def;
        longs[i].name = long_name_hidden(i, cmd) ? "" : o->name; /* "" matches nothing */
        longs[i].has_arg = o->type == OPT_FLAG ? no_argument : required_argument;
        longs[i].flag = NULL;
        longs[i].val = 256 + i;
        if (o->short_name != 0) {
            *shorts++ = (char)o->short_name;
            if (o->type != OPT_FLAG)
                *shorts++ = ':';
        }
    }
    memset(&longs[nrefs], 0, sizeof(longs[nrefs]));
    *shorts = '\0';
}

static int
lookup(int c)
{
    int i;

    if (c >= 256)
        return c - 256;
    for (i = 0; i < nrefs; i++)
        if (refs[i].def->short_name == c)
            return i;
    return -1;
}

static const char *
cmd_name(unsigned cmd)
{
    return cmd == CMD_INIT      ? "init"
           : cmd == CMD_DEMO    ? "demo"
           : cmd == CMD_WATCH   ? "watch"
           : cmd == CMD_REPORT  ? "report"
           : cmd == CMD_SWEEP   ? "sweep"
           : cmd == CMD_MERGE   ? "merge"
           : cmd == CMD_SERVE   ? "serve"
           : cmd == CMD_INSPECT ? "inspect"
                                : "run";
}

/* Edits (insert, delete, change, swap two neighbours) from a to b's first nb bytes. */
static int
edit_distance(const char *a, const char *b, size_t nb)
{
    enum { MAXW = 40 };
    int d[MAXW + 1][MAXW + 1];
    size_t na = strlen(a), i, j;

    if (na > MAXW || nb > MAXW)
        return MAXW;
    for (i = 0; i <= na; i++)
        for (j = 0; j <= nb; j++) {
            int best = i == 0 ? (int)j : j == 0 ? (int)i : d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (i > 0 && j > 0 && d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (i > 0 && j > 0 && d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[na][nb];
}

/* The option of cmd nearest to a mistyped --word (its =value dropped), or NULL if none is near. */
static const char *
nearest_option(const char *word, unsigned cmd)
{
    const char *name = word + strspn(word, "-"), *best = NULL;
    size_t n = strcspn(name, "=");
    int i, dist, best_dist = n >= 6 ? 3 : 2; /* farther than that is another word */

    for (i = 0; i < nrefs; i++) {
        if (!(refs[i].def->commands & cmd))
            continue;
        dist = edit_distance(refs[i].def->name, name, n);
        if (dist < best_dist) {
            best_dist = dist;
            best = refs[i].def->name;
        }
    }
    return best;
}

static void
bad_option(char **argv, int c, unsigned cmd)
{
    const char *word = argv[optind - 1], *near;

    if (c == ':')
        usage_fatal("option %s needs a value (see benchtop --help)", word);
    if (optopt != 0 && optopt < 256)
        usage_fatal("unknown option '-%c' (see benchtop --help)", optopt);
    near = strncmp(word, "--", 2) == 0 ? nearest_option(word, cmd) : NULL;
    if (near != NULL)
        usage_fatal("unknown option '%s': did you mean --%s? (see benchtop --help)", word, near);
    usage_fatal("unknown option '%s' (see benchtop --help)", word);
}

/* argv masked in place where the option's group says its value holds a secret. */
static void
hide_secret(const struct opt_ref *r, char *arg)
{
    char *masked;

    if (r->group == NULL || r->group->mask == NULL || arg == NULL)
        return;
    masked = r->group->mask(r->def->name, arg);
    target_scrub_arg(arg, masked);
    free(masked);
}

void
options_parse(struct runconf *rc, unsigned cmd, int argc, char **argv, char ***pos, int *npos)
{
    struct option *longs;
    char *shorts, **positional = xcalloc((size_t)argc + 1, sizeof(char *));
    int c, i, np = 0;

    build_refs();
    longs = xcalloc((size_t)nrefs + 1, sizeof(*longs));
    shorts = xmalloc((size_t)nrefs * 2 + 3);
    build_getopt(cmd, longs, shorts);
    optind = 1;
    opterr = 0;
    for (;;) {
        c = getopt_long(argc, argv, shorts, longs, NULL);
        if (c == -1) {
            if (optind >= argc)
                break;
            positional[np++] = argv[optind++]; /* positional: keep going */
            continue;
        }
        i = (c == '?' || c == ':') ? -1 : lookup(c);
        if (i < 0)
            bad_option(argv, c, cmd);
        if (!(refs[i].def->commands & cmd))
            usage_fatal("--%s does not apply to 'benchtop %s' (see benchtop %s --help)",
                        refs[i].def->name, cmd_name(cmd), cmd_name(cmd));
        apply(rc, &refs[i], refs[i].def->type == OPT_FLAG ? "1" : optarg);
        if (refs[i].def->type != OPT_FLAG)
            hide_secret(&refs[i], optarg);
        rc->given[i] = 1;
        rc->given_name[i] = refs[i].def->name;
    }
    free(longs);
    free(shorts);
    *pos = positional;
    *npos = np;
}

void
options_set(struct runconf *rc, const char *name, const char *value)
{
    const struct opt_ref *r = find_ref(name);

    if (r == NULL)
        fatal("options_set: no option '%s'", name);
    apply(rc, r, value);
}

/* Any entry of that name (sweep's --clients and -c share one). */

/* "redis, memcached": the drivers that take group g. */
static const char *
group_drivers(const struct option_group *g, char *buf, size_t len)
{
    const struct driver_class *d;
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; (d = driver_class_at(i)) != NULL && used < len; i++)
        if (group_offset(d, g) >= 0)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", d->name);
    return buf;
}

void *
options_driver_conf(struct runconf *rc, const struct driver_class *drv)
{
    char names[256];
    int d, i;

    build_refs();
    for (i = 0; i < nrefs; i++)
        if (rc->given[i] && refs[i].group != NULL && group_offset(drv, refs[i].group) < 0)
            usage_fatal("--%s is not a %s option (it is for %s; drop it)", refs[i].def->name,
                        drv->name, group_drivers(refs[i].group, names, sizeof names));
    if ((d = driver_class_index(drv)) >= 0)
        return rc->driver_confs[d];
    fatal("options_driver_conf: %s is not a registered driver", drv->name);
}

/* "key-value options (redis, memcached)", or "postgres options" when the title says it all. */
static const char *
group_heading(const struct option_group *g, char *buf, size_t len)
{
    char names[256];

    group_drivers(g, names, sizeof names);
    if (strcmp(names, g->title) == 0)
        snprintf(buf, len, "%s options", g->title);
    else
        snprintf(buf, len, "%s options (%s)", g->title, names);
    return buf;
}

static void
format_flags(const struct option_def *o, char *buf, size_t len)
{
    const char *sep = o->type == OPT_FLAG ? "" : " ";
    const char *mv = o->type == OPT_FLAG ? "" : o->metavar;

    if (o->short_name != 0)
        snprintf(buf, len, "-%c, --%s%s%s", o->short_name, o->name, sep, mv);
    else
        snprintf(buf, len, "    --%s%s%s", o->name, sep, mv);
}

static void
help_line(FILE *f, const struct option_def *o)
{
    char flags[64], lead[80], text[512];

    format_flags(o, flags, sizeof(flags));
    snprintf(lead, sizeof lead, "  %s", flags);
    if (o->type != OPT_FLAG && o->type != OPT_STRING && o->type != OPT_TARGET &&
        o->type != OPT_LIST && o->defval[0] != '\0')
        snprintf(text, sizeof text, "%s [%s]", o->help, o->defval);
    else
        snprintf(text, sizeof text, "%s", o->help);
    options_print_wrapped(f, lead, HELP_TEXT_COL, text);
}

void
options_print_wrapped(FILE *f, const char *lead, int col, const char *text)
{
    int at = fprintf(f, "%s", lead);
    size_t n;

    if (at > col || (at == col && at > 0 && lead[at - 1] != ' ')) { /* the text starts below */
        fputc('\n', f);
        at = 0;
    }
    at += fprintf(f, "%*s", col - at, "");
    for (text += strspn(text, " "); *text != '\0'; text += strspn(text, " ")) {
        n = strcspn(text, " ");
        if (at > col && at + 1 + (int)n > HELP_WIDTH)
            at = fprintf(f, "\n%*s", col, "") - 1;
        else if (at > col)
            at += fprintf(f, " ");
        at += fprintf(f, "%.*s", (int)n, text);
        text += n;
    }
    fputc('\n', f);
}

void
options_print_help(FILE *f, unsigned cmd)
{
    const struct option_group *shown = NULL;
    char heading[320];
    int i;

    build_refs();
    for (i = 0; i < nrefs; i++) {
        const struct opt_ref *r = &refs[i];
        if (!(r->def->commands & cmd))
            continue;
        if (r->group != shown && r->group != NULL)
            fprintf(f, "\n%s:\n", group_heading(r->group, heading, sizeof heading));
        shown = r->group;
        help_line(f, r->def);
    }
}

static void
man_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

static void
man_item(FILE *f, const struct option_def *o)
{
    fputs(".TP\n", f);
    if (o->short_name != 0)
        fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
    fputs("\\fB\\-\\-", f);
    man_escape(f, o->name);
    fputs("\\fR", f);
    if (o->type != OPT_FLAG)
        fprintf(f, " \\fI%s\\fR", o->metavar);
    fputc('\n', f);
    man_escape(f, o->help);
    if (o->type != OPT_FLAG && o->type != OPT_STRING && o->type != OPT_TARGET &&
        o->type != OPT_LIST && o->defval[0] != '\0')
        fprintf(f, " (default %s)", o->defval);
    fputs(".\n", f);
}

void
options_print_man(FILE *f)
{
    const struct option_group *shown = NULL;
    char heading[320];
    int i;

    build_refs();
    for (i = 0; i < nrefs; i++) {
        if (refs[i].group != shown && refs[i].group != NULL) {
            fputs(".SS \"", f);
            man_escape(f, group_heading(refs[i].group, heading, sizeof heading));
            fputs("\"\n", f);
        }
        shown = refs[i].group;
        man_item(f, refs[i].def);
    }
}

/* The strings the options hold, and the drivers' option structs. */
void
options_free(struct runconf *rc)
{
    const struct driver_class *drv;
    size_t d;
    int i;

    for (i = 0; i < nrefs; i++) {
        const struct opt_ref *r = &refs[i];
        if (r->def->type != OPT_STRING && r->def->type != OPT_LIST)
            continue;
        if (r->group == NULL) {
            free(*(char **)((char *)rc + r->def->offset));
            *(char **)((char *)rc + r->def->offset) = NULL;
            continue;
        }
        for (d = 0; (drv = driver_class_at(d)) != NULL; d++) {
            long off = group_offset(drv, r->group);
            if (off >= 0)
                free(*(char **)((char *)rc->driver_confs[d] + off + r->def->offset));
        }
    }
    for (d = 0; rc->driver_confs != NULL && driver_class_at(d) != NULL; d++)
        free(rc->driver_confs[d]);
    free(rc->driver_confs);
    rc->driver_confs = NULL;
    rc->driver_conf = NULL;
}

/* A target as JSON, its password masked by its driver (stars when no driver claims it). */
static void
json_target(FILE *f, const char *target)
{
    char *masked = target ? target_mask(target) : NULL;

    json_put_string(f, masked ? masked : target && strcmp(target, "none") == 0 ? "none" : "***");
    free(masked);
}

static void
json_targets(FILE *f, const struct target_list *l)
{
    int i;

    fputc('[', f);
    for (i = 0; i < l->n; i++) {
        if (i)
            fputc(',', f);
        json_target(f, l->v[i]);
    }
    fputc(']', f);
}

/* Where option r's value is: in rc, or in the resolved driver's option struct (NULL if none). */
static const void *
value_of(const struct runconf *rc, const struct opt_ref *r)
{
    long off;

    if (r->group == NULL)
        return (const char *)rc + r->def->offset;
    if (rc->tgt.driver == NULL || rc->driver_conf == NULL ||
        (off = group_offset(rc->tgt.driver, r->group)) < 0)
        return NULL;
    return (const char *)rc->driver_conf + off + r->def->offset;
}

/* A string option's value as JSON, masked by its group: a list's values one by one. */
static void
json_option_string(FILE *f, const struct opt_ref *r, const char *value)
{
    char *out = NULL, *line, *masked, *joined;
    const char *p = value, *item;
    size_t len;

    if (r->group == NULL || r->group->mask == NULL) {
        json_put_string(f, value);
        return;
    }
    if (r->def->type != OPT_LIST) {
        masked = r->group->mask(r->def->name, value);
        json_put_string(f, masked);
        free(masked);
        return;
    }
    while (options_list_next(&p, &item, &len)) {
        line = xstrndup(item, len);
        masked = r->group->mask(r->def->name, line);
        joined = out ? xasprintf("%s\n%s", out, masked) : xstrdup(masked);
        free(out);
        free(masked);
        free(line);
        out = joined;
    }
    json_put_string(f, out ? out : "");
    free(out);
}

void
options_print_json(FILE *f, const struct runconf *rc)
{
    const void *p;
    int i, n = 0;

    build_refs();
    for (i = 0; i < nrefs; i++) {
        const struct option_def *o = refs[i].def;
        if (!rc->given[i] || (p = value_of(rc, &refs[i])) == NULL)
            continue;
        fprintf(f, "%s\"%s\":", n++ ? "," : "", o->name);
        switch (o->type) {
        case OPT_INT:
        case OPT_FLAG:
            fprintf(f, "%d", *(const int *)p);
            break;
        case OPT_LLONG:
            fprintf(f, "%lld", *(const long long *)p);
            break;
        case OPT_U64:
            fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)p);
            break;
        case OPT_DOUBLE:
            fprintf(f, "%.17g", *(const double *)p);
            break;
        case OPT_STRING:
        case OPT_LIST:
            json_option_string(f, &refs[i], *(char *const *)p ? *(char *const *)p : "");
            break;
        case OPT_TARGET:
            json_target(f, *(char *const *)p);
            break;
        case OPT_TARGETS:
            json_targets(f, p);
            break;
        }
    }
}
