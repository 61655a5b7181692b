/*
 * throwaway: the database-independent half of the throwaway servers (see
 * base/throwaway.h): folder, port, user, running programs, waiting, cleaning up.
 */

/* nftw() needs X/Open; the Makefile defines both, this keeps a direct gcc build working. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif

#include "throwaway.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <glob.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The only folders server_destroy will ever remove start with dir_prefix. */
static const char dir_template[] = "/tmp/benchtop-XXXXXX";
static const char dir_prefix[] = "/tmp/benchtop-";

/* Upper-case severities; from one of them on, a line needs no timestamp or pid in front. */
static const char *const severities[] = {"FATAL", "PANIC", "ERROR", NULL};

/* How long a server has to go after SIGKILL. */
enum { KILL_WAIT_MS = 10000 };

/* What a child failed at before exec, sent to the parent over a close-on-exec pipe. */
enum child_step { STEP_REDIRECT, STEP_USER, STEP_CHDIR, STEP_EXEC };

static const char *const child_step_names[] = {
    [STEP_REDIRECT] = "redirecting its output",
    [STEP_USER] = "switching user",
    [STEP_CHDIR] = "entering the folder",
    [STEP_EXEC] = "exec",
};

struct child_failure {
    int step;
    int err;
};

static int
pick_user(struct server *s, char *err)
{
    const struct passwd *pw;

    if (geteuid() != 0) {
        s->user[0] = '\0';
        s->uid = getuid();
        s->gid = getgid();
        return 0;
    }
    /* the class's own user first (a server that refuses to run as root), then nobody */
    const char *users[] = {s->cls->run_as ? s->cls->run_as : "nobody", "nobody"};

    for (int i = 0; i < 2; i++) {
        pw = getpwnam(users[i]);
        if (pw != NULL) {
            snprintf(s->user, sizeof s->user, "%s", users[i]);
            s->uid = pw->pw_uid;
            s->gid = pw->pw_gid;
            return 0;
        }
    }
    return seterr(err,
                  "running as root and neither user %s nor nobody exists: run benchtop as an "
                  "ordinary user",
                  users[0]);
}

static int
make_dir(struct server *s, char *err)
{
    memcpy(s->dir, dir_template, sizeof dir_template);
    if (mkdtemp(s->dir) == NULL) {
        s->dir[0] = '\0';
        return seterr(err, "cannot create a folder in /tmp: %s", strerror(errno));
    }
    /* mkdtemp made it 0700; the server's user must own it to write its data there. */
    if (s->user[0] != '\0' && chown(s->dir, s->uid, s->gid) < 0) {
        seterr(err, "cannot give %s to user %s: %s", s->dir, s->user, strerror(errno));
        rmdir(s->dir);
        s->dir[0] = '\0';
        return -1;
    }
    return 0;
}

/* A port the kernel just considered free; another program could take it before the server does. */
int
server_pick_port(char *err)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int ok;

    if (fd < 0)
        return seterr(err, "cannot create a socket: %s", strerror(errno));
    ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
         getsockname(fd, (struct sockaddr *)&a, &len) == 0;
    if (!ok)
        seterr(err, "cannot find a free port on 127.0.0.1: %s", strerror(errno));
    close(fd);
    return ok ? ntohs(a.sin_port) : -1;
}

static int
remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    /* Keep going: removing as much as possible beats stopping at the first stubborn file. */
    remove(path);
    return 0;
}

