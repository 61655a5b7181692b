/* headless: the session hooks that print (see headless.h). */
#include "headless.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "records/run-output.h"

/* Output nobody can read is no reason to keep loading a server: the session ends. */
static void
check_written(struct session *s, const struct headless_conf *conf)
{
    int e = errno; /* the failed write's: the line writers flush */

    if (conf->report->json && ferror(conf->report->json) && conf->report->json_errno == 0)
        conf->report->json_errno = e;
    if ((conf->report->json && ferror(conf->report->json)) ||
        (conf->report->human && ferror(conf->report->human)))
        s->quit = 1;
}

/* "step 4/6: 8 clients, 4102.3 tps, p95 1.210 ms, about 40 s left", or a --find-rate probe. */
static void
step_progress(FILE *f, const struct sweep *sw, const struct sweep_step *st)
{
    int left = sw->find_rate ? 0 : sw->list.n - sw->nsteps;
    char tail[48] = "";

    if (left > 0)
        snprintf(tail, sizeof tail, ", about %.0f s left", left * (sw->warmup_s + sw->step_s));
    if (sw->find_rate)
        fprintf(f, "probe %d (at most %d): %.1f tps asked, %.1f tps, p%g %.3f ms, %s\n",
                st->index + 1, SWEEP_MAX_PROBES, st->rate, st->tps, sw->slo.pct,
                st->slo_value_us / 1000.0, st->slo_met ? "met" : "missed");
    else
        fprintf(f, "step %d/%d: %.0f %s, %.1f tps, p95 %.3f ms, %llu failed%s\n", st->index + 1,
                sw->list.n, sweep_step_x(st, sw->axis),
                sw->axis == SWEEP_CLIENTS ? (st->clients == 1 ? "client" : "clients") : "tps asked",
                st->tps, (double)st->lat.p95 / 1000.0, (unsigned long long)sweep_step_errors(st),
                tail);
    fflush(f);
}

static void
on_tick(struct session *s, const struct snapshot *snap, const struct verdict *v, void *arg)
{
    struct headless_conf *conf = arg;

    for (; s->sweep && conf->report->human && conf->steps_told < s->sweep->nsteps;
         conf->steps_told++)
        step_progress(conf->report->human, s->sweep, &s->sweep->steps[conf->steps_told]);
    report_snapshot(snap, v, conf->report);
    check_written(s, conf);
}

/* A figure in w columns, "-" when the server does not say. */
static void
stat_col(char *buf, size_t len, int w, double v, double scale, int decimals)
{
    size_t n = strlen(buf);

    if (isnan(v))
        snprintf(buf + n, len - n, " %*s", w, "-");
    else
        snprintf(buf + n, len - n, " %*.*f", w, decimals, v * scale);
}

void
headless_stat_header(char *buf, size_t len)
{
    snprintf(buf, len, "%-10s %9s %6s %6s %5s %5s %6s %9s %9s %8s", "server", "tps", "conns",
             "active", "lock", "cpu%", "hit%", "keys", "mem_MB", "evict/s");
}

void
headless_stat_line(const char *name, const struct coll_view *v, char *buf, size_t len)
{
    const struct coll_signals *g = &v->sig;

    snprintf(buf, len, "%-10.10s", name);
    stat_col(buf, len, 9, v->server_tps, 1, 1);
    stat_col(buf, len, 6, g->sessions, 1, 0);
    stat_col(buf, len, 6, g->active, 1, 1);
    stat_col(buf, len, 5, g->lock_wait, 1, 1);
    stat_col(buf, len, 5, isnan(g->server_cpu_pct) ? g->server_cpu_self_pct : g->server_cpu_pct, 1,
             0);
    stat_col(buf, len, 6, g->hit_ratio, 100, 1);
    stat_col(buf, len, 9, g->keys, 1, 0);
    stat_col(buf, len, 9, g->mem_used, 1.0 / (1 << 20), 1);
    stat_col(buf, len, 8, g->evictions_s, 1, 1);
}

/* watch --stat: a line per sample, the header first and every STAT_HEADER_EVERY lines. */
static void
print_stat(struct headless_conf *conf, int i, const struct collect_result *res)
{
    char line[200];

    if (conf->stat_lines++ % STAT_HEADER_EVERY == 0) {
        headless_stat_header(line, sizeof line);
        printf("%s\n", line);
    }
    if (!res->have_view) {
        printf("%-10.10s %s\n", conf->names[i], res->ok ? "first sample: rates next" : "down");
        fflush(stdout);
        return;
    }
    headless_stat_line(conf->names[i], &res->view, line, sizeof line);
    printf("%s\n", line);
    fflush(stdout);
}

static void
on_server(struct session *s, int i, const struct collect_result *res, const struct verdict *v,
          void *arg)
{
    struct headless_conf *conf = arg;

    if (s->rc->stat)
        print_stat(conf, i, res);
    if (conf->report->json) {
        report_server(conf->report->json, res->t, conf->names[i], conf->targets[i], res, v,
                      s->rc->record_queries);
        report_settings_events(conf->report->json, conf->names[i], res, &conf->seen[i]);
    }
    check_written(s, conf);
}

/* watch --records: the agents' server samples in the output, as merge keeps them. */
static void
on_record_server(struct session *s, int i, const struct follow_server *fs, void *arg)
{
    struct headless_conf *conf = arg;

    if (conf->report->json)
        report_server(conf->report->json, fs->res.t, fs->name, fs->target, &fs->res, NULL,
                      s->rc->record_queries);
    check_written(s, conf);
}

/* watch --records: a line a second until the fleet starts; at its end a last one, and exit. */
static void
on_follow(struct session *s, const struct follow_state *st, void *arg)
{
    char text[160];

    follow_status_text(st, wall_now(), text, sizeof text);
    if (text[0] != '\0' && !s->rc->quiet) {
        fprintf(stderr, "watch: %s\n", text);
        fflush(stderr);
    }
    if (st->done)
        s->quit = 1;
}

static int
no_input(struct session *s, void *arg)
{
    return 0;
}

void
headless_run(struct session *s, int sigfd, struct headless_conf *conf)
{
    s->input_fd = -1;
    s->stay_after_load = 0;
    s->hooks = (struct session_hooks){.on_tick = on_tick,
                                      .on_server = on_server,
                                      .on_input = no_input,
                                      .on_idle_tick = NULL,
                                      .on_record_server = on_record_server,
                                      .on_follow = on_follow};
    s->arg = conf;
    /* watch's JSON carries the top statements: a query per sample, worth it without a load */
    for (int i = 0; s->eng == NULL && conf->report->json && i < s->ncollect; i++)
        collect_want_statements(s->collect[i], 1);
    session_run(s, sigfd);
}
