/* locks: lock chains followed to their roots (see locks.h). */
#include "locks.h"

#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "engine/collector.h"

enum { MAX_HOPS = 16 };

static const struct lock_node *
find_node(const struct lock_node *s, int n, uint64_t id)
{
    for (int i = 0; i < n; i++)
        if (s[i].id == id)
            return &s[i];
    return NULL;
}

/* The root of w's chain; NULL for a cycle (a deadlock not yet detected) or a gone blocker. */
static const struct lock_node *
root_of(const struct lock_node *s, int n, const struct lock_node *w)
{
    int hops;

    for (hops = 0; w != NULL && w->blocker != 0 && hops < MAX_HOPS; hops++)
        w = find_node(s, n, w->blocker);
    return hops < MAX_HOPS ? w : NULL;
}

/*
 * "70 billing-batch (idle in transaction 9 s): UPDATE ...": the root's
 * application and its whole statement, on one line and escaped; a long one
 * ends in "…" (issue 47: cut at 39 bytes it read "SET bbalance = ;").
 */
static void
note_stall(struct lock_roots *out, const struct lock_node *root, double *longest)
{
    char one[sizeof root->query], q[COLL_STALL_SQL + 1], app[LOCK_APP_LEN];

    out->own_by_other++;
    if (root->running_s <= *longest)
        return;
    *longest = root->running_s;
    text_one_line(one, sizeof one, root->query);
    text_clean_cut(q, sizeof q, one);
    text_clean_cut(app, sizeof app, root->app);
    /* an idle session may show no statement (MariaDB's processlist): then none is quoted */
    snprintf(out->what, sizeof out->what, "%llu%s%s (%s%.0f s)%s%s", (unsigned long long)root->id,
             app[0] ? " " : "", app, root->idle ? LOCK_IDLE_WHAT " " : "", root->running_s,
             q[0] ? ": " : "", q);
}

void
lock_roots(const struct lock_node *s, int n, struct lock_roots *out)
{
    double longest = -1;

    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++) {
        const struct lock_node *r;

        if (s[i].blocker == 0)
            continue; /* a blocker only */
        r = root_of(s, n, &s[i]);
        /*
         * a root that waits itself, its holder just gone, is a hand-off in
         * the queue (its holder committed a moment ago): not counted, so
         * the waiters whose roots were seen stand for it (pgbench scale 1,
         * sync commits: a third of the roots, which made the queue look
         * lock-bound 40% to commit 38%; synchronous_commit=off gave x1.5,
         * a larger scale x1.2)
         */
        if (r != NULL && r->handoff)
            continue;
        /*
         * an idle root of benchtop's own waits for benchtop's client; another
         * application's, idle in its transaction (a psql left open), stalls
         * benchtop's waiters as a running statement of its would
         */
        if (r != NULL && r->commit)
            out->commit++;
        else if (r != NULL && r->idle && (r->ours || !s[i].ours))
            out->client++;
        else
            out->other++;
        if (s[i].ours && r != NULL && !r->ours && !r->commit)
            note_stall(out, r, &longest);
    }
}

size_t
lock_what_sql_at(const char *what)
{
    const char *q = strstr(what, "): ");

    return q != NULL ? (size_t)(q - what) + 3 : strlen(what); /* none: no statement to quote */
}

void
lock_roots_add(const struct lock_roots *r, struct coll_glances *p, double *stall_own, char *what,
               size_t len)
{
    p->root_commit += r->commit;
    p->root_client += r->client;
    p->root_other += r->other;
    *stall_own += r->own_by_other;
    if (r->what[0])
        snprintf(what, len, "%s", r->what);
}
