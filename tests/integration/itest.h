/*
 * itest: what the integration tests share: running ./benchtop as a child
 * with its output captured, reading fields out of its JSON lines, and
 * asking the test server through libpq. Header-only so each test is one
 * self-contained binary (tests/run-integration starts the servers).
 */
#ifndef BENCHTOP_ITEST_H
#define BENCHTOP_ITEST_H

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libpq-fe.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "base/util.h"
#include "engine/target.h"
#include "base/cpu.h"
#include "tests/skip.h"

struct run {
    int status; /* exit code, or 128+signal */
    char *out;  /* stdout */
    char *err;  /* stderr */
    pid_t pid;
};

static inline char *
itest_env(const char *name)
{
    char *v = getenv(name);

    if (v == NULL || *v == '\0') {
        fprintf(stderr, "%s is not set: run this through tests/run-integration\n", name);
        exit(1);
    }
    return v;
}

/* build/tools/NAME (BENCHTOP_TOOLS, set by tests/run-integration) into out. */
static inline char *
itest_tool(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", itest_env("BENCHTOP_TOOLS"), name);
    return out;
}

static inline char *
itest_slurp(int fd)
{
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    ssize_t n;

    while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (cap - len < 2048)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    return buf;
}

/* Writes text to path; the test fails if it cannot. */
static inline void
itest_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/*
 * A full disk made to order: a 64 kB tmpfs on a new temporary directory
 * (path, room for 32 bytes) with all but free_kb of it taken by a filler
 * file. 0, or -1 when it cannot mount (not root): the caller skips.
 * itest_tmpfs_drop unmounts and removes it.
 */
static inline int
itest_tmpfs_full(char *path, int free_kb)
{
    char cmd[160];

    snprintf(path, 32, "/tmp/itest-full-XXXXXX");
    if (mkdtemp(path) == NULL)
        return -1;
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=64k tmpfs %s 2>/dev/null", path);
    if (system(cmd) != 0) {
        rmdir(path);
        path[0] = '\0';
        return -1;
    }
    snprintf(cmd, sizeof cmd, "dd if=/dev/zero of=%s/filler bs=1k count=%d 2>/dev/null", path,
             64 - free_kb);
    return system(cmd) == 0 ? 0 : -1;
}

static inline void
itest_tmpfs_drop(const char *path)
{
    char cmd[160];

    snprintf(cmd, sizeof cmd, "umount %s && rmdir %s", path, path);
    assert_int_equal(system(cmd), 0);
}

/* A test's full disk, and the teardown that drops it whatever the test did. */
static char itest_full[32] __attribute__((unused));

static inline int
itest_full_drop(void **state)
{
    if (itest_full[0] != '\0')
        itest_tmpfs_drop(itest_full);
    itest_full[0] = '\0';
    return 0;
}

/* The whole of a file (free it); the test fails if it cannot be read. */
static inline char *
itest_read_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    char *text;

    assert_true(fd >= 0);
    text = itest_slurp(fd);
    close(fd);
    return text;
}

/*
 * Starts benchtop with argv (NULL-terminated, without the program); stdout
 * to out (-1: a temp file), stderr to a temp file.
 */
