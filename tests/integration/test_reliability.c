/*
 * Faults and hostile input (issue 17): a port that accepts and never
 * answers, a fake Redis that answers with terminal escapes, invalid UTF-8
 * and absurd numbers, a throwaway server frozen with SIGSTOP, an output on
 * /dev/full, SIGHUP. Each test checks a value that was wrong before.
 * The fake servers are threads of this test on loopback ports.
 */
#include "config.h"

#include "itest.h"
#ifdef HAVE_MYSQL
#include "itest-mysql.h"
#endif

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#define TEST_SECONDS_MAX 25 /* a benchtop that runs longer than this hangs */

/* ---- fake servers ---- */

enum fake_kind { FAKE_SILENT, FAKE_REDIS };

struct fake {
    enum fake_kind kind;
    int lfd, port;
    pthread_t thread;
};

static struct fake silent, hostile;

static const char hostile_error[] = "-ERR \x1b]0;pwned\x07\x1b[2J\xff\xfe bad\r\n";

/* INFO with numbers no server sends: 2^64-1 and 1.7e308, whose rates and sums overflow. */
static const char hostile_info[] = "# Server\r\nredis_version:7.0.0-\xff\xfe\x1b[2J\r\n"
                                   "uptime_in_seconds:18446744073709551615\r\n"
                                   "# Clients\r\nconnected_clients:18446744073709551615\r\n"
                                   "blocked_clients:18446744073709551615\r\n"
                                   "# Memory\r\nused_memory:18446744073709551615\r\n"
                                   "maxmemory:1\r\nmem_fragmentation_ratio:1.7e308\r\n"
                                   "# Stats\r\ntotal_commands_processed:18446744073709551615\r\n"
                                   "instantaneous_ops_per_sec:1.7e308\r\n"
                                   "total_connections_received:18446744073709551615\r\n"
                                   "keyspace_hits:18446744073709551615\r\n"
                                   "keyspace_misses:18446744073709551615\r\n"
                                   "# Keyspace\r\ndb0:keys=18446744073709551615,expires=0\r\n";

static void
send_str(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, s, len, MSG_NOSIGNAL);
        if (n <= 0)
            return;
        s += n;
        len -= (size_t)n;
    }
}

static void
send_bulk(int fd, const char *body)
{
    char head[32];

    snprintf(head, sizeof(head), "$%zu\r\n", strlen(body));
    send_str(fd, head, strlen(head));
    send_str(fd, body, strlen(body));
    send_str(fd, "\r\n", 2);
}

/* Answers one RESP command (its words joined by spaces, upper-cased first word). */
static void
answer(int fd, const char *cmd)
{
    if (strcmp(cmd, "PING") == 0)
        send_str(fd, "+PONG\r\n", 7);
    else if (strcmp(cmd, "INFO") == 0)
        send_bulk(fd, hostile_info);
    else if (strcmp(cmd, "INFO commandstats") == 0)
        send_bulk(
            fd,
            "# Commandstats\r\ncmdstat_get:calls=18446744073709551615,usec=18446744073709551615,"
            "usec_per_call=1.7e308\r\ncmdstat_\x1b[2J:calls=1,usec=1,usec_per_call=1\r\n");
    else if (strcmp(cmd, "SLOWLOG LEN") == 0)
        send_str(fd, ":9223372036854775807\r\n", 22);
    else if (strncmp(cmd, "SLOWLOG GET", 11) == 0)
        send_str(fd, "*0\r\n", 4);
    else
        send_str(fd, hostile_error, sizeof(hostile_error) - 1);
}

/* Parses complete RESP arrays at the start of buf; returns bytes used. */
static size_t
serve_commands(int fd, const char *buf, size_t len)
{
    size_t used = 0;

    for (;;) {
        const char *p = buf + used, *end = buf + len;
        char cmd[256] = "";
        long n, i;

        if (p >= end || *p != '*' || memchr(p, '\n', (size_t)(end - p)) == NULL)
            return used;
        n = strtol(p + 1, NULL, 10);
        p = memchr(p, '\n', (size_t)(end - p)) + 1;
        for (i = 0; i < n; i++) {
            const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
            long blen;
            if (nl == NULL || *p != '$')
                return used;
            blen = strtol(p + 1, NULL, 10);
            p = nl + 1;
            if (end - p < blen + 2)
                return used;
            snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "%s%.*s", i ? " " : "",
                     (int)blen, p);
            p += blen + 2;
        }
        answer(fd, cmd);
        used = (size_t)(p - buf);
    }
}

