/* keys: the key table (tmux's cmd_table idea: a table, not a switch of strcmps). */
#include "keys.h"

#include <stddef.h>

#include "screen.h"

struct key_binding {
    int key;
    enum key_action act;
    const char *help; /* NULL: same line as the previous binding */
};

static const struct key_binding key_table[] = {
    {'q', KEY_ACT_QUIT, "q        quit (the screen is restored, then the summary printed)"},
    {'Q', KEY_ACT_QUIT, NULL},
    {' ', KEY_ACT_PAUSE, "space    pause / resume the load (connections stay open)"},
    {'+', KEY_ACT_MORE_CLIENTS, "+ -      add / remove a client"},
    {'=', KEY_ACT_MORE_CLIENTS, NULL},
    {'-', KEY_ACT_FEWER_CLIENTS, NULL},
    {'r', KEY_ACT_LOWER_RATE, "r R      lower / raise the target rate by 10% (open loop)"},
    {'R', KEY_ACT_RAISE_RATE, NULL},
    {'<', KEY_ACT_SHORTER_INTERVAL, "< >      shorter / longer refresh interval"},
    {'>', KEY_ACT_LONGER_INTERVAL, NULL},
    {'1', KEY_ACT_ZOOM,
     "1 - 7    zoom: throughput, latency, server, events, detail, sweep, sessions"},
    {'2', KEY_ACT_ZOOM, NULL},
    {'3', KEY_ACT_ZOOM, NULL},
    {'4', KEY_ACT_ZOOM, NULL},
    {'5', KEY_ACT_ZOOM, NULL},
    {'6', KEY_ACT_ZOOM, NULL},
    {'7', KEY_ACT_ZOOM, NULL},
    {'j', KEY_ACT_DOWN,
     "j k      (arrows, PgUp PgDn, Home End) select a session; scroll a zoomed pane"},
    {SCREEN_DOWN, KEY_ACT_DOWN, NULL},
    {'k', KEY_ACT_UP, NULL},
    {SCREEN_UP, KEY_ACT_UP, NULL},
    {SCREEN_PAGE_DOWN, KEY_ACT_PAGE_DOWN, NULL},
    {SCREEN_PAGE_UP, KEY_ACT_PAGE_UP, NULL},
    {SCREEN_HOME, KEY_ACT_HOME, NULL},
    {SCREEN_END, KEY_ACT_END, NULL},
    {'o', KEY_ACT_SORT, "o        sessions: sort by duration / by state"},
    {'T', KEY_ACT_TOP, "T        sessions pane: the top statements / the sessions"},
    {'t', KEY_ACT_TRY,
     "t        try the verdict's advice: A/B rounds, the server put back (asks first)"},
    {'C', KEY_ACT_CANCEL, "C K      cancel the selected session's query / end it (asks first)"},
    {'K', KEY_ACT_TERMINATE, NULL},
    {'0', KEY_ACT_UNZOOM, "0 Esc    every pane again"},
    {27, KEY_ACT_UNZOOM, NULL},
    {'s', KEY_ACT_SET, "s        set a server setting: NAME = VALUE (off with --read-only)"},
    {'m', KEY_ACT_MARKER, "m        add a labelled marker: before / since figures from here"},
    {'v', KEY_ACT_VERDICT, "v        the whole verdict (the line ends in ... when it is cut)"},
    {'?', KEY_ACT_HELP, "?        this help (any key closes it)"},
    {'h', KEY_ACT_HELP, NULL},
};

#define NKEYS (sizeof(key_table) / sizeof(key_table[0]))

enum key_action
keys_action(int key)
{
    size_t i;

    for (i = 0; i < NKEYS; i++)
        if (key_table[i].key == key)
            return key_table[i].act;
    return KEY_ACT_NONE;
}

void
keys_help_lines(const char **lines, int max)
{
    size_t i;
    int n = 0;

    for (i = 0; i < NKEYS && n < max - 1; i++)
        if (key_table[i].help != NULL)
            lines[n++] = key_table[i].help;
    lines[n] = NULL;
}
