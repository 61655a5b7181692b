/*
 * Servers and targets as hostile input (issue 31): a PostgreSQL that takes
 * the login and never answers, or streams rows forever (at prepare, to the
 * server pane, or a real query mid-run); a Redis whose reply never ends; a
 * real lock held by another session (PostgreSQL, MariaDB); passwords in
 * mistyped targets. Each test checks a value
 * that was wrong before. The fake servers are threads of this test on
 * loopback ports; benchtop's memory is read from /proc (VmHWM) while it runs.
 */
#include "config.h"

#include "itest.h"
#ifdef HAVE_MYSQL
#include "itest-mysql.h"
#endif

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/resource.h>
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
    f->serve = serve;
    f->lfd = itest_listen(&f->port);
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
        if (send_full(fd, "N", strlen("N")) < 0)
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

/* Logs in; to the first statement, one row of 12 text columns of 20 MB each (240 MB). */
static void
pg_wide(int fd)
{
    enum { COLS = 12, COL = 20 << 20, CHUNK = 1 << 20 };
    static char desc[2 + COLS * 20], chunk[CHUNK];
    char buf[4096], head[7 + 4];
    size_t n = 2;

    desc[1] = COLS;
    for (int i = 0; i < COLS; i++) { /* name "c", table 0, attnum 0, text (25), -1, -1, text */
        static const char col[] = {
            'c', 0,  0,          0,          0,          0,          0,          0,          0, 0,
            0,   25, (char)0xff, (char)0xff, (char)0xff, (char)0xff, (char)0xff, (char)0xff, 0, 0};
        memcpy(desc + n, col, sizeof col);
        n += sizeof col;
    }
    memset(chunk, 'w', sizeof chunk);
    head[0] = 'D';
    be32(head + 1, 4 + 2 + COLS * (4u + COL));
    head[5] = 0;
    head[6] = COLS;
    if (pg_login(fd) < 0 || recv(fd, buf, sizeof buf, 0) <= 0 || pg_send(fd, 'T', desc, n) < 0 ||
        send_full(fd, head, 7) < 0)
        return;
    for (int i = 0; i < COLS; i++) {
        be32(head + 7, COL);
        if (send_full(fd, head + 7, 4) < 0)
            return;
        for (int j = 0; j < COL / CHUNK; j++)
            if (send_full(fd, chunk, CHUNK) < 0)
                return;
    }
}

/* Logs in; to the first statement, bytes that are no protocol message. */
static void
pg_garbage(int fd)
{
    char buf[4096];

    if (pg_login(fd) == 0 && recv(fd, buf, sizeof buf, 0) > 0)
        send_full(fd, "xyzzy\x1b[2J garbage\r\n", 20);
    while (recv(fd, buf, sizeof buf, 0) > 0)
        ;
}

static struct fake pg_quiet, pg_rows, pg_junk, pg_wide_row;

/* ---- a fake MySQL: any login is accepted (mysql_native_password, never checked) ---- */

static int
my_packet(int fd, uint8_t seq, const void *body, size_t len)
{
    char head[4] = {(char)len, (char)(len >> 8), (char)(len >> 16), (char)seq};

    return send_full(fd, head, 4) < 0 || send_full(fd, body, len) < 0 ? -1 : 0;
}

/* Reads one client packet (up to 64 kB) into buf; its length, or -1. */
static long
my_read(int fd, char *buf, size_t size)
{
    unsigned char head[4];
    size_t len;

    if (read_full(fd, head, 4) < 0)
        return -1;
    len = (size_t)head[0] | (size_t)head[1] << 8 | (size_t)head[2] << 16;
    if (len > size || read_full(fd, buf, len) < 0)
        return -1;
    return (long)len;
}

static int
my_login(int fd)
{
    static const char greeting[] =
        "\x0a"
        "5.7.99-fake\0"
        "\x07\0\0\0"               /* thread id */
        "abcdefgh\0"               /* auth data, part 1, and a filler */
        "\x0f\xa2\x21\x02\0\x0b\0" /* capabilities low, charset, status, capabilities high */
        "\x15\0\0\0\0\0\0\0\0\0\0" /* auth data length, reserved */
        "ijklmnopqrst\0"           /* auth data, part 2 */
        "mysql_native_password";   /* and the NUL of the literal */
    static const char ok[] = {0, 0, 0, 2, 0, 0, 0};
    char buf[65536];

    return my_packet(fd, 0, greeting, sizeof greeting) < 0 || my_read(fd, buf, sizeof buf) < 0 ||
                   my_packet(fd, 2, ok, sizeof ok) < 0
               ? -1
               : 0;
}

