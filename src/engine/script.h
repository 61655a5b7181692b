/*
 * script: pgbench-style transaction scripts.
 *
 * A script is the text of one transaction: SQL statements (each ends with a
 * ';' at the end of a line and may span lines) that reference integer
 * variables as :name, and meta lines "\set name EXPR" where EXPR is integer
 * arithmetic (+ - * / %, unary minus, parentheses, integer literals, :name
 * references) and the function random(lo, hi) (uniform, inclusive).
 * "--" starts a comment to the end of the line outside quotes; blank lines
 * are skipped. "::" (a cast) is never a variable reference.
 *
 * The built-in workloads are scripts too, so one code path runs both.
 * Parsing is pure: text in, struct out; no server is needed.
 */
#ifndef BENCHTOP_SCRIPT_H
#define BENCHTOP_SCRIPT_H

#include <stddef.h>
#include <stdint.h>
#include "base/rand.h"

#define SCRIPT_MAX_VARS 64
#define SCRIPT_MAX_PARAMS 32
#define SCRIPT_MAX_BYTES (4 << 20) /* a -f file; /dev/zero must not fill the memory */
#define SCRIPT_MAX_LINE (1 << 20)

enum script_cmd_kind {
    SCRIPT_SQL, /* send a statement (a command line's command) */
    SCRIPT_SET, /* \set: evaluate an expression into a variable */
};

struct script_expr; /* compiled expression, private to script.c */
struct script_seg;  /* literal text / variable reference pieces, private */

struct script_cmd {
    enum script_cmd_kind kind;
    int line; /* 1-based line where the command starts */

    /* SCRIPT_SQL */
    char *sql;        /* as written (without the final ';'), references intact */
    char *sql_params; /* the same with $1..$n for the references (extended/prepared) */
    int nparams;
    int param_var[SCRIPT_MAX_PARAMS]; /* variable index of $i+1 */
    int nsegs;
    struct script_seg *segs; /* for script_render */
    int is_line;             /* a command line: a value after '-' gets no space (not SQL's "--") */

    /* SCRIPT_SET */
    int var;
    struct script_expr *expr;
};

struct script {
    char *name; /* file name or built-in workload name */
    int ncmds;
    struct script_cmd *cmds;
    int nvars; /* predefined variables first, then \set ones in order of appearance */
    char *var_names[SCRIPT_MAX_VARS];
};

/*
 * Compiles text. predef is a NULL-terminated list of variable names that the
 * runner sets before each transaction (e.g. "scale", "client_id"); they get
 * indexes 0.. in that order. Returns NULL on error with a one-line message
 * in err (BT_ERRLEN bytes) of the form "NAME:LINE: what is wrong (how to fix)",
 * e.g. "bad.sql:3: unknown function 'rnd' (use random(lo, hi))",
 * "bad.sql:5: variable 'aid' is used but never set (add '\set aid ...')",
 * "bad.sql:7: statement has no ending ';'".
 * An empty script (no commands) is an error too.
 */
struct script *script_parse(const char *name, const char *text, const char *const *predef,
                            char *err);
/*
 * The same for command lines (Redis): every line that is not blank, a '#'
 * comment or a \set line is one command, as written; ':name' is a reference
 * wherever it stands ("counter::id" is "counter:" then :id) and quotes are
 * data. The command's text is in sql.
 */
struct script *script_parse_lines(const char *name, const char *text, const char *const *predef,
                                  char *err);
/*
 * Reads the file and parses it (lines: as script_parse_lines); an unreadable
 * file is a one-line error naming it.
 */
struct script *script_load(const char *path, const char *const *predef, int lines, char *err);
void script_free(struct script *s);

/* Index of a variable, or -1. */
int script_var(const struct script *s, const char *name);

/*
 * Evaluates a SCRIPT_SET command with the current variables and stores the
 * result into vars[cmd->var]. Returns 0, or -1 with err set (division by
 * zero, random() with lo > hi). Never allocates.
 */
int script_eval(const struct script_cmd *cmd, int64_t *vars, struct rng *rng, char *err);

/*
 * Writes a SCRIPT_SQL command's text with variable values substituted as
 * decimal literals into buf (simple protocol). Returns the length written
 * (excluding the NUL), or -1 if buf is too small. Never allocates.
 */
int script_render(const struct script_cmd *cmd, const int64_t *vars, char *buf, size_t len);

/*
 * One run of a command-line script (Redis, memcached): each \set line
 * evaluated, each command rendered into line (line_cap bytes) and handed to
 * emit_cmd(arg, index, line, len). 0, or -1 with err (an expression's error, a
 * command longer than line). Never allocates.
 */
int script_run_lines(const struct script *s, int64_t *vars, struct rng *rng, char *line,
                     size_t line_cap,
                     void (*emit_cmd)(void *arg, int i, const char *line, size_t len), void *arg,
                     char *err);

/*
 * The variable of each reference of a SCRIPT_SQL command, in the order they
 * appear (a variable used twice is there twice: MySQL's '?' placeholders are
 * positional). Returns how many, or -1 if more than max.
 */
int script_ref_vars(const struct script_cmd *cmd, int *vars, int max);

/* A new copy of the command's text with '?' for each reference (MySQL's prepared statements). */
char *script_sql_marks(const struct script_cmd *cmd);

#endif
