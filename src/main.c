/*
 * main: subcommands (a table, not a strcmp chain) and their wiring:
 * run, init, demo, and the developers' serve.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmd-report.h"
#include "collect.h"
#include "engine.h"
#include "headless.h"
#include "options.h"
#include "registry.h"
#include "report.h"
#include "serve.h"
#include "server.h"
#include "target.h"
#include "tui.h"
#include "util.h"

struct command {
    const char *name;
    unsigned mask; /* CMD_* for the options that apply */
    int (*fn)(struct runconf *rc, char **pos, int npos);
    const char *usage;
    const char *summary; /* NULL: hidden from --help (developer commands) */
};

static int cmd_run(struct runconf *rc, char **pos, int npos);
static int cmd_init(struct runconf *rc, char **pos, int npos);
static int cmd_demo(struct runconf *rc, char **pos, int npos);
static int cmd_serve(struct runconf *rc, char **pos, int npos);
static int cmd_watch(struct runconf *rc, char **pos, int npos);
static int cmd_man_options(struct runconf *rc, char **pos, int npos);

static const struct command commands[] = {
    {"run", CMD_RUN, cmd_run, "benchtop [run] TARGET [OPTIONS]",
     "put load on TARGET and report throughput and latency"},
    {"init", CMD_INIT, cmd_init, "benchtop init TARGET [--scale N|--tables N]",
     "create and fill the workload's tables (as pgbench -i, sysbench prepare)"},
    {"demo", CMD_DEMO, cmd_demo, "benchtop demo [postgres|redis|memcached|mysql] [OPTIONS]",
     "start a throwaway local server, fill it and run against it"},
    {"watch", CMD_WATCH, cmd_watch, "benchtop watch TARGET... [OPTIONS]",
     "the dashboard with no load: watch servers under someone else's load"},
    {"report", CMD_REPORT, cmd_report,
     "benchtop report RUN... [--html FILE] [--format F] [--from S] [--to S]",
     "compare recorded runs (--record FILE / --headless > FILE), with charts"},
    {"serve", CMD_RUN, cmd_serve, "benchtop serve NAME",
     "(for tests) start a throwaway server and print its target until stdin closes"},
    {"man-options", CMD_RUN, cmd_man_options, "benchtop man-options", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static void
print_list(const char *const *names)
{
    int i;

    for (i = 0; names[i] != NULL; i++)
        printf("%s%s%s", i ? ", " : "", names[i], i == 0 ? " (default)" : "");
}

/* Workloads and protocols come from the driver classes, so help cannot go stale. */
static void
print_backends(void)
{
    const struct driver_class *const *d;

    printf("\nworkloads (-w) and protocols (-M):\n");
    for (d = driver_classes; *d != NULL; d++) {
        printf("  %-10s -w ", (*d)->name);
        print_list((*d)->workloads);
        printf("\n  %-10s -M ", "");
        print_list((*d)->modes);
        printf("\n");
    }
}

static void
print_help(const struct command *cmd)
{
    const struct command *c;
    char schemes[256];

    printf("benchtop %s: live load and server view for databases\n\n", PACKAGE_VERSION);
    if (cmd != NULL) {
        printf("usage: %s\n  %s\n\noptions:\n", cmd->usage, cmd->summary ? cmd->summary : "");
        options_print_help(stdout, cmd->mask);
        return;
    }
    printf("usage:\n");
    for (c = commands; c->name != NULL; c++)
        if (c->summary != NULL)
            printf("  %-44s %s\n", c->usage, c->summary);
    target_known_schemes(schemes, sizeof(schemes));
    printf("\nTARGET: %s (or a libpq conninfo string)\n\noptions:\n", schemes);
    options_print_help(stdout, CMD_RUN | CMD_INIT | CMD_DEMO | CMD_WATCH | CMD_REPORT);
    print_backends();
    printf("\nSee benchtop(1) for the JSON fields and more.\n");
}

static void
print_version(void)
{
    const struct driver_class *const *d;

    printf("benchtop %s\nbackends:", PACKAGE_VERSION);
    for (d = driver_classes; *d != NULL; d++)
        printf(" %s", (*d)->name);
    printf("\n");
    for (d = driver_classes; *d != NULL; d++)
        if ((*d)->version_note != NULL)
            printf("  %s: %s\n", (*d)->name, (*d)->version_note);
}

/*
 * target points into argv (getopt keeps the strings in place), so masking
 * it there hides the password from `ps` (in_argv: 0 for a target we made).
 */
static const struct driver_class *
resolve_target(struct runconf *rc, char *target, int in_argv)
{
    const struct driver_class *drv = driver_for_target(target);
    char schemes[256];

    if (drv == NULL) {
        target_known_schemes(schemes, sizeof(schemes));
        usage_fatal("don't know what database '%s' is (start the target with %s)", target, schemes);
    }
    rc->target = xstrdup(target);
    rc->target_masked = drv->mask(target);
    rc->driver = drv;
    rc->server_local = target_is_local(target);
    if (in_argv)
        target_scrub_arg(target, rc->target_masked);
    return drv;
}

/* default_seconds applies headless; the dashboard runs until q unless -T or -t. */
static void
check_run_options(struct runconf *rc, int default_seconds)
{
    if (options_given(rc, "time") && options_given(rc, "transactions"))
        usage_fatal("-T and -t cannot be used together (pick a duration or a count)");
    if (rc->threads > rc->clients)
        rc->threads = rc->clients;
    if (!rc->headless && !isatty(STDOUT_FILENO))
        rc->headless = 1;
    if (!options_given(rc, "time") && !options_given(rc, "transactions"))
        rc->duration_s = rc->headless ? default_seconds : 0;
}

/*
 * A closed stdout would let the first socket take descriptor 1 and receive
 * the JSON lines: it is held by /dev/null, and headless output refused.
 */
static int stdout_closed;

static void
hold_std_fds(void)
{
    int fd;

    if (fcntl(STDOUT_FILENO, F_GETFD) < 0 && errno == EBADF) {
        stdout_closed = 1;
        fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd >= 0 && fd != STDOUT_FILENO) /* 0 closed too: it took that slot, leave it */
            close(fd);
        else if (fd < 0)
            fatal("cannot open /dev/null: %s", strerror(errno));
    }
}

/* Where the JSON lines go: stdout when headless, else the --record file or nowhere. */
static FILE *
open_record(const struct runconf *rc)
{
    FILE *f;

    if (rc->headless && stdout_closed)
        usage_fatal("standard output is closed: headless mode has nowhere to write its JSON "
                    "lines (redirect it to a file)");
    if (rc->headless && rc->record != NULL)
        usage_fatal("--record is for the dashboard: headless output is already JSON lines on "
                    "stdout (redirect it to a file)");
    if (rc->headless)
        return stdout;
    if (rc->record == NULL)
        return NULL;
    f = fopen(rc->record, "w");
    if (f == NULL)
        usage_fatal("cannot write --record %s: %s (check the path)", rc->record, strerror(errno));
    return f;
}

/* Adds a collector for target (driver drv) to the session; a failure is fatal. */
static void
add_collector(struct session *s, const struct driver_class *drv, const char *target,
              const char **names)
{
    const struct collector_class *cls = collector_for(drv->name);
    char err[BT_ERRLEN];

    if (cls == NULL)
        return; /* this backend has no collector yet: client figures only */
    if (s->ncollect == SESSION_MAX_COLLECT)
        usage_fatal("at most %d targets can be watched at once", SESSION_MAX_COLLECT);
    s->collect[s->ncollect] = collect_start(cls, target, s->interval_s, err);
    if (s->collect[s->ncollect] == NULL)
        usage_fatal("%s", err);
    names[s->ncollect++] = cls->name;
}

/* A line that could not be written is an error: said once on stderr, exit 1. */
static void
check_output(FILE *f, const char *what)
{
    if (f == NULL || (fflush(f) == 0 && !ferror(f)))
        return;
    fprintf(stderr, "benchtop: cannot write to %s: %s (lines were lost)\n", what,
            errno ? strerror(errno) : "write error");
    exit(1);
}

/* A watch that never got one sample is a failure, whatever the output showed. */
static void
check_watched(struct collect *c, const char *target)
{
    struct collect_result res;

    collect_read(c, &res);
    if (res.samples == 0) {
        fprintf(stderr, "benchtop: no sample of %s succeeded: %s\n", target, res.error);
        exit(1);
    }
}

/* Runs the session with the dashboard, or headless; then stops the collectors. */
static void
front_end(struct session *s, int sigfd, struct report_ctx *ctx, const char **names,
          const char **targets)
{
    struct tui_conf tc = {.theme = s->rc->theme, .report = ctx};
    struct headless_conf hc = {.report = ctx};
    char err[BT_ERRLEN];
    int i;

    for (i = 0; i < s->ncollect; i++) {
        tc.names[i] = hc.names[i] = names[i];
        tc.targets[i] = hc.targets[i] = targets[i];
    }
    if (s->rc->headless && tui_check_theme(tc.theme, err) < 0)
        usage_fatal("%s", err);
    if (s->rc->headless)
        headless_run(s, sigfd, &hc);
    else if (tui_run(s, sigfd, &tc, err) < 0)
        usage_fatal("%s", err);
    for (i = 0; i < s->ncollect; i++)
        if (s->eng == NULL)
            check_watched(s->collect[i], targets[i]);
    for (i = 0; i < s->ncollect; i++)
        collect_stop(s->collect[i]);
    check_output(ctx->json, ctx->json == stdout ? "standard output" : s->rc->record);
    check_output(ctx->human, "standard error");
}

/*
 * Each client holds a socket: raise the soft descriptor limit as far as the
 * hard one allows, or say how to before anything starts.
 */
static void
raise_fd_limit(int clients)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)clients + 64; /* collectors, eventfds, stdio, libraries */

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < need)
        usage_fatal("-c %d needs about %llu open files but the limit is %llu (raise it with "
                    "ulimit -n, or use fewer clients)",
                    clients, (unsigned long long)need, (unsigned long long)rl.rlim_cur);
}

