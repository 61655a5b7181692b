/*
 * memcached/driver: the memcached load driver, on raw non-blocking sockets.
 *
 * One transaction is one request: a get, a set, or a multiget of --batch
 * keys (one "get k1 k2 ..." line, or GETKQ per key and a NOOP in the
 * binary protocol). Each connection lays its requests out once
 * (memcached/proto.c) and only rewrites the key digits afterwards; a set's
 * value is one buffer shared by every connection and sent with sendmsg,
 * so the hot path allocates nothing.
 *
 * Also here, for the other memcached files: parsing targets, and the
 * blocking connect and stats round trip of prepare, --fill and the
 * collector.
 */
#include "memcached.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "collectors/shared/batch.h"
#include "collectors/shared/kv.h"
#include "engine/mix.h"
#include "engine/optdef.h"
#include "engine/target.h"
#include "base/uri.h"
#include "base/text.h"

#define MC_SCHEME "memcached://"
#define MC_CONNECT_TIMEOUT_MS 5000
#define MC_REPLY_TIMEOUT_MS 5000
/* The longest stats reply accepted (`stats items` of 63 classes is ~40 KB). */
#define MC_MAX_STATS_REPLY (16u << 20)
/* --fill sends this much at once before reading the replies (8 bytes each: they fit in buffers). */
#define MC_FILL_WINDOW_BYTES (256u << 10)
#define MC_FILL_WINDOW_MAX 512
/* Item header, key and suffix on top of the value: what memcached's item size limit covers. */
#define MC_ITEM_OVERHEAD 64

enum mc_workload { MC_WL_MIXED, MC_WL_GET, MC_WL_SET, MC_WL_MULTIGET };

static const char *const mc_schemes[] = {MC_SCHEME, NULL};
/* The first is the default: mixed is memaslap's and most caches' shape. */
static const char *const mc_workloads[] = {"mixed", "get", "set", "multiget", NULL};
static const char *const mc_modes[] = {"text", "binary", NULL};

struct mc_shared {
    struct mc_addr addr;
    enum mc_proto proto;
    enum mc_workload wl;
    struct kv_workload kv; /* keys, their pattern, the mix, the value (then "\r\n") */
    int batch;             /* multiget: keys per request */
    int digits;
    size_t rbuf_size; /* a connection's first read buffer */
    size_t reply_max; /* the largest element a reply may hold: the server's item_size_max */
    struct mix mix;   /* -f: the scripts (memcached/script.c), without built-ins */
    struct mc_script ms[MIX_MAX];
    size_t script_line, script_request;
};

struct mc_conn {
    const struct mc_shared *sh;
    struct rng *rng;
    int fd;
    uint64_t seq;         /* next key of the seq pattern */
    struct mc_req req[3]; /* by enum mc_op; only the ones the workload uses are laid out */
    struct iovec out[2];  /* what is left to send of the current request */
    int nout;
    int out_at; /* first iovec of out not fully sent */
    struct mc_txn txn;
    char *rbuf;
    size_t rcap, rlen;
    /* -f: the request, the current script, its next command's operation and its state */
    char *sbuf, *line;
    int64_t vars[SCRIPT_MAX_VARS];
    const struct mc_script *ms;
    int at;
    struct mc_sop_state sop;
    struct msghdr smsg; /* a send queued in the worker's sendq (driver.h) */
};

enum { MC_BATCH_DEFAULT = 10, MC_BATCH_MAX = 10000 };

/* The memcached driver's options: the key-value group and --batch (keys per multiget). */
struct mc_opts {
    struct kv_conf kv;
    struct batch_conf batch;
};

/* ---- targets ---- */

static int
parse_unix(const char *path, struct mc_addr *out, char *err)
{
    struct sockaddr_un *un = (struct sockaddr_un *)&out->sa;

    if (strlen(path) >= sizeof un->sun_path)
        return seterr(err, "socket path '%s' is too long (use a shorter path)", path);
    un->sun_family = AF_UNIX;
    strcpy(un->sun_path, path);
    out->salen = sizeof *un;
    snprintf(out->name, sizeof out->name, "%s", path);
    return 0;
}

static int
unexpected(const char *what, char *err)
{
    return seterr(err,
                  "invalid target: unexpected '%s' (a memcached target is "
                  "memcached://HOST:PORT, with no database or options)",
                  what);
}

/* "host", "host:port", "[v6]", "[v6]:port", with an optional "/" at the end. */
static int
split_host_port(const char *t, struct uri *u, char *host, size_t hostlen, char *port,
                size_t portlen, char *err)
{
    int v;

    switch (uri_split_host(t, u)) {
    case URI_HOST_NO_CLOSE_BRACKET:
        return seterr(err, "invalid target: '[' without ']' (use memcached://[::1]:11211)");
    case URI_HOST_AFTER_BRACKET:
        return unexpected(strchr(t + u->authority.off, ']') + 1, err);
    case URI_HOST_OK:
        break;
    }
    if (u->host.len == 0 || u->host.len >= hostlen)
        return seterr(err, "invalid target: no host (use memcached://HOST:PORT or "
                           "memcached:///path/to/socket)");
    memcpy(host, t + u->host.off, u->host.len);
    host[u->host.len] = '\0';
    snprintf(port, portlen, "%d", MC_DEFAULT_PORT);
    if (u->has_port) {
        if (uri_port(t, u->port, &v) < 0)
            return seterr(err, "invalid target: bad port in '%s' (use 1 to 65535)",
                          t + u->host.off);
        snprintf(port, portlen, "%d", v);
    }
    if (u->path.len > 1)
        return unexpected(t + u->path.off + 1, err);
    if (u->has_query)
        return unexpected(t + u->query.off - 1, err);
    return 0;
}

