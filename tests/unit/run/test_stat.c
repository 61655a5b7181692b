/* watch --stat's lines (src/run/headless.c): the figures in their columns, "-" for unknowns. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/headless.h"

static void
test_stat_line_columns(void **state)
{
    struct coll_view v;
    char head[200], line[200];

    coll_view_reset(&v);
    v.server_tps = 1234.5;
    v.sig.sessions = 12;
    v.sig.hit_ratio = 0.987;
    v.sig.mem_used = 64.0 * (1 << 20);
    v.sig.keys = 81399;
    headless_stat_header(head, sizeof head);
    headless_stat_line("postgres", &v, line, sizeof line);
    assert_string_equal(
        head, "server           tps  conns active  lock  cpu%   hit%      keys    mem_MB  "
              "evict/s");
    assert_string_equal(line,
                        "postgres      1234.5     12      -     -     -   98.7     81399      "
                        "64.0        -");
    /* every figure ends under its heading */
    assert_int_equal(strlen(head), strlen(line));
    v.server_tps = 1e12; /* an absurd figure widens its column, never truncates it */
    headless_stat_line("a-very-long-name", &v, line, sizeof line);
    assert_non_null(strstr(line, "1000000000000.0"));
    assert_int_equal(strncmp(line, "a-very-lon ", 11), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_line_columns),
    };
    return cmocka_run_group_tests_name("stat", tests, NULL, NULL);
}