static int
run_load(struct runconf *rc)
{
    const struct driver_class *drv = rc->driver;
    char err[BT_ERRLEN];
    void *shared = drv->prepare(rc, err);
    struct report_ctx ctx = {.rc = rc};
    struct session s = {.rc = rc, .interval_s = rc->interval_s, .input_fd = -1};
    const char *names[SESSION_MAX_COLLECT], *targets[SESSION_MAX_COLLECT];
    int sigfd;

    if (shared == NULL)
        usage_fatal("%s", err);
    raise_fd_limit(rc->clients);
    ctx.workload = rc->script_file ? rc->script_file
                   : rc->workload  ? rc->workload
                                   : drv->workloads[0];
    ctx.mode = rc->mode ? rc->mode : drv->modes[0];
    ctx.json = open_record(rc);
    ctx.human = rc->quiet ? NULL : stderr;
    sigfd = session_block_signals(); /* before any thread: they all inherit the mask */
    s.eng = engine_start(rc, shared, err);
    if (s.eng == NULL || sigfd < 0)
        usage_fatal("%s", err);
    if (!rc->no_collect)
        add_collector(&s, drv, rc->target, names);
    targets[0] = rc->target_masked;
    front_end(&s, sigfd, &ctx, names, targets);
    engine_free(s.eng);
    drv->release(shared);
    if (ctx.json != NULL && ctx.json != stdout)
        fclose(ctx.json);
    return 0;
}

