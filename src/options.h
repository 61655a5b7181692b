/*
 * options: the command-line options. The engine's own table is here; each
 * driver class declares the groups of options it takes (driver.h), and
 * parsing, --help and the man page's OPTIONS section are all derived from
 * the engine's table and those groups, so they cannot drift.
 *
 * A driver option is parsed before the target is known: its value is
 * written into the option struct of every driver that takes it, and once
 * the target names the driver, options_driver_conf() hands that driver its
 * struct and refuses an option it does not take.
 */
#ifndef BENCHTOP_OPTIONS_H
#define BENCHTOP_OPTIONS_H

#include <stddef.h>
#include <stdio.h>
#include "runconf.h"

enum opt_type {
    OPT_INT,     /* int field */
    OPT_LLONG,   /* long long field */
    OPT_U64,     /* uint64_t field */
    OPT_DOUBLE,  /* double field */
    OPT_STRING,  /* char * field (xstrdup'ed) */
    OPT_TARGET,  /* char * field pointing into argv, so its password can be masked in place; */
                 /* cmd_resolve_target swaps in a copy and masks argv (never printed unmasked) */
    OPT_FLAG,    /* int field set to 1, takes no value */
    OPT_LIST,    /* char * field: repeatable, the values joined by '\n' in the order given */
    OPT_TARGETS, /* struct target_list field: repeatable, each value as OPT_TARGET */
};

/* Which subcommands take an option (bit mask). */
enum {
    CMD_RUN = 1 << 0,
    CMD_INIT = 1 << 1,
    CMD_DEMO = 1 << 2,
    CMD_WATCH = 1 << 3,
    CMD_REPORT = 1 << 4,
    CMD_SWEEP = 1 << 5,
    CMD_MERGE = 1 << 6,
    CMD_SERVE = 1 << 7,
};
#define CMD_ALL (CMD_RUN | CMD_INIT | CMD_DEMO | CMD_WATCH | CMD_SWEEP)
#define CMD_LOAD (CMD_RUN | CMD_DEMO | CMD_SWEEP)

struct option_def {
    const char *name; /* long name, without "--" */
    int short_name;   /* 0 when there is none */
    enum opt_type type;
    size_t offset;       /* into struct runconf, or into the struct of its option_group */
    double min, max;     /* accepted range for numbers (whole numbers: exact up to 2^53) */
    const char *defval;  /* default, as text ("" = none); applied before parsing */
    const char *metavar; /* e.g. "N" */
    unsigned commands;   /* CMD_* mask */
    const char *help;    /* one line */
};

/*
 * A driver's options: a table whose offsets are into one struct. Several
 * drivers may take the same group (key-value options: redis, memcached),
 * each with the group's struct at its own place in its option struct.
 */
struct option_group {
    const char *title; /* "key-value": --help says "key-value options (redis, memcached)" */
    const struct option_def *defs; /* ended by a NULL name */
    /*
     * NULL, or a newly allocated copy of one value of option `name` with any
     * secret in it replaced by "***" (an HTTP header's credentials). argv is
     * masked with it in place, so `ps` shows no secret, and so is the record.
     */
    char *(*mask)(const char *name, const char *value);
};

/* The engine's options (offsets into struct runconf), ended by a NULL name. */
extern const struct option_def option_table[];

/* Sets every default, the engine's and each driver's option struct's. */
void options_defaults(struct runconf *rc);
/*
 * Parses argv (after the subcommand word) into rc for command `cmd`
 * (CMD_*). Positional arguments are returned in *pos / *npos. Any bad
 * option exits with a one-line error and code 2.
 */
void options_parse(struct runconf *rc, unsigned cmd, int argc, char **argv, char ***pos, int *npos);
/* Sets option `name` (the engine's or a driver's) as if given as --name value. */
void options_set(struct runconf *rc, const char *name, const char *value);
/* Whether an option (the engine's or a driver's) was given on the command line. */
int options_given(const struct runconf *rc, const char *name);
/*
 * The option struct of driver drv, filled from the command line. Exits
 * (code 2) naming the database if an option it does not take was given.
 */
void *options_driver_conf(struct runconf *rc, const struct driver_class *drv);
/* --help text (grouped per database), and the man page OPTIONS section in troff. */
void options_print_help(FILE *f, unsigned cmd);
/*
 * --help's layout, for options and subcommands alike: lead, then text from
 * column col, word-wrapped to HELP_WIDTH with later lines indented to col;
 * a lead that leaves no space before col puts the text on the lines below.
 */
enum { HELP_WIDTH = 80, HELP_TEXT_COL = 29 };
void options_print_wrapped(FILE *f, const char *lead, int col, const char *text);
void options_print_man(FILE *f);
/* Frees the strings options hold and the drivers' option structs. */
void options_free(struct runconf *rc);
/*
 * Steps *p through an OPT_LIST value (NULL or "" when none was given): puts
 * the next value in *item, *len bytes long and not NUL-terminated, and
 * returns 1; returns 0 after the last.
 */
int options_list_next(const char **p, const char **item, size_t *len);
/* The options given on the command line as JSON object members ("name":value,...). */
void options_print_json(FILE *f, const struct runconf *rc);

#endif
