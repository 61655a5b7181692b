/*
 * cmd: the subcommand table, --help and --version, and the pieces several
 * subcommands share. To add a subcommand: write src/cmd-NAME.c exporting
 * a const struct cmd_entry, declare it in cmd.h and list it below.
 */
#include "cmd.h"

#include "config.h"
#include "base/sendq.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/collect.h"
#include "run/headless.h"
#include "run/options.h"
#include "engine/registry.h"
#include "run/target.h"
#include "base/uri.h"
#include "ui/tui.h"
#include "base/util.h"

const struct cmd_entry *const cmd_table[] = {
    &cmd_run_entry,   &cmd_init_entry,    &cmd_demo_entry,        &cmd_watch_entry,
    &cmd_sweep_entry, &cmd_try_entry,     &cmd_report_entry,      &cmd_merge_entry,
    &cmd_serve_entry, &cmd_inspect_entry, &cmd_man_options_entry, NULL,
};

const struct cmd_entry *
cmd_find(const char *word)
{
    const struct cmd_entry *const *c;

    for (c = cmd_table; *c != NULL; c++)
        if (strcmp((*c)->name, word) == 0)
            return *c;
    return NULL;
}

/* The general --help's column for a subcommand's summary, after its usage. */
enum { USAGE_TEXT_COL = 37 };

/* "a (default), b, c" */
static void
format_list(const char *const *names, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (int i = 0; names[i] != NULL && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s%s", i ? ", " : "", names[i],
                              i == 0 ? " (default)" : "");
}

/* Workloads and protocols come from the driver classes, so help cannot go stale. */
static void
print_backends(FILE *f)
{
    const struct driver_class *const *d;
    char lead[32], list[1024];

    fprintf(f, "\nworkloads (-w) and protocols (-M):\n");
    for (d = driver_classes; *d != NULL; d++) {
        snprintf(lead, sizeof lead, "  %-10s -w ", (*d)->name);
        format_list((*d)->workloads, list, sizeof list);
        options_print_wrapped(f, lead, (int)strlen(lead), list);
        snprintf(lead, sizeof lead, "  %-10s -M ", "");
        format_list((*d)->modes, list, sizeof list);
        options_print_wrapped(f, lead, (int)strlen(lead), list);
    }
}

void
cmd_print_help(FILE *f, const struct cmd_entry *cmd)
{
    const struct cmd_entry *const *c;
    char schemes[256], lead[128], text[320];

    fprintf(f, "benchtop %s: live load and server view for databases\n\n", PACKAGE_VERSION);
    if (cmd != NULL) {
        options_print_wrapped(f, "usage: ", 7, cmd->usage);
        options_print_wrapped(f, "", 2, cmd->summary ? cmd->summary : "");
        fprintf(f, "\noptions:\n");
        options_print_help(f, cmd->mask);
        return;
    }
    fprintf(f, "usage:\n");
    for (c = cmd_table; *c != NULL; c++)
        if ((*c)->summary != NULL) {
            snprintf(lead, sizeof lead, "  %s", (*c)->usage);
            options_print_wrapped(f, lead, USAGE_TEXT_COL, (*c)->summary);
        }
    target_known_schemes(schemes, sizeof(schemes));
    snprintf(text, sizeof text, "%s", schemes);
    for (const struct driver_class *const *d = driver_classes; *d != NULL; d++)
        if ((*d)->target_forms != NULL)
            snprintf(text + strlen(text), sizeof text - strlen(text), " (or %s)",
                     (*d)->target_forms);
    fputc('\n', f);
    options_print_wrapped(f, "TARGET: ", 8, text);
    fputs("\noptions:\n", f);
    options_print_help(f, CMD_ALL | CMD_REPORT);
    print_backends(f);
    fprintf(f, "\nSee benchtop(1) for the JSON fields and more.\n");
}

/* Whether the workers can batch sends here (sendq.h): they fall back to direct sends alone. */
static void
print_sends(void)
{
    const struct driver_class *const *d;
    char err[BT_ERRLEN];
    struct sendq *q = sendq_new(err);
    const char *sep = "";

    printf("sends (");
    for (d = driver_classes; *d != NULL; d++)
        if ((*d)->reads_drain) {
            printf("%s%s", sep, (*d)->name);
            sep = ", ";
        }
    if (q != NULL)
        printf("): batched per loop turn with io_uring\n");
    else
        printf("): direct, one system call each (%s)\n", err);
    sendq_free(q);
}

void
cmd_print_version(void)
{
    const struct driver_class *const *d;

    printf("benchtop %s\nbackends:", PACKAGE_VERSION);
    for (d = driver_classes; *d != NULL; d++)
        printf(" %s", (*d)->name);
    printf("\n");
    for (d = driver_classes; *d != NULL; d++)
        if ((*d)->version_note != NULL)
            printf("  %s: %s\n", (*d)->name, (*d)->version_note);
    print_sends();
}

