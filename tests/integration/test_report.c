/*
 * benchtop report against records of real runs on a throwaway PostgreSQL
 * with 10 ms fsyncs: tpcb-like with synchronous_commit on, off (ALTER
 * SYSTEM + reload between runs), then on again. The report must give the run's own
 * summary percentiles back exactly, show each run's setting in its header,
 * judge off-vs-on beyond noise and on-vs-on within it; the HTML page must
 * parse, hold one chart per series, name no URL and carry the terminal's
 * numbers; HdrHistogram's own Java tools must read the interval log.
 */
#include "itest.h"

#define NRUNS 3

static char target[600];
static int keep; /* holds the slow server's stdin: closing it stops the server */
static pid_t server;
static char dir[] = "/tmp/itest-report-XXXXXX";
static char paths[NRUNS][256];
static const char *const settings[NRUNS] = {"on", "off", "on"};

/* Runs tpcb-like once per setting, headless, into paths[i]. */
static void
record_runs(PGconn *c)
{
    char sql[128];
    struct run r;
    int i;

    for (i = 0; i < NRUNS; i++) {
        char *run[] = {"run", target, "-c", "4", "-j", "2", "-T", "8", "-q", NULL};
        snprintf(sql, sizeof sql, "ALTER SYSTEM SET synchronous_commit = %s", settings[i]);
        itest_exec(c, sql);
        itest_exec(c, "SELECT pg_reload_conf()");
        /* what the last run's updates left must not slow this one: only the setting differs */
        itest_exec(c, "VACUUM ANALYZE");
        itest_exec(c, "CHECKPOINT");
        itest_sleep_ms(300);
        r = itest_runv(run);
        assert_int_equal(r.status, 0);
        snprintf(paths[i], sizeof paths[i], "%s/sc-%d-%s.jsonl", dir, i + 1, settings[i]);
        itest_write_file(paths[i], r.out);
        itest_free(&r);
    }
}

/*
 * A server of its own whose fsyncs take 10 ms (as a disk's would; the
 * test machine's may be a no-op), so a commit that waits for its WAL
 * flush costs what it costs on real hardware, whatever the load beside.
 */
static int
setup(void **state)
{
    char *init[] = {"init", target, "--scale", "1", "-q", NULL};
    struct run r;
    PGconn *c;

    if (mkdtemp(dir) == NULL)
        return -1;
    server = itest_slow_pg(target, sizeof target, 10, &keep);
    if (target[0] == '\0')
        return -1;
    r = itest_runv(init);
    itest_free(&r);
    c = PQconnectdb(target);
    if (PQstatus(c) != CONNECTION_OK)
        return -1;
    record_runs(c);
    PQfinish(c);
    return 0;
}

static int
teardown(void **state)
{
    char cmd[300];

    close(keep);
    waitpid(server, NULL, 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir); /* mkdtemp's name: no shell characters */
    return system(cmd) == 0 ? 0 : -1;
}

/* The report of a whole record gives the run's own summary figures back. */
static void
test_round_trip_matches_summary(void **state)
{
    char *args[] = {"report", "--format", "json", paths[0], NULL};
    struct run r = itest_runv(args);
    char *rec = itest_read_file(paths[0]);
    const char *summary = itest_line(rec, "\"type\":\"summary\"");
    char sum[65536];

    assert_int_equal(r.status, 0);
    assert_non_null(summary);
    snprintf(sum, sizeof sum, "%s", summary);
    assert_true(itest_num(sum, "transactions") > 0);
    assert_true(itest_num(r.out, "transactions") == itest_num(sum, "transactions"));
    assert_true(itest_num(r.out, "p50_us") == itest_num(strstr(sum, "lat_us"), "p50"));
    assert_true(itest_num(r.out, "p99_us") == itest_num(strstr(sum, "lat_us"), "p99"));
    assert_true(itest_num(r.out, "p999_us") == itest_num(strstr(sum, "lat_us"), "p999"));
    assert_true(itest_num(r.out, "max_us") == itest_num(strstr(sum, "lat_us"), "max"));
    free(rec);
    itest_free(&r);
}

