/*
 * session: the main loop shared by the headless output and the dashboard.
 * It waits (ppoll, timeout from the next tick) on the signals, the
 * engine's "finished" eventfd, every collector's eventfd and, for the
 * dashboard, the terminal; and calls the front end's hooks.
 *
 * A session has a load (an engine), collectors, or both (`watch` has no
 * load). It ends on SIGINT/SIGTERM/SIGHUP, when a hook asks to quit, or when the
 * load is over (-T reached, every client ran -t, a sweep's last step)
 * unless stay_after_load.
 */
#ifndef BENCHTOP_SESSION_H
#define BENCHTOP_SESSION_H

#include <stdint.h>

#include "engine/collect.h"
#include "base/cpu.h"
#include "engine/engine.h"
#include "records/follow.h"
#include "analysis/sweep.h"
#include "analysis/verdict.h"

#define SESSION_MAX_COLLECT 8

struct session;

struct session_hooks {
    /*
     * Each interval, and once more with snap->final when the load ends; v is
     * the verdict on that interval (analysis/verdict.h), or the agents' for
     * watch --records.
     */
    void (*on_tick)(struct session *s, const struct snapshot *snap, const struct verdict *v,
                    void *arg);
    /* A collector published a result; v is watch's server-side verdict on it, or NULL. */
    void (*on_server)(struct session *s, int i, const struct collect_result *res,
                      const struct verdict *v, void *arg);
    /* input_fd is readable. Returns 1 to end the session. */
    int (*on_input)(struct session *s, void *arg);
    /* The interval passed without a load (watch mode), for redraws and clocks. */
    void (*on_idle_tick)(struct session *s, void *arg);
    /*
     * watch --records: a server sample from the agents' records, shown as
     * collector i (after the session's own ncollect), before the interval it
     * belongs to reaches on_tick.
     */
    void (*on_record_server)(struct session *s, int i, const struct follow_server *fs, void *arg);
    /* watch --records, each interval after its ticks: the fleet's countdown, or its end. */
    void (*on_follow)(struct session *s, const struct follow_state *st, void *arg);
};

struct session {
    const struct runconf *rc;
    struct engine *eng;    /* NULL: no load */
    struct follow *follow; /* watch --records: a fleet's records give the ticks instead */
    int ncollect;
    struct collect *collect[SESSION_MAX_COLLECT];
    int input_fd;        /* -1: none */
    int stay_after_load; /* keep going (collectors, input) after the load ended */
    double interval_s;   /* may change while running (session_set_interval) */
    uint64_t until_us;   /* without a load: end at this time (0 = on a signal or quit) */
    uint64_t start_us;
    int load_over;
    int quit;  /* set by a hook (an output that fails, a fleet done): the session ends at once */
    int signo; /* the signal (SIGINT, SIGTERM, SIGHUP) that ended the session; 0 */
    struct session_hooks hooks;
    struct verdict_state verdict;                  /* carried between ticks */
    struct verdict now;                            /* the last interval's verdict */
    enum coll_role role[SESSION_MAX_COLLECT];      /* what each collector's signals stand for */
    const char *title[SESSION_MAX_COLLECT];        /* each one's server, for the verdict's text */
    struct coll_signals sigs[SESSION_MAX_COLLECT]; /* each one's latest signals */
    int have[SESSION_MAX_COLLECT];                 /* ... when its last sample succeeded */
    double tps[SESSION_MAX_COLLECT];               /* ... and its server's own tps */
    /* the above merged by role (session.c, merge_signals): what the verdict and sweep read */
    int have_sig; /* sig holds a database's signals (the target's, or behind it) */
    struct coll_signals sig;
    const char *behind;       /* sig is of this database behind the load's target; NULL */
    double server_tps;        /* that database's own tps; NAN */
    struct sweep *sweep;      /* NULL, or `benchtop sweep`'s steps: run at each tick */
    struct cpu_host host;     /* /proc/stat at the last tick */
    double gain_per_doubling; /* from the last rise in clients (dashboard +); NAN */
    int procs_ready;          /* procs was looked up */
    int embedded;             /* the target is a database file run in our threads (SQLite) */
    int allowed_cpus;         /* the CPUs benchtop may run on, read at the start (its affinity) */
    struct cpu_group procs;   /* the run's local processes: the server side of the host split */
    /*
     * watch: each collector's server's processes, when it listens on a
     * loopback port of this host (0: not known): its CPU against the
     * cores, for a server that does not report its own (PostgreSQL, MariaDB).
     */
    int watch_port[SESSION_MAX_COLLECT];
    int watch_found[SESSION_MAX_COLLECT];
    struct cpu_group watch_procs[SESSION_MAX_COLLECT];
    int server_ports[16]; /* the target's other server processes' ports (a cluster's) */
    int nserver_ports;
    /*
     * A tick whose client interval is taken but not yet judged: it waits
     * (until pending_until at most) for each collector's sample aligned on
     * it, so the verdict splits an interval with the server's view of the
     * same interval, not the one before (the first one is from before the
     * load: "transit 90%").
     */
    struct snapshot *pending;
    uint64_t pending_until;
    int fresh[SESSION_MAX_COLLECT]; /* a result arrived since the pending tick */
    /*
     * Seconds the target's event loop was stalled by others' commands, as
     * its samples timed them, not yet given to a judged interval; the
     * last sample's time and what stalled it.
     */
    double stall_debt_s, stall_last_t;
    char stall_what[COLL_STALL_WHAT]; /* as coll_signals.other_stall_what */
    unsigned short stall_sql_at;
    void *arg;
};

/*
 * Blocks SIGINT, SIGTERM and SIGHUP for the whole process (call before any thread
 * starts, so every thread inherits the mask) and returns a signalfd for them.
 */
int session_block_signals(void);
/* Runs the loop until the end (see above). sigfd from session_block_signals. */
void session_run(struct session *s, int sigfd);
void session_set_interval(struct session *s, double interval_s);

#endif
