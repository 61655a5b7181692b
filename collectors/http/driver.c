/*
 * http/driver: http:// load on the engine's own sockets, and what the two
 * HTTP drivers share (options, URLs, body, method, headers: http.h).
 *
 * One transaction is one request. Each URL's request is written once, in
 * prepare (method, path, Host, -H, body; Connection: close with -C), and
 * sent as it is: an iovec into that shared text, so a request costs one
 * send (or a slot in the worker's sendq, .reads_drain) and its response
 * one or a few recv()s through the incremental parser of response.c, which
 * skips the body in place. Nothing is allocated per request.
 *
 * Keep-alive is the default (as wrk and ab -k); -C opens a connection per
 * request (ab without -k): the engine closes it after each response.
 * --pipeline D keeps D requests in flight on a connection (.pipelining,
 * driver.h); responses come in order. When a response says the connection
 * ends (Connection: close, HTTP/1.0, a body that runs to the close), or a
 * kept-alive connection is found closed before any byte of the response
 * came (the server's idle timeout), the requests still unanswered go again
 * on a new connection, once: that costs the request a connect, as it does
 * wrk's and curl's. A status other than 2xx is a failed request counted by
 * class (the driver's error kinds); the connection stays usable.
 */
#include "http.h"

#include <curl/curl.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "response.h"
#include "collectors/shared/batch.h"
#include "engine/optdef.h"
#include "base/file.h"
#include "base/uri.h"
#include "base/util.h"

#define HT_MAX_BODY (64u << 20)
#define HT_MAX_URLS 1000000
#define HW_RBUF (16u << 10) /* a connection's read buffer: body bytes are skipped in place */
#define HW_SENDQ_MAX 4096   /* requests up to this size may go through the sendq */

static const char *const ht_schemes[] = {"http://", NULL};
const char *const ht_workloads[] = {"request", NULL};
const char *const ht_modes[] = {"http1.1", NULL};
/* ERR_DRIVER_1.. */
const char *const ht_err_kinds[] = {"3xx", "4xx", "5xx", NULL};

/* ---- options ---- */

#define HT_OFF(field) offsetof(struct ht_conf, field)

static const struct option_def ht_defs[] = {
    {"method", 'X', OPT_STRING, HT_OFF(method), 0, 0, "", "METHOD", CMD_LOAD,
     "request method (default GET, POST with -d)"},
    {"data", 'd', OPT_STRING, HT_OFF(data), 0, 0, "", "BODY", CMD_LOAD,
     "request body, or @FILE to send a file's bytes (a body naming a token, key, secret, "
     "password or auth is shown as ***: keep secrets in @FILE)"},
    {"header", 'H', OPT_LIST, HT_OFF(headers), 0, 0, "", "'NAME: VALUE'", CMD_LOAD,
     "add a request header (repeatable; the values of Authorization, Cookie and names with "
     "token, key, secret, password or auth are shown as ***)"},
    {"url-file", 0, OPT_STRING, HT_OFF(url_file), 0, 0, "", "FILE", CMD_LOAD,
     "URLs to request, one per line, each request drawing one uniformly (the target is ignored "
     "but for its scheme)"},
    {"url-order", 0, OPT_FLAG, HT_OFF(url_order), 0, 1, "0", "", CMD_LOAD,
     "take --url-file's URLs in order, each client from its own place, instead of at random"},
    {"insecure", 0, OPT_FLAG, HT_OFF(insecure), 0, 1, "0", "", CMD_LOAD,
     "https: do not verify the server's certificate (a self-signed one on loopback)"},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL},
};
/* Whether text (len bytes) names a credential: token, secret, key, password, auth. */
static int
names_secret(const char *text, size_t len)
{
    static const char *const parts[] = {"token", "secret", "key", "password", "auth", NULL};
    char *low = xstrndup(text, len);
    int found = 0;

    for (size_t i = 0; i < len; i++)
        low[i] = (char)tolower((unsigned char)low[i]);
    for (size_t i = 0; parts[i] != NULL && !found; i++)
        found = strstr(low, parts[i]) != NULL;
    free(low);
    return found;
}

/* Whether a header named name (len bytes) carries a credential. */
static int
secret_header(const char *name, size_t len)
{
    static const char *const exact[] = {"authorization", "proxy-authorization", "cookie", NULL};

    for (size_t i = 0; exact[i] != NULL; i++)
        if (strlen(exact[i]) == len && strncasecmp(name, exact[i], len) == 0)
            return 1;
    return names_secret(name, len);
}

