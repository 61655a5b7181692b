/*
 * Servers and targets as hostile input (issue 31): a PostgreSQL that takes
 * the login and never answers, or streams rows forever; a real lock held by
 * another session; passwords in mistyped targets. Each test checks a value
 * that was wrong before. The fake servers are threads of this test on
 * loopback ports; benchtop's memory is read from /proc (VmHWM) while it runs.
 */
#include "config.h"

#include "itest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

/* ---- fake servers: a thread accepting, a thread per connection ---- */

struct fake {
    void (*serve)(int fd); /* one connection; the fd is closed after */
    int lfd, port;
    pthread_t thread;
};

static int
read_full(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = recv(fd, p, len, 0);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int
send_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

struct conn_arg {
    struct fake *f;
    int fd;
};

static void *
conn_main(void *arg)
{
    struct conn_arg a = *(struct conn_arg *)arg;

    free(arg);
    a.f->serve(a.fd);
    close(a.fd);
    return NULL;
}

static void *
fake_main(void *arg)
{
    struct fake *f = arg;
    pthread_t t;
    int fd;

    while ((fd = accept(f->lfd, NULL, NULL)) >= 0) {
        struct conn_arg *a = malloc(sizeof *a);
        a->f = f;
        a->fd = fd;
        pthread_create(&t, NULL, conn_main, a);
        pthread_detach(t);
    }
    return NULL;
}

static void
fake_start(struct fake *f, void (*serve)(int fd))
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof(a);

    f->serve = serve;
    f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(f->lfd >= 0);
    assert_int_equal(bind(f->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(f->lfd, 128), 0);
    getsockname(f->lfd, (struct sockaddr *)&a, &alen);
    f->port = ntohs(a.sin_port);
    pthread_create(&f->thread, NULL, fake_main, f);
    pthread_detach(f->thread);
}

/* ---- a fake PostgreSQL: any login is accepted ---- */

static void
be32(char *p, uint32_t v)
{
    p[0] = (char)(v >> 24);
    p[1] = (char)(v >> 16);
    p[2] = (char)(v >> 8);
    p[3] = (char)v;
}

/* One backend message: type, length, body. */
static int
pg_send(int fd, char type, const void *body, size_t len)
{
    char head[5];

    head[0] = type;
    be32(head + 1, (uint32_t)(len + 4));
    return send_full(fd, head, 5) < 0 || send_full(fd, body, len) < 0 ? -1 : 0;
}

static int
pg_param(int fd, const char *name, const char *value)
{
    char body[128];
    size_t n = strlen(name) + 1, m = strlen(value) + 1;

    memcpy(body, name, n);
    memcpy(body + n, value, m);
    return pg_send(fd, 'S', body, n + m);
}

/* The startup packet (after refusing SSL and GSS), then AuthenticationOk ... ReadyForQuery. */
static int
pg_login(int fd)
{
    static const char zero4[4] = {0}, key[8] = {0, 0, 0x10, 0x92, 1, 2, 3, 4};
    unsigned char head[8];
    char rest[4096];

    for (;;) {
        uint32_t len, code;
        if (read_full(fd, head, 8) < 0)
            return -1;
        len = (uint32_t)head[0] << 24 | head[1] << 16 | head[2] << 8 | head[3];
        code = (uint32_t)head[4] << 24 | head[5] << 16 | head[6] << 8 | head[7];
        if (len < 8 || len - 8 > sizeof rest || read_full(fd, rest, len - 8) < 0)
            return -1;
        if (code != 80877103 && code != 80877104)
            break;
        if (send_full(fd, "N", 1) < 0)
            return -1;
    }
    return pg_send(fd, 'R', zero4, 4) < 0 || pg_param(fd, "server_version", "16.0") < 0 ||
                   pg_param(fd, "client_encoding", "UTF8") < 0 ||
                   pg_param(fd, "standard_conforming_strings", "on") < 0 ||
                   pg_param(fd, "integer_datetimes", "on") < 0 || pg_send(fd, 'K', key, 8) < 0 ||
                   pg_send(fd, 'Z', "I", 1) < 0
               ? -1
               : 0;
}

/* Logs in, then reads and never answers. */
static void
pg_silent(int fd)
{
    char buf[4096];

    if (pg_login(fd) == 0)
        while (recv(fd, buf, sizeof buf, 0) > 0)
            ;
}

/* Logs in; to the first statement, a one-column RowDescription and DataRows until it hangs up. */
static void
pg_flood(int fd)
{
    static const char desc[] = {0,          1,          'x',        0,          0, 0,  0, 0,
                                0,          0,          0,          0,          0, 23, 0, 4,
                                (char)0xff, (char)0xff, (char)0xff, (char)0xff, 0, 0};
    static char row[2 + 4 + 8192];
    char buf[4096];

    row[1] = 1;
    be32(row + 2, 8192);
    memset(row + 6, '7', 8192);
    if (pg_login(fd) < 0 || recv(fd, buf, sizeof buf, 0) <= 0 ||
        pg_send(fd, 'T', desc, sizeof desc) < 0)
        return;
    while (pg_send(fd, 'D', row, sizeof row) == 0)
        ;
}

static struct fake pg_quiet, pg_rows;

/* ---- running benchtop, bounded, its peak memory read as it runs ---- */

/* VmHWM of pid in kB, or -1 once it is gone. */
static long
peak_kb(pid_t pid)
{
    char path[64], line[256];
    long kb = -1;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

/*
 * Runs benchtop for at most secs (a hang fails the test) and records its
 * peak resident memory (VmHWM, kB) read every 100 ms before it exits.
 */
static struct run
run_bounded(char *const args[], int secs, long *peak)
{
    int o, e, waited;
    pid_t pid = itest_spawn(args, &o, &e);
    siginfo_t si;
    long kb;

    *peak = 0;
    for (waited = 0; waited < secs * 10; waited++) {
        if ((kb = peak_kb(pid)) > *peak)
            *peak = kb;
        si.si_pid = 0;
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            return itest_finish(pid, o, e);
        itest_sleep_ms(100);
    }
    kill(pid, SIGKILL);
    itest_finish(pid, o, e);
    fail_msg("benchtop still running after %d s", secs);
    return (struct run){0};
}

/* ---- the tests ---- */

/*
 * Item 7: a PostgreSQL that takes the login and never answers. run and init
 * waited forever with no word; now each says what it waits for after a
 * second, and gives up.
 */
static void
test_pg_never_answers(void **state)
{
    char target[96];
    char *run[] = {"run", target, "-T", "2", "--headless", "--no-collect", NULL};
    char *init[] = {"init", target, "-q", NULL};
    long peak;
    struct run r;

    (void)state;
    snprintf(target, sizeof target, "postgres://bench@127.0.0.1:%d/bench", pg_quiet.port);
    r = run_bounded(run, 40, &peak);
    fprintf(stderr, "%s", r.err);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "waiting for the server's answer"));
    assert_non_null(strstr(r.err, "gave up after 15 s"));
    itest_free(&r);
    r = run_bounded(init, 40, &peak);
    fprintf(stderr, "%s", r.err);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "gave up after 15 s"));
    itest_free(&r);
}

