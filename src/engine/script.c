/*
 * script: parses pgbench-style transaction scripts into commands.
 *
 * The text is read line by line. SQL lines accumulate until a line ends with
 * ';' outside a quoted string; "\set" lines compile their expression
 * (script-expr.c) into a small RPN program so that script_eval runs with a
 * fixed stack and never allocates in the measured loop; script-run.c
 * renders and runs the commands. Every problem is reported as one line
 * "NAME:LINE: problem (fix)" at the line where it is.
 */
#include "script.h"
#include "script-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/util.h"

static int
add_var(struct parser *ps, int line, const char *name, size_t len)
{
    struct script *s = ps->s;

    if (s->nvars == SCRIPT_MAX_VARS)
        return script_perr(ps, line,
                           "too many variables: '%.*s' would be number %d (at most %d; reuse one)",
                           (int)len, name, s->nvars + 1, SCRIPT_MAX_VARS);
    s->var_names[s->nvars] = xstrndup(name, len);
    return s->nvars++;
}

static struct script_cmd *
new_cmd(struct script *s, enum script_cmd_kind kind, int line)
{
    struct script_cmd *cmd;

    /* Doubling would be faster, but scripts are a few dozen commands parsed once. */
    s->cmds = xrealloc(s->cmds, (size_t)(s->ncmds + 1) * sizeof(*s->cmds));
    cmd = &s->cmds[s->ncmds++];
    memset(cmd, 0, sizeof(*cmd));
    cmd->kind = kind;
    cmd->line = line;
    cmd->var = -1;
    return cmd;
}

/* ---- meta lines ---- */

static const char *
skip_space(const char *p, const char *end)
{
    while (p < end && is_space(*p))
        p++;
    return p;
}

static const char *
trim_end(const char *start, const char *end)
{
    while (end > start && is_space(end[-1]))
        end--;
    return end;
}

/* End of the meta line's content: a "--" comment is cut like in SQL lines. */
static const char *
meta_end(const char *p, const char *end)
{
    for (const char *q = p; q + 1 < end; q++)
        if (q[0] == '-' && q[1] == '-')
            return q;
    return end;
}

static int
set_usage(struct parser *ps, int line)
{
    return script_perr(ps, line,
                       "\\set needs a variable name and an expression (write '\\set name EXPR', "
                       "e.g. '\\set aid random(1, 100000)')");
}

/* Adds the SCRIPT_SET command; the target is registered only after the expression compiled,
 * so "\set x :x + 1" without an earlier x is reported as a use before set. */
static int
add_set(struct expr_parser *ep)
{
    struct script_cmd *cmd;
    int var = script_var_find(ep->ps->s, ep->vname, (size_t)ep->vlen);

    if (var < 0)
        var = add_var(ep->ps, ep->line, ep->vname, (size_t)ep->vlen);
    if (var < 0)
        return -1;
    cmd = new_cmd(ep->ps->s, SCRIPT_SET, ep->line);
    cmd->var = var;
    cmd->expr = xcalloc(1, sizeof(*cmd->expr));
    cmd->expr->label =
        xasprintf("%s:%d: \\set %.*s", ep->ps->s->name, ep->line, ep->vlen, ep->vname);
    cmd->expr->ops = ep->ops;
    cmd->expr->nops = ep->nops;
    ep->ops = NULL;
    return 0;
}

/* "\set name EXPR"; p points after the "\set". */
static int
parse_set(struct parser *ps, int line, const char *line_start, const char *p, const char *end)
{
    struct expr_parser ep = {.ps = ps, .line = line, .line_start = line_start};
    size_t nlen;
    int rc;

    p = skip_space(p, end);
    nlen = p < end && is_ident_start(*p) ? ident_len(p, end) : 0;
    if (nlen == 0 || (p + nlen < end && !is_space(p[nlen])))
        return set_usage(ps, line);
    ep.vname = p;
    ep.vlen = (int)nlen;
    ep.pos = skip_space(p + nlen, end);
    ep.end = end;
    if (ep.pos == end)
        return set_usage(ps, line);
    rc = expr_compile(&ep);
    if (rc == 0)
        rc = add_set(&ep);
    free(ep.ops);
    return rc;
}

