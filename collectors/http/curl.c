/*
 * http/curl: https:// load through libcurl's multi interface (http:// runs
 * on the engine's own sockets, driver.c; this driver is for TLS), and
 * prepare's one blocking probe request for both.
 *
 * One transaction is one request. Each connection owns a CURLM with one
 * easy handle, so curl's connection cache holds just that connection and
 * keeps it alive between requests (with -C, CURLOPT_FORBID_REUSE closes it
 * after each). The engine waits on one fd per connection that never
 * changes: an epoll set of the connection's own, into which curl's socket
 * callback puts whatever socket curl uses at the moment and its timer
 * callback a timerfd. Curl may close and open sockets inside a request
 * (a server that closed an idle keep-alive connection), which the worker's
 * watch, keyed by fd, could not follow; the inner set can. Readiness is
 * handed to curl_multi_socket_action, which never blocks.
 *
 * A final status other than 2xx is a failed request, counted by class
 * (3xx, 4xx, 5xx: the driver's own error kinds) with its status as the
 * message; the connection stays usable. Bytes received (headers and body
 * as curl reads them, before TLS) are counted per request.
 */
#include "http.h"

#include <curl/curl.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "engine/optdef.h"
#include "base/util.h"

#define HT_PREPARE_TIMEOUT_MS 5000L

static const char *const hc_schemes[] = {"https://", NULL};

struct ht_shared {
    struct ht_common hc;
    struct curl_slist *headers;
};

struct ht_conn {
    const struct ht_shared *sh;
    struct rng *rng;
    CURLM *multi;
    CURL *easy;
    int epfd;    /* what the engine waits on */
    int timerfd; /* curl's timer, inside epfd */
    int wakefd;  /* an eventfd inside epfd: makes it ready at once */
    int armed;   /* timerfd is set */
    int kick;    /* curl asked for its timeout to run now */
    int failed;  /* the last request failed: the next connect is a real one */
    CURL *probe; /* that connect, when it is under way */
    int done;    /* the request finished inside conn_txn_start */
    int next;    /* --url-order: the next URL's index */
    int url;     /* the URL set on the easy handle (-1: none) */
    char errbuf[CURL_ERROR_SIZE];
};

/* Options every request of the connection shares (the URL is set per request). */
static void
easy_setup(CURL *e, const struct ht_common *sh, const struct curl_slist *headers, char *errbuf)
{
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, NULL);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_PROXY, ""); /* never through a proxy from http_proxy */
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(e, CURLOPT_FORBID_REUSE, (long)sh->per_request);
    if (sh->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (sh->head)
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    if (sh->has_body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, sh->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)sh->body_len);
    }
    if (sh->custom != NULL)
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, sh->custom);
}

/* Discards the body: only its size counts (CURLINFO_SIZE_DOWNLOAD_T). */
static size_t
discard(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    (void)ptr;
    (void)userdata;
    return size * nmemb;
}

/* -H's lines as curl's list, with "Expect:" unless one was given. */
static struct curl_slist *
build_headers(const struct ht_common *sh)
{
    const char *p = sh->header_lines, *line;
    struct curl_slist *list = NULL;
    size_t len;
    int expect = 0;

    while (options_list_next(&p, &line, &len)) {
        expect |= len > 6 && line[6] == ':' && strncasecmp(line, "expect", 6) == 0;
        char *h = xstrndup(line, len);
        list = curl_slist_append(list, h);
        free(h);
    }
    /* curl would wait up to a second for "100 Continue" before sending a body over 1 KiB. */
    if (!expect)
        list = curl_slist_append(list, "Expect:");
    if (list == NULL)
        fatal("curl_slist_append: out of memory");
    return list;
}

static int
curl_problem(CURLcode rc, const char *url, const char *errbuf, char *err)
{
    const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);

    switch (rc) {
    case CURLE_COULDNT_CONNECT:
        return seterr(err, "cannot connect to %s: %s (is the web server running on that port?)",
                      url, why);
    case CURLE_OPERATION_TIMEDOUT:
        return seterr(err, "%s did not answer within %ld s: %s (is the server stuck?)", url,
                      HT_PREPARE_TIMEOUT_MS / 1000, why);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
        return seterr(err,
                      "TLS with %s failed: %s (add --insecure for a self-signed certificate, "
                      "or use http:// for a server without TLS)",
                      url, why);
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
        return seterr(err, "cannot use URL %s: %s (check its spelling)", url, why);
    default:
        return seterr(err, "request to %s failed: %s (check the URL and the server)", url, why);
    }
}

