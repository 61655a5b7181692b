/*
 * redis/script: -f scripts for Redis, pure. A script is command lines
 * (script_parse_lines): each line's words, once its :name references have
 * their values, are one command's arguments, written as RESP. Words are
 * split at spaces and tabs; there is no quoting, so an argument holds no
 * space. Nothing here allocates per transaction: the caller gives the
 * buffers, sized once with redis_script_longest. Pure but for
 * redis_script_check, which asks the server (blocking, before the run).
 */
#include "redis.h"

#include <string.h>

#include "base/util.h"

const char *const redis_script_predef[] = {"client_id", "keys", NULL};

static int
is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The longest text command i can render to: its literal text and 21 bytes per reference. */
static size_t
longest_line(const struct script_cmd *cmd)
{
    int vars[SCRIPT_MAX_PARAMS * 8];
    int n = script_ref_vars(cmd, vars, (int)(sizeof vars / sizeof vars[0]));

    return strlen(cmd->sql) + 22u * (size_t)(n < 0 ? 0 : n) + 1;
}

/* Bytes of RESP for a line of len bytes: at most len / 2 + 1 words, each with its header. */
static size_t
resp_bound(size_t len)
{
    return 16 + len + (len / 2 + 1) * 26;
}

int
redis_script_longest(const struct script *s, size_t *line, size_t *request, char *err)
{
    int vars[SCRIPT_MAX_PARAMS * 8];
    size_t req = 0;

    for (int i = 0; i < s->ncmds; i++) {
        const struct script_cmd *cmd = &s->cmds[i];
        size_t len;

        if (cmd->kind != SCRIPT_SQL)
            continue;
        if (script_ref_vars(cmd, vars, (int)(sizeof vars / sizeof vars[0])) < 0)
            return seterr(err, "%s:%d: command has more than %d variable references (split it)",
                          s->name, cmd->line, (int)(sizeof vars / sizeof vars[0]));
        len = longest_line(cmd);
        if (len > *line)
            *line = len;
        req += resp_bound(len);
    }
    if (req == 0)
        return seterr(err, "%s has no command (add at least one line such as 'INCR counter')",
                      s->name);
    if (req > *request)
        *request = req;
    return 0;
}

/* Digits of v before end; returns where they start. */
static char *
put_digits(char *end, size_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return end;
}

/* "$len\r\nword\r\n" at out; returns the end. */
static char *
put_word(char *out, const char *w, size_t len)
{
    char tmp[24], *d = put_digits(tmp + sizeof tmp, len);

    *out++ = '$';
    memcpy(out, d, (size_t)(tmp + sizeof tmp - d));
    out += tmp + sizeof tmp - d;
    *out++ = '\r';
    *out++ = '\n';
    memcpy(out, w, len);
    out += len;
    *out++ = '\r';
    *out++ = '\n';
    return out;
}

size_t
redis_script_resp(const char *line, size_t len, char *out)
{
    char tmp[24], *d, *o = out;
    const char *p = line, *end = line + len;
    size_t words = 0;

    for (p = line; p < end; words++) {
        while (p < end && is_blank(*p))
            p++;
        if (p == end)
            break;
        while (p < end && !is_blank(*p))
            p++;
    }
    d = put_digits(tmp + sizeof tmp, words);
    *o++ = '*';
    memcpy(o, d, (size_t)(tmp + sizeof tmp - d));
    o += tmp + sizeof tmp - d;
    *o++ = '\r';
    *o++ = '\n';
    for (p = line; p < end;) {
        const char *w;
        while (p < end && is_blank(*p))
            p++;
        if (p == end)
            break;
        for (w = p; p < end && !is_blank(*p); p++)
            ;
        o = put_word(o, w, (size_t)(p - w));
    }
    return (size_t)(o - out);
}

/* Where script_run_lines' commands go: RESP at o, counted. */
struct resp_out {
    char *o;
    int n;
};

static void
put_resp(void *arg, int i, const char *line, size_t len)
{
    struct resp_out *r = arg;

    r->o += redis_script_resp(line, len, r->o);
    r->n++;
}

long
redis_script_render(const struct script *s, int64_t *vars, struct rng *rng, char *line,
                    size_t line_cap, char *out, int *ncmds, char *err)
{
    struct resp_out r = {out, 0};

    if (script_run_lines(s, vars, rng, line, line_cap, put_resp, &r, err) < 0)
        return -1;
    *ncmds = r.n;
    return r.o - out;
}

/* 1 if the server knows the command (COMMAND INFO gives nil for an unknown one), -1 if it fails. */
static int
known_command(redisContext *ctx, const char *name, size_t len)
{
    redisReply *r = redis_command(ctx, "COMMAND INFO %b", name, len);
    int known;

    if (r == NULL)
        return -1;
    known = r->type != REDIS_REPLY_ARRAY || r->elements != 1 ||
            r->element[0]->type != REDIS_REPLY_NIL; /* an error (ACL, old server): let it run */
    freeReplyObject(r);
    return known;
}

int
redis_script_check(redisContext *ctx, const struct script *s, char *err)
{
    for (int i = 0; i < s->ncmds; i++) {
        const struct script_cmd *cmd = &s->cmds[i];
        size_t len;
        int known;

        if (cmd->kind != SCRIPT_SQL)
            continue;
        len = strcspn(cmd->sql, " \t");
        if (memchr(cmd->sql, ':', len) != NULL)
            continue; /* the name comes from a variable */
        known = known_command(ctx, cmd->sql, len);
        if (known < 0)
            return seterr(err, "cannot check %s's commands: %s", s->name, ctx->errstr);
        if (!known)
            return seterr(err, "%s:%d: unknown command '%.*s' (see redis-cli COMMAND LIST)",
                          s->name, cmd->line, (int)len, cmd->sql);
    }
    return 0;
}
