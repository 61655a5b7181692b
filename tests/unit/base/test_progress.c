/* progress: the line a long job prints (issue 27: init said neither its rate nor the time left). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/progress.h"

static void
test_rate_and_time_left(void **state)
{
    struct progress p;
    char line[256];

    (void)state;
    progress_start(&p, "generating data (COPY)", 5000000, 1);
    /* 1,000,000 rows in 2 s: 500,000/s, 4,000,000 to go: 8 s */
    progress_line(line, sizeof line, &p, 1000000, p.start_us + 2000000);
    assert_string_equal(line, "generating data (COPY)... 1000000 of 5000000 (20%), 500000/s, "
                              "about 8 s left");
    /* the end: the step's time is told by the summary, not a rate of rows only sent */
    progress_line(line, sizeof line, &p, 5000000, p.start_us + 9000000);
    assert_string_equal(line, "generating data (COPY)... 5000000 of 5000000 (100%)");
    /* nothing done yet: no rate to tell */
    progress_line(line, sizeof line, &p, 0, p.start_us + 1000000);
    assert_string_equal(line, "generating data (COPY)... 0 of 5000000 (0%)");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_and_time_left),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
