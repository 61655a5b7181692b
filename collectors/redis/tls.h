/*
 * redis/tls: TLS for rediss:// targets. configure builds one file of two
 * (as tmux's compat/): tls/openssl.c with OpenSSL, or tls/none.c, which
 * refuses rediss:// in one line, in a build without libssl.
 *
 * hiredis 0.14 has no TLS. The load driver does its own socket I/O, so it
 * calls rtls_read/rtls_write where it would recv/send, on the worker's
 * event loop (non-blocking: a call that would block says which way). The
 * blocking users (prepare, the collector, inspect, settings) talk through
 * hiredis's blocking calls: rtls_wrap_blocking does the handshake, then
 * hands hiredis one end of a socketpair and moves bytes between its other
 * end and the TLS session on a thread of its own, so every command those
 * files send works unchanged and no second RESP client exists.
 */
#ifndef BENCHTOP_REDIS_TLS_H
#define BENCHTOP_REDIS_TLS_H

#include <stddef.h>

struct redis_target;
struct drv_tls;

/* For --version: "rediss:// with OpenSSL 3.0.x", or that rediss:// is not built. */
extern const char rtls_note[];

/* What rtls_handshake, rtls_read and rtls_write return when they did not finish. */
enum {
    RTLS_ERROR = -1,      /* failed: the reason is in the caller's buffer */
    RTLS_WANT_READ = -2,  /* call again when the socket is readable */
    RTLS_WANT_WRITE = -3, /* call again when the socket is writable */
};

/* What every connection to one target shares: the CA, whether to verify, the host. */
struct rtls_ctx;
/* One connection's TLS session, on a socket the caller owns. */
struct rtls;

/* 1 when this build has TLS; 0 with the one-line refusal of rediss:// in err. */
int rtls_available(char *err);
/* For t (rediss://): NULL and a one-line "problem (fix)" in err (a CA file it cannot read). */
struct rtls_ctx *rtls_ctx_new(const struct redis_target *t, char *err);
void rtls_ctx_free(struct rtls_ctx *x);
/*
 * A session on the connected socket fd to host (the name or address its
 * certificate must hold; NULL: the target's, as x has it: a cluster's
 * other nodes are checked by their own). *session (NULL at first) keeps
 * the server's session ticket, so a reconnect resumes instead of a full
 * handshake; rtls_session_free lets it go.
 */
struct rtls *rtls_new(struct rtls_ctx *x, int fd, const char *host, void **session);
/* Says goodbye (close_notify, once, without waiting) and frees s; fd stays open. */
void rtls_free(struct rtls *s);
void rtls_session_free(void **session);
/* The handshake's next step: 0 done, RTLS_WANT_*, or RTLS_ERROR with "problem (fix)" in err. */
int rtls_handshake(struct rtls *s, const char *where, char *err);
/* Bytes read (> 0), 0 when the server closed, RTLS_WANT_*, or RTLS_ERROR with why. */
long rtls_read(struct rtls *s, void *buf, size_t n, char *why, size_t whylen);
/*
 * After a read that returned bytes: 1 when nothing is left, neither in the
 * socket (OpenSSL's last read of it came back short) nor decrypted or
 * buffered inside OpenSSL; 0 when another read may return more.
 */
int rtls_drained(const struct rtls *s);
/* Bytes written (> 0), RTLS_WANT_*, or RTLS_ERROR with why. */
long rtls_write(struct rtls *s, const void *buf, size_t n, char *why, size_t whylen);

/*
 * Blocking, for hiredis's blocking calls: the handshake on the connected
 * socket fd (taken over: closed on failure too) within timeout_ms, then a
 * socket that speaks plain RESP for redisConnectFd (>= 0). info, when not
 * NULL, gets the protocol and cipher. -1 with "problem (fix)" in err.
 */
int rtls_wrap_blocking(const struct redis_target *t, int fd, const char *where, int timeout_ms,
                       struct drv_tls *info, char *err);

#endif
