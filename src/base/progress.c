/* progress: see progress.h. */
#include "progress.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "util.h"

void
progress_start(struct progress *p, const char *what, int64_t total, int quiet)
{
    p->what = what;
    p->total = total > 0 ? total : 1;
    p->tty = isatty(STDERR_FILENO);
    p->quiet = quiet;
    p->last_tenth = -1;
    p->last_us = p->start_us = now_us();
}

void
progress_line(char *buf, size_t len, const struct progress *p, int64_t done, uint64_t now)
{
    double secs = (double)(now - p->start_us) / 1e6, rate = secs > 0 ? (double)done / secs : 0;
    int n = snprintf(buf, len, "%s... %lld of %lld (%d%%)", p->what, (long long)done,
                     (long long)p->total, (int)(done * 100 / p->total));

    /* at the end, the step's time says it (rows sent are not yet rows stored) */
    if (rate <= 0 || done >= p->total || n < 0 || (size_t)n >= len)
        return;
    /* "about": the rate so far may not last */
    snprintf(buf + n, len - (size_t)n, ", %.0f/s, about %.0f s left", rate,
             ceil((double)(p->total - done) / rate));
}

void
progress_tick(int quiet, const char *what, int seconds)
{
    int tty = isatty(STDERR_FILENO);

    if (quiet || seconds < 1 || (!tty && seconds % 5 != 0))
        return;
    fprintf(stderr, "%s... %d s%c", what, seconds, tty ? '\r' : '\n');
}

void
progress_show(struct progress *p, int64_t done)
{
    uint64_t now = now_us();
    int64_t tenth = done * 10 / p->total;
    int end = done >= p->total;

    if (p->quiet)
        return;
    if (!end && (now - p->last_us < 1000000u || (!p->tty && tenth <= p->last_tenth)))
        return;
    char line[256];

    progress_line(line, sizeof line, p, done, now);
    fprintf(stderr, "%s%c", line, p->tty && !end ? '\r' : '\n');
    p->last_us = now;
    p->last_tenth = tenth;
}

void
progress_say(int quiet, const char *fmt, ...)
{
    va_list ap;

    if (quiet)
        return;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void
progress_done(int quiet, uint64_t total_us, const struct progress_step *steps, int nsteps)
{
    int i;

    if (quiet)
        return;
    fprintf(stderr, "done in %.2f s (", (double)total_us / 1e6);
    for (i = 0; i < nsteps; i++)
        fprintf(stderr, "%s%s %.2f s", i ? ", " : "", steps[i].name, (double)steps[i].us / 1e6);
    fprintf(stderr, ")\n");
}

int
progress_interrupted(void)
{
    sigset_t pending;

    sigpending(&pending);
    return sigismember(&pending, SIGINT)    ? SIGINT
           : sigismember(&pending, SIGTERM) ? SIGTERM
           : sigismember(&pending, SIGHUP)  ? SIGHUP
                                            : 0;
}