static int
cmd_watch(struct runconf *rc, char **pos, int npos)
{
    struct session s = {.rc = rc, .interval_s = rc->interval_s, .input_fd = -1};
    struct report_ctx ctx = {.rc = rc, .workload = "watch", .mode = ""};
    const char *names[SESSION_MAX_COLLECT], *targets[SESSION_MAX_COLLECT];
    char joined[1024] = "";
    int i, sigfd;

    if (npos == 0)
        usage_fatal(
            "watch needs at least one target (e.g. benchtop watch postgres://localhost/db)");
    if (npos > SESSION_MAX_COLLECT)
        usage_fatal("at most %d targets can be watched at once", SESSION_MAX_COLLECT);
    if (!rc->headless && !isatty(STDOUT_FILENO))
        rc->headless = 1;
    ctx.json = open_record(rc);
    sigfd = session_block_signals();
    for (i = 0; i < npos; i++) {
        const struct driver_class *drv = resolve_target(rc, pos[i], 1);
        targets[s.ncollect] = rc->target_masked;
        add_collector(&s, drv, rc->target, names);
        if (s.ncollect != i + 1)
            usage_fatal("%s targets cannot be watched yet (no collector for %s)", drv->name,
                        drv->name);
        snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s", i ? ", " : "",
                 rc->target_masked);
    }
    rc->target_masked = xstrdup(joined);
    if (options_given(rc, "time"))
        s.until_us = now_us() + (uint64_t)(rc->duration_s * 1e6);
    front_end(&s, sigfd, &ctx, names, targets);
    if (ctx.json != NULL && ctx.json != stdout)
        fclose(ctx.json);
    return 0;
}

static int
cmd_run(struct runconf *rc, char **pos, int npos)
{
    if (npos == 0)
        usage_fatal("no target given (e.g. benchtop run postgres://user@localhost/dbname)");
    if (npos > 1)
        usage_fatal("unexpected argument '%s' (give one target; options start with -)", pos[1]);
    resolve_target(rc, pos[0], 1);
    check_run_options(rc, 10);
    return run_load(rc);
}

static int
cmd_init(struct runconf *rc, char **pos, int npos)
{
    struct init_conf ic;
    char err[BT_ERRLEN];

    if (npos != 1)
        usage_fatal("init needs exactly one target (e.g. benchtop init "
                    "postgres://localhost/dbname --scale 10)");
    resolve_target(rc, pos[0], 1);
    ic.target = rc->target;
    ic.scale = rc->scale;
    ic.tables = rc->tables;
    ic.table_size = rc->table_size;
    ic.force = rc->force;
    ic.quiet = rc->quiet;
    if (rc->driver->init(&ic, err) < 0)
        usage_fatal("%s", err);
    return 0;
}