/*
 * -H 'Authorization: Bearer x' is shown as 'Authorization: ***', and a -d
 * body that names a credential (password=, "token":) as *** (option_group.mask).
 */
static char *
ht_mask_option(const char *name, const char *value)
{
    const char *colon = strchr(value, ':');

    if (strcmp(name, "data") == 0)
        return value[0] != '@' && names_secret(value, strlen(value)) ? xstrdup("***")
                                                                     : xstrdup(value);
    if (strcmp(name, "header") != 0 || colon == NULL ||
        !secret_header(value, (size_t)(colon - value)))
        return xstrdup(value);
    return xasprintf("%.*s: ***", (int)(colon - value), value);
}

static const struct option_group ht_option_group = {"http", ht_defs, ht_mask_option};
const struct driver_options ht_options[] = {
    {&ht_option_group, offsetof(struct ht_opts, http)},
    {&pipeline_option_group, offsetof(struct ht_opts, http.pipeline)},
    {NULL, 0}};
/* ---- targets ---- */

char *
ht_mask(const char *target)
{
    struct uri u;

    if (uri_split(target, &u) < 0 || !u.has_password)
        return xstrdup(target);
    return uri_replace(target, u.password, "***");
}

/*
 * 0 if url is an http(s) URL curl accepts whose host is loopback; else -1
 * and why in err (the URL shown with its password masked).
 */
static int
check_url(const char *url, char *err)
{
    CURLU *h = curl_url();
    char *scheme = NULL, *host = NULL, *shown = ht_mask(url);
    int rc = 0;

    if (curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(h, CURLUPART_HOST, &host, 0) != CURLUE_OK)
        rc = seterr(err, "'%s' is not a URL curl can read (e.g. http://127.0.0.1:8080/index.html)",
                    shown);
    else if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)
        rc = seterr(err, "'%s' is not http:// or https:// (give a web URL)", shown);
    else if (!uri_is_local(url))
        rc = seterr(err,
                    "%s is not on this machine: benchtop loads loopback only (use 127.0.0.1, ::1 "
                    "or localhost)",
                    host);
    curl_free(scheme);
    curl_free(host);
    curl_url_cleanup(h);
    free_secret(shown);
    return rc;
}

/* ---- prepare ---- */

static const struct file_ask url_file = {.what = "URL file",
                                         .option = "--url-file",
                                         .kind = "fewer URLs",
                                         .max = HT_MAX_BODY,
                                         .text = 1};
static const struct file_ask body_file = {
    .what = "body", .option = "-d", .kind = "a smaller file", .max = HT_MAX_BODY};

static void
add_url(struct ht_common *sh, const char *line, size_t n)
{
    sh->urls = xrealloc(sh->urls, (size_t)(sh->nurls + 1) * sizeof *sh->urls);
    sh->urls[sh->nurls++] = xstrndup(line, n);
}

/* One URL per line; blank lines and lines starting with '#' are skipped. */
static int
load_urls(struct ht_common *sh, const char *path, char *err)
{
    char *text, *p, *eol;
    size_t n;
    int rc = 0;

    if ((text = file_read(path, &url_file, NULL, err)) == NULL)
        return -1;
    for (p = text; rc == 0 && *p != '\0'; p = *eol ? eol + 1 : eol) {
        eol = p + strcspn(p, "\n");
        n = (size_t)(eol - p);
        while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        while (n > 0 && (*p == ' ' || *p == '\t')) {
            p++;
            n--;
        }
        if (n == 0 || *p == '#')
            continue;
        if (sh->nurls == HT_MAX_URLS)
            rc = seterr(err, "--url-file %s has more than %d URLs (use fewer)", path, HT_MAX_URLS);
        else
            add_url(sh, p, n);
        if (rc == 0)
            rc = check_url(sh->urls[sh->nurls - 1], err);
    }
    free(text);
    if (rc == 0 && sh->nurls == 0)
        rc = seterr(err, "--url-file %s has no URL in it (one per line)", path);
    return rc;
}