/*
 * Item 7: a real LOCK TABLE held by another session, idle in transaction:
 * the run says whose lock it waits for, and goes on once it is released.
 */
static void
test_pg_lock_is_named(void **state)
{
    char *target = itest_target("bt_hostile_lock");
    char *args[] = {"run", target, "-T", "1", "-c", "1", "--headless", "--no-collect", NULL};
    char want[128];
    PGconn *holder;
    int o, e, waited;
    pid_t pid;
    struct run r;

    (void)state;
    assert_int_equal(itest_pg_fresh_db("bt_hostile_lock", "1"), 0);
    holder = itest_pg("bt_hostile_lock");
    itest_exec(holder, "BEGIN");
    itest_exec(holder, "LOCK TABLE pgbench_branches IN ACCESS EXCLUSIVE MODE");
    pid = itest_spawn(args, &o, &e);
    snprintf(want, sizeof want,
             "waiting for a lock on pgbench_branches held by pid %d, idle in transaction",
             PQbackendPID(holder));
    /* until benchtop says so (it must, within its 15 s), then the lock goes */
    for (waited = 0; waited < 150; waited++) {
        char *text;
        lseek(e, 0, SEEK_SET);
        text = itest_slurp(e);
        int said = strstr(text, want) != NULL;
        free(text);
        if (said)
            break;
        itest_sleep_ms(100);
    }
    itest_exec(holder, "COMMIT");
    PQfinish(holder);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(r.status, 0);
    itest_free(&r);
}

/*
 * Item 8: a PostgreSQL that answers benchtop's first statement with rows
 * forever. libpq kept them all (3.9 GB after 19 s); now rows are read one at
 * a time and a few thousand end it: benchtop stays small.
 */
static void
test_pg_rows_forever(void **state)
{
    char target[96];
    char *run[] = {"run", target, "-T", "2", "--headless", "--no-collect", NULL};
    long peak;
    struct run r;

    (void)state;
    snprintf(target, sizeof target, "postgres://bench@127.0.0.1:%d/bench", pg_rows.port);
    r = run_bounded(run, 40, &peak);
    fprintf(stderr, "%s(peak %ld kB)\n", r.err, peak);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "more than 10000 rows"));
    assert_true(peak < 200 * 1024);
    itest_free(&r);
}

/*
 * Item 16: a scheme typo printed the whole target with its password, as did
 * --pooler and --server; an '@' in a PostgreSQL password handed libpq a
 * fragment of it as the host name, which its error quoted.
 */
static void
test_typos_keep_secrets(void **state)
{
    char *rd = itest_env("BENCHTOP_RD_TARGET");
    char *typo[] = {"run", "redi://:p%40ss@127.0.0.1:1", "-T", "1", NULL};
    char *pooler[] = {"run", rd, "-T", "1", "--pooler", "redi://u:s3cret@h", NULL};
    char *server[] = {"run", rd, "-T", "1", "--server", "pg://u:s3cret@x@h", NULL};
    char *at[] = {"run", "postgres://u:s3cr@et@127.0.0.1:1/db", "-T", "1", NULL};
    char *const *cases[] = {typo, pooler, server, at};
    struct run r;

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        r = itest_runv(cases[i]);
        fprintf(stderr, "%s", r.err);
        assert_int_equal(r.status, 2);
        assert_null(strstr(r.err, "p%40ss"));
        assert_null(strstr(r.err, "s3cr"));
        assert_null(strstr(r.err, "et@"));
        assert_non_null(strstr(r.err, "***@"));
        itest_free(&r);
    }
}

static int
setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    fake_start(&pg_quiet, pg_silent);
    fake_start(&pg_rows, pg_flood);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pg_never_answers),
        cmocka_unit_test(test_pg_lock_is_named),
        cmocka_unit_test(test_pg_rows_forever),
        cmocka_unit_test(test_typos_keep_secrets),
    };
    if (getenv("ITEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests_name("hostile servers", tests, setup, NULL);
}
