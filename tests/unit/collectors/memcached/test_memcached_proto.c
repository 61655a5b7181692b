/*
 * memcached-proto: request templates byte for byte, reply parsing of the
 * text and binary protocols (replies captured from memcached 1.6.18 where
 * marked), every stream split at every byte boundary, several replies in
 * one buffer, and malformed input rejected with a message, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collectors/memcached/memcached.h"

/* ---- helpers ---- */

/* The bytes of a request, both iovecs joined. */
static size_t
req_bytes(const struct mc_req *r, char *out, size_t cap)
{
    size_t n = 0;

    for (int i = 0; i < r->niov; i++) {
        assert_true(n + r->iov[i].iov_len <= cap);
        memcpy(out + n, r->iov[i].iov_base, r->iov[i].iov_len);
        n += r->iov[i].iov_len;
    }
    return n;
}

static size_t
unhex(const char *hex, char *out)
{
    size_t n = 0;

    for (; hex[0] && hex[1]; hex += 2) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (char)v;
    }
    return n;
}

/* What a stream parsed into: kinds, data and keys in order; -1 elements if it failed. */
struct parsed {
    int n;
    enum mc_kind kind[32];
    char data[32][64];
    char key[32][32];
    uint16_t status[32];
    int failed;
    size_t consumed;
};

static void
record(struct parsed *p, const struct mc_reply *r)
{
    assert_true(p->n < 32);
    p->kind[p->n] = r->kind;
    p->status[p->n] = r->status;
    snprintf(p->data[p->n], sizeof p->data[0], "%.*s", (int)r->data_len, r->data);
    snprintf(p->key[p->n], sizeof p->key[0], "%.*s", (int)r->key_len, r->key);
    p->n++;
}

/* Parses buf[0..len) element by element, as far as it is complete. */
static void
parse_all(enum mc_proto proto, const char *buf, size_t len, struct parsed *p)
{
    struct mc_reply r;
    size_t need;
    char err[BT_ERRLEN];

    memset(p, 0, sizeof *p);
    while (p->consumed < len) {
        ssize_t n = mc_parse(proto, buf + p->consumed, len - p->consumed, &r, &need, err);
        if (n < 0) {
            p->failed = 1;
            return;
        }
        if (n == 0)
            return;
        record(p, &r);
        p->consumed += (size_t)n;
    }
}

/*
 * Feeds the stream as a socket would: first `cut` bytes, then the rest,
 * keeping only the unparsed tail in a buffer between the two (like the
 * driver does). The result must not depend on the cut.
 */
static void
parse_split(enum mc_proto proto, const char *stream, size_t len, size_t cut, struct parsed *out)
{
    char buf[8192];
    size_t have = 0, fed = 0;
    struct mc_reply r;
    size_t need;
    char err[BT_ERRLEN];
    size_t parts[2] = {cut, len - cut};

    memset(out, 0, sizeof *out);
    for (int part = 0; part < 2; part++) {
        memcpy(buf + have, stream + fed, parts[part]);
        have += parts[part];
        fed += parts[part];
        size_t pos = 0;
        for (;;) {
            ssize_t n = pos < have ? mc_parse(proto, buf + pos, have - pos, &r, &need, err) : 0;
            if (n < 0) {
                out->failed = 1;
                return;
            }
            if (n == 0) {
                /* An incomplete element never claims to need less than it has. */
                assert_true(need == 0 || need > have - pos);
                break;
            }
            record(out, &r);
            pos += (size_t)n;
        }
        memmove(buf, buf + pos, have - pos);
        have -= pos;
        out->consumed += pos;
    }
}

static void
assert_same(const struct parsed *a, const struct parsed *b)
{
    assert_int_equal(a->failed, b->failed);
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->consumed, b->consumed);
    for (int i = 0; i < a->n; i++) {
        assert_int_equal(a->kind[i], b->kind[i]);
        assert_string_equal(a->data[i], b->data[i]);
        assert_string_equal(a->key[i], b->key[i]);
    }
}

