/* file: a whole small file read into memory (see file.h). */
#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Up to max + 1 bytes of f (one more than allowed tells "too large"); *len of them. */
static char *
read_upto(FILE *f, size_t max, size_t *len)
{
    size_t cap = 4096, n;
    char *buf = xmalloc(cap);

    *len = 0;
    while ((n = fread(buf + *len, 1, cap - *len - 1, f)) > 0) {
        *len += n;
        if (*len > max)
            break;
        if (cap - *len - 1 == 0)
            buf = xrealloc(buf, cap *= 2);
    }
    buf[*len] = '\0';
    return buf;
}

char *
file_read(const char *path, const struct file_ask *ask, size_t *len, char *err)
{
    FILE *f = fopen(path, "rb");
    size_t n;
    char *buf;
    int bad = 1;

    if (f == NULL) {
        seterr(err, "cannot read %s %s: %s (check the path given to %s)", ask->what, path,
               strerror(errno), ask->option);
        return NULL;
    }
    buf = read_upto(f, ask->max, &n);
    if (ferror(f))
        seterr(err, "cannot read %s %s: %s (check the path given to %s)", ask->what, path,
               strerror(errno), ask->option);
    else if (n > ask->max)
        seterr(err, "%s %s is larger than %zu bytes (give %s %s)", ask->what, path, ask->max,
               ask->option, ask->kind);
    else if (ask->text && memchr(buf, '\0', n) != NULL)
        seterr(err, "%s %s contains a NUL byte (give %s a text file)", ask->what, path,
               ask->option);
    else
        bad = 0;
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    if (len != NULL)
        *len = n;
    return buf;
}