static int
resolve(const char *host, const char *port, struct mc_addr *out, char *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(host, port, &hints, &res);

    if (rc != 0)
        return seterr(err, "cannot resolve '%s': %s (check the host name)", host, gai_strerror(rc));
    memcpy(&out->sa, res->ai_addr, res->ai_addrlen);
    out->salen = res->ai_addrlen;
    freeaddrinfo(res);
    snprintf(out->name, sizeof out->name, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
    return 0;
}

/* ---- blocking helpers (main thread, collector thread) ---- */

static void
set_nodelay(int fd, const struct mc_addr *a)
{
    int one = 1;

    /* One small request per round trip: Nagle would only add delay. */
    if (a->sa.ss_family != AF_UNIX)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int
connect_error(const struct mc_addr *a, int e, char *err)
{
    const char *hint = a->sa.ss_family == AF_UNIX ? "is memcached running with -s on this path?"
                                                  : "is memcached running there? check the host "
                                                    "and port";

    return seterr(err, "cannot connect to memcached at %s: %s (%s)", a->name, strerror(e), hint);
}

/* Waits for a non-blocking connect; 0 or an errno. */
static int
finish_connect(int fd, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int soerr = 0, rc;
    socklen_t len = sizeof soerr;

    do
        rc = poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    if (rc == 0)
        return ETIMEDOUT;
    if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
        return errno;
    return soerr;
}

static int
send_all(int fd, const struct mc_addr *a, const void *buf, size_t len, char *err)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return seterr(err, "cannot send to memcached at %s: %s", a->name, strerror(errno));
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* One recv into buf[*len..cap); -1 with err on a timeout, an error or the end of the stream. */
static int
recv_some(int fd, const struct mc_addr *a, const char *what, char *buf, size_t cap, size_t *len,
          char *err)
{
    ssize_t n;

    do
        n = recv(fd, buf + *len, cap - *len, 0);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        *len += (size_t)n;
        return 0;
    }
    /* Only the first question can meet a server of another kind. */
    if (n == 0 && strcmp(what, "version") == 0)
        return seterr(err,
                      "%s closed the connection without answering '%s' (is it a memcached "
                      "server? check the port)",
                      a->name, what);
    if (n == 0)
        return seterr(err, "memcached at %s closed the connection during '%s'", a->name, what);
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return seterr(err,
                      "%s did not answer '%s' within %d s (is it a memcached server? check "
                      "the port)",
                      a->name, what, MC_REPLY_TIMEOUT_MS / 1000);
    return seterr(err, "cannot read from memcached at %s: %s", a->name, strerror(errno));
}

/* A stats reply is complete at its END line, or at an error line in its place. */
static int
stats_complete(const char *buf, size_t len)
{
    const char *nl = memchr(buf, '\n', len);

    if (len >= 5 && memcmp(buf + len - 5, "END\r\n", 5) == 0 && (len == 5 || buf[len - 6] == '\n'))
        return 1;
    return nl != NULL && (strncmp(buf, "ERROR", 5) == 0 || strncmp(buf, "CLIENT_ERROR", 12) == 0 ||
                          strncmp(buf, "SERVER_ERROR", 12) == 0);
}

/* ---- prepare: options ---- */

/* Options that make no sense for memcached, or for this workload, are refused, not ignored. */
static int
check_options(const struct runconf *rc, const struct mc_opts *o, struct mc_shared *sh, char *err)
{
    if (rc->script_file != NULL && sh->proto != MC_TEXT)
        return seterr(err, "memcached runs -f scripts in the text protocol (drop -M binary)");
    if (rc->script_file != NULL && rc->workload != NULL)
        return seterr(err, "memcached runs -f scripts alone, not with a built-in (drop -w)");
    if (rc->builtin != NULL)
        return seterr(err, "memcached runs one built-in workload, not a -b mix (use -w mixed "
                           "--ratio SET:GET for gets and sets)");
    if (o->kv.pipeline > 1)
        return seterr(err, "--pipeline is not supported for memcached (use -w multiget --batch N "
                           "for several keys per request, or more -c)");
    if (options_given(rc, "batch") && sh->wl != MC_WL_MULTIGET)
        return seterr(err, "--batch applies to -w multiget only (add -w multiget or drop --batch)");
    if (o->batch.batch > MC_BATCH_MAX)
        return seterr(err, "--batch for memcached must be at most %d keys, not %d", MC_BATCH_MAX,
                      o->batch.batch);
    return kv_setup(&sh->kv, &o->kv, runconf_total_clients(rc), sh->wl == MC_WL_MIXED, "1:9", err);
}

/* -f: the scripts, each checked for memcached, and the buffers they need. */
static int
load_scripts(const struct runconf *rc, struct mc_shared *sh, char *err)
{
    if (mix_parse(&sh->mix, rc, "memcached", mc_workloads, err) < 0 ||
        mix_load(&sh->mix, NULL, mc_script_predef, 1, err) < 0)
        return -1;
    for (int i = 0; i < sh->mix.n; i++) {
        if (mc_script_compile(&sh->ms[i], sh->mix.e[i].script, err) < 0)
            return -1;
        if (sh->ms[i].line > sh->script_line)
            sh->script_line = sh->ms[i].line;
        if (sh->ms[i].request > sh->script_request)
            sh->script_request = sh->ms[i].request;
    }
    return 0;
}

static int
parse_choices(const struct runconf *rc, const struct mc_opts *o, struct mc_shared *sh, char *err)
{
    const char *w = rc->workload ? rc->workload : mc_workloads[0];
    const char *m = rc->mode ? rc->mode : mc_modes[0];
    int i;

    if ((i = str_index(mc_workloads, w)) < 0)
        return seterr(err,
                      "unknown workload '%s' for memcached (use -w mixed, get, set or "
                      "multiget)",
                      w);
    sh->wl = (enum mc_workload)i;
    if ((i = str_index(mc_modes, m)) < 0)
        return seterr(err, "unknown protocol '%s' for memcached (use -M text or binary)", m);
    sh->proto = (enum mc_proto)i;
    if (check_options(rc, o, sh, err) < 0)
        return -1;
    return rc->script_file != NULL ? load_scripts(rc, sh, err) : 0;
}

/* ---- prepare: is it memcached? ---- */

static int
not_memcached(const struct mc_addr *a, const char *line, size_t n, char *err)
{
    char q[80];
    size_t j;

    /* The whole first line of what it said, up to a length that keeps the message one line. */
    while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == '\n' || line[n - 1] == ' '))
        n--;
    j = text_ascii(q, sizeof q - 3, line, n); /* room left for "..." */
    if (j < n) {
        memcpy(q + j, "...", 3);
        j += 3;
    }
    q[j] = '\0';
    /* RESP: every Redis reply starts with one of these. */
    if (n > 0 && strchr("-+:$*", line[0]) != NULL)
        return seterr(err,
                      "%s does not speak the memcached protocol: it answered \"%s\" (is it "
                      "redis? use redis://%s)",
                      a->name, q, a->name);
    return seterr(err,
                  "%s does not speak the memcached protocol: it answered \"%s\" (check the "
                  "port)",
                  a->name, q);
}