static void
expect_malformed(enum mc_proto proto, const char *buf, size_t len, const char *words)
{
    struct mc_reply r;
    size_t need;
    char err[BT_ERRLEN] = "";

    assert_int_equal(mc_parse(proto, buf, len, &r, &need, err), -1);
    if (strstr(err, words) == NULL)
        fail_msg("'%s' not in '%s'", words, err);
}

/* ---- requests ---- */

static void
test_key_digits(void **state)
{
    (void)state;
    assert_int_equal(mc_key_digits(1), 8);
    assert_int_equal(mc_key_digits(100000000), 8); /* keys 0 .. 99999999 */
    assert_int_equal(mc_key_digits(100000001), 9);
    assert_int_equal(mc_key_digits(1000000000000ull), 12);
}

static void
test_text_get(void **state)
{
    (void)state;
    struct mc_req r;
    char buf[256];
    size_t n;

    mc_req_init(&r, MC_TEXT, MC_OP_GET, 1, 8, NULL, 0);
    assert_int_equal(r.niov, 1);
    mc_req_key(&r, 0, 42);
    n = req_bytes(&r, buf, sizeof buf);
    assert_int_equal(n, mc_req_len(&r));
    assert_memory_equal(buf, "get key:00000042\r\n", n);
    assert_int_equal(n, 18);
    /* Only the digits change: same length, no allocation. */
    char *head = r.head;
    mc_req_key(&r, 0, 99999999);
    assert_ptr_equal(r.head, head);
    n = req_bytes(&r, buf, sizeof buf);
    assert_memory_equal(buf, "get key:99999999\r\n", n);
    mc_req_free(&r);
}

static void
test_text_multiget(void **state)
{
    (void)state;
    struct mc_req r;
    char buf[256];
    size_t n;
    const char want[] = "get key:000000001 key:000000002 key:123456789\r\n";

    mc_req_init(&r, MC_TEXT, MC_OP_MULTIGET, 3, 9, NULL, 0);
    mc_req_key(&r, 0, 1);
    mc_req_key(&r, 1, 2);
    mc_req_key(&r, 2, 123456789);
    n = req_bytes(&r, buf, sizeof buf);
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(buf, want, n);
    mc_req_free(&r);
}

static void
test_text_set(void **state)
{
    (void)state;
    struct mc_req r;
    char buf[256];
    const char value[] = "hello\r\n";
    const char want[] = "set key:00000007 0 0 5\r\nhello\r\n";
    size_t n;

    mc_req_init(&r, MC_TEXT, MC_OP_SET, 1, 8, value, 5);
    mc_req_key(&r, 0, 7);
    assert_int_equal(r.niov, 2);
    /* The value is not copied: every connection shares it. */
    assert_ptr_equal(r.iov[1].iov_base, value);
    n = req_bytes(&r, buf, sizeof buf);
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(buf, want, n);
    mc_req_free(&r);
}

static void
test_binary_get(void **state)
{
    (void)state;
    struct mc_req r;
    char buf[256], want[256];
    size_t n, wn;

    mc_req_init(&r, MC_BINARY, MC_OP_GET, 1, 8, NULL, 0);
    mc_req_key(&r, 0, 5);
    n = req_bytes(&r, buf, sizeof buf);
    /* magic 80, GET, key length 12, no extras, body 12, then the key */
    wn = unhex("8000000c000000000000000c0000000000000000000000006b65793a3030303030303035", want);
    assert_int_equal(n, wn);
    assert_memory_equal(buf, want, n);
    mc_req_free(&r);
}