static void
remove_dir(struct server *s)
{
    if (strncmp(s->dir, dir_prefix, sizeof dir_prefix - 1) == 0 && strstr(s->dir, "..") == NULL)
        nftw(s->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    s->dir[0] = '\0';
}

/* Moves the log out of the folder about to be removed, so that the error can point at it. */
static int
keep_log(const struct server *s, char *kept, size_t keptlen)
{
    if (s->log[0] == '\0' || access(s->log, F_OK) < 0)
        return -1;
    snprintf(kept, keptlen, "%s.log", s->dir);
    return rename(s->log, kept);
}

/* ---- one-process servers (struct single_server) ---- */

struct single_priv {
    char prog[PATH_MAX];
};

static int
single_spawn(struct server *s, char *err)
{
    const struct single_server *sp = s->cls->single;
    struct single_priv *p = s->priv;
    char *argv[SINGLE_SERVER_ARGS], buf[1024];

    sp->argv(s, p->prog, argv, buf, sizeof buf);
    return server_start(s, argv, sp->program, sp->start_ms, err);
}

static int
single_start(struct server *s, char *err)
{
    const struct single_server *sp = s->cls->single;
    struct single_priv *p = xcalloc(1, sizeof *p);

    s->priv = p;
    snprintf(s->log, sizeof s->log, "%s/%s", s->dir, sp->log_name);
    if (server_find_program(sp->program, sp->globs, p->prog, sizeof p->prog) < 0)
        return seterr(err, "%s not found: %s", sp->program, sp->missing_fix);
    if (single_spawn(s, err) < 0)
        return -1;
    snprintf(s->target, sizeof s->target, "%s://127.0.0.1:%d", sp->target_scheme, s->port);
    return 0;
}

static int
single_restart(struct server *s, char *err)
{
    server_stop_pid(s, s->cls->single->stop_ms);
    return single_spawn(s, err) == 0 ? 0 : server_explain(s, err);
}

/*
 * The line of a log that best explains a failure: the last one that looks
 * like an error (from its FATAL, PANIC or ERROR on, or a whole line with
 * "error"), else the last non-empty line. "" if the file cannot be read.
 */
static void server_log_tail(const char *logpath, char *out, size_t outlen);

static void
class_stop(struct server *s)
{
    if (s->cls->single == NULL)
        s->cls->stop(s);
    else
        server_stop_pid(s, s->cls->single->stop_ms);
    free(s->priv); /* one block, whatever the class: freed here rather than by each stop */
    s->priv = NULL;
}

static void
undo_failed_start(struct server *s, char *err)
{
    char why[BT_ERRLEN], tail[256] = "", kept[300] = "";

    snprintf(why, sizeof why, "%s", err);
    /* Read before stop, which appends its own lines. */
    if (s->log[0] != '\0')
        server_log_tail(s->log, tail, sizeof tail);
    class_stop(s);
    s->cls = NULL;
    if (keep_log(s, kept, sizeof kept) == 0)
        seterr(err, "%s%s%s (log: %s)", why, tail[0] ? ": " : "", tail, kept);
    else if (tail[0] != '\0')
        seterr(err, "%s: %s", why, tail);
    remove_dir(s);
}

static int
is_executable(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* strcmp, except that runs of digits compare as numbers: ".../9.6/..." < ".../15/...". */
static int
version_cmp(const char *a, const char *b)
{
    size_t na, nb;
    int c;

    while (*a != '\0' && *b != '\0') {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            na = strspn(a, "0123456789");
            nb = strspn(b, "0123456789");
            if (na != nb)
                return na < nb ? -1 : 1;
            c = strncmp(a, b, na);
            if (c != 0)
                return c;
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b)
            break;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int
path_cmp(const void *a, const void *b)
{
    return version_cmp(*(char *const *)a, *(char *const *)b);
}

static int
copy_path(char *out, size_t outlen, const char *path)
{
    int n = snprintf(out, outlen, "%s", path);

    return n >= 0 && (size_t)n < outlen ? 0 : -1;
}

static int
find_in_path(const char *name, char *out, size_t outlen)
{
    const char *p = getenv("PATH");
    size_t n;
    int len;

    while (p != NULL && *p != '\0') {
        n = strcspn(p, ":");
        /* An empty entry means the current folder: never trust it for a program we run as root. */
        if (n > 0) {
            len = snprintf(out, outlen, "%.*s/%s", (int)n, p, name);
            if (len > 0 && (size_t)len < outlen && is_executable(out))
                return 0;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return -1;
}

static int
find_in_glob(const char *pattern, char *out, size_t outlen)
{
    glob_t g;
    int found = -1;

    if (glob(pattern, 0, NULL, &g) != 0)
        return -1;
    qsort(g.gl_pathv, g.gl_pathc, sizeof g.gl_pathv[0], path_cmp);
    for (size_t i = g.gl_pathc; i > 0 && found < 0; i--)
        if (is_executable(g.gl_pathv[i - 1]))
            found = copy_path(out, outlen, g.gl_pathv[i - 1]);
    globfree(&g);
    return found;
}

static int
open_log(const struct server *s, const char *logpath, char *err)
{
    int fd = open(logpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

    if (fd < 0)
        return seterr(err, "cannot open %s: %s", logpath, strerror(errno));
    /* The server itself (pg_ctl -l) may append to the same file after dropping root. */
    if (s->user[0] != '\0' && fchown(fd, s->uid, s->gid) < 0) {
        seterr(err, "cannot give %s to user %s: %s", logpath, s->user, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* dup2 that also works when the descriptor is already in place (dup2 would keep close-on-exec). */
static int
move_fd(int from, int to)
{
    if (from == to)
        return fcntl(to, F_SETFD, 0);
    return dup2(from, to) < 0 ? -1 : 0;
}

static void
child_fail(int errfd, int step)
{
    struct child_failure f = {.step = step, .err = errno};
    ssize_t n = write(errfd, &f, sizeof f);

    (void)n; /* nobody left to tell if even this fails */
    _exit(127);
}

/* In the forked child: only async-signal-safe calls, since benchtop may have threads. */
static void
child_exec(const struct server *s, char *const argv[], int logfd, int errfd)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigset_t none;
    int nullfd;

    /* Own process group: a terminal's Ctrl-C goes to benchtop, which then stops things in order. */
    setpgid(0, 0);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    sigaction(SIGPIPE, &dfl, NULL);
    /*
     * Whatever our parent left open (a make jobserver, a test runner's pipe)
     * must not live on in a server that outlives the command that made it.
     * Best effort (Linux 5.11); errfd is close-on-exec already.
     */
    syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
    if (move_fd(logfd, STDOUT_FILENO) < 0 || move_fd(logfd, STDERR_FILENO) < 0)
        child_fail(errfd, STEP_REDIRECT);
    nullfd = open("/dev/null", O_RDONLY);
    if (nullfd < 0 || move_fd(nullfd, STDIN_FILENO) < 0)
        child_fail(errfd, STEP_REDIRECT);
    if (nullfd > STDERR_FILENO)
        close(nullfd);
    /* Group first: after setuid we could no longer change it. */
    if (s->user[0] != '\0' &&
        (setgroups(1, &s->gid) < 0 || setgid(s->gid) < 0 || setuid(s->uid) < 0))
        child_fail(errfd, STEP_USER);
    signal(SIGPIPE, SIG_DFL); /* benchtop ignores it; a server expects the default */
    /* Our own working folder may be unreadable for the server's user. */
    if (chdir(s->dir) < 0)
        child_fail(errfd, STEP_CHDIR);
    execv(argv[0], argv);
    child_fail(errfd, STEP_EXEC);
}

static const char *
base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

static int
wait_child(pid_t pid, int *status)
{
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* 0 if the child reached exec; otherwise reaps it and describes what went wrong. */
static int
check_exec(pid_t pid, int errfd, const char *prog, char *err)
{
    struct child_failure f;
    ssize_t n;
    int status;

    do
        n = read(errfd, &f, sizeof f);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof f)
        return 0;
    wait_child(pid, &status);
    if (f.step < STEP_REDIRECT || f.step > STEP_EXEC)
        f.step = STEP_EXEC;
    return seterr(err, "cannot run %s: %s failed: %s", prog, child_step_names[f.step],
                  strerror(f.err));
}

static int
ms_left(uint64_t deadline_us)
{
    uint64_t now = now_us();

    return now >= deadline_us ? 0 : (int)((deadline_us - now + 999) / 1000);
}

/* One connection attempt; 0 if 127.0.0.1:port accepted within timeout_ms. */
static int
try_connect(int port, int timeout_ms)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((unsigned short)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct pollfd p = {.events = POLLOUT};
    int soerr = -1;
    socklen_t len = sizeof soerr;
    int rc;

    p.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p.fd < 0)
        return -1;
    rc = connect(p.fd, (struct sockaddr *)&a, sizeof a);
    if (rc < 0 && errno == EINPROGRESS && poll(&p, 1, timeout_ms) == 1 &&
        getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0)
        rc = soerr == 0 ? 0 : -1;
    close(p.fd);
    return rc == 0 ? 0 : -1;
}

/* The last buflen - 1 bytes of a file, NUL-terminated: the end of a log explains a failure. */
static ssize_t
read_end(const char *path, char *buf, size_t buflen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    off_t size, from;
    ssize_t n = -1;

    if (fd < 0)
        return -1;
    size = lseek(fd, 0, SEEK_END);
    if (size >= 0) {
        from = size > (off_t)buflen - 1 ? size - ((off_t)buflen - 1) : 0;
        n = pread(fd, buf, buflen - 1, from);
    }
    close(fd);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

/* Where the error starts in line, or NULL if it does not look like an error. */
static const char *
error_start(const char *line)
{
    const char *p;

    for (const char *const *sev = severities; *sev != NULL; sev++) {
        p = strstr(line, *sev);
        if (p != NULL)
            return p;
    }
    return strstr(line, "error") || strstr(line, "Error") ? line : NULL;
}

int
server_create(struct server *s, const struct server_class *cls, char *err)
{
    memset(s, 0, sizeof *s);
    s->cls = cls;
    if (pick_user(s, err) < 0 || make_dir(s, err) < 0) {
        s->cls = NULL;
        return -1;
    }
    s->port = server_pick_port(err);
    if (s->port < 0) {
        s->cls = NULL;
        remove_dir(s);
        return -1;
    }
    if ((cls->single ? single_start(s, err) : cls->start(s, err)) == 0)
        return 0;
    undo_failed_start(s, err);
    return -1;
}

void
server_destroy(struct server *s)
{
    if (s->cls != NULL)
        class_stop(s);
    s->cls = NULL;
    remove_dir(s);
}

int
server_run(const struct server *s, char *const argv[], const char *logpath, char *err)
{
    const char *prog = base_name(argv[0]);
    pid_t pid = server_spawn(s, argv, logpath, err);
    int status;

    if (pid < 0)
        return -1;
    if (wait_child(pid, &status) < 0)
        return seterr(err, "cannot wait for %s: %s", prog, strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status))
        return seterr(err, "%s exited with status %d", prog, WEXITSTATUS(status));
    return seterr(err, "%s was killed by signal %d", prog, WTERMSIG(status));
}

pid_t
server_spawn(const struct server *s, char *const argv[], const char *logpath, char *err)
{
    int logfd = open_log(s, logpath, err);
    int pfd[2];
    pid_t pid;

    if (logfd < 0)
        return -1;
    if (pipe(pfd) < 0) {
        close(logfd);
        return seterr(err, "cannot create a pipe: %s", strerror(errno));
    }
    /* The write end closes on a successful exec: reading EOF means the program runs. */
    fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    pid = fork();
    if (pid == 0)
        child_exec(s, argv, logfd, pfd[1]);
    close(pfd[1]);
    close(logfd);
    if (pid < 0) {
        close(pfd[0]);
        return seterr(err, "cannot start %s: %s", base_name(argv[0]), strerror(errno));
    }
    if (check_exec(pid, pfd[0], base_name(argv[0]), err) < 0)
        pid = -1;
    close(pfd[0]);
    return pid;
}

int
server_wait_port(int port, int timeout_ms)
{
    uint64_t deadline = now_us() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000u;
    int backoff_ms = 5;
    int left;

    for (;;) {
        left = ms_left(deadline);
        if (try_connect(port, left > 1000 ? 1000 : left) == 0)
            return 0;
        left = ms_left(deadline);
        if (left <= 0)
            return -1;
        /* Start quick (a server is often nearly up) and back off to 200 ms. */
        poll(NULL, 0, backoff_ms < left ? backoff_ms : left);
        backoff_ms = backoff_ms >= 100 ? 200 : backoff_ms * 2;
    }
}

int
server_find_program(const char *name, const char *const *globs, char *out, size_t outlen)
{
    if (find_in_path(name, out, outlen) == 0)
        return 0;
    for (; globs != NULL && *globs != NULL; globs++)
        if (find_in_glob(*globs, out, outlen) == 0)
            return 0;
    if (outlen > 0)
        out[0] = '\0';
    return -1;
}

int
server_wait_exit(pid_t pid, int timeout_ms)
{
    uint64_t deadline = now_us() + (uint64_t)timeout_ms * 1000u;
    int status, fd = (int)syscall(SYS_pidfd_open, pid, 0);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    pid_t r;

    while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
        int left = ms_left(deadline);
        if (left == 0)
            break;
        /* A pidfd turns "exited yet?" into a poll with a timeout; without one (Linux < 5.3), ticks.
         */
        if (fd < 0 || poll(&p, 1, left) < 0)
            poll(NULL, 0, left < 20 ? left : 20);
    }
    if (fd >= 0)
        close(fd);
    return r == pid || (r < 0 && errno == ECHILD) ? 0 : -1;
}

void
server_stop_pid(struct server *s, int term_ms)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGTERM);
    if (server_wait_exit(s->pid, term_ms) < 0) {
        /* The folder is removed next: a server left running would hold the port and files. */
        kill(s->pid, SIGKILL);
        server_wait_exit(s->pid, KILL_WAIT_MS);
    }
    s->pid = 0;
}

int
server_wait_ready(struct server *s, const char *name, int timeout_ms, char *err)
{
    uint64_t deadline = now_us() + (uint64_t)timeout_ms * 1000u;
    int status;

    do {
        if (server_wait_port(s->port, 250) == 0)
            return 0;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            s->pid = 0;
            if (WIFEXITED(status))
                return seterr(err, "%s exited with status %d", name, WEXITSTATUS(status));
            return seterr(err, "%s was killed by signal %d", name, WTERMSIG(status));
        }
    } while (ms_left(deadline) > 0);
    return seterr(err, "%s is running but 127.0.0.1:%d does not accept connections after %d s",
                  name, s->port, timeout_ms / 1000);
}

int
server_start(struct server *s, char *const argv[], const char *name, int timeout_ms, char *err)
{
    s->pid = server_spawn(s, argv, s->log, err);
    if (s->pid < 0) {
        s->pid = 0;
        return -1;
    }
    return server_wait_ready(s, name, timeout_ms, err);
}

int
server_give(const struct server *s, const char *path, char *err)
{
    if (s->user[0] != '\0' && chown(path, s->uid, s->gid) != 0)
        return seterr(err, "cannot give %s to %s: %s", path, s->user, strerror(errno));
    return 0;
}

int
server_write_file(const struct server *s, const char *path, const char *text, char *err)
{
    FILE *f = fopen(path, "w");

    if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0)
        return seterr(err, "cannot write %s: %s", path, strerror(errno));
    return server_give(s, path, err);
}

int
server_explain(const struct server *s, char *err)
{
    char why[BT_ERRLEN], tail[256];

    snprintf(why, sizeof why, "%s", err);
    server_log_tail(s->log, tail, sizeof tail);
    return seterr(err, "%s%s%s (log: %s)", why, tail[0] ? ": " : "", tail, s->log);
}

static void
server_log_tail(const char *logpath, char *out, size_t outlen)
{
    char buf[8192];
    const char *last = "", *last_error = NULL, *start;
    char *line, *next;

    out[0] = '\0';
    if (read_end(logpath, buf, sizeof buf) <= 0)
        return;
    for (line = buf; line != NULL; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        if (line[strspn(line, " \t\r")] == '\0')
            continue;
        last = line;
        start = error_start(line);
        if (start != NULL)
            last_error = start;
    }
    first_line(out, outlen, last_error ? last_error : last);
}

int
server_restart(struct server *s, char *err)
{
    if (s->priv == NULL) /* checked here once, so no class's restart has to */
        return seterr(err, "the %s server was never started", s->cls->name);
    return s->cls->single ? single_restart(s, err) : s->cls->restart(s, err);
}
