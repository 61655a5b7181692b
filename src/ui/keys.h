/*
 * keys: the dashboard's key table. The help overlay is made from it, so
 * every key is listed exactly where it is bound.
 */
#ifndef BENCHTOP_KEYS_H
#define BENCHTOP_KEYS_H

enum key_action {
    KEY_ACT_NONE,
    KEY_ACT_QUIT,
    KEY_ACT_PAUSE,
    KEY_ACT_MORE_CLIENTS,
    KEY_ACT_FEWER_CLIENTS,
    KEY_ACT_LOWER_RATE,
    KEY_ACT_RAISE_RATE,
    KEY_ACT_SHORTER_INTERVAL,
    KEY_ACT_LONGER_INTERVAL,
    KEY_ACT_HELP,
    KEY_ACT_ZOOM, /* the key's digit is the pane */
    KEY_ACT_UNZOOM,
    KEY_ACT_SET,     /* prompt for NAME = VALUE and set it on the (first) server */
    KEY_ACT_MARKER,  /* prompt for a label and cut a segment there */
    KEY_ACT_SORT,    /* the sessions list: by duration / by state */
    KEY_ACT_TOP,     /* the sessions pane: the top statements / the sessions */
    KEY_ACT_VERDICT, /* the whole verdict in an overlay */
    KEY_ACT_UP,      /* the selection (sessions) or the zoomed pane's view: a row */
    KEY_ACT_DOWN,
    KEY_ACT_PAGE_UP,
    KEY_ACT_PAGE_DOWN,
    KEY_ACT_HOME,
    KEY_ACT_END,
    KEY_ACT_CANCEL,    /* cancel the selected session's statement, after a confirmation */
    KEY_ACT_TERMINATE, /* end the selected session, after a confirmation */
    KEY_ACT_TRY,       /* the verdict's experiment, after a confirmation */
};

/* What a key does; KEY_ACT_NONE for an unbound key. */
enum key_action keys_action(int key);
/* Fills lines (NULL-terminated, at most max-1) with "key  what it does". */
void keys_help_lines(const char **lines, int max);

#endif