static void
test_binary_set(void **state)
{
    (void)state;
    struct mc_req r;
    char buf[256], want[256];
    size_t n, wn;
    const char value[] = "hello\r\n";

    mc_req_init(&r, MC_BINARY, MC_OP_SET, 1, 8, value, 5);
    mc_req_key(&r, 0, 5);
    n = req_bytes(&r, buf, sizeof buf);
    /* SET, key 12, extras 8 (flags 0, exptime 0), body 8 + 12 + 5, key, value without \r\n */
    wn = unhex("8001000c080000000000001900000000000000000000000000000000000000006b65793a30303030"
               "30303035"
               "68656c6c6f",
               want);
    assert_int_equal(n, wn);
    assert_memory_equal(buf, want, n);
    mc_req_free(&r);
}

static void
test_binary_multiget(void **state)
{
    (void)state;
    struct mc_req r;
    char buf[256];
    size_t n;

    mc_req_init(&r, MC_BINARY, MC_OP_MULTIGET, 2, 8, NULL, 0);
    mc_req_key(&r, 0, 1);
    mc_req_key(&r, 1, 2);
    n = req_bytes(&r, buf, sizeof buf);
    assert_int_equal(n, 2 * (24 + 12) + 24);
    /* GETKQ, GETKQ, NOOP */
    assert_int_equal((unsigned char)buf[0], 0x80);
    assert_int_equal(buf[1], MC_BIN_GETKQ);
    assert_memory_equal(buf + 24, "key:00000001", 12);
    assert_int_equal(buf[36 + 1], MC_BIN_GETKQ);
    assert_memory_equal(buf + 36 + 24, "key:00000002", 12);
    assert_int_equal((unsigned char)buf[72], 0x80);
    assert_int_equal(buf[73], MC_BIN_NOOP);
    assert_int_equal(buf[72 + 11], 0); /* empty body */
    mc_req_free(&r);
}

/* ---- text replies ---- */

/* Captured from memcached 1.6.18: a multiget with a miss in the middle, then a set, an unknown
 * word. */
static const char text_stream[] = "VALUE key:00000005 7 5\r\nhello\r\n"
                                  "VALUE key:00000005 7 5\r\nhello\r\n"
                                  "END\r\n"
                                  "STORED\r\n"
                                  "ERROR\r\n"
                                  "VALUE k 0 4 12345\r\na\r\nb\r\n"
                                  "END\r\n"
                                  "SERVER_ERROR object too large for cache\r\n"
                                  "CLIENT_ERROR bad data chunk\r\n"
                                  "NOT_STORED\r\nEXISTS\r\nNOT_FOUND\r\n"
                                  "VERSION 1.6.18\r\n"
                                  "STAT pid 30788\r\n";

static void
test_text_stream_whole(void **state)
{
    (void)state;
    struct parsed p;
    enum mc_kind want[] = {MC_R_VALUE,        MC_R_VALUE,      MC_R_END,    MC_R_STORED,
                           MC_R_ERROR,        MC_R_VALUE,      MC_R_END,    MC_R_SERVER_ERROR,
                           MC_R_CLIENT_ERROR, MC_R_NOT_STORED, MC_R_EXISTS, MC_R_NOT_FOUND,
                           MC_R_VERSION,      MC_R_STAT};

    parse_all(MC_TEXT, text_stream, sizeof text_stream - 1, &p);
    assert_int_equal(p.failed, 0);
    assert_int_equal(p.n, sizeof want / sizeof want[0]);
    assert_int_equal(p.consumed, sizeof text_stream - 1);
    for (int i = 0; i < p.n; i++)
        assert_int_equal(p.kind[i], want[i]);
    assert_string_equal(p.key[0], "key:00000005");
    assert_string_equal(p.data[0], "hello");
    /* The data may hold "\r\n": the length decides, not the line end. */
    assert_string_equal(p.data[5], "a\r\nb");
    assert_string_equal(p.data[7], "object too large for cache");
    assert_string_equal(p.data[8], "bad data chunk");
    assert_string_equal(p.data[12], "1.6.18");
    assert_string_equal(p.key[13], "pid");
    assert_string_equal(p.data[13], "30788");
}

