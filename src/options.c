/*
 * options: the option table and everything derived from it.
 * getopt_long's arrays are built from the table at parse time.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

#define OFF(field) offsetof(struct runconf, field)
#define ALL (CMD_RUN | CMD_INIT | CMD_DEMO | CMD_WATCH)
#define LOAD (CMD_RUN | CMD_DEMO)
#define SHOW (CMD_RUN | CMD_DEMO | CMD_WATCH)

const struct option_def option_table[] = {
    {"clients", 'c', OPT_INT, OFF(clients), 1, 100000, "1", "N", LOAD,
     "number of concurrent clients (connections)"},
    {"threads", 'j', OPT_INT, OFF(threads), 1, 1024, "1", "N", LOAD,
     "number of worker threads; clients are spread over them"},
    {"pin", 0, OPT_FLAG, OFF(pin), 0, 1, "0", "", LOAD,
     "keep each -j thread on a CPU of its own, as memaslap does"},
    {"time", 'T', OPT_DOUBLE, OFF(duration_s), 0.001, 1e7, "", "SECONDS", SHOW,
     "run for this long (headless default 10; the dashboard runs until q)"},
    {"transactions", 't', OPT_LLONG, OFF(transactions), 1, 1e15, "", "N", LOAD,
     "run this many transactions per client instead of -T"},
    {"rate", 'R', OPT_DOUBLE, OFF(rate), 0, 1e9, "0", "TPS", LOAD,
     "open loop: this many transactions/s in total (Poisson arrivals)"},
    {"late-ms", 0, OPT_DOUBLE, OFF(late_ms), 0, 1e7, "10", "MS", LOAD,
     "with -R, a transaction starting this long after its schedule is late"},
    {"interval", 'P', OPT_DOUBLE, OFF(interval_s), 0.01, 3600, "1", "SECONDS", SHOW,
     "report and sample interval (fractions allowed)"},
    {"workload", 'w', OPT_STRING, OFF(workload), 0, 0, "", "NAME", LOAD,
     "built-in workload (listed per database below)"},
    {"protocol", 'M', OPT_STRING, OFF(mode), 0, 0, "", "MODE", LOAD,
     "protocol (listed per database below)"},
    {"file", 'f', OPT_STRING, OFF(script_file), 0, 0, "", "FILE", LOAD,
     "run a custom script: SQL with :name variables and \\set lines"},
    {"connect", 'C', OPT_FLAG, OFF(connect_per_txn), 0, 1, "0", "", LOAD,
     "open a new connection for every transaction"},
    {"headless", 0, OPT_FLAG, OFF(headless), 0, 1, "0", "", SHOW,
     "JSON lines on stdout instead of the dashboard (also when stdout is not a terminal)"},
    {"record", 0, OPT_STRING, OFF(record), 0, 0, "", "FILE", SHOW,
     "write the JSON lines to FILE while the dashboard runs"},
    {"no-collect", 0, OPT_FLAG, OFF(no_collect), 0, 1, "0", "", LOAD,
     "do not sample the server (client figures only)"},
    {"read-only", 0, OPT_FLAG, OFF(read_only), 0, 1, "0", "", SHOW,
     "the dashboard's s key (set a server setting) is off"},
    {"theme", 0, OPT_STRING, OFF(theme), 0, 0, "", "NAME", SHOW,
     "dashboard colours: default, light, mono, or a .theme file"},
    {"seed", 0, OPT_U64, OFF(seed), 0, 1.8e19, "0", "N", LOAD, "random seed (0 = from the clock)"},
    {"keys", 0, OPT_LLONG, OFF(keys), 1, 1e12, "100000", "N", LOAD,
     "key-value: size of the key space"},
    {"key-pattern", 0, OPT_STRING, OFF(key_pattern), 0, 0, "uniform", "P", LOAD,
     "key-value: how keys are drawn: seq, uniform or zipf"},
    {"value-size", 0, OPT_INT, OFF(value_size), 1, 64 << 20, "32", "BYTES", LOAD,
     "key-value: bytes per value written"},
    {"ratio", 0, OPT_STRING, OFF(ratio), 0, 0, "", "SET:GET", LOAD,
     "key-value: mix of the mixed workload (redis 1:10, memcached 1:9)"},
    {"pipeline", 0, OPT_INT, OFF(pipeline), 1, 10000, "1", "DEPTH", LOAD,
     "key-value: requests in flight per connection, each timed alone"},
    {"batch", 0, OPT_INT, OFF(batch), 1, 10000, "10", "N", LOAD,
     "memcached multiget: keys per request"},
    {"fill", 0, OPT_FLAG, OFF(fill), 0, 1, "0", "", LOAD,
     "key-value: write every key once before the run"},
    {"scale", 's', OPT_INT, OFF(scale), 1, 1000000, "1", "N", CMD_INIT | CMD_DEMO,
     "postgres init: scale factor (as pgbench -i -s: 100,000 accounts per unit)"},
    {"tables", 0, OPT_INT, OFF(tables), 1, 10000, "1", "N", ALL,
     "mysql: sysbench tables sbtest1..N (init creates them, runs use them)"},
    {"table-size", 0, OPT_LLONG, OFF(table_size), 1, 1e12, "10000", "N", ALL,
     "mysql: rows per sysbench table"},
    {"force", 0, OPT_FLAG, OFF(force), 0, 1, "0", "", CMD_INIT,
     "init: drop and recreate existing tables"},
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
    {"quiet", 'q', OPT_FLAG, OFF(quiet), 0, 1, "0", "", ALL, "no progress or summary on stderr"},
    {"help", 'h', OPT_FLAG, OFF(show_help), 0, 1, "0", "", ALL | CMD_REPORT,
     "show this help and exit"},
    {"version", 'V', OPT_FLAG, OFF(show_version), 0, 1, "0", "", ALL | CMD_REPORT,
     "show the version and the compiled-in backends, and exit"},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL},
};

static int
table_size(void)
{
    int n = 0;

    while (option_table[n].name != NULL)
        n++;
    return n;
}

static void *
field(struct runconf *rc, const struct option_def *o)
{
    return (char *)rc + o->offset;
}

static double
parse_number(const struct option_def *o, const char *arg)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (errno != 0 || end == arg || *end != '\0' || !isfinite(v))
        usage_fatal("--%s takes a number, not '%s' (e.g. --%s %s)", o->name, arg, o->name,
                    o->defval[0] ? o->defval : "1");
    if (o->type != OPT_DOUBLE && v != floor(v))
        usage_fatal("--%s takes a whole number, not '%s'", o->name, arg);
    if (v < o->min || v > o->max)
        usage_fatal("--%s must be between %g and %g, not %s", o->name, o->min, o->max, arg);
    return v;
}

static void
set_value(struct runconf *rc, const struct option_def *o, const char *arg)
{
    void *p = field(rc, o);

    switch (o->type) {
    case OPT_INT:
        *(int *)p = (int)parse_number(o, arg);
        break;
    case OPT_LLONG:
        *(long long *)p = (long long)parse_number(o, arg);
        break;
    case OPT_U64:
        *(uint64_t *)p = (uint64_t)parse_number(o, arg);
        break;
    case OPT_DOUBLE:
        *(double *)p = parse_number(o, arg);
        break;
    case OPT_STRING:
        free(*(char **)p);
        *(char **)p = arg[0] ? xstrdup(arg) : NULL;
        break;
    case OPT_FLAG:
        *(int *)p = 1;
        break;
    }
}

void
options_defaults(struct runconf *rc)
{
    const struct option_def *o;

    for (o = option_table; o->name != NULL; o++) {
        if (o->type == OPT_FLAG)
            *(int *)field(rc, o) = 0;
        else if (o->defval[0] != '\0')
            set_value(rc, o, o->defval);
    }
}

static void
build_getopt(unsigned cmd, struct option *longs, char *shorts)
{
    const struct option_def *o;
    int n = 0;

    *shorts++ = '+'; /* stop at the first positional: keeps the order honest */
    *shorts++ = ':'; /* report a missing value as ':' */
    for (o = option_table; o->name != NULL; o++) {
        longs[n].name = o->name;
        longs[n].has_arg = o->type == OPT_FLAG ? no_argument : required_argument;
        longs[n].flag = NULL;
        longs[n].val = 256 + (int)(o - option_table);
        n++;
        if (o->short_name != 0) {
            *shorts++ = (char)o->short_name;
            if (o->type != OPT_FLAG)
                *shorts++ = ':';
        }
    }
    memset(&longs[n], 0, sizeof(longs[n]));
    *shorts = '\0';
}