static void *
redis_conn(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[65536];
    size_t len = 0, used;
    ssize_t n;

    while ((n = recv(fd, buf + len, sizeof(buf) - len, 0)) > 0) {
        len += (size_t)n;
        used = serve_commands(fd, buf, len);
        memmove(buf, buf + used, len - used);
        len -= used;
        if (len == sizeof(buf))
            break;
    }
    close(fd);
    return NULL;
}

static void *
fake_main(void *arg)
{
    struct fake *f = arg;
    pthread_t t;
    int fd;

    while ((fd = accept(f->lfd, NULL, NULL)) >= 0) {
        if (f->kind == FAKE_SILENT)
            continue; /* held open, never read, never answered */
        pthread_create(&t, NULL, redis_conn, (void *)(intptr_t)fd);
        pthread_detach(t);
    }
    return NULL;
}

static void
fake_start(struct fake *f, enum fake_kind kind)
{
    f->kind = kind;
    f->lfd = itest_listen(&f->port);
    pthread_create(&f->thread, NULL, fake_main, f);
    pthread_detach(f->thread);
}

/* ---- running benchtop with a time limit ---- */

/* Waits for pid at most secs; on overrun kills it and fails the test (after cleanup runs). */
static struct run
finish_within(pid_t pid, int o, int e, int secs, void (*cleanup)(void))
{
    siginfo_t si;
    int waited;

    for (waited = 0; waited < secs * 10; waited++) {
        si.si_pid = 0; /* exited, not yet reaped: itest_finish reaps it */
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            return itest_finish(pid, o, e);
        itest_sleep_ms(100);
    }
    if (cleanup)
        cleanup();
    kill(pid, SIGKILL);
    itest_finish(pid, o, e);
    fail_msg("benchtop still running after %d s", secs);
    return (struct run){0};
}

static struct run
run_within(char *const args[], int secs)
{
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);

    return finish_within(pid, o, e, secs, NULL);
}

/* ---- a small JSON checker: one value per line, strings valid UTF-8 ---- */

static const char *json_value(const char *p);

static const char *
json_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static const char *
json_str(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 5;
            } else if (strchr("\"\\/bfnrt", *p) && *p) {
                p++;
            } else {
                return NULL;
            }
            continue;
        }
        if (c < 0x80) {
            p++;
            continue;
        }
        /* a UTF-8 sequence: lead byte and its continuation bytes */
        int n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
        if (n == 0)
            return NULL;
        for (int i = 1; i < n; i++)
            if (((unsigned char)p[i] & 0xc0) != 0x80)
                return NULL;
        p += n;
    }
    return p + 1;
}

static const char *
json_num(const char *p)
{
    const char *start = p;

    if (*p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p > start ? p : NULL;
}

static const char *
json_items(const char *p, char close, int keys)
{
    p = json_ws(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (keys) {
            p = json_str(json_ws(p));
            if (p == NULL || *(p = json_ws(p)) != ':')
                return NULL;
            p++;
        }
        p = json_value(p);
        if (p == NULL)
            return NULL;
        p = json_ws(p);
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
    }
}

static const char *
json_value(const char *p)
{
    p = json_ws(p);
    if (*p == '{')
        return json_items(p, '}', 1);
    if (*p == '[')
        return json_items(p, ']', 0);
    if (*p == '"')
        return json_str(p);
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    return json_num(p);
}

/* Every line of text is one valid JSON value; returns the number of lines. */
static int
assert_json_lines(const char *text)
{
    int n = 0;

    while (*text) {
        const char *end = json_value(text);
        if (end == NULL || *end != '\n')
            fail_msg("not a valid JSON line: %.300s", text);
        text = end + 1;
        n++;
    }
    return n;
}

/* ---- the tests ---- */

static void
test_pg_connect_times_out(void **state)
{
    char target[96];
    char *run_args[] = {"run", target, "-T", "2", "--headless", NULL};
    char *init_args[] = {"init", target, "-q", NULL};
    struct run r;

    (void)state;
    snprintf(target, sizeof(target), "postgres://bench@127.0.0.1:%d/bench", silent.port);
    r = run_within(run_args, 15);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "timeout expired"));
    assert_int_equal(itest_lines(r.err), 1);
    itest_free(&r);
    r = run_within(init_args, 15);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "timeout expired"));
    itest_free(&r);
}