/* -H lines checked once: 'Name: value' each (both drivers write them as given). */
static int
check_headers(struct ht_common *sh, const char *lines, char *err)
{
    const char *p = lines, *line, *colon;
    size_t len;

    while (options_list_next(&p, &line, &len)) {
        colon = memchr(line, ':', len);
        if (colon == NULL || colon == line)
            return seterr(err, "-H takes 'Name: value', not '%.*s'", (int)len, line);
    }
    sh->header_lines = lines != NULL ? xstrdup(lines) : NULL;
    return 0;
}

static int
load_body(struct ht_common *sh, const char *data, char *err)
{
    if (data == NULL)
        return 0;
    sh->has_body = 1;
    if (data[0] == '@')
        return (sh->body = file_read(data + 1, &body_file, &sh->body_len, err)) != NULL ? 0 : -1;
    sh->body = xstrdup(data);
    sh->body_len = strlen(data);
    return 0;
}

static int
set_method(struct ht_common *sh, const char *method, char *err)
{
    const char *m = method ? method : sh->has_body ? "POST" : "GET";

    if (strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_") != strlen(m) ||
        m[0] == '\0')
        return seterr(err, "-X takes a method name such as GET, POST or PUT, not '%s'", m);
    sh->head = strcmp(m, "HEAD") == 0;
    sh->method = m;
    /* curl's own GET and POST need no custom request line */
    if (!(strcmp(m, "GET") == 0 && !sh->has_body) && !(strcmp(m, "POST") == 0 && sh->has_body) &&
        !sh->head)
        sh->custom = xstrdup(m);
    if (sh->custom != NULL)
        sh->method = sh->custom;
    return 0;
}

static int
check_choices(const struct runconf *rc, const struct ht_conf *o, char *err)
{
    if (rc->workload != NULL && strcmp(rc->workload, ht_workloads[0]) != 0)
        return seterr(err, "http targets have one workload, a request per transaction (drop -w)");
    if (rc->mode != NULL && strcmp(rc->mode, ht_modes[0]) != 0)
        return seterr(err, "http targets speak HTTP/1.1 only (drop -M)");
    if (rc->script_file != NULL)
        return seterr(err, "http targets take no script (drop -f; use --url-file for many URLs)");
    if (o->url_order && o->url_file == NULL)
        return seterr(err, "--url-order applies to --url-file (add --url-file FILE)");
    if (rc->connect_per_txn && o->pipeline > 1)
        return seterr(err,
                      "-C opens a connection per request, so --pipeline %d has nothing to "
                      "pipeline (drop one of them)",
                      o->pipeline);
    return 0;
}

/* Every URL is of the target's scheme: the scheme chose the driver. */
static int
check_schemes(const struct ht_common *sh, const char *scheme, char *err)
{
    size_t n = strlen(scheme);

    for (int i = 0; i < sh->nurls; i++)
        if (strncmp(sh->urls[i], scheme, n) != 0 || strncmp(sh->urls[i] + n, "://", 3) != 0)
            return seterr(err,
                          "--url-file's URLs must all be %s:// like the target (give a target of "
                          "the URLs' scheme; https:// ones go through libcurl)",
                          scheme);
    return 0;
}

int
ht_load(struct ht_common *sh, const struct runconf *rc, const void *opts, const char *scheme,
        char *err)
{
    const struct ht_conf *o = &((const struct ht_opts *)opts)->http;
    int ok;

    sh->url_order = o->url_order;
    sh->per_request = rc->connect_per_txn;
    sh->insecure = o->insecure;
    sh->clients = rc->clients;
    sh->pipeline = o->pipeline > 0 ? o->pipeline : 1;
    ok = check_choices(rc, o, err) == 0;
    if (ok && o->url_file != NULL)
        ok = load_urls(sh, o->url_file, err) == 0 && check_schemes(sh, scheme, err) == 0;
    else if (ok)
        ok = check_url(rc->tgt.raw, err) == 0 && (add_url(sh, rc->tgt.raw, strlen(rc->tgt.raw)), 1);
    ok = ok && load_body(sh, o->data, err) == 0 && set_method(sh, o->method, err) == 0 &&
         check_headers(sh, o->headers, err) == 0;
    return ok ? 0 : -1;
}

void
ht_unload(struct ht_common *sh)
{
    for (int i = 0; i < sh->nurls; i++)
        free(sh->urls[i]);
    free(sh->urls);
    free(sh->custom);
    free(sh->body);
    free(sh->header_lines);
    memset(sh, 0, sizeof *sh);
}

