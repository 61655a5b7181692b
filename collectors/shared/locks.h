/*
 * locks: lock chains, pure, for the collectors of servers that say who
 * blocks whom (PostgreSQL's pg_blocking_pids, InnoDB's lock waits). Each
 * waiter's chain is followed to the session at its root, the one that
 * waits on something other than a lock, and the waiter is counted by what
 * that root does: the commit's log write or sync, its client (idle in a
 * transaction), or anything else (another statement running).
 */
#ifndef BENCHTOP_LOCKS_H
#define BENCHTOP_LOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/collector.h"

/* One session of a lock chain: a lock waiter or a blocker. */
struct lock_node {
    uint64_t id;      /* the session's (pid, connection id) */
    int ours;         /* one of benchtop's sessions */
    int idle;         /* idle, in a transaction: waits for its client */
    int commit;       /* waits on the log's write or sync: the commit */
    uint64_t blocker; /* when it waits on a lock, a session that holds it; 0 */
    int handoff;      /* waits on a lock that no session holds any more: being woken */
    double running_s; /* its statement's age */
    char query[40];   /* the statement's start, as the server sent it (not escaped) */
};

/* Lock waiters by their chain's root, and the roots that stall benchtop's waiters. */
struct lock_roots {
    int commit, client, other;
    /* benchtop's waiters whose root is another application's session, running or idle in its
     * transaction (not the commit); the longest running such root, escaped: "12 (3 s): UPDATE ..."
     */
    int own_by_other;
    char what[COLL_STALL_WHAT];
};

/* Each waiter's chain followed to its root, at most 16 steps (a cycle counts as other). */
void lock_roots(const struct lock_node *s, int n, struct lock_roots *out);

struct coll_glances;
/*
 * r's counts into the glances' root_* sums, benchtop's waiters stalled by
 * others into *stall_own, and the root that stalled them (when named)
 * into what (len bytes).
 */
/* Where a lock_roots what's statement text starts (after "12 (3 s): "; its end if none). */
size_t lock_what_sql_at(const char *what);
void lock_roots_add(const struct lock_roots *r, struct coll_glances *p, double *stall_own,
                    char *what, size_t len);

#endif
