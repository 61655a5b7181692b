/*
 * redis/settings: the Redis settings that matter for tuning, read for the
 * collector, and CONFIG SET from the dashboard.
 *
 * Redis has no cheap "configuration changed" counter, so every read is one
 * CONFIG GET naming every setting (Redis 7 takes several names; older
 * servers answer that with an error, and from then on get `CONFIG GET *`
 * and keep ours). One command per sample: the collector takes it out of
 * the command rates (REDIS_SETTINGS_COMMANDS).
 */
#include "redis.h"

#include <stdio.h>
#include <string.h>

#include "engine/collector.h"
#include "base/text.h"
#include "base/util.h"

static const char *const names[] = {
    "appendonly",
    "appendfsync",
    "no-appendfsync-on-rewrite",
    "save",
    "maxmemory",
    "maxmemory-policy",
    "maxmemory-samples",
    "lazyfree-lazy-eviction",
    "io-threads",
    "io-threads-do-reads",
    "hz",
    "maxclients",
    "activedefrag",
    "timeout",
    "tcp-keepalive",
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

static redisReply *
config_get(redisContext *ctx, int all)
{
    const char *argv[NNAMES + 2] = {"CONFIG", "GET"};
    size_t i;

    if (all)
        return redis_command(ctx, "CONFIG GET *");
    for (i = 0; i < NNAMES; i++)
        argv[i + 2] = names[i];
    return redis_command_argv(ctx, (int)NNAMES + 2, argv, NULL);
}

/* The value of name in a CONFIG GET reply (name, value pairs), or NULL. */
static const char *
find(const redisReply *r, const char *name)
{
    size_t i;

    for (i = 0; i + 1 < r->elements; i += 2)
        if (r->element[i]->type == REDIS_REPLY_STRING && strcmp(r->element[i]->str, name) == 0)
            return r->element[i + 1]->type == REDIS_REPLY_STRING ? r->element[i + 1]->str : NULL;
    return NULL;
}

int
redis_settings_read(redisContext *ctx, int *all, struct coll_settings *out, char *err)
{
    redisReply *r = config_get(ctx, *all);
    size_t i;

    if (r != NULL && r->type == REDIS_REPLY_ERROR && !*all) { /* before Redis 7: one name only */
        freeReplyObject(r);
        *all = 1;
        r = config_get(ctx, 1);
    }
    if (r == NULL)
        return seterr(err, "lost the connection: %s", ctx->errstr);
    if (r->type != REDIS_REPLY_ARRAY) {
        seterr(err, "CONFIG GET refused: %.100s (grant the user +config|get)",
               r->type == REDIS_REPLY_ERROR ? r->str : "not a list");
        freeReplyObject(r);
        return -1;
    }
    for (i = 0; i < NNAMES; i++) {
        const char *v = find(r, names[i]);
        if (v != NULL)
            coll_setting_add(out, names[i], v);
    }
    freeReplyObject(r);
    return 0;
}

int
redis_settings_apply(redisContext *ctx, const char *name, const char *value, char *err)
{
    redisReply *r = redis_command(ctx, "CONFIG SET %s %s", name, value);
    int rv = 0;

    if (r == NULL)
        return seterr(err, "lost the connection: %s", ctx->errstr);
    if (r->type == REDIS_REPLY_ERROR)
        rv = seterr(err, "CONFIG SET %s refused: %.150s%s", name, r->str,
                    strncmp(r->str, "NOPERM", 6) == 0 ? " (grant the user +config|set)"
                    : strstr(r->str, "unknown command") != NULL
                        ? " (CONFIG is renamed on this server: set it where the server is managed)"
                        : "");
    freeReplyObject(r);
    return rv;
}

char *
redis_settings_undo_value(redisContext *ctx, const char *name, char *err)
{
    redisReply *r = redis_command(ctx, "CONFIG GET %s", name);
    char *value = NULL;

    if (r == NULL) {
        seterr(err, "lost the connection: %s", ctx->errstr);
        return NULL;
    }
    /* a glob would answer for several names: only one exact name can be put back */
    if (r->type == REDIS_REPLY_ERROR)
        seterr(err, "CONFIG GET %s refused: %.150s", name, r->str);
    else if (strpbrk(name, "*?[") != NULL || r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
             r->element[1]->type != REDIS_REPLY_STRING)
        seterr(err, "%s is not a setting (see CONFIG GET *)", name);
    else
        value = xstrdup(r->element[1]->str); /* the exact text CONFIG SET takes back */
    freeReplyObject(r);
    return value;
}

/*
 * One try at a time per server: a key with a TTL, as Redis has no session
 * lock; renewed by tryset while the try runs, so a killed try's lock ends
 * by itself. Its value is the holder's HOST:PID.
 */
#define REDIS_TRY_KEY "benchtop:try-lock"
#define REDIS_TRY_TTL_MS "15000"

/* The key's value now into holder ("" for none); -1 with err. */
static int
lock_holder(redisContext *ctx, char *holder, size_t len, char *err)
{
    redisReply *r = redis_command(ctx, "GET " REDIS_TRY_KEY);

    if (r == NULL)
        return seterr(err, "lost the connection: %s", ctx->errstr);
    holder[0] = '\0';
    if (r->type == REDIS_REPLY_STRING)
        text_clean(holder, len, r->str);
    freeReplyObject(r);
    return 0;
}

int
redis_settings_try_lock(redisContext *ctx, int cluster, const char *token, int renew, char *holder,
                        size_t len, char *err)
{
    redisReply *r;
    int got;

    if (cluster)
        return seterr(err, "the target is a Redis Cluster node: CONFIG SET changes that node only "
                           "while the load goes to every master, so benchtop does not try "
                           "settings there (try them on a standalone Redis)");
    if (renew && (lock_holder(ctx, holder, len, err) < 0 ||
                  (holder[0] != '\0' && strcmp(holder, token) != 0)))
        return 0; /* someone took it over: leave it */
    r = redis_command(ctx, renew ? "SET %s %s PX %s" : "SET %s %s NX PX %s", REDIS_TRY_KEY, token,
                      REDIS_TRY_TTL_MS);
    if (r == NULL)
        return seterr(err, "lost the connection: %s", ctx->errstr);
    if (r->type == REDIS_REPLY_ERROR) {
        seterr(err, "could not take the try lock (SET %s): %.150s", REDIS_TRY_KEY, r->str);
        freeReplyObject(r);
        return -1;
    }
    got = r->type == REDIS_REPLY_STATUS;
    freeReplyObject(r);
    if (!got && lock_holder(ctx, holder, len, err) < 0)
        return -1;
    return got;
}

void
redis_settings_try_unlock(redisContext *ctx, const char *token)
{
    char holder[128], err[BT_ERRLEN];

    if (lock_holder(ctx, holder, sizeof holder, err) == 0 && strcmp(holder, token) == 0)
        freeReplyObject(redis_command(ctx, "DEL " REDIS_TRY_KEY));
}

int
redis_settings_identity(redisContext *ctx, char *buf, size_t len, char *err)
{
    redisReply *r = redis_command(ctx, "INFO server");
    const char *id;
    int rv = 0;

    if (r == NULL)
        return seterr(err, "lost the connection: %s", ctx->errstr);
    id = r->type == REDIS_REPLY_STRING ? strstr(r->str, "run_id:") : NULL;
    if (id == NULL)
        rv = seterr(err, "INFO server has no run_id: the server cannot be told apart");
    else
        snprintf(buf, len, "redis:%.40s", id + 7);
    freeReplyObject(r);
    return rv;
}
