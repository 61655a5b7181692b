/* run-output: a run's lines, a sweep's among them (see run-output.h). */
#include "run-output.h"

#include "sweep-output.h"

void
report_human_summary(FILE *f, const struct snapshot *snap, const struct verdict *v,
                     const struct report_ctx *ctx)
{
    if (ctx->sweep != NULL)
        report_sweep_table(f, ctx->sweep, ctx);
    else
        report_run_summary(f, snap, v, ctx);
}

void
report_snapshot(const struct snapshot *snap, const struct verdict *v, void *arg)
{
    struct report_ctx *ctx = arg;

    report_interval_lines(snap, v, ctx);
    for (; ctx->sweep && ctx->steps_reported < ctx->sweep->nsteps; ctx->steps_reported++) {
        if (ctx->json)
            report_step_json(ctx->json, ctx->sweep, &ctx->sweep->steps[ctx->steps_reported]);
        if (ctx->human)
            sweep_progress_line(ctx->human, ctx->sweep, &ctx->sweep->steps[ctx->steps_reported]);
    }
    if (!snap->final)
        return;
    report_summary_json(snap, v, ctx);
    if (ctx->json && ctx->sweep)
        report_sweep_json(ctx->json, ctx->sweep);
    if (ctx->human)
        report_human_summary(ctx->human, snap, v, ctx);
}
