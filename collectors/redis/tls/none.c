/*
 * redis/tls/none: the build without OpenSSL (tls.h): rediss:// is refused
 * in one line, before anything connects, and nothing else is reachable.
 */
#include "collectors/redis/tls.h"

#include <unistd.h>

#include "base/util.h"

const char rtls_note[] = "no rediss:// (built without OpenSSL)";

int
rtls_available(char *err)
{
    seterr(err, "rediss:// needs TLS, and this benchtop was built without OpenSSL (install "
                "libssl-dev and build again, or use redis://)");
    return 0;
}

struct rtls_ctx *
rtls_ctx_new(const struct redis_target *t, char *err)
{
    rtls_available(err);
    return NULL;
}

void
rtls_ctx_free(struct rtls_ctx *x)
{
}

struct rtls *
rtls_new(struct rtls_ctx *x, int fd, const char *host, void **session)
{
    fatal("rtls_new without TLS: rtls_ctx_new never succeeds");
}

void
rtls_free(struct rtls *s)
{
}

void
rtls_session_free(void **session)
{
}

int
rtls_handshake(struct rtls *s, const char *where, char *err)
{
    return seterr(err, "TLS: not built in");
}

long
rtls_read(struct rtls *s, void *buf, size_t n, char *why, size_t whylen)
{
    return RTLS_ERROR;
}

int
rtls_drained(const struct rtls *s)
{
    return 1;
}

long
rtls_write(struct rtls *s, const void *buf, size_t n, char *why, size_t whylen)
{
    return RTLS_ERROR;
}

int
rtls_wrap_blocking(const struct redis_target *t, int fd, const char *where, int timeout_ms,
                   struct drv_tls *info, char *err)
{
    close(fd);
    rtls_ctx_new(t, err);
    return -1;
}
