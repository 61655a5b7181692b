/*
 * collect: runs one collector class on its own thread and connection.
 * It samples every interval; a sample that runs past the next tick makes
 * that tick skipped and counted as late, so a slow server never piles up
 * queries. Results are published under a mutex (once per sample, never per
 * transaction) and announced on an eventfd the main loop waits on.
 *
 * With a class that reads settings, every sample is followed by a settings
 * read; a value that differs from the previous read is published as a
 * change (whoever made it). A setting the user sets (collect_apply) is set
 * on this thread too, between two samples, so the UI never waits on it.
 */
#ifndef BENCHTOP_COLLECT_H
#define BENCHTOP_COLLECT_H

#include <stdint.h>

#include "collector.h"

struct collect;

/* The latest published state of one collector. */
struct collect_result {
    int ok;           /* the last sample succeeded */
    int have_view;    /* view holds a derive of at least one sample */
    double t;         /* seconds since the collector started, at the sample */
    double cost_ms;   /* how long the last sample took */
    uint64_t samples; /* samples taken */
    uint64_t late;    /* ticks skipped because a sample overran the interval */
    double probes_s;  /* glances at the sessions per second between samples; NAN: none */
    double probe_ms;  /* ... and the mean time of one */
    char error[160];  /* why not ok */
    struct coll_view view;
    enum coll_role role; /* what its signals stand for in the run (set by the session) */

    int have_settings;        /* settings holds at least one read */
    double settings_ms;       /* how long the last settings read took */
    char settings_error[160]; /* why the last read failed; "" if it did not */
    struct coll_settings settings;
    int nchanges; /* settings changed since the previous published result */
    struct coll_change changes[COLL_MAX_CHANGES];

    uint64_t applied; /* collect_apply requests finished: grows by one per answer */
    double apply_t;   /* seconds since the collector started, when the last one was set */
    int apply_ok;     /* the last one's outcome */
    char apply_name[40], apply_value[64];
    char apply_error[160];

    int have_sessions;        /* sessions holds a list read before the last sample */
    char sessions_error[160]; /* why the last list could not be read; "" */
    struct coll_sessions sessions;
    int have_statements;        /* statements holds a read from before the last sample */
    char statements_error[160]; /* why the last read failed; "" */
    struct coll_statements statements;
    uint64_t killed; /* collect_kill requests finished: grows by one per answer */
    int kill_ok;     /* the last one's outcome */
    int kill_terminate;
    char kill_id[24];
    char kill_error[160];
};

/*
 * Starts the thread; the first sample is taken at once. target (parsed
 * once, see collector_class.open) must outlive the collect. NULL and err
 * on failure.
 */
struct collect *collect_start(const struct collector_class *cls, const struct target *target,
                              double interval_s, char *err);
/* Readable when a new result was published. */
int collect_notify_fd(const struct collect *c);
/* Copies the latest result and drains the notification. */
void collect_read(struct collect *c, struct collect_result *out);
/*
 * 1 when the sample in progress has run for two intervals (at least 2 s):
 * out is then the latest result marked failed ("no answer for N s"), with
 * the current t and no view, for the front end to show the server as stuck.
 */
int collect_overdue(struct collect *c, struct collect_result *out);
/* Takes effect from the next sample. */
void collect_set_interval(struct collect *c, double interval_s);
/*
 * From the next sample on, samples are taken at phase_us + k * interval:
 * the engine's ticks, so a server figure measures the same interval as the
 * client's beside it, not one that ended up to an interval earlier.
 */
void collect_align(struct collect *c, uint64_t phase_us);
/*
 * Asks the collector thread to set name = value on the server (the class's
 * apply_setting) before its next sample, then to read the settings again.
 * The answer comes as a result whose `applied` grew. -1 with err when the
 * class cannot set settings or a request is still pending.
 */
int collect_apply(struct collect *c, const char *name, const char *value, char *err);
/*
 * Whether the sessions list is read before each sample (the class's
 * sessions callback): on while a front end shows it, off by default, as
 * it costs the server a query per sample.
 */
void collect_want_sessions(struct collect *c, int on);
/* The same for the top statements (the class's statements callback). */
void collect_want_statements(struct collect *c, int on);
/*
 * Asks the collector thread to cancel session id's statement (terminate
 * 0) or end the session (1), then to read the list again. The answer
 * comes as a result whose `killed` grew. -1 with err when the class
 * cannot, or a request is still pending.
 */
int collect_kill(struct collect *c, const char *id, int terminate, char *err);
/*
 * Stops the thread, closes the connection and frees c. Waits at most about
 * a second: a thread still blocked on the network is left to the exit.
 */
void collect_stop(struct collect *c);

#endif
