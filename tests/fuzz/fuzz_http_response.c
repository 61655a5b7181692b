/*
 * The HTTP/1.x response parser: the input is a stream of responses (to
 * GET, or to HEAD when its first byte is odd) fed in pieces whose sizes the
 * input's second byte draws, the way the driver feeds what recv() returns;
 * a cut line is fed again with what follows.
 */
#include "fuzz.h"

#include "collectors/http/response.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hr_parser p;
    char err[BT_ERRLEN], *buf;
    size_t pos = 0, end, step;
    int done;

    if (size < 2)
        return 0;
    hr_begin(&p, data[0] & 1);
    step = (size_t)data[1] + 1;
    data += 2;
    size -= 2;
    /* an exact-size copy: a read past the end is caught */
    buf = xmalloc(size ? size : 1);
    memcpy(buf, data, size);
    for (end = step < size ? step : size; pos < size;) {
        ssize_t n = hr_feed(&p, buf + pos, end - pos, &done, err);
        if (n < 0)
            break;
        pos += (size_t)n;
        if (done)
            hr_begin(&p, p.head);
        else if (end == size)
            break; /* a cut line at the end: nothing more will come */
        if (!done || pos == end)
            end = end + step < size ? end + step : size;
    }
    if (pos == size)
        hr_eof(&p);
    free(buf);
    return 0;
}
