/*
 * prompt: the dashboard's one-line text prompt (set a server setting, name
 * a marker). Pure: keys in, text out; tui.c shows it through dash.prompt.
 */
#ifndef BENCHTOP_PROMPT_H
#define BENCHTOP_PROMPT_H

#include <stddef.h>

enum prompt_kind { PROMPT_NONE, PROMPT_SETTING, PROMPT_MARKER };

enum prompt_result {
    PROMPT_EDITING,   /* the key edited the text (or was ignored) */
    PROMPT_DONE,      /* Enter: text holds the answer */
    PROMPT_CANCELLED, /* Esc */
};

struct prompt {
    enum prompt_kind kind; /* PROMPT_NONE: closed */
    int len;
    char text[120];
};

void prompt_open(struct prompt *p, enum prompt_kind kind);
/* One key (as screen_key returns it). Closes the prompt on DONE or CANCELLED. */
enum prompt_result prompt_key(struct prompt *p, int key);
/* The line to show: "set NAME = VALUE: shared_buffers = 1GB_". */
void prompt_line(const struct prompt *p, char *buf, size_t len);
/*
 * Splits "name = value" (or "name value") into its two parts, blanks
 * trimmed. 0, or -1 with a one-line err naming the fix.
 */
int prompt_split_setting(const char *text, char *name, size_t nlen, char *value, size_t vlen,
                         char *err);

#endif
