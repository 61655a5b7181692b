/*
 * nginx stub_status and php-fpm status pages, as the servers print them
 * (captured from nginx 1.22 and php-fpm 8.2 on Debian 12): parsed, told
 * apart, turned into rates and the verdict's app_* signals; hostile pages
 * refused with a message.
 */
#include "config.h"

#include <math.h>
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
#include "collectors/http/webstatus.h"

static const char nginx1[] = "Active connections: 17 \n"
                             "server accepts handled requests\n"
                             " 120 120 5000 \n"
                             "Reading: 0 Writing: 16 Waiting: 1 \n";
static const char nginx2[] = "Active connections: 17 \r\n"
                             "server accepts handled requests\r\n"
                             " 130 128 7500 \r\n"
                             "Reading: 1 Writing: 15 Waiting: 1 \r\n";

static const char fpm1[] = "pool:                 www\n"
                           "process manager:      dynamic\n"
                           "start time:           01/Dec/2026:01:19:16 +0000\n"
                           "start since:          14\n"
                           "accepted conn:        1000\n"
                           "listen queue:         0\n"
                           "max listen queue:     3\n"
                           "listen queue len:     511\n"
                           "idle processes:       1\n"
                           "active processes:     1\n"
                           "total processes:      2\n"
                           "max active processes: 2\n"
                           "max children reached: 0\n"
                           "slow requests:        0\n";
static const char fpm2[] = "pool:                 www\n"
                           "process manager:      dynamic\n"
                           "accepted conn:        1400\n"
                           "listen queue:         37\n"
                           "max listen queue:     40\n"
                           "listen queue len:     511\n"
                           "idle processes:       0\n"
                           "active processes:     5\n"
                           "total processes:      5\n"
                           "max active processes: 5\n"
                           "max children reached: 4\n"
                           "slow requests:        0\n";

static struct ws_sample
parse_ok(const char *page)
{
    struct ws_sample s;
    char err[BT_ERRLEN] = "";

    memset(&s, 0, sizeof s);
    assert_int_equal(ws_parse(page, strlen(page), &s, err), 0);
    assert_string_equal(err, "");
    return s;
}

static double
row_num(const struct coll_view *v, const char *section, const char *label)
{
    const struct coll_row *r = coll_row_find(v, section, label);

    assert_non_null(r);
    return r->num;
}

static void
test_nginx(void **state)
{
    struct ws_sample a = parse_ok(nginx1), b = parse_ok(nginx2);
    struct coll_view v;

    assert_int_equal(a.kind, WS_NGINX);
    assert_int_equal(a.ng.active, 17);
    assert_int_equal(a.ng.writing, 16);
    assert_int_equal(a.ng.requests, 5000);
    assert_int_equal(b.ng.reading, 1);
    ws_derive(NULL, &a, 0, &v);
    assert_true(isnan(row_num(&v, "nginx", "requests/s")));
    ws_derive(&a, &b, 2.0, &v);
    assert_true(row_num(&v, "nginx", "requests/s") == 1250);
    assert_true(row_num(&v, "nginx", "accepts/s") == 5);
    assert_true(row_num(&v, "nginx", "dropped") == 2); /* 10 accepted, 8 handled */
    assert_true(v.server_tps == 1250);
    assert_true(isnan(v.sig.app_workers)); /* nginx says nothing of a worker pool */
    /* a restart (counters went down) gives no rate, not a huge one */
    ws_derive(&b, &a, 1.0, &v);
    assert_true(isnan(row_num(&v, "nginx", "requests/s")));
}

/*
 * An nginx on this host: its workers' threads read at each sample make a
 * threaded server's figures (one worker at 96% of a core, trial 5, C12).
 */
