/*
 * script: parses pgbench-style transaction scripts into commands.
 *
 * The text is read line by line. SQL lines accumulate until a line ends with
 * ';' outside a quoted string; "\set" lines compile their expression into a
 * small RPN program so that script_eval runs with a fixed stack and never
 * allocates in the measured loop. Every problem is reported as one line
 * "NAME:LINE: problem (fix)" at the line where it is.
 */
#include "script.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/util.h"

enum {
    /* Caps parser recursion so hostile input like "((((..." cannot exhaust the C stack. */
    EXPR_MAX_NEST = 32,
    /* Evaluation stack; compile checks the real need against it, so eval needs no check. */
    EXPR_STACK = 128,
};

enum expr_opcode {
    OP_CONST,
    OP_VAR,
    OP_NEG,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_RANDOM,
};

struct expr_op {
    enum expr_opcode op;
    int64_t val; /* OP_CONST: the value; OP_VAR: the variable index */
};

struct script_expr {
    char *label; /* "NAME:LINE: \set x", prefix of runtime errors (eval has no script) */
    int nops;
    struct expr_op *ops;
};

/* A piece of a statement: literal text of sql, or a variable reference. */
struct script_seg {
    int var; /* -1 for literal text */
    size_t off, len;
};

enum tok_kind {
    T_END,
    T_NUM,
    T_VAR,
    T_IDENT,
    T_OP,
    T_LPAREN,
    T_RPAREN,
    T_COMMA,
};

/* The statement being accumulated over several lines. */
struct pending {
    int active;
    int start_line, last_line;
    int in_quote;
    int quote_line; /* where the open quote started, for the "never closed" error */
    char *buf;
    size_t len, cap;
};

struct parser {
    struct script *s;
    char *err;
    int lines; /* one command a line (script_parse_lines) instead of SQL statements */
    struct pending st;
};

/* One \set expression being compiled. */
struct expr_parser {
    struct parser *ps;
    int line;
    const char *line_start; /* columns in messages count from here */
    const char *pos, *end;
    const char *vname; /* the \set target, for messages */
    int vlen;

    enum tok_kind tok;
    const char *tok_start;
    size_t tok_len;
    int64_t tok_num;
    int tok_min; /* the number was 9223372036854775808, valid only after a unary '-' */

    struct expr_op *ops;
    int nops, cap;
    int depth, maxdepth;
    int nest;
};

static int
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int
is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static size_t
ident_len(const char *p, const char *end)
{
    const char *q = p;

    while (q < end && is_ident_char(*q))
        q++;
    return (size_t)(q - p);
}

static int
var_find(const struct script *s, const char *name, size_t len)
{
    for (int i = 0; i < s->nvars; i++)
        if (strncmp(s->var_names[i], name, len) == 0 && s->var_names[i][len] == '\0')
            return i;
    return -1;
}