static void
my_silent(int fd)
{
    char buf[4096];

    if (my_login(fd) == 0)
        while (recv(fd, buf, sizeof buf, 0) > 0)
            ;
}

/* To the first statement, a chain of 16 MB-1 packets, each saying another follows. */
static void
my_chain(int fd)
{
    enum { FULL = 0xffffff };
    char *body = calloc(1, FULL), buf[65536];
    uint8_t seq = 1;

    if (body != NULL && my_login(fd) == 0 && my_read(fd, buf, sizeof buf) >= 0)
        while (my_packet(fd, seq++, body, FULL) == 0)
            ;
    free(body);
}

static struct fake my_quiet, my_big;

/* ---- a fake memcached: a 1 MB item_size_max, and a get answered with a 1 GB value ---- */

static void
mc_huge(int fd)
{
    static char junk[65536];
    char line[4096];
    size_t len = 0;
    ssize_t n;

    memset(junk, 'x', sizeof junk);
    while ((n = recv(fd, line + len, sizeof line - len - 1, 0)) > 0) {
        char *nl;
        len += (size_t)n;
        line[len] = '\0';
        while ((nl = strstr(line, "\r\n")) != NULL) {
            *nl = '\0';
            if (strncmp(line, "get ", 4) == 0) {
                send_full(fd, "VALUE k 0 1000000000\r\n", strlen("VALUE k 0 1000000000\r\n"));
                while (send_full(fd, junk, sizeof junk) == 0)
                    ;
                return;
            }
            if (strcmp(line, "stats settings") == 0)
                send_full(fd, "STAT item_size_max 1048576\r\nEND\r\n",
                          strlen("STAT item_size_max 1048576\r\nEND\r\n"));
            else if (strncmp(line, "set ", 4) == 0)
                ; /* its data line follows */
            else if (strncmp(line, "stats", 5) == 0)
                send_full(fd, "END\r\n", strlen("END\r\n"));
            else if (strcmp(line, "version") == 0)
                send_full(fd, "VERSION 1.6.18\r\n", strlen("VERSION 1.6.18\r\n"));
            else
                send_full(fd, "STORED\r\n", strlen("STORED\r\n"));
            len -= (size_t)(nl + 2 - line);
            memmove(line, nl + 2, len + 1);
        }
        if (len >= sizeof line - 1)
            return;
    }
}

static struct fake mc_big;

/* ---- a fake Redis: PING answered; anything else with a reply that never ends ---- */

static char rd_elements[65536], rd_bytes[65536];

static void
rd_flood(int fd, const char *head, const char *junk)
{
    char buf[4096];
    ssize_t n;

    while ((n = recv(fd, buf, sizeof buf - 1, 0)) > 0) {
        buf[n] = '\0';
        if (strstr(buf, "PING") != NULL) {
            if (send_full(fd, "+PONG\r\n", strlen("+PONG\r\n")) < 0)
                return;
            continue;
        }
        if (send_full(fd, head, strlen(head)) < 0)
            return;
        while (send_full(fd, junk, sizeof rd_bytes) == 0)
            ;
        return;
    }
}

/* hiredis 0.14 callocs 2^31 element pointers (16 GB) on reading this header */
static void
rd_array(int fd)
{
    rd_flood(fd, "*2147483647\r\n", rd_elements);
}

/* ... and keeps a bulk string's bytes until the last of its 2 GB */
static void
rd_bulk(int fd)
{
    rd_flood(fd, "$2147483647\r\n", rd_bytes);
}

static struct fake rd_arr, rd_big;

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

/* `run` against a fake server (fmt holds %d for its port): it must fail, in bounded time. */
static struct run
run_fake(const char *fmt, int port, long *peak)
{
    char target[96];
    char *run[] = {"run", target, "-T", "2", "--headless", "--no-collect", NULL};
    struct run r;

    snprintf(target, sizeof target, fmt, port);
    r = run_bounded(run, 45, peak);
    fprintf(stderr, "%s(peak %ld kB)\n", r.err, *peak);
    assert_int_not_equal(r.status, 0);
    return r;
}

