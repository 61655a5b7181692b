/*
 * The HTTP/1.x response parser (collectors/http/response.c): framing by
 * Content-Length, chunked and the close; status classes; 1xx skipped;
 * 204/304 and HEAD without a body; keep-alive vs Connection: close and
 * HTTP/1.0; every response fed whole, then split at every byte (a cut
 * line is fed again with what follows, as the driver does).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/skip.h"

#ifdef HAVE_HTTP

#include "base/util.h"
#include "collectors/http/response.h"

/* Feeds text[0..cut) then the rest (with what the parser left), as the driver does; 1 done. */
static int
feed_split(struct hr_parser *p, const char *text, size_t len, size_t cut, size_t *used)
{
    char err[BT_ERRLEN];
    size_t pos = 0, end = cut;
    int done = 0;

    for (int round = 0; round < 2 && !done; round++, end = len) {
        ssize_t n = hr_feed(p, text + pos, end - pos, &done, err);
        if (n < 0)
            fail_msg("parse error: %s", err);
        pos += (size_t)n;
    }
    *used = pos;
    return done;
}

/* The response parses to the same result fed whole and split at every byte. */
static struct hr_parser
parse_all(const char *text, int head, size_t *used_out)
{
    struct hr_parser whole, p;
    size_t len = strlen(text), used, used_whole;

    hr_begin(&whole, head);
    assert_true(feed_split(&whole, text, len, len, &used_whole));
    for (size_t cut = 0; cut <= len; cut++) {
        hr_begin(&p, head);
        assert_true(feed_split(&p, text, len, cut, &used));
        assert_int_equal(used, used_whole);
        assert_int_equal(p.status, whole.status);
        assert_int_equal(p.keep_alive, whole.keep_alive);
        assert_int_equal(p.bytes, whole.bytes);
    }
    if (used_out != NULL)
        *used_out = used_whole;
    return whole;
}

static void
test_content_length(void **state)
{
    const char *r = "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 5\r\n\r\nhello"
                    "HTTP/1.1 200 OK\r\n";
    size_t used;
    struct hr_parser p = parse_all(r, 0, &used);

    assert_int_equal(p.status, 200);
    assert_int_equal(p.keep_alive, 1);
    /* the next response's bytes are not taken */
    assert_int_equal(used, strlen(r) - strlen("HTTP/1.1 200 OK\r\n"));
    assert_int_equal(p.bytes, used);
}

static void
test_status_classes(void **state)
{
    static const char *const lines[] = {"HTTP/1.1 301 Moved Permanently", "HTTP/1.1 404 Not Found",
                                        "HTTP/1.1 503 Service Unavailable", "HTTP/1.1 204"};
    static const int want[] = {301, 404, 503, 204};
    char buf[256];

    for (int i = 0; i < 4; i++) {
        snprintf(buf, sizeof buf, "%s\r\nContent-Length: 0\r\n\r\n", lines[i]);
        assert_int_equal(parse_all(buf, 0, NULL).status, want[i]);
    }
}

static void
test_chunked(void **state)
{
    const char *r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n"
                    "X-Trailer: 1\r\n\r\n";
    size_t used;
    struct hr_parser p = parse_all(r, 0, &used);

    assert_int_equal(p.status, 200);
    assert_int_equal(used, strlen(r));
    assert_int_equal(p.keep_alive, 1);
}

/* Content-Length 0, 204 and 304 end at the headers; so does a response to HEAD. */
static void
test_no_body(void **state)
{
    const char *zero = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    const char *nc = "HTTP/1.1 204 No Content\r\n\r\n";
    const char *nm = "HTTP/1.1 304 Not Modified\r\nContent-Length: 900\r\n\r\n";
    const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 900\r\n\r\n";
    size_t used;

    parse_all(zero, 0, &used);
    assert_int_equal(used, strlen(zero));
    parse_all(nc, 0, &used);
    assert_int_equal(used, strlen(nc));
    parse_all(nm, 0, &used);
    assert_int_equal(used, strlen(nm));
    parse_all(head, 1, &used);
    assert_int_equal(used, strlen(head));
}

static void
test_connection_close(void **state)
{
    assert_int_equal(
        parse_all("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx", 0, NULL)
            .keep_alive,
        0);
    assert_int_equal(parse_all("HTTP/1.1 200 OK\r\nconnection: Keep-Alive, CLOSE\r\n"
                               "Content-Length: 1\r\n\r\nx",
                               0, NULL)
                         .keep_alive,
                     0);
    assert_int_equal(parse_all("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", 0, NULL).keep_alive,
                     0);
    assert_int_equal(
        parse_all("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx", 0,
                  NULL)
            .keep_alive,
        1);
}

/* No length, not chunked: the body runs to the close, and the connection ends. */
static void
test_until_close(void **state)
{
    const char *r = "HTTP/1.0 200 OK\r\n\r\nsome body";
    struct hr_parser p;
    char err[BT_ERRLEN];
    int done;

    hr_begin(&p, 0);
    assert_int_equal(hr_feed(&p, r, strlen(r), &done, err), (ssize_t)strlen(r));
    assert_false(done);
    assert_true(hr_eof(&p));
    assert_int_equal(p.keep_alive, 0);
    /* cut short: the close does not end a Content-Length body */
    hr_begin(&p, 0);
    assert_false(hr_started(&p));
    r = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
    assert_int_equal(hr_feed(&p, r, strlen(r), &done, err), (ssize_t)strlen(r));
    assert_true(hr_started(&p));
    assert_false(hr_eof(&p));
}

static void
test_interim(void **state)
{
    struct hr_parser p = parse_all(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 0,
        NULL);

    assert_int_equal(p.status, 201);
}

static void
expect_error(const char *r, const char *want)
{
    struct hr_parser p;
    char err[BT_ERRLEN];
    int done;

    hr_begin(&p, 0);
    assert_int_equal(hr_feed(&p, r, strlen(r), &done, err), -1);
    if (strstr(err, want) == NULL)
        fail_msg("error '%s' lacks '%s'", err, want);
}

static void
test_refused(void **state)
{
    char line[HR_MAX_LINE + 20];

    expect_error("SSH-2.0-OpenSSH\r\n", "HTTP/1.x status line");
    expect_error("HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n", "Content-Length");
    expect_error("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
                 "Content-Length");
    expect_error("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "two");
    expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "hex");
    expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", "longer");
    expect_error("HTTP/1.1 101 Switching Protocols\r\n\r\n", "switched");
    memset(line, 'a', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    expect_error(line, "longer than");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_content_length),   cmocka_unit_test(test_status_classes),
        cmocka_unit_test(test_chunked),          cmocka_unit_test(test_no_body),
        cmocka_unit_test(test_connection_close), cmocka_unit_test(test_until_close),
        cmocka_unit_test(test_interim),          cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests_name("http_response", tests, NULL, NULL);
}

#else

int
main(void)
{
    test_skip_program("the http backend is not built (libcurl)");
    return 0;
}

#endif
