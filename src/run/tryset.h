/*
 * tryset: the server settings a `benchtop try` changes, and putting them
 * back. It speaks to the server only through the target's collector class
 * (collector.h: undo_value, apply_setting) on a connection of its own, and
 * to a pooler in front of it through the pooler's class likewise, so
 * nothing here names a database.
 *
 * Order: tryset_parse -> tryset_open [-> tryset_open_pooler ->
 * tryset_route] -> tryset_save (the values that put each setting back,
 * written to the undo file before anything changes, under the server's
 * one-try lock) ->
 * { tryset_apply, tryset_revert }* -> tryset_finish (reverts if still
 * applied, removes the undo file, closes). A run that dies leaves the
 * undo file; tryset_load reads it back for `try --undo`.
 *
 * The undo file is $XDG_STATE_HOME/benchtop/undo-HASH.json (default
 * ~/.local/state), HASH of the server's identity (collector.h: identity;
 * the masked target for a class without one), so that any spelling of the
 * target finds it: it holds the masked target
 * (no password) and each setting's name and value to put back; a pooler's
 * setting has "pooler":true, and the file then names the pooler's masked
 * target ("pooler"), so that try --undo can ask for it.
 */
#ifndef BENCHTOP_TRYSET_H
#define BENCHTOP_TRYSET_H

#include <stddef.h>

#include "engine/collector.h"

#include <pthread.h>

#define TRYSET_MAX 8

/* One setting: its name and a value of any length (heap; tryset_finish frees it). */
struct tryset_value {
    char name[64];
    char *value;
};

struct tryset {
    const struct collector_class *cls;
    void *conn;
    int n;
    struct tryset_value want[TRYSET_MAX]; /* B: as the user typed them */
    struct tryset_value orig[TRYSET_MAX]; /* A: what puts each back (undo_value) */
    char *seen[TRYSET_MAX];               /* B as the server holds it (undo_value after apply) */
    unsigned char done[TRYSET_MAX];       /* setting i may be B on the server now */
    int applied;                          /* some of B may be on the server now */
    char drift[64];                       /* a setting someone else changed during the try */
    char path[512];                       /* the undo file; "" while none is written */
    char id[256];                         /* the server's identity (undo file's key); "" none */
    /* the server's one-try lock (try_lock), renewed by a thread when it expires on its own */
    int locked, renewing, stop;
    char token[128];
    pthread_t renewer;
    pthread_mutex_t mu; /* conn: one thread at a time */
    pthread_cond_t cv;
    /* --restart: restart-only settings, each change followed by a restart of the throwaway */
    int restart;
    const struct target *target; /* to reconnect after a restart (the caller's: outlives t) */
    char masked[512];            /* to find its serve */
    /*
     * A pooler in front of the server (tryset_open_pooler): the settings it
     * knows and the server does not are its own (pooled[i]), changed and
     * put back on its connection; the undo file names it.
     */
    const struct collector_class *pool_cls;
    void *pool_conn;
    char pool_masked[512];
    unsigned char pooled[TRYSET_MAX];
};

/*
 * --set's values ('\n'-separated NAME=VALUE) into t->want. 0, or -1 with
 * err; a name that looks like it holds a secret (pass, auth, secret,
 * credential) is refused: its value would be in the undo file and on screen.
 */
int tryset_parse(struct tryset *t, const char *list, char *err);
/* Setting i's B value from now on (a sweep's next step). */
void tryset_want(struct tryset *t, int i, const char *value);
/* Connects cls to target for the changes; -1 with err when the class cannot change settings. */
int tryset_open(struct tryset *t, const struct collector_class *cls, const struct target *target,
                char *err);
/*
 * Connects the pooler's class to its target beside the server's (after
 * tryset_open); -1 with err when the class cannot change settings.
 */
int tryset_open_pooler(struct tryset *t, const struct collector_class *cls,
                       const struct target *target, const char *masked, char *err);
/*
 * Which of the two each setting is (has_setting on both): the pooler's
 * when it knows the name and the server does not, the server's when only
 * the server knows it; a name both or neither know is refused with -1 and
 * a one-line err. The pooler's connection is closed when no setting is its.
 */
int tryset_route(struct tryset *t, char *err);
/* Some setting is the pooler's (from tryset_route or the undo file). */
int tryset_pooled(const struct tryset *t);
/*
 * Takes the server's try lock (another try running: -1 with a one-line
 * err), finds the undo file by the server's identity (one left by a try
 * that did not finish: -1), reads the values that put each setting back
 * (refusing restart-only ones), then writes them.
 */
int tryset_save(struct tryset *t, const char *target_masked, char *err);
/*
 * try --undo, after tryset_open: the server's try lock, then the undo
 * file of this server found (t->path): 1, 0 when there is none, -1 with err.
 */
int tryset_find_undo(struct tryset *t, const char *target_masked, char *err);
/*
 * B on the server; a setting the server refuses is not changed, so it is
 * not put back either (a refusal of everything leaves nothing to undo).
 */
int tryset_apply(struct tryset *t, char *err);
/*
 * Puts every changed value back (each is tried even when one fails; err is
 * the first failure). A value that is no longer B's (someone changed it
 * during the try) is left as it is, and said so on stderr.
 */
int tryset_revert(struct tryset *t, char *err);
/* Frees the values (after tryset_finish, once nothing reads want[] any more). */
void tryset_free(struct tryset *t);
/* Reverts if needed; the undo file is removed only when the revert worked. Closes. */
int tryset_finish(struct tryset *t, char *err);
/*
 * Puts the server back if it is not yet (tryset_finish); a failure is said
 * on stderr with the undo file to use (`benchtop try --undo TARGET`).
 */
void tryset_put_back(struct tryset *t);
/* From now on an exit() (a fatal error on the way) puts t back first: one try at a time. */
void tryset_guard(struct tryset *t);
/*
 * `benchtop serve` registers the throwaway it keeps up, per masked target:
 * $XDG_STATE_HOME/benchtop/serve-HASH holds its pid and the restarts done,
 * so that try --restart can ask for one (SIGUSR1) and see it finish.
 */
int tryset_serve_register(const char *target_masked, long pid, int restarts, char *err);
void tryset_serve_unregister(const char *target_masked);
/*
 * try --restart, after tryset_open: restart-only settings taken, each
 * apply and revert then restarts the throwaway (bounded waits). -1 with err
 * when the target is not a throwaway a live serve keeps.
 */
int tryset_restart_on(struct tryset *t, const char *target_masked, char *err);
/* A leftover undo file into t->orig (t->path set); its masked target into target (len). */
int tryset_load(struct tryset *t, const char *path, char *target, size_t len, char *err);

#endif
