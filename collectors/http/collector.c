/*
 * http/collector: fetches an nginx stub_status or php-fpm status page
 * with libcurl's easy interface, on the collector thread (collect.c): one
 * GET per sample on a kept-alive connection, with short timeouts so a
 * stuck server fails the sample instead of holding the thread.
 */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "webstatus.h"

enum {
    WS_PAGE_MAX = 16384, /* a status page is a few hundred bytes; the rest is ignored */
    WS_CONNECT_MS = 2000,
    WS_TIMEOUT_MS = 3000,
};

struct ws_conn {
    CURL *curl;
    size_t len;
    char page[WS_PAGE_MAX];
};

static size_t
ws_write(char *data, size_t size, size_t n, void *arg)
{
    struct ws_conn *c = arg;
    size_t bytes = size * n, room = sizeof c->page - c->len;

    memcpy(c->page + c->len, data, bytes < room ? bytes : room);
    c->len += bytes < room ? bytes : room;
    return bytes;
}

static int
ws_claims(const char *target)
{
    return strncmp(target, "http://", 7) == 0 || strncmp(target, "https://", 8) == 0;
}

static void *
ws_open(const char *target, char *err)
{
    struct ws_conn *c;

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        seterr(err, "libcurl failed to start");
        return NULL;
    }
    c = xcalloc(1, sizeof *c);
    c->curl = curl_easy_init();
    if (c->curl == NULL) {
        free(c);
        seterr(err, "libcurl failed to start");
        return NULL;
    }
    curl_easy_setopt(c->curl, CURLOPT_URL, target);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L); /* a thread of its own: no SIGALRM */
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)WS_CONNECT_MS);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)WS_TIMEOUT_MS);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, ws_write);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    return c;
}

static void
ws_close(void *conn)
{
    struct ws_conn *c = conn;

    if (c == NULL)
        return;
    curl_easy_cleanup(c->curl);
    free(c);
    curl_global_cleanup();
}

static int
ws_sample(void *conn, void *out, char *err)
{
    struct ws_conn *c = conn;
    struct ws_sample *s = out;
    uint64_t t0 = now_us();
    long code = 0;
    CURLcode rc;

    c->len = 0;
    rc = curl_easy_perform(c->curl);
    if (rc != CURLE_OK)
        return seterr(err, "%s", curl_easy_strerror(rc));
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code != 200)
        return seterr(err,
                      "the status page answered HTTP %ld (check the URL and the server's "
                      "status location)",
                      code);
    s->fetch_ms = (double)(now_us() - t0) / 1000.0;
    return ws_parse(c->page, c->len, s, err);
}

const struct collector_class webstatus_collector_class = {
    .name = "webstatus",
    .title = "the web tier",
    .sample_size = sizeof(struct ws_sample),
    .claims = ws_claims,
    .open = ws_open,
    .close = ws_close,
    .sample = ws_sample,
    .derive = ws_derive,
};