static inline pid_t
itest_spawn_to(char *const args[], int out, int *outfd, int *errfd)
{
    char tmpl_o[] = "/tmp/itest-out-XXXXXX", tmpl_e[] = "/tmp/itest-err-XXXXXX";
    char *argv[64];
    int i, o = out >= 0 ? out : mkstemp(tmpl_o), e = mkstemp(tmpl_e);
    pid_t pid;

    if (out < 0)
        unlink(tmpl_o);
    unlink(tmpl_e);
    argv[0] = itest_env("BENCHTOP_BIN");
    for (i = 0; args[i] != NULL && i < 62; i++)
        argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    pid = fork();
    if (pid == 0) {
        dup2(o, 1);
        dup2(e, 2);
        /* signals as a terminal would leave them, whatever ran the suite (nohup ignores HUP) */
        signal(SIGHUP, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        execv(argv[0], argv);
        _exit(127);
    }
    *outfd = o;
    *errfd = e;
    return pid;
}

static inline pid_t
itest_spawn(char *const args[], int *outfd, int *errfd)
{
    return itest_spawn_to(args, -1, outfd, errfd);
}

static inline struct run
itest_finish(pid_t pid, int o, int e)
{
    struct run r = {.pid = pid};
    int st;

    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    lseek(o, 0, SEEK_SET);
    lseek(e, 0, SEEK_SET);
    r.out = itest_slurp(o);
    r.err = itest_slurp(e);
    close(o);
    close(e);
    return r;
}

static inline void
itest_sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/*
 * What `ps` shows of process pid: its /proc cmdline, NULs as spaces. A read
 * while the child is inside execve() gives 0 bytes (the new image's argv is
 * not set up yet): retried for up to a second.
 */
static inline void
itest_cmdline(pid_t pid, char *buf, size_t len)
{
    char path[64];
    ssize_t n = -1;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    for (int tries = 0; tries < 100 && n <= 0; tries++) {
        if (tries > 0)
            itest_sleep_ms(10);
        fd = open(path, O_RDONLY);
        n = fd >= 0 ? read(fd, buf, len - 1) : -1;
        if (fd >= 0)
            close(fd);
    }
    assert_true(n > 0);
    for (ssize_t i = 0; i < n; i++)
        buf[i] = buf[i] ? buf[i] : ' ';
    buf[n] = '\0';
}

/*
 * The CPU other programs keep busy, % of all the host's cores, over ms while
 * this test runs nothing (its servers idle): /proc/stat's busy jiffies, as
 * the verdict reads the host (base/cpu.c). NAN when /proc/stat is unreadable.
 */
static inline double
itest_host_busy_pct(int ms)
{
    struct cpu_host a, b;

    if (cpu_host_read(&a) < 0)
        return NAN;
    itest_sleep_ms(ms);
    if (cpu_host_read(&b) < 0)
        return NAN;
    return cpu_host_busy_pct(&a, &b);
}

/* Busier than this (% of all cores, other programs' work) a timing check may miss. */
#define ITEST_BUSY_PCT 25.0

/*
 * What a check that times a live server does when its figure came out wrong
 * (saw: what it measured, for the line): measures the host for a second.
 * Quiet: returns 0, and the caller asserts (a failure is the code's). Busy,
 * on the first try (attempt 0): says so and returns 1, try again. Busy on
 * the second: skips test with one line naming the load and the figure; the
 * skip's name is "PROGRAM/TEST@busy", which tests/expected-skips can allow
 * apart from the test's other skips.
 */
static inline int
itest_busy_retry(const char *test, int attempt, const char *saw)
{
    double busy = itest_host_busy_pct(1000);
    char name[128];

    if (!(busy > ITEST_BUSY_PCT))
        return 0;
    if (attempt == 0) {
        fprintf(stderr, "  %s: other programs keep %.0f%% of the CPUs busy: trying again\n", saw,
                busy);
        return 1;
    }
    snprintf(name, sizeof name, "%s@busy", test);
    test_skip_for(name, "the host stayed busy (other programs took %.0f%% of the CPUs), twice %s",
                  busy, saw);
    return 0;
}

/* Runs benchtop to the end: itest_run("run", target, "-T", "2", NULL). */
static inline struct run
itest_runv(char *const args[])
{
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e);

    return itest_finish(pid, o, e);
}

/* A loopback port nobody listens on: bound, then closed. */
static inline int
itest_free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;

    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* A listening socket on a free loopback port (*port), for fake servers that are threads of a test.
 */
static inline int
itest_listen(int *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 128), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static inline void
itest_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

