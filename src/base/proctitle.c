/* proctitle: the command line `ps` shows (see proctitle.h). */
#include "proctitle.h"

#include <errno.h>
#include <string.h>

#include "util.h"

static char *area;  /* the kernel's argv strings, one after another */
static size_t size; /* ... their bytes, the NULs included */
static char **args; /* the arguments on the heap, in their first order (getopt permutes argv) */
static int nargs;

void
proctitle_init(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++)
        if (argv[i] != argv[i - 1] + strlen(argv[i - 1]) + 1)
            return; /* not the kernel's one area: left as it is */
    if (argc < 1)
        return;
    area = argv[0];
    size = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - area);
    args = xcalloc((size_t)argc, sizeof(*args));
    for (i = 0; i < argc; i++)
        argv[i] = args[i] = xstrdup(argv[i]);
    nargs = argc;
    program_invocation_name = args[0]; /* glibc's pointed into the area */
    program_invocation_short_name = strrchr(args[0], '/') ? strrchr(args[0], '/') + 1 : args[0];
}

void
proctitle_update(void)
{
    size_t n = 0, len;
    int i;

    if (area == NULL)
        return;
    for (i = 0; i < nargs; i++)
        n += strlen(args[i]) + 1;
    if (n >= size) /* nothing got shorter: the NUL-separated layout tells no length either */
        return;
    memset(area, '\0', size);
    for (i = 0, n = 0; i < nargs; i++) {
        len = strlen(args[i]);
        memcpy(area + n, args[i], len);
        n += len;
        if (i + 1 < nargs)
            area[n++] = ' ';
    }
    area[size - 1] = ' '; /* the kernel then reads the title to its first NUL only */
}
