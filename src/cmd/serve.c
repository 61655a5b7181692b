/*
 * serve: `benchtop serve NAME` (for tests): keeps one throwaway server up
 * until stdin closes or a signal.
 *
 * Signals are blocked and read from a signalfd, polled together with
 * stdin: no handlers, no globals, and a signal that arrives while the
 * server is still starting simply waits its turn, so the server is always
 * stopped and its folder removed before serve_main returns.
 */
#include "cmd.h"
#include "run/options.h"
#include "base/throwaway.h"
#include "engine/registry.h"
#include "base/util.h"
#include "run/tryset.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

/* SIGUSR1 restarts; every other one stops. */
static const int serve_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1};

enum { SERVE_NSIG = sizeof serve_signals / sizeof serve_signals[0] };

/* What serve_main changed in the process, to give it back on return. */
struct serve_sigs {
    sigset_t set;
    sigset_t old_mask;
    struct sigaction old_action[SERVE_NSIG];
    struct sigaction old_pipe;
    int fd;
};

enum serve_event { EV_ERROR = -1, EV_STOP, EV_RESTART };

static void
sigs_give_back(struct serve_sigs *sg)
{
    const struct timespec zero = {0, 0};

    if (sg->fd >= 0)
        close(sg->fd);
    /* A second SIGTERM during shutdown is still pending: unblocked, it would kill us now. */
    while (sigtimedwait(&sg->set, NULL, &zero) > 0)
        ;
    for (int i = 0; i < SERVE_NSIG; i++)
        sigaction(serve_signals[i], &sg->old_action[i], NULL);
    sigaction(SIGPIPE, &sg->old_pipe, NULL);
    sigprocmask(SIG_SETMASK, &sg->old_mask, NULL);
}

static int
sigs_take(struct serve_sigs *sg, char *err)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL}, ign = {.sa_handler = SIG_IGN};

    sigemptyset(&sg->set);
    for (int i = 0; i < SERVE_NSIG; i++)
        sigaddset(&sg->set, serve_signals[i]);
    sigprocmask(SIG_BLOCK, &sg->set, &sg->old_mask);
    /* An ignored signal (a shell starts `cmd &` with SIGINT ignored) never reaches a signalfd. */
    for (int i = 0; i < SERVE_NSIG; i++)
        sigaction(serve_signals[i], &dfl, &sg->old_action[i]);
    /* A reader of stdout that went away must not kill us with the server still running. */
    sigaction(SIGPIPE, &ign, &sg->old_pipe);
    sg->fd = signalfd(-1, &sg->set, SFD_CLOEXEC);
    if (sg->fd >= 0)
        return 0;
    seterr(err, "cannot create a signalfd: %s", strerror(errno));
    sigs_give_back(sg);
    return -1;
}

/* 1 if stdin reached its end (or broke), 0 if it only had data, which is ignored. */
static int
stdin_ended(void)
{
    char buf[512];
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);

    return n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
}

static enum serve_event
next_event(int sigfd, int *watch_stdin)
{
    struct pollfd p[2];
    struct signalfd_siginfo si;

    for (;;) {
        p[0] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        p[1] = (struct pollfd){.fd = *watch_stdin ? STDIN_FILENO : -1, .events = POLLIN};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return EV_ERROR;
        }
        if ((p[0].revents & POLLIN) && read(sigfd, &si, sizeof si) == (ssize_t)sizeof si)
            return si.ssi_signo == SIGUSR1 ? EV_RESTART : EV_STOP;
        /* stdin closed before we started: nothing to watch, signals only. */
        if (p[1].revents & POLLNVAL)
            *watch_stdin = 0;
        else if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && stdin_ended())
            return EV_STOP;
    }
}

static void
announce(const struct server *s)
{
    printf("target=%s\ndir=%s\nport=%d\npid=%ld\n", s->target, s->dir, s->port, (long)getpid());
    if (s->behind[0] != '\0')
        printf("behind=%s\n", s->behind);
    if (s->log[0] != '\0')
        printf("log=%s\n", s->log);
    printf("ready\n");
    fflush(stdout);
}

/*
 * The throwaway registered under its masked target, with the restarts done,
 * for try --restart (run/tryset.h); a failure is said, and serve goes on.
 */
static void
registered(const char *masked, int restarts)
{
    char err[BT_ERRLEN];

    if (masked != NULL && tryset_serve_register(masked, (long)getpid(), restarts, err) < 0)
        fprintf(stderr, "benchtop: serve: %s\n", err);
}

static void
restart(struct server *s, const char *masked, int *restarts)
{
    char err[BT_ERRLEN];

    if (server_restart(s, err) == 0) {
        registered(masked, ++*restarts);
        printf("restarted\n");
    } else {
        printf("restart-failed: %s\n", err);
    }
    fflush(stdout);
}

static int
serve_loop(struct server *s, int sigfd, const char *masked)
{
    int watch_stdin = 1, restarts = 0;

    registered(masked, 0);
    for (;;) {
        switch (next_event(sigfd, &watch_stdin)) {
        case EV_RESTART:
            restart(s, masked, &restarts);
            break;
        case EV_STOP:
            return 0;
        case EV_ERROR:
            return usage_error("serve: cannot wait for signals: %s", strerror(errno));
        }
    }
}

/* "postgres, redis" from the registry, for the error that lists what exists. */
static void
class_names(char *out, size_t outlen)
{
    const struct server_class *c;
    size_t len = 0;

    out[0] = '\0';
    for (size_t i = 0; (c = server_class_at(i)) != NULL && len < outlen; i++) {
        int n = snprintf(out + len, outlen - len, "%s%s", len ? ", " : "", c->name);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}

static int
serve_main(const char *class_name)
{
    const struct server_class *cls;
    struct serve_sigs sg;
    struct server s;
    const struct driver_class *drv;
    char err[BT_ERRLEN], names[256], *masked;
    int rc;

    class_names(names, sizeof names);
    if (class_name == NULL)
        return usage_error("serve needs a server name: benchtop serve NAME (one of: %s)", names);
    cls = server_class_find(class_name);
    if (cls == NULL)
        return usage_error("serve: no %s server in this build (built in: %s)", class_name,
                           names[0] ? names
                                    : "none; install a client library and re-run ./configure");
    /* Before the server exists, so that no signal can find it unprotected. */
    if (sigs_take(&sg, err) < 0)
        return usage_error("serve: %s", err);
    if (server_create(&s, cls, err) < 0) {
        sigs_give_back(&sg);
        fprintf(stderr, "benchtop: cannot start a %s server: %s\n", cls->name, err);
        return 2;
    }
    announce(&s);
    drv = driver_for_target(s.target);
    masked = drv != NULL ? drv->mask(s.target) : NULL;
    rc = serve_loop(&s, sg.fd, masked);
    if (masked != NULL)
        tryset_serve_unregister(masked);
    free(masked);
    server_destroy(&s);
    sigs_give_back(&sg);
    return rc;
}

static int
cmd_serve_exec(struct runconf *rc, char **pos, int npos)
{
    if (npos != 1)
        usage_fatal("serve needs a backend name (one of the databases in benchtop --version)");
    return serve_main(pos[0]);
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_serve_entry = {
    "serve", CMD_SERVE, cmd_serve_exec, "benchtop serve NAME",
    "(for tests) start a throwaway server and print its target until stdin closes"};
