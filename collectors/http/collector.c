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
#include "engine/target.h"
#include "webstatus.h"

enum {
    WS_PAGE_MAX = 16384, /* a status page is a few hundred bytes; the rest is ignored */
    WS_CONNECT_MS = 2000,
    WS_TIMEOUT_MS = 3000,
    WS_RESCAN_US = 10000000, /* workers found again at least this often (a reload's new ones) */
};

struct ws_conn {
    CURL *curl;
    pid_t owner; /* the page's listener on this host (an nginx's master or a worker); 0 not found */
    pid_t workers[WS_TASKS]; /* its workers as last found: a /proc scan costs 2-3 ms, so kept */
    int nworkers;
    uint64_t found_us; /* when they were found */
    size_t len;
    char page[WS_PAGE_MAX];
};

/*
 * The kept workers' threads into s, and s->workers the workers read; -1
 * when one is gone (its master starts another, to be found).
 */
static int
ws_read_workers(const struct ws_conn *c, struct ws_sample *s)
{
    s->workers = s->ntasks = 0;
    for (int i = 0; i < c->nworkers; i++) {
        int k = cpu_tasks_read(c->workers[i], s->tasks + s->ntasks, WS_TASKS - s->ntasks);

        if (k < 0)
            return -1;
        s->ntasks += k;
        s->workers += k > 0;
    }
    return 0;
}

/* The page's nginx workers found again: the owner's, or a new owner's when it has none. */
static void
ws_find_workers(struct ws_conn *c, long port)
{
    if (c->owner <= 0 ||
        (c->nworkers = cpu_workers(c->owner, "nginx: worker", c->workers, WS_TASKS)) == 0) {
        c->owner = cpu_port_owner((int)port);
        c->nworkers = cpu_workers(c->owner, "nginx: worker", c->workers, WS_TASKS);
    }
    c->found_us = now_us();
}

/*
 * An nginx on this host: its workers' threads, for their CPU. The page's
 * port is the workers' and the master's listener; loopback only. The
 * workers are found again when one is gone, and every WS_RESCAN_US.
 */
static void
ws_workers(struct ws_conn *c, struct ws_sample *s)
{
    char *ip = NULL;
    long port = 0;

    s->workers = s->ntasks = 0;
    if (curl_easy_getinfo(c->curl, CURLINFO_PRIMARY_IP, &ip) != CURLE_OK || ip == NULL ||
        (strncmp(ip, "127.", 4) != 0 && strcmp(ip, "::1") != 0) ||
        curl_easy_getinfo(c->curl, CURLINFO_PRIMARY_PORT, &port) != CURLE_OK)
        return;
    if (c->nworkers == 0 || now_us() - c->found_us > WS_RESCAN_US || ws_read_workers(c, s) < 0) {
        ws_find_workers(c, port);
        if (ws_read_workers(c, s) < 0)
            s->workers = s->ntasks = 0; /* gone between the scan and the read: none this time */
    }
}

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
ws_open(const struct target *target, char *err)
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
    curl_easy_setopt(c->curl, CURLOPT_URL, target->raw);
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
    if (ws_parse(c->page, c->len, s, err) < 0)
        return -1;
    if (s->kind == WS_NGINX)
        ws_workers(c, s);
    return 0;
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
