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

/* A statement read for a chain: its first LOCK_QUERY_CHARS characters, one more than shown. */
enum { LOCK_QUERY_CHARS = COLL_STALL_SQL + 1, LOCK_APP_LEN = 40 };

/* One session of a lock chain: a lock waiter or a blocker. */
struct lock_node {
    uint64_t id;      /* the session's (pid, connection id) */
    int ours;         /* one of benchtop's sessions */
    int idle;         /* idle, in a transaction: waits for its client */
    int commit;       /* waits on the log's write or sync: the commit */
    uint64_t blocker; /* when it waits on a lock, a session that holds it; 0 */
    int handoff;      /* waits on a lock that no session holds any more: being woken */
    double running_s; /* its statement's age */
    /* the statement, as the server sent it (not escaped), up to twice what is shown: */
    /* longer than COLL_STALL_SQL is told by its length */
    char query[2 * COLL_STALL_SQL];
    char app[LOCK_APP_LEN]; /* its application's name (application_name); "" none */
};

/* Lock waiters by their chain's root, and the roots that stall benchtop's waiters. */
struct lock_roots {
    int commit, client, other;
    /* benchtop's waiters whose root is another application's session, running or idle in its
     * transaction (not the commit); the longest running such root, escaped: "12 billing-batch (3
     * s): UPDATE ..."
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
