/*
 * redis/sessions: CLIENT LIST as the dashboard's sessions list (age, idle,
 * last command, memory), and CLIENT KILL ID on the user's confirmed
 * keystroke. The parser is pure (tests feed it captured replies).
 */
#include "redis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/collector.h"
#include "base/util.h"

/* The value of field name= in one CLIENT LIST line, into dst; "" when absent. */
static void
field(const char *line, const char *name, char *dst, size_t len)
{
    size_t n = strlen(name);
    const char *p = line;

    dst[0] = '\0';
    while ((p = strstr(p, name)) != NULL) {
        if ((p == line || p[-1] == ' ') && p[n] == '=') {
            size_t vlen = strcspn(p + n + 1, " \r\n");

            snprintf(dst, len, "%.*s", (int)(vlen < len ? vlen : len - 1), p + n + 1);
            return;
        }
        p += n;
    }
}

static double
field_num(const char *line, const char *name)
{
    char v[32];

    field(line, name, v, sizeof v);
    return str_num_or_nan(v);
}

/* What the flags say the client is doing, as a word. */
static const char *
state_of(const char *flags)
{
    static const struct {
        char flag;
        const char *state;
    } states[] = {{'b', "blocked"}, {'x', "multi"},  {'P', "pubsub"},
                  {'S', "replica"}, {'M', "master"}, {'t', "tracking"}};

    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (strchr(flags, states[i].flag) != NULL)
            return states[i].state;
    return "idle";
}

static void
parse_line(const char *line, const char *own_id, struct coll_session *s)
{
    char flags[16], mem[32], db[16];
    double bytes = field_num(line, "tot-mem");

    field(line, "id", s->id, sizeof s->id);
    field(line, "user", s->user, sizeof s->user);
    field(line, "name", s->app, sizeof s->app);
    field(line, "addr", s->client, sizeof s->client);
    field(line, "db", db, sizeof db);
    snprintf(s->db, sizeof s->db, "db%s", db);
    field(line, "flags", flags, sizeof flags);
    field(line, "cmd", s->query, sizeof s->query);
    s->xact_s = field_num(line, "age");
    s->query_s = field_num(line, "idle");
    s->own = strcmp(s->id, own_id) == 0 || strncmp(s->app, "benchtop", 8) == 0;
    snprintf(s->state, sizeof s->state, "%s", s->own ? "active" : state_of(flags));
    mem[0] = '\0';
    if (!isnan(bytes))
        snprintf(mem, sizeof mem, "%.1fk", bytes / 1024);
    snprintf(s->info, sizeof s->info, "%s", mem);
}

void
redis_client_list_parse(const char *text, const char *own_id, struct coll_sessions *out)
{
    const char *line = text;

    memset(out, 0, sizeof *out);
    snprintf(out->xact_head, sizeof out->xact_head, "age");
    snprintf(out->query_head, sizeof out->query_head, "idle");
    snprintf(out->info_head, sizeof out->info_head, "mem");
    while (line != NULL && *line != '\0') {
        if (strncmp(line, "id=", 3) == 0) {
            if (out->n < COLL_MAX_SESSIONS)
                parse_line(line, own_id, &out->s[out->n++]);
            out->total++;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
}

int
redis_sessions_read(redisContext *ctx, struct coll_sessions *out, char *err)
{
    redisReply *id = NULL, *list = NULL;
    char own[24] = "";
    int rc = 0;

    redisAppendCommand(ctx, "CLIENT ID");
    redisAppendCommand(ctx, "CLIENT LIST");
    if (redis_reply(ctx, &id) != REDIS_OK || redis_reply(ctx, &list) != REDIS_OK)
        rc = seterr(err, "lost the connection to redis: %s", ctx->errstr);
    else if (list->type != REDIS_REPLY_STRING)
        rc = seterr(err, "CLIENT LIST refused: %.100s",
                    list->type == REDIS_REPLY_ERROR ? list->str : "not text");
    if (rc == 0 && id->type == REDIS_REPLY_INTEGER)
        snprintf(own, sizeof own, "%lld", id->integer);
    if (rc == 0)
        redis_client_list_parse(list->str, own, out);
    if (id != NULL)
        freeReplyObject(id);
    if (list != NULL)
        freeReplyObject(list);
    return rc;
}

int
redis_sessions_kill(redisContext *ctx, const char *id, int terminate, char *err)
{
    uint64_t n;
    redisReply *r;
    int rc = 0;

    if (!terminate) /* one thread runs every command: there is nothing to cancel but a client */
        return seterr(err, "Redis cannot cancel a command; K ends the client (CLIENT KILL)");
    if (safe_strtoull(id, &n) < 0)
        return seterr(err, "%.23s is not a Redis client id", id);
    if ((r = redis_command(ctx, "CLIENT KILL ID %llu", (unsigned long long)n)) == NULL)
        return seterr(err, "lost the connection to redis: %s", ctx->errstr);
    if (r->type == REDIS_REPLY_ERROR)
        rc = seterr(err, "CLIENT KILL refused: %.100s", r->str);
    else if (r->type == REDIS_REPLY_INTEGER && r->integer == 0)
        rc = seterr(err, "client %llu has gone", (unsigned long long)n);
    freeReplyObject(r);
    return rc;
}