/* Waits up to tenths/10 s until benchtop's stderr (fd e) says want: 1 if it did. */
static int
wait_said(int e, const char *want, int tenths)
{
    for (int waited = 0; waited < tenths; waited++) {
        char *text;
        int said;
        lseek(e, 0, SEEK_SET);
        text = itest_slurp(e);
        said = strstr(text, want) != NULL;
        free(text);
        if (said)
            return 1;
        itest_sleep_ms(100);
    }
    return 0;
}

/*
 * A headless watch of target for secs: its server lines must say want
 * (what the server did) and benchtop must stay under 400 MB.
 */
static void
watch_says(const char *target, const char *secs, const char *want)
{
    char *watch[] = {"watch", (char *)target, "-T", (char *)secs, "--headless", NULL};
    long peak;
    struct run r = run_bounded(watch, 40, &peak);

    fprintf(stderr, "%s%s(peak %ld kB)\n", r.out, r.err, peak);
    assert_non_null(strstr(r.out, want));
    assert_null(strstr(r.err, "connecting"));
    assert_true(peak < 400 * 1024);
    itest_free(&r);
}

/*
 * `run` with 2 clients for 3 s (bounded at bound_s) against a server whose
 * replies are too large: reply_too_large counted, said, peak under max_kb.
 */
static void
run_too_large(const char *target, int bound_s, const char *said, long max_kb)
{
    char *run[] = {"run", (char *)target, "-T", "3", "-c", "2", "--headless", "--no-collect", NULL};
    const char *sum;
    long peak;
    struct run r = run_bounded(run, bound_s, &peak);

    fprintf(stderr, "%s(peak %ld kB)\n", r.err, peak);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    assert_true(itest_num(strstr(sum, "errors_by_kind"), "reply_too_large") >= 1);
    assert_non_null(strstr(r.err, said));
    assert_true(peak < max_kb);
    itest_free(&r);
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
    int o, e;
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
    wait_said(e, want, 150);
    itest_exec(holder, "COMMIT");
    PQfinish(holder);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(r.status, 0);
    itest_free(&r);
}

/*
 * Issue 46: a lock queue behind DDL. A session idle in its transaction holds
 * a share lock, an ALTER TABLE queues for it, benchtop queues behind the
 * ALTER: the wait names the holder at the chain's root, not the ALTER.
 */
static void
test_pg_lock_queue_root(void **state)
{
    char *target = itest_target("bt_hostile_queue");
    char *args[] = {"run", target, "-T", "1", "-c", "1", "--headless", "--no-collect", NULL};
    char want[160];
    PGconn *holder, *ddl;
    PGresult *res;
    int o, e;
    pid_t pid;
    struct run r;

    (void)state;
    assert_int_equal(itest_pg_fresh_db("bt_hostile_queue", "1"), 0);
    holder = itest_pg("bt_hostile_queue");
    ddl = itest_pg("bt_hostile_queue");
    itest_exec(holder, "BEGIN");
    itest_exec(holder, "SELECT count(*) FROM pgbench_branches");
    assert_int_equal(PQsendQuery(ddl, "ALTER TABLE pgbench_branches ADD COLUMN note int"), 1);
    pid = itest_spawn(args, &o, &e);
    snprintf(want, sizeof want,
             "waiting for a lock on pgbench_branches held by pid %d, idle in transaction (pid %d "
             "waits for it too",
             PQbackendPID(holder), PQbackendPID(ddl));
    wait_said(e, "waiting for", 150);
    itest_exec(holder, "COMMIT");
    PQfinish(holder);
    while ((res = PQgetResult(ddl)) != NULL)
        PQclear(res);
    PQfinish(ddl);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(r.status, 0);
    itest_free(&r);
}

/*
 * Item 8: a PostgreSQL that answers benchtop's first statement with rows
 * forever. libpq kept them all (3.9 GB after 19 s); now rows are read one at
 * a time and a thousand end it: benchtop stays small.
 */
