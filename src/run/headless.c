/* headless: the session hooks that print (see headless.h). */
#include "headless.h"

/* Output nobody can read is no reason to keep loading a server: the session ends. */
static void
check_written(struct session *s, const struct headless_conf *conf)
{
    if ((conf->report->json && ferror(conf->report->json)) ||
        (conf->report->human && ferror(conf->report->human)))
        s->quit = 1;
}

static void
on_tick(struct session *s, const struct snapshot *snap, const struct verdict *v, void *arg)
{
    struct headless_conf *conf = arg;

    report_snapshot(snap, v, conf->report);
    check_written(s, conf);
}

static void
on_server(struct session *s, int i, const struct collect_result *res, const struct verdict *v,
          void *arg)
{
    struct headless_conf *conf = arg;

    if (conf->report->json) {
        report_server(conf->report->json, res->t, conf->names[i], conf->targets[i], res, v);
        report_settings_events(conf->report->json, conf->names[i], res, &conf->seen[i]);
    }
    check_written(s, conf);
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
    s->hooks = (struct session_hooks){
        .on_tick = on_tick, .on_server = on_server, .on_input = no_input, .on_idle_tick = NULL};
    s->arg = conf;
    session_run(s, sigfd);
}
