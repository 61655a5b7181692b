/*
 * http/common: what the two HTTP drivers share (http.h): the option group,
 * targets masked and checked, the URL list, body, method and headers read
 * in prepare, a URL drawn per request, a status as a result, and init.
 * driver.c (http://) and curl.c (https://) both build on it.
 */
#include "http.h"

#include <curl/curl.h>
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collectors/shared/batch.h"
#include "engine/optdef.h"
#include "base/file.h"
#include "base/uri.h"
#include "base/util.h"

#define HT_MAX_BODY (64u << 20)
#define HT_MAX_URLS 1000000

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
