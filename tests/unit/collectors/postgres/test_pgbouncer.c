/* Tests for the PgBouncer collector's pure parts: derive on hand-built samples, console targets. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/collector.h"
#include "collectors/postgres/pgbouncer.h"

/* Transaction pooling, 8 server connections per pool, 24 clients of which 16 wait. */
static struct pgb_sample
busy_sample(void)
{
    struct pgb_sample s;

    memset(&s, 0, sizeof s);
    snprintf(s.version, sizeof s.version, "PgBouncer 1.18.0");
    snprintf(s.pool_mode, sizeof s.pool_mode, "transaction");
    s.pools = 1;
    s.cl_active = 8;
    s.cl_waiting = 16;
    s.sv_active = 8;
    s.pool_size = 8;
    s.max_client_conn = 100;
    s.maxwait_s = 0.25;
    s.xact_count = 1000;
    s.query_count = 3000;
    s.xact_time_us = 2000000;
    s.wait_time_us = 5000000;
    return s;
}

static const struct coll_row *
row(const struct coll_view *v, const char *section, const char *label)
{
    const struct coll_row *r = coll_row_find(v, section, label);

    assert_non_null(r);
    return r;
}

static void
test_rates_from_two_samples(void **state)
{
    struct pgb_sample a = busy_sample(), b = busy_sample();
    struct coll_view v;

    b.xact_count += 500; /* 250/s over 2 s */
    b.query_count += 1500;
    b.wait_time_us += 1000000; /* 1 s of waiting over 500 transactions: 2 ms each */
    b.xact_time_us += 250000;  /* 0.5 ms each */
    pgbouncer_collector_class.derive(&a, &b, 2.0, &v);
    assert_float_equal(v.server_tps, 250.0, 1e-9);
    assert_float_equal(row(&v, "pooler", "transactions/s")->num, 250.0, 1e-9);
    assert_float_equal(row(&v, "pooler", "queries/s")->num, 750.0, 1e-9);
    assert_float_equal(row(&v, "pooler", "wait per xact")->num, 2.0, 1e-9);
    assert_float_equal(row(&v, "pooler", "server time/xact")->num, 0.5, 1e-9);
}

static void
test_waiting_clients_are_signalled(void **state)
{
    struct pgb_sample a = busy_sample(), b = busy_sample();
    struct coll_view v;

    a.cl_waiting = 0;
    pgbouncer_collector_class.derive(&a, &b, 1.0, &v);
    assert_int_equal(row(&v, "pool", "clients waiting")->level, ROW_WARN);
    assert_float_equal(row(&v, "pool", "clients waiting")->num, 16, 0);
    assert_float_equal(v.sig.pool_waiting, 16, 0);
    assert_float_equal(v.sig.pool_servers, 8, 0);
    assert_float_equal(v.sig.pool_size, 8, 0);
    assert_float_equal(v.sig.pool_maxwait_ms, 250, 1e-9);
    assert_string_equal(row(&v, "pool", "server conns")->value, "8 active, 0 idle of 8");
    assert_string_equal(row(&v, "pool", "pool mode")->value, "transaction");
    /* Clients began to wait between the two samples: an event says so. */
    assert_int_equal(v.nevents, 1);
    assert_non_null(strstr(v.events[0], "16 clients wait"));
    /* A pooler knows nothing of the server's sessions. */
    assert_true(isnan(v.sig.on_cpu));
    assert_true(isnan(v.sig.lock_wait));
}

static void
test_first_sample_has_no_rates(void **state)
{
    struct pgb_sample b = busy_sample();
    struct coll_view v;

    b.cl_waiting = 0;
    pgbouncer_collector_class.derive(NULL, &b, 1.0, &v);
    assert_true(isnan(v.server_tps));
    assert_int_equal(row(&v, "pooler", "transactions/s")->level, ROW_DIM);
    assert_int_equal(row(&v, "pool", "clients waiting")->level, ROW_GOOD);
    assert_int_equal(v.nevents, 0);
}

static void
test_counter_reset_is_not_a_rate(void **state)
{
    struct pgb_sample a = busy_sample(), b = busy_sample();
    struct coll_view v;

    b.xact_count = 10; /* pgbouncer restarted between the samples */
    pgbouncer_collector_class.derive(&a, &b, 1.0, &v);
    assert_true(isnan(v.server_tps));
}

static void
test_console_target(void **state)
{
    char *t = pgb_console_target("postgres://app@127.0.0.1:6432/db");

    assert_string_equal(t, "postgres://app@127.0.0.1:6432/db?dbname=pgbouncer");
    free(t);
    t = pgb_console_target("postgres://app@127.0.0.1:6432/db?sslmode=disable");
    assert_string_equal(t, "postgres://app@127.0.0.1:6432/db?sslmode=disable&dbname=pgbouncer");
    free(t);
    t = pgb_console_target("host=127.0.0.1 port=6432 dbname=db");
    assert_string_equal(t, "host=127.0.0.1 port=6432 dbname=db dbname=pgbouncer");
    free(t);
}

/* What the console's SET can carry: no quote, backslash or control character to break out. */
static void
test_setting_check(void **state)
{
    char err[512];

    assert_int_equal(pgb_setting_check("default_pool_size", "16", err), 0);
    assert_int_equal(pgb_setting_check("server_reset_query", "DISCARD ALL", err), 0);
    assert_int_equal(pgb_setting_check("ignore_startup_parameters", "extra_float_digits,x", err),
                     0);
    assert_int_equal(pgb_setting_check("server_check_query", "select 1'; SHUTDOWN; '", err), -1);
    assert_non_null(strstr(err, "server_check_query: PgBouncer's console cannot take a value"));
    assert_int_equal(pgb_setting_check("x", "a\\", err), -1);
    assert_int_equal(pgb_setting_check("x", "a\nSHUTDOWN", err), -1);
    assert_int_equal(pgb_setting_check("x", "\x7f", err), -1);
    assert_int_equal(pgb_setting_check("pool_mode = 'session'; --", "1", err), -1);
    assert_non_null(strstr(err, "is not a PgBouncer setting"));
    assert_int_equal(pgb_setting_check("", "1", err), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates_from_two_samples),
        cmocka_unit_test(test_waiting_clients_are_signalled),
        cmocka_unit_test(test_first_sample_has_no_rates),
        cmocka_unit_test(test_counter_reset_is_not_a_rate),
        cmocka_unit_test(test_console_target),
        cmocka_unit_test(test_setting_check),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