static void
test_pg_rows_forever(void **state)
{
    long peak;
    struct run r;

    (void)state;
    r = run_fake("postgres://bench@127.0.0.1:%d/bench", pg_rows.port, &peak);
    assert_non_null(strstr(r.err, "more than 1000 rows"));
    assert_true(peak < 200 * 1024);
    itest_free(&r);
}

/*
 * Issue 46: one row of 12 columns of 20 MB to benchtop's first statement,
 * before the run and in init. libpq reads a row whole (747 MB, 32.6 s);
 * now the row's announced length is refused before libpq reads it.
 */
static void
test_pg_wide_row(void **state)
{
    char target[96];
    char *init[] = {"init", target, "--scale", "1", NULL};
    const char *said = "announced a message over 64 MiB for one of benchtop's own statements";
    long peak;
    struct run r;

    (void)state;
    r = run_fake("postgres://bench@127.0.0.1:%d/bench", pg_wide_row.port, &peak);
    assert_non_null(strstr(r.err, said));
    assert_true(peak < 100 * 1024);
    itest_free(&r);
    snprintf(target, sizeof target, "postgres://bench@127.0.0.1:%d/bench", pg_wide_row.port);
    r = run_bounded(init, 45, &peak);
    fprintf(stderr, "%s(peak %ld kB)\n", r.err, peak);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, said));
    assert_true(peak < 100 * 1024);
    itest_free(&r);
}

/*
 * Item 7: a MySQL that takes the login and never answers: prepare's
 * connection has a read deadline now, so the run ends by itself.
 */
static void
test_mysql_never_answers(void **state)
{
    long peak;
    struct run r;

    (void)state;
    r = run_fake("mysql://root@127.0.0.1:%d/bench", my_quiet.port, &peak);
    itest_free(&r);
}

/*
 * Item 7, init: the same silent MySQL held `init` for its 600 s statement
 * deadline (a CREATE INDEX may take that long), with SIGINT and SIGTERM
 * blocked for its clean-up and no word said. Its first statement now has
 * the 15 s a run's prepare has.
 */
static void
test_mysql_init_never_answers(void **state)
{
    char target[96];
    char *init[] = {"init", target, "-q", NULL};
    long peak;
    struct run r;

    (void)state;
    snprintf(target, sizeof target, "mysql://root@127.0.0.1:%d/bench", my_quiet.port);
    r = run_bounded(init, 45, &peak);
    fprintf(stderr, "%s", r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "could not read the current database"));
    itest_free(&r);
}

/*
 * Item 8: a MySQL that answers with 16 MB-1 packets chained without end:
 * Connector/C took up to its 1 GB max_allowed_packet per connection; now
 * 16 MB (MY_PACKET_MAX), and the run ends with the client's own message.
 * (Measured: VmHWM 28 MB.)
 */
static void
test_mysql_packet_chain(void **state)
{
    long peak;
    struct run r;

    (void)state;
    r = run_fake("mysql://root@127.0.0.1:%d/bench", my_big.port, &peak);
    /* Connector/C says the connection is lost, not that the packet was too large */
    assert_non_null(strstr(r.err, "Lost connection"));
    assert_true(peak < 200 * 1024);
    itest_free(&r);
}

/* Item 12: two inits on one database: the second is refused while the first holds the lock. */
static void
test_pg_init_once_at_a_time(void **state)
{
    char *args[] = {"init", itest_target("bt_hostile_init"), "--force", "-q", NULL};
    PGconn *holder;
    struct run r;

    (void)state;
    assert_int_equal(itest_pg_fresh_db("bt_hostile_init", "1"), 0);
    holder = itest_pg("bt_hostile_init");
    itest_exec(holder, "SELECT pg_advisory_lock(hashtext('benchtop init ' || current_database()))");
    r = itest_runv(args);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "another benchtop init is filling database bt_hostile_init"));
    itest_free(&r);
    PQfinish(holder);
    assert_int_equal(itest_init(args), 0);
}

#ifdef HAVE_MYSQL
static void
test_mysql_init_once_at_a_time(void **state)
{
    char *args[] = {"init", itest_my_target("bt_hostile_init"), "--force", "-q", NULL};
    MYSQL *holder;
    struct run r;

    (void)state;
    assert_int_equal(itest_my_fresh_db("bt_hostile_init", "1", "100"), 0);
    holder = itest_my("bt_hostile_init");
    assert_int_equal(
        itest_my_scalar(holder, "SELECT GET_LOCK(CONCAT('benchtop init ', DATABASE()), 0)"), 1);
    r = itest_runv(args);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "another benchtop init is filling database bt_hostile_init"));
    itest_free(&r);
    mysql_close(holder);
    assert_int_equal(itest_init(args), 0);
}

