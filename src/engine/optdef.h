/*
 * optdef: how an option is described (its type, range, default, which
 * subcommands take it) and what a driver may ask of the parsed command
 * line. The engine's table and the parser are in run/options.c; drivers
 * declare their groups with these types (driver.h) and read only what is
 * here, so nothing below the run layer includes options.h.
 */
#ifndef BENCHTOP_OPTDEF_H
#define BENCHTOP_OPTDEF_H

#include <stddef.h>

#include "runconf.h"

enum opt_type {
    OPT_INT,     /* int field */
    OPT_LLONG,   /* long long field */
    OPT_U64,     /* uint64_t field */
    OPT_DOUBLE,  /* double field */
    OPT_STRING,  /* char * field (xstrdup'ed) */
    OPT_TARGET,  /* char * field pointing into argv, so its password can be masked in place; */
                 /* launch_target swaps in a copy and masks argv (never printed unmasked) */
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
    CMD_INSPECT = 1 << 8,
    CMD_TRY = 1 << 9,
};
#define CMD_ALL (CMD_RUN | CMD_INIT | CMD_DEMO | CMD_WATCH | CMD_SWEEP | CMD_TRY)
#define CMD_LOAD (CMD_RUN | CMD_DEMO | CMD_SWEEP | CMD_TRY)

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

/* Whether an option (the engine's or a driver's) was given on the command line. */
int options_given(const struct runconf *rc, const char *name);

/*
 * Steps *p through an OPT_LIST value (NULL or "" when none was given): puts
 * the next value in *item, *len bytes long and not NUL-terminated, and
 * returns 1; returns 0 after the last.
 */
int options_list_next(const char **p, const char **item, size_t *len);

#endif