static int
parse_meta(struct parser *ps, int line, const char *p, size_t len)
{
    const char *end = p + len;
    const char *name = skip_space(p, end) + 1; /* after the backslash */
    const char *q = name;

    while (q < end && !is_space(*q))
        q++;
    if (q - name != 3 || strncmp(name, "set", 3) != 0)
        return script_perr(ps, line, "unknown meta command '\\%.*s' (only \\set is supported)",
                           (int)(q - name), name);
    end = trim_end(q, meta_end(q, end));
    return parse_set(ps, line, p, q, end);
}

/* ---- SQL statements ---- */

/*
 * Index of the next variable reference at or after i, or len. Tracks quotes
 * in *in_quote. In command lines (lines) quotes are data and "counter::id"
 * is "counter:" and a reference.
 */
static size_t
next_ref(const char *sql, size_t i, size_t len, int *in_quote, int lines)
{
    for (; i < len; i++) {
        if (lines) {
            if (sql[i] == ':' && i + 1 < len && is_ident_start(sql[i + 1]))
                return i;
        } else if (sql[i] == '\'')
            *in_quote = !*in_quote;
        else if (!*in_quote && sql[i] == ':' && (i == 0 || sql[i - 1] != ':') && i + 1 < len &&
                 is_ident_start(sql[i + 1]))
            return i; /* "::int" fails both tests: second char is ':' and follows ':' */
    }
    return len;
}

static int
count_lines(const char *p, size_t len)
{
    int n = 0;

    for (size_t i = 0; i < len; i++)
        n += p[i] == '\n';
    return n;
}

/* The $n of var in this statement, adding it if new; -1 if the statement has too many. */
static int
param_of(struct script_cmd *cmd, int var)
{
    for (int i = 0; i < cmd->nparams; i++)
        if (cmd->param_var[i] == var)
            return i + 1;
    if (cmd->nparams == SCRIPT_MAX_PARAMS)
        return -1;
    cmd->param_var[cmd->nparams++] = var;
    return cmd->nparams;
}

static void
add_seg(struct script_cmd *cmd, int var, size_t off, size_t len)
{
    struct script_seg *seg = &cmd->segs[cmd->nsegs++];

    seg->var = var;
    seg->off = off;
    seg->len = len;
}

/* Records the reference at sql[at] (":name"); appends "$n" to *out. */
static int
add_ref(struct parser *ps, struct script_cmd *cmd, size_t at, char **out)
{
    const char *name = cmd->sql + at + 1;
    size_t len = ident_len(name, name + strlen(name));
    int line = cmd->line + count_lines(cmd->sql, at);
    int var = script_var_find(ps->s, name, len);
    int param;

    if (var < 0)
        return script_undefined_var(ps, line, name, len);
    param = param_of(cmd, var);
    if (param < 0)
        return script_perr(ps, line,
                           "statement uses more than %d different variables (split it into smaller "
                           "statements)",
                           SCRIPT_MAX_PARAMS);
    add_seg(cmd, var, at, len + 1);
    *out += sprintf(*out, "$%d", param);
    return 0;
}