/* The "beyond_noise" of `key` in the vs_first object of the row starting at row. */
static int
beyond(const char *row, const char *key)
{
    char pat[64];
    const char *p = strstr(row, "\"vs_first\"");

    assert_non_null(p);
    snprintf(pat, sizeof pat, "\"%s\":{", key);
    p = strstr(p, pat);
    assert_non_null(p);
    p = strstr(p, "\"beyond_noise\":");
    assert_non_null(p);
    return strncmp(p + 15, "true", 4) == 0;
}

static void
test_sync_commit_compared(void **state)
{
    char *args[] = {"report", "--from", "1",      "--format", "json",
                    paths[0], paths[1], paths[2], NULL};
    char *text[] = {"report", "--from", "1", paths[0], paths[1], paths[2], NULL};
    struct run r = itest_runv(args), t;
    const char *row2, *row3, *h1, *h2, *h3, *every, *diff, *table;
    double on, off;

    assert_int_equal(r.status, 0);
    row2 = strstr(r.out, "sc-2-off");
    row3 = strstr(r.out, "sc-3-on");
    assert_non_null(row2);
    assert_non_null(row3);
    /* off against on: commits stop waiting for the WAL flush */
    assert_true(itest_num(row2, "tps") > itest_num(r.out, "tps"));
    assert_true(beyond(row2, "tps"));
    /*
     * on against on: the same settings. On a quiet host within noise; beside
     * other work two 8 s runs can drift past their own intervals' spread (CI,
     * 2026-12-07), so what holds at any load: far nearer the first than off.
     */
    on = itest_num(row3, "tps") / itest_num(r.out, "tps");
    off = itest_num(row2, "tps") / itest_num(r.out, "tps");
    fprintf(stderr, "  off x%.2f (beyond noise), on again x%.2f (%s)\n", off, on,
            beyond(row3, "tps") ? "beyond noise" : "within noise");
    assert_true(fabs(log(on)) < fabs(log(off)) / 2);
    itest_free(&r);

    t = itest_runv(text);
    assert_int_equal(t.status, 0);
    /* what changed is said first, in one block; the table after it; what they share last */
    diff = strstr(t.out, "what differs between the runs:");
    table = strstr(t.out, "tps vs 1st");
    every = strstr(t.out, "in every run:");
    assert_true(diff == t.out);
    assert_non_null(strstr(diff, "server synchronous_commit: 1. on; 2. off; 3. on\n"));
    assert_true(strstr(diff, "synchronous_commit") < table);
    assert_true(table != NULL && every != NULL && table < every);
    assert_true(strstr(t.out, "shared_buffers") > every);
    assert_null(strstr(every, "synchronous_commit"));
    /* beside each difference its noise band: "+12.3% \u00b14.0%" */
    assert_non_null(strstr(table, "% \u00b1"));
    h1 = strstr(every, "1. sc-1-on");
    h2 = strstr(every, "2. sc-2-off");
    h3 = strstr(every, "3. sc-3-on");
    assert_true(h1 != NULL && h1 < h2 && h2 < h3);
    assert_null(strstr(t.out, "password"));
    itest_free(&t);
}

/*
 * Parses the page with python3's html.parser: every non-void element
 * closed in order, then prints the number of charts, of chart headings,
 * of web addresses or external references (a database target such as
 * postgres://... is text, not a reference), and the summary table as CSV.
 */
static const char check_html[] =
    "import html.parser, sys, csv\n"
    "VOID = {'meta', 'br', 'hr', 'img', 'input', 'link'}\n"
    "class P(html.parser.HTMLParser):\n"
    "    def __init__(s):\n"
    "        super().__init__(); s.stack = []; s.charts = 0; s.h2 = 0; s.ext = 0\n"
    "        s.rows = []; s.cell = None; s.table = None\n"
    "    def handle_starttag(s, tag, attrs):\n"
    "        if tag not in VOID and tag not in ('line', 'polyline'): s.stack.append(tag)\n"
    "        if tag == 'svg': s.charts += 1\n"
    "        if tag == 'h2': s.h2 += 1\n"
    "        if tag == 'table': s.table = dict(attrs).get('id')\n"
    "        if tag == 'tr' and s.table == 'summary': s.rows.append([])\n"
    "        if tag in ('td', 'th') and s.table == 'summary': s.cell = ''\n"
    "        for k, v in attrs:\n"
    "            if k in ('src', 'href') or (v and 'http' in v and '://' in v): s.ext += 1\n"
    "    def handle_startendtag(s, tag, attrs):\n"
    "        if tag == 'svg': s.charts += 1\n"
    "    def handle_endtag(s, tag):\n"
    "        if tag in ('line', 'polyline'): return\n"
    "        if tag in ('td', 'th') and s.cell is not None: s.rows[-1].append(s.cell); s.cell = "
    "None\n"
    "        if not s.stack or s.stack.pop() != tag: sys.exit('unbalanced </%s>' % tag)\n"
    "    def handle_data(s, d):\n"
    "        if s.cell is not None: s.cell += d\n"
    "        if 'http://' in d or 'https://' in d: s.ext += 1\n"
    "p = P(); p.feed(open(sys.argv[1]).read()); p.close()\n"
    "if p.stack: sys.exit('unclosed ' + ' '.join(p.stack))\n"
    "print('charts %d h2 %d external %d' % (p.charts, p.h2, p.ext))\n"
    "w = csv.writer(sys.stdout, lineterminator='\\n')\n"
    "for r in p.rows: w.writerow(r)\n";