static const struct option_def *
lookup(int c)
{
    const struct option_def *o;

    if (c >= 256)
        return &option_table[c - 256];
    for (o = option_table; o->name != NULL; o++)
        if (o->short_name == c)
            return o;
    return NULL;
}

static const char *
cmd_name(unsigned cmd)
{
    return cmd == CMD_INIT     ? "init"
           : cmd == CMD_DEMO   ? "demo"
           : cmd == CMD_WATCH  ? "watch"
           : cmd == CMD_REPORT ? "report"
                               : "run";
}

static void
bad_option(char **argv, int c)
{
    const char *word = argv[optind - 1];

    if (c == ':')
        usage_fatal("option %s needs a value (see benchtop --help)", word);
    if (optopt != 0 && optopt < 256)
        usage_fatal("unknown option '-%c' (see benchtop --help)", optopt);
    usage_fatal("unknown option '%s' (see benchtop --help)", word);
}

void
options_parse(struct runconf *rc, unsigned cmd, int argc, char **argv, char ***pos, int *npos)
{
    int n = table_size();
    struct option *longs = xcalloc((size_t)n + 1, sizeof(*longs));
    char *shorts = xmalloc((size_t)n * 2 + 3);
    char **positional = xcalloc((size_t)argc + 1, sizeof(char *));
    int c, np = 0;

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
        const struct option_def *o = (c == '?' || c == ':') ? NULL : lookup(c);
        if (o == NULL)
            bad_option(argv, c);
        if (!(o->commands & cmd))
            usage_fatal("--%s does not apply to 'benchtop %s' (see benchtop %s --help)", o->name,
                        cmd_name(cmd), cmd_name(cmd));
        set_value(rc, o, o->type == OPT_FLAG ? "1" : optarg);
        rc->given |= (uint64_t)1 << (o - option_table);
    }
    free(longs);
    free(shorts);
    *pos = positional;
    *npos = np;
}