int
ht_probe(const struct ht_common *sh, char *err)
{
    char errbuf[CURL_ERROR_SIZE] = "", *shown;
    struct curl_slist *headers = NULL;
    CURL *e;
    CURLcode rc;

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return seterr(err, "curl_global_init failed");
    e = curl_easy_init();
    if (e == NULL) {
        curl_global_cleanup();
        return seterr(err, "curl_easy_init failed (out of memory?)");
    }
    headers = build_headers(sh);
    easy_setup(e, sh, headers, errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_URL, sh->urls[0]);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, HT_PREPARE_TIMEOUT_MS);
    rc = curl_easy_perform(e);
    curl_easy_cleanup(e);
    curl_slist_free_all(headers);
    curl_global_cleanup();
    if (rc == CURLE_OK)
        return 0;
    shown = ht_mask(sh->urls[0]);
    curl_problem(rc, shown, errbuf, err);
    free_secret(shown);
    return -1;
}

static void
hc_release(void *shared)
{
    struct ht_shared *sh = shared;

    ht_unload(&sh->hc);
    curl_slist_free_all(sh->headers);
    free(sh);
    curl_global_cleanup();
}

static void *
hc_prepare(const struct runconf *rc, const void *opts, char *err)
{
    struct ht_shared *sh = xcalloc(1, sizeof *sh);

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        free(sh);
        seterr(err, "curl_global_init failed");
        return NULL;
    }
    if (ht_load(&sh->hc, rc, opts, "https", err) < 0 || ht_probe(&sh->hc, err) < 0) {
        hc_release(sh);
        return NULL;
    }
    if (sh->hc.pipeline > 1) {
        seterr(err, "--pipeline is for http:// (https:// goes through libcurl, one request at a "
                    "time per connection: drop --pipeline)");
        hc_release(sh);
        return NULL;
    }
    sh->headers = build_headers(&sh->hc);
    return sh;
}

/* ---- per-connection callbacks (worker threads, never blocking) ---- */

/* CURLMOPT_SOCKETFUNCTION: curl's socket joins, changes or leaves the connection's epoll set. */
static int
on_socket(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
    struct ht_conn *c = userp;
    struct epoll_event ev = {.data.fd = s};

    (void)e;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(c->epfd, EPOLL_CTL_DEL, s, NULL); /* may be closed already: nothing to undo */
        curl_multi_assign(c->multi, s, NULL);
        return 0;
    }
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    if (epoll_ctl(c->epfd, socketp ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev) < 0 &&
        epoll_ctl(c->epfd, socketp ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, s, &ev) < 0)
        return -1;
    curl_multi_assign(c->multi, s, c);
    return 0;
}

/* Makes epfd ready without waiting for anything: one loop turn later, the engine calls back. */
static void
wake_soon(struct ht_conn *c)
{
    eventfd_post(c->wakefd);
}

/*
 * CURLMOPT_TIMERFUNCTION: -1 stop, 0 run the timeout as soon as we return,
 * else in ms. Setting a timerfd costs more than a request's own system
 * calls, so it is only touched when that changes something.
 */
static int
on_timer(CURLM *m, long timeout_ms, void *userp)
{
    struct ht_conn *c = userp;
    struct itimerspec t = {{0, 0}, {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L}};

    (void)m;
    if (timeout_ms == 0) {
        c->kick = 1;
    } else if (timeout_ms > 0 || c->armed) {
        if (timeout_ms < 0)
            t.it_value = (struct timespec){0, 0};
        timerfd_settime(c->timerfd, 0, &t, NULL);
        c->armed = timeout_ms > 0;
    }
    return 0;
}

static void
probe_end(struct ht_conn *c)
{
    if (c->probe == NULL)
        return;
    curl_multi_remove_handle(c->multi, c->probe);
    curl_easy_cleanup(c->probe); /* closes the probe's connection */
    c->probe = NULL;
}

static void
conn_close_curl(struct ht_conn *c)
{
    probe_end(c);
    if (c->multi != NULL && c->easy != NULL)
        curl_multi_remove_handle(c->multi, c->easy);
    if (c->easy != NULL)
        curl_easy_cleanup(c->easy);
    if (c->multi != NULL)
        curl_multi_cleanup(c->multi); /* closes the cached connection (on_socket removes it) */
    c->easy = NULL;
    c->multi = NULL;
    c->url = -1;
}

