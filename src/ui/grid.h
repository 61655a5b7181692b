/*
 * grid: a screen as a plain array of cells, so panes are pure functions
 * that tests can lay out without a terminal. Only ui/screen.c copies a
 * grid to ncurses. Every cell is one column wide (the panes use only
 * characters that are: ASCII, box drawing, block and braille patterns).
 */
#ifndef BENCHTOP_GRID_H
#define BENCHTOP_GRID_H

#include <stddef.h>

enum style {
    ST_NORMAL,
    ST_HEADER, /* the top bar */
    ST_TITLE,  /* pane titles */
    ST_BORDER,
    ST_LABEL,
    ST_VALUE,
    ST_GOOD,
    ST_WARN,
    ST_BAD,
    ST_DIM,
    ST_GRAPH_CLIENT, /* the client tps graph */
    ST_GRAPH_SERVER, /* the server tps graph */
    ST_HELP,         /* the help overlay */
    ST__COUNT
};

struct cell {
    char ch[8];          /* one UTF-8 character, NUL-terminated; "" = blank */
    unsigned char style; /* enum style */
};

struct grid {
    int w, h;
    struct cell *cells; /* w * h, row-major */
};

struct rect {
    int x, y, w, h;
};

struct grid *grid_new(int w, int h);
void grid_free(struct grid *g);
/* Blanks every cell (style ST_NORMAL). */
void grid_clear(struct grid *g);
/* Fills a rectangle with blanks of one style. */
void grid_fill(struct grid *g, struct rect r, enum style st);
/*
 * Writes UTF-8 text at (x, y), one cell per character, clipped to the
 * grid and to max_w cells (max_w < 0: to the grid's edge). Returns the
 * number of cells written. Never writes outside the grid.
 */
int grid_put(struct grid *g, int x, int y, int max_w, enum style st, const char *text);
/* grid_put at *x, never past column end, then moves *x past what it wrote. */
void grid_put_run(struct grid *g, int *x, int y, int end, enum style st, const char *text);
int grid_printf(struct grid *g, int x, int y, int max_w, enum style st, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* A box border around r with a title in its top edge (ASCII when !utf8). */
void grid_box(struct grid *g, struct rect r, const char *title, int utf8);
/* Row y as UTF-8 text (blanks as spaces, trailing spaces kept) into buf; for tests and --dump. */
void grid_row_text(const struct grid *g, int y, char *buf, size_t len);
const struct cell *grid_at(const struct grid *g, int x, int y);

#endif