int
ht_pick_url(const struct ht_common *sh, int *next, struct rng *rng)
{
    int i;

    if (sh->nurls == 1)
        return 0;
    if (!sh->url_order)
        return (int)rng_range(rng, 0, sh->nurls - 1);
    i = *next;
    *next = i + 1 == sh->nurls ? 0 : i + 1;
    return i;
}

void
ht_status_result(long status, struct txn_result *res)
{
    if (status >= 200 && status < 300)
        return;
    res->err = status >= 300 && status < 600 ? (enum err_kind)(ERR_DRIVER_1 + status / 100 - 3)
                                             : ERR_OTHER;
    snprintf(res->msg, sizeof res->msg, "HTTP status %ld", status);
}

int
ht_init(const struct init_conf *ic, char *err)
{
    return seterr(err, "a web server has no tables to create (run benchtop run %s directly)",
                  ic->target->masked);
}

/* ---- http:// on the engine's own sockets ---- */

/* A server address the URLs point to. */
struct hw_addr {
    struct sockaddr_storage sa;
    socklen_t len;
    char where[300]; /* host:port, for messages */
};

/* A URL's request, written once. */
struct hw_url {
    char *req;
    size_t len;
    int addr; /* index in hw_shared.addrs */
};

struct hw_shared {
    struct ht_common hc;
    struct hw_url *urls;
    struct hw_addr *addrs;
    int naddrs;
    int depth; /* requests in flight per connection */
};

struct hw_conn {
    const struct hw_shared *sh;
    struct rng *rng;
    int fd;
    int addr;       /* where fd goes */
    int next;       /* --url-order: the next URL's index */
    int connecting; /* a new connection's connect, inside a request, is under way */
    int closing;    /* the server ends the connection: what comes next goes on a new one */
    int served;     /* responses on this connection */
    int unread;     /* the last read filled the buffer: the socket may hold more */
    int *due;       /* the URL of each request in flight, a ring of depth, oldest at due_head */
    int due_head, due_n;
    struct iovec *out; /* requests not sent yet (into the shared text): out[out_at..nout) */
    int nout, out_at;
    struct hr_parser p;
    char *rbuf;
    size_t rpos, rlen;  /* rbuf[rpos..rlen) read, not parsed yet */
    struct msghdr smsg; /* a send queued in the worker's sendq (driver.h) */
};

/* -H's line for name, or NULL; *value and *vlen its value. */
static const char *
user_header(const struct ht_common *hc, const char *name, const char **value, size_t *vlen)
{
    const char *p = hc->header_lines, *line, *colon;
    size_t len, n = strlen(name);

    while (options_list_next(&p, &line, &len)) {
        colon = memchr(line, ':', len);
        if (colon == NULL || (size_t)(colon - line) != n || strncasecmp(line, name, n) != 0)
            continue;
        *value = colon + 1;
        *vlen = len - n - 1;
        while (*vlen > 0 && (**value == ' ' || **value == '\t')) {
            (*value)++;
            (*vlen)--;
        }
        return line;
    }
    return NULL;
}

/* Writes "Name: value" unless -H gives the name (its own line is written, or removed by "Name:").
 */
static void
put_default(FILE *f, const struct ht_common *hc, const char *name, const char *value)
{
    const char *v;
    size_t n;

    if (user_header(hc, name, &v, &n) == NULL)
        fprintf(f, "%s: %s\r\n", name, value);
}

/* -H's lines, but those that only remove a default ("Name:" with nothing after it, as curl). */
static void
put_user_headers(FILE *f, const struct ht_common *hc)
{
    const char *p = hc->header_lines, *line, *colon;
    size_t len;

    while (options_list_next(&p, &line, &len)) {
        colon = memchr(line, ':', len);
        if (strspn(colon + 1, " \t") < len - (size_t)(colon - line) - 1)
            fprintf(f, "%.*s\r\n", (int)len, line);
    }
}

