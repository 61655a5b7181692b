/*
 * http:// targets against the throwaway nginx (`benchtop serve nginx`,
 * BENCHTOP_NG_*). nginx's own counts are read from its stub_status page
 * with a plain HTTP/1.0 request on a socket of our own (not through
 * benchtop or curl), and its access log is read from its folder. Every
 * benchtop run makes one request of its own before the load (prepare's
 * probe), and the stub_status read after a run counts itself: both are
 * part of the expected counts.
 */
#include "itest.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

struct ng_counts {
    long long accepts, handled, requests;
};

static const char *
ng_target(void)
{
    return itest_env("BENCHTOP_NG_TARGET");
}

static int
ng_port(void)
{
    const char *colon = strrchr(ng_target(), ':');

    return colon ? atoi(colon + 1) : -1;
}

/* GET path with HTTP/1.0 on a new connection; the whole response (malloc'ed). */
static char *
ng_get(const char *path)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((unsigned short)ng_port()),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    char req[256];
    char *resp;
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);

    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(write(fd, req, (size_t)n), n);
    resp = itest_slurp(fd);
    close(fd);
    return resp;
}

/* "server accepts handled requests\n A H R" */
static struct ng_counts
ng_counts(void)
{
    struct ng_counts c = {0};
    char *resp = ng_get("/nginx_status");
    const char *p = strstr(resp, "handled requests");

    assert_non_null(p);
    assert_int_equal(sscanf(p + strlen("handled requests"), " %lld %lld %lld", &c.accepts,
                            &c.handled, &c.requests),
                     3);
    free(resp);
    return c;
}

static void
url(char *buf, size_t len, const char *path)
{
    snprintf(buf, len, "%s%s", ng_target(), path); /* the target ends with '/' */
}

/*
 * Runs benchtop between two reads of nginx's counts; it must end with the status its summary calls
 * for. The summary line is returned in *sum (itest_line's buffer).
 */
static struct run
run_counted(char *const args[], struct ng_counts *before, struct ng_counts *after, const char **sum)
{
    struct run r;

    *before = ng_counts();
    r = itest_runv(args);
    *after = ng_counts();
    *sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(*sum);
    assert_int_equal(r.status, itest_status_for(*sum)); /* 2 when requests failed (4xx, 5xx) */
    return r;
}

/* Keep-alive: nginx served exactly the requests benchtop counted, on one connection per client. */
static void
test_requests_match_nginx(void **state)
{
    char target[256];
    char *args[] = {"run", target, "-c", "4", "-t", "250", "--headless", "-q", NULL};
    struct ng_counts before, after;
    struct run r;
    const char *sum;
    char *page = ng_get("/static.html");
    const char *body = strstr(page, "\r\n\r\n");
    double txns, bytes;

    url(target, sizeof target, "static.html");
    r = run_counted(args, &before, &after, &sum);
    txns = itest_num(sum, "transactions");
    assert_true(txns == 1000);
    /* + the probe + our own stub_status read after the run (before's is in before) */
    assert_int_equal(after.requests - before.requests, (long long)txns + 2);
    assert_int_equal(after.accepts - before.accepts, 4 + 1 + 1);
    /* every response carried at least the page, and not more than a KiB of headers besides */
    assert_non_null(body);
    bytes = itest_num(sum, "rx_bytes_per_s") * itest_num(sum, "duration_s");
    assert_true(bytes >= txns * (double)strlen(body + 4) * 0.99);
    assert_true(bytes <= txns * ((double)strlen(body + 4) + 1024) * 1.01);
    free(page);
    itest_free(&r);
}

/* Nothing watches the app tier: the verdict says how to let benchtop see it, not "no verdict". */
static void
test_unwatched_says_watch(void **state)
{
    char target[256];
    char *args[] = {"run", target, "-c", "2", "-T", "2.5", "--headless", "-q", NULL};
    struct run r;
    const char *sum;

    url(target, sizeof target, "static.html");
    r = itest_runv(args);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    if (strstr(sum, "the server's side is not seen: add --watch") == NULL)
        fail_msg("no --watch hint in: %s", sum);
    itest_free(&r);
}