static void
test_no_escape_reaches_the_terminal(void **state)
{
    char target[64];
    char *args[] = {"run", target, "-T", "2", "-c", "2", "--headless", NULL};
    const char *sum;
    struct run r;

    (void)state;
    snprintf(target, sizeof(target), "redis://127.0.0.1:%d", hostile.port);
    r = run_within(args, TEST_SECONDS_MAX);
    assert_int_equal(r.status, 2); /* every transaction failed: as pgbench, exit 2 */
    for (const char *p = r.err; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n')
            fail_msg("control byte 0x%02x on stderr:\n%s", (unsigned char)*p, r.err);
    assert_null(strstr(r.err, "\xff"));
    assert_non_null(strstr(r.err, "ERR \\x1b]0;pwned\\x07\\x1b[2J\\xff\\xfe bad"));
    /* all failed: the summary (after the progress lines) leads with it and the message's count */
    assert_true(strncmp(itest_after_progress(r.err), "FAILED: 100.0% of transactions", 30) == 0);
    assert_json_lines(r.out);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    assert_true(itest_num(sum, "failed_share") == 1.0);
    assert_non_null(strstr(sum, "\"error_messages\":[{\"message\":\"ERR \\\\x1b]0;pwned"));
    itest_free(&r);
}

static void
test_json_stays_valid(void **state)
{
    char target[64];
    char *args[] = {"watch", target, "-T", "3", "--headless", NULL};
    struct run r;

    (void)state;
    snprintf(target, sizeof(target), "redis://127.0.0.1:%d", hostile.port);
    r = run_within(args, TEST_SECONDS_MAX);
    fprintf(stderr, "%s%s", r.err, getenv("ITEST_VERBOSE") ? r.out : "");
    assert_int_equal(r.status, 0);
    assert_true(assert_json_lines(r.out) >= 2);
    assert_non_null(strstr(r.out, "\"ok\":true"));
    assert_null(strstr(r.out, "inf,"));
    assert_null(strstr(r.out, "nan,"));
    itest_free(&r);
}

/* The pids of a process and all its descendants, read from /proc. */
static int
family(pid_t root, pid_t *out, int max)
{
    int n = 1, grew = 1;

    out[0] = root;
    while (grew && n < max) {
        DIR *d = opendir("/proc");
        struct dirent *de;

        grew = 0;
        while (d && (de = readdir(d)) != NULL && n < max) {
            char path[64], buf[512], *rp;
            pid_t pid = (pid_t)atoi(de->d_name), ppid;
            FILE *f;
            int i, known = 0;

            if (pid <= 0)
                continue;
            snprintf(path, sizeof(path), "/proc/%d/stat", pid);
            if ((f = fopen(path, "r")) == NULL)
                continue;
            buf[0] = '\0';
            if (fgets(buf, sizeof(buf), f) == NULL)
                buf[0] = '\0';
            fclose(f);
            rp = strrchr(buf, ')');
            if (rp == NULL || sscanf(rp + 2, "%*c %d", &ppid) != 1)
                continue;
            for (i = 0; i < n; i++)
                known |= out[i] == pid;
            for (i = 0; i < n && !known; i++)
                if (out[i] == ppid) {
                    out[n++] = pid;
                    grew = 1;
                    break;
                }
        }
        if (d)
            closedir(d);
    }
    return n;
}

static pid_t frozen[256];
static int nfrozen;

static void
thaw(void)
{
    for (int i = 0; i < nfrozen; i++)
        kill(frozen[i], SIGCONT);
    nfrozen = 0;
}

static void
freeze(const char *pidfile)
{
    FILE *f = fopen(pidfile, "r");
    int pid = 0;

    assert_non_null(f);
    assert_int_equal(fscanf(f, "%d", &pid), 1);
    fclose(f);
    nfrozen = family((pid_t)pid, frozen, 256);
    for (int i = 0; i < nfrozen; i++)
        kill(frozen[i], SIGSTOP);
}

/* Starts benchtop, freezes the server 1.5 s in; benchtop must end by itself (status 0). */
static struct run
run_frozen(char *const args[], const char *pidfile)
{
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);
    struct run r;

    itest_sleep_ms(1500);
    freeze(pidfile);
    r = finish_within(pid, o, e, 15, thaw);
    thaw();
    fprintf(stderr, "%s", r.err);
    /* it ends by itself: 0, or 2 when the freeze failed transactions (as pgbench) */
    assert_int_equal(r.status, itest_status_for(itest_line(r.out, "\"type\":\"summary\"")));
    return r;
}