/* Splits cmd->sql into literal and reference segments and builds sql_params. */
static int
split_refs(struct parser *ps, struct script_cmd *cmd)
{
    size_t len = strlen(cmd->sql), lit = 0, i;
    int in_quote = 0, nrefs = 0;
    char *out;

    for (i = next_ref(cmd->sql, 0, len, &in_quote, ps->lines); i < len;
         i = next_ref(cmd->sql, i + 1, len, &in_quote, ps->lines))
        nrefs++;
    cmd->segs = xcalloc((size_t)(2 * nrefs + 1), sizeof(*cmd->segs));
    /* "$32" is at most one byte longer than the shortest reference ":a". */
    cmd->sql_params = out = xmalloc(len + (size_t)nrefs + 1);
    in_quote = 0;
    for (i = next_ref(cmd->sql, 0, len, &in_quote, ps->lines); i < len;
         i = next_ref(cmd->sql, lit, len, &in_quote, ps->lines)) {
        add_seg(cmd, -1, lit, i - lit);
        memcpy(out, cmd->sql + lit, i - lit);
        out += i - lit;
        if (add_ref(ps, cmd, i, &out) < 0)
            return -1;
        lit = i + cmd->segs[cmd->nsegs - 1].len;
    }
    add_seg(cmd, -1, lit, len - lit);
    memcpy(out, cmd->sql + lit, len - lit);
    out[len - lit] = '\0';
    return 0;
}

/* Length of the line's content before a "--" comment, updating the quote state. */
static size_t
sql_content(struct pending *st, int line, const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '\'') {
            st->in_quote = !st->in_quote;
            if (st->in_quote)
                st->quote_line = line;
        } else if (!st->in_quote && p[i] == '-' && i + 1 < len && p[i + 1] == '-') {
            return i;
        }
    }
    return len;
}

static void
pending_append(struct pending *st, const char *p, size_t len)
{
    if (st->len + len + 2 > st->cap) {
        st->cap = (st->len + len + 2) * 2;
        st->buf = xrealloc(st->buf, st->cap);
    }
    if (st->len > 0)
        st->buf[st->len++] = '\n';
    memcpy(st->buf + st->len, p, len);
    st->len += len;
    st->buf[st->len] = '\0';
}

/* The pending statement ended with ';': compile it and start over. */
static int
finish_statement(struct parser *ps)
{
    struct pending *st = &ps->st;
    const char *start = skip_space(st->buf, st->buf + st->len);
    const char *end = trim_end(start, st->buf + st->len - 1); /* drop the ';' */
    struct script_cmd *cmd;

    st->active = 0;
    st->len = 0;
    if (start == end)
        return 0; /* a lone ';' is an empty statement, harmless */
    cmd = new_cmd(ps->s, SCRIPT_SQL, st->start_line);
    cmd->sql = xstrndup(start, (size_t)(end - start));
    return split_refs(ps, cmd);
}

static int
add_sql_line(struct parser *ps, int line, const char *p, size_t len)
{
    struct pending *st = &ps->st;
    int was_quoted = st->in_quote;
    size_t n = sql_content(st, line, p, len);

    /* Inside a quoted string, trailing spaces are data, not layout. */
    if (!st->in_quote)
        n = (size_t)(trim_end(p, p + n) - p);
    if (n == 0 && !was_quoted)
        return 0; /* blank or comment-only line */
    if (!st->active) {
        st->active = 1;
        st->start_line = line;
    }
    st->last_line = line;
    pending_append(st, p, n);
    if (!st->in_quote && n > 0 && p[n - 1] == ';')
        return finish_statement(ps);
    return 0;
}

static int
unterminated(struct parser *ps)
{
    struct pending *st = &ps->st;

    if (st->in_quote)
        return script_perr(ps, st->quote_line, "quoted string is never closed (add the closing ')");
    return script_perr(
        ps, st->last_line,
        "statement starting on line %d has no ending ';' (put ';' at the end of its last "
        "line)",
        st->start_line);
}

/* A command line: the whole line but its outer spaces; '#' starts a comment line. */
static int
add_command_line(struct parser *ps, int line, const char *p, size_t len)
{
    const char *start = skip_space(p, p + len), *end = trim_end(start, p + len);
    struct script_cmd *cmd;

    if (start == end || *start == '#')
        return 0;
    cmd = new_cmd(ps->s, SCRIPT_SQL, line);
    cmd->sql = xstrndup(start, (size_t)(end - start));
    cmd->is_line = 1;
    return split_refs(ps, cmd);
}

