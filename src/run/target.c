/*
 * target: a target's password masked and kept out of `ps`, and the target
 * read from a file or the environment (the parse is engine/target.c's).
 */
#include "engine/registry.h"
#include "target.h"
#include "base/uri.h"

#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "base/proctitle.h"
#include "base/util.h"
#include "engine/runconf.h"

void
target_scrub_arg(char *arg, const char *masked)
{
    size_t n = strlen(arg), m = strlen(masked);

    if (strcmp(arg, masked) == 0)
        return;
    /*
     * A secret is held in memory from now on: no core file gets it (an
     * out-of-memory abort() makes one), nor a ptrace of another user.
     */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (m <= n) {
        memcpy(arg, masked, m);
        memset(arg + m, '\0', n - m);
    } else {
        memset(arg, '*', n);
    }
    proctitle_update(); /* arg is proctitle's copy: ps shows the masked line, not its length */
}

char *
target_mask(const char *target)
{
    const struct driver_class *drv = driver_for_target(target);

    return drv != NULL ? drv->mask(target) : uri_mask(target);
}

/* The first line of path (the target in a mounted Secret), trailing blanks cut. */
static char *
target_read_file(const char *path)
{
    char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n;

    if (f == NULL)
        usage_fatal("--target-file %s: %s (mount the Secret there, or give the target)", path,
                    strerror(errno));
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    for (n = strlen(buf); n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'); n--)
        buf[n - 1] = '\0';
    if (buf[0] == '\0')
        usage_fatal("--target-file %s holds no target (write it on the first line)", path);
    return xstrdup(buf);
}

void
target_default(const struct runconf *rc, char ***pos, int *npos)
{
    const char *env = getenv("BENCHTOP_TARGET");
    char *t;

    if (*npos > 0 && rc->target_file != NULL)
        usage_fatal("give the target once: as an argument or with --target-file");
    if (*npos > 0 || rc->records_glob != NULL || (rc->target_file == NULL && env == NULL))
        return;
    t = rc->target_file ? target_read_file(rc->target_file) : xstrdup(env);
    if (t[0] == '\0')
        usage_fatal("BENCHTOP_TARGET is empty (set it to the target, or give the target)");
    *pos = xcalloc(2, sizeof **pos);
    (*pos)[0] = t;
    *npos = 1;
}