/*
 * The server freezes 1.5 s into a 6 s run or watch: benchtop still ends in
 * bounded time (with its summary), and the server lines after the freeze
 * say the sample failed, with no figures.
 */
static void
run_through_freeze(char *const args[], const char *pidfile)
{
    struct run r = run_frozen(args, pidfile);
    const char *stuck;

    if (strcmp(args[0], "run") == 0)
        assert_non_null(itest_line(r.out, "\"type\":\"summary\""));
    stuck = itest_line(r.out, "\"ok\":false");
    assert_non_null(stuck);
    assert_non_null(strstr(stuck, "\"server_tps\":null,\"rows\":[]"));
    assert_true(itest_num(stuck, "t") > 2.0);
    itest_free(&r);
}

static void
test_frozen_postgres(void **state)
{
    char pidfile[512];

    (void)state;
    char script[] = "/tmp/itest-rel-XXXXXX";
    int fd = mkstemp(script);
    char *args[] = {
        "run", itest_env("BENCHTOP_PG_TARGET"), "-f", script, "-T", "6", "-c", "2", "--headless",
        NULL};

    assert_true(fd >= 0);
    assert_int_equal(write(fd, "SELECT 1;\n", 10), 10);
    close(fd);
    snprintf(pidfile, sizeof(pidfile), "%s/data/postmaster.pid", itest_env("BENCHTOP_PG_DIR"));
    run_through_freeze(args, pidfile);
    unlink(script);
}

static void
test_frozen_mysql(void **state)
{
    char pidfile[512];

    (void)state;
    char *args[] = {"watch", itest_env("BENCHTOP_MY_TARGET"), "-T", "6", "--headless", NULL};

    snprintf(pidfile, sizeof(pidfile), "%s/mysqld.pid", itest_env("BENCHTOP_MY_DIR"));
    run_through_freeze(args, pidfile);
}

#ifdef HAVE_MYSQL
/*
 * MySQL freezes 1.5 s into a run with -C, so that connects are caught as
 * well as statements: --stall-timeout drops both and the run ends with its
 * summary while the server is still frozen. Built with
 * --disable-mysql-nonblocking (a thread per connection), a connect waiting
 * for the greeting had no socket to cut, and held its worker until the server
 * thawed.
 */
static void
test_frozen_mysql_connects(void **state)
{
    char pidfile[512], *target = itest_my_target("bt_rel_frozen");
    char *args[] = {"run", target,         "--stall-timeout", "1", "-C", "-c", "2", "-T", "5",
                    "-w",  "point-select", "--no-collect",    NULL};
    const char *sum;
    struct run r;

    (void)state;
    assert_int_equal(itest_my_fresh_db("bt_rel_frozen", "1", "100"), 0);
    snprintf(pidfile, sizeof(pidfile), "%s/mysqld.pid", itest_env("BENCHTOP_MY_DIR"));
    r = run_frozen(args, pidfile);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    assert_true(itest_num(sum, "transactions") > 0);
    assert_true(itest_num(strstr(sum, "errors_by_kind"), "connection") >= 1);
    itest_free(&r);
}
#endif

static void
test_output_errors(void **state)
{
    char *args[] = {"watch", itest_env("BENCHTOP_RD_TARGET"), "-T", "2", "--headless", NULL};
    int full = open("/dev/full", O_WRONLY), st;
    pid_t pid;
    struct run r;

    (void)state;
    assert_true(full >= 0);
    pid = fork();
    if (pid == 0) { /* stdout on a full disk, stderr dropped */
        dup2(full, 1);
        dup2(open("/dev/null", O_WRONLY), 2);
        execv(itest_env("BENCHTOP_BIN"),
              (char *[]){"benchtop", args[0], args[1], args[2], args[3], args[4], NULL});
        _exit(127);
    }
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    close(full);

    /* headless with a --record it cannot write, or with a theme that does not load: refused */
    {
        char *rec[] = {"watch",    itest_env("BENCHTOP_RD_TARGET"), "-T", "1", "--headless",
                       "--record", "/nonexistent/x.jsonl",          NULL};
        char *theme[] = {"watch",      itest_env("BENCHTOP_RD_TARGET"),
                         "-T",         "1",
                         "--headless", "--theme",
                         "/dev/zero",  NULL};
        r = run_within(rec, 10);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "cannot write --record /nonexistent/x.jsonl"));
        itest_free(&r);
        r = run_within(theme, 10);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "theme /dev/zero is larger than"));
        itest_free(&r);
    }
}

