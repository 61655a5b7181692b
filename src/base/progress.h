/*
 * progress: what a long blocking job (init, --fill) tells on stderr: its
 * steps ("creating tables..."), "doing X... N of M (P%)" at most once a
 * second (in place on a terminal, a line per new tenth in a log), and the
 * time each step took at the end. Nothing with -q.
 */
#ifndef BENCHTOP_PROGRESS_H
#define BENCHTOP_PROGRESS_H

#include <stdint.h>

struct progress {
    const char *what; /* "generating data (COPY)" */
    int64_t total;
    int tty;   /* stderr is a terminal */
    int quiet; /* -q: print nothing */
    int64_t last_tenth;
    uint64_t last_us;
};

void progress_start(struct progress *p, const char *what, int64_t total, int quiet);
/* Shows done of total when a second passed (or a tenth, in a log), and always at the end. */
void progress_show(struct progress *p, int64_t done);

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
 * Whether SIGINT, SIGTERM or SIGHUP is pending. A job that must clean up after
 * itself blocks them and looks here between statements.
 */
int progress_interrupted(void);

#endif
