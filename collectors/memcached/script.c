/*
 * memcached/script: -f scripts for memcached, pure. A script is command
 * lines (script_parse_lines, as for Redis) of five commands, written in
 * the text protocol:
 *   get KEY            get KEY                      VALUE ... END (a miss: END)
 *   set KEY VALUE      set KEY 0 0 LEN / VALUE      STORED
 *   incr KEY N         incr KEY N                   the new value
 *   decr KEY N         decr KEY N                   the new value
 *   delete KEY         delete KEY                   DELETED or NOT_FOUND
 * A get miss and a delete of a missing key are not errors; an incr or decr
 * of a missing key (NOT_FOUND), a refused set and any error line are.
 * Nothing here allocates per transaction.
 */
#include "memcached.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

const char *const mc_script_predef[] = {"client_id", "keys", NULL};

static const struct {
    const char *name;
    int words; /* the command's with its arguments */
} ops[] = {
    [MC_SOP_GET] = {"get", 2},   [MC_SOP_SET] = {"set", 3},       [MC_SOP_INCR] = {"incr", 3},
    [MC_SOP_DECR] = {"decr", 3}, [MC_SOP_DELETE] = {"delete", 2},
};

static int
is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The words of text[0..len): where each starts and how long it is; returns how many (at most max).
 */
static int
split_words(const char *text, size_t len, const char **w, size_t *wlen, int max)
{
    const char *p = text, *end = text + len;
    int n = 0;

    while (p < end) {
        while (p < end && is_blank(*p))
            p++;
        if (p == end)
            break;
        if (n < max)
            w[n] = p;
        while (p < end && !is_blank(*p))
            p++;
        if (n < max)
            wlen[n] = (size_t)(p - w[n]);
        n++;
    }
    return n;
}

static int
compile_cmd(const struct script *s, const struct script_cmd *cmd, enum mc_sop *op, char *err)
{
    const char *w[4];
    size_t wl[4];
    int n = split_words(cmd->sql, strlen(cmd->sql), w, wl, 4), i;

    for (i = 0; i < (int)(sizeof ops / sizeof ops[0]); i++)
        if (wl[0] == strlen(ops[i].name) && strncmp(w[0], ops[i].name, wl[0]) == 0)
            break;
    if (i == (int)(sizeof ops / sizeof ops[0]))
        return seterr(err,
                      "%s:%d: unknown command '%.*s' (use get, set, incr, decr or delete, in "
                      "lower case)",
                      s->name, cmd->line, (int)(wl[0] < 40 ? wl[0] : 40), w[0]);
    if (n != ops[i].words)
        return seterr(err, "%s:%d: %s takes %d argument%s, not %d (%s)", s->name, cmd->line,
                      ops[i].name, ops[i].words - 1, ops[i].words == 2 ? "" : "s", n - 1,
                      ops[i].words == 2 ? "get KEY"
                      : i == MC_SOP_SET ? "set KEY VALUE"
                                        : "incr KEY N");
    *op = (enum mc_sop)i;
    return 0;
}

int
mc_script_compile(struct mc_script *ms, const struct script *s, char *err)
{
    int vars[SCRIPT_MAX_PARAMS * 8], nrefs;

    memset(ms, 0, sizeof *ms);
    ms->s = s;
    ms->ops = xcalloc((size_t)s->ncmds + 1, sizeof *ms->ops);
    for (int i = 0; i < s->ncmds; i++) {
        const struct script_cmd *cmd = &s->cmds[i];
        size_t len;

        if (cmd->kind != SCRIPT_SQL)
            continue;
        if (compile_cmd(s, cmd, &ms->ops[i], err) < 0)
            return -1;
        nrefs = script_ref_vars(cmd, vars, (int)(sizeof vars / sizeof vars[0]));
        if (nrefs < 0)
            return seterr(err, "%s:%d: command has too many variable references (split it)",
                          s->name, cmd->line);
        len = strlen(cmd->sql) + 22u * (size_t)nrefs + 1;
        if (len > ms->line)
            ms->line = len;
        ms->request += len + 32; /* "set K 0 0 LEN\r\nV\r\n": the line and 32 bytes more */
        ms->ncmds++;
    }
    if (ms->ncmds == 0)
        return seterr(err, "%s has no command (add at least one line such as 'incr counter 1')",
                      s->name);
    return 0;
}

void
mc_script_free(struct mc_script *ms)
{
    free(ms->ops);
    memset(ms, 0, sizeof *ms);
}