/* Spawns init and waits until it inserts rows (its progress says so). */
static pid_t
init_inserting(char *const args[], int *o, int *e)
{
    pid_t pid = itest_spawn(args, o, e);

    for (int waited = 0; waited < 300; waited++) {
        char *text;
        int inserting;
        lseek(*e, 0, SEEK_SET);
        text = itest_slurp(*e);
        inserting = strstr(text, "inserting rows") != NULL;
        free(text);
        if (inserting)
            break;
        itest_sleep_ms(100);
    }
    itest_sleep_ms(500);
    return pid;
}

/*
 * Item 11: SIGHUP during init left a half-filled table, and SIGKILL does
 * still; the next init kept it as complete. SIGHUP now cleans up as SIGINT
 * does (the tables it made are gone); a table cut off by SIGKILL is
 * refused, with the way out.
 */
static void
test_mysql_init_cut_off(void **state)
{
    char *target = itest_my_target("bt_hostile_cut");
    char *args[] = {"init", target, "--table-size", "2000000", NULL};
    char *again[] = {"init", target, "--table-size", "2000000", "-q", NULL};
    MYSQL *m = itest_my(NULL);
    int o, e;
    pid_t pid;
    struct run r;

    (void)state;
    itest_my_exec(m, "DROP DATABASE IF EXISTS bt_hostile_cut");
    itest_my_exec(m, "CREATE DATABASE bt_hostile_cut");
    pid = init_inserting(args, &o, &e);
    kill(pid, SIGHUP);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    /* cleaned up first, then the signal ends it as it would have */
    assert_int_equal(r.status, 128 + SIGHUP);
    itest_free(&r);
    assert_int_equal(itest_my_scalar(m, "SELECT COUNT(*) FROM information_schema.TABLES WHERE "
                                        "TABLE_SCHEMA = 'bt_hostile_cut'"),
                     0);
    pid = init_inserting(args, &o, &e);
    kill(pid, SIGKILL);
    r = itest_finish(pid, o, e);
    itest_free(&r);
    /* the server ends the killed session's statement, and so frees its init lock, in a while */
    for (int waited = 0; waited < 300; waited++) {
        if (itest_my_scalar(m, "SELECT IS_FREE_LOCK('benchtop init bt_hostile_cut')") == 1)
            break;
        itest_sleep_ms(100);
    }
    r = itest_runv(again);
    fprintf(stderr, "%s", r.err);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "sbtest1 is not complete"));
    assert_non_null(strstr(r.err, "--force"));
    itest_free(&r);
    mysql_close(m);
}

/*
 * Item 7: a table locked by another session (LOCK TABLES ... WRITE): the
 * run's prepare waited in silence for its 15 s and then said the
 * connection was lost; now after a second it says what it waits for, with
 * the other sessions (the holder among them), and goes on once the lock
 * goes.
 */
static void
test_mysql_lock_is_named(void **state)
{
    char *target = itest_my_target("bt_hostile_mylock");
    char *args[] = {"run", target, "-T", "1", "-c", "1", "--headless", "--no-collect", NULL};
    char want[128];
    MYSQL *holder;
    int o, e, said;
    pid_t pid;
    struct run r;

    (void)state;
    assert_int_equal(itest_my_fresh_db("bt_hostile_mylock", "1", "100"), 0);
    holder = itest_my("bt_hostile_mylock");
    itest_my_exec(holder, "LOCK TABLES sbtest1 WRITE");
    pid = itest_spawn(args, &o, &e);
    snprintf(want, sizeof want, "connection %lu (", mysql_thread_id(holder));
    said = wait_said(
        e, "benchtop: waiting for the server (its state: Waiting for table metadata lock", 120);
    itest_sleep_ms(300);
    itest_my_exec(holder, "UNLOCK TABLES");
    mysql_close(holder);
    r = itest_finish(pid, o, e);
    fprintf(stderr, "%s", r.err);
    assert_true(said);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(r.status, 0);
    itest_free(&r);
}
#endif

