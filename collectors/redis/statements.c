/*
 * redis/statements: INFO commandstats as watch's top statements: a row
 * per command (calls, time), the 32 that took the most time, the totals
 * of all. Redis keeps them always; CONFIG RESETSTAT clears them.
 */
#include "redis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/collector.h"
#include "base/util.h"

static int
by_usec(const void *a, const void *b)
{
    const struct redis_cmdstat *x = a, *y = b;

    return x->usec > y->usec ? -1 : x->usec < y->usec;
}

/* Pure: the commands that took the most time into out (cs is sorted by time on the way). */
static void
redis_statements_from(struct redis_cmdstats *cs, struct coll_statements *out)
{
    snprintf(out->source, sizeof out->source, "commandstats");
    qsort(cs->cmd, (size_t)cs->n, sizeof cs->cmd[0], by_usec);
    for (int i = 0; i < cs->n; i++) {
        out->all_ms += (double)cs->cmd[i].usec / 1e3;
        out->all_calls += (double)cs->cmd[i].calls;
        if (out->n == COLL_MAX_STATEMENTS)
            continue;
        snprintf(out->s[out->n].id, sizeof out->s[0].id, "%s", cs->cmd[i].name);
        snprintf(out->s[out->n].text, sizeof out->s[0].text, "%s", cs->cmd[i].name);
        out->s[out->n].calls = (double)cs->cmd[i].calls;
        out->s[out->n].total_ms = (double)cs->cmd[i].usec / 1e3;
        out->s[out->n++].rows = NAN; /* a command has no rows */
    }
    out->total = cs->n + cs->dropped;
}

int
redis_statements_read(redisContext *ctx, struct coll_statements *out, char *err)
{
    redisReply *r = redis_command(ctx, "INFO commandstats");
    struct redis_cmdstats *cs;
    int rc;

    if (r == NULL)
        return seterr(err, "lost the connection to redis: %s", ctx->errstr);
    if (r->type != REDIS_REPLY_STRING) {
        freeReplyObject(r);
        return seterr(err, "INFO commandstats refused (is the ACL missing +info?)");
    }
    cs = xcalloc(1, sizeof *cs);
    rc = redis_cmdstats_parse(r->str, r->len, cs, err);
    if (rc == 0)
        redis_statements_from(cs, out);
    free(cs);
    freeReplyObject(r);
    return rc;
}