static int
conn_open_curl(struct ht_conn *c, char *err)
{
    c->multi = curl_multi_init();
    c->easy = curl_easy_init();
    if (c->multi == NULL || c->easy == NULL) {
        conn_close_curl(c);
        return seterr(err, "cannot create a curl handle (out of memory?)");
    }
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, 1L);
    easy_setup(c->easy, &c->sh->hc, c->sh->headers, c->errbuf);
    curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, discard);
    return 0;
}

static void *
ht_conn_new(void *shared, int client_id, struct rng *rng)
{
    const struct ht_common *sh = &((const struct ht_shared *)shared)->hc;
    struct ht_conn *c = xcalloc(1, sizeof *c);
    struct epoll_event ev = {.events = EPOLLIN};

    c->sh = shared;
    c->rng = rng;
    c->url = -1;
    c->next = (int)((long long)(client_id % sh->clients) * sh->nurls / sh->clients);
    c->epfd = epoll_create1(EPOLL_CLOEXEC);
    c->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    c->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (c->epfd < 0 || c->timerfd < 0 || c->wakefd < 0)
        fatal("http: cannot create an epoll set, a timerfd or an eventfd: %s", strerror(errno));
    ev.data.fd = c->timerfd;
    if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->timerfd, &ev) < 0)
        fatal("http: epoll_ctl: %s", strerror(errno));
    ev.data.fd = c->wakefd;
    if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->wakefd, &ev) < 0)
        fatal("http: epoll_ctl: %s", strerror(errno));
    return c;
}

static void
ht_conn_free(void *conn)
{
    struct ht_conn *c = conn;

    conn_close_curl(c);
    close(c->timerfd);
    close(c->wakefd);
    close(c->epfd);
    free(c);
}

static int
ht_conn_fd(void *conn)
{
    return ((struct ht_conn *)conn)->epfd;
}

