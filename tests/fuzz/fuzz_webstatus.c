/* nginx stub_status and php-fpm status pages, then derive over two of them. */
#include "fuzz.h"

#include "collectors/http/webstatus.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ws_sample prev;
    struct ws_sample s;
    struct coll_view v;
    char err[BT_ERRLEN];
    /* an exact-size copy: a read past the page's end is caught */
    char *page = xmalloc(size ? size : 1);

    memcpy(page, data, size);
    memset(&s, 0, sizeof s);
    if (ws_parse(page, size, &s, err) == 0) {
        ws_derive(prev.kind ? &prev : NULL, &s, 1.0, &v);
        prev = s;
    }
    free(page);
    return 0;
}