/* The last line of `text` that contains `needle` (copied into a static buffer). */
static inline const char *
itest_line(const char *text, const char *needle)
{
    static char line[65536];
    const char *p = text, *found = NULL;

    while ((p = strstr(p, needle)) != NULL) {
        found = p;
        p++;
    }
    if (found == NULL)
        return NULL;
    while (found > text && found[-1] != '\n')
        found--;
    size_t n = strcspn(found, "\n");
    if (n >= sizeof(line))
        n = sizeof(line) - 1;
    memcpy(line, found, n);
    line[n] = '\0';
    return line;
}

static inline double itest_num(const char *line, const char *key);

/*
 * The exit status a run with this summary line must have: 2 when
 * transactions failed or the server stopped answering (as pgbench), else 0.
 */
static inline int
itest_status_for(const char *sum)
{
    return sum != NULL && (itest_num(sum, "errors") > 0 || itest_num(sum, "outage_s") > 0) ? 2 : 0;
}

/*
 * Runs benchtop headless to the end; fails the test unless it wrote a
 * summary line and exited 0 (2 if that summary counts failures).
 */
static inline struct run
itest_run_ok(char **args, const char **sum)
{
    struct run r = itest_runv(args);

    *sum = itest_line(r.out, "\"type\":\"summary\"");
    if (r.status != itest_status_for(*sum) || *sum == NULL)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_non_null(*sum);
    assert_int_equal(r.status, itest_status_for(*sum));
    return r;
}

/* stderr past the progress lines (`progress: ...`, one per interval): where the summary starts. */
static inline const char *
itest_after_progress(const char *err)
{
    while (strncmp(err, "progress: ", 10) == 0 && strchr(err, '\n') != NULL)
        err = strchr(err, '\n') + 1;
    return err;
}

/* A number after "key": in a JSON line (first occurrence); NAN if missing. */
static inline double
itest_num(const char *line, const char *key)
{
    char pat[128];
    const char *p;

    if (line == NULL)
        return -1e300;
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    p = strstr(line, pat);
    if (p == NULL)
        return -1e300;
    return strtod(p + strlen(pat), NULL);
}

/*
 * The largest "num" of the row labelled label over every line of text that
 * holds needle (e.g. a collector's server lines): a figure that held during
 * the load, whichever sample came last. -1e300 when no line has the row.
 */
static inline double
itest_max_row(const char *text, const char *needle, const char *label)
{
    char pat[128];
    double best = -1e300;
    const char *p = text;

    snprintf(pat, sizeof(pat), "\"label\":\"%s\"", label);
    while ((p = strstr(p, needle)) != NULL) {
        const char *end = strchr(p, '\n'), *row = strstr(p, pat);
        if (row != NULL && (end == NULL || row < end)) {
            double v = itest_num(row, "num");
            best = v > best ? v : best;
        }
        p = end ? end : p + strlen(p);
    }
    return best;
}

static inline int
itest_count_lines(const char *text, const char *needle)
{
    int n = 0;
    const char *p = text;

    while ((p = strstr(p, needle)) != NULL) {
        n++;
        p++;
    }
    return n;
}

static inline int
itest_lines(const char *text)
{
    int n = 0;

    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/*
 * raw parsed once, as the command line's target is (target_parse), for a
 * collector's open: it lives as long as the test (a collector keeps it).
 * NULL and the driver's line in err (BT_ERRLEN) when it is refused.
 */
static inline const struct target *
itest_parsed_err(const char *raw, char *err)
{
    struct target *t = calloc(1, sizeof *t);

    if (target_parse(t, raw, err) == 0)
        return t;
    if (err[0] == '\0')
        snprintf(err, BT_ERRLEN, "no driver knows the target");
    target_free(t);
    free(t);
    return NULL;
}

/* itest_parsed_err for a target the test knows is well formed: else the test fails. */
static inline const struct target *
itest_parsed(const char *raw)
{
    char err[BT_ERRLEN];
    const struct target *t = itest_parsed_err(raw, err);

    if (t == NULL)
        fail_msg("target_parse: %s", err);
    return t;
}

/* A connection to the test server (the target with its database replaced). */
static inline PGconn *
itest_pg(const char *dbname)
{
    const char *keys[] = {"dbname", "dbname", NULL};
    const char *vals[] = {itest_env("BENCHTOP_PG_TARGET"), dbname, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);

    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "cannot connect to the test server: %s", PQerrorMessage(c));
        exit(1);
    }
    return c;
}

