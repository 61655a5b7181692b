/*
 * sendq: a worker's batched sends. A driver queues a request's send here
 * (driver.h, txn_result.sendq) instead of calling send(); the worker submits
 * every send of one loop turn in one io_uring_enter before it waits again.
 * Why: HACKING.md ("How a run flows").
 *
 * Built with liburing when configure finds it; without it, or when the
 * kernel refuses a ring (io_uring_disabled, seccomp), sendq_new says why and
 * the drivers send directly, as before.
 *
 * A queued send carries a tag (the worker's index of the client) and must
 * go out in full: sendq_next reports each one done, and whether it failed
 * (an error, or fewer bytes than queued). One thread only.
 */
#ifndef BENCHTOP_SENDQ_H
#define BENCHTOP_SENDQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct sendq;

/* A ring for this thread, or NULL with a one-line reason in err. */
struct sendq *sendq_new(char *err);
void sendq_free(struct sendq *q);
/* Readable (poll, epoll) while finished sends wait for sendq_next. */
int sendq_fd(const struct sendq *q);
/*
 * Queues a send of all of m's bytes (at most 4 GiB) to fd. m, its iovecs and
 * the bytes stay untouched until sendq_next reports the tag's send done.
 */
void sendq_send(struct sendq *q, uint32_t tag, int fd, const struct msghdr *m);
/* Sends queued since the ring was made (a caller's count of its own: the difference). */
uint64_t sendq_total(const struct sendq *q);
/* Sends queued and not submitted yet. */
int sendq_queued(const struct sendq *q);
/* Submits what is queued. 0, or -1 with err. */
int sendq_submit(struct sendq *q, char *err);
/* Submits, and asks the kernel to give up fd's sends not done yet (they end failed). */
void sendq_cancel(struct sendq *q, int fd);
/* Blocks until a send finished (for a cancel). */
void sendq_wait(struct sendq *q);
/*
 * Takes one finished send: 1 with its tag, and failed = 0 when all of it
 * went, else 1 and why in msg; 0 when none is waiting.
 */
int sendq_next(struct sendq *q, uint32_t *tag, int *failed, char *msg, size_t msglen);

#endif
