/*
 * Tests for sendq: queued sends go out whole and in order; a send the kernel
 * fails (closed peer, cancelled) comes back failed with its tag, so the
 * worker counts it as the connection's error rather than losing it.
 * Skipped where the build has no liburing or the kernel gives no ring.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/skip.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/sendq.h"
#include "base/util.h"

static struct sendq *
ring_or_skip(const char *test)
{
    char err[BT_ERRLEN];
    struct sendq *q = sendq_new(err);

    if (q == NULL) {
        test_skip_for(test, "no io_uring here: %s", err);
    }
    return q;
}

static void
stream_pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
}

/* Fills sv[0]'s way to sv[1] until the kernel takes no more. */
static void
fill(int fd)
{
    static char junk[4096];

    while (send(fd, junk, sizeof junk, MSG_DONTWAIT) > 0)
        ;
    assert_int_equal(errno, EAGAIN);
}

static void
test_sends_go_out_whole_with_their_tags(void **state)
{
    (void)state;
    struct sendq *q = ring_or_skip(__func__);
    int a[2], b[2], failed = -1, seen = 0;
    char got[32], msg[BT_ERRLEN] = "";
    struct iovec va[2] = {{.iov_base = "get ", .iov_len = 4}, {.iov_base = "k1\r\n", .iov_len = 4}};
    struct iovec vb[1] = {{.iov_base = "PING\r\n", .iov_len = 6}};
    struct msghdr ma = {.msg_iov = va, .msg_iovlen = 2}, mb = {.msg_iov = vb, .msg_iovlen = 1};
    uint32_t tag;

    stream_pair(a);
    stream_pair(b);
    sendq_send(q, 7, a[0], &ma);
    sendq_send(q, 9, b[0], &mb);
    assert_int_equal(sendq_queued(q), 2);
    assert_int_equal(sendq_total(q), 2);
    assert_int_equal(recv(a[1], got, sizeof got, MSG_DONTWAIT), -1); /* nothing before the submit */
    assert_int_equal(sendq_submit(q, msg), 0);
    assert_int_equal(sendq_queued(q), 0);
    while (seen < 2) {
        if (!sendq_next(q, &tag, &failed, msg, sizeof msg)) {
            sendq_wait(q);
            continue;
        }
        assert_true(tag == 7 || tag == 9);
        assert_int_equal(failed, 0);
        seen++;
    }
    assert_int_equal(recv(a[1], got, sizeof got, 0), 8);
    assert_memory_equal(got, "get k1\r\n", 8);
    assert_int_equal(recv(b[1], got, sizeof got, 0), 6);
    assert_memory_equal(got, "PING\r\n", 6);
    assert_int_equal(sendq_next(q, &tag, &failed, msg, sizeof msg), 0);
    close(a[0]), close(a[1]), close(b[0]), close(b[1]);
    sendq_free(q);
}

static void
test_send_to_a_closed_peer_fails(void **state)
{
    (void)state;
    struct sendq *q = ring_or_skip(__func__);
    int sv[2], failed = 0;
    char msg[BT_ERRLEN] = "";
    struct iovec v = {.iov_base = "set k 0 0 1\r\nx\r\n", .iov_len = 16};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
    uint32_t tag = 0;

    stream_pair(sv);
    close(sv[1]);
    sendq_send(q, 3, sv[0], &m);
    assert_int_equal(sendq_submit(q, msg), 0);
    while (!sendq_next(q, &tag, &failed, msg, sizeof msg))
        sendq_wait(q);
    assert_int_equal(tag, 3);
    assert_int_equal(failed, 1);
    assert_non_null(strstr(msg, strerror(EPIPE)));
    close(sv[0]);
    sendq_free(q);
}

/*
 * A send the socket cannot take waits in the kernel (MSG_WAITALL), not
 * reported short; when the peer goes away part-way it ends failed, whether
 * the kernel reports the error or the bytes it managed.
 */
static void
test_send_that_cannot_finish_fails(void **state)
{
    (void)state;
    struct sendq *q = ring_or_skip(__func__);
    int sv[2], failed = 0;
    static char big[256 << 10];
    char msg[BT_ERRLEN] = "", sink[8192];
    struct iovec v = {.iov_base = big, .iov_len = sizeof big};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
    uint32_t tag = 0;

    stream_pair(sv);
    fill(sv[0]);
    sendq_send(q, 5, sv[0], &m);
    assert_int_equal(sendq_submit(q, msg), 0);
    assert_int_equal(sendq_next(q, &tag, &failed, msg, sizeof msg), 0); /* waits for room */
    assert_true(recv(sv[1], sink, sizeof sink, 0) > 0);                 /* some room: part goes */
    close(sv[1]);
    while (!sendq_next(q, &tag, &failed, msg, sizeof msg))
        sendq_wait(q);
    assert_int_equal(tag, 5);
    assert_int_equal(failed, 1);
    assert_true(strstr(msg, "went out short") != NULL || strstr(msg, strerror(EPIPE)) != NULL);
    close(sv[0]);
    sendq_free(q);
}

/* What the worker does before closing a connection: its unfinished send ends, cancelled. */
static void
test_cancel_ends_a_waiting_send(void **state)
{
    (void)state;
    struct sendq *q = ring_or_skip(__func__);
    int sv[2], failed = 0;
    static char big[64 << 10];
    char msg[BT_ERRLEN] = "";
    struct iovec v = {.iov_base = big, .iov_len = sizeof big};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
    uint32_t tag = 0;

    stream_pair(sv);
    fill(sv[0]);
    sendq_send(q, 11, sv[0], &m);
    assert_int_equal(sendq_submit(q, msg), 0);
    assert_int_equal(sendq_next(q, &tag, &failed, msg, sizeof msg), 0);
    sendq_cancel(q, sv[0]);
    while (!sendq_next(q, &tag, &failed, msg, sizeof msg))
        sendq_wait(q);
    assert_int_equal(tag, 11);
    assert_int_equal(failed, 1);
    assert_non_null(strstr(msg, strerror(ECANCELED)));
    assert_int_equal(sendq_next(q, &tag, &failed, msg, sizeof msg),
                     0); /* the cancel's own: skipped */
    close(sv[0]), close(sv[1]);
    sendq_free(q);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sends_go_out_whole_with_their_tags),
        cmocka_unit_test(test_send_to_a_closed_peer_fails),
        cmocka_unit_test(test_send_that_cannot_finish_fails),
        cmocka_unit_test(test_cancel_ends_a_waiting_send),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
