/*
 * watch's judgement of a server under someone else's load (src/analysis/watch.c),
 * over the figures of a DBA's trial (issue 44, item 4; issue 47): a cache
 * busy with a low hit ratio, an event loop busy at 43% of its core, a
 * buffer pool too small whose sessions wait on reads while the CPU idles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/watch.h"

static struct coll_view
blank(void)
{
    struct coll_view v;

    coll_view_reset(&v);
    return v;
}

static void
judge(const struct coll_view *v, struct verdict *out)
{
    watch_judge(&(struct watch_input){.sig = &v->sig, .x = v->server_tps, .cores = 2}, out);
    fprintf(stderr, "  %s: %s\n", watch_label(out), out->evidence);
}

/* memcached -m 64 -t 4 at 48,000 gets/s, 3.5% hits, evicting: its memory, never "idle". */
static void
test_cache_misses(void **state)
{
    struct coll_view v = blank();
    struct verdict out;

    v.server_tps = 48000;
    v.sig.server_cpu_pct = 40;
    v.sig.server_cpu_limit = 200; /* 4 threads on 2 cores */
    v.sig.sessions = 12;
    v.sig.hit_ratio = 0.035;
    v.sig.evictions_s = 1200;
    v.sig.mem_used = 63.5 * (1 << 20);
    v.sig.mem_limit = 64.0 * (1 << 20);
    snprintf(v.sig.mem_limit_setting, sizeof v.sig.mem_limit_setting, "-m");
    judge(&v, &out);
    assert_int_equal(out.kind, VK_MEMORY);
    assert_string_equal(watch_label(&out), "memory-bound");
    assert_int_equal(out.model.limit, MR_MEMORY);
    assert_true(out.model.nfindings >= 1);
    assert_int_equal(out.model.findings[0].res, MR_MEMORY);
    assert_int_equal(out.advice.a[0].kind, ADV_SETTING);
    assert_string_equal(out.advice.a[0].name, "-m");
    assert_non_null(strstr(out.evidence, "48.0k commands/s"));
    assert_non_null(strstr(out.evidence, "hit ratio 3.5%"));
    assert_non_null(strstr(out.evidence, "1200 evictions/s"));
    assert_non_null(strstr(out.evidence, "raise -m"));
    /* the same cache at 99% hits is full as a cache should be: busy, no limit */
    v.sig.hit_ratio = 0.99;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_NONE);
    assert_string_equal(watch_label(&out), "busy, no limit reached");
}

/* Redis at 38,000 commands/s and 43% of its one core: busy, its CPU the nearest limit. */
static void
test_event_loop_busy(void **state)
{
    struct coll_view v = blank();
    struct verdict out;

    v.server_tps = 38000;
    v.sig.server_cpu_pct = 43;
    v.sig.server_cpu_limit = 100;
    v.sig.sessions = 12;
    v.sig.hit_ratio = 0.8;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_NONE);
    assert_int_equal(out.model.limit, MR_SERVER_CPU);
    assert_float_equal(out.model.limit_util, 0.43, 1e-9);
    assert_float_equal(out.model.r[MR_SERVER_CPU].bound, 38000 / 0.43, 1);
    assert_non_null(strstr(out.evidence, "38.0k commands/s; server CPU 43% of 1 core"));
    assert_non_null(strstr(out.evidence, "bound about 88.4k commands/s"));
    assert_null(strstr(out.evidence, "idle"));
    assert_int_equal(out.model.nfindings, 0); /* a CPU with room: nothing to relieve */
    /* at 95% of its core it is the limit, with twice the core as its relief */
    v.sig.server_cpu_pct = 95;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_SERVER_CPU);
    assert_int_equal(out.model.findings[0].res, MR_SERVER_CPU);
    /* a quiet one is idle */
    v.server_tps = 0.2;
    v.sig.server_cpu_pct = 0.3;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_UNDERLOADED);
    assert_string_equal(watch_label(&out), "idle");
}

/*
 * MariaDB with a 16 MB buffer pool: 16 sessions shown running, mariadbd at
 * 45% of one core of 2, 900 pages read from disk a second at 70% hits: the
 * sessions wait on reads, not on a CPU that has room ("server CPU 100% of
 * its capacity" before).
 */
static void
test_io_stall(void **state)
{
    struct coll_view v = blank();
    struct verdict out;

    v.server_tps = 12;
    v.sig.sessions = 17;
    v.sig.active = 16;
    v.sig.on_cpu = 16;
    v.sig.lock_wait = 0;
    v.sig.server_cpu_pct = 45;
    v.sig.server_cpu_limit = 200;
    v.sig.disk_reads_s = 900;
    v.sig.hit_ratio = 0.7;
    v.sig.max_sessions = 151;
    snprintf(v.sig.mem_limit_setting, sizeof v.sig.mem_limit_setting, "innodb_buffer_pool_size");
    judge(&v, &out);
    assert_int_equal(out.kind, VK_IO);
    assert_float_equal(out.model.limit_util, 0.225, 1e-9); /* the CPU: room to spare */
    assert_true(account_share(&out.acct, AS_DISK) > 0.9);
    assert_true(out.model.nfindings >= 1);
    assert_int_equal(out.model.findings[0].res, MR_DISK);
    assert_string_equal(out.model.findings[0].advice.name, "innodb_buffer_pool_size");
    assert_non_null(strstr(out.evidence, "on data reads"));
    assert_non_null(strstr(out.evidence, "900 disk reads/s"));
    /* commits at 0 during the stall: still the reads, with the advice */
    v.server_tps = 0;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_IO);
    assert_int_equal(out.advice.n, 1);
    assert_string_equal(out.advice.a[0].name, "innodb_buffer_pool_size");
    /* a server whose CPU is not seen (remote): "running" sessions beside misses are no CPU */
    v.server_tps = 12;
    v.sig.server_cpu_pct = v.sig.server_cpu_limit = NAN;
    judge(&v, &out);
    assert_int_not_equal(out.kind, VK_SERVER_CPU);
    assert_true(isnan(out.model.r[MR_SERVER_CPU].util));
    v.sig.server_cpu_limit = 200;
    /* the same sessions with the CPU full are CPU-bound: the "running" ones queue for it */
    v.server_tps = 12;
    v.sig.server_cpu_pct = 196;
    v.sig.disk_reads_s = 0;
    v.sig.hit_ratio = 1;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_SERVER_CPU);
}

/* A server busy with short autocommit statements (no session seen active) is not idle. */
static void
test_busy_not_idle(void **state)
{
    struct coll_view v = blank();
    struct verdict out;

    v.server_tps = 500;
    v.sig.sessions = 4;
    v.sig.active = 0.1;
    v.sig.on_cpu = 0.1;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_NONE);
    v.server_tps = 0.3;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_UNDERLOADED);
    /* no client connected: the rate is the monitors' own */
    v.server_tps = 13;
    v.sig.sessions = 0;
    v.sig.active = 0;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_UNDERLOADED);
    /* throughput unknown (a first sample, gauges only): no limit named, and never idle */
    v.sig.server_cpu_pct = 199;
    v.sig.server_cpu_limit = 200;
    v.server_tps = NAN;
    judge(&v, &out);
    assert_int_equal(out.kind, VK_NONE);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_misses),
        cmocka_unit_test(test_event_loop_busy),
        cmocka_unit_test(test_io_stall),
        cmocka_unit_test(test_busy_not_idle),
    };
    return cmocka_run_group_tests_name("watch", tests, NULL, NULL);
}