/* Sends "version" and insists on "VERSION ..." back: the cheapest question every memcached answers.
 */
static int
identify(int fd, const struct mc_addr *a, char *version, size_t vlen, char *err)
{
    char buf[512];
    size_t len = 0;
    const char *nl = NULL;

    if (send_all(fd, a, "version\r\n", 9, err) < 0)
        return -1;
    while (nl == NULL && len < sizeof buf - 1) {
        if (recv_some(fd, a, "version", buf, sizeof buf - 1, &len, err) < 0)
            return len > 0 ? not_memcached(a, buf, len, err) : -1;
        nl = memchr(buf, '\n', len);
    }
    if (nl == NULL || len < 10 || memcmp(buf, "VERSION ", 8) != 0)
        return not_memcached(a, buf, nl ? (size_t)(nl - buf) : len, err);
    snprintf(version, vlen, "%.*s", (int)strcspn(buf + 8, "\r\n"), buf + 8);
    return 0;
}

/* memcached -B ascii refuses binary packets: find out now rather than with every request. */
static int
check_binary(int fd, const struct mc_addr *a, char *err)
{
    unsigned char req[MC_BIN_HEADER] = {MC_BIN_REQ, MC_BIN_VERSION};
    char buf[512], perr[BT_ERRLEN];
    size_t len = 0, need;
    struct mc_reply r;
    ssize_t n = 0;

    if (send_all(fd, a, req, sizeof req, err) < 0)
        return -1;
    while (n == 0 && len < sizeof buf) {
        if (recv_some(fd, a, "binary version", buf, sizeof buf, &len, perr) < 0)
            break;
        n = mc_bin_parse(buf, len, &r, &need, perr);
    }
    if (n > 0 && r.opcode == MC_BIN_VERSION && r.status == 0)
        return 0;
    return seterr(err,
                  "memcached at %s does not accept the binary protocol (start it with -B "
                  "auto, or use -M text)",
                  a->name);
}

