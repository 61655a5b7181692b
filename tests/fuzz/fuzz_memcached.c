/* memcached replies: stats, stats slabs, stats items, and protocol replies (text, binary). */
#include "fuzz.h"

#include "collectors/memcached/memcached.h"

/* Feeds every reply element of buf to a transaction, as the driver does. */
static void
replies(enum mc_proto proto, enum mc_op op, const char *buf, size_t len)
{
    struct mc_reply r;
    struct mc_txn t;
    char err[BT_ERRLEN];
    size_t need;
    ssize_t n;

    mc_txn_begin(&t, proto, op, 3);
    while (len > 0 && (n = mc_parse(proto, buf, len, &r, &need, err)) > 0) {
        if (mc_txn_feed(&t, &r) != MC_FEED_MORE)
            mc_txn_begin(&t, proto, op, 3);
        buf += n;
        len -= (size_t)n;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct mc_stats st;
    static struct mc_slabs sl;
    char err[BT_ERRLEN], *text;
    uint64_t v;
    size_t len;

    if (size < 1)
        return 0;
    text = fuzz_text(data + 1, size - 1);
    len = size - 1;
    switch (data[0] % 6) {
    case 0:
        mc_stats_parse(text, len, &st, err);
        break;
    case 1:
        mc_slabs_parse(text, len, &sl, err);
        break;
    case 2:
        mc_items_parse(text, len, &sl, err);
        break;
    case 3:
        mc_stats_find(text, len, "curr_items", &v);
        break;
    case 4:
        replies(MC_TEXT, (enum mc_op)(data[0] / 6 % 3), text, len);
        break;
    default:
        replies(MC_BINARY, (enum mc_op)(data[0] / 6 % 3), text, len);
    }
    free(text);
    return 0;
}
