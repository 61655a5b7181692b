/*
 * mysql:// targets without a server: parsing, password masking, error
 * hints and sysbench's random strings.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/skip.h"

#ifdef HAVE_MYSQL

#include <errmsg.h>
#include <mysqld_error.h>

#include "collectors/mysql/mysql.h"

static void
parse_ok(const char *target, struct my_target *t)
{
    char err[BT_ERRLEN] = "";

    if (my_target_parse(target, t, err) != 0)
        fail_msg("%s: %s", target, err);
}

static void
test_full_uri(void **state)
{
    struct my_target t;

    parse_ok("mysql://bench:s3cret@db.example.com:3307/shop", &t);
    assert_string_equal(t.user, "bench");
    assert_string_equal(t.password, "s3cret");
    assert_string_equal(t.host, "db.example.com");
    assert_int_equal(t.port, 3307);
    assert_string_equal(t.db, "shop");
    assert_null(t.socket);
    assert_int_equal(t.nopts, 0);
    my_target_free(&t);
}

/* Everything left out stays NULL, so the option files and the library defaults apply. */
static void
test_minimal(void **state)
{
    struct my_target t;

    parse_ok("mariadb://", &t);
    assert_null(t.user);
    assert_null(t.password);
    assert_null(t.host);
    assert_null(t.db);
    assert_int_equal(t.port, 0);
    my_target_free(&t);
    parse_ok("mysql://db1/", &t);
    assert_string_equal(t.host, "db1");
    assert_null(t.db);
    my_target_free(&t);
}

/* '@', ':' and '/' in a password need no escaping: user info ends at the last '@'. */
static void
test_password_characters(void **state)
{
    struct my_target t;

    parse_ok("mysql://u:p@ss:w/rd@127.0.0.1/x", &t);
    assert_string_equal(t.user, "u");
    assert_string_equal(t.password, "p@ss:w/rd");
    assert_string_equal(t.host, "127.0.0.1");
    assert_string_equal(t.db, "x");
    my_target_free(&t);
    parse_ok("mysql://u:@h/x", &t); /* an empty password is a password */
    assert_string_equal(t.password, "");
    my_target_free(&t);
    parse_ok("mysql://u%40corp:p%25w@h/d%40b", &t);
    assert_string_equal(t.user, "u@corp");
    assert_string_equal(t.password, "p%w");
    assert_string_equal(t.db, "d@b");
    my_target_free(&t);
}

static void
test_percent_escapes(void **state)
{
    struct my_target t;

    parse_ok("mysql://us%65r:p%2Aw@h/d%40b", &t);
    assert_string_equal(t.user, "user");
    assert_string_equal(t.password, "p*w");
    assert_string_equal(t.db, "d@b");
    my_target_free(&t);
}

static void
test_ipv6(void **state)
{
    struct my_target t;

    parse_ok("mysql://root@[::1]:3310/bench", &t);
    assert_string_equal(t.host, "::1");
    assert_int_equal(t.port, 3310);
    my_target_free(&t);
    parse_ok("mysql://root@[fe80::1]/bench", &t);
    assert_string_equal(t.host, "fe80::1");
    assert_int_equal(t.port, 0);
    my_target_free(&t);
}

static void
test_socket(void **state)
{
    struct my_target t;

    parse_ok("mysql://root@localhost/bench?socket=/run/mysqld/mysqld.sock", &t);
    assert_string_equal(t.socket, "/run/mysqld/mysqld.sock");
    assert_string_equal(t.host, "localhost");
    my_target_free(&t);
    /* a percent-encoded path as the host, as libpq allows */
    parse_ok("mysql://root@%2Ftmp%2Fmy.sock/bench", &t);
    assert_string_equal(t.socket, "/tmp/my.sock");
    assert_string_equal(t.host, "localhost");
    my_target_free(&t);
}

static void
test_tls_parameters(void **state)
{
    struct my_target t;

    parse_ok("mysql://u@h/db?ssl-ca=/etc/ca.pem&ssl_cert=/c.pem&ssl-key=/k.pem&ssl-mode=VERIFY_CA",
             &t);
    assert_int_equal(t.nopts, 5);
    assert_int_equal(t.opts[0].opt, MYSQL_OPT_SSL_CA);
    assert_string_equal(t.opts[0].str, "/etc/ca.pem");
    assert_int_equal(t.opts[1].opt, MYSQL_OPT_SSL_CERT);
    assert_string_equal(t.opts[2].str, "/k.pem");
    assert_int_equal(t.opts[3].opt, MYSQL_OPT_SSL_ENFORCE);
    assert_true(t.opts[3].is_bool && t.opts[3].flag == 1);
    assert_int_equal(t.opts[4].opt, MYSQL_OPT_SSL_VERIFY_SERVER_CERT);
    assert_true(t.tls_required);
    my_target_free(&t);
    parse_ok("mysql://u@h/db?ssl-mode=REQUIRED", &t);
    assert_true(t.tls_required);
    my_target_free(&t);
    parse_ok("mysql://u@h/db?ssl-mode=PREFERRED", &t);
    assert_false(t.tls_required);
    assert_int_equal(t.nopts, 0);
    my_target_free(&t);
    parse_ok("mysql://u@h/db?ssl=off&ssl-mode=DISABLED", &t);
    assert_int_equal(t.nopts, 1);
    assert_int_equal(t.opts[0].flag, 0);
    my_target_free(&t);
}

static void
expect_invalid(const char *target, const char *want)
{
    struct my_target t;
    char err[BT_ERRLEN] = "";

    assert_int_equal(my_target_parse(target, &t, err), -1);
    if (strstr(err, "invalid target") == NULL || strstr(err, want) == NULL)
        fail_msg("'%s' not in '%s'", want, err);
    assert_null(strstr(err, "hunter2"));
    assert_null(t.user);
    assert_null(t.password);
}