int
options_given(const struct runconf *rc, const char *name)
{
    int i;

    for (i = 0; option_table[i].name != NULL; i++)
        if (strcmp(option_table[i].name, name) == 0)
            return (rc->given >> i) & 1;
    fatal("options_given: no option '%s'", name);
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

void
options_print_help(FILE *f, unsigned cmd)
{
    const struct option_def *o;
    char flags[64];

    for (o = option_table; o->name != NULL; o++) {
        if (!(o->commands & cmd))
            continue;
        format_flags(o, flags, sizeof(flags));
        fprintf(f, "  %-26s %s", flags, o->help);
        if (o->type != OPT_FLAG && o->type != OPT_STRING && o->defval[0] != '\0')
            fprintf(f, " [%s]", o->defval);
        fputc('\n', f);
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

void
options_print_man(FILE *f)
{
    const struct option_def *o;

    for (o = option_table; o->name != NULL; o++) {
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
        if (o->type != OPT_FLAG && o->type != OPT_STRING && o->defval[0] != '\0')
            fprintf(f, " (default %s)", o->defval);
        fputs(".\n", f);
    }
}

void
options_print_json(FILE *f, const struct runconf *rc)
{
    const struct option_def *o;
    int n = 0;

    for (o = option_table; o->name != NULL; o++) {
        const void *p = (const char *)rc + o->offset;
        if (!((rc->given >> (o - option_table)) & 1))
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
            json_string(f, *(char *const *)p ? *(char *const *)p : "");
            break;
        }
    }
}
