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

int
redis_settings_undo_value(redisContext *ctx, const char *name, char *value, size_t len, char *err)
{
    redisReply *r = redis_command(ctx, "CONFIG GET %s", name);
    int rv = 0;

    if (r == NULL)
        return seterr(err, "lost the connection: %s", ctx->errstr);
    /* a glob would answer for several names: only one exact name can be put back */
    if (r->type == REDIS_REPLY_ERROR)
        rv = seterr(err, "CONFIG GET %s refused: %.150s", name, r->str);
    else if (strpbrk(name, "*?[") != NULL || r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
             r->element[1]->type != REDIS_REPLY_STRING)
        rv = seterr(err, "%s is not a setting (see CONFIG GET *)", name);
    else
        snprintf(value, len, "%s", r->element[1]->str);
    freeReplyObject(r);
    return rv;
}
