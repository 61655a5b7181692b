/*
 * `benchtop merge` on two agents' records: the input split at its first
 * blank line ("\n\n"), each half one agent's record; the merged record is
 * written to /dev/null.
 */
#include "fuzz.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "records/merge.h"

/* n bytes as a file named in path; fd, or -1. */
static int
fuzz_file(const uint8_t *data, size_t n, char *path, size_t len)
{
    int fd = memfd_create("fuzz-merge", 0);

    if (fd < 0 || write(fd, data, n) != (ssize_t)n) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *cut = memmem(data, size, "\n\n", 2);
    size_t first = cut ? (size_t)(cut - data) + 1 : size;
    char pa[64], pb[64], err[BT_ERRLEN];
    char *paths[2] = {pa, pb};
    int a = fuzz_file(data, first, pa, sizeof pa);
    int b = fuzz_file(data + first, size - first, pb, sizeof pb);
    FILE *out = fopen("/dev/null", "w");

    if (a >= 0 && b >= 0 && out != NULL)
        merge_records(out, paths, 2, 1, err);
    if (out != NULL)
        fclose(out);
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    return 0;
}
