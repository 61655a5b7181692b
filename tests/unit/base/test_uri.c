/* Tests for uri: where the userinfo ends, host and port, decoding, replacing a span. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/uri.h"

/* The span's text, in one of a few static buffers. */
static const char *
text(const char *t, struct uri_span s)
{
    static char buf[4][128];
    static int k;
    char *out = buf[k++ % 4];

    memcpy(out, t + s.off, s.len);
    out[s.len] = '\0';
    return out;
}

static void
test_parts(void **state)
{
    (void)state;
    const char *t = "mysql://bench:s3cret@db.example.com:3307/shop?ssl=1";
    struct uri u;

    assert_int_equal(uri_split(t, &u), 0);
    assert_string_equal(text(t, u.scheme), "mysql://");
    assert_string_equal(text(t, u.user), "bench");
    assert_string_equal(text(t, u.password), "s3cret");
    assert_string_equal(text(t, u.authority), "db.example.com:3307");
    assert_string_equal(text(t, u.path), "/shop");
    assert_string_equal(text(t, u.query), "ssl=1");
    assert_int_equal(uri_split_host(t, &u), URI_HOST_OK);
    assert_string_equal(text(t, u.host), "db.example.com");
    assert_string_equal(text(t, u.port), "3307");
    assert_true(u.has_userinfo && u.has_password && u.has_query && u.has_port);
    assert_int_equal(uri_split("not a target", &u), -1);
}

/* The last '@' before the query ends the userinfo; with none, the last one after it. */
static void
test_userinfo_end(void **state)
{
    (void)state;
    const char *a = "redis://:a@b/c@h:3/1", *b = "postgres://u:pa?ss@h/db";
    const char *c = "mysql://u@h/db?ssl-ca=/x@y", *d = "redis+unix:///tmp/a@b.sock", *e = "x://h";
    struct uri u;

    uri_split(a, &u);
    assert_string_equal(text(a, u.password), "a@b/c");
    assert_string_equal(text(a, u.authority), "h:3");
    uri_split(b, &u);
    assert_string_equal(text(b, u.password), "pa?ss");
    assert_string_equal(text(b, u.path), "/db");
    assert_false(u.has_query);
    uri_split(c, &u);
    assert_string_equal(text(c, u.user), "u");
    assert_string_equal(text(c, u.query), "ssl-ca=/x@y");
    uri_split(d, &u);
    assert_false(u.has_userinfo);
    assert_string_equal(text(d, u.path), "/tmp/a@b.sock");
    uri_split(e, &u);
    assert_false(u.has_userinfo || u.has_password || u.has_query);
}

static void
test_hosts(void **state)
{
    (void)state;
    const char *v6 = "x://[::1]:7000", *bare = "x://[fe80::1]", *open = "x://[::1",
               *after = "x://[::1]x", *colon = "x://h:";
    struct uri u;
    int port = 0;

    uri_split(v6, &u);
    assert_int_equal(uri_split_host(v6, &u), URI_HOST_OK);
    assert_string_equal(text(v6, u.host), "::1");
    assert_int_equal(uri_port(v6, u.port, &port), 0);
    assert_int_equal(port, 7000);
    uri_split(bare, &u);
    assert_int_equal(uri_split_host(bare, &u), URI_HOST_OK);
    assert_string_equal(text(bare, u.host), "fe80::1");
    assert_false(u.has_port);
    uri_split(open, &u);
    assert_int_equal(uri_split_host(open, &u), URI_HOST_NO_CLOSE_BRACKET);
    uri_split(after, &u);
    assert_int_equal(uri_split_host(after, &u), URI_HOST_AFTER_BRACKET);
    uri_split(colon, &u);
    uri_split_host(colon, &u);
    assert_true(u.has_port);
    assert_int_equal(uri_port(colon, u.port, &port), -1);
}

static void
test_ports(void **state)
{
    (void)state;
    const char *t = "0 1 65535 65536 123456 12x";
    int p = -7;

    assert_int_equal(uri_port(t, (struct uri_span){0, 1}, &p), -1);
    assert_int_equal(uri_port(t, (struct uri_span){2, 1}, &p), 0);
    assert_int_equal(p, 1);
    assert_int_equal(uri_port(t, (struct uri_span){4, 5}, &p), 0);
    assert_int_equal(p, 65535);
    assert_int_equal(uri_port(t, (struct uri_span){10, 5}, &p), -1);
    assert_int_equal(uri_port(t, (struct uri_span){16, 6}, &p), -1);
    assert_int_equal(uri_port(t, (struct uri_span){23, 3}, &p), -1);
    assert_int_equal(p, 65535);
}

static void
test_decode_and_replace(void **state)
{
    (void)state;
    const char *t = "p%40ss%2Fw %4 %zz";
    char out[16], tiny[4];
    char *r;

    assert_int_equal(uri_decode(t, (struct uri_span){0, 10}, out, sizeof out), 0);
    assert_string_equal(out, "p@ss/w");
    assert_int_equal(uri_decode(t, (struct uri_span){11, 2}, out, sizeof out), -1);
    assert_int_equal(uri_decode(t, (struct uri_span){14, 3}, out, sizeof out), -1);
    assert_int_equal(uri_decode(t, (struct uri_span){0, 10}, tiny, sizeof tiny), -1);
    r = uri_replace("mysql://u:hunter2@h/db", (struct uri_span){10, 7}, "***");
    assert_string_equal(r, "mysql://u:***@h/db");
    free(r);
}

/* Everything up to the last '@' before the host, whatever the scheme (issue 31 item 16). */
static void
test_mask(void **state)
{
    static const char *const cases[][2] = {
        {"redi://:p%40ss@h", "redi://***@h"},
        {"redi://u:p@ss@word@h:1/db", "redi://***@h:1/db"},
        {"memcached://u:p@ss@127.0.0.1:1", "memcached://***@127.0.0.1:1"},
        {"p@ss@host", "***@host"},
        {"x://h:1/db?a=b", "x://h:1/db?a=b"},
        {"x:///tmp/s@ck", "x:///tmp/s@ck"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *m = uri_mask(cases[i][0]);
        assert_string_equal(m, cases[i][1]);
        free(m);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_userinfo_end),
        cmocka_unit_test(test_hosts),
        cmocka_unit_test(test_ports),
        cmocka_unit_test(test_decode_and_replace),
        cmocka_unit_test(test_mask),
    };
    return cmocka_run_group_tests_name("uri", tests, NULL, NULL);
}
