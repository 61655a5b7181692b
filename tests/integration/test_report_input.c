/*
 * Records as hostile input to `benchtop report`, `merge` and `watch
 * --records` (issue 31): wrong types, markup and terminal escapes in every
 * string, out-of-range times, a cut last line, the same record twice,
 * devices instead of files. Every command ends (bounded here, killed and
 * failed past 60 s), exits 0 or 2, and nothing foreign reaches the
 * terminal or the page unescaped. No server: the records are written here.
 */
#include "itest.h"

#include <sys/stat.h>

#include "base/hdrlog.h"
#include "base/hist.h"
#include "base/util.h"

static char dir[] = "/tmp/itest-input-XXXXXX";

/* Runs benchtop; kills it after secs (then status -1). */
static struct run
run_bounded(char *const args[], int secs)
{
    int o, e, killed = 1;
    pid_t pid = itest_spawn(args, &o, &e);
    siginfo_t info;
    struct run r;

    for (int i = 0; i < secs * 10 && killed; i++) {
        memset(&info, 0, sizeof info); /* WNOWAIT: itest_finish reaps it */
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
            killed = 0;
        else
            itest_sleep_ms(100);
    }
    if (killed)
        kill(pid, SIGKILL);
    r = itest_finish(pid, o, e);
    r.status = killed ? -1 : r.status;
    return r;
}

/*
 * A record of 6 one-second intervals with `target`, one setting, an event
 * and a marker carrying `evil`; extra lines appended as they are.
 */
static char *
record_text(double start, const char *evil, const char *extra)
{
    struct hist *h = hist_new();
    char *text, *old, *b64;

    text = xasprintf(
        "{\"type\":\"run\",\"command\":\"run\",\"start\":%.3f,\"benchtop\":\"1\","
        "\"target\":\"redis://h/%s\",\"workload\":\"get\",\"protocol\":\"resp2\",\"clients\":2,"
        "\"interval_s\":1,\"options\":{\"clients\":2}}\n"
        "{\"type\":\"settings\",\"t\":0,\"settings\":{\"maxmemory\":\"%s\"}}\n"
        "{\"type\":\"event\",\"t\":2,\"kind\":\"marker\",\"label\":\"%s\"}\n",
        start, evil, evil, evil);
    for (int i = 1; i <= 6; i++) {
        hist_reset(h);
        for (int k = 0; k < 100; k++)
            hist_record(h, 1000 + (uint64_t)k * 10);
        b64 = hdrlog_encode(h);
        old = text;
        text = xasprintf("%s{\"type\":\"interval\",\"t\":%d.001,\"interval_s\":1,\"clients\":2,"
                         "\"transactions\":100,\"verdict\":{\"kind\":\"client\"},"
                         "\"hist_us\":{\"min\":%llu,\"max\":%llu,\"sum\":%llu,\"hdr\":\"%s\"}}\n"
                         "{\"type\":\"server\",\"t\":%d.5,\"server_tps\":100,\"rows\":[],"
                         "\"events\":[\"%s\"]}\n",
                         old, i, (unsigned long long)hist_min(h), (unsigned long long)hist_max(h),
                         (unsigned long long)hist_sum(h), b64, i, i == 3 ? evil : "ok");
        free(old);
        free(b64);
    }
    old = text;
    text = xasprintf("%s%s", old, extra ? extra : "");
    free(old);
    hist_free(h);
    return text;
}

/* Writes a record under dir; its path in path. */
static void
write_record(char *path, size_t len, const char *name, double start, const char *evil,
             const char *extra)
{
    char *text = record_text(start, evil, extra);

    snprintf(path, len, "%s/%s", dir, name);
    itest_write_file(path, text);
    free(text);
}

static int
setup(void **state)
{
    return mkdtemp(dir) ? 0 : -1;
}

static int
teardown(void **state)
{
    char cmd[300];

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir); /* mkdtemp's name: no shell characters */
    return system(cmd) == 0 ? 0 : -1;
}

