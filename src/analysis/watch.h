/*
 * watch: a server under someone else's load, judged through the
 * operational model (model.h) from its own figures alone.
 *
 * Pure. There is no client of ours to account for, so the account is the
 * server's: its active sessions' time split by their states (on a CPU,
 * waiting on a lock, on data reads, on the commit, on something else), or
 * for an event loop without sessions (Redis, memcached) its loop's time.
 * The resources are the model's: the server's CPU against the cores it
 * can use (one core for an event loop; memcached's -t threads; the cores
 * for PostgreSQL and MariaDB; its busiest thread when one is full), the
 * commit's log, a pooler's pool, an application's workers, and a cache's
 * memory (full, evicting what is looked up again). Utilization =
 * throughput x demand / capacity; the limit is the resource nearest
 * saturation and its bound capacity / demand; the findings are the
 * reliefs ranked by their bound. The thresholds are param.h's.
 */
#ifndef BENCHTOP_WATCH_H
#define BENCHTOP_WATCH_H

#include "verdict.h"

struct watch_input {
    const struct coll_signals *sig;
    double x;  /* the server's own transactions (or commands) per second; NAN unknown */
    int cores; /* the host's */
};

/*
 * The verdict on one sample: kind (a limit, VK_UNDERLOADED when idle,
 * VK_NONE busy with none reached), evidence, the account of the server's
 * time in acct, the model with its findings, and their advice.
 */
void watch_judge(const struct watch_input *in, struct verdict *out);
/* "idle", "busy", or the limit's label ("memory-bound"), for people and JSON. */
const char *watch_label(const struct verdict *v);

#endif
