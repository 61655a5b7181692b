/*
 * main: subcommands (a table, not a strcmp chain) and their wiring:
 * run, init, demo, and the developers' serve.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "options.h"
#include "registry.h"
#include "report.h"
#include "serve.h"
#include "server.h"
#include "target.h"
#include "util.h"

struct command {
    const char *name;
    unsigned mask; /* CMD_* for the options that apply */
    int (*fn)(struct runconf *rc, char **pos, int npos, char **argv_target);
    const char *usage;
    const char *summary; /* NULL: hidden from --help (developer commands) */
};

static int cmd_run(struct runconf *rc, char **pos, int npos, char **argv_target);
static int cmd_init(struct runconf *rc, char **pos, int npos, char **argv_target);
static int cmd_demo(struct runconf *rc, char **pos, int npos, char **argv_target);
static int cmd_serve(struct runconf *rc, char **pos, int npos, char **argv_target);
static int cmd_man_options(struct runconf *rc, char **pos, int npos, char **argv_target);

static const struct command commands[] = {
    {"run", CMD_RUN, cmd_run, "benchtop [run] TARGET [OPTIONS]",
     "put load on TARGET and report throughput and latency"},
    {"init", CMD_INIT, cmd_init, "benchtop init TARGET [--scale N|--tables N]",
     "create and fill the workload's tables (as pgbench -i, sysbench prepare)"},
    {"demo", CMD_DEMO, cmd_demo, "benchtop demo [OPTIONS]",
     "start a throwaway local server, fill it and run against it"},
    {"serve", CMD_RUN, cmd_serve, "benchtop serve postgres|mysql",
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
    options_print_help(stdout, CMD_RUN | CMD_INIT | CMD_DEMO);
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

static const struct driver_class *
resolve_target(struct runconf *rc, const char *target, char *argv_target)
{
    const struct driver_class *drv = driver_for_target(target);
    char schemes[256];

    if (drv == NULL) {
        target_known_schemes(schemes, sizeof(schemes));
        usage_fatal("don't know what database '%s' is (start the target with %s)", target,
                    schemes);
    }
    rc->target = xstrdup(target);
    rc->target_masked = drv->mask(target);
    rc->driver = drv;
    if (argv_target != NULL)
        target_scrub_arg(argv_target, rc->target_masked);
    return drv;
}

static void
check_run_options(struct runconf *rc, int default_seconds)
{
    if (options_given(rc, "time") && options_given(rc, "transactions"))
        usage_fatal("-T and -t cannot be used together (pick a duration or a count)");
    if (!options_given(rc, "time") && !options_given(rc, "transactions"))
        rc->duration_s = default_seconds;
    if (rc->threads > rc->clients)
        rc->threads = rc->clients;
    if (!rc->headless && !isatty(STDOUT_FILENO))
        rc->headless = 1;
}

static int
run_load(struct runconf *rc)
{
    const struct driver_class *drv = rc->driver;
    char err[BT_ERRLEN];
    void *shared = drv->prepare(rc, err);
    struct report_ctx ctx = {.rc = rc};

    if (shared == NULL)
        usage_fatal("%s", err);
    ctx.workload = rc->script_file ? rc->script_file : rc->workload ? rc->workload : drv->workloads[0];
    ctx.mode = rc->mode ? rc->mode : drv->modes[0];
    ctx.json = rc->headless ? stdout : NULL;
    ctx.human = rc->quiet ? NULL : stderr;
    if (engine_run(rc, shared, report_snapshot, &ctx, err) < 0)
        usage_fatal("%s", err);
    drv->release(shared);
    return 0;
}

static int
cmd_run(struct runconf *rc, char **pos, int npos, char **argv_target)
{
    if (npos == 0)
        usage_fatal("no target given (e.g. benchtop run postgres://user@localhost/dbname)");
    if (npos > 1)
        usage_fatal("unexpected argument '%s' (give one target; options start with -)", pos[1]);
    resolve_target(rc, pos[0], argv_target[0]);
    check_run_options(rc, 10);
    return run_load(rc);
}

static int
cmd_init(struct runconf *rc, char **pos, int npos, char **argv_target)
{
    struct init_conf ic;
    char err[BT_ERRLEN];

    if (npos != 1)
        usage_fatal("init needs exactly one target (e.g. benchtop init "
                    "postgres://localhost/dbname --scale 10)");
    resolve_target(rc, pos[0], argv_target[0]);
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
    return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM);
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

    resolve_target(rc, srv->target, NULL);
    if (!rc->quiet)
        fprintf(stderr, "demo: %s server at %s (folder %s)\n", srv->cls->name, rc->target_masked,
                srv->dir);
    if (rc->driver->init(&ic, err) < 0) {
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

static int
cmd_demo(struct runconf *rc, char **pos, int npos, char **argv_target)
{
    const struct server_class *cls = server_classes[0];
    struct server srv;
    char err[BT_ERRLEN];
    sigset_t set;
    int rv;

    if (npos > 0)
        usage_fatal("demo takes no target (it starts its own servers; use 'benchtop run TARGET')");
    if (cls == NULL)
        usage_fatal("no backend compiled in that can start a demo server (install libpq-dev and "
                    "rebuild)");
    /* Blocked until the end: Ctrl-C must never skip stopping the servers. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
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
cmd_serve(struct runconf *rc, char **pos, int npos, char **argv_target)
{
    if (npos != 1)
        usage_fatal("serve needs a backend name (e.g. benchtop serve postgres)");
    return serve_main(pos[0]);
}

/* The man page's OPTIONS section, from the option table (make man). */
static int
cmd_man_options(struct runconf *rc, char **pos, int npos, char **argv_target)
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

/* Where in argv the (first) positional argument sits, for scrubbing. */
static char **
first_positional(int argc, char **argv, char **pos, int npos)
{
    int i;

    for (i = 1; npos > 0 && i < argc; i++)
        if (argv[i] == pos[0])
            return &argv[i];
    return pos;
}

int
main(int argc, char **argv)
{
    const struct command *cmd = argc > 1 ? find_command(argv[1]) : NULL;
    struct runconf rc;
    char **pos;
    int npos, shift = cmd != NULL;

    memset(&rc, 0, sizeof(rc));
    options_defaults(&rc);
    rc.command = cmd ? cmd->name : "run";
    options_parse(&rc, cmd ? cmd->mask : CMD_RUN, argc - shift, argv + shift,
                  &pos, &npos);
    if (rc.show_help || (argc == 1)) {
        print_help(cmd);
        return 0;
    }
    if (rc.show_version) {
        print_version();
        return 0;
    }
    if (cmd == NULL)
        cmd = &commands[0];
    return cmd->fn(&rc, pos, npos, first_positional(argc, argv, pos, npos));
}