/* The request for a URL: request line, Host, defaults curl sent, -H, body. */
static char *
write_request(const struct ht_common *hc, const char *host, const char *path, const char *query,
              size_t *len)
{
    char *buf = NULL, clen[32];
    FILE *f = open_memstream(&buf, len);

    if (f == NULL)
        fatal("open_memstream: %s", strerror(errno));
    fprintf(f, "%s %s%s%s HTTP/1.1\r\n", hc->method, path, query ? "?" : "", query ? query : "");
    put_default(f, hc, "Host", host);
    put_default(f, hc, "Accept", "*/*");
    if (hc->has_body) {
        snprintf(clen, sizeof clen, "%zu", hc->body_len);
        put_default(f, hc, "Content-Type", "application/x-www-form-urlencoded");
        put_default(f, hc, "Content-Length", clen);
    }
    if (hc->per_request)
        put_default(f, hc, "Connection", "close");
    put_user_headers(f, hc);
    fputs("\r\n", f);
    if (hc->has_body)
        fwrite(hc->body, 1, hc->body_len, f);
    if (fclose(f) != 0)
        fatal("open_memstream: out of memory");
    return buf;
}

/* The index of host:port in sh->addrs, resolved and added when new; -1 with err. */
static int
find_addr(struct hw_shared *sh, const char *host, const char *port, char *err)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    char where[300], bare[256];
    size_t n = strlen(host);
    int rc;

    snprintf(where, sizeof where, "%s:%s", host, port);
    for (int i = 0; i < sh->naddrs; i++)
        if (strcmp(sh->addrs[i].where, where) == 0)
            return i;
    /* an IPv6 literal comes in brackets */
    snprintf(bare, sizeof bare, "%.*s", (int)(host[0] == '[' ? n - 2 : n), host + (host[0] == '['));
    rc = getaddrinfo(bare, port, &hints, &ai);
    if (rc != 0)
        return seterr(err, "cannot resolve %s: %s (use 127.0.0.1 or ::1)", where, gai_strerror(rc));
    sh->addrs = xrealloc(sh->addrs, (size_t)(sh->naddrs + 1) * sizeof *sh->addrs);
    memcpy(&sh->addrs[sh->naddrs].sa, ai->ai_addr, ai->ai_addrlen);
    sh->addrs[sh->naddrs].len = ai->ai_addrlen;
    snprintf(sh->addrs[sh->naddrs].where, sizeof sh->addrs[0].where, "%s", where);
    freeaddrinfo(ai);
    return sh->naddrs++;
}