static inline void
itest_exec(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);

    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
        fprintf(stderr, "%s: %s", sql, PQresultErrorMessage(r));
        exit(1);
    }
    PQclear(r);
}

static inline long long
itest_scalar(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    long long v = -1;

    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0)
        v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    else
        fprintf(stderr, "%s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
    return v;
}

/* A target URI for another database of the test server. */
static inline char *
itest_target(const char *dbname)
{
    static char buf[4][512];
    static int k;
    const char *t = itest_env("BENCHTOP_PG_TARGET");
    const char *slash = strrchr(t, '/');
    char *out = buf[k++ % 4];

    snprintf(out, 512, "%.*s/%s", (int)(slash - t), t, dbname);
    return out;
}

/* Runs `benchtop init ...`: 0, or -1 with its stderr shown. */
static inline int
itest_init(char *const args[])
{
    struct run r = itest_runv(args);
    int ok = r.status == 0;

    if (!ok)
        fprintf(stderr, "init failed: %s", r.err);
    itest_free(&r);
    return ok ? 0 : -1;
}

/* Drops and creates dbname, then fills it with benchtop init --scale scale. 0 or -1. */
static inline int
itest_pg_fresh_db(const char *dbname, const char *scale)
{
    PGconn *c = itest_pg("postgres");
    char *args[] = {"init", itest_target(dbname), "--scale", (char *)scale, "-q", NULL};
    char sql[128];

    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", dbname);
    itest_exec(c, sql);
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", dbname);
    itest_exec(c, sql);
    PQfinish(c);
    return itest_init(args);
}

/*
 * What `ps` shows of pid once benchtop has masked its arguments (mark,
 * "***", appears), waiting up to 10 s: on a loaded host the exec and the
 * libraries' loading alone can take longer than a fixed sleep.
 */
static inline void
itest_cmdline_masked(pid_t pid, const char *mark, char *buf, size_t len)
{
    for (int i = 0; i < 200; i++) {
        itest_cmdline(pid, buf, len);
        if (strstr(buf, mark) != NULL)
            return;
        itest_sleep_ms(50);
    }
}

/*
 * xact_commit of database db, read on stats (a connection to another
 * database, so the reading itself commits nothing in db), once the finished
 * backends' statistics have landed: PostgreSQL 15 backends flush them as
 * they exit, so wait for every session of db but keep_pid's to be gone,
 * then for the counter to stand still.
 */
static inline long long
itest_pg_commits(PGconn *stats, const char *db, int keep_pid)
{
    char sql[256];
    long long prev = -1, v = -1;
    int i;

    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM pg_stat_activity WHERE datname = '%s' AND pid <> %d", db,
             keep_pid);
    for (i = 0; i < 100; i++) {
        itest_exec(stats, "SELECT pg_stat_clear_snapshot()");
        if (itest_scalar(stats, sql) == 0)
            break;
        itest_sleep_ms(100);
    }
    snprintf(sql, sizeof(sql), "SELECT xact_commit FROM pg_stat_database WHERE datname = '%s'", db);
    for (i = 0; i < 50; i++) {
        itest_exec(stats, "SELECT pg_stat_clear_snapshot()");
        v = itest_scalar(stats, sql);
        if (v == prev)
            break;
        prev = v;
        itest_sleep_ms(300);
    }
    return v;
}

/* Reads serve's answer to a restart of the test server BENCHTOP_<prefix>; fails unless it worked.
 */
