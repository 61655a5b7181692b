/*
 * watch: `benchtop watch TARGET...`: the dashboard with no load; with
 * --records PATTERN, a fleet's growing records (src/records/follow.h) as its load.
 */
#include "cmd.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/driver.h"
#include "run/options.h"
#include "base/util.h"

static int
cmd_watch_exec(struct runconf *rc, char **pos, int npos)
{
    struct session s = {.rc = rc, .interval_s = rc->interval_s, .input_fd = -1};
    struct report_ctx ctx = {
        .rc = rc, .workload = "watch", .mode = "", .print_options = options_print_json};
    const char *names[SESSION_MAX_COLLECT], *targets[SESSION_MAX_COLLECT];
    char joined[1024] = "", err[BT_ERRLEN];
    int i, sigfd;

    if (npos == 0 && rc->records_glob == NULL)
        usage_fatal("watch needs at least one target (e.g. benchtop watch SCHEME://HOST/...) or "
                    "--records 'DIR/*.jsonl'");
    if (npos > RC_MAX_WATCH) /* a pooler may join them */
        usage_fatal("at most %d targets can be watched at once", RC_MAX_WATCH);
    if (rc->stat) /* a human line per interval: no dashboard, no JSON */
        rc->headless = 1;
    cmd_choose_front_end(rc);
    ctx.json = rc->stat ? NULL : launch_open_record(rc);
    sigfd = session_block_signals();
    for (i = 0; i < npos; i++) {
        const struct driver_class *drv = launch_target(rc, pos[i], 1);
        struct target *kept = xmalloc(sizeof *kept);

        *kept =
            rc->tgt; /* its collector's for the run: the next target_parse starts rc->tgt anew */
        targets[s.ncollect] = rc->tgt.masked;
        launch_add_collector(&s, drv, kept, names);
        if (s.ncollect != i + 1)
            usage_fatal("%s targets cannot be watched yet (no collector for %s)", drv->name,
                        drv->name);
        snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s", i ? ", " : "",
                 rc->tgt.masked);
    }
    if (rc->pooler_target != NULL) /* watched beside the first target's server */
        launch_add_pooler(&s, rc, 0, names, targets);
    rc->tgt.masked = xstrdup(joined);
    if (rc->records_glob != NULL) /* a record is a descriptor: a fleet of 300 needs them */
        launch_fd_limit_up(FOLLOW_FD_NEED);
    if (rc->records_glob != NULL && (s.follow = follow_open(rc->records_glob, err)) == NULL)
        usage_fatal("%s", err);
    if (rc->records_glob != NULL && npos == 0)
        rc->tgt.masked = xstrdup(rc->records_glob);
    if (options_given(rc, "time"))
        s.until_us = now_us() + (uint64_t)(rc->duration_s * 1e6);
    cmd_front_end(&s, sigfd, &ctx, names, targets);
    launch_finish(&s, &ctx, targets);
    follow_close(s.follow);
    if (ctx.json != NULL && ctx.json != stdout)
        fclose(ctx.json);
    return 0;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_watch_entry = {
    "watch", CMD_WATCH, cmd_watch_exec,
    "benchtop watch TARGET... [--records 'DIR/*.jsonl'] [OPTIONS]",
    "the dashboard with no load: watch servers under someone else's load"};