static int perr(struct parser *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Formats "NAME:LINE: " + message into ps->err; returns -1. */
static int
perr(struct parser *ps, int line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(ps->err, BT_ERRLEN, "%s:%d: ", ps->s->name, line);

    if (n < 0 || n >= BT_ERRLEN)
        return -1;
    va_start(ap, fmt);
    vsnprintf(ps->err + n, BT_ERRLEN - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int
add_var(struct parser *ps, int line, const char *name, size_t len)
{
    struct script *s = ps->s;

    if (s->nvars == SCRIPT_MAX_VARS)
        return perr(ps, line,
                    "too many variables: '%.*s' would be number %d (at most %d; reuse one)",
                    (int)len, name, s->nvars + 1, SCRIPT_MAX_VARS);
    s->var_names[s->nvars] = xstrndup(name, len);
    return s->nvars++;
}

static int
undefined_var(struct parser *ps, int line, const char *name, size_t len)
{
    return perr(ps, line, "variable '%.*s' is used but never set (add '\\set %.*s ...' before it)",
                (int)len, name, (int)len, name);
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

/* ---- \set expressions ---- */

static int
column(const struct expr_parser *ep)
{
    return (int)(ep->tok_start - ep->line_start) + 1;
}

/* Error inside "\set NAME": prefixes the target so the user sees which \set. */
static int eperr(struct expr_parser *ep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
eperr(struct expr_parser *ep, const char *fmt, ...)
{
    char msg[BT_ERRLEN];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return perr(ep->ps, ep->line, "\\set %.*s: %s", ep->vlen, ep->vname, msg);
}

/* The current token as "'text'" or "the end of the line", for messages. */
static const char *
tok_desc(const struct expr_parser *ep, char *buf, size_t len)
{
    if (ep->tok == T_END)
        return "the end of the line";
    snprintf(buf, len, "'%.*s'", (int)ep->tok_len, ep->tok_start);
    return buf;
}

static int
too_large(struct expr_parser *ep)
{
    return eperr(ep, "integer at column %d is too large (the maximum is %" PRId64 ")", column(ep),
                 INT64_MAX);
}

static int
lex_number(struct expr_parser *ep)
{
    const char *p = ep->pos;

    /* 2^63 is read too, so that '-' can make it INT64_MIN (parse_unary); alone it is too large */
    uint64_t v = 0;

    while (p < ep->end && *p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p - '0');
        if (v > ((uint64_t)INT64_MAX + 1 - d) / 10)
            return too_large(ep);
        v = v * 10 + d;
        p++;
    }
    ep->tok = T_NUM;
    ep->tok_min = v == (uint64_t)INT64_MAX + 1;
    ep->tok_num = ep->tok_min ? INT64_MIN : (int64_t)v;
    ep->tok_len = (size_t)(p - ep->pos);
    return 0;
}

static int
lex_symbol(struct expr_parser *ep)
{
    char c = *ep->pos;

    ep->tok_len = 1;
    if (strchr("+-*/%", c) != NULL)
        ep->tok = T_OP;
    else if (c == '(')
        ep->tok = T_LPAREN;
    else if (c == ')')
        ep->tok = T_RPAREN;
    else if (c == ',')
        ep->tok = T_COMMA;
    else if (c == ':')
        return eperr(ep,
                     "':' at column %d is not followed by a name (write :name to use a variable)",
                     column(ep));
    else
        return eperr(ep,
                     "unexpected character '%c' at column %d (operators are + - * / %%, "
                     "variables are :name)",
                     c, column(ep));
    return 0;
}

/* Reads the next token into ep->tok*; 0 or -1 with the error set. */
static int
next_token(struct expr_parser *ep)
{
    while (ep->pos < ep->end && is_space(*ep->pos))
        ep->pos++;
    ep->tok_start = ep->pos;
    ep->tok_len = 0;
    if (ep->pos == ep->end) {
        ep->tok = T_END;
        return 0;
    }
    if (*ep->pos >= '0' && *ep->pos <= '9') {
        if (lex_number(ep) < 0)
            return -1;
    } else if (*ep->pos == ':' && ep->pos + 1 < ep->end && is_ident_start(ep->pos[1])) {
        ep->tok = T_VAR;
        ep->tok_len = 1 + ident_len(ep->pos + 1, ep->end);
    } else if (is_ident_start(*ep->pos)) {
        ep->tok = T_IDENT;
        ep->tok_len = ident_len(ep->pos, ep->end);
    } else if (lex_symbol(ep) < 0) {
        return -1;
    }
    ep->pos += ep->tok_len;
    return 0;
}

static int
tok_is_op(const struct expr_parser *ep, const char *ops)
{
    return ep->tok == T_OP && strchr(ops, *ep->tok_start) != NULL;
}

/* Appends one RPN instruction, tracking the stack depth it will need at eval time. */
static int
emit(struct expr_parser *ep, enum expr_opcode op, int64_t val)
{
    if (ep->nops == ep->cap) {
        ep->cap = ep->cap ? ep->cap * 2 : 8;
        ep->ops = xrealloc(ep->ops, (size_t)ep->cap * sizeof(*ep->ops));
    }
    ep->ops[ep->nops].op = op;
    ep->ops[ep->nops].val = val;
    ep->nops++;
    if (op == OP_CONST || op == OP_VAR)
        ep->depth++;
    else if (op != OP_NEG)
        ep->depth--; /* binary operators and random() take two and leave one */
    if (ep->depth > ep->maxdepth)
        ep->maxdepth = ep->depth;
    if (ep->maxdepth > EXPR_STACK)
        return eperr(ep, "expression is too complex at column %d (split it over several \\set)",
                     column(ep));
    return 0;
}

static int
enter(struct expr_parser *ep)
{
    if (++ep->nest > EXPR_MAX_NEST)
        return eperr(ep, "expression nests too deeply at column %d (at most %d levels)", column(ep),
                     EXPR_MAX_NEST);
    return 0;
}

static int parse_sum(struct expr_parser *ep);

/* A nested sub-expression (parenthesis, function argument, unary operand). */
static int
parse_nested_sum(struct expr_parser *ep)
{
    if (enter(ep) < 0 || parse_sum(ep) < 0)
        return -1;
    ep->nest--;
    return 0;
}

static int
expect(struct expr_parser *ep, enum tok_kind kind, const char *what, const char *fix)
{
    char buf[BT_ERRLEN];

    if (ep->tok == kind)
        return next_token(ep);
    return eperr(ep, "expected %s at column %d but found %s (%s)", what, column(ep),
                 tok_desc(ep, buf, sizeof(buf)), fix);
}

/* name(...) or a bare name; only random(lo, hi) exists. */
static int
parse_call(struct expr_parser *ep)
{
    const char *name = ep->tok_start;
    int len = (int)ep->tok_len;
    int col = column(ep);

    if (next_token(ep) < 0)
        return -1;
    if (ep->tok != T_LPAREN)
        return eperr(ep,
                     "'%.*s' at column %d is neither a number nor a function (write ':%.*s' "
                     "to use a variable)",
                     len, name, col, len, name);
    if (len != 6 || strncmp(name, "random", 6) != 0)
        return eperr(ep, "unknown function '%.*s' at column %d (use random(lo, hi))", len, name,
                     col);
    if (next_token(ep) < 0 || parse_nested_sum(ep) < 0 ||
        expect(ep, T_COMMA, "','", "random takes two arguments: random(lo, hi)") < 0 ||
        parse_nested_sum(ep) < 0 ||
        expect(ep, T_RPAREN, "')'", "random takes two arguments: random(lo, hi)") < 0)
        return -1;
    return emit(ep, OP_RANDOM, 0);
}

static int
parse_var_ref(struct expr_parser *ep)
{
    const char *name = ep->tok_start + 1;
    size_t len = ep->tok_len - 1;
    int var = var_find(ep->ps->s, name, len);

    if (var < 0)
        return undefined_var(ep->ps, ep->line, name, len);
    if (emit(ep, OP_VAR, var) < 0)
        return -1;
    return next_token(ep);
}

static int
parse_primary(struct expr_parser *ep)
{
    char buf[BT_ERRLEN];

    switch (ep->tok) {
    case T_NUM:
        if (ep->tok_min)
            return too_large(ep);
        if (emit(ep, OP_CONST, ep->tok_num) < 0)
            return -1;
        return next_token(ep);
    case T_VAR:
        return parse_var_ref(ep);
    case T_IDENT:
        return parse_call(ep);
    case T_LPAREN:
        if (next_token(ep) < 0 || parse_nested_sum(ep) < 0)
            return -1;
        return expect(ep, T_RPAREN, "')'", "close the parenthesis");
    case T_END:
        return eperr(ep,
                     "expression ends too early at column %d (add the missing operand: a "
                     "number, :variable, random(lo, hi) or '(...)')",
                     column(ep));
    default:
        return eperr(ep,
                     "unexpected %s at column %d (expected a number, :variable, "
                     "random(lo, hi) or '(')",
                     tok_desc(ep, buf, sizeof(buf)), column(ep));
    }
}

static int
parse_unary(struct expr_parser *ep)
{
    char op;

    if (!tok_is_op(ep, "+-"))
        return parse_primary(ep);
    op = *ep->tok_start;
    if (next_token(ep) < 0)
        return -1;
    if (op == '-' && ep->tok == T_NUM && ep->tok_min) /* the literal -9223372036854775808 */
        return emit(ep, OP_CONST, INT64_MIN) < 0 ? -1 : next_token(ep);
    if (enter(ep) < 0 || parse_unary(ep) < 0)
        return -1;
    ep->nest--;
    return op == '-' ? emit(ep, OP_NEG, 0) : 0;
}

static enum expr_opcode
binary_opcode(char c)
{
    switch (c) {
    case '+':
        return OP_ADD;
    case '-':
        return OP_SUB;
    case '*':
        return OP_MUL;
    case '/':
        return OP_DIV;
    default:
        return OP_MOD;
    }
}

/* A left-associative chain of operands joined by any of ops: one precedence level. */
static int
parse_chain(struct expr_parser *ep, const char *ops, int (*operand)(struct expr_parser *))
{
    if (operand(ep) < 0)
        return -1;
    while (tok_is_op(ep, ops)) {
        enum expr_opcode op = binary_opcode(*ep->tok_start);
        if (next_token(ep) < 0 || operand(ep) < 0 || emit(ep, op, 0) < 0)
            return -1;
    }
    return 0;
}

static int
parse_term(struct expr_parser *ep)
{
    return parse_chain(ep, "*/%", parse_unary);
}

static int
parse_sum(struct expr_parser *ep)
{
    return parse_chain(ep, "+-", parse_term);
}

/* Compiles [ep->pos, ep->end) completely; the ops stay in ep (caller frees on error). */
static int
compile_expr(struct expr_parser *ep)
{
    char buf[BT_ERRLEN];

    if (next_token(ep) < 0 || parse_sum(ep) < 0)
        return -1;
    if (ep->tok != T_END)
        return eperr(ep,
                     "unexpected %s at column %d (expected an operator + - * / %% or the end "
                     "of the expression)",
                     tok_desc(ep, buf, sizeof(buf)), column(ep));
    return 0;
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
    return perr(ps, line,
                "\\set needs a variable name and an expression (write '\\set name EXPR', "
                "e.g. '\\set aid random(1, 100000)')");
}

/* Adds the SCRIPT_SET command; the target is registered only after the expression compiled,
 * so "\set x :x + 1" without an earlier x is reported as a use before set. */
static int
add_set(struct expr_parser *ep)
{
    struct script_cmd *cmd;
    int var = var_find(ep->ps->s, ep->vname, (size_t)ep->vlen);

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
    rc = compile_expr(&ep);
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
        return perr(ps, line, "unknown meta command '\\%.*s' (only \\set is supported)",
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
    int var = var_find(ps->s, name, len);
    int param;

    if (var < 0)
        return undefined_var(ps, line, name, len);
    param = param_of(cmd, var);
    if (param < 0)
        return perr(ps, line,
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
        return perr(ps, st->quote_line, "quoted string is never closed (add the closing ')");
    return perr(ps, st->last_line,
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
            return perr(ps, line, "line is longer than %d bytes (split it over several lines)",
                        SCRIPT_MAX_LINE);
        if (parse_line(ps, line, text, len) < 0)
            return -1;
        text += eol ? len + 1 : len;
    }
    if (ps->st.active)
        return unterminated(ps);
    if (ps->s->ncmds == 0 && ps->lines)
        return perr(ps, 1, "script has no commands (add at least one command line)");
    if (ps->s->ncmds == 0)
        return perr(ps, 1,
                    "script has no commands (add at least one SQL statement ending "
                    "with ';')");
    return 0;
}

static int
add_predef(struct parser *ps, const char *const *predef)
{
    for (; predef != NULL && *predef != NULL; predef++)
        if (var_find(ps->s, *predef, strlen(*predef)) < 0 &&
            add_var(ps, 1, *predef, strlen(*predef)) < 0)
            return -1;
    return 0;
}

/* ---- evaluation and rendering ---- */

static int
out_of_range(const struct script_expr *e, char *err)
{
    return seterr(err, "%s: bigint out of range (keep every intermediate result within 64 bits)",
                  e->label);
}

/* Overflow is an error, as in pgbench: a wrapped key would silently hit the wrong rows. */
static int
apply_binary(const struct script_expr *e, enum expr_opcode op, int64_t a, int64_t b, int64_t *res,
             char *err)
{
    switch (op) {
    case OP_ADD:
        return __builtin_add_overflow(a, b, res) ? out_of_range(e, err) : 0;
    case OP_SUB:
        return __builtin_sub_overflow(a, b, res) ? out_of_range(e, err) : 0;
    case OP_MUL:
        return __builtin_mul_overflow(a, b, res) ? out_of_range(e, err) : 0;
    default:
        break;
    }
    if (b == 0)
        return seterr(err, "%s: %s by zero (make sure the right operand is never 0)", e->label,
                      op == OP_DIV ? "division" : "modulo");
    /* INT64_MIN / -1 traps on x86; the remainder by -1 is always 0. */
    if (b == -1) {
        if (op == OP_DIV && a == INT64_MIN)
            return out_of_range(e, err);
        *res = op == OP_DIV ? -a : 0;
    } else
        *res = op == OP_DIV ? a / b : a % b;
    return 0;
}

static int
apply_random(const struct script_expr *e, int64_t lo, int64_t hi, struct rng *rng, int64_t *res,
             char *err)
{
    if (lo > hi)
        return seterr(err, "%s: random(%" PRId64 ", %" PRId64 ") has lo > hi (make sure lo <= hi)",
                      e->label, lo, hi);
    *res = rng_range(rng, lo, hi);
    return 0;
}

/* Runs one RPN instruction; compile_expr guaranteed the stack depth fits. */
static int
eval_op(const struct script_expr *e, const struct expr_op *op, int64_t *stack, int *sp,
        const int64_t *vars, struct rng *rng, char *err)
{
    switch (op->op) {
    case OP_CONST:
        stack[(*sp)++] = op->val;
        return 0;
    case OP_VAR:
        stack[(*sp)++] = vars[op->val];
        return 0;
    case OP_NEG:
        if (stack[*sp - 1] == INT64_MIN)
            return out_of_range(e, err);
        stack[*sp - 1] = -stack[*sp - 1];
        return 0;
    case OP_RANDOM:
        --*sp;
        return apply_random(e, stack[*sp - 1], stack[*sp], rng, &stack[*sp - 1], err);
    default:
        --*sp;
        return apply_binary(e, op->op, stack[*sp - 1], stack[*sp], &stack[*sp - 1], err);
    }
}

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
    return var_find(s, name, strlen(name));
}

int
script_eval(const struct script_cmd *cmd, int64_t *vars, struct rng *rng, char *err)
{
    const struct script_expr *e = cmd->expr;
    int64_t stack[EXPR_STACK];
    int sp = 0;

    if (cmd->kind != SCRIPT_SET || e == NULL)
        return seterr(err, "line %d: not a \\set command (internal error)", cmd->line);
    for (int i = 0; i < e->nops; i++)
        if (eval_op(e, &e->ops[i], stack, &sp, vars, rng, err) < 0)
            return -1;
    vars[cmd->var] = stack[0];
    return 0;
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