static inline void
itest_read_restarted(const char *prefix)
{
    char name[64], line[256] = "", c;
    size_t n = 0;
    int fd;

    snprintf(name, sizeof(name), "BENCHTOP_%s_SERVE_FD", prefix);
    fd = atoi(itest_env(name));
    while (n + 1 < sizeof(line) && read(fd, &c, 1) == 1 && c != '\n')
        line[n++] = c;
    line[n] = '\0';
    assert_string_equal(line, "restarted");
}

/* Restarts the test server BENCHTOP_<prefix> (kill -USR1 its serve) and waits until it is back. */
static inline void
itest_restart_server(const char *prefix)
{
    char name[64];

    snprintf(name, sizeof(name), "BENCHTOP_%s_SERVE_PID", prefix);
    assert_int_equal(kill((pid_t)atoi(itest_env(name)), SIGUSR1), 0);
    itest_read_restarted(prefix);
}

/*
 * A self-signed certificate for localhost and 127.0.0.1, made by openssl
 * req: DIR/NAME.crt and DIR/NAME.key (0600), both owned by the owner of
 * owner_of (the server's folder: a server reads its key as its own user).
 * It is its own CA, so a client's sslrootcert= / ssl-ca= names the .crt.
 */
static inline void
itest_make_cert(const char *dir, const char *name, const char *owner_of)
{
    char crt[512], key[512];
    char *argv[] = {"openssl",
                    "req",
                    "-x509",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:prime256v1",
                    "-nodes",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=localhost",
                    "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout",
                    key,
                    "-out",
                    crt,
                    NULL};
    struct stat st;
    int status;
    pid_t pid;

    snprintf(crt, sizeof crt, "%s/%s.crt", dir, name);
    snprintf(key, sizeof key, "%s/%s.key", dir, name);
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    assert_true(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("openssl req could not make %s (is openssl installed?)", crt);
    assert_int_equal(stat(owner_of, &st), 0);
    assert_int_equal(chmod(key, 0600), 0);
    assert_int_equal(chown(key, st.st_uid, st.st_gid), 0);
    assert_int_equal(chown(crt, st.st_uid, st.st_gid), 0);
}

/*
 * The tests' certificate folder: dir (a mkdtemp template) made 0755, since a
 * server's user reads its key there, with DIR/other.crt, a CA that signed
 * none of the servers' certificates; ca and other get the paths of
 * DIR/server.crt (made by the test with itest_make_cert) and DIR/other.crt.
 */
static inline void
itest_certdir_make(char *dir, char *ca, size_t ca_len, char *other, size_t other_len)
{
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chmod(dir, 0755), 0);
    itest_make_cert(dir, "other", dir);
    snprintf(ca, ca_len, "%s/server.crt", dir);
    snprintf(other, other_len, "%s/other.crt", dir);
}