/* Digits of v at out; returns the end. */
static char *
put_size(char *out, size_t v)
{
    char tmp[24], *d = tmp + sizeof tmp;

    do {
        *--d = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    memcpy(out, d, (size_t)(tmp + sizeof tmp - d));
    return out + (tmp + sizeof tmp - d);
}

/* One rendered command line as a text-protocol request at out; returns its end. */
static char *
put_request(char *out, enum mc_sop op, const char *line, size_t len)
{
    const char *w[3];
    size_t wl[3];

    if (op != MC_SOP_SET) {
        split_words(line, len, w, wl, 3);
        for (int i = 0; i < ops[op].words; i++) {
            if (i > 0)
                *out++ = ' ';
            memcpy(out, w[i], wl[i]);
            out += wl[i];
        }
    } else {
        split_words(line, len, w, wl, 3);
        memcpy(out, "set ", 4);
        memcpy(out + 4, w[1], wl[1]);
        out += 4 + wl[1];
        memcpy(out, " 0 0 ", 5);
        out = put_size(out + 5, wl[2]);
        *out++ = '\r';
        *out++ = '\n';
        memcpy(out, w[2], wl[2]);
        out += wl[2];
    }
    *out++ = '\r';
    *out++ = '\n';
    return out;
}

/* Where script_run_lines' commands go: requests at o, by the script's operations. */
struct request_out {
    const struct mc_script *ms;
    char *o;
};

static void
put_command(void *arg, int i, const char *line, size_t len)
{
    struct request_out *r = arg;

    r->o = put_request(r->o, r->ms->ops[i], line, len);
}

long
mc_script_render(const struct mc_script *ms, int64_t *vars, struct rng *rng, char *line,
                 size_t line_cap, char *out, char *err)
{
    struct request_out r = {ms, out};

    if (script_run_lines(ms->s, vars, rng, line, line_cap, put_command, &r, err) < 0)
        return -1;
    return r.o - out;
}

/* "123\r\n": an incr's or decr's new value. */
static size_t
number_line(const char *buf, size_t len)
{
    size_t i = 0;

    while (i < len && i < 21 && buf[i] >= '0' && buf[i] <= '9')
        i++;
    if (i == 0 || i + 2 > len || buf[i] != '\r' || buf[i + 1] != '\n')
        return 0;
    return i + 2;
}

static void
refused(struct mc_sop_state *st, const struct mc_reply *r, const char *word)
{
    st->failed = 1;
    snprintf(st->msg, sizeof st->msg, "%s%s%.*s", word, r->data_len ? " " : "", (int)r->data_len,
             r->data ? r->data : "");
}

ssize_t
mc_script_feed(enum mc_sop op, const char *buf, size_t len, struct mc_sop_state *st, size_t *need,
               char *err)
{
    struct mc_reply r;
    size_t n;
    ssize_t used;

    st->done = 0;
    if ((op == MC_SOP_INCR || op == MC_SOP_DECR) && (n = number_line(buf, len)) > 0) {
        st->done = 1;
        return (ssize_t)n;
    }
    used = mc_text_parse(buf, len, &r, need, err);
    if (used <= 0)
        return used;
    switch (r.kind) {
    case MC_R_ERROR:
    case MC_R_CLIENT_ERROR:
    case MC_R_SERVER_ERROR:
        refused(st, &r,
                r.kind == MC_R_ERROR          ? "ERROR"
                : r.kind == MC_R_CLIENT_ERROR ? "CLIENT_ERROR"
                                              : "SERVER_ERROR");
        st->done = 1;
        return used;
    case MC_R_VALUE:
        if (op == MC_SOP_GET)
            return used; /* END follows */
        break;
    case MC_R_END:
        st->done = op == MC_SOP_GET;
        break;
    case MC_R_STORED:
        st->done = op == MC_SOP_SET;
        break;
    case MC_R_NOT_STORED:
    case MC_R_EXISTS:
        if (op == MC_SOP_SET) {
            refused(st, &r, r.kind == MC_R_EXISTS ? "EXISTS" : "NOT_STORED");
            st->done = 1;
        }
        break;
    case MC_R_NOT_FOUND:
        if (op == MC_SOP_INCR || op == MC_SOP_DECR)
            refused(st, &r, "NOT_FOUND");
        st->done = op != MC_SOP_GET;
        break;
    case MC_R_OTHER: /* DELETED */
        st->done = op == MC_SOP_DELETE;
        break;
    default:
        break;
    }
    if (!st->done)
        return seterr(err, "unexpected reply to a scripted %s (protocol out of step)",
                      ops[op].name);
    return used;
}
