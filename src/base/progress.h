/*
 * progress: what a long blocking job (init, --fill) tells on stderr: its
 * steps ("creating tables..."), "doing X... N of M (P%)" at most once a
 * second (in place on a terminal, a line per new tenth in a log), and the
 * time each step took at the end. Nothing with -q.
 */
#ifndef BENCHTOP_PROGRESS_H
#define BENCHTOP_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct progress {
    const char *what; /* "generating data (COPY)" */
    int64_t total;
    int tty;   /* stderr is a terminal */
    int quiet; /* -q: print nothing */
    int64_t last_tenth;
    uint64_t last_us;
    uint64_t start_us; /* progress_start: the rate and the time left count from here */
};

void progress_start(struct progress *p, const char *what, int64_t total, int quiet);
/* Shows done of total when a second passed (or a tenth, in a log), and always at the end. */
void progress_show(struct progress *p, int64_t done);

/* "what... done of total (P%), R/s, about S s left" for a time now_us, without a newline. */
void progress_line(char *buf, size_t len, const struct progress *p, int64_t done, uint64_t now_us);
/*
 * A step that is one long statement (an index build): "what... N s" after
 * each second it ran (in place on a terminal, every 5 s in a log), so a
 * long build is not silence.
 */
void progress_tick(int quiet, const char *what, int seconds);

/* A step's line on stderr, unless quiet. */
void progress_say(int quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One timed step of a job, for progress_done. */
struct progress_step {
    const char *name; /* "drop" */
    uint64_t us;
};
/* "done in 1.25 s (drop 0.00 s, create 0.02 s, ...)" on stderr, unless quiet. */
void progress_done(int quiet, uint64_t total_us, const struct progress_step *steps, int nsteps);

/*
 * Whether SIGINT, SIGTERM or SIGHUP is pending (that signal's number, else
 * 0). A job that must clean up after itself blocks them and looks here
 * between statements.
 */
int progress_interrupted(void);

#endif
