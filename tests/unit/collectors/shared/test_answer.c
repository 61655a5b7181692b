/* answer: naming the server that answers on a port from its first bytes (issue 27). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "collectors/shared/answer.h"

static void
test_kinds(void **state)
{
    /* MariaDB's handshake: length 3 bytes, sequence 0, protocol 10, version */
    static const unsigned char mysql[] = {0x5b, 0, 0, 0, 10, '1', '0', '.', '1', '1'};
    static const unsigned char redis[] = "-ERR unknown command\r\n+PONG\r\n";
    static const unsigned char http[] = "HTTP/1.1 400 Bad Request\r\n";
    static const unsigned char mc[] = "ERROR\r\n";
    static const unsigned char pg[] = {'N'}; /* PostgreSQL's answer to an SSL request */

    (void)state;
    assert_string_equal(answer_kind(mysql, sizeof mysql), "a MySQL/MariaDB server");
    assert_string_equal(answer_kind(redis, sizeof redis - 1), "Redis");
    assert_string_equal(answer_kind(http, sizeof http - 1), "an HTTP server");
    assert_string_equal(answer_kind(mc, sizeof mc - 1), "memcached");
    assert_null(answer_kind(pg, sizeof pg));
    assert_null(answer_kind(NULL, 0));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