/* nginx's stub_status watched: the tier is seen, and the hint to add --watch is gone (trial C12).
 */
static void
test_watched_needs_no_hint(void **state)
{
    char target[256], status[256];
    char *args[] = {"run",     target, "-c",         "2",  "-T", "2.5",
                    "--watch", status, "--headless", "-q", NULL};
    struct run r;
    const char *sum;

    url(target, sizeof target, "static.html");
    url(status, sizeof status, "nginx_status");
    r = itest_runv(args);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    assert_non_null(strstr(r.out, "\"collector\":\"")); /* the status page was sampled */
    if (strstr(sum, "not seen") != NULL)
        fail_msg("a --watch hint beside a watched tier: %s", sum);
    /*
     * its workers' CPU is read (the throwaway nginx runs 2), and with them
     * a verdict: before, 12 of 12 intervals said none (unknown 59%, trial 5, C12)
     */
    assert_non_null(
        strstr(r.out, "\"label\":\"threads\",\"value\":\"2 (worker_processes), busiest"));
    if (strstr(sum, "\"verdict\":{\"kind\":\"none\"") != NULL || strstr(sum, "unknown") != NULL)
        fail_msg("nginx's workers seen, yet no verdict: %s", sum);
    itest_free(&r);
}

/* A /proc file of pid (free it); NULL when the process is gone. */
static char *
proc_file(pid_t pid, const char *name)
{
    char path[64], *text;
    int fd;

    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    if ((fd = open(path, O_RDONLY)) < 0)
        return NULL;
    text = itest_slurp(fd);
    close(fd);
    return text;
}

/* Whether pid is a worker of master: its parent, and "nginx: worker process" as its title. */
static int
ng_is_worker(pid_t pid, pid_t master)
{
    char *stat = proc_file(pid, "stat"), *cmd = proc_file(pid, "cmdline");
    const char *paren = stat ? strrchr(stat, ')') : NULL;
    int yes = paren != NULL && atoi(paren + 4) == (int)master && cmd != NULL &&
              strncmp(cmd, "nginx: worker", 13) == 0;

    free(stat);
    free(cmd);
    return yes;
}

/* One of the throwaway nginx's workers (a child of its master, BENCHTOP_NG_DIR/nginx.pid); 0 none.
 */
static pid_t
ng_worker(void)
{
    char path[512], *pidtext;
    struct dirent *e;
    pid_t master, found = 0;
    DIR *d;

    snprintf(path, sizeof path, "%s/nginx.pid", itest_env("BENCHTOP_NG_DIR"));
    pidtext = itest_read_file(path);
    master = (pid_t)atoi(pidtext);
    free(pidtext);
    if (master <= 0 || (d = opendir("/proc")) == NULL)
        return 0;
    while (found == 0 && (e = readdir(d)) != NULL) {
        pid_t pid = (pid_t)atoi(e->d_name);

        if (pid > 0 && ng_is_worker(pid, master))
            found = pid;
    }
    closedir(d);
    return found;
}

/*
 * A worker killed mid-run: its master starts another, and the collector,
 * which keeps the workers it found (a /proc scan costs 2-3 ms a sample),
 * finds the new one: every interval after it still reads both workers.
 */
static void
test_worker_replaced(void **state)
{
    char target[256], status[256];
    char *args[] = {"run",     target, "-c",         "2",  "-T", "4",
                    "--watch", status, "--headless", "-q", NULL};
    const char *last;
    pid_t pid, worker;
    struct run r;
    int o, e;

    url(target, sizeof target, "static.html");
    url(status, sizeof status, "nginx_status");
    pid = itest_spawn(args, &o, &e);
    itest_sleep_ms(1500);
    worker = ng_worker();
    assert_true(worker > 0);
    assert_int_equal(kill(worker, SIGKILL), 0);
    r = itest_finish(pid, o, e);
    assert_int_not_equal(ng_worker(), 0); /* the master started another */
    last = strstr(r.out, "\"label\":\"threads\"");
    for (const char *p = last; p != NULL; p = strstr(p + 1, "\"label\":\"threads\""))
        last = p;
    assert_non_null(last);
    if (strncmp(last, "\"label\":\"threads\",\"value\":\"2 (worker_processes)", 47) != 0)
        fail_msg("the replaced worker was not found: %.120s", last);
    itest_free(&r);
}