/*
 * Item 8: memcached's `VALUE k 0 1000000000` took 1.96 GB for 2 clients; a
 * value over the item_size_max read in prepare is now an error of its own
 * kind, and the connection goes.
 */
static void
test_memcached_huge_value(void **state)
{
    char target[96];

    (void)state;
    snprintf(target, sizeof target, "memcached://127.0.0.1:%d", mc_big.port);
    run_too_large(target, 30, "more than its item_size_max allows", 200 * 1024);
}

/*
 * Items 8 and 20, mid-run: a statement of the load whose rows never end
 * (here a real query of 2M rows of 500 bytes). libpq kept a reply whole
 * (6.5 GB for one client); now rows are read one at a time and past 64 MiB
 * the statement is the error kind reply_too_large, said, and the client
 * connects anew and goes on.
 */
static void
test_pg_rows_mid_run(void **state)
{
    char *target = itest_env("BENCHTOP_PG_TARGET"), script[] = "/tmp/itest-rows-XXXXXX";
    char *run[] = {"run", target, "-f",         script,         "-T", "10",
                   "-c",  "1",    "--headless", "--no-collect", NULL};
    const char *sum;
    long peak;
    int fd = mkstemp(script);
    struct run r;

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    itest_write_file(script, "SELECT repeat('x', 500) FROM generate_series(1, 2000000);\n");
    r = run_bounded(run, 60, &peak);
    unlink(script);
    fprintf(stderr, "%s(peak %ld kB)\n", r.err, peak);
    sum = itest_line(r.out, "\"type\":\"summary\"");
    assert_non_null(sum);
    /* one is enough (ASan on a loaded host reads 64 MiB of rows in seconds), and its reconnect */
    assert_true(itest_num(strstr(sum, "errors_by_kind"), "reply_too_large") >= 1);
    assert_non_null(strstr(r.err, "reconnects"));
    assert_non_null(strstr(r.err, "more than 64 MiB"));
    assert_true(peak < 400 * 1024);
    itest_free(&r);
}

/*
 * Item 20: a watch of a PostgreSQL that answers with rows without end said
 * "connecting", then "no answer within 3 s", while libpq filled memory; now
 * the server pane says what came, and the watch stays small. (A watch that
 * ends before any sample says "connected; no answer to the first sample
 * yet", no longer "connecting".)
 */
static void
test_pg_watch_flood(void **state)
{
    char target[96];

    (void)state;
    snprintf(target, sizeof target, "postgres://bench@127.0.0.1:%d/bench", pg_rows.port);
    /* the cap, or under ASan on a loaded host the deadline first: rows are said either way */
    watch_says(target, "5", "\"error\":\"the server sent ");
    watch_says(target, "5", " of rows for one of the server pane's statements");
}

/*
 * Item 8: hiredis 0.14 allocates an array's element pointers on reading
 * its header (16 GB for *2147483647): refused before, in one line, by
 * inspect and by the server pane.
 */
static void
test_redis_huge_array(void **state)
{
    char target[96];
    char *inspect[] = {"inspect", target, NULL};
    long peak;
    struct run r;

    (void)state;
    snprintf(target, sizeof target, "redis://127.0.0.1:%d", rd_arr.port);
    r = run_bounded(inspect, 30, &peak);
    fprintf(stderr, "%s(peak %ld kB)\n", r.err, peak);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "a reply of more than 1000000 elements"));
    assert_int_equal(itest_lines(r.err), 1);
    assert_true(peak < 400 * 1024);
    itest_free(&r);
    watch_says(target, "3", "a reply of more than 1000000 elements");
}

/*
 * Item 8: a bulk string of 2 GB was kept until its last byte, by the load's
 * reader as by the collector's: now 65 MiB not yet parsed end the reply,
 * counted as reply_too_large in a run, and 16 MiB in the server pane.
 */
static void
test_redis_huge_bulk(void **state)
{
    char target[96];

    (void)state;
    snprintf(target, sizeof target, "redis://127.0.0.1:%d", rd_big.port);
    run_too_large(target, 120, "a reply of more than 65 MiB", 600 * 1024);
    watch_says(target, "8", "a reply of more than 16 MiB");
}

