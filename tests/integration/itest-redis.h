/*
 * itest-redis: what the Redis integration tests share on top of itest.h: an
 * admin connection to the throwaway redis-server (tests/run-integration's
 * BENCHTOP_RD_*), commands on it that must succeed, and the server's own
 * counters (commandstats calls, DBSIZE) to check benchtop's counts against.
 */
#ifndef BENCHTOP_ITEST_REDIS_H
#define BENCHTOP_ITEST_REDIS_H

#include "itest.h"

#include <hiredis.h>

#include "collectors/redis/redis.h"
#include "base/util.h"

/* A fresh connection to the test server (blocking, as an ordinary client). */
static inline redisContext *
rtest_connect(void)
{
    struct redis_target t;
    char err[BT_ERRLEN];
    redisContext *c;

    if (redis_target_parse(itest_env("BENCHTOP_RD_TARGET"), &t, err) < 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    c = redisConnect(t.host, t.port);
    if (c == NULL || c->err) {
        fprintf(stderr, "cannot connect to the redis test server: %s\n", c ? c->errstr : "oom");
        exit(1);
    }
    return c;
}

/* Runs a command that must not fail; returns its reply (freeReplyObject it). */
static inline redisReply *
rtest_cmd(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    redisReply *r;

    va_start(ap, fmt);
    r = redisvCommand(c, fmt, ap);
    va_end(ap);
    if (r == NULL || r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "%s: %s\n", fmt, r ? r->str : c->errstr);
        exit(1);
    }
    return r;
}

static inline void
rtest_do(redisContext *c, const char *cmd)
{
    freeReplyObject(rtest_cmd(c, cmd));
}

static inline long long
rtest_integer(redisContext *c, const char *cmd)
{
    redisReply *r = rtest_cmd(c, cmd);
    long long v = r->type == REDIS_REPLY_INTEGER  ? r->integer
                  : r->type == REDIS_REPLY_STRING ? strtoll(r->str, NULL, 10)
                                                  : -1;

    freeReplyObject(r);
    return v;
}

/* The server's connections now whose CLIENT LIST line holds needle (" user=NAME "). */
static inline int
rtest_clients_with(redisContext *c, const char *needle)
{
    redisReply *r = rtest_cmd(c, "CLIENT LIST");
    int n = itest_count_lines(r->str, needle);

    freeReplyObject(r);
    return n;
}

/* The server's call count for one command (commandstats name, e.g. "get"); 0 if never called. */
static inline long long
rtest_calls(redisContext *c, const char *name)
{
    redisReply *r = rtest_cmd(c, "INFO commandstats");
    struct redis_cmdstats cs;
    const struct redis_cmdstat *s;
    char err[BT_ERRLEN];
    long long v;

    if (redis_cmdstats_parse(r->str, r->len, &cs, err) < 0) {
        fprintf(stderr, "INFO commandstats: %s\n", err);
        exit(1);
    }
    s = redis_cmdstat_find(&cs, name);
    v = s ? (long long)s->calls : 0;
    freeReplyObject(r);
    return v;
}

/* The value of a counter key written by -w incr (0 if it does not exist). */
static inline long long
rtest_counter(redisContext *c, long long key)
{
    redisReply *r = rtest_cmd(c, "GET counter:%012lld", key);
    long long v = r->type == REDIS_REPLY_STRING ? strtoll(r->str, NULL, 10) : 0;

    freeReplyObject(r);
    return v;
}

#endif