/* text with a step line per client count appended, each step 2 s long, in order; text freed. */
static char *
add_steps(char *text, const int *clients, int n)
{
    char *old;

    for (int s = 0; s < n; s++) {
        old = text;
        text = xasprintf("%s{\"type\":\"step\",\"clients\":%d,\"start_t\":%d,\"end_t\":%d}\n", old,
                         clients[s], s * 2, s * 2 + 2);
        free(old);
    }
    return text;
}

/* What the shell command cmd printed; it must succeed. */
static char *
shell_out(const char *cmd)
{
    FILE *f = popen(cmd, "r");
    char *out;

    assert_non_null(f);
    out = itest_slurp(fileno(f));
    assert_int_equal(pclose(f), 0);
    return out;
}

/* A histogram of 100 transactions of 1 ms, encoded. */
static char *
flat_hdr(void)
{
    struct hist *h = hist_new();
    char *b64;

    for (int k = 0; k < 100; k++)
        hist_record(h, 1000);
    b64 = hdrlog_encode(h);
    hist_free(h);
    return b64;
}

/* "events":[null] or [1] appended: report died with SIGSEGV. */
static void
test_wrong_types(void **state)
{
    static const char *const extra[] = {
        "{\"type\":\"server\",\"t\":6,\"rows\":[],\"events\":[null]}\n",
        "{\"type\":\"server\",\"t\":6,\"rows\":[],\"events\":[1]}\n",
        "{\"type\":\"server\",\"t\":6,\"rows\":[{}],\"events\":{\"a\":null}}\n",
    };
    char p[300];

    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
        char *args[] = {"report", p, NULL};
        write_record(p, sizeof p, "types.jsonl", 1.7e9, "x", extra[i]);
        struct run r = run_bounded(args, 60);
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "types.jsonl"));
        itest_free(&r);
    }
}

/* ESC/OSC and markup from the record never reach the terminal raw; markdown escapes | and <. */
static void
test_text_and_markdown_escaped(void **state)
{
    char p[300];
    char *text[] = {"report", p, NULL};
    char *md[] = {"report", "--format", "markdown", p, NULL};
    struct run r;

    write_record(p, sizeof p, "esc\x1b]0;pwned\x07.jsonl", 1.7e9,
                 "\\u001b]52;c;cHduZWQ=\\u0007<script>alert(1)</script>|x", NULL);
    r = run_bounded(text, 60);
    assert_int_equal(r.status, 0);
    assert_null(strchr(r.out, '\x1b'));
    assert_null(strchr(r.out, '\x07'));
    assert_non_null(strstr(r.out, "\\x1b]52"));
    itest_free(&r);
    r = run_bounded(md, 60);
    assert_int_equal(r.status, 0);
    assert_null(strchr(r.out, '\x1b'));
    assert_null(strstr(r.out, "<script"));
    assert_non_null(strstr(r.out, "&lt;script&gt;"));
    assert_non_null(strstr(r.out, "\\|x"));
    itest_free(&r);
}

/*
 * The page holds no element the record named: the file name went raw into
 * the <title> of every event (draw_events). Parsed with python3's
 * html.parser: every tag is one benchtop writes.
 */
static void
test_html_escaped(void **state)
{
    char p[300], html[300], cmd[700];
    char *args[] = {"report", "--html", html, p, NULL};
    struct run r;
    char *out;

    write_record(p, sizeof p, "<img src=x onerror=alert(1)>.jsonl", 1.7e9,
                 "<img src=y onerror=alert(2)>", NULL);
    snprintf(html, sizeof html, "%s/page.html", dir);
    r = run_bounded(args, 60);
    assert_int_equal(r.status, 0);
    itest_free(&r);
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import html.parser,sys\n"
             "class P(html.parser.HTMLParser):\n"
             "  def handle_starttag(s, t, a): print(t)\n"
             "P().feed(open(sys.argv[1]).read())\" '%s' | sort -u",
             html);
    out = shell_out(cmd);
    assert_null(strstr(out, "img"));
    assert_null(strstr(out, "script"));
    assert_non_null(strstr(out, "svg"));
    free(out);
}