/* URL i's request and address. */
static int
prepare_url(struct hw_shared *sh, int i, char *err)
{
    CURLU *h = curl_url();
    char *host = NULL, *port = NULL, *given = NULL, *path = NULL, *query = NULL, *hosthdr;
    int rc = -1;

    if (h == NULL)
        fatal("curl_url: out of memory");
    if (curl_url_set(h, CURLUPART_URL, sh->hc.urls[i], 0) == CURLUE_OK &&
        curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(h, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
        curl_url_get(h, CURLUPART_PATH, &path, 0) == CURLUE_OK) {
        if (curl_url_get(h, CURLUPART_PORT, &given, 0) != CURLUE_OK)
            given = NULL;
        if (curl_url_get(h, CURLUPART_QUERY, &query, 0) != CURLUE_OK)
            query = NULL;
        hosthdr = given ? xasprintf("%s:%s", host, given) : xstrdup(host);
        sh->urls[i].addr = find_addr(sh, host, port, err);
        sh->urls[i].req =
            write_request(&sh->hc, hosthdr, path[0] ? path : "/", query, &sh->urls[i].len);
        free(hosthdr);
        rc = sh->urls[i].addr < 0 ? -1 : 0;
    } else {
        seterr(err, "cannot split URL %s into host, port and path (check its spelling)",
               sh->hc.urls[i]);
    }
    curl_free(host);
    curl_free(port);
    curl_free(given);
    curl_free(path);
    curl_free(query);
    curl_url_cleanup(h);
    return rc;
}

static void
hw_release(void *shared)
{
    struct hw_shared *sh = shared;

    for (int i = 0; sh->urls != NULL && i < sh->hc.nurls; i++)
        free(sh->urls[i].req);
    free(sh->urls);
    free(sh->addrs);
    ht_unload(&sh->hc);
    free(sh);
}

static void *
hw_prepare(const struct runconf *rc, const void *opts, char *err)
{
    struct hw_shared *sh = xcalloc(1, sizeof *sh);
    int ok = ht_load(&sh->hc, rc, opts, "http", err) == 0 && ht_probe(&sh->hc, err) == 0;

    if (ok)
        sh->urls = xcalloc((size_t)sh->hc.nurls, sizeof *sh->urls);
    for (int i = 0; ok && i < sh->hc.nurls; i++)
        ok = prepare_url(sh, i, err) == 0;
    sh->depth = rc->connect_per_txn ? 1 : sh->hc.pipeline;
    if (ok && sh->depth > 1 && sh->naddrs > 1)
        ok = seterr(err,
                    "--pipeline needs --url-file's URLs on one server (host:port); they "
                    "name %d (drop --pipeline or split the file)",
                    sh->naddrs) == 0;
    if (!ok) {
        hw_release(sh);
        return NULL;
    }
    return sh;
}

static int
hw_pipeline_depth(const void *opts)
{
    const struct ht_conf *o = &((const struct ht_opts *)opts)->http;

    return o->pipeline > 0 ? o->pipeline : 1;
}

/* ---- per-connection callbacks (worker threads, never blocking) ---- */

static void *
hw_conn_new(void *shared, int client_id, struct rng *rng)
{
    const struct hw_shared *sh = shared;
    struct hw_conn *c = xcalloc(1, sizeof *c);

    c->sh = sh;
    c->rng = rng;
    c->fd = -1;
    c->addr = sh->urls[0].addr;
    c->next = (int)((long long)(client_id % sh->hc.clients) * sh->hc.nurls / sh->hc.clients);
    c->due = xcalloc((size_t)sh->depth, sizeof *c->due);
    c->out = xcalloc((size_t)sh->depth, sizeof *c->out);
    c->rbuf = xmalloc(HW_RBUF);
    return c;
}

static void
hw_conn_disconnect(void *conn)
{
    struct hw_conn *c = conn;

    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->connecting = c->closing = c->served = c->unread = 0;
    c->due_head = c->due_n = c->nout = c->out_at = 0;
    c->rpos = c->rlen = 0;
}

static void
hw_conn_free(void *conn)
{
    struct hw_conn *c = conn;

    hw_conn_disconnect(c);
    free(c->due);
    free(c->out);
    free(c->rbuf);
    free(c);
}

static int
hw_conn_fd(void *conn)
{
    return ((struct hw_conn *)conn)->fd;
}

/* The connection cannot go on: what happened, and the system's reason when there is one. */
static enum drv_status
lost(struct hw_conn *c, struct txn_result *res, const char *what, const char *why)
{
    res->err = ERR_CONN;
    snprintf(res->msg, sizeof res->msg, "%.100s: %.100s%s%.50s", c->sh->addrs[c->addr].where, what,
             why ? ": " : "", why ? why : "");
    return DRV_ERROR;
}

/*
 * A socket to address a, its connect started. The new fd is taken before
 * the old one closes, so its number differs and the worker's watch, keyed
 * by fd, registers it (driver.h: a closed fd's number is reused).
 */
static int
open_socket(struct hw_conn *c, int a, char *err)
{
    const struct hw_addr *addr = &c->sh->addrs[a];
    int fd = socket(addr->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

    if (fd < 0)
        return seterr(err, "cannot create a socket: %s", strerror(errno));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (const struct sockaddr *)&addr->sa, addr->len) < 0 && errno != EINPROGRESS) {
        seterr(err, "cannot connect to %s: %s (is the web server running on that port?)",
               addr->where, strerror(errno));
        close(fd);
        return -1;
    }
    if (c->fd >= 0)
        close(c->fd);
    c->fd = fd;
    c->addr = a;
    c->closing = c->served = c->unread = 0;
    c->rpos = c->rlen = 0;
    hr_begin(&c->p, c->sh->hc.head);
    return 0;
}

static enum drv_status
hw_conn_connect_start(void *conn, char *err)
{
    struct hw_conn *c = conn;

    hw_conn_disconnect(c);
    if (open_socket(c, c->addr, err) < 0)
        return DRV_ERROR;
    /* even a connect that is done already waits for writability: DRV_DONE would wait on input */
    return DRV_WANT_WRITE;
}

static enum drv_status
hw_conn_connect_poll(void *conn, char *err)
{
    struct hw_conn *c = conn;
    int e = socket_error(c->fd);

    if (e == 0)
        return DRV_DONE;
    seterr(err, "cannot connect to %s: %s (is the web server running on that port?)",
           c->sh->addrs[c->addr].where, strerror(e));
    return DRV_ERROR;
}