/* Runs curl on what is ready, and on its timeout while it asks for one now. */
static void
drive(struct ht_conn *c)
{
    struct epoll_event ev[8];
    int running, n = epoll_wait(c->epfd, ev, 8, 0);
    uint64_t ticks;

    for (int i = 0; i < n; i++) {
        if (ev[i].data.fd == c->timerfd) {
            c->armed = 0;
            if (read(c->timerfd, &ticks, sizeof ticks) > 0)
                c->kick = 1;
            continue;
        }
        if (ev[i].data.fd == c->wakefd)
            continue; /* read by conn_txn_poll */
        int mask = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                   (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                   (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
        curl_multi_socket_action(c->multi, ev[i].data.fd, mask, &running);
    }
    while (c->kick) {
        c->kick = 0;
        curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
}

/* The request is over: its outcome, or DRV_ERROR when the connection failed. */
static enum drv_status
finish(struct ht_conn *c, CURLcode rc, struct txn_result *res)
{
    curl_off_t body = 0;
    long status = 0, head = 0;

    curl_easy_getinfo(c->easy, CURLINFO_SIZE_DOWNLOAD_T, &body);
    curl_easy_getinfo(c->easy, CURLINFO_HEADER_SIZE, &head);
    curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_multi_remove_handle(c->multi, c->easy);
    res->rx_bytes = (uint64_t)body + (uint64_t)head;
    if (rc != CURLE_OK) {
        c->failed = 1;
        /* curl's message names host and port; the URL could hold a password */
        snprintf(res->msg, sizeof res->msg, "%s",
                 c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
        return DRV_ERROR;
    }
    res->ops = 1;
    ht_status_result(status, res);
    return DRV_DONE;
}

/* DRV_DONE with res filled when curl reports the transfer done; else DRV_WANT_READ. */
static enum drv_status
collect(struct ht_conn *c, struct txn_result *res)
{
    CURLMsg *m;
    int left;

    while ((m = curl_multi_info_read(c->multi, &left)) != NULL)
        if (m->msg == CURLMSG_DONE)
            return finish(c, m->data.result, res);
    return DRV_WANT_READ;
}

/* A connect-only transfer to the URL last used: is the server back? */
static int
probe_start(struct ht_conn *c, char *err)
{
    const struct ht_common *sh = &c->sh->hc;

    c->probe = curl_easy_init();
    if (c->probe == NULL)
        return seterr(err, "cannot create a curl handle (out of memory?)");
    easy_setup(c->probe, sh, c->sh->headers, c->errbuf);
    curl_easy_setopt(c->probe, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(c->probe, CURLOPT_URL, sh->urls[c->url >= 0 ? c->url : 0]);
    c->errbuf[0] = '\0';
    if (curl_multi_add_handle(c->multi, c->probe) != CURLM_OK)
        return seterr(err, "curl_multi_add_handle failed");
    drive(c);
    return 0;
}

/*
 * The TCP connection itself opens with the first request (its set-up is in
 * that request's latency, as with ab and wrk): the eventfd makes the fd the
 * engine waits on ready at once. Only after a failed request is a
 * connection made here (a connect-only probe), so that a server that is
 * down fails the connect and the engine backs off.
 */
static enum drv_status
ht_conn_connect_start(void *conn, char *err)
{
    struct ht_conn *c = conn;

    if (c->multi == NULL && conn_open_curl(c, err) < 0)
        return DRV_ERROR;
    if (!c->failed) {
        wake_soon(c);
        return DRV_WANT_READ;
    }
    if (probe_start(c, err) < 0) {
        probe_end(c);
        return DRV_ERROR;
    }
    wake_soon(c); /* the probe may be over already, with nothing left to wait for */
    return DRV_WANT_READ;
}

static enum drv_status
ht_conn_connect_poll(void *conn, char *err)
{
    struct ht_conn *c = conn;
    uint64_t ticks;
    CURLMsg *m;
    CURLcode rc;
    int left;

    if (read(c->wakefd, &ticks, sizeof ticks) < 0 && errno != EAGAIN) {
        seterr(err, "http: cannot read its eventfd: %s", strerror(errno));
        return DRV_ERROR;
    }
    if (c->probe == NULL)
        return DRV_DONE;
    drive(c);
    while ((m = curl_multi_info_read(c->multi, &left)) != NULL && m->msg != CURLMSG_DONE)
        continue;
    if (m == NULL)
        return DRV_WANT_READ;
    rc = m->data.result;
    probe_end(c);
    if (rc != CURLE_OK) {
        seterr(err, "%s", c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
        return DRV_ERROR;
    }
    c->failed = 0;
    return DRV_DONE;
}

static enum drv_status
ht_conn_txn_start(void *conn, struct txn_result *res)
{
    struct ht_conn *c = conn;
    int u = ht_pick_url(&c->sh->hc, &c->next, c->rng);
    enum drv_status st;

    if (u != c->url) {
        curl_easy_setopt(c->easy, CURLOPT_URL, c->sh->hc.urls[u]);
        c->url = u;
    }
    c->errbuf[0] = '\0';
    c->done = 0;
    if (curl_multi_add_handle(c->multi, c->easy) != CURLM_OK) {
        snprintf(res->msg, sizeof res->msg, "curl_multi_add_handle failed");
        return DRV_ERROR;
    }
    drive(c);
    st = collect(c, res);
    if (st == DRV_WANT_READ)
        return DRV_WANT_READ;
    /* Over already (an error curl found at once): conn_txn_poll reports it, one loop turn later. */
    c->done = 1;
    wake_soon(c);
    return st == DRV_ERROR ? DRV_ERROR : DRV_WANT_READ;
}

static enum drv_status
ht_conn_txn_poll(void *conn, struct txn_result *res)
{
    struct ht_conn *c = conn;

    if (c->done) {
        uint64_t ticks;
        c->done = 0;
        if (read(c->wakefd, &ticks, sizeof ticks) < 0 && errno != EAGAIN)
            return DRV_ERROR;
        return DRV_DONE;
    }
    drive(c);
    return collect(c, res);
}

/* With -C curl keeps nothing open; otherwise the cached connection goes with the handles. */
static void
ht_conn_disconnect(void *conn)
{
    struct ht_conn *c = conn;

    if (!c->sh->hc.per_request) {
        conn_close_curl(c);
    } else if (c->multi != NULL) {
        probe_end(c);
        if (c->easy != NULL)
            curl_multi_remove_handle(c->multi, c->easy);
    }
    c->done = 0;
}

const struct driver_class https_driver_class = {
    .name = "https",
    .version_note = "libcurl's multi interface on the worker loops (TLS)",
    .schemes = hc_schemes,
    .workloads = ht_workloads,
    .modes = ht_modes,
    .err_kinds = ht_err_kinds,
    .options = ht_options,
    .options_size = sizeof(struct ht_opts),
    .mask = ht_mask,
    .prepare = hc_prepare,
    .release = hc_release,
    .conn_new = ht_conn_new,
    .conn_free = ht_conn_free,
    .conn_fd = ht_conn_fd,
    .conn_connect_start = ht_conn_connect_start,
    .conn_connect_poll = ht_conn_connect_poll,
    .conn_txn_start = ht_conn_txn_start,
    .conn_txn_poll = ht_conn_txn_poll,
    .conn_disconnect = ht_conn_disconnect,
    .init = ht_init,
};
