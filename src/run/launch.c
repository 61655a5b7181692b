/*
 * launch: the run wiring in one place: target -> driver -> collectors ->
 * session -> output (see launch.h). The commands (cmd/) only read their
 * arguments, call these and pick the front end.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/progress.h"
#include "base/util.h"
#include "engine/collect.h"
#include "engine/driver.h"
#include "engine/engine.h"
#include "engine/mix.h"
#include "engine/registry.h"
#include "instance.h"
#include "options.h"
#include "target.h"

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
 * An option's target (--pooler, --server), parsed once into t: a user
 * error if no driver knows it; in argv, masked in place so that `ps`
 * shows no password. *opt then points to t's copy. "none" is a word of
 * --pooler's, not a target.
 */
static void
parse_option_target(char **opt, struct target *t, const char *option, int in_argv)
{
    char err[BT_ERRLEN];

    if (*opt == NULL || t->raw != NULL)
        return; /* t->raw: watch resolves a target per argument, the options once */
    if (strcmp(option, "pooler") == 0 && strcmp(*opt, "none") == 0)
        return;
    if (target_parse(t, *opt, err) < 0 && t->driver == NULL)
        unknown_target(option, t->masked);
    if (err[0] != '\0')
        usage_fatal("--%s: %s", option, err);
    if (in_argv)
        target_scrub_arg(*opt, t->masked);
    *opt = t->raw;
}

