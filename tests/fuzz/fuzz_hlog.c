/*
 * The hlog decoder (HdrHistogram's V2 encoding, base64 and zlib) on any
 * text, as records carry it in "hdr": an encoding it takes must come back
 * the same from hdrlog_encode, and `report --hlog`'s interval line is
 * written from it.
 */
#include "fuzz.h"

#include "base/hdrlog.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size), *again, err[BT_ERRLEN];
    struct hist *h = hist_new(), *back = hist_new();
    FILE *out = fopen("/dev/null", "w");

    if (hdrlog_decode(text, h, err) == 0) {
        again = hdrlog_encode(h);
        if (hdrlog_decode(again, back, err) < 0)
            abort(); /* what the encoder wrote, the decoder refused */
        for (int i = 0; i < hist_nbuckets(); i++)
            if (hist_bucket(h, i) != hist_bucket(back, i))
                abort(); /* the round trip changed a count */
        if (out != NULL)
            hdrlog_write_interval(out, 0, 1, hist_max(h), again);
        free(again);
    }
    if (out != NULL)
        fclose(out);
    hist_free(h);
    hist_free(back);
    free(text);
    return 0;
}