static void
test_text_value_flags_and_need(void **state)
{
    (void)state;
    const char buf[] = "VALUE key:00000005 7 5\r\nhel";
    struct mc_reply r;
    size_t need;
    char err[BT_ERRLEN];

    assert_int_equal(mc_text_parse(buf, sizeof buf - 1, &r, &need, err), 0);
    /* the line, 5 bytes of data and \r\n */
    assert_int_equal(need, 24 + 5 + 2);
    assert_int_equal(mc_text_parse("VALUE k 4294967295 1\r\nx\r\n", 25, &r, &need, err), 25);
    assert_int_equal(r.flags, 4294967295u);
    /* an incomplete line: no idea yet how long the element is */
    assert_int_equal(mc_text_parse("VALU", 4, &r, &need, err), 0);
    assert_int_equal(need, 0);
}

static void
test_text_split_everywhere(void **state)
{
    (void)state;
    struct parsed whole, split;
    size_t len = sizeof text_stream - 1;

    parse_all(MC_TEXT, text_stream, len, &whole);
    for (size_t cut = 0; cut <= len; cut++) {
        parse_split(MC_TEXT, text_stream, len, cut, &split);
        assert_same(&whole, &split);
    }
}

static void
test_text_malformed(void **state)
{
    (void)state;
    char longline[MC_MAX_LINE + 10];

    expect_malformed(MC_TEXT, "VALUE k x 5\r\n", 13, "malformed VALUE");
    expect_malformed(MC_TEXT, "VALUE k 0 -1\r\n", 14, "malformed VALUE length");
    expect_malformed(MC_TEXT, "VALUE k 0 99999999999\r\n", 23, "malformed VALUE length");
    expect_malformed(MC_TEXT, "VALUE k 0 5 1 2\r\nhello\r\n", 24, "malformed VALUE");
    expect_malformed(MC_TEXT, "VALUE k 0 5\r\nhelloXY", 20, "not followed");
    expect_malformed(MC_TEXT, "VALUE k 4294967296 1\r\nx\r\n", 25, "malformed VALUE");
    expect_malformed(MC_TEXT, "-ERR unknown command 'version'\r\n", 32, "-ERR unknown");
    expect_malformed(MC_TEXT, "HTTP/1.1 400 Bad Request\r\n", 26, "not a memcached reply");
    expect_malformed(MC_TEXT, "END\n", 4, "\\r\\n");
    expect_malformed(MC_TEXT, "\r\n", 2, "not a memcached reply");
    expect_malformed(MC_TEXT, "STAT pid\r\n", 10, "STAT");
    expect_malformed(MC_TEXT, "ENDX\r\n", 6, "not a memcached reply");
    memset(longline, 'a', sizeof longline);
    expect_malformed(MC_TEXT, longline, sizeof longline, "too long");
}

/* ---- binary replies ---- */

/* Captured from memcached 1.6.18 (opaque 0, CAS as the server sent it). */
static const char *const bin_captured[] = {
    /* SET ok */
    "81010000000000000000000000000000000000000001ce8a",
    /* GET hit, flags 7, "hello" */
    "81000000040000000000000900000000000000000001ce8a0000000768656c6c6f",
    /* GET miss: status 1, "Not found" */
    "8100000000000001000000090000000000000000000000004e6f7420666f756e64",
    /* GETKQ hit with its key */
    "810d000c040000000000001500000000000000000001ce8a000000076b65793a303030303030303568656c6c6f",
    /* NOOP */
    "810a00000000000000000000000000000000000000000000",
    /* SET of 2 MB: status 3, "Too large." */
    "81010000000000030000000a000000000000000000000000546f6f206c617267652e",
    /* VERSION */
    "810b00000000000000000006000000000000000000000000312e362e3138",
    /* unknown opcode 0x55: status 0x81 */
    "81550000000000810000000f000000000000000000000000556e6b6e6f776e20636f6d6d616e64",
    NULL,
};