void
launch_server_target(struct runconf *rc, const char *target)
{
    char *copy = xstrdup(target);

    target_free(&rc->server_tgt);
    rc->server_target = copy;
    parse_option_target(&rc->server_target, &rc->server_tgt, "server", 0);
    free(copy);
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
    char err[BT_ERRLEN];
    int i;

    for (i = 0; i < l->n && !l->hidden; i++) {
        t = &l->t[i];
        if (target_parse(t, l->v[i], err) < 0 && err[0] != '\0')
            usage_fatal("--watch: %s", err);
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

void
launch_watch_target(struct runconf *rc, const char *target)
{
    struct target *t;
    char err[BT_ERRLEN];

    if (rc->watch.n == RC_MAX_WATCH)
        usage_fatal("--watch is given too often to add %s (watch fewer targets)",
                    target_mask(target));
    t = &rc->watch.t[rc->watch.n];
    if (target_parse(t, target, err) < 0 && err[0] != '\0')
        usage_fatal("--watch: %s", err);
    if (t->collector == NULL)
        usage_fatal("--watch %s: nothing reads it", t->masked ? t->masked : "***");
    rc->watch.v[rc->watch.n++] = t->raw;
}

const struct driver_class *
launch_target(struct runconf *rc, char *target, int in_argv)
{
    const struct driver_class *drv;
    char err[BT_ERRLEN];

    /* not freed before: watch resolves a target per argument, and keeps each (cmd/watch.c) */
    if (target_parse(&rc->tgt, target, err) < 0 && rc->tgt.driver == NULL)
        unknown_target(NULL, rc->tgt.masked);
    if (err[0] != '\0')
        usage_fatal("%s", err);
    drv = rc->tgt.driver;
    err_kinds_use(drv->err_kinds);
    rc->driver_conf = options_driver_conf(rc, drv);
    rc->pipeline = drv->pipeline_depth ? drv->pipeline_depth(rc->driver_conf) : 1;
    if (in_argv)
        target_scrub_arg(target, rc->tgt.masked);
    parse_option_target(&rc->pooler_target, &rc->pooler_tgt, "pooler", 1);
    parse_option_target(&rc->server_target, &rc->server_tgt, "server", 1);
    hide_watch_targets(&rc->watch);
    return drv;
}

/*
 * A closed stdout would let the first socket take descriptor 1 and receive
 * the JSON lines: it is held by /dev/null, and headless output refused.
 */
static int stdout_closed;

void
launch_hold_std_fds(void)
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
launch_open_record(const struct runconf *rc)
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

/*
 * The collectors' first samples before the load starts, FIRST_SAMPLE_MS at
 * the most: a server at its connection limit takes the first comers, and a
 * collector that came after the clients saw nothing all run (MariaDB
 * max_connections 8 at -c 24 through a 30 ms link: "unknown 96%" in 2 runs
 * of 8, none with the wait). The results
 * stay unread for the session.
 */
enum { FIRST_SAMPLE_MS = 2000 };

static void
wait_first_samples(const struct session *s)
{
    struct pollfd p[SESSION_MAX_COLLECT];
    uint64_t until = now_us() + FIRST_SAMPLE_MS * 1000u, now;
    int i, left = s->ncollect;

    for (i = 0; i < s->ncollect; i++)
        p[i] = (struct pollfd){.fd = collect_notify_fd(s->collect[i]), .events = POLLIN};
    while (left > 0 && (now = now_us()) < until) {
        if (poll(p, (nfds_t)s->ncollect, (int)((until - now) / 1000) + 1) <= 0)
            return; /* the signals are blocked (sigfd): no EINTR to retry */
        for (i = 0; i < s->ncollect; i++)
            if (p[i].fd >= 0 && (p[i].revents & POLLIN)) {
                p[i].fd = -1; /* poll passes it over from now on */
                left--;
            }
    }
}

/* Starts cls on target with its role in the verdict; a failure is fatal. */
static void
add_class(struct session *s, const struct collector_class *cls, const struct target *target,
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
    s->watch_port[s->ncollect] = target->local && target->port > 0 ? target->port : 0;
    names[s->ncollect++] = cls->name;
}

void
launch_add_collector(struct session *s, const struct driver_class *drv, const struct target *target,
                     const char **names)
{
    const struct collector_class *cls = collector_for(drv->name);

    if (cls != NULL) /* else this backend has no collector yet: client figures only */
        add_class(s, cls, target, COLL_SERVER, names);
}

/*
 * --watch: each target's collector (a database's, a pooler's, or an
 * application tier's status page), with its role in the verdict.
 */
static void
launch_add_watched(struct session *s, const struct runconf *rc, const char **names,
                   const char **targets)
{
    const struct collector_class *cls;
    int i;

    for (i = 0; i < rc->watch.n; i++) {
        cls = rc->watch.t[i].collector;
        targets[s->ncollect] = rc->watch.t[i].masked;
        add_class(s, cls, &rc->watch.t[i],
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

/* "pgbouncer in front of postgres", from the registry, for the --pooler error. */
static const char *
poolers_known(char *buf, size_t len)
{
    const struct collector_class *c;
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; (c = collector_class_at(i)) != NULL; i++)
        if (c->pools != NULL && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s in front of %s",
                                     used ? ", " : "", c->name, c->pools);
    return used ? buf : "this build has no pooler";
}

const struct collector_class *
launch_pooler(const struct runconf *rc, const struct target **at, const char **masked)
{
    const struct collector_class *pool = pooler_for(rc->tgt.driver->name);
    char err[BT_ERRLEN];

    *at = NULL;
    *masked = rc->tgt.masked;
    if (rc->pooler_target != NULL && strcmp(rc->pooler_target, "none") == 0)
        return NULL;
    if (rc->pooler_target != NULL) {
        if (rc->pooler_tgt.driver != rc->tgt.driver || pool == NULL)
            usage_fatal("--pooler %s: no pooler of %s targets is known (%s)", rc->pooler_tgt.masked,
                        rc->tgt.driver->name, poolers_known(err, sizeof err));
        *at = &rc->pooler_tgt;
        *masked = rc->pooler_tgt.masked;
        return pool;
    }
    if (pool != NULL && pool->detect != NULL && pool->detect(rc->tgt.raw)) {
        *at = &rc->tgt;
        return pool;
    }
    return NULL;
}

void
launch_add_pooler(struct session *s, struct runconf *rc, int vet, const char **names,
                  const char **targets)
{
    const struct target *at;
    const char *masked;
    const struct collector_class *pool = launch_pooler(rc, &at, &masked);
    char err[BT_ERRLEN];

    if (pool == NULL)
        return;
    if (vet && pool->vet != NULL && pool->vet(at->raw, rc, err) < 0)
        usage_fatal("%s", err);
    if (s != NULL) {
        targets[s->ncollect] = masked;
        add_class(s, pool, at, COLL_POOLER, names);
    }
}

/*
 * The collectors of a run: the server's (on --server when the target is a
 * pooler, else on the target) first, then a pooler's (--pooler, or found
 * at the target's port). With vet, a load the pooler cannot carry ends
 * here with exit 2, so call it before the load starts; with s NULL it
 * only vets (--no-collect).
 */
static void
launch_add_server(struct session *s, struct runconf *rc, const char **names, const char **targets)
{
    const struct target *t = &rc->server_tgt;

    if (rc->server_target == NULL) {
        launch_add_collector(s, rc->tgt.driver, &rc->tgt, names);
        targets[0] = rc->tgt.masked;
        return;
    }
    if (t->driver != rc->tgt.driver)
        usage_fatal("--server %s is not a %s target like %s (name the server behind the pooler)",
                    t->masked, rc->tgt.driver->name, rc->tgt.masked);
    launch_add_collector(s, rc->tgt.driver, t, names);
    targets[0] = t->masked;
}

void
launch_finish(struct session *s, struct report_ctx *ctx, const char **targets)
{
    int i;

    for (i = 0; i < s->ncollect; i++)
        if (s->eng == NULL)
            check_watched(s->collect[i], targets[i]);
    for (i = 0; i < s->ncollect; i++)
        collect_stop(s->collect[i]);
    check_output(ctx->json,
                 ctx->json == stdout ? "standard output"
                 : s->rc->record     ? s->rc->record
                 : s->rc->try_output ? s->rc->try_output /* try -o: the rounds' lines */
                                     : "the output file",
                 ctx->json_errno);
    check_output(ctx->human, "standard error", 0);
}

unsigned long long
launch_fd_limit_up(unsigned long long need)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur >= need)
        return rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
    return setrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 0;
}

/*
 * Each client holds a socket: raise the soft descriptor limit as far as the
 * hard one allows, or say how to before anything starts.
 */
void
launch_raise_fd_limit(int clients)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)clients + 64; /* collectors, eventfds, stdio, libraries */

    launch_fd_limit_up(need);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need)
        usage_fatal("-c %d needs about %llu open files but the limit is %llu (raise it with "
                    "ulimit -n, or use fewer clients)",
                    clients, (unsigned long long)need, (unsigned long long)rl.rlim_cur);
}