/* A last line cut while written: report and merge keep the lines before it, and say so. */
static void
test_cut_last_line(void **state)
{
    char p[300], q[300];
    char *rep[] = {"report", "--format", "json", p, NULL};
    char *merge[] = {"merge", p, q, NULL};
    struct run r;

    write_record(p, sizeof p, "cut.jsonl", 1.7e9, "x", "{\"type\":\"interval\",\"t\":7.0");
    write_record(q, sizeof q, "other.jsonl", 1.7e9 + 0.2, "x", NULL);
    r = run_bounded(rep, 60);
    assert_int_equal(r.status, 0);
    assert_true(itest_num(r.out, "transactions") == 600);
    assert_non_null(strstr(r.err, "cut.jsonl:16: the last line was cut short"));
    itest_free(&r);
    r = run_bounded(merge, 60);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "cut short"));
    assert_true(itest_num(itest_line(r.out, "\"type\":\"summary\""), "transactions") == 1200);
    itest_free(&r);
}

/* The same record twice is refused, not counted double; --html naming a record is refused. */
static void
test_same_record_twice(void **state)
{
    char p[300], before[64];
    char *merge[] = {"merge", p, p, NULL};
    char *html[] = {"report", p, "--html", p, NULL};
    struct run r;
    struct stat st;

    write_record(p, sizeof p, "twice.jsonl", 1.7e9, "x", NULL);
    r = run_bounded(merge, 60);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "same record"));
    itest_free(&r);
    assert_int_equal(stat(p, &st), 0);
    snprintf(before, sizeof before, "%lld", (long long)st.st_size);
    r = run_bounded(html, 60);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--html"));
    assert_int_equal(stat(p, &st), 0);
    assert_true(st.st_size == atoll(before));
    itest_free(&r);
}

/*
 * Far times: merge of a record starting near 1970 with one of today walked
 * every empty bin between; an interval at t 1e9 or one of interval_s -5
 * is refused with its line. Each ends at once.
 */
static void
test_merge_far_times(void **state)
{
    char p[300], q[300];
    char *merge[] = {"merge", p, q, NULL};
    struct run r;

    write_record(p, sizeof p, "old.jsonl", 1000, "x", NULL);
    write_record(q, sizeof q, "new.jsonl", 1.7e9, "x", NULL);
    r = run_bounded(merge, 60);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "not one run"));
    itest_free(&r);
    write_record(q, sizeof q, "new.jsonl", 1000.3, "x",
                 "{\"type\":\"interval\",\"t\":1e9,\"interval_s\":1,\"transactions\":1}\n");
    r = run_bounded(merge, 60);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "new.jsonl:16:"));
    itest_free(&r);
    write_record(q, sizeof q, "new.jsonl", 1000.3, "x",
                 "{\"type\":\"interval\",\"t\":7,\"interval_s\":-5,\"transactions\":1}\n");
    r = run_bounded(merge, 60);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "out of range"));
    itest_free(&r);
}

/*
 * watch --records on a record with an interval at t 1e13 spun forever; on
 * /dev/zero it grew its buffer until it aborted; /dev/urandom the same or
 * spun. Each ends with -T.
 */
static void
test_watch_records_bounded(void **state)
{
    char p[300], glob[320];
    char *watch[] = {"watch", "--records", glob, "--headless", "-q", "-T", "3", NULL};
    char *zero[] = {"watch", "--records", "/dev/zer[o]", "--headless", "-q", "-T", "3", NULL};
    struct run r;

    write_record(p, sizeof p, "far.jsonl", 1.7e9, "x",
                 "{\"type\":\"interval\",\"t\":1e13,\"interval_s\":1,\"transactions\":1}\n");
    snprintf(glob, sizeof glob, "%s/far*.jsonl", dir);
    r = run_bounded(watch, 60);
    assert_int_not_equal(r.status, -1);
    itest_free(&r);
    r = run_bounded(zero, 60);
    assert_int_not_equal(r.status, -1);
    assert_true(r.status == 0 || r.status == 2);
    itest_free(&r);
    zero[2] = "/dev/urando[m]"; /* no newline to find, and never an end */
    r = run_bounded(zero, 60);
    assert_true(r.status == 0 || r.status == 2);
    itest_free(&r);
}

