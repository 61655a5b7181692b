/*
 * options: the one table of command-line options. Parsing, --help and the
 * man page's OPTIONS section are all derived from it, so they cannot drift.
 */
#ifndef BENCHTOP_OPTIONS_H
#define BENCHTOP_OPTIONS_H

#include <stdio.h>
#include "runconf.h"

enum opt_type {
    OPT_INT,    /* int field */
    OPT_LLONG,  /* long long field */
    OPT_U64,    /* uint64_t field */
    OPT_DOUBLE, /* double field */
    OPT_STRING, /* char * field (xstrdup'ed) */
    OPT_FLAG,   /* int field set to 1, takes no value */
};

/* Which subcommands take an option (bit mask). */
enum {
    CMD_RUN = 1 << 0,
    CMD_INIT = 1 << 1,
    CMD_DEMO = 1 << 2,
    CMD_WATCH = 1 << 3,
    CMD_REPORT = 1 << 4,
};

struct option_def {
    const char *name; /* long name, without "--" */
    int short_name;   /* 0 when there is none */
    enum opt_type type;
    size_t offset;       /* into struct runconf */
    double min, max;     /* accepted range for numbers */
    const char *defval;  /* default, as text ("" = none); applied before parsing */
    const char *metavar; /* e.g. "N" */
    unsigned commands;   /* CMD_* mask */
    const char *help;    /* one line */
};

extern const struct option_def option_table[];

/* Sets every default from the table. */
void options_defaults(struct runconf *rc);
/*
 * Parses argv (after the subcommand word) into rc for command `cmd`
 * (CMD_*). Positional arguments are returned in *pos / *npos. Any bad
 * option exits with a one-line error and code 2.
 */
void options_parse(struct runconf *rc, unsigned cmd, int argc, char **argv, char ***pos, int *npos);
/* Whether an option was given explicitly on the command line. */
int options_given(const struct runconf *rc, const char *name);
/* --help text, and the man page OPTIONS section in troff. */
void options_print_help(FILE *f, unsigned cmd);
void options_print_man(FILE *f);
/* The options given on the command line as JSON object members ("name":value,...). */
void options_print_json(FILE *f, const struct runconf *rc);

#endif