static size_t
bin_stream(char *out)
{
    size_t n = 0;

    for (int i = 0; bin_captured[i] != NULL; i++)
        n += unhex(bin_captured[i], out + n);
    return n;
}

static void
test_binary_stream_whole(void **state)
{
    (void)state;
    char buf[1024];
    size_t len = bin_stream(buf);
    struct parsed p;
    enum mc_kind want[] = {MC_R_STORED, MC_R_VALUE,        MC_R_NOT_FOUND, MC_R_VALUE,
                           MC_R_END,    MC_R_SERVER_ERROR, MC_R_VERSION,   MC_R_ERROR};

    parse_all(MC_BINARY, buf, len, &p);
    assert_int_equal(p.failed, 0);
    assert_int_equal(p.consumed, len);
    assert_int_equal(p.n, 8);
    for (int i = 0; i < p.n; i++)
        assert_int_equal(p.kind[i], want[i]);
    assert_string_equal(p.data[1], "hello");
    assert_string_equal(p.data[2], "Not found");
    assert_int_equal(p.status[2], 1);
    assert_string_equal(p.key[3], "key:00000005");
    assert_string_equal(p.data[3], "hello");
    assert_string_equal(p.data[5], "Too large.");
    assert_string_equal(p.data[6], "1.6.18");
    assert_int_equal(p.status[7], 0x81);
}

static void
test_binary_flags_and_need(void **state)
{
    (void)state;
    char buf[128];
    size_t len = unhex(bin_captured[1], buf), need;
    struct mc_reply r;
    char err[BT_ERRLEN];

    assert_int_equal(mc_bin_parse(buf, len, &r, &need, err), (ssize_t)len);
    assert_int_equal(r.flags, 7);
    assert_int_equal(mc_bin_parse(buf, 10, &r, &need, err), 0);
    assert_int_equal(need, 24);
    assert_int_equal(mc_bin_parse(buf, 30, &r, &need, err), 0);
    assert_int_equal(need, 24 + 9);
}

static void
test_binary_split_everywhere(void **state)
{
    (void)state;
    char buf[1024];
    size_t len = bin_stream(buf);
    struct parsed whole, split;

    parse_all(MC_BINARY, buf, len, &whole);
    for (size_t cut = 0; cut <= len; cut++) {
        parse_split(MC_BINARY, buf, len, cut, &split);
        assert_same(&whole, &split);
    }
}

static void
test_binary_malformed(void **state)
{
    (void)state;
    char buf[128];
    size_t len = unhex(bin_captured[1], buf);

    /* a request's magic, as an echoing server would send */
    buf[0] = (char)0x80;
    expect_malformed(MC_BINARY, buf, len, "not a binary memcached reply");
    buf[0] = (char)0x81;
    buf[5] = 1; /* data type */
    expect_malformed(MC_BINARY, buf, len, "malformed binary reply header");
    buf[5] = 0;
    buf[4] = 20; /* extras longer than the body */
    expect_malformed(MC_BINARY, buf, len, "malformed binary reply header");
    buf[4] = 4;
    buf[8] = 0x7f; /* a 2 GB body */
    expect_malformed(MC_BINARY, buf, len, "malformed binary reply header");
    /* a text server answering a binary request; detected from the first byte */
    expect_malformed(MC_BINARY, "ERROR\r\n", 7, "not a binary memcached reply");
    expect_malformed(MC_BINARY, "-", 1, "not a binary memcached reply");
}

/* ---- following a transaction ---- */

static enum mc_feed
feed_text(struct mc_txn *t, const char *s)
{
    struct mc_reply r;
    size_t need;
    char err[BT_ERRLEN];
    enum mc_feed f = MC_FEED_MORE;
    size_t len = strlen(s), pos = 0;

    while (pos < len && f == MC_FEED_MORE) {
        ssize_t n = mc_text_parse(s + pos, len - pos, &r, &need, err);
        assert_true(n > 0);
        pos += (size_t)n;
        f = mc_txn_feed(t, &r);
    }
    assert_int_equal(pos, len);
    return f;
}