/* The message for a target no driver knows; masked is uri_mask's. */
static void
unknown_target(const char *option, const char *masked)
{
    char schemes[256];

    target_known_schemes(schemes, sizeof(schemes));
    if (option != NULL)
        usage_fatal("--%s: don't know what '%s' is (start the target with %s)", option, masked,
                    schemes);
    usage_fatal("don't know what database '%s' is (start the target with %s)", masked, schemes);
}

/*
 * An option's target in argv: a copy for connecting, and argv masked in
 * place so that `ps` shows no password.
 */
static void
hide_option_target(char **opt, const char *option)
{
    const struct driver_class *drv;
    char *copy, *masked;

    if (*opt == NULL || strcmp(*opt, "none") == 0)
        return;
    drv = driver_for_target(*opt);
    if (drv == NULL)
        unknown_target(option, target_mask(*opt));
    copy = xstrdup(*opt);
    masked = drv->mask(*opt);
    target_scrub_arg(*opt, masked);
    free(masked);
    *opt = copy; /* watch resolves once per target: a second pass masks the first copy */
}

/*
 * --watch targets, each parsed once: each must have a collector and be on
 * this machine (what benchtop reads, it reads only on loopback, like its
 * loads); argv masked in place.
 */
static void
hide_watch_targets(struct target_list *l)
{
    struct target *t;
    int i;

    for (i = 0; i < l->n && !l->hidden; i++) {
        t = &l->t[i];
        target_parse(t, l->v[i]);
        if (t->masked == NULL || t->collector == NULL)
            usage_fatal("--watch %s: nothing reads it (watch a database target, a pooler's "
                        "console, or an application tier's status URL)",
                        t->masked ? t->masked : "***");
        if (!t->local)
            usage_fatal("--watch %s: benchtop only reads servers on loopback (127.0.0.0/8, "
                        "::1, a unix socket)",
                        t->masked);
        target_scrub_arg(l->v[i], t->masked);
        l->v[i] = t->raw;
    }
    l->hidden = 1;
}

const struct driver_class *
cmd_resolve_target(struct runconf *rc, char *target, int in_argv)
{
    const struct driver_class *drv;

    /* not freed before: watch resolves a target per argument, its collectors keep each */
    if (target_parse(&rc->tgt, target) < 0)
        unknown_target(NULL, rc->tgt.masked);
    drv = rc->tgt.driver;
    err_kinds_use(drv->err_kinds);
    rc->driver_conf = options_driver_conf(rc, drv);
    rc->pipeline = drv->pipeline_depth ? drv->pipeline_depth(rc->driver_conf) : 1;
    if (in_argv)
        target_scrub_arg(target, rc->tgt.masked);
    hide_option_target(&rc->pooler_target, "pooler");
    hide_option_target(&rc->server_target, "server");
    hide_watch_targets(&rc->watch);
    return drv;
}

void
cmd_choose_front_end(struct runconf *rc)
{
    char err[BT_ERRLEN];

    if (!rc->headless && !isatty(STDOUT_FILENO))
        rc->headless = 1;
    if (!rc->headless && tui_check_terminal(err) < 0)
        usage_fatal("%s", err);
}

void
cmd_check_run_options(struct runconf *rc, int default_seconds)
{
    if (options_given(rc, "time") && options_given(rc, "transactions"))
        usage_fatal("-T and -t cannot be used together (pick a duration or a count)");
    if (rc->threads > rc->clients && options_given(rc, "threads")) /* sysbench's --threads habit */
        fprintf(stderr,
                "benchtop: -j %d but -c %d: running %d client%s on %d thread%s (threads share "
                "clients; give -c %d for %d clients)\n",
                rc->threads, rc->clients, rc->clients, rc->clients == 1 ? "" : "s", rc->clients,
                rc->clients == 1 ? "" : "s", rc->threads, rc->threads);
    if (rc->threads > rc->clients)
        rc->threads = rc->clients;
    cmd_choose_front_end(rc);
    if (!options_given(rc, "time") && !options_given(rc, "transactions"))
        rc->duration_s = rc->headless ? default_seconds : 0;
}

/*
 * A closed stdout would let the first socket take descriptor 1 and receive
 * the JSON lines: it is held by /dev/null, and headless output refused.
 */
static int stdout_closed;

void
cmd_hold_std_fds(void)
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

FILE *
cmd_open_record(const struct runconf *rc)
{
    FILE *f;

    if (rc->headless && rc->record == NULL && stdout_closed)
        usage_fatal("standard output is closed: headless mode has nowhere to write its JSON "
                    "lines (redirect it to a file, or give --record FILE)");
    /* headless with --record: the file instead of stdout (a Kubernetes agent's volume) */
    if (rc->headless && rc->record == NULL)
        return stdout;
    if (rc->record == NULL)
        return NULL;
    f = fopen(rc->record, "w");
    if (f == NULL)
        usage_fatal("cannot write --record %s: %s (check the path)", rc->record, strerror(errno));
    return f;
}