/*
 * Item 20: garbage where the scale's count should be was reported as
 * "pgbench tables not found ... run init"; now what came back is said.
 */
static void
test_pg_garbage_is_named(void **state)
{
    long peak;
    struct run r;

    (void)state;
    r = run_fake("postgres://bench@127.0.0.1:%d/bench", pg_junk.port, &peak);
    assert_null(strstr(r.err, "not found"));
    assert_null(strstr(r.err, "\x1b"));
    assert_non_null(strstr(r.err, "could not count pgbench_branches"));
    assert_non_null(strstr(r.err, "lost synchronization with server"));
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

/*
 * Item 19: the target from --target-file or BENCHTOP_TARGET, never in argv
 * (the Kubernetes Job passed it in args); both at once is refused.
 */
static void
test_target_from_file_or_env(void **state)
{
    char *rd = itest_env("BENCHTOP_RD_TARGET"), file[] = "/tmp/itest-target-XXXXXX";
    char *by_file[] = {"run", "--target-file", file, "-T", "1", "--headless", NULL};
    char *by_env[] = {"run", "-T", "1", "--headless", NULL};
    char *both[] = {"run", rd, "--target-file", file, "-T", "1", NULL};
    char line[512];
    int fd = mkstemp(file);
    struct run r;

    (void)state;
    assert_true(fd >= 0);
    snprintf(line, sizeof line, "%s\n", rd);
    assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
    close(fd);
    snprintf(line, sizeof line, "\"target\":\"%s\"", rd);
    r = itest_runv(by_file);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, line));
    itest_free(&r);
    setenv("BENCHTOP_TARGET", rd, 1);
    r = itest_runv(by_env);
    unsetenv("BENCHTOP_TARGET");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, line));
    itest_free(&r);
    r = itest_runv(both);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "give the target once"));
    itest_free(&r);
    unlink(file);
}

/* Item 17: a -d body with a password was in `ps` and the record; now masked as -H values are. */
static void
test_body_secret_masked(void **state)
{
    char url[256], cmdline[4096];
    char *args[] = {"run",          url, "-d", "user=ann&password=hunter2", "-T", "2", "--headless",
                    "--no-collect", NULL};
    int o, e;
    pid_t pid;
    struct run r;

    (void)state;
    if (getenv("BENCHTOP_NG_TARGET") == NULL)
        test_skip("no nginx server in this run (benchtop built without libcurl)");
    snprintf(url, sizeof url, "%sstatic.html", itest_env("BENCHTOP_NG_TARGET"));
    pid = itest_spawn(args, &o, &e);
    /* not a fixed second: under ASan on a loaded host the start took longer (make check-asan) */
    itest_cmdline_masked(pid, "***", cmdline, sizeof cmdline);
    r = itest_finish(pid, o, e);
    assert_non_null(strstr(cmdline, "-d ***"));
    assert_null(strstr(cmdline, "hunter2"));
    assert_null(strstr(r.out, "hunter2"));
    assert_null(strstr(r.err, "hunter2"));
    assert_non_null(strstr(r.out, "\"data\":\"***\""));
    itest_free(&r);
}

/*
 * benchtop run target (a flag first when flag is not NULL) in dir, against
 * the silent PostgreSQL, aborted once it waits: 1 if it left a core file.
 */
static int
aborted_leaves_core(const char *dir, const char *flag, const char *target)
{
    char *args[] = {"run", NULL, NULL, "-T", "20", "--headless", "--no-collect", NULL, NULL};
    char core[300];
    int o, e, n = 1;
    pid_t pid;
    struct run r;

    if (flag != NULL)
        args[n++] = (char *)flag;
    args[n++] = (char *)target;
    memmove(args + n, args + 3, 5 * sizeof *args);
    snprintf(core, sizeof core, "%s/core", dir);
    unlink(core);
    pid = itest_spawn(args, &o, &e);
    assert_true(wait_said(e, "waiting for the server's answer", 300));
    kill(pid, SIGABRT);
    r = itest_finish(pid, o, e);
    assert_int_equal(r.status, 128 + SIGABRT);
    itest_free(&r);
    return access(core, F_OK) == 0;
}