/*
 * A doubling sweep (1, 2, 4, 8 clients; throughput flat after 2) with two
 * server series: a chart per series, the sweep on a log-2 axis with the
 * knee marked at 2 clients, the --from window shaded, legends outside the
 * plots, charts that take the page's width, and the series the verdict
 * (lock) reads before rollbacks/s, which varies more. Parsed with
 * python3's html.parser.
 */
static void
test_html_charts(void **state)
{
    static const char check[] =
        "import html.parser, sys\n"
        "class P(html.parser.HTMLParser):\n"
        "    def __init__(s):\n"
        "        super().__init__(); s.svg = None; s.out = []; s.text = None; s.h2 = ''\n"
        "    def handle_starttag(s, t, a):\n"
        "        a = dict(a)\n"
        "        if t == 'h2': s.text = ''\n"
        "        if t == 'svg': s.svg = a.get('id'); s.out.append('svg %s %s %s' % (s.svg,"
        " 'width' in a, a.get('viewbox')))\n"
        "        if t == 'rect' and a.get('class') == 'window': s.out.append('window ' + s.svg)\n"
        "        if t == 'line' and a.get('class') == 'knee': s.out.append('knee %s %s' % (s.svg,"
        " a['x1']))\n"
        "        if t == 'div' and a.get('class') == 'legend': s.out.append('legend')\n"
        "        if t == 'text' and s.svg == 'sweep-tps' and a.get('y') == '274': s.text = ''; "
        "s.tick = a['x']\n"
        "    def handle_endtag(s, t):\n"
        "        if t == 'svg': s.svg = None\n"
        "        if t == 'h2': s.out.append('h2 ' + s.text); s.text = None\n"
        "        if t == 'text' and s.text is not None and s.svg == 'sweep-tps':"
        " s.out.append('tick %s %s' % (s.text, s.tick)); s.text = None\n"
        "    def handle_data(s, d):\n"
        "        if s.text is not None: s.text += d\n"
        "p = P(); p.feed(open(sys.argv[1]).read()); print('\\n'.join(p.out))\n";
    char p[300], html[300], py[300], cmd[1000], *out, *text = NULL, *old, *b64;
    char *args[] = {"report", "--from", "1", "--html", html, p, NULL};
    const int clients[] = {1, 2, 4, 8}, tps[] = {100, 200, 210, 220};
    struct run r;
    double x1, x2, x4, x8;

    b64 = flat_hdr();
    text = xasprintf("{\"type\":\"run\",\"command\":\"sweep\",\"start\":1.7e9,\"interval_s\":1}\n");
    for (int s = 0; s < 4; s++)
        for (int i = 1; i <= 2; i++) {
            int t = s * 2 + i;
            old = text;
            text = xasprintf(
                "%s{\"type\":\"interval\",\"t\":%d,\"interval_s\":1,\"transactions\":%d,"
                "\"verdict\":{\"kind\":\"lock\"},\"hist_us\":{\"min\":1000,\"max\":1000,"
                "\"sum\":100000,\"hdr\":\"%s\"}}\n"
                "{\"type\":\"server\",\"t\":%d,\"server_tps\":%d,\"rows\":["
                "{\"section\":\"database\",\"label\":\"rollbacks/s\",\"value\":\"1/s\",\"num\":%d},"
                "{\"section\":\"locks\",\"label\":\"lock waits/s\",\"value\":\"1/s\","
                "\"num\":%d}]}\n%s",
                old, t, tps[s], b64, t, tps[s], t % 2 ? 0 : 1000, 50 + t, i == 2 ? "" : "");
            free(old);
        }
    text = add_steps(text, clients, 4);
    snprintf(p, sizeof p, "%s/sweep.jsonl", dir);
    itest_write_file(p, text);
    snprintf(html, sizeof html, "%s/sweep.html", dir);
    snprintf(py, sizeof py, "%s/charts.py", dir);
    itest_write_file(py, check);
    r = run_bounded(args, 60);
    assert_int_equal(r.status, 0);
    itest_free(&r);
    snprintf(cmd, sizeof cmd, "python3 %s %s", py, html);
    out = shell_out(cmd);
    /* the page's width: a viewBox, no fixed width */
    assert_non_null(strstr(out, "svg tps False 0 0 960 300"));
    /* the --from window shaded on the charts over time, not on the sweep's */
    assert_non_null(strstr(out, "window tps"));
    assert_non_null(strstr(out, "window server-0"));
    assert_null(strstr(out, "window sweep-tps"));
    /* legends in the page, outside the plots: one before each chart */
    assert_int_equal(itest_count_lines(out, "legend"), itest_count_lines(out, "svg "));
    /* log 2: the steps 1, 2, 4, 8 evenly spaced; the knee at 2 clients */
    assert_int_equal(sscanf(strstr(out, "tick 1 "), "tick 1 %lf", &x1), 1);
    assert_int_equal(sscanf(strstr(out, "tick 2 "), "tick 2 %lf", &x2), 1);
    assert_int_equal(sscanf(strstr(out, "tick 4 "), "tick 4 %lf", &x4), 1);
    assert_int_equal(sscanf(strstr(out, "tick 8 "), "tick 8 %lf", &x8), 1);
    assert_true(fabs((x2 - x1) - (x4 - x2)) < 0.2 && fabs((x8 - x4) - (x4 - x2)) < 0.2);
    snprintf(cmd, sizeof cmd, "knee sweep-tps %.1f", x2);
    assert_non_null(strstr(out, cmd));
    /* the series the lock verdict reads, before rollbacks/s that varies more */
    assert_true(strstr(out, "h2 locks: lock waits/s") < strstr(out, "h2 database: rollbacks/s"));
    free(out);
    free(text);
    free(b64);
}

