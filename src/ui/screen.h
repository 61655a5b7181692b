/*
 * screen: the only file that talks to ncurses. It copies a grid to the
 * terminal, reads keys, and guarantees the terminal is restored: on
 * screen_end, at exit, and on a crash signal.
 */
#ifndef BENCHTOP_SCREEN_H
#define BENCHTOP_SCREEN_H

#include "grid.h"
#include "theme.h"

/*
 * Whether this terminal can hold the dashboard (stdin and stdout a tty, a
 * TERM that can move the cursor): 0, or -1 with err. Asked before anything
 * starts, so that a refusal leaves no thread mid-connect at exit.
 */
int screen_check(char *err);
/* Sets the locale, enters curses mode with the theme's colours. 0 or -1 with err. */
int screen_init(const struct theme *t, char *err);
/* Whether the locale can show UTF-8 (block and braille characters). */
int screen_utf8(void);
/* The terminal's size now (after a resize, too). */
void screen_size(int *w, int *h);
/* Copies g to the terminal (curses sends only what changed). */
void screen_draw(const struct grid *g);
/* The next key, or -1 when none is waiting; a resize comes as SCREEN_RESIZE. */
int screen_key(void);
/* Restores the terminal; safe to call twice. */
void screen_end(void);
/* The file descriptor that becomes readable on input. */
int screen_input_fd(void);

#define SCREEN_RESIZE 0x19a    /* KEY_RESIZE, without including curses.h here */
#define SCREEN_BACKSPACE 0x107 /* KEY_BACKSPACE */
#define SCREEN_ENTER 0x157     /* KEY_ENTER (the keypad's) */
#define SCREEN_DOWN 0x102      /* KEY_DOWN */
#define SCREEN_UP 0x103        /* KEY_UP */
#define SCREEN_HOME 0x106      /* KEY_HOME */
#define SCREEN_PAGE_DOWN 0x152 /* KEY_NPAGE */
#define SCREEN_PAGE_UP 0x153   /* KEY_PPAGE */
#define SCREEN_END 0x168       /* KEY_END */

#endif
