/*
 * screen: ncurses. Colour pairs are made from the theme, one per style.
 * The terminal is restored by screen_end (every normal exit, SIGINT and
 * SIGTERM included, goes through it), by atexit, and, for a crash, by a
 * signal handler that only calls async-signal-safe functions.
 */
#include "screen.h"

#include <curses.h>
#include <term.h> /* after curses.h: setupterm, tigetstr */
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "base/util.h"

_Static_assert(SCREEN_RESIZE == KEY_RESIZE && SCREEN_BACKSPACE == KEY_BACKSPACE &&
                   SCREEN_ENTER == KEY_ENTER,
               "screen.h's key codes are curses's");

/*
 * The one piece of process-wide state in the UI: a crash handler cannot
 * take arguments, and it must know how to put the terminal back.
 */
static struct termios saved_tio;
static volatile sig_atomic_t curses_on;

static void
crash_restore(int sig)
{
    static const char reset[] = "\033[?1049l\033[?25h\033[0m\r\n";

    if (curses_on) {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
        if (write(STDOUT_FILENO, reset, sizeof(reset) - 1) < 0)
            _exit(128 + sig);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void
at_exit_restore(void)
{
    screen_end();
}

static void
install_crash_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    size_t i;

    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], crash_restore);
    atexit(at_exit_restore);
}

static attr_t
curses_attr(unsigned a)
{
    attr_t r = A_NORMAL;

    if (a & TA_BOLD)
        r |= A_BOLD;
    if (a & TA_REVERSE)
        r |= A_REVERSE;
    if (a & TA_UNDERLINE)
        r |= A_UNDERLINE;
    if (a & TA_DIM)
        r |= A_DIM;
    return r;
}

static attr_t style_attr[ST__COUNT];

static void
make_pairs(const struct theme *t)
{
    int i;

    for (i = 0; i < ST__COUNT; i++) {
        style_attr[i] = curses_attr(t->attr[i]);
        if (!has_colors())
            continue;
        init_pair((short)(i + 1), t->fg[i] < COLORS ? t->fg[i] : -1,
                  t->bg[i] < COLORS ? t->bg[i] : -1);
        style_attr[i] |= COLOR_PAIR(i + 1);
    }
}

/* TERM=dumb and its like: curses would leave a blank screen and stray lines. */
static int
can_address_cursor(void)
{
    TERMINAL *saved = cur_term;
    char *cup;
    int e = 0, ok;

    if (setupterm(NULL, STDOUT_FILENO, &e) != OK)
        return 1; /* unknown TERM: newterm reports it */
    cup = tigetstr("cup");
    ok = cup != NULL && cup != (char *)-1;
    del_curterm(cur_term);
    set_curterm(saved);
    return ok;
}

static int
in_foreground(int fd)
{
    pid_t fg = tcgetpgrp(fd);

    return fg == -1 || fg == getpgrp();
}

int
screen_check(char *err)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return seterr(err, "the dashboard needs a terminal (use --headless for JSON lines)");
    /*
     * Outside the terminal's foreground process group (a script's `&`,
     * timeout(1) without --foreground) the first tcsetattr stops us with
     * SIGTTOU, and a stopped process acts on no SIGTERM: a demo's server
     * and folder would stay behind. -1 (not our controlling terminal) has
     * no job control to stop us.
     */
    if (!in_foreground(STDIN_FILENO) || !in_foreground(STDOUT_FILENO))
        return seterr(err, "the dashboard cannot take the terminal from outside its foreground "
                           "process group (a script's &, or timeout): use --headless, or "
                           "timeout --foreground");
    if (!can_address_cursor())
        return seterr(err,
                      "TERM=%s cannot draw the dashboard (it cannot move the cursor): set TERM "
                      "to your terminal's type, e.g. xterm-256color, or use --headless",
                      getenv("TERM") ? getenv("TERM") : "");
    return 0;
}

int
screen_init(const struct theme *t, char *err)
{
    setlocale(LC_ALL, "");
    if (screen_check(err) < 0)
        return -1;
    tcgetattr(STDIN_FILENO, &saved_tio);
    if (newterm(NULL, stdout, stdin) == NULL)
        return seterr(err,
                      "cannot start the terminal UI for TERM=%s (set TERM, or use "
                      "--headless)",
                      getenv("TERM") ? getenv("TERM") : "");
    curses_on = 1;
    install_crash_handlers();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    make_pairs(t);
    return 0;
}

int
screen_utf8(void)
{
    const char *cs = nl_langinfo(CODESET);

    return cs != NULL && strcmp(cs, "UTF-8") == 0;
}

void
screen_size(int *w, int *h)
{
    getmaxyx(stdscr, *h, *w);
}

void
screen_draw(const struct grid *g)
{
    int x, y, sw, sh;

    getmaxyx(stdscr, sh, sw);
    for (y = 0; y < g->h && y < sh; y++) {
        for (x = 0; x < g->w && x < sw; x++) {
            const struct cell *c = grid_at(g, x, y);
            /*
             * the bottom-right cell too: curses writes it without scrolling
             * (scrollok is off; the update puts it with the terminal's insert
             * mode), where skipping it left every frame without its corner
             */
            attrset(style_attr[c->style < ST__COUNT ? c->style : 0]);
            mvaddstr(y, x, c->ch[0] ? c->ch : " ");
        }
    }
    attrset(A_NORMAL);
    wnoutrefresh(stdscr);
    doupdate();
}

int
screen_key(void)
{
    int k = getch();

    return k == ERR ? -1 : k;
}

void
screen_end(void)
{
    if (!curses_on)
        return;
    curses_on = 0;
    endwin();
}

int
screen_input_fd(void)
{
    return STDIN_FILENO;
}
