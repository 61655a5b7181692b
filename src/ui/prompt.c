/* prompt: the one-line text prompt (see prompt.h). */
#include "prompt.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "screen.h"
#include "base/util.h"

enum { KEY_ESC = 27, KEY_CTRL_U = 21, KEY_DEL = 127, KEY_CTRL_H = 8 };

void
prompt_open(struct prompt *p, enum prompt_kind kind)
{
    memset(p, 0, sizeof(*p));
    p->kind = kind;
}

enum prompt_result
prompt_key(struct prompt *p, int key)
{
    if (key == '\n' || key == '\r' || key == SCREEN_ENTER) {
        p->kind = PROMPT_NONE;
        return PROMPT_DONE;
    }
    if (key == KEY_ESC) {
        p->kind = PROMPT_NONE;
        return PROMPT_CANCELLED;
    }
    if ((key == SCREEN_BACKSPACE || key == KEY_DEL || key == KEY_CTRL_H) && p->len > 0)
        p->text[--p->len] = '\0';
    else if (key == KEY_CTRL_U)
        p->text[p->len = 0] = '\0';
    else if (key >= ' ' && key <= 0xff && key != KEY_DEL && p->len < (int)sizeof(p->text) - 1) {
        p->text[p->len++] = (char)key;
        p->text[p->len] = '\0';
    }
    return PROMPT_EDITING;
}

void
prompt_line(const struct prompt *p, char *buf, size_t len)
{
    static const char *const ask[] = {
        [PROMPT_NONE] = "",
        [PROMPT_SETTING] = "set (NAME = VALUE, Enter sets, Esc cancels): ",
        [PROMPT_MARKER] = "marker label (Enter adds, Esc cancels): ",
    };

    snprintf(buf, len, "%s%s_", ask[p->kind], p->text);
}

/* Copies [from, to) with blanks trimmed into dst (size n); the length. */
static size_t
trimmed(char *dst, size_t n, const char *from, const char *to)
{
    while (from < to && isspace((unsigned char)*from))
        from++;
    while (to > from && isspace((unsigned char)to[-1]))
        to--;
    snprintf(dst, n, "%.*s", (int)(to - from), from);
    return (size_t)(to - from);
}

int
prompt_split_setting(const char *text, char *name, size_t nlen, char *value, size_t vlen, char *err)
{
    const char *end = text + strlen(text), *sep = strchr(text, '=');
    const char *p = text;

    if (sep == NULL) { /* "name value": the first blank ends the name */
        while (*p && isspace((unsigned char)*p))
            p++;
        while (*p && !isspace((unsigned char)*p))
            p++;
        sep = p;
    }
    if (trimmed(name, nlen, text, sep) == 0 ||
        trimmed(value, vlen, *sep == '=' ? sep + 1 : sep, end) == 0)
        return seterr(err, "type a setting as NAME = VALUE (e.g. synchronous_commit = off)");
    if (strchr(name, ' ') != NULL)
        return seterr(err, "'%s' is not a setting name (type NAME = VALUE)", name);
    return 0;
}