/*
 * The server ends every connection (Connection: close asked by -H): with
 * four requests pipelined, each response after the first on a connection
 * goes again on a new one, so nginx serves exactly the requests counted,
 * each on a connection of its own, and none fails.
 */
static void
test_server_closes_pipelined(void **state)
{
    char target[256];
    char *args[] = {"run",        target,       "-c", "2",  "-t",
                    "60",         "--pipeline", "4",  "-H", "Connection: close",
                    "--headless", "-q",         NULL};
    struct ng_counts before, after;
    const char *sum;
    struct run r;

    url(target, sizeof target, "static.html");
    r = run_counted(args, &before, &after, &sum);
    assert_true(itest_num(sum, "transactions") == 120);
    assert_true(itest_num(sum, "errors") == 0);
    assert_int_equal(after.requests - before.requests, 120 + 1 + 1);
    assert_int_equal(after.accepts - before.accepts, 120 + 1 + 1);
    itest_free(&r);
}

/* HEAD: a Content-Length but no body; pipelined responses stay in step. */
static void
test_head_pipelined(void **state)
{
    char target[256];
    char *args[] = {"run", target,       "-X", "HEAD",       "-c", "2", "-t",
                    "100", "--pipeline", "3",  "--headless", "-q", NULL};
    struct ng_counts before, after;
    const char *sum;
    struct run r;

    url(target, sizeof target, "static.html");
    r = run_counted(args, &before, &after, &sum);
    assert_true(itest_num(sum, "transactions") == 200);
    assert_true(itest_num(sum, "errors") == 0);
    assert_int_equal(after.requests - before.requests, 200 + 1 + 1);
    assert_int_equal(after.accepts - before.accepts, 2 + 1 + 1);
    itest_free(&r);
}

/* -C: one connection per request, as nginx's accepts say. */
static void
test_connect_per_request(void **state)
{
    char target[256];
    char *args[] = {"run", target, "-C", "-c", "2", "-t", "60", "--headless", "-q", NULL};
    struct ng_counts before, after;
    struct run r;
    const char *sum;

    url(target, sizeof target, "static.html");
    r = run_counted(args, &before, &after, &sum);
    assert_true(itest_num(sum, "transactions") == 120);
    assert_int_equal(after.accepts - before.accepts, 120 + 1 + 1);
    assert_int_equal(after.requests - before.requests, 120 + 1 + 1);
    itest_free(&r);
}

/* --url-file in order: 2xx pass, 3xx, 4xx and 5xx are failures counted by class. */
static void
test_status_classes(void **state)
{
    char file[] = "/tmp/itest-urls-XXXXXX", line[256], target[256];
    const char *paths[] = {"static.html", "moved", "nope.html", "unavailable", "sleep.php?ms=0"};
    char *args[] = {"run", target, "--url-file", file,         "--url-order", "-c",
                    "1",   "-t",   "50",         "--headless", "-q",          NULL};
    int fd = mkstemp(file);
    struct ng_counts before, after;
    struct run r;
    const char *sum;

    assert_true(fd >= 0);
    url(target, sizeof target, "");
    assert_int_equal(write(fd, "# comment\n\n", 11), 11);
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        int n = snprintf(line, sizeof line, "%s%s\n", ng_target(), paths[i]);
        assert_int_equal(write(fd, line, (size_t)n), n);
    }
    close(fd);
    r = run_counted(args, &before, &after, &sum);
    unlink(file);
    /* 50 requests, each URL 10 times, in order */
    assert_true(itest_num(sum, "transactions") == 20);
    assert_true(itest_num(sum, "3xx") == 10);
    assert_true(itest_num(sum, "4xx") == 10);
    assert_true(itest_num(sum, "5xx") == 10);
    assert_true(itest_num(sum, "errors") == 30);
    assert_non_null(strstr(sum, "HTTP status 404"));
    assert_int_equal(after.requests - before.requests, 50 + 1 + 1);
    itest_free(&r);
}