/* The value must fit in one item: memcached refuses larger ones with every set. */
static int
check_item_size(int fd, struct mc_shared *sh, char *err)
{
    char *reply;
    size_t len;
    uint64_t max = MC_ITEM_SIZE_DEFAULT;
    int rc = 0;

    if (mc_stats_roundtrip(fd, &sh->addr, "stats settings\r\n", &reply, &len, err) < 0)
        return -1;
    mc_stats_find(reply, len, "item_size_max", &max);
    /* A value no item can hold is a broken or hostile server: refused before it fills memory. */
    sh->reply_max = (size_t)(max < MC_MAX_BODY ? max : MC_MAX_BODY) + MC_LINE_MAX;
    if (sh->kv.value_size + MC_ITEM_OVERHEAD > max)
        rc = seterr(err,
                    "--value-size %zu does not fit in memcached's items of at most %llu "
                    "bytes (use a smaller --value-size, or start memcached with a larger -I)",
                    sh->kv.value_size, (unsigned long long)max);
    free(reply);
    return rc;
}

/* ---- prepare: --fill ---- */

/*
 * A full cache that found nothing to evict in time (its LRU tail busy
 * under the fill's burst) refuses a set for memory: that key is not kept,
 * as an evicted one is not (fill_check says how many were kept).
 */
static int
cache_full(const struct mc_reply *r)
{
    return r->kind == MC_R_SERVER_ERROR && memmem(r->data, r->data_len, "out of memory", 13);
}

/* Reads the replies of n pipelined sets; every one must be STORED, or refused by a full cache. */
static int
fill_replies(int fd, const struct mc_addr *a, uint64_t first, int n, char *rbuf, size_t cap,
             char *err)
{
    size_t len = 0, pos = 0, need;
    struct mc_reply r;
    char perr[BT_ERRLEN];
    int got = 0;

    while (got < n) {
        ssize_t k = pos < len ? mc_text_parse(rbuf + pos, len - pos, &r, &need, perr) : 0;
        if (k < 0)
            return seterr(err, "fill: %s", perr);
        if (k == 0) {
            memmove(rbuf, rbuf + pos, len - pos);
            len -= pos;
            pos = 0;
            if (recv_some(fd, a, "set", rbuf, cap, &len, err) < 0)
                return -1;
            continue;
        }
        if (r.kind != MC_R_STORED && !cache_full(&r))
            return seterr(err,
                          "fill: memcached refused key %llu: %.*s (use a smaller --keys or "
                          "--value-size, or give memcached more memory with -m)",
                          (unsigned long long)(first + (uint64_t)got),
                          (int)(k > 2 && k < 200 ? k - 2 : 0), rbuf + pos);
        pos += (size_t)k;
        got++;
    }
    return 0;
}

/* Warns when the server could not keep every key (its memory is smaller than the key space). */
static void
fill_check(int fd, int quiet, const struct mc_shared *sh)
{
    char *reply, err[BT_ERRLEN];
    size_t len;
    uint64_t items, limit;

    if (quiet || mc_stats_roundtrip(fd, &sh->addr, "stats\r\n", &reply, &len, err) < 0)
        return;
    if (mc_stats_find(reply, len, "curr_items", &items) == 0 && items < sh->kv.keys &&
        mc_stats_find(reply, len, "limit_maxbytes", &limit) == 0)
        fprintf(stderr,
                "fill: memcached holds %llu of the %llu keys: its %llu MB are full, so "
                "some gets will miss (start it with a larger -m, or use fewer --keys)\n",
                (unsigned long long)items, (unsigned long long)sh->kv.keys,
                (unsigned long long)(limit >> 20));
    free(reply);
}

struct mc_fill {
    int fd;
    const struct mc_shared *sh;
    struct mc_req req; /* a text set, laid out once */
    size_t one;        /* its length, value included */
    char *out;         /* room for a window of sets */
};

/* Sends n sets from key `first` at once, then reads their n replies. */
static int
fill_batch(void *arg, uint64_t first, uint64_t n, char *err)
{
    struct mc_fill *f = arg;
    const struct kv_workload *kv = &f->sh->kv;
    char rbuf[8192];

    for (uint64_t i = 0; i < n; i++) {
        mc_req_key(&f->req, 0, first + i);
        memcpy(f->out + i * f->one, f->req.head, f->req.head_len);
        memcpy(f->out + i * f->one + f->req.head_len, kv->value, kv->value_size + 2);
    }
    if (send_all(f->fd, &f->sh->addr, f->out, n * f->one, err) < 0)
        return -1;
    return fill_replies(f->fd, &f->sh->addr, first, (int)n, rbuf, sizeof rbuf, err);
}

/* SETs every key once, text protocol, a window of requests at a time on one connection. */
static int
fill(int fd, int quiet, const struct mc_shared *sh, char *err)
{
    struct mc_fill f = {.fd = fd, .sh = sh};
    uint64_t window;
    int rv;

    mc_req_init(&f.req, MC_TEXT, MC_OP_SET, 1, sh->digits, sh->kv.value, sh->kv.value_size);
    f.one = mc_req_len(&f.req);
    window = MC_FILL_WINDOW_BYTES / f.one;
    window = window < 1 ? 1 : window > MC_FILL_WINDOW_MAX ? MC_FILL_WINDOW_MAX : window;
    f.out = xmalloc(window * f.one);
    rv = kv_fill(&sh->kv, window, quiet, fill_batch, &f, err);
    free(f.out);
    mc_req_free(&f.req);
    if (rv == 0)
        fill_check(fd, quiet, sh);
    return rv;
}