/*
 * Headless with --record FILE (a Kubernetes agent writing to a volume):
 * the JSON lines go to the file, nothing to stdout.
 */
static void
test_headless_record_file(void **state)
{
    char path[] = "/tmp/bt-headless-rec-XXXXXX", *text;
    char *args[] = {"run",      itest_env("BENCHTOP_RD_TARGET"),
                    "-T",       "2",
                    "-c",       "2",
                    "-q",       "--headless",
                    "--record", path,
                    NULL};
    int fd = mkstemp(path);
    struct run r;

    assert_true(fd >= 0);
    close(fd);
    r = run_within(args, 20);
    assert_int_equal(r.status, 0);
    assert_int_equal(strlen(r.out), 0);
    text = itest_read_file(path);
    assert_non_null(strstr(text, "\"type\":\"run\""));
    assert_non_null(strstr(text, "\"type\":\"interval\""));
    assert_non_null(strstr(text, "\"type\":\"summary\""));
    free(text);
    itest_free(&r);
    unlink(path);
}

/*
 * Headless JSON lines onto a full disk (a 64 kB tmpfs with 8 kB free): at
 * the first failed write the run stops (well before -T 60) with exit 1 and
 * one line naming the reason, as EXIT STATUS says.
 */
static void
test_headless_full_disk(void **state)
{
    char path[64],
        *args[] = {
            "run", itest_env("BENCHTOP_RD_TARGET"), "-T", "60", "-c", "2", "-q", "--headless",
            NULL};
    int o, e, fd;
    pid_t pid;
    struct run r;

    if (itest_tmpfs_full(itest_full, 8) < 0)
        test_skip("cannot mount a tmpfs to fill (needs root and CAP_SYS_ADMIN)");
    snprintf(path, sizeof path, "%s/out.jsonl", itest_full);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    pid = itest_spawn_to(args, fd, &o, &e);
    r = finish_within(pid, o, e, 30, NULL); /* closes fd */
    fprintf(stderr, "  status %d, stderr: %s", r.status, r.err);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "benchtop: cannot write to standard output: No space left on "
                               "device (lines were lost)\n");
    itest_free(&r);
}

static void
test_sighup_ends_cleanly(void **state)
{
    char *args[] = {"run", itest_env("BENCHTOP_RD_TARGET"), "-T", "30", "-c", "3", "--headless",
                    NULL};
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);
    struct run r;
    const char *last;

    (void)state;
    itest_sleep_ms(1500);
    kill(pid, SIGHUP);
    r = finish_within(pid, o, e, 10, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(itest_line(r.out, "\"type\":\"summary\""));
    /* the last interval counts the clients still connected, not 0 */
    last = itest_line(r.out, "\"type\":\"interval\"");
    assert_non_null(last);
    assert_true(itest_num(last, "connected") == 3);
    itest_free(&r);
}

static void
test_stuck_watch_and_wrong_words(void **state)
{
    char target[64];
    char *watch[] = {"watch", target, "-T", "3", "--headless", NULL};
    char *frob[] = {"frobnicate", "redis://127.0.0.1:1", NULL};
    struct run r;

    (void)state;
    snprintf(target, sizeof(target), "redis://127.0.0.1:%d", silent.port);
    r = run_within(watch, 15);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no sample of redis://127.0.0.1:"));
    assert_null(strstr(r.out, "\"ok\":true"));
    itest_free(&r);
    r = run_within(frob, 10);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
    itest_free(&r);
}

static int
setup(void **state)
{
    signal(SIGPIPE, SIG_IGN);
    fake_start(&silent, FAKE_SILENT);
    fake_start(&hostile, FAKE_REDIS);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pg_connect_times_out),
        cmocka_unit_test(test_no_escape_reaches_the_terminal),
        cmocka_unit_test(test_json_stays_valid),
        cmocka_unit_test(test_frozen_postgres),
        cmocka_unit_test(test_frozen_mysql),
#ifdef HAVE_MYSQL
        cmocka_unit_test(test_frozen_mysql_connects),
#endif
        cmocka_unit_test(test_output_errors),
        cmocka_unit_test_teardown(test_headless_full_disk, itest_full_drop),
        cmocka_unit_test(test_headless_record_file),
        cmocka_unit_test(test_sighup_ends_cleanly),
        cmocka_unit_test(test_stuck_watch_and_wrong_words),
    };
    if (getenv("ITEST_FILTER") != NULL) /* e.g. ITEST_FILTER='test_frozen_*' */
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests_name("reliability", tests, setup, NULL);
}
