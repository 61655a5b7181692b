/*
 * progress: "doing X... N of M (P%)" on stderr for long blocking steps
 * (init, --fill), at most once a second; in place on a terminal, a line per
 * new tenth in a log.
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

#endif