/* A Ctrl-C that arrived while signals were blocked (set-up of the demo). */
static int
interrupted(void)
{
    sigset_t pending;

    sigpending(&pending);
    return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
           sigismember(&pending, SIGHUP);
}

static int
demo_load(struct runconf *rc, struct server *srv)
{
    struct init_conf ic = {.target = srv->target,
                           .scale = rc->scale,
                           .tables = rc->tables,
                           .table_size = rc->table_size,
                           .force = 1,
                           .quiet = rc->quiet};
    char err[BT_ERRLEN];

    resolve_target(rc, srv->target, 0);
    if (!rc->quiet)
        fprintf(stderr, "demo: %s server at %s (folder %s)\n", srv->cls->name, rc->target_masked,
                srv->dir);
    if (!rc->driver->needs_init)
        rc->fill = 1; /* a key-value store: write the keys first, so gets hit */
    else if (rc->driver->init(&ic, err) < 0) {
        fprintf(stderr, "benchtop: demo: %s\n", err);
        return 1;
    }
    if (interrupted())
        return 0;
    if (!options_given(rc, "clients"))
        rc->clients = 4;
    if (!options_given(rc, "threads"))
        rc->threads = 2;
    check_run_options(rc, 20);
    return run_load(rc);
}

/* "postgres, redis, ..." : the servers a demo can start. */
static const char *
demo_names(char *buf, size_t len)
{
    const struct server_class *const *c;
    size_t used = 0;

    buf[0] = '\0';
    for (c = server_classes; *c != NULL && used < len; c++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", (*c)->name);
    return buf;
}

static int
cmd_demo(struct runconf *rc, char **pos, int npos)
{
    const struct server_class *cls = npos > 0 ? server_class_find(pos[0]) : server_classes[0];
    struct server srv;
    char err[BT_ERRLEN];
    sigset_t set;
    int rv;

    if (npos > 1 || (npos == 1 && cls == NULL))
        usage_fatal("demo takes a database name, not '%s' (one of: %s)", pos[npos - 1],
                    demo_names(err, sizeof(err)));
    if (cls == NULL)
        usage_fatal("no backend compiled in that can start a demo server (install libpq-dev and "
                    "rebuild)");
    /* Blocked until the end: Ctrl-C must never skip stopping the servers. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    if (server_create(&srv, cls, err) < 0)
        usage_fatal("demo: %s", err);
    rv = interrupted() ? 0 : demo_load(rc, &srv);
    if (!rc->quiet)
        fprintf(stderr, "demo: stopping the %s server and removing %s\n", cls->name, srv.dir);
    server_destroy(&srv);
    return rv;
}

static int
cmd_serve(struct runconf *rc, char **pos, int npos)
{
    if (npos != 1)
        usage_fatal("serve needs a backend name (e.g. benchtop serve postgres)");
    return serve_main(pos[0]);
}

/* The man page's OPTIONS section, from the option table (make man). */
static int
cmd_man_options(struct runconf *rc, char **pos, int npos)
{
    options_print_man(stdout);
    return 0;
}

static const struct command *
find_command(const char *word)
{
    const struct command *c;

    for (c = commands; c->name != NULL; c++)
        if (strcmp(c->name, word) == 0)
            return c;
    return NULL;
}

/* A URI, a conninfo string or a socket path: not a mistyped command. */
static int
looks_like_target(const char *word)
{
    return strstr(word, "://") != NULL || strchr(word, '=') != NULL || word[0] == '/';
}

int
main(int argc, char **argv)
{
    const struct command *cmd = argc > 1 ? find_command(argv[1]) : NULL;
    struct runconf rc;
    char **pos;
    int npos, shift = cmd != NULL;

    hold_std_fds();
    memset(&rc, 0, sizeof(rc));
    options_defaults(&rc);
    rc.command = cmd ? cmd->name : "run";
    options_parse(&rc, cmd ? cmd->mask : CMD_RUN, argc - shift, argv + shift, &pos, &npos);
    if (rc.show_help || (argc == 1)) {
        print_help(cmd);
        return 0;
    }
    if (rc.show_version) {
        print_version();
        return 0;
    }
    if (cmd == NULL && argc > 2 && argv[1][0] != '-' && !looks_like_target(argv[1]))
        usage_fatal("unknown command '%s' (use run, init, demo or watch; a target looks like "
                    "redis://HOST)",
                    argv[1]);
    if (cmd == NULL)
        cmd = &commands[0];
    return cmd->fn(&rc, pos, npos);
}