static void
test_nginx_workers(void **state)
{
    struct ws_sample a = parse_ok(nginx1), b = parse_ok(nginx2);
    struct coll_view v;

    a.workers = b.workers = 2;
    a.ntasks = b.ntasks = 2;
    a.tasks[0] = (struct cpu_task){.tid = 101, .secs = 10.0, .wait_s = 1.0};
    a.tasks[1] = (struct cpu_task){.tid = 102, .secs = 20.0, .wait_s = 2.0};
    b.tasks[0] = (struct cpu_task){.tid = 101, .secs = 11.92, .wait_s = 1.04};
    b.tasks[1] = (struct cpu_task){.tid = 102, .secs = 20.5, .wait_s = 2.0};
    ws_derive(&a, &b, 2.0, &v);
    assert_float_equal(v.sig.server_threads, 2, 1e-9);
    assert_float_equal(v.sig.thread_max_pct, 96, 1e-6);
    assert_float_equal(v.sig.thread_wait_pct, 2, 1e-6);
    assert_float_equal(v.sig.server_cpu_pct, 121, 1e-6);
    assert_float_equal(v.sig.server_cpu_limit, 200, 1e-9);
    assert_string_equal(v.sig.threads_setting, "worker_processes");
    assert_false(v.sig.threads_io_only);
    /* a reload between the samples (other workers): no figures rather than wrong ones */
    b.workers = 3;
    ws_derive(&a, &b, 2.0, &v);
    assert_true(isnan(v.sig.thread_max_pct));
    assert_true(isnan(v.sig.server_cpu_pct));
}

static void
test_fpm(void **state)
{
    struct ws_sample a = parse_ok(fpm1), b = parse_ok(fpm2);
    struct coll_view v;

    assert_int_equal(a.kind, WS_FPM);
    assert_string_equal(a.fpm.pool, "www");
    assert_string_equal(a.fpm.pm, "dynamic");
    assert_int_equal(b.fpm.queue, 37);
    assert_int_equal(b.fpm.max_children, 4);
    ws_derive(NULL, &a, 0, &v);
    assert_true(isnan(v.sig.app_workers)); /* never full yet: the pool may still grow */
    assert_true(v.sig.app_busy == 1);
    ws_derive(&a, &b, 2.0, &v);
    assert_true(row_num(&v, "php-fpm", "requests/s") == 200);
    assert_true(row_num(&v, "php-fpm", "listen queue") == 37);
    assert_true(row_num(&v, "php-fpm", "max children") == 4);
    assert_true(v.sig.app_queue == 37);
    assert_true(v.sig.app_busy == 5);
    assert_true(v.sig.app_workers == 5);
    assert_string_equal(v.sig.app_name, "php-fpm");
    assert_string_equal(v.sig.app_limit, "pm.max_children");
    /* a static pool is at its limit from the start */
    snprintf(a.fpm.pm, sizeof a.fpm.pm, "static");
    ws_derive(NULL, &a, 0, &v);
    assert_true(v.sig.app_workers == 2);
}

static void
refused(const char *page, const char *why)
{
    struct ws_sample s;
    char err[BT_ERRLEN] = "";

    memset(&s, 0, sizeof s);
    assert_int_equal(ws_parse(page, strlen(page), &s, err), -1);
    assert_non_null(strstr(err, why));
}

static void
test_hostile(void **state)
{
    refused("<html>It works!</html>", "neither nginx's stub_status nor php-fpm's");
    refused("", "neither");
    refused("Active connections: -1\n", "bad Active connections");
    refused("Active connections: 1\nserver accepts handled requests\n 1 2\n", "accepts");
    refused("Active connections: 99999999999999999999999\n", "bad Active");
    refused("Active connections: 1\nserver accepts handled requests\n 1 1 1\n"
            "Reading: x Writing: 1 Waiting: 1\n",
            "Reading/Writing/Waiting");
    refused("Active connections: 1\n", "missing");
    refused("process manager: static\nlisten queue: 1e3\n", "'listen queue' is not a number");
    refused("process manager: static\nlisten queue: 3\n", "missing");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nginx),
        cmocka_unit_test(test_nginx_workers),
        cmocka_unit_test(test_fpm),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int
main(void)
{
    test_skip_program("the http backend is not built (libcurl)");
    return 0;
}

#endif
