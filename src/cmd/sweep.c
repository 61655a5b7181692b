/*
 * sweep: `benchtop sweep`. Checks the combination of options, builds
 * the plan (src/analysis/sweep.h) and runs it as one load whose clients or rate the
 * session changes between steps, on the connections already open.
 */
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "run/options.h"
#include "analysis/sweep.h"
#include "base/util.h"

/* One thing is swept, and the options around it fit. */
static void
check_combination(const struct runconf *rc)
{
    int what = (rc->sweep_clients != NULL) + (rc->sweep_rates != NULL) + rc->find_rate +
               (rc->sweep_set_values != NULL);

    if (what == 0)
        usage_fatal("sweep needs what to step through: --clients LIST, --rates LIST, "
                    "--set-values NAME=V1,V2,... or --find-rate --slo 'p99<5ms'");
    if (what > 1)
        usage_fatal("give one of --clients, --rates, --set-values and --find-rate (a sweep "
                    "varies one thing)");
    if (rc->find_rate && rc->slo == NULL)
        usage_fatal("--find-rate needs a latency target, e.g. --slo 'p99<5ms'");
    if (!rc->find_rate && rc->slo != NULL)
        usage_fatal("--slo is the target of --find-rate (add --find-rate, or drop --slo)");
    /* -c keeps its default 1 when only --clients LIST was given */
    if (rc->sweep_clients != NULL && rc->clients != 1)
        usage_fatal("-c and --clients LIST cannot be used together (the list gives the clients)");
    if (rc->sweep_clients != NULL && rc->rate > 0)
        usage_fatal("a clients sweep runs closed loop: drop -R, or sweep rates with --rates LIST "
                    "at a fixed -c");
    if (rc->sweep_rates != NULL && rc->rate > 0)
        usage_fatal("-R and --rates cannot be used together (the list gives the rates)");
    if (rc->step_s < rc->interval_s)
        usage_fatal("--step-time %g is shorter than the interval -P %g (a step is at least one "
                    "interval: lengthen --step-time or shorten -P)",
                    rc->step_s, rc->interval_s);
}

/* The plan from the options; a bad list or target exits 2. */
static void
plan(const struct runconf *rc, struct sweep *sw)
{
    char err[BT_ERRLEN];

    sw->axis = rc->sweep_clients != NULL ? SWEEP_CLIENTS : SWEEP_RATE;
    sw->find_rate = rc->find_rate;
    sw->warmup_s = rc->warmup_s;
    sw->step_s = rc->step_s;
    sw->clients = rc->clients;
    sw->rate = rc->rate;
    if (rc->sweep_clients != NULL && sweep_list_parse(rc->sweep_clients, 1, &sw->list, err) < 0)
        usage_fatal("%s", err);
    if (rc->sweep_rates != NULL && sweep_list_parse(rc->sweep_rates, 0, &sw->list, err) < 0)
        usage_fatal("%s", err);
    if (rc->find_rate && sweep_slo_parse(rc->slo, &sw->slo, err) < 0)
        usage_fatal("%s", err);
}

static int
cmd_sweep_exec(struct runconf *rc, char **pos, int npos)
{
    struct sweep *sw = xcalloc(1, sizeof(*sw));
    int most_clients, rv;

    if (npos == 0)
        usage_fatal("no target given (e.g. benchtop sweep SCHEME://HOST/... --clients 1..64)");
    if (npos > 1)
        usage_fatal("unexpected argument '%s' (give one target; options start with -)", pos[1]);
    check_combination(rc);
    if (rc->sweep_set_values != NULL) { /* a load per value (src/cmd/try.c), headless */
        free(sw);
        launch_target(rc, pos[0], 1);
        return cmd_try_sweep(rc);
    }
    plan(rc, sw);
    launch_target(rc, pos[0], 1);
    sweep_init(sw);
    most_clients = sw->axis == SWEEP_CLIENTS ? (int)sw->list.v[sw->list.n - 1] : rc->clients;
    if (rc->threads > most_clients)
        rc->threads = most_clients;
    if (sw->axis == SWEEP_CLIENTS)
        rc->clients = (int)sw->x;
    else
        rc->rate = sw->x;
    cmd_choose_front_end(rc);
    launch_raise_fd_limit(most_clients);
    rv = launch_load(rc, sw, NULL,
                     cmd_front_end); /* the session ends the load after the last step */
    sweep_free(sw);
    free(sw);
    return rv;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_sweep_entry = {
    "sweep", CMD_SWEEP, cmd_sweep_exec,
    "benchtop sweep TARGET --clients LIST|--rates LIST|--find-rate",
    "step the load up, measure each step, find the knee or the most load under --slo"};