/* The mix prepare accepted, as "select-only@9,simple-update@1" or one name. */
static const char *
workload_label(const struct runconf *rc, char *buf, size_t len)
{
    struct mix m;
    char err[BT_ERRLEN];

    if (mix_parse(&m, rc, rc->tgt.driver->name, rc->tgt.driver->workloads, err) < 0)
        return rc->tgt.driver->workloads[0]; /* the driver reads its choices another way */
    mix_label(&m, buf, len);
    mix_free(&m);
    return buf;
}

/* As pgbench: 2 when transactions failed (after their retries) or the server stopped answering. */
static int
run_status(const struct snapshot *snap)
{
    return wstats_errors(&snap->total) > 0 || snap->outage_s > 0 ? 2 : 0;
}

int
launch_load(struct runconf *rc, struct sweep *sweep, struct launch_round *round,
            launch_front_fn front)
{
    const struct driver_class *drv = rc->tgt.driver;
    char err[BT_ERRLEN];
    void *shared;
    struct report_ctx ctx = {.rc = rc, .sweep = sweep, .print_options = options_print_json};
    struct session s = {.rc = rc, .interval_s = rc->interval_s, .input_fd = -1, .sweep = sweep};
    const char *names[SESSION_MAX_COLLECT], *targets[SESSION_MAX_COLLECT];
    char label[1024];
    struct drv_tls tls = {0};
    int sigfd, status;

    if (rc->per_stmt && drv->stmt_labels == NULL)
        usage_fatal("-r is not supported for %s: it has no statements to count (drop -r)",
                    drv->name);
    shared = drv->prepare(rc, rc->driver_conf, err);
    /* a signal that cut prepare short ends a try's round: try puts the server back */
    if (shared == NULL && round != NULL && (round->signo = progress_interrupted()) != 0)
        return 1;
    if (shared == NULL)
        usage_fatal("%s", err);
    if (rc->per_stmt)
        drv->stmt_labels(shared, &ctx.stmt_labels);
    if (drv->tls != NULL) {
        drv->tls(shared, &tls);
        ctx.tls = &tls;
    }
    if (drv->server_ports != NULL)
        s.nserver_ports = drv->server_ports(shared, s.server_ports, 16);
    if (drv->target_note != NULL && drv->target_note(shared) != NULL &&
        drv->target_note(shared)[0] != '\0')
        ctx.target_note = drv->target_note(shared);
    launch_raise_fd_limit(rc->clients);
    ctx.workload = workload_label(rc, label, sizeof label);
    ctx.mode = rc->mode ? rc->mode : drv->modes[0];
    ctx.json = round ? round->json : launch_open_record(rc);
    ctx.human = rc->quiet || round ? NULL : stderr;
    sigfd = session_block_signals(); /* before any thread: they all inherit the mask */
    if (rc->start_at > 0 && ctx.json != NULL && round == NULL) /* watch --records counts it */
        report_ready(ctx.json, rc);
    if (sigfd < 0 || instance_wait(rc, sigfd) < 0) {
        drv->release(shared);
        return 1; /* interrupted before --start-at: nothing ran */
    }
    targets[0] = rc->tgt.masked;
    if (!rc->no_collect) /* first: a pooler may refuse the load */
        launch_add_server(&s, rc, names, targets);
    launch_add_pooler(rc->no_collect ? NULL : &s, rc, 1, names, targets);
    if (!rc->no_collect)
        launch_add_watched(&s, rc, names, targets);
    /* the dashboard's client-bound experiment spreads the clients over one more thread */
    rc->spare_threads = !rc->headless && round == NULL && sweep == NULL;
    wait_first_samples(&s);
    s.eng = engine_start(rc, shared, err);
    if (s.eng == NULL)
        usage_fatal("%s", err);
    front(&s, sigfd, &ctx, names, targets);
    launch_finish(&s, &ctx, targets);
    status = run_status(&s.eng->snap);
    if (round != NULL)
        round->signo = s.signo;
    engine_free(s.eng);
    drv->release(shared);
    close(sigfd); /* try runs a load per round */
    if (round == NULL && ctx.json != NULL && ctx.json != stdout)
        fclose(ctx.json);
    return status;
}