/* -X, -d @file and -H reach the server: nginx's access log shows the method and the Referer. */
static void
test_method_body_headers(void **state)
{
    char target[256], body[] = "/tmp/itest-body-XXXXXX", data[64], log[512];
    char *args[] = {
        "run", target,   "-X", "PUT", "-d", data,         "-H", "Referer: benchtop-itest",
        "-H",  "X-A: b", "-t", "7",   "-q", "--headless", NULL};
    int fd = mkstemp(body);
    struct run r;
    char *text;
    int lfd;

    assert_true(fd >= 0);
    assert_int_equal(write(fd, "a=1&b=2", 7), 7);
    close(fd);
    snprintf(data, sizeof data, "@%s", body);
    url(target, sizeof target, "sleep.php?ms=0");
    r = itest_runv(args);
    unlink(body);
    assert_int_equal(r.status, 0);
    assert_true(itest_num(itest_line(r.out, "\"type\":\"summary\""), "transactions") == 7);
    snprintf(log, sizeof log, "%s/access.log", itest_env("BENCHTOP_NG_DIR"));
    lfd = open(log, O_RDONLY);
    assert_true(lfd >= 0);
    text = itest_slurp(lfd);
    close(lfd);
    /* the probe and the 7 requests */
    assert_int_equal(itest_count_lines(text, "\"PUT /sleep.php?ms=0 HTTP/1.1\" 200"), 8);
    assert_int_equal(itest_count_lines(text, "\"benchtop-itest\""), 8);
    free(text);
    itest_free(&r);
}

/*
 * A credential in -H reaches the server but is masked in ps, the record and
 * stderr; a header that is no secret is kept as given.
 */
static void
test_header_secret_masked(void **state)
{
    char target[256], cmdline[4096], log[512], *text;
    char *args[] = {"run", target,   "-H", "Authorization: Bearer sekrit42",
                    "-H",  "X-A: b", "-T", "2",
                    "-c",  "1",      "-q", "--headless",
                    NULL};
    int o, e, lfd;
    pid_t pid;
    struct run r;

    url(target, sizeof target, "static.html");
    pid = itest_spawn(args, &o, &e);
    itest_cmdline_masked(pid, "***", cmdline, sizeof(cmdline));
    assert_null(strstr(cmdline, "sekrit42"));
    assert_non_null(strstr(cmdline, "Authorization: ***"));
    r = itest_finish(pid, o, e);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "sekrit42"));
    assert_null(strstr(r.err, "sekrit42"));
    assert_non_null(strstr(r.out, "\"header\":\"Authorization: ***\\u000aX-A: b\""));
    snprintf(log, sizeof log, "%s/access.log", itest_env("BENCHTOP_NG_DIR"));
    lfd = open(log, O_RDONLY);
    assert_true(lfd >= 0);
    text = itest_slurp(lfd);
    close(lfd);
    assert_true(itest_count_lines(text, "\"Bearer sekrit42\"") > 0);
    free(text);
    itest_free(&r);
}

/* nginx restarted mid-run: each client's failed request is one connection error, then it is back.
 */
static void
test_server_restart(void **state)
{
    char target[256];
    char *args[] = {"run", target, "--headless", "-T", "6", "-c", "4", NULL};
    const char *sum, *last;
    struct run r;

    url(target, sizeof target, "static.html");
    r = itest_run_through_restart(args, "NG", 2000, 4, 1, &sum);
    /* a refused connect after the loss is a failed reconnect, not another error */
    assert_true(itest_num(sum, "connection") <= itest_num(sum, "reconnects"));
    last = itest_line(r.out, "\"type\":\"interval\",\"t\":5.");
    assert_non_null(last);
    assert_true(itest_num(last, "tps") > 0);
    itest_free(&r);
}