/*
 * Figures a person can trust (issue 27): every setting whole (a 512-byte
 * line cut them: "fdatasyn", later ones lost), the server's tps over the
 * load's window only (a dashboard waiting for q sampled an idle server
 * into the mean), and a 3 s step whose times were printed to milliseconds
 * shown as 3.0 s, not 2.0.
 */
static void
test_settings_window_steps(void **state)
{
    char p[300], *extra = xstrdup("{\"type\":\"settings\",\"t\":0,\"settings\":{"), *old;
    char *text[] = {"report", p, NULL};
    char *json[] = {"report", "--format", "json", p, NULL};
    struct run r;

    for (int i = 0; i < 40; i++) {
        old = extra;
        extra = xasprintf("%s\"setting_number_%02d\":\"fdatasync\",", old, i);
        free(old);
    }
    old = extra;
    extra = xasprintf("%s\"jit\":\"on\"}}\n", old);
    free(old);
    for (int t = 7; t <= 20; t++) { /* after the load: an idle server */
        old = extra;
        extra =
            xasprintf("%s{\"type\":\"server\",\"t\":%d.5,\"server_tps\":0,\"rows\":[]}\n", old, t);
        free(old);
    }
    old = extra;
    extra = xasprintf("%s{\"type\":\"step\",\"clients\":1,\"start_t\":0.001,\"end_t\":3.001}\n"
                      "{\"type\":\"step\",\"clients\":2,\"start_t\":3.001,\"end_t\":6.001}\n",
                      old);
    free(old);
    write_record(p, sizeof p, "settings.jsonl", 1.7e9, "x", extra);
    old = itest_read_file(p); /* the first settings line is the one read: drop record_text's */
    char *set = strstr(old, "{\"type\":\"settings\"");
    memmove(set, strchr(set, '\n') + 1, strlen(strchr(set, '\n') + 1) + 1);
    itest_write_file(p, old);
    free(old);
    r = run_bounded(text, 60);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "server setting_number_39: fdatasync\n"));
    assert_non_null(strstr(r.out, "server jit: on\n"));
    assert_non_null(strstr(r.out, "settings.jsonl 1 client "));
    itest_free(&r);
    r = run_bounded(json, 60);
    assert_int_equal(r.status, 0);
    assert_true(itest_num(r.out, "server_tps") == 100);
    assert_true(itest_num(r.out, "secs") == 3);
    assert_true(itest_num(strstr(r.out, "2 clients"), "secs") == 3);
    itest_free(&r);
    free(extra);
}

