/* run: `benchtop [run] TARGET`: put load on TARGET and report. */
#include "cmd.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/progress.h"
#include "engine/driver.h"
#include "engine/engine.h"
#include "run/instance.h"
#include "engine/mix.h"
#include "run/options.h"
#include "run/target.h"
#include "engine/registry.h"
#include "base/util.h"

unsigned long long
cmd_fd_limit_up(unsigned long long need)
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
cmd_raise_fd_limit(int clients)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)clients + 64; /* collectors, eventfds, stdio, libraries */

    cmd_fd_limit_up(need);
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
cmd_run_load(struct runconf *rc, struct sweep *sweep)
{
    return cmd_run_round(rc, sweep, NULL);
}

int
cmd_run_round(struct runconf *rc, struct sweep *sweep, struct cmd_round *round)
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
    cmd_raise_fd_limit(rc->clients);
    ctx.workload = workload_label(rc, label, sizeof label);
    ctx.mode = rc->mode ? rc->mode : drv->modes[0];
    ctx.json = round ? round->json : cmd_open_record(rc);
    ctx.human = rc->quiet || round ? NULL : stderr;
    sigfd = session_block_signals(); /* before any thread: they all inherit the mask */
    if (sigfd < 0 || instance_wait(rc, sigfd) < 0) {
        drv->release(shared);
        return 1; /* interrupted before --start-at: nothing ran */
    }
    targets[0] = rc->tgt.masked;
    if (!rc->no_collect) /* first: a pooler may refuse the load */
        cmd_add_server(&s, rc, names, targets);
    cmd_add_pooler(rc->no_collect ? NULL : &s, rc, 1, names, targets);
    if (!rc->no_collect)
        cmd_add_watched(&s, rc, names, targets);
    s.eng = engine_start(rc, shared, err);
    if (s.eng == NULL)
        usage_fatal("%s", err);
    cmd_front_end(&s, sigfd, &ctx, names, targets);
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

static int
cmd_run_exec(struct runconf *rc, char **pos, int npos)
{
    char schemes[256];

    target_known_schemes(schemes, sizeof schemes);
    if (npos == 0)
        usage_fatal("no target given (start it with %s)", schemes);
    if (npos > 1)
        usage_fatal("unexpected argument '%s' (give one target; options start with -)", pos[1]);
    cmd_resolve_target(rc, pos[0], 1);
    cmd_check_run_options(rc, 10);
    instance_configure(rc);
    return cmd_run_load(rc, NULL);
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_run_entry = {"run", CMD_RUN, cmd_run_exec,
                                        "benchtop [run] TARGET [OPTIONS]",
                                        "put load on TARGET and report throughput and latency"};