static void
expect_one_line(char *const args[], const char *const want[])
{
    struct run r = itest_runv(args);

    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    for (int i = 0; want[i] != NULL; i++) {
        if (strstr(r.err, want[i]) == NULL)
            fail_msg("stderr lacks \"%s\": %s", want[i], r.err);
    }
    assert_string_equal(r.out, "");
    itest_free(&r);
}

static void
test_bad_targets(void **state)
{
    char target[256];
    char *args[] = {"run", target, "-T", "1", "--headless", NULL};
    const char *refused[] = {"cannot connect to", "is the web server running", NULL};
    const char *tls[] = {"TLS with", "failed", "--insecure", "http://", NULL};
    const char *bad[] = {"is not a URL curl can read", NULL};
    const char *remote[] = {"is not on this machine", "loopback only", NULL};

    snprintf(target, sizeof target, "http://127.0.0.1:%d/", itest_free_port());
    expect_one_line(args, refused);
    /* TLS spoken to a server that answers in plain HTTP */
    snprintf(target, sizeof target, "https://127.0.0.1:%d/static.html", ng_port());
    expect_one_line(args, tls);
    snprintf(target, sizeof target, "http://[::1/");
    expect_one_line(args, bad);
    snprintf(target, sizeof target, "http://192.0.2.1/");
    expect_one_line(args, remote);
}

static void
test_bad_options(void **state)
{
    char target[256], missing[] = "/tmp/itest-no-such-file";
    char *header[] = {"run", target, "-H", "no colon", "-T", "1", NULL};
    char *body[] = {"run", target, "-d", "@/tmp/itest-no-such-file", "-T", "1", NULL};
    char *urls[] = {"run", target, "--url-file", missing, "-T", "1", NULL};
    char *order[] = {"run", target, "--url-order", "-T", "1", NULL};
    char *method[] = {"run", target, "-X", "GE T", "-T", "1", NULL};
    char *other_db[] = {"run", "redis://127.0.0.1:1", "-H", "A: b", "-T", "1", NULL};
    const char *w_header[] = {"-H takes 'Name: value'", NULL};
    const char *w_body[] = {"cannot read body", "check the path given to -d", NULL};
    const char *w_urls[] = {"cannot read URL file", "given to --url-file", NULL};
    const char *w_order[] = {"--url-order applies to --url-file", NULL};
    const char *w_method[] = {"-X takes a method name", NULL};
    const char *w_other[] = {"--header is not a redis option", NULL};

    url(target, sizeof target, "static.html");
    expect_one_line(header, w_header);
    expect_one_line(body, w_body);
    expect_one_line(urls, w_urls);
    expect_one_line(order, w_order);
    expect_one_line(method, w_method);
    expect_one_line(other_db, w_other);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests_match_nginx),
        cmocka_unit_test(test_unwatched_says_watch),
        cmocka_unit_test(test_watched_needs_no_hint),
        cmocka_unit_test(test_worker_replaced),
        cmocka_unit_test(test_connect_per_request),
        cmocka_unit_test(test_status_classes),
        cmocka_unit_test(test_method_body_headers),
        cmocka_unit_test(test_bad_targets),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_server_restart),
        cmocka_unit_test(test_header_secret_masked),
        cmocka_unit_test(test_server_closes_pipelined),
        cmocka_unit_test(test_head_pipelined),
    };
    /* tests/run-integration starts nginx only when benchtop has the http backend (libcurl). */
    if (getenv("BENCHTOP_NG_TARGET") == NULL) {
        test_skip_program("no nginx server in this run (benchtop built without libcurl)");
        return 0;
    }
    return cmocka_run_group_tests_name("http", tests, NULL, NULL);
}
