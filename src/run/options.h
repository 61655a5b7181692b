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
#include "engine/optdef.h"
#include "engine/runconf.h"

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
/* The options given on the command line as JSON object members ("name":value,...). */
void options_print_json(FILE *f, const struct runconf *rc);

#endif