/* Request i (a URL index) goes out after those queued. */
static void
queue_request(struct hw_conn *c, int u)
{
    const struct hw_url *url = &c->sh->urls[u];

    if (c->out_at == c->nout)
        c->nout = c->out_at = 0;
    c->out[c->nout++] = (struct iovec){.iov_base = url->req, .iov_len = url->len};
}

/*
 * A new connection for what is in flight: the server ended the old one
 * (Connection: close, or closed a kept-alive one before answering). The
 * requests still unanswered go again, in order, once it is up.
 */
static enum drv_status
reopen(struct hw_conn *c, int a, struct txn_result *res)
{
    char err[BT_ERRLEN];

    if (open_socket(c, a, err) < 0) {
        res->err = ERR_CONN;
        snprintf(res->msg, sizeof res->msg, "%.250s", err);
        return DRV_ERROR;
    }
    c->connecting = 1;
    c->nout = c->out_at = 0;
    for (int i = 0; i < c->due_n; i++)
        queue_request(c, c->due[(c->due_head + i) % c->sh->depth]);
    return DRV_WANT_WRITE;
}

/* A reopened connection's connect: DRV_DONE once it is up. */
static enum drv_status
connect_done(struct hw_conn *c, struct txn_result *res)
{
    struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
    int e;

    if (poll(&pfd, 1, 0) == 0)
        return DRV_WANT_WRITE;
    if ((e = socket_error(c->fd)) != 0)
        return lost(c, res, "cannot connect", strerror(e));
    c->connecting = 0;
    return DRV_DONE;
}

static enum drv_status
hw_conn_txn_start(void *conn, struct txn_result *res)
{
    struct hw_conn *c = conn;
    int u = ht_pick_url(&c->sh->hc, &c->next, c->rng);
    int slot = c->due_head + c->due_n;

    if (c->due_n == 0 && (c->closing || c->sh->urls[u].addr != c->addr) &&
        reopen(c, c->sh->urls[u].addr, res) == DRV_ERROR)
        return DRV_ERROR;
    c->due[slot < c->sh->depth ? slot : slot - c->sh->depth] = u;
    c->due_n++;
    queue_request(c, u);
    return DRV_WANT_WRITE; /* conn_txn_poll sends it (.pipelining) */
}

/* The oldest request's response ended: its outcome. */
static enum drv_status
finish_response(struct hw_conn *c, struct txn_result *res)
{
    res->ops = 1;
    res->rx_bytes = c->p.bytes;
    ht_status_result(c->p.status, res);
    c->served++;
    if (!c->p.keep_alive)
        c->closing = 1;
    c->due_head = c->due_head + 1 == c->sh->depth ? 0 : c->due_head + 1;
    c->due_n--;
    /* bytes nobody asked for: the connection is out of step, the next request takes a new one */
    if (c->due_n == 0 && c->rpos < c->rlen)
        c->closing = 1;
    hr_begin(&c->p, c->sh->hc.head);
    return DRV_DONE;
}

/* Parses what was read: DRV_DONE when the oldest response ended, DRV_WANT_READ for more. */
static enum drv_status
take_response(struct hw_conn *c, struct txn_result *res)
{
    char err[BT_ERRLEN];
    int done;
    ssize_t n = hr_feed(&c->p, c->rbuf + c->rpos, c->rlen - c->rpos, &done, err);

    if (n < 0)
        return lost(c, res, err, NULL);
    c->rpos += (size_t)n;
    return done ? finish_response(c, res) : DRV_WANT_READ;
}

/* The server closed the connection (or reset it) while a response was due. */
static enum drv_status
at_eof(struct hw_conn *c, struct txn_result *res)
{
    if (hr_eof(&c->p))
        return finish_response(c, res); /* a body that runs to the close */
    if (!hr_started(&c->p) && c->rlen == 0 && (c->served > 0 || c->closing))
        return reopen(c, c->addr, res); /* it ended a kept-alive connection: once more */
    return lost(c, res,
                hr_started(&c->p) || c->rlen > 0 ? "the server closed the connection mid-response"
                                                 : "the server closed the connection",
                NULL);
}

