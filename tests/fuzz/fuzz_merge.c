/*
 * `benchtop merge` on two agents' records: the input split at its first
 * blank line ("\n\n"), each half one agent's record; the merged record is
 * written to /dev/null.
 */
#include "fuzz.h"

#include "records/merge.h"

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
