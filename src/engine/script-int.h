/*
 * script-int: what the script parser (script.c), its \set expressions
 * (script-expr.c) and its runner (script-run.c) share: the compiled forms
 * of expressions and statements, the parser's state, and its character
 * classes. Private to src/engine/script*.c.
 */
#ifndef BENCHTOP_SCRIPT_INT_H
#define BENCHTOP_SCRIPT_INT_H

#include <stddef.h>
#include <stdint.h>

struct script;

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

static inline int
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static inline int
is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline int
is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static inline size_t
ident_len(const char *p, const char *end)
{
    const char *q = p;

    while (q < end && is_ident_char(*q))
        q++;
    return (size_t)(q - p);
}

/* script-expr.c: the index of a variable named by name[0..len), or -1. */
int script_var_find(const struct script *s, const char *name, size_t len);
/* Formats "NAME:LINE: " + message into ps->err; returns -1. */
int script_perr(struct parser *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The error for a variable used before any \set of it; returns -1. */
int script_undefined_var(struct parser *ps, int line, const char *name, size_t len);
/* Compiles [ep->pos, ep->end) completely; the ops stay in ep (caller frees on error). 0 or -1. */
int expr_compile(struct expr_parser *ep);

#endif