static void
test_txn_text_get(void **state)
{
    (void)state;
    struct mc_txn t;

    mc_txn_begin(&t, MC_TEXT, MC_OP_MULTIGET, 3);
    assert_int_equal(feed_text(&t, "VALUE a 0 1\r\nx\r\nVALUE c 0 1\r\ny\r\nEND\r\n"),
                     MC_FEED_DONE);
    assert_int_equal(t.values, 2);
    assert_int_equal(t.misses, 1);
    assert_int_equal(t.failed, 0);

    mc_txn_begin(&t, MC_TEXT, MC_OP_GET, 1);
    assert_int_equal(feed_text(&t, "END\r\n"), MC_FEED_DONE);
    assert_int_equal(t.values, 0);
    assert_int_equal(t.misses, 1);

    /* more values than keys asked for: the stream is out of step */
    mc_txn_begin(&t, MC_TEXT, MC_OP_GET, 1);
    assert_int_equal(feed_text(&t, "VALUE a 0 1\r\nx\r\nVALUE b 0 1\r\ny\r\n"), MC_FEED_DESYNC);
    assert_non_null(strstr(t.msg, "out of step"));

    mc_txn_begin(&t, MC_TEXT, MC_OP_GET, 1);
    assert_int_equal(feed_text(&t, "STORED\r\n"), MC_FEED_DESYNC);
}

static void
test_txn_text_set(void **state)
{
    (void)state;
    struct mc_txn t;

    mc_txn_begin(&t, MC_TEXT, MC_OP_SET, 1);
    assert_int_equal(feed_text(&t, "STORED\r\n"), MC_FEED_DONE);
    assert_int_equal(t.failed, 0);

    /* refused but the connection is fine: done, failed, with the server's words */
    mc_txn_begin(&t, MC_TEXT, MC_OP_SET, 1);
    assert_int_equal(feed_text(&t, "SERVER_ERROR out of memory storing object\r\n"), MC_FEED_DONE);
    assert_int_equal(t.failed, 1);
    assert_string_equal(t.msg, "SERVER_ERROR out of memory storing object");

    mc_txn_begin(&t, MC_TEXT, MC_OP_SET, 1);
    assert_int_equal(feed_text(&t, "NOT_STORED\r\n"), MC_FEED_DONE);
    assert_int_equal(t.failed, 1);

    mc_txn_begin(&t, MC_TEXT, MC_OP_SET, 1);
    assert_int_equal(feed_text(&t, "END\r\n"), MC_FEED_DESYNC);
}

static enum mc_feed
feed_hex(struct mc_txn *t, const char *hex)
{
    char buf[256];
    size_t len = unhex(hex, buf), need;
    struct mc_reply r;
    char err[BT_ERRLEN];

    assert_int_equal(mc_bin_parse(buf, len, &r, &need, err), (ssize_t)len);
    return mc_txn_feed(t, &r);
}