/* ---- the class's main-thread callbacks ---- */

static char *
mc_mask(const char *target)
{
    /* No passwords in memcached targets; should one be typed anyway, none of it is echoed. */
    return uri_mask(target);
}

static void
setup_keys(const struct mc_opts *o, struct mc_shared *sh)
{
    sh->digits = mc_key_digits(sh->kv.keys);
    sh->batch = sh->wl != MC_WL_MULTIGET ? 1 : o->batch.batch ? o->batch.batch : MC_BATCH_DEFAULT;
    /*
     * Room for a whole reply when it is small; larger ones grow the buffer on
     * demand. No more than that: a page per connection (the old 4 KB floor)
     * made 10,000 connections' buffers 40 MB, a page and a TLB entry apart.
     */
    sh->rbuf_size = (size_t)sh->batch * (sh->kv.value_size + 64) + 64;
    sh->rbuf_size = sh->rbuf_size < 256            ? 256
                    : sh->rbuf_size > (256u << 10) ? 256u << 10
                                                   : sh->rbuf_size;
}

static void mc_release(void *shared);

static void *
mc_prepare(const struct runconf *rc, const void *opts, char *err)
{
    const struct mc_opts *o = opts;
    struct mc_shared *sh = xcalloc(1, sizeof *sh);
    char version[64];
    int fd = -1;

    sh->addr = *(const struct mc_addr *)rc->tgt.parsed;
    if (parse_choices(rc, o, sh, err) < 0)
        goto fail;
    setup_keys(o, sh);
    fd = mc_connect_blocking(&sh->addr, MC_CONNECT_TIMEOUT_MS, err);
    if (fd < 0 || identify(fd, &sh->addr, version, sizeof version, err) < 0 ||
        check_item_size(fd, sh, err) < 0 || (o->kv.fill && fill(fd, rc->quiet, sh, err) < 0))
        goto fail;
    close(fd);
    /* A fresh connection: memcached picks the protocol from a connection's first byte. */
    if (sh->proto == MC_BINARY) {
        fd = mc_connect_blocking(&sh->addr, MC_CONNECT_TIMEOUT_MS, err);
        if (fd < 0 || check_binary(fd, &sh->addr, err) < 0)
            goto fail;
        close(fd);
    }
    return sh;
fail:
    if (fd >= 0)
        close(fd);
    mc_release(sh);
    return NULL;
}

static void
mc_release(void *shared)
{
    struct mc_shared *sh = shared;

    kv_release(&sh->kv);
    for (int i = 0; i < sh->mix.n; i++)
        mc_script_free(&sh->ms[i]);
    mix_free(&sh->mix);
    free(sh);
}

static int
mc_init(const struct init_conf *ic, char *err)
{
    return seterr(err,
                  "memcached has no tables to create (use benchtop run %s --fill to write "
                  "every key before the load)",
                  ic->target->masked);
}

/* ---- per-connection callbacks (worker threads, never blocking) ---- */

static void *
mc_conn_new(void *shared, int client_id, struct rng *rng)
{
    const struct mc_shared *sh = shared;
    struct mc_conn *c = xcalloc(1, sizeof *c);
    int uses_get = sh->wl == MC_WL_GET || sh->wl == MC_WL_MIXED;
    int uses_set = sh->wl == MC_WL_SET || sh->wl == MC_WL_MIXED;

    c->sh = sh;
    c->rng = rng;
    c->fd = -1;
    /* Connections walk the key space from evenly spread starting points. */
    c->seq = kv_first_key(&sh->kv, client_id);
    if (uses_get)
        mc_req_init(&c->req[MC_OP_GET], sh->proto, MC_OP_GET, 1, sh->digits, NULL, 0);
    if (uses_set)
        mc_req_init(&c->req[MC_OP_SET], sh->proto, MC_OP_SET, 1, sh->digits, sh->kv.value,
                    sh->kv.value_size);
    if (sh->wl == MC_WL_MULTIGET)
        mc_req_init(&c->req[MC_OP_MULTIGET], sh->proto, MC_OP_MULTIGET, sh->batch, sh->digits, NULL,
                    0);
    c->rcap = sh->rbuf_size;
    c->rbuf = xmalloc(c->rcap);
    if (sh->mix.n > 0) {
        c->sbuf = xmalloc(sh->script_request);
        c->line = xmalloc(sh->script_line + 1);
        c->vars[0] = client_id;
        c->vars[1] = (int64_t)sh->kv.keys;
    }
    return c;
}

static void
mc_conn_disconnect(void *conn)
{
    struct mc_conn *c = conn;

    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->rlen = 0;
    c->nout = 0;
}