static int
parse_line(struct parser *ps, int line, const char *p, size_t len)
{
    const char *q = skip_space(p, p + len);

    if (ps->lines)
        return q < p + len && *q == '\\' ? parse_meta(ps, line, p, len)
                                         : add_command_line(ps, line, p, len);

    /* A backslash inside a multi-line quoted string is data, not a meta command. */
    if (!ps->st.in_quote && q < p + len && *q == '\\') {
        if (ps->st.active)
            return unterminated(ps);
        return parse_meta(ps, line, p, len);
    }
    return add_sql_line(ps, line, p, len);
}

static int
parse_text(struct parser *ps, const char *text)
{
    int line = 0;

    while (*text != '\0') {
        const char *eol = strchr(text, '\n');
        size_t len = eol ? (size_t)(eol - text) : strlen(text);

        line++;
        if (len > SCRIPT_MAX_LINE)
            return script_perr(ps, line,
                               "line is longer than %d bytes (split it over several lines)",
                               SCRIPT_MAX_LINE);
        if (parse_line(ps, line, text, len) < 0)
            return -1;
        text += eol ? len + 1 : len;
    }
    if (ps->st.active)
        return unterminated(ps);
    if (ps->s->ncmds == 0 && ps->lines)
        return script_perr(ps, 1, "script has no commands (add at least one command line)");
    if (ps->s->ncmds == 0)
        return script_perr(ps, 1,
                           "script has no commands (add at least one SQL statement ending "
                           "with ';')");
    return 0;
}

static int
add_predef(struct parser *ps, const char *const *predef)
{
    for (; predef != NULL && *predef != NULL; predef++)
        if (script_var_find(ps->s, *predef, strlen(*predef)) < 0 &&
            add_var(ps, 1, *predef, strlen(*predef)) < 0)
            return -1;
    return 0;
}

/* ---- public ---- */

static struct script *
parse_as(const char *name, const char *text, const char *const *predef, int lines, char *err)
{
    struct parser ps = {.err = err, .lines = lines};
    int rc;

    ps.s = xcalloc(1, sizeof(*ps.s));
    ps.s->name = xstrdup(name);
    rc = add_predef(&ps, predef);
    if (rc == 0)
        rc = parse_text(&ps, text);
    free(ps.st.buf);
    if (rc < 0) {
        script_free(ps.s);
        return NULL;
    }
    return ps.s;
}

struct script *
script_parse(const char *name, const char *text, const char *const *predef, char *err)
{
    return parse_as(name, text, predef, 0, err);
}

struct script *
script_parse_lines(const char *name, const char *text, const char *const *predef, char *err)
{
    return parse_as(name, text, predef, 1, err);
}

static const struct file_ask script_file = {
    .what = "script", .option = "-f", .kind = "a script file", .max = SCRIPT_MAX_BYTES, .text = 1};

struct script *
script_load(const char *path, const char *const *predef, int lines, char *err)
{
    char *buf = file_read(path, &script_file, NULL, err);
    struct script *s;

    if (buf == NULL)
        return NULL;
    s = parse_as(path, buf, predef, lines, err);
    free(buf);
    return s;
}

void
script_free(struct script *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->ncmds; i++) {
        struct script_cmd *cmd = &s->cmds[i];
        free(cmd->sql);
        free(cmd->sql_params);
        free(cmd->segs);
        if (cmd->expr != NULL) {
            free(cmd->expr->label);
            free(cmd->expr->ops);
            free(cmd->expr);
        }
    }
    for (int i = 0; i < s->nvars; i++)
        free(s->var_names[i]);
    free(s->cmds);
    free(s->name);
    free(s);
}

int
script_var(const struct script *s, const char *name)
{
    return script_var_find(s, name, strlen(name));
}