static void
test_txn_binary(void **state)
{
    (void)state;
    struct mc_txn t;

    mc_txn_begin(&t, MC_BINARY, MC_OP_GET, 1);
    assert_int_equal(feed_hex(&t, bin_captured[1]), MC_FEED_DONE);
    assert_int_equal(t.values, 1);

    mc_txn_begin(&t, MC_BINARY, MC_OP_GET, 1);
    assert_int_equal(feed_hex(&t, bin_captured[2]), MC_FEED_DONE);
    assert_int_equal(t.misses, 1);
    assert_int_equal(t.failed, 0);

    mc_txn_begin(&t, MC_BINARY, MC_OP_SET, 1);
    assert_int_equal(feed_hex(&t, bin_captured[0]), MC_FEED_DONE);
    assert_int_equal(t.failed, 0);

    mc_txn_begin(&t, MC_BINARY, MC_OP_SET, 1);
    assert_int_equal(feed_hex(&t, bin_captured[5]), MC_FEED_DONE);
    assert_int_equal(t.failed, 1);
    assert_string_equal(t.msg, "SERVER_ERROR Too large.");

    /* a GET reply to a SET: out of step */
    mc_txn_begin(&t, MC_BINARY, MC_OP_SET, 1);
    assert_int_equal(feed_hex(&t, bin_captured[1]), MC_FEED_DESYNC);

    /* multiget of 3: one hit, the NOOP ends it */
    mc_txn_begin(&t, MC_BINARY, MC_OP_MULTIGET, 3);
    assert_int_equal(feed_hex(&t, bin_captured[3]), MC_FEED_MORE);
    assert_int_equal(feed_hex(&t, bin_captured[4]), MC_FEED_DONE);
    assert_int_equal(t.values, 1);
    assert_int_equal(t.misses, 2);

    /* a plain GET reply inside a multiget: out of step */
    mc_txn_begin(&t, MC_BINARY, MC_OP_MULTIGET, 3);
    assert_int_equal(feed_hex(&t, bin_captured[1]), MC_FEED_DESYNC);
}

/* A whole text multiget reply through the driver's loop, cut at every byte. */
static void
test_txn_split_everywhere(void **state)
{
    (void)state;
    const char reply[] =
        "VALUE key:00000001 0 3\r\nabc\r\nVALUE key:00000003 0 3\r\nd\r\n\r\nEND\r\n";
    size_t len = sizeof reply - 1;

    for (size_t cut = 0; cut <= len; cut++) {
        struct mc_txn t;
        char buf[256];
        size_t have = 0, pos, need;
        size_t parts[2] = {cut, len - cut}, fed = 0;
        enum mc_feed f = MC_FEED_MORE;
        struct mc_reply r;
        char err[BT_ERRLEN];

        mc_txn_begin(&t, MC_TEXT, MC_OP_MULTIGET, 3);
        for (int part = 0; part < 2 && f == MC_FEED_MORE; part++) {
            memcpy(buf + have, reply + fed, parts[part]);
            have += parts[part];
            fed += parts[part];
            pos = 0;
            ssize_t n;
            while (f == MC_FEED_MORE && pos < have &&
                   (n = mc_text_parse(buf + pos, have - pos, &r, &need, err)) > 0) {
                pos += (size_t)n;
                f = mc_txn_feed(&t, &r);
            }
            memmove(buf, buf + pos, have - pos);
            have -= pos;
        }
        assert_int_equal(f, MC_FEED_DONE);
        assert_int_equal(have, 0);
        assert_int_equal(t.values, 2);
        assert_int_equal(t.misses, 1);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_digits),
        cmocka_unit_test(test_text_get),
        cmocka_unit_test(test_text_multiget),
        cmocka_unit_test(test_text_set),
        cmocka_unit_test(test_binary_get),
        cmocka_unit_test(test_binary_set),
        cmocka_unit_test(test_binary_multiget),
        cmocka_unit_test(test_text_stream_whole),
        cmocka_unit_test(test_text_value_flags_and_need),
        cmocka_unit_test(test_text_split_everywhere),
        cmocka_unit_test(test_text_malformed),
        cmocka_unit_test(test_binary_stream_whole),
        cmocka_unit_test(test_binary_flags_and_need),
        cmocka_unit_test(test_binary_split_everywhere),
        cmocka_unit_test(test_binary_malformed),
        cmocka_unit_test(test_txn_text_get),
        cmocka_unit_test(test_txn_text_set),
        cmocka_unit_test(test_txn_binary),
        cmocka_unit_test(test_txn_split_everywhere),
    };
    return cmocka_run_group_tests_name("memcached_proto", tests, NULL, NULL);
}