/*
 * Item 13: a sweep step whose server went away (intervals of no
 * transaction) was printed as any other and the knee read it ("knee at 1
 * client: 523 tps" while 8 clients gave 1,752). It is marked in the text
 * (secs with !, and the note), in JSON (outage_s) and left out of the
 * page's knee, which is at 8 clients.
 */
static void
test_outage_step_marked(void **state)
{
    const int clients[] = {1, 2, 4, 8, 16}, tps[] = {523, 0, 1000, 1752, 1800};
    char p[300], html[300], cmd[1200], *text, *old, *b64, *out;
    char *txt[] = {"report", p, NULL};
    char *json[] = {"report", "--format", "json", p, NULL};
    char *page[] = {"report", "--html", html, p, NULL};
    struct run r;

    b64 = flat_hdr();
    text = xasprintf("{\"type\":\"run\",\"command\":\"sweep\",\"start\":1.7e9,\"interval_s\":1}\n");
    for (int s = 0; s < 5; s++)
        for (int i = 1; i <= 2; i++) {
            old = text;
            text = xasprintf("%s{\"type\":\"interval\",\"t\":%d,\"interval_s\":1,"
                             "\"transactions\":%d,\"verdict\":{\"kind\":\"lock\"},"
                             "\"hist_us\":{\"hdr\":\"%s\"}}\n",
                             old, s * 2 + i, tps[s], b64);
            free(old);
        }
    text = add_steps(text, clients, 5);
    snprintf(p, sizeof p, "%s/outage.jsonl", dir);
    itest_write_file(p, text);
    r = run_bounded(txt, 60);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(itest_line(r.out, "outage.jsonl 2 clients"), " 2.0! "));
    assert_null(strchr(itest_line(r.out, "outage.jsonl 4 clients"), '!'));
    assert_non_null(strstr(r.out, "secs with !: some intervals finished no transaction"));
    itest_free(&r);
    r = run_bounded(json, 60);
    assert_int_equal(r.status, 0);
    assert_true(itest_num(strstr(r.out, "2 clients\""), "outage_s") == 2);
    assert_true(itest_num(strstr(r.out, "4 clients\""), "outage_s") == 0);
    itest_free(&r);
    snprintf(html, sizeof html, "%s/outage.html", dir);
    r = run_bounded(page, 60);
    assert_int_equal(r.status, 0);
    itest_free(&r);
    /* the knee's x is the 8-clients tick's */
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import html.parser,sys\n"
             "class P(html.parser.HTMLParser):\n"
             "  x = {}; t = None; knee = None; svg = None\n"
             "  def handle_starttag(s, t, a):\n"
             "    a = dict(a)\n"
             "    if t == 'svg': s.svg = a.get('id')\n"
             "    if t == 'line' and a.get('class') == 'knee': s.knee = a['x1']\n"
             "    s.t = a.get('x') if t == 'text' and s.svg == 'sweep-tps' else None\n"
             "  def handle_data(s, d):\n"
             "    if s.t is not None: s.x[d.strip()] = s.t\n"
             "p = P(); p.feed(open(sys.argv[1]).read())\n"
             "print(float(p.knee) == float(p.x['8']), float(p.knee) == float(p.x['1']))\" '%s'",
             html);
    out = shell_out(cmd);
    assert_string_equal(out, "True False\n");
    free(out);
    free(text);
    free(b64);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_text_and_markdown_escaped),
        cmocka_unit_test(test_html_escaped),
        cmocka_unit_test(test_cut_last_line),
        cmocka_unit_test(test_same_record_twice),
        cmocka_unit_test(test_merge_far_times),
        cmocka_unit_test(test_watch_records_bounded),
        cmocka_unit_test(test_html_charts),
        cmocka_unit_test(test_settings_window_steps),
        cmocka_unit_test(test_outage_step_marked),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
