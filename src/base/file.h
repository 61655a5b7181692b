/*
 * file: a whole small file read into memory (a -f script, a theme, an HTTP
 * body or URL list), refused in one line that names the option to fix when
 * it cannot be read, is larger than its cap, or, for text, holds a NUL byte.
 */
#ifndef BENCHTOP_FILE_H
#define BENCHTOP_FILE_H

#include <stddef.h>

/* What the file is to its reader, for the refusals' words. */
struct file_ask {
    const char *what;   /* "script": "cannot read script PATH" */
    const char *option; /* the option that named it: "-f" */
    const char *kind;   /* what to give instead of a file that is too large: "a script file" */
    size_t max;         /* the most bytes it may have (/dev/zero must not fill the memory) */
    int text;           /* 1: a NUL byte is refused */
};

/*
 * The file's bytes with a NUL after them (*len, if not NULL, counts the
 * bytes without it); NULL with err on failure:
 *   cannot read script x.sql: No such file or directory (check the path given to -f)
 *   script /dev/zero is larger than 4194304 bytes (give -f a script file)
 *   script x.sql contains a NUL byte (give -f a text file)
 */
char *file_read(const char *path, const struct file_ask *ask, size_t *len, char *err);

#endif
