/*
 * redis/tls/openssl: rediss:// with OpenSSL (tls.h says what and why).
 *
 * The certificate is verified by default against the system's CAs, or the
 * target's cacert=, and the host name (or IP address) it was reached by is
 * checked; ?insecure turns both off, as curl's --insecure does. Sessions
 * are TLS 1.2 or later; the server's session tickets are kept per load
 * connection (a new-session callback), so a reconnect resumes.
 *
 * The blocking path's pump: one thread per connection moves bytes between
 * hiredis's end of a socketpair (plain RESP) and the TLS session, both
 * directions non-blocking so neither can stall the other (a --fill batch
 * of megabytes goes up while replies come down). It ends when hiredis
 * closes its end (redisFree) or the server closes the connection, so it
 * never outlives its user by more than a poll.
 */
#include "collectors/redis/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collectors/redis/redis.h"
#include "engine/driver.h"
#include "base/util.h"

#define PUMP_BUF 16384 /* a TLS record's most plaintext */

const char rtls_note[] = "rediss:// through " OPENSSL_VERSION_TEXT;

struct rtls_ctx {
    SSL_CTX *ssl;
    char host[256];
    int insecure;
};

struct rtls {
    SSL *ssl;
    void **session; /* where the server's session ticket is kept; NULL: nowhere */
    int drained;    /* the socket's last read came back short or empty: nothing left in it */
};

/* ---- errors ---- */

/* OpenSSL's first queued reason ("certificate verify failed"), the queue emptied. */
static const char *
ssl_reason(char *buf, size_t len)
{
    unsigned long e = ERR_get_error();
    const char *r = e != 0 ? ERR_reason_error_string(e) : NULL;

    ERR_clear_error();
    if (r != NULL)
        snprintf(buf, len, "%s", r);
    else if (e != 0)
        ERR_error_string_n(e, buf, len);
    else
        snprintf(buf, len, "%s", errno != 0 ? strerror(errno) : "the connection closed");
    return buf;
}

/* Why a handshake failed, with what to change. */
static int
handshake_failed(SSL *ssl, const char *where, char *err)
{
    long v = SSL_get_verify_result(ssl);
    char why[160];

    if (v == X509_V_ERR_HOSTNAME_MISMATCH || v == X509_V_ERR_IP_ADDRESS_MISMATCH)
        return seterr(err,
                      "TLS with %s failed: %s (connect by a name or address the certificate "
                      "holds, or add ?insecure to the target)",
                      where, X509_verify_cert_error_string(v));
    if (v != X509_V_OK)
        return seterr(err,
                      "TLS with %s failed: certificate verify failed: %s (name the CA that "
                      "signed the server's certificate: rediss://HOST:PORT?cacert=PATH, or "
                      "add ?insecure for a self-signed one)",
                      where, X509_verify_cert_error_string(v));
    return seterr(err,
                  "TLS with %s failed: %s (is that the server's TLS port? use redis:// for a "
                  "server without TLS)",
                  where, ssl_reason(why, sizeof why));
}

/* SSL_get_error's answer as the RTLS_* codes: 0 for a clean close. */
static long
io_result(const struct rtls *s, int rc, char *why, size_t whylen)
{
    switch (SSL_get_error(s->ssl, rc)) {
    case SSL_ERROR_WANT_READ:
        return RTLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE:
        return RTLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0 && errno == 0)
            return 0;
        break;
    }
    ssl_reason(why, whylen);
    return RTLS_ERROR;
}

/* ---- the context ---- */

/* Keeps the server's session ticket in the connection's slot (1: taken). */
static int
keep_session(SSL *ssl, SSL_SESSION *sess)
{
    struct rtls *s = SSL_get_app_data(ssl);

    if (s == NULL || s->session == NULL)
        return 0;
    if (*s->session != NULL)
        SSL_SESSION_free(*s->session);
    *s->session = sess;
    return 1;
}

static int
load_cas(SSL_CTX *ssl, const struct redis_target *t, char *err)
{
    char why[160];

    if (t->cacert[0] == '\0')
        return SSL_CTX_set_default_verify_paths(ssl) == 1
                   ? 0
                   : seterr(err,
                            "cannot read the system's CA certificates: %s (name one with "
                            "?cacert=PATH)",
                            ssl_reason(why, sizeof why));
    if (SSL_CTX_load_verify_locations(ssl, t->cacert, NULL) != 1)
        return seterr(err, "cannot read the CA certificate %s: %s (cacert= names a PEM file)",
                      t->cacert, ssl_reason(why, sizeof why));
    return 0;
}