/*
 * Item 17: benchtop's own out-of-memory abort() made a core file holding
 * the password. A core of a run without one is written here (else the
 * host makes none: skipped); with a password in argv or in --target-file,
 * none.
 */
static void
test_no_core_holds_the_password(void **state)
{
    char dir[] = "/tmp/itest-core-XXXXXX", old[4096], plain[128], secret[128], file[300];
    char pattern[64] = "";
    struct rlimit was, core = {RLIM_INFINITY, RLIM_INFINITY};
    FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");

    (void)state;
    if (f != NULL) {
        if (fgets(pattern, sizeof pattern, f) == NULL)
            pattern[0] = '\0';
        fclose(f);
    }
    if (strcmp(pattern, "core\n") != 0 || getcwd(old, sizeof old) == NULL || mkdtemp(dir) == NULL ||
        getrlimit(RLIMIT_CORE, &was) != 0 || setrlimit(RLIMIT_CORE, &core) != 0)
        test_skip("cores go elsewhere here (core_pattern '%.*s', not 'core') or cannot be had",
                  (int)strcspn(pattern, "\n"), pattern);
    snprintf(plain, sizeof plain, "postgres://bench@127.0.0.1:%d/bench", pg_quiet.port);
    snprintf(secret, sizeof secret, "postgres://bench:Sekr1t@127.0.0.1:%d/bench", pg_quiet.port);
    snprintf(file, sizeof file, "%s/target", dir);
    itest_write_file(file, secret);
    assert_int_equal(chdir(dir), 0);
    int without = aborted_leaves_core(dir, NULL, plain);
    int in_argv = aborted_leaves_core(dir, NULL, secret);
    int in_file = aborted_leaves_core(dir, "--target-file", file);
    setrlimit(RLIMIT_CORE, &was);
    assert_int_equal(chdir(old), 0);
    unlink(file);
    snprintf(file, sizeof file, "%s/core", dir);
    unlink(file);
    rmdir(dir);
    if (!without)
        test_skip("this host writes no core file even for an abort() with RLIMIT_CORE unlimited");
    assert_false(in_argv);
    assert_false(in_file);
}

static int
setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    fake_start(&pg_quiet, pg_silent);
    fake_start(&pg_rows, pg_flood);
    fake_start(&pg_junk, pg_garbage);
    fake_start(&pg_wide_row, pg_wide);
    fake_start(&my_quiet, my_silent);
    fake_start(&my_big, my_chain);
    fake_start(&mc_big, mc_huge);
    for (size_t i = 0; i < sizeof rd_elements; i += 4)
        memcpy(rd_elements + i, ":1\r\n", 4);
    memset(rd_bytes, 'x', sizeof rd_bytes);
    fake_start(&rd_arr, rd_array);
    fake_start(&rd_big, rd_bulk);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pg_never_answers),
        cmocka_unit_test(test_pg_lock_is_named),
        cmocka_unit_test(test_pg_lock_queue_root),
        cmocka_unit_test(test_pg_rows_forever),
        cmocka_unit_test(test_pg_wide_row),
        cmocka_unit_test(test_pg_rows_mid_run),
        cmocka_unit_test(test_pg_watch_flood),
        cmocka_unit_test(test_pg_garbage_is_named),
        cmocka_unit_test(test_mysql_never_answers),
        cmocka_unit_test(test_mysql_init_never_answers),
        cmocka_unit_test(test_mysql_packet_chain),
        cmocka_unit_test(test_memcached_huge_value),
        cmocka_unit_test(test_redis_huge_array),
        cmocka_unit_test(test_redis_huge_bulk),
        cmocka_unit_test(test_pg_init_once_at_a_time),
#ifdef HAVE_MYSQL
        cmocka_unit_test(test_mysql_init_once_at_a_time),
        cmocka_unit_test(test_mysql_init_cut_off),
        cmocka_unit_test(test_mysql_lock_is_named),
#endif
        cmocka_unit_test(test_typos_keep_secrets),
        cmocka_unit_test(test_target_from_file_or_env),
        cmocka_unit_test(test_body_secret_masked),
        cmocka_unit_test(test_no_core_holds_the_password),
    };
    if (getenv("ITEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("ITEST_FILTER"));
    return cmocka_run_group_tests_name("hostile servers", tests, setup, NULL);
}
