/*
 * script-expr: the \set expressions of scripts: numbers, :variables,
 * + - * / %, parentheses and random(lo, hi), compiled into a small RPN
 * program once, when the script is parsed, and run per transaction
 * (script_eval) with a fixed stack and no allocation. Overflow and division
 * by zero are errors, as in pgbench. Also the parser's error line and
 * variable lookup, which script.c uses too.
 */
#include "script.h"
#include "script-int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

int
script_var_find(const struct script *s, const char *name, size_t len)
{
    for (int i = 0; i < s->nvars; i++)
        if (strncmp(s->var_names[i], name, len) == 0 && s->var_names[i][len] == '\0')
            return i;
    return -1;
}

int
script_perr(struct parser *ps, int line, const char *fmt, ...)
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

int
script_undefined_var(struct parser *ps, int line, const char *name, size_t len)
{
    return script_perr(ps, line,
                       "variable '%.*s' is used but never set (add '\\set %.*s ...' before it)",
                       (int)len, name, (int)len, name);
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
    return script_perr(ep->ps, ep->line, "\\set %.*s: %s", ep->vlen, ep->vname, msg);
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
    int var = script_var_find(ep->ps->s, name, len);

    if (var < 0)
        return script_undefined_var(ep->ps, ep->line, name, len);
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

int
expr_compile(struct expr_parser *ep)
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

/* ---- evaluation ---- */

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

/* Runs one RPN instruction; expr_compile guaranteed the stack depth fits. */
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
