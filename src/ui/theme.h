/*
 * theme: colours and attributes per screen element (enum style), read from
 * themes/NAME.theme files with libinih. Pure data: ui/screen.c turns a
 * theme into curses colour pairs.
 */
#ifndef BENCHTOP_THEME_H
#define BENCHTOP_THEME_H

#include "grid.h"

enum theme_attr {
    TA_BOLD = 1 << 0,
    TA_REVERSE = 1 << 1,
    TA_UNDERLINE = 1 << 2,
    TA_DIM = 1 << 3,
};

#define THEME_MAX_BYTES (64 << 10)
#define THEME_MAX_LINE 200 /* libinih's line buffer */

struct theme {
    short fg[ST__COUNT]; /* -1 = the terminal's default */
    short bg[ST__COUNT];
    unsigned attr[ST__COUNT];
};

/*
 * Loads a theme by name (looked up as themes/NAME.theme next to the
 * executable, then in the installed data folder, then built in) or by
 * path (a name with a '/'). 0, or -1 with a one-line err naming the file
 * and line.
 */
int theme_load(struct theme *t, const char *name, char *err);
/* The built-in text of a named theme (default, light, mono), or NULL. */
const char *theme_builtin(const char *name);
/* Parses a theme's text (path only names it in messages): 0, or -1 with err. */
int theme_parse(struct theme *t, const char *path, const char *text, char *err);
/* Drops the colours, keeps the attributes (NO_COLOR, or a terminal without colours). */
void theme_strip_colors(struct theme *t);

#endif