static void
mc_conn_free(void *conn)
{
    struct mc_conn *c = conn;

    mc_conn_disconnect(c);
    for (int i = 0; i < 3; i++)
        if (c->req[i].head != NULL)
            mc_req_free(&c->req[i]);
    free(c->rbuf);
    free(c->sbuf);
    free(c->line);
    free(c);
}

static int
mc_conn_fd(void *conn)
{
    return ((struct mc_conn *)conn)->fd;
}

static enum drv_status
mc_conn_connect_start(void *conn, char *err)
{
    struct mc_conn *c = conn;
    const struct mc_addr *a = &c->sh->addr;

    c->rlen = 0;
    c->nout = 0;
    c->fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        seterr(err, "cannot create a socket: %s", strerror(errno));
        return DRV_ERROR;
    }
    set_nodelay(c->fd, a);
    if (connect(c->fd, (const struct sockaddr *)&a->sa, a->salen) < 0 && errno != EINPROGRESS) {
        connect_error(a, errno, err);
        return DRV_ERROR;
    }
    /* Even a connect that is already done waits for writability: DRV_DONE here would wait on input.
     */
    return DRV_WANT_WRITE;
}

static enum drv_status
mc_conn_connect_poll(void *conn, char *err)
{
    struct mc_conn *c = conn;
    int soerr = 0;
    socklen_t len = sizeof soerr;

    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
        soerr = errno;
    if (soerr == 0)
        return DRV_DONE;
    connect_error(&c->sh->addr, soerr, err);
    return DRV_ERROR;
}

static enum mc_op
pick_op(struct mc_conn *c)
{
    switch (c->sh->wl) {
    case MC_WL_GET:
        return MC_OP_GET;
    case MC_WL_SET:
        return MC_OP_SET;
    case MC_WL_MULTIGET:
        return MC_OP_MULTIGET;
    case MC_WL_MIXED:
    default:
        return kv_next_is_set(&c->sh->kv, c->rng) ? MC_OP_SET : MC_OP_GET;
    }
}

/* The connection cannot go on: what happened, and the system's reason when there is one. */
static enum drv_status
lost(struct txn_result *res, const char *what, const char *why)
{
    res->err = ERR_CONN;
    snprintf(res->msg, sizeof res->msg, "%.200s%s%.50s", what, why ? ": " : "", why ? why : "");
    return DRV_ERROR;
}

/*
 * Sends what is left of the request; WANT_READ once all of it is out. With
 * res->sendq it is queued instead, and out stays as it is until the engine
 * calls again, which it does once all of it went (driver.h).
 */