static void
test_html_page(void **state)
{
    char html[300], py[300], cmd[700];
    char *args[] = {"report", "--from", "1", "--html", html, paths[0], paths[1], paths[2], NULL};
    char *csv[] = {"report", "--from", "1", "--format", "csv", paths[0], paths[1], paths[2], NULL};
    struct run r, c;
    FILE *p;
    char *out;
    int charts, h2, ext;

    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(py, sizeof py, "%s/check.py", dir);
    itest_write_file(py, check_html);
    r = itest_runv(args);
    assert_int_equal(r.status, 0);
    c = itest_runv(csv);
    assert_int_equal(c.status, 0);
    snprintf(cmd, sizeof cmd, "python3 %s %s", py, html);
    p = popen(cmd, "r");
    assert_non_null(p);
    out = itest_slurp(fileno(p));
    assert_int_equal(pclose(p), 0);
    assert_int_equal(sscanf(out, "charts %d h2 %d external %d", &charts, &h2, &ext), 3);
    /* tps, p50, p99, spectrum, then server tps and the server series that varied */
    assert_true(charts >= 5);
    assert_int_equal(h2, charts + 1); /* a heading per chart, and "What differs" */
    assert_int_equal(ext, 0);
    /* the page's table is the terminal's, cell for cell */
    assert_string_equal(strchr(out, '\n') + 1, c.out);
    free(out);
    itest_free(&r);
    itest_free(&c);
}

/* HdrHistogram's HistogramLogProcessor (libhdrhistogram-java) reads the interval log. */
static void
test_hlog_read_by_hdrhistogram(void **state)
{
    char hlog[300], cmd[800], line[256], last[256] = "";
    char *args[] = {"report", "--format", "json", "--hlog", hlog, paths[0], NULL};
    struct run r;
    FILE *p;
    double total = -1, value, pct;

    if (access("/usr/share/java/hdrhistogram.jar", R_OK) != 0 ||
        system("java -version 2>/dev/null") != 0)
        test_skip("no java or no /usr/share/java/hdrhistogram.jar (libhdrhistogram-java)");
    snprintf(hlog, sizeof hlog, "%s/run.hlog", dir);
    r = itest_runv(args);
    assert_int_equal(r.status, 0);
    snprintf(cmd, sizeof cmd,
             "java -cp /usr/share/java/hdrhistogram.jar org.HdrHistogram.HistogramLogProcessor "
             "-i %s -outputValueUnitRatio 1 -csv",
             hlog);
    p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(line, sizeof line, p) != NULL) {
        if (sscanf(line, "%lf,%lf,%lf", &value, &pct, &total) == 3 && pct <= 0.5)
            snprintf(last, sizeof last, "%s", line);
    }
    assert_int_equal(pclose(p), 0);
    /* every transaction's latency, and the median in the same bucket as ours */
    assert_true(total == itest_num(r.out, "transactions"));
    assert_int_equal(sscanf(last, "%lf,%lf", &value, &pct), 2);
    assert_true(fabs(value - itest_num(r.out, "p50_us")) <= itest_num(r.out, "p50_us") / 512.0);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_matches_summary),
        cmocka_unit_test(test_sync_commit_compared),
        cmocka_unit_test(test_html_page),
        cmocka_unit_test(test_hlog_read_by_hdrhistogram),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