int
rtls_available(char *err)
{
    (void)err;
    return 1;
}

struct rtls_ctx *
rtls_ctx_new(const struct redis_target *t, char *err)
{
    SSL_CTX *ssl;
    struct rtls_ctx *x;
    char why[160];

    /*
     * No cleanup at exit: a pump whose hiredis end was just closed may still
     * be freeing its session while exit() runs the atexit handlers.
     */
    OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, NULL);
    if ((ssl = SSL_CTX_new(TLS_client_method())) == NULL) {
        seterr(err, "TLS cannot start: %s", ssl_reason(why, sizeof why));
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ssl, TLS1_2_VERSION);
    /* the driver's output buffer may move and grow between a write's tries */
    SSL_CTX_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ssl, SSL_OP_IGNORE_UNEXPECTED_EOF); /* a close without goodbye: EOF */
    SSL_CTX_set_session_cache_mode(ssl, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    /* a read takes what the socket has, not one record's header and body apart (rtls_drained) */
    SSL_CTX_set_read_ahead(ssl, 1);
    SSL_CTX_sess_set_new_cb(ssl, keep_session);
    SSL_CTX_set_verify(ssl, t->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
    if (!t->insecure && load_cas(ssl, t, err) < 0) {
        SSL_CTX_free(ssl);
        return NULL;
    }
    x = xcalloc(1, sizeof *x);
    x->ssl = ssl;
    x->insecure = t->insecure;
    snprintf(x->host, sizeof x->host, "%s", t->host);
    return x;
}

void
rtls_ctx_free(struct rtls_ctx *x)
{
    if (x == NULL)
        return;
    SSL_CTX_free(x->ssl);
    free(x);
}

/* ---- a session ---- */

/* The name the certificate must hold (an address is checked as one), and SNI for a name. */
static void
set_peer(SSL *ssl, const struct rtls_ctx *x, const char *host)
{
    unsigned char addr[16];
    int is_ip = inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;

    if (!is_ip)
        SSL_set_tlsext_host_name(ssl, host);
    if (x->insecure)
        return;
    if (is_ip)
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
    else
        SSL_set1_host(ssl, host);
}

/* The socket's reads, watched: one that got less than it asked for emptied the socket. */
static long
note_read(BIO *b, int oper, const char *argp, size_t len, int argi, long argl, int ret,
          size_t *processed)
{
    struct rtls *s = (struct rtls *)BIO_get_callback_arg(b);

    (void)argp;
    (void)argi;
    (void)argl;
    if (oper == (BIO_CB_READ | BIO_CB_RETURN))
        s->drained = ret <= 0 || (processed != NULL && *processed < len);
    return ret;
}

struct rtls *
rtls_new(struct rtls_ctx *x, int fd, const char *host, void **session)
{
    struct rtls *s = xcalloc(1, sizeof *s);

    s->ssl = SSL_new(x->ssl);
    if (s->ssl == NULL || SSL_set_fd(s->ssl, fd) != 1)
        fatal("TLS: out of memory");
    s->session = session;
    BIO_set_callback_ex(SSL_get_rbio(s->ssl), note_read);
    BIO_set_callback_arg(SSL_get_rbio(s->ssl), (char *)s);
    SSL_set_app_data(s->ssl, s);
    set_peer(s->ssl, x, host != NULL ? host : x->host);
    if (session != NULL && *session != NULL)
        SSL_set_session(s->ssl, *session);
    return s;
}

void
rtls_free(struct rtls *s)
{
    if (s == NULL)
        return;
    if (SSL_is_init_finished(s->ssl))
        SSL_shutdown(s->ssl); /* non-blocking socket: one try, no wait for the answer */
    ERR_clear_error();
    SSL_free(s->ssl);
    free(s);
}

void
rtls_session_free(void **session)
{
    SSL_SESSION_free(*session);
    *session = NULL;
}

int
rtls_handshake(struct rtls *s, const char *where, char *err)
{
    int rc;

    ERR_clear_error();
    errno = 0;
    rc = SSL_connect(s->ssl);
    if (rc == 1)
        return 0;
    switch (SSL_get_error(s->ssl, rc)) {
    case SSL_ERROR_WANT_READ:
        return RTLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE:
        return RTLS_WANT_WRITE;
    }
    return handshake_failed(s->ssl, where, err);
}

long
rtls_read(struct rtls *s, void *buf, size_t n, char *why, size_t whylen)
{
    size_t got;
    int rc;

    ERR_clear_error();
    errno = 0;
    rc = SSL_read_ex(s->ssl, buf, n, &got);
    return rc == 1 ? (long)got : io_result(s, rc, why, whylen);
}

long
rtls_write(struct rtls *s, const void *buf, size_t n, char *why, size_t whylen)
{
    size_t put;
    int rc;

    ERR_clear_error();
    errno = 0;
    rc = SSL_write_ex(s->ssl, buf, n, &put);
    return rc == 1 ? (long)put : io_result(s, rc, why, whylen);
}

int
rtls_drained(const struct rtls *s)
{
    return s->drained && !SSL_has_pending(s->ssl);
}

/* The protocol and cipher of a finished handshake. */
static void
rtls_describe(const struct rtls *s, struct drv_tls *out)
{
    memset(out, 0, sizeof *out);
    out->used = 1;
    snprintf(out->protocol, sizeof out->protocol, "%s", SSL_get_version(s->ssl));
    snprintf(out->cipher, sizeof out->cipher, "%s", SSL_get_cipher_name(s->ssl));
}

/* ---- the blocking path: handshake, then the pump ---- */

static void
set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* The handshake on a non-blocking socket, waiting at most timeout_ms in all. */
static int
handshake_wait(struct rtls *s, int fd, const char *where, int timeout_ms, char *err)
{
    uint64_t end = now_us() + (uint64_t)timeout_ms * 1000;
    int rc;

    while ((rc = rtls_handshake(s, where, err)) != 0) {
        struct pollfd p = {.fd = fd, .events = rc == RTLS_WANT_READ ? POLLIN : POLLOUT};
        uint64_t now = now_us();
        if (rc == RTLS_ERROR)
            return -1;
        if (now >= end || poll(&p, 1, (int)((end - now) / 1000) + 1) == 0)
            return seterr(err,
                          "%s did not finish the TLS handshake within %d ms, as a server "
                          "without TLS does (use redis:// for that port, or name the TLS "
                          "port)",
                          where, timeout_ms);
    }
    return 0;
}

/* One direction's buffer: bytes taken from one end, not yet all given to the other. */
struct lane {
    size_t len, pos;
    char buf[PUMP_BUF];
};

struct pump {
    struct rtls *tls;
    int net, app; /* the server's socket (TLS); the pump's end of hiredis's socketpair */
    short net_events, app_events; /* what the last pass waits for */
    struct lane up;               /* from hiredis, to be written to the server */
    struct lane down;             /* from the server, to be written to hiredis */
};

/*
 * The four ends below move bytes the same way: > 0 bytes moved, 0 waits
 * (the events it waits for are noted), -1 the end (closed, or an error).
 */
typedef long (*pump_io)(struct pump *p, char *buf, size_t n);

/* A want of the TLS session as the poll events it waits for. */
static short
want_events(long rc)
{
    return rc == RTLS_WANT_READ ? POLLIN : POLLOUT;
}

/* A TLS call's result as a pump_io result; the server's close is the end. */
static long
net_result(struct pump *p, long rc)
{
    if (rc == RTLS_ERROR || rc == 0)
        return -1;
    if (rc < 0)
        p->net_events |= want_events(rc);
    return rc < 0 ? 0 : rc;
}

static long
net_read(struct pump *p, char *buf, size_t n)
{
    char why[160];

    return net_result(p, rtls_read(p->tls, buf, n, why, sizeof why));
}

static long
net_write(struct pump *p, char *buf, size_t n)
{
    char why[160];

    return net_result(p, rtls_write(p->tls, buf, n, why, sizeof why));
}

/* A socket call's result as a pump_io result: EAGAIN waits for events. */
static long
app_result(struct pump *p, ssize_t n, short events)
{
    if (n < 0 && errno != EAGAIN && errno != EINTR)
        return -1;
    if (n < 0)
        p->app_events |= events;
    return n < 0 ? 0 : (long)n;
}

static long
app_recv(struct pump *p, char *buf, size_t n)
{
    ssize_t r = recv(p->app, buf, n, 0);

    return r == 0 ? -1 : app_result(p, r, POLLIN); /* hiredis closed its end */
}

static long
app_send(struct pump *p, char *buf, size_t n)
{
    ssize_t w = send(p->app, buf, n, MSG_NOSIGNAL);

    if (w == 0) { /* nothing taken (a stream socket does not do it): wait until it takes */
        p->app_events |= POLLOUT;
        return 0;
    }
    return app_result(p, w, POLLOUT);
}

/*
 * One pass of a lane: fill it from one end when empty, then give what it
 * holds to the other. 1 moved bytes, 0 waits, -1 the end.
 */
static int
pump_lane(struct pump *p, struct lane *l, pump_io from, pump_io to)
{
    long n;

    if (l->len == 0) {
        n = from(p, l->buf, sizeof l->buf);
        if (n <= 0)
            return (int)n;
        l->len = (size_t)n;
        l->pos = 0;
    }
    n = to(p, l->buf + l->pos, l->len - l->pos);
    if (n <= 0)
        return (int)n;
    l->pos += (size_t)n;
    if (l->pos == l->len)
        l->len = l->pos = 0;
    return 1;
}

/* Waits for what the last pass asked; -1 when hiredis's end is gone. */
static int
pump_wait(struct pump *p)
{
    struct pollfd f[2] = {{.fd = p->app, .events = p->app_events},
                          {.fd = p->net, .events = p->net_events}};

    if (poll(f, 2, -1) < 0 && errno != EINTR)
        return -1;
    return (f[0].revents & (POLLHUP | POLLERR)) && !(f[0].revents & POLLIN) ? -1 : 0;
}

static void *
pump_run(void *arg)
{
    struct pump *p = arg;
    int up, down;

    for (;;) {
        p->app_events = p->net_events = 0;
        up = pump_lane(p, &p->up, app_recv, net_write); /* hiredis -> server */
        /* server -> hiredis: the server's close ends it, hiredis then reads EOF */
        down = up < 0 ? -1 : pump_lane(p, &p->down, net_read, app_send);
        if (down < 0 || (up == 0 && down == 0 && pump_wait(p) < 0))
            break;
    }
    rtls_free(p->tls);
    close(p->net);
    close(p->app);
    free(p);
    return NULL;
}

/* The pump's thread, detached, with every signal blocked (the main thread takes them). */
static int
pump_start(struct pump *p, char *err)
{
    sigset_t all, old;
    pthread_attr_t a;
    pthread_t th;
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    rc = pthread_create(&th, &a, pump_run, p);
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0 ? 0 : seterr(err, "TLS: cannot start a thread: %s", strerror(rc));
}

/* hiredis's socket, with the pump started on the handshaken session s over fd. */
static int
pump_open(struct rtls *s, int fd, char *err)
{
    struct pump *p;
    int sp[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
        return seterr(err, "TLS: socketpair: %s", strerror(errno));
    set_nonblock(sp[1]);
    p = xcalloc(1, sizeof *p);
    p->tls = s;
    p->net = fd;
    p->app = sp[1];
    if (pump_start(p, err) < 0) {
        close(sp[0]);
        close(sp[1]);
        free(p);
        return -1;
    }
    return sp[0];
}

int
rtls_wrap_blocking(const struct redis_target *t, int fd, const char *where, int timeout_ms,
                   struct drv_tls *info, char *err)
{
    struct rtls_ctx *x = rtls_ctx_new(t, err);
    struct rtls *s;
    int app;

    if (x == NULL) {
        close(fd);
        return -1;
    }
    set_nonblock(fd);
    s = rtls_new(x, fd, NULL, NULL);
    rtls_ctx_free(x); /* the session holds its own reference */
    app = handshake_wait(s, fd, where, timeout_ms, err);
    if (app == 0 && info != NULL)
        rtls_describe(s, info); /* now: from pump_open on, the pump owns s */
    if (app < 0 || (app = pump_open(s, fd, err)) < 0) {
        rtls_free(s);
        close(fd);
        return -1;
    }
    return app;
}