static enum drv_status
send_rest(struct mc_conn *c, struct txn_result *res)
{
    if (res->sendq != NULL && c->out_at < c->nout) {
        c->smsg = (struct msghdr){.msg_iov = c->out + c->out_at,
                                  .msg_iovlen = (size_t)(c->nout - c->out_at)};
        sendq_send(res->sendq, res->send_tag, c->fd, &c->smsg);
        c->out_at = c->nout;
        return DRV_WANT_READ;
    }
    while (c->out_at < c->nout) {
        struct msghdr m = {.msg_iov = c->out + c->out_at,
                           .msg_iovlen = (size_t)(c->nout - c->out_at)};
        ssize_t n = sendmsg(c->fd, &m, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return DRV_WANT_WRITE;
        if (n < 0)
            return lost(res, "cannot send to memcached", strerror(errno));
        c->out_at = iov_advance(c->out, c->out_at, c->nout, (size_t)n);
    }
    return DRV_WANT_READ;
}

/* The first command at or after i (not a \set line). */
static int
script_next(const struct mc_script *ms, int i)
{
    while (i < ms->s->ncmds && ms->s->cmds[i].kind != SCRIPT_SQL)
        i++;
    return i;
}

/* -f: the script's commands go out together; their replies come back in order. */
static enum drv_status
start_script(struct mc_conn *c, struct txn_result *res)
{
    const struct mc_shared *sh = c->sh;
    char err[BT_ERRLEN];
    long len;

    c->ms = &sh->ms[mix_pick(&sh->mix, c->rng)];
    len = mc_script_render(c->ms, c->vars, c->rng, c->line, sh->script_line + 1, c->sbuf, err);
    if (len < 0) {
        res->err = ERR_OTHER;
        first_line(res->msg, sizeof res->msg, err);
        return DRV_DONE; /* nothing was sent */
    }
    c->at = script_next(c->ms, 0);
    memset(&c->sop, 0, sizeof c->sop);
    c->out[0] = (struct iovec){.iov_base = c->sbuf, .iov_len = (size_t)len};
    c->nout = 1;
    c->out_at = 0;
    c->rlen = 0;
    return send_rest(c, res);
}

/* -f: takes every complete reply element; DRV_DONE after the last command's. */
static enum drv_status
consume_script(struct mc_conn *c, struct txn_result *res, size_t *pos, size_t *need)
{
    char perr[BT_ERRLEN];

    while (*pos < c->rlen) {
        ssize_t n =
            mc_script_feed(c->ms->ops[c->at], c->rbuf + *pos, c->rlen - *pos, &c->sop, need, perr);
        if (n < 0)
            return lost(res, perr, NULL);
        if (n == 0)
            break;
        *pos += (size_t)n;
        if (!c->sop.done)
            continue;
        res->ops++;
        if (c->sop.failed && res->err == ERR_NONE) {
            res->err = ERR_OTHER;
            snprintf(res->msg, sizeof res->msg, "%s", c->sop.msg);
        }
        memset(&c->sop, 0, sizeof c->sop);
        c->at = script_next(c->ms, c->at + 1);
        if (c->at < c->ms->s->ncmds)
            continue;
        if (*pos != c->rlen)
            return lost(res, "memcached sent more than the reply (protocol out of step)", NULL);
        c->rlen = 0;
        return DRV_DONE;
    }
    return DRV_WANT_READ;
}

static enum drv_status
mc_conn_txn_start(void *conn, struct txn_result *res)
{
    struct mc_conn *c = conn;
    enum mc_op op;
    struct mc_req *r;

    if (c->sh->mix.n > 0)
        return start_script(c, res);
    op = pick_op(c);
    r = &c->req[op];

    for (int i = 0; i < r->nkeys; i++)
        mc_req_key(r, i, kv_next_key(&c->sh->kv, &c->seq, c->rng));
    mc_txn_begin(&c->txn, c->sh->proto, op, r->nkeys);
    c->out[0] = r->iov[0];
    c->out[1] = r->iov[1];
    c->nout = r->niov;
    c->out_at = 0;
    c->rlen = 0;
    return send_rest(c, res);
}

static enum drv_status
txn_done(struct mc_conn *c, struct txn_result *res)
{
    res->ops = c->txn.nkeys;
    if (c->txn.failed) {
        res->err = ERR_OTHER;
        snprintf(res->msg, sizeof res->msg, "%s", c->txn.msg);
    }
    return DRV_DONE;
}

/* The parser needs `need` bytes for one element: a value larger than the buffer. */
static void
grow_rbuf(struct mc_conn *c, size_t need)
{
    size_t cap = c->rcap;

    while (cap < need)
        cap *= 2;
    if (cap != c->rcap) {
        c->rbuf = xrealloc(c->rbuf, cap);
        c->rcap = cap;
    }
}

/* A reply element larger than any item the server can hold: the connection goes. */
static enum drv_status
too_large(const struct mc_conn *c, size_t need, struct txn_result *res)
{
    res->err = ERR_DRIVER_1;
    snprintf(res->msg, sizeof res->msg,
             "memcached announced a value of %zu bytes, more than its item_size_max allows "
             "(%zu)",
             need, c->sh->reply_max - MC_LINE_MAX);
    return DRV_ERROR;
}

/* Takes every complete element in rbuf. DRV_WANT_READ: the reply goes on. */
static enum drv_status
consume(struct mc_conn *c, struct txn_result *res)
{
    size_t pos = 0, need = 0;
    struct mc_reply r;
    char perr[BT_ERRLEN];
    enum drv_status st;

    if (c->ms != NULL && (st = consume_script(c, res, &pos, &need)) != DRV_WANT_READ)
        return st;
    while (c->ms == NULL && pos < c->rlen) {
        ssize_t n = mc_parse(c->sh->proto, c->rbuf + pos, c->rlen - pos, &r, &need, perr);
        if (n < 0)
            return lost(res, perr, NULL);
        if (n == 0)
            break;
        pos += (size_t)n;
        switch (mc_txn_feed(&c->txn, &r)) {
        case MC_FEED_DESYNC:
            return lost(res, c->txn.msg, NULL);
        case MC_FEED_DONE:
            if (pos != c->rlen)
                return lost(res, "memcached sent more than the reply (protocol out of step)", NULL);
            c->rlen = 0;
            return txn_done(c, res);
        case MC_FEED_MORE:
            break;
        }
    }
    memmove(c->rbuf, c->rbuf + pos, c->rlen - pos);
    c->rlen -= pos;
    if (need > c->sh->reply_max)
        return too_large(c, need, res);
    grow_rbuf(c, need > c->rlen + 1 ? need : c->rlen + 1);
    return DRV_WANT_READ;
}

/*
 * The reply ended where a recv filled the buffer, so the socket may hold
 * more, which an edge-triggered watch would not report again (.reads_drain):
 * one more recv. Nothing may follow a reply; the end of the stream or an
 * error is met by the next request.
 */
static enum drv_status
drain_after_reply(struct mc_conn *c, struct txn_result *res)
{
    ssize_t n;

    do
        n = recv(c->fd, c->rbuf, c->rcap, 0);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        return lost(res, "memcached sent more than the reply (protocol out of step)", NULL);
    return DRV_DONE;
}

static enum drv_status
mc_conn_txn_poll(void *conn, struct txn_result *res)
{
    struct mc_conn *c = conn;
    enum drv_status st;
    ssize_t n;
    size_t room;

    if (c->out_at < c->nout && ((st = send_rest(c, res)) != DRV_WANT_READ || res->sendq != NULL))
        return st; /* queued: the reply cannot be there yet */
    for (;;) {
        room = c->rcap - c->rlen;
        n = recv(c->fd, c->rbuf + c->rlen, room, 0);
        if (n == 0)
            return lost(res, "memcached closed the connection", NULL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return DRV_WANT_READ;
        if (n < 0)
            return lost(res, "cannot read from memcached", strerror(errno));
        c->rlen += (size_t)n;
        st = consume(c, res);
        if (st == DRV_DONE && (size_t)n == room)
            return drain_after_reply(c, res);
        if (st != DRV_WANT_READ)
            return st;
    }
}

/* ---- shared with the other memcached files (memcached.h) ---- */

int
mc_target_parse(const char *target, struct mc_addr *out, char *err)
{
    const char *rest = target + strlen(MC_SCHEME);
    char host[256], port[8];
    struct uri u;

    memset(out, 0, sizeof *out);
    if (strncmp(target, MC_SCHEME, strlen(MC_SCHEME)) != 0 || uri_split(target, &u) < 0)
        return seterr(err, "invalid target '%s' (use memcached://HOST:PORT)", target);
    if (*rest == '/')
        return rest[1] == '\0' ? seterr(err, "invalid target: no socket path after "
                                             "memcached:// (use memcached:///path/to/socket)")
                               : parse_unix(rest, out, err);
    if (u.has_userinfo)
        return seterr(err, "invalid target: memcached targets take no user or password (SASL is "
                           "not supported; use memcached://HOST:PORT)");
    if (split_host_port(target, &u, host, sizeof host, port, sizeof port, err) < 0)
        return -1;
    return resolve(host, port, out, err);
}

/* The driver class's parse and free_parsed: a struct mc_addr of its own, or NULL and err. */
static void *
mc_target_new(const char *target, char *err)
{
    struct mc_addr *a = xmalloc(sizeof *a);

    if (mc_target_parse(target, a, err) == 0)
        return a;
    free(a);
    return NULL;
}

static void
mc_target_delete(void *a)
{
    free(a);
}

int
mc_connect_blocking(const struct mc_addr *a, int timeout_ms, char *err)
{
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int e = 0;

    if (fd < 0)
        return connect_error(a, errno, err);
    if (connect(fd, (const struct sockaddr *)&a->sa, a->salen) < 0)
        e = errno == EINPROGRESS ? finish_connect(fd, timeout_ms) : errno;
    if (e != 0) {
        close(fd);
        return connect_error(a, e, err);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    set_nodelay(fd, a);
    return fd;
}

int
mc_stats_roundtrip(int fd, const struct mc_addr *a, const char *req, char **out, size_t *outlen,
                   char *err)
{
    size_t cap = 16384, len = 0;
    char *buf;
    char what[64];

    snprintf(what, sizeof what, "%.*s", (int)strcspn(req, "\r\n"), req);
    if (send_all(fd, a, req, strlen(req), err) < 0)
        return -1;
    buf = xmalloc(cap);
    while (len == 0 || !stats_complete(buf, len)) {
        if (cap - len < 4096 && cap >= MC_MAX_STATS_REPLY) {
            free(buf);
            return seterr(err, "the reply of %s to '%s' is over %u MB (is it memcached?)", a->name,
                          what, MC_MAX_STATS_REPLY >> 20);
        }
        if (cap - len < 4096)
            buf = xrealloc(buf, cap *= 2);
        if (recv_some(fd, a, what, buf, cap - 1, &len, err) < 0) {
            free(buf);
            return -1;
        }
    }
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    return 0;
}

static const struct driver_options mc_options[] = {
    {&kv_options, offsetof(struct mc_opts, kv)},
    {&batch_option_group, offsetof(struct mc_opts, batch)},
    {&pipeline_option_group, offsetof(struct mc_opts, kv.pipeline)}, /* refused with a hint */
    {NULL, 0},
};
static const char *const mc_demo_options[] = {"fill=1", NULL}; /* so that gets hit */

static const char *const mc_err_kinds[] = {"reply_too_large", NULL};

const struct driver_class memcached_driver_class = {
    .err_kinds = mc_err_kinds,
    .name = "memcached",
    .schemes = mc_schemes,
    .workloads = mc_workloads,
    .modes = mc_modes,
    .reads_drain = 1,
    .options = mc_options,
    .options_size = sizeof(struct mc_opts),
    .demo_options = mc_demo_options,
    .claims = NULL,
    .mask = mc_mask,
    .parse = mc_target_new,
    .free_parsed = mc_target_delete,
    .prepare = mc_prepare,
    .release = mc_release,
    .conn_new = mc_conn_new,
    .conn_free = mc_conn_free,
    .conn_fd = mc_conn_fd,
    .conn_connect_start = mc_conn_connect_start,
    .conn_connect_poll = mc_conn_connect_poll,
    .conn_txn_start = mc_conn_txn_start,
    .conn_txn_poll = mc_conn_txn_poll,
    .conn_disconnect = mc_conn_disconnect,
    .init = mc_init,
};