/* Reads into rbuf: DRV_DONE when it read some, else what the caller returns. */
static enum drv_status
read_some(struct hw_conn *c, struct txn_result *res)
{
    size_t room;
    ssize_t n;

    if (c->rpos == c->rlen) {
        c->rpos = c->rlen = 0;
    } else if (c->rpos > 0) { /* a line cut by the buffer's end: keep it */
        memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
        c->rlen -= c->rpos;
        c->rpos = 0;
    }
    room = HW_RBUF - c->rlen;
    do
        n = recv(c->fd, c->rbuf + c->rlen, room, 0);
    while (n < 0 && errno == EINTR);
    c->unread = n == (ssize_t)room;
    if (n > 0) {
        c->rlen += (size_t)n;
        return DRV_DONE;
    }
    if (n == 0 || errno == ECONNRESET)
        return at_eof(c, res);
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return DRV_WANT_READ;
    return lost(c, res, "cannot read", strerror(errno));
}

/*
 * Sends what is queued: DRV_WANT_READ once all went, DRV_WANT_WRITE when
 * the socket is full. With the worker's sendq, small requests are queued
 * there instead (a send that goes out short loses the connection: a large
 * -d body is sent here, where a short send just waits).
 */
static enum drv_status
send_out(struct hw_conn *c, struct txn_result *res, int batch)
{
    struct msghdr m = {.msg_iov = c->out + c->out_at, .msg_iovlen = (size_t)(c->nout - c->out_at)};
    size_t total = 0;
    ssize_t n;

    for (int i = c->out_at; batch && i < c->nout; i++)
        total += c->out[i].iov_len;
    if (batch && total <= HW_SENDQ_MAX) {
        c->smsg = m;
        sendq_send(res->sendq, res->send_tag, c->fd, &c->smsg);
        c->out_at = c->nout;
        return DRV_WANT_READ;
    }
    while (c->out_at < c->nout) {
        m = (struct msghdr){.msg_iov = c->out + c->out_at,
                            .msg_iovlen = (size_t)(c->nout - c->out_at)};
        n = sendmsg(c->fd, &m, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return DRV_WANT_WRITE;
        if (n < 0)
            return lost(c, res, "cannot send", strerror(errno));
        c->out_at = iov_advance(c->out, c->out_at, c->nout, (size_t)n);
    }
    return DRV_WANT_READ;
}

/*
 * DRV_DONE when the oldest request's response ended. Responses already read
 * come first; only then is the queue sent and the socket read. After a send
 * it waits for the socket rather than read at once (the answer cannot be
 * there yet), unless the last read filled the buffer (.reads_drain).
 */
static enum drv_status
hw_conn_txn_poll(void *conn, struct txn_result *res)
{
    struct hw_conn *c = conn;
    enum drv_status st;

    if (c->closing && !c->connecting && (st = reopen(c, c->addr, res)) == DRV_ERROR)
        return st;
    for (;;) {
        if (c->connecting && (st = connect_done(c, res)) != DRV_DONE)
            return st;
        if (c->rpos < c->rlen && (st = take_response(c, res)) != DRV_WANT_READ)
            return st;
        if (c->out_at < c->nout) {
            st = send_out(c, res, res->sendq != NULL && !c->unread);
            if (st != DRV_WANT_READ || !c->unread)
                return st;
        }
        if ((st = read_some(c, res)) != DRV_DONE)
            return st;
    }
}

const struct driver_class http_driver_class = {
    .name = "http",
    .unseen_hint = "add --watch with the app tier's status URLs (php-fpm's pm.status_path, "
                   "nginx's stub_status) or its database",
    .version_note = "http:// on the worker loops' own sockets (HTTP/1.1 written and parsed by "
                    "benchtop)",
    .schemes = ht_schemes,
    .workloads = ht_workloads,
    .modes = ht_modes,
    .pipelining = 1,
    .reads_drain = 1,
    .err_kinds = ht_err_kinds,
    .options = ht_options,
    .options_size = sizeof(struct ht_opts),
    .pipeline_depth = hw_pipeline_depth,
    .mask = ht_mask,
    .prepare = hw_prepare,
    .release = hw_release,
    .conn_new = hw_conn_new,
    .conn_free = hw_conn_free,
    .conn_fd = hw_conn_fd,
    .conn_connect_start = hw_conn_connect_start,
    .conn_connect_poll = hw_conn_connect_poll,
    .conn_txn_start = hw_conn_txn_start,
    .conn_txn_poll = hw_conn_txn_poll,
    .conn_disconnect = hw_conn_disconnect,
    .init = ht_init,
};
