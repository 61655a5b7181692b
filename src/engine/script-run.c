/*
 * script-run: a parsed script's commands at run time: a statement or a
 * command line rendered with the variables' values (never allocating),
 * the command lines of a transaction run in order, and what a statement
 * refers to.
 */
#include "script.h"
#include "script-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Appends src to buf at *pos, keeping room for the final NUL; -1 if it does not fit. */
static int
put(char *buf, size_t len, size_t *pos, const char *src, size_t n)
{
    if (*pos + n >= len)
        return -1;
    memcpy(buf + *pos, src, n);
    *pos += n;
    return 0;
}

static int
put_value(char *buf, size_t len, size_t *pos, int64_t v, int is_line)
{
    char tmp[24];
    const char *digits = i64_dec(v, tmp); /* no printf: the render path never allocates */

    /* "a-:x" with x = -5 must not become "a--5", which SQL reads as a comment. */
    if (v < 0 && !is_line && *pos > 0 && buf[*pos - 1] == '-' && put(buf, len, pos, " ", 1) < 0)
        return -1;
    return put(buf, len, pos, digits, strlen(digits));
}

int
script_render(const struct script_cmd *cmd, const int64_t *vars, char *buf, size_t len)
{
    size_t pos = 0;

    for (int i = 0; i < cmd->nsegs; i++) {
        const struct script_seg *seg = &cmd->segs[i];
        int rc = seg->var < 0 ? put(buf, len, &pos, cmd->sql + seg->off, seg->len)
                              : put_value(buf, len, &pos, vars[seg->var], cmd->is_line);
        if (rc < 0)
            return -1;
    }
    if (pos >= len || pos > INT32_MAX)
        return -1;
    buf[pos] = '\0';
    return (int)pos;
}

int
script_run_lines(const struct script *s, int64_t *vars, struct rng *rng, char *line,
                 size_t line_cap, void (*emit_cmd)(void *arg, int i, const char *line, size_t len),
                 void *arg, char *err)
{
    for (int i = 0; i < s->ncmds; i++) {
        const struct script_cmd *cmd = &s->cmds[i];
        int len;

        if (cmd->kind == SCRIPT_SET) {
            if (script_eval(cmd, vars, rng, err) < 0)
                return -1;
            continue;
        }
        len = script_render(cmd, vars, line, line_cap);
        if (len < 0)
            return seterr(err, "%s:%d: command longer than its buffer", s->name, cmd->line);
        emit_cmd(arg, i, line, (size_t)len);
    }
    return 0;
}

int
script_ref_vars(const struct script_cmd *cmd, int *vars, int max)
{
    int n = 0;

    for (int i = 0; i < cmd->nsegs; i++) {
        if (cmd->segs[i].var < 0)
            continue;
        if (n == max)
            return -1;
        vars[n++] = cmd->segs[i].var;
    }
    return n;
}

char *
script_sql_marks(const struct script_cmd *cmd)
{
    size_t len = 1, pos = 0;
    char *out;

    for (int i = 0; i < cmd->nsegs; i++)
        len += cmd->segs[i].var < 0 ? cmd->segs[i].len : 1;
    out = xmalloc(len);
    for (int i = 0; i < cmd->nsegs; i++) {
        const struct script_seg *seg = &cmd->segs[i];
        if (seg->var >= 0) {
            out[pos++] = '?';
            continue;
        }
        memcpy(out + pos, cmd->sql + seg->off, seg->len);
        pos += seg->len;
    }
    out[pos] = '\0';
    return out;
}
