/*
 * tui without ncurses (./configure found no ncursesw or inih): on a
 * terminal, benchtop prints pgbench-like progress lines instead of the
 * dashboard. The same session runs; only the front end differs.
 */
#include "ui/tui.h"

#include "run/headless.h"

int
tui_check_theme(const char *theme, char *err)
{
    return 0; /* themes need inih, which this build lacks */
}

int
tui_run(struct session *s, int sigfd, const struct tui_conf *conf, char *err)
{
    struct report_ctx progress = *conf->report;
    struct headless_conf hc = {.report = &progress};
    int i;

    progress.json = conf->report->json; /* --record still records */
    for (i = 0; i < s->ncollect; i++) {
        hc.names[i] = conf->names[i];
        hc.targets[i] = conf->targets[i];
    }
    if (s->eng != NULL && progress.human == NULL)
        progress.human = stderr;
    headless_run(s, sigfd, &hc);
    return 0;
}