static void
test_invalid(void **state)
{
    expect_invalid("mysql://u:hunter2@[::1:3306/x", "without ']'");
    expect_invalid("mysql://u:hunter2@[::1]x/x", "after ']'");
    expect_invalid("mysql://u:hunter2@h:port/x", "port");
    expect_invalid("mysql://u:hunter2@h:0/x", "port");
    expect_invalid("mysql://u:hunter2@h:65536/x", "port");
    expect_invalid("mysql://u:hunter2@h/db/extra", "'/'");
    expect_invalid("mysql://u:hunter2@h/db?sslmode=on", "unknown parameter 'sslmode'");
    expect_invalid("mysql://u:hunter2@h/db?ssl=maybe", "ssl takes 1 or 0");
    expect_invalid("mysql://u:hunter2@h/db?ssl-mode=ALWAYS", "ssl-mode must be");
    expect_invalid("mysql://u:hunter2@h/db?socket", "key=value");
    expect_invalid("mysql://u:hunter2@h/d%4", "'%'");
    expect_invalid("mysql://u:hunter2@h/d%zz", "'%'");
    expect_invalid("postgres://u:hunter2@h/db", "mysql://");
}

static void
expect_mask(const char *target, const char *want)
{
    char *m = my_mask_target(target);

    assert_string_equal(m, want);
    free(m);
}

static void
test_mask(void **state)
{
    expect_mask("mysql://u:hunter2@h:3306/db", "mysql://u:***@h:3306/db");
    expect_mask("mysql://u:p@ss:w/rd@h/db", "mysql://u:***@h/db");
    expect_mask("mysql://u@h/db", "mysql://u@h/db");
    expect_mask("mysql://u:@h/db", "mysql://u:@h/db");
    expect_mask("mariadb://u:x@h/db?ssl=1", "mariadb://u:***@h/db?ssl=1");
    expect_mask("mysql://u:hunter2@[::1:3306/x", "mysql://u:***@[::1:3306/x");
    expect_mask("not a target", "not a target");
    expect_mask("postgres://u:hunter2@h/db", "postgres://u:***@h/db");
}

static void
test_hints(void **state)
{
    assert_non_null(strstr(my_error_hint(ER_ACCESS_DENIED_ERROR, "Access denied"), "password"));
    assert_non_null(strstr(my_error_hint(ER_BAD_DB_ERROR, NULL), "CREATE DATABASE"));
    assert_non_null(strstr(my_error_hint(ER_NO_SUCH_TABLE, NULL), "benchtop init"));
    assert_non_null(strstr(
        my_error_hint(CR_CONNECTION_ERROR, "Can't connect to local server through socket '/x'"),
        "socket path"));
    assert_non_null(
        strstr(my_error_hint(CR_CONNECTION_ERROR, "Can't connect to server on '127.0.0.1' (111)"),
               "host:port"));
    assert_non_null(strstr(my_error_hint(CR_SERVER_LOST, "Lost connection to server at "
                                                         "'handshake: reading initial "
                                                         "communication packet'"),
                           "MySQL or MariaDB server"));
    assert_string_equal(my_error_hint(ER_LOCK_DEADLOCK, "Deadlock found"), "");
}

static void
test_conn_lost(void **state)
{
    assert_true(my_error_is_conn_lost(CR_SERVER_GONE_ERROR));
    assert_true(my_error_is_conn_lost(CR_SERVER_LOST));
    assert_true(my_error_is_conn_lost(ER_SERVER_SHUTDOWN));
    assert_true(my_error_is_conn_lost(1927)); /* MariaDB: connection killed */
    assert_false(my_error_is_conn_lost(ER_LOCK_DEADLOCK));
    assert_false(my_error_is_conn_lost(ER_LOCK_WAIT_TIMEOUT));
    assert_false(my_error_is_conn_lost(ER_DUP_ENTRY));
}

/* sysbench's c and pad: digits where the template has '#', dashes kept. */
static void
test_rand_digits(void **state)
{
    struct rng r;
    char c[MY_C_LEN + 1], first[MY_C_LEN + 1];
    int i, round, digits[10] = {0};

    assert_int_equal(strlen(my_c_template), 119);
    assert_int_equal(strlen(my_pad_template), 59);
    rng_seed(&r, 42);
    for (round = 0; round < 100; round++) {
        memset(c, 'x', sizeof c);
        my_rand_digits(c, my_c_template, &r);
        c[MY_C_LEN] = '\0';
        for (i = 0; i < MY_C_LEN; i++) {
            if (my_c_template[i] == '-') {
                assert_int_equal(c[i], '-');
            } else {
                assert_true(c[i] >= '0' && c[i] <= '9');
                digits[c[i] - '0']++;
            }
        }
        if (round == 0)
            memcpy(first, c, sizeof c);
    }
    assert_string_not_equal(first, c);
    /* 11,000 digits: each of the ten near 1,100 */
    for (i = 0; i < 10; i++)
        assert_true(digits[i] > 900 && digits[i] < 1300);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_uri),
        cmocka_unit_test(test_minimal),
        cmocka_unit_test(test_password_characters),
        cmocka_unit_test(test_percent_escapes),
        cmocka_unit_test(test_ipv6),
        cmocka_unit_test(test_socket),
        cmocka_unit_test(test_tls_parameters),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_hints),
        cmocka_unit_test(test_conn_lost),
        cmocka_unit_test(test_rand_digits),
    };
    return cmocka_run_group_tests_name("mysql_target", tests, NULL, NULL);
}

#else

int
main(void)
{
    test_skip_program("the mysql backend is not built");
    return 0;
}

#endif