/* Starts cls on target with its role in the verdict; a failure is fatal. */
static void
add_class(struct session *s, const struct collector_class *cls, const char *target,
          enum coll_role role, const char **names)
{
    char err[BT_ERRLEN];

    if (s->ncollect == SESSION_MAX_COLLECT)
        usage_fatal("at most %d targets can be watched at once", SESSION_MAX_COLLECT);
    s->collect[s->ncollect] = collect_start(cls, target, s->interval_s, err);
    if (s->collect[s->ncollect] == NULL)
        usage_fatal("%s", err);
    s->role[s->ncollect] = role;
    s->title[s->ncollect] = cls->title ? cls->title : cls->name;
    names[s->ncollect++] = cls->name;
}

void
cmd_add_collector(struct session *s, const struct driver_class *drv, const char *target,
                  const char **names)
{
    const struct collector_class *cls = collector_for(drv->name);

    if (cls != NULL) /* else this backend has no collector yet: client figures only */
        add_class(s, cls, target, COLL_SERVER, names);
}

void
cmd_add_watched(struct session *s, const struct runconf *rc, const char **names,
                const char **targets)
{
    const struct collector_class *cls;
    int i;

    for (i = 0; i < rc->watch.n; i++) {
        cls = rc->watch.t[i].collector;
        targets[s->ncollect] = rc->watch.t[i].masked;
        add_class(s, cls, rc->watch.t[i].raw,
                  cls->pools    ? COLL_POOLER
                  : cls->claims ? COLL_APP
                                : COLL_BEHIND,
                  names);
    }
}

/*
 * A line that could not be written is an error: said once on stderr, exit 1.
 * why: the first failure's errno when known (0: this flush's, if it fails).
 */
static void
check_output(FILE *f, const char *what, int why)
{
    int flushed;

    errno = 0;
    if (f == NULL || ((flushed = fflush(f)) == 0 && !ferror(f)))
        return;
    if (why == 0 && flushed != 0)
        why = errno;
    fprintf(stderr, "benchtop: cannot write to %s: %s (lines were lost)\n", what,
            why ? strerror(why) : "write error");
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

/* A target given to an option: its driver (a user error if none) and its masked form. */
static const struct driver_class *
option_target(char *target, const char *option, char **masked)
{
    const struct driver_class *drv = driver_for_target(target);

    if (drv == NULL)
        unknown_target(option, target_mask(target));
    *masked = drv->mask(target);
    return drv;
}

/* "pgbouncer in front of postgres", from the registry, for the --pooler error. */
static const char *
poolers_known(char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (const struct collector_class *const *c = collector_classes; *c != NULL; c++)
        if ((*c)->pools != NULL && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s in front of %s",
                                     used ? ", " : "", (*c)->name, (*c)->pools);
    return used ? buf : "this build has no pooler";
}

void
cmd_add_pooler(struct session *s, struct runconf *rc, int vet, const char **names,
               const char **targets)
{
    const struct collector_class *pool = pooler_for(rc->tgt.driver->name);
    const char *at = rc->pooler_target, *masked = rc->tgt.masked;
    char *m = NULL, err[BT_ERRLEN];

    if (at != NULL && strcmp(at, "none") == 0)
        return;
    if (at != NULL) {
        if (option_target(rc->pooler_target, "pooler", &m) != rc->tgt.driver || pool == NULL)
            usage_fatal("--pooler %s: no pooler of %s targets is known (%s)", m,
                        rc->tgt.driver->name, poolers_known(err, sizeof err));
        masked = m;
    } else if (pool != NULL && pool->detect != NULL && pool->detect(rc->tgt.raw)) {
        at = rc->tgt.raw;
    } else {
        return;
    }
    if (vet && pool->vet != NULL && pool->vet(at, rc, err) < 0)
        usage_fatal("%s", err);
    if (s != NULL) {
        targets[s->ncollect] = masked;
        add_class(s, pool, at, COLL_POOLER, names);
    }
}

void
cmd_add_server(struct session *s, struct runconf *rc, const char **names, const char **targets)
{
    char *masked;

    if (rc->server_target == NULL) {
        cmd_add_collector(s, rc->tgt.driver, rc->tgt.raw, names);
        targets[0] = rc->tgt.masked;
        return;
    }
    if (option_target(rc->server_target, "server", &masked) != rc->tgt.driver)
        usage_fatal("--server %s is not a %s target like %s (name the server behind the pooler)",
                    masked, rc->tgt.driver->name, rc->tgt.masked);
    cmd_add_collector(s, rc->tgt.driver, rc->server_target, names);
    targets[0] = masked;
}

void
cmd_front_end(struct session *s, int sigfd, struct report_ctx *ctx, const char **names,
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
    check_output(ctx->json, ctx->json == stdout ? "standard output" : s->rc->record,
                 ctx->json_errno);
    check_output(ctx->human, "standard error", 0);
}

int
cmd_looks_like_target(const char *word)
{
    return strstr(word, "://") != NULL || strchr(word, '=') != NULL || word[0] == '/';
}
