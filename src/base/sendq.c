/*
 * sendq: batched sends over io_uring (sendq.h). Each send is an
 * IORING_OP_SENDMSG with MSG_WAITALL, so the kernel finishes a send that
 * the socket could not take at once (it waits for room) instead of
 * reporting it short; a short result is then a failure, like an error.
 * The CQE's user_data holds the tag and the length asked for.
 */
#include "sendq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util.h"

#ifdef HAVE_LIBURING
#include <liburing.h>

#define SENDQ_ENTRIES 256 /* a fuller queue is submitted on the spot */
/*
 * Completions wait in the ring until the loop turn ends; one turn can queue
 * a send for each client times the pipeline depth (10,000 clients at depth
 * 4 in an open loop's first turn), and a full ring with completions held
 * back in the kernel makes a submit fail with EBUSY until some are taken.
 */
#define SENDQ_CQ_ENTRIES 65536

struct sendq {
    struct io_uring ring;
    int queued;     /* SQEs not submitted yet */
    uint64_t total; /* sends ever queued */
};

struct sendq *
sendq_new(char *err)
{
    struct sendq *q = xcalloc(1, sizeof(*q));
    struct io_uring_params p = {.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP |
                                         IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER,
                                .cq_entries = SENDQ_CQ_ENTRIES};
    int rv = io_uring_queue_init_params(SENDQ_ENTRIES, &q->ring, &p);

    if (rv == -EINVAL) { /* a kernel older than 6.0 knows fewer flags */
        memset(&p, 0, sizeof p);
        p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
        p.cq_entries = SENDQ_CQ_ENTRIES;
        rv = io_uring_queue_init_params(SENDQ_ENTRIES, &q->ring, &p);
    }
    if (rv < 0) {
        free(q);
        seterr(err, "io_uring refused: %s", strerror(-rv));
        return NULL;
    }
    return q;
}

void
sendq_free(struct sendq *q)
{
    if (q == NULL)
        return;
    io_uring_queue_exit(&q->ring);
    free(q);
}

int
sendq_fd(const struct sendq *q)
{
    return q->ring.ring_fd;
}

int
sendq_queued(const struct sendq *q)
{
    return q->queued;
}

uint64_t
sendq_total(const struct sendq *q)
{
    return q->total;
}

int
sendq_submit(struct sendq *q, char *err)
{
    while (q->queued > 0) {
        int rv = io_uring_submit(&q->ring);
        if (rv == -EINTR || rv == -EAGAIN || rv == -EBUSY)
            continue; /* EBUSY: completions overflowed the ring; the kernel flushes them first */
        if (rv < 0)
            return seterr(err, "io_uring_submit: %s", strerror(-rv));
        q->queued -= rv;
    }
    return 0;
}

static struct io_uring_sqe *
get_sqe(struct sendq *q)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
    char err[BT_ERRLEN];

    if (sqe != NULL)
        return sqe;
    if (sendq_submit(q, err) < 0)
        fatal("%s", err);
    return io_uring_get_sqe(&q->ring);
}

void
sendq_send(struct sendq *q, uint32_t tag, int fd, const struct msghdr *m)
{
    struct io_uring_sqe *sqe = get_sqe(q);
    uint64_t len = 0;

    for (size_t i = 0; i < m->msg_iovlen; i++)
        len += m->msg_iov[i].iov_len;
    io_uring_prep_sendmsg(sqe, fd, m, MSG_NOSIGNAL | MSG_WAITALL);
    io_uring_sqe_set_data64(sqe, len << 32 | tag);
    q->queued++;
    q->total++;
}

void
sendq_cancel(struct sendq *q, int fd)
{
    struct io_uring_sqe *sqe = get_sqe(q);
    char err[BT_ERRLEN];

    io_uring_prep_cancel_fd(sqe, fd, IORING_ASYNC_CANCEL_ALL);
    io_uring_sqe_set_data64(sqe, UINT64_MAX); /* not a send: sendq_next skips it */
    q->queued++;
    if (sendq_submit(q, err) < 0)
        fatal("%s", err);
}

void
sendq_wait(struct sendq *q)
{
    struct io_uring_cqe *cqe;

    io_uring_wait_cqe(&q->ring, &cqe);
}

int
sendq_next(struct sendq *q, uint32_t *tag, int *failed, char *msg, size_t msglen)
{
    struct io_uring_cqe *cqe;

    while (io_uring_peek_cqe(&q->ring, &cqe) == 0) {
        uint64_t data = io_uring_cqe_get_data64(cqe);
        int res = cqe->res;
        io_uring_cqe_seen(&q->ring, cqe);
        if (data == UINT64_MAX)
            continue; /* a cancel's own completion */
        *tag = (uint32_t)data;
        *failed = res < 0 || (uint64_t)res != data >> 32;
        if (res < 0)
            snprintf(msg, msglen, "cannot send the request: %s", strerror(-res));
        else if (*failed)
            snprintf(msg, msglen, "the request went out short (%d of %llu bytes)", res,
                     (unsigned long long)(data >> 32));
        return 1;
    }
    return 0;
}

#else /* no liburing: the drivers send directly */

struct sendq *
sendq_new(char *err)
{
    seterr(err, "built without liburing");
    return NULL;
}

void
sendq_free(struct sendq *q)
{
    (void)q;
}

int
sendq_fd(const struct sendq *q)
{
    (void)q;
    return -1;
}

void
sendq_send(struct sendq *q, uint32_t tag, int fd, const struct msghdr *m)
{
    (void)q, (void)tag, (void)fd, (void)m;
    fatal("sendq_send without liburing");
}

int
sendq_queued(const struct sendq *q)
{
    (void)q;
    return 0;
}

uint64_t
sendq_total(const struct sendq *q)
{
    (void)q;
    return 0;
}

int
sendq_submit(struct sendq *q, char *err)
{
    (void)q, (void)err;
    return 0;
}

void
sendq_cancel(struct sendq *q, int fd)
{
    (void)q, (void)fd;
}

void
sendq_wait(struct sendq *q)
{
    (void)q;
}

int
sendq_next(struct sendq *q, uint32_t *tag, int *failed, char *msg, size_t msglen)
{
    (void)q, (void)tag, (void)failed, (void)msg, (void)msglen;
    return 0;
}
#endif
