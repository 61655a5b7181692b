/*
 * Records as `benchtop report` reads them: the reader, every window's
 * summary, the server series and the header lookups, on any bytes.
 */
#include "fuzz.h"

#include "records/record.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct record r;
    struct rec_summary s;
    char path[64], err[BT_ERRLEN];
    int fd = fuzz_file(data, size, path, sizeof path);

    if (fd < 0)
        return 0;
    if (record_load(path, &r, err) == 0) {
        record_summarize(&r, 0, 0, &s, err);
        for (int i = 0; i < r.nstep; i++)
            record_summarize(&r, r.steps[i].from, r.steps[i].to, &s, err);
        for (int k = 0; k < r.nseries; k++)
            record_series_mean(&r, k, 0, 0);
        record_head_same(&r, 1, "target");
    }
    record_free(&r);
    close(fd);
    return 0;
}