static inline void
itest_certdir_remove(const char *dir)
{
    const char *names[] = {"server.crt", "server.key", "other.crt", "other.key"};
    char path[700];

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A 1 s run on target; fails unless it exits 2 with one stderr line holding every want. */
static inline void
itest_expect_run_error(char *target, const char *const *want)
{
    char *args[] = {"run", target, "--headless", "-T", "1", NULL};
    struct run r = itest_runv(args);

    fprintf(stderr, "  %s", r.err);
    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    for (int i = 0; want[i] != NULL; i++)
        if (strstr(r.err, want[i]) == NULL)
            fail_msg("'%s' not in: %s", want[i], r.err);
    itest_free(&r);
}

/* The record's json_line says TLS 1.x with a cipher, and so does the human summary. */
static inline void
itest_assert_tls_used(const struct run *r, const char *json_line)
{
    const char *tls = strstr(json_line, "\"tls\":{\"used\":true,\"protocol\":\"TLSv1.");

    if (tls == NULL)
        fail_msg("no TLS in: %s", json_line);
    assert_non_null(strstr(tls, "\"cipher\":\""));
    assert_non_null(strstr(r->err, "\ntls: TLSv1."));
}

/*
 * What every server-restart test does: runs benchtop with args, restarts
 * the test server (kill -USR1 BENCHTOP_<prefix>_SERVE_PID) after ms, and,
 * when read_answer, reads serve's "restarted" from BENCHTOP_<prefix>_SERVE_FD
 * so no later test mistakes it for its own. Checks exit 2 (failures), a summary, at
 * least `clients` reconnects and a connection error; *sum is the summary.
 */
static inline struct run
itest_run_through_restart(char *const args[], const char *prefix, int ms, int clients,
                          int read_answer, const char **sum)
{
    char name[64];
    int o, e;
    pid_t pid = itest_spawn(args, &o, &e), serve;
    struct run r;

    snprintf(name, sizeof(name), "BENCHTOP_%s_SERVE_PID", prefix);
    serve = (pid_t)atoi(itest_env(name));
    itest_sleep_ms(ms);
    assert_int_equal(kill(serve, SIGUSR1), 0);
    if (read_answer)
        itest_read_restarted(prefix);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    *sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(*sum);
    assert_int_equal(r.status, itest_status_for(*sum)); /* the restart failed some: 2 */
    assert_true(itest_num(*sum, "reconnects") >= clients);
    assert_true(itest_num(*sum, "connection") >= 1);
    return r;
}

/*
 * The slow-fsync shim where the server's own user can read it: the build
 * tree may be in a folder only its owner enters (/root/benchtop in a fresh
 * root, mode 700), and the dynamic loader then ignores LD_PRELOAD without
 * a word (check-fresh: 1,355 tps at -c 1 with every fsync "20 ms
 * slower"). A copy in a 0755 folder under /tmp, made once per program
 * and removed at its exit.
 */
static char itest_shim_path[600];

static inline void
itest_shim_remove(void)
{
    char *slash = strrchr(itest_shim_path, '/');

    unlink(itest_shim_path);
    if (slash != NULL) {
        *slash = '\0';
        rmdir(itest_shim_path);
    }
}

static inline const char *
itest_shim(void)
{
    char *path = itest_shim_path;
    char from[600], dir[] = "/tmp/itest-shim-XXXXXX";
    FILE *in, *out;
    char buf[65536];
    size_t n;

    if (path[0])
        return path;
    itest_tool("slow-fsync.so", from, sizeof(from));
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chmod(dir, 0755), 0);
    snprintf(path, sizeof(itest_shim_path), "%s/slow-fsync.so", dir);
    atexit(itest_shim_remove);
    in = fopen(from, "rb");
    out = fopen(path, "wb");
    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
    assert_int_equal(chmod(path, 0755), 0);
    return path;
}

/*
 * Starts `benchtop serve CLS` with the slow-fsync shim
 * (build/tools/slow-fsync.so) delaying every fsync by ms; returns its pid,
 * the target in target, and in *keep the pipe that holds its stdin open
 * (closing it stops the server and removes its folder).
 */
static inline pid_t
itest_slow_server(const char *cls, char *target, size_t len, int ms, int *keep)
{
    int in[2], out[2];
    const char *shim = itest_shim();
    char line[600], delay[16];
    pid_t pid;
    FILE *f;

    snprintf(delay, sizeof(delay), "%d", ms);
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        setenv("LD_PRELOAD", shim, 1);
        setenv("SLOW_FSYNC_MS", delay, 1);
        execl(itest_env("BENCHTOP_BIN"), "benchtop", "serve", cls, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    *keep = in[1];
    f = fdopen(out[0], "r");
    target[0] = '\0';
    while (fgets(line, sizeof(line), f) != NULL && strncmp(line, "ready", 5) != 0)
        if (strncmp(line, "target=", 7) == 0)
            snprintf(target, len, "%.*s", (int)strcspn(line + 7, "\n"), line + 7);
    fclose(f);
    return pid;
}

/* A throwaway PostgreSQL whose every fsync takes ms longer (itest_slow_server). */
static inline pid_t
itest_slow_pg(char *target, size_t len, int ms, int *keep)
{
    return itest_slow_server("postgres", target, len, ms, keep);
}

#endif
