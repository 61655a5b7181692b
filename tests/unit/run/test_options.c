/*
 * The option table: defaults, parsing of every type, positional arguments
 * in any order, and the one-line errors (exit 2) for bad values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/skip.h"

#include "cmd/cmd.h"
#include "collectors/shared/kv.h"
#include "run/options.h"
#include "engine/registry.h"

/* Present only under LeakSanitizer: the error path exits without freeing, by design. */
void __lsan_disable(void) __attribute__((weak));

static void
parse(struct runconf *rc, unsigned cmd, char **argv, char ***pos, int *npos)
{
    int argc = 0;

    while (argv[argc] != NULL)
        argc++;
    memset(rc, 0, sizeof(*rc));
    options_defaults(rc);
    options_parse(rc, cmd, argc, argv, pos, npos);
}

static void
test_defaults(void **state)
{
    struct runconf rc;
    char **pos;
    int npos;
    char *argv[] = {"run", NULL};

    parse(&rc, CMD_RUN, argv, &pos, &npos);
    assert_int_equal(rc.clients, 1);
    assert_int_equal(rc.threads, 1);
    assert_true(rc.interval_s == 1.0);
    assert_true(rc.rate == 0.0);
    assert_true(rc.late_ms == 10.0);
    assert_null(rc.workload);
    assert_int_equal(npos, 0);
    assert_int_equal(options_given(&rc, "clients"), 0);
    free(pos);
    options_free(&rc);
}

/* sweep's --clients is a list; -c stays a number, and run's --clients too. */
static void
test_sweep_clients_list(void **state)
{
    struct runconf rc;
    char **pos;
    int npos;
    char *sweep[] = {"sweep", "--clients",   "1..64", "--rates=10,20", "-c", "3", "--warmup",
                     "0.5",   "--find-rate", "--slo", "p99<5ms",       "pg", NULL};
    char *run[] = {"run", "--clients", "7", NULL};

    parse(&rc, CMD_SWEEP, sweep, &pos, &npos);
    assert_string_equal(rc.sweep_clients, "1..64");
    assert_string_equal(rc.sweep_rates, "10,20");
    assert_string_equal(rc.slo, "p99<5ms");
    assert_int_equal(rc.clients, 3);
    assert_int_equal(rc.find_rate, 1);
    assert_true(rc.warmup_s == 0.5 && rc.step_s == 10);
    assert_int_equal(options_given(&rc, "clients"), 1);
    assert_int_equal(npos, 1);
    free(pos);
    options_free(&rc);
    parse(&rc, CMD_RUN, run, &pos, &npos);
    assert_int_equal(rc.clients, 7);
    assert_null(rc.sweep_clients);
    assert_int_equal(options_given(&rc, "clients"), 1);
    free(pos);
    options_free(&rc);
}

static void
test_values_and_positionals(void **state)
{
    struct runconf rc;
    char **pos;
    int npos;
    char *argv[] = {"run", "-c",          "16", "postgres://h/db", "--threads=4", "-P", "0.25",
                    "-w",  "select-only", "-C", "--seed",          "12345678901", "-t", "50",
                    NULL};

    parse(&rc, CMD_RUN, argv, &pos, &npos);
    assert_int_equal(rc.clients, 16);
    assert_int_equal(rc.threads, 4);
    assert_true(rc.interval_s == 0.25);
    assert_string_equal(rc.workload, "select-only");
    assert_int_equal(rc.connect_per_txn, 1);
    assert_true(rc.seed == 12345678901ull);
    assert_int_equal(rc.transactions, 50);
    assert_int_equal(npos, 1);
    assert_string_equal(pos[0], "postgres://h/db");
    assert_int_equal(options_given(&rc, "clients"), 1);
    assert_int_equal(options_given(&rc, "time"), 0);
    free(pos);
    options_free(&rc);
}

/* -f and -b repeat: their values in order, '\n'-separated; -r is a flag. */
static void
test_lists(void **state)
{
    struct runconf rc;
    char **pos;
    int npos;
    char *argv[] = {"run", "redis://h", "-f", "a.txt@3", "-b", "get@9", "--file=b c.txt",
                    "-b",  "set",       "-r", NULL};

    (void)state;
    parse(&rc, CMD_RUN, argv, &pos, &npos);
    assert_string_equal(rc.script_file, "a.txt@3\nb c.txt");
    assert_string_equal(rc.builtin, "get@9\nset");
    assert_int_equal(rc.per_stmt, 1);
    free(pos);
    options_free(&rc);
}

/*
 * Runs options_parse in a child, then hands the options to target's driver
 * when target is not NULL; returns its exit status and first stderr line.
 */
static int
parse_error_for(unsigned cmd, char **argv, const char *target, char *msg, size_t len)
{
    int fds[2], st;
    pid_t pid;
    ssize_t n;

    assert_int_equal(pipe(fds), 0);
    pid = fork();
    if (pid == 0) {
        struct runconf rc;
        char **pos;
        int npos;
        dup2(fds[1], 2);
        if (__lsan_disable)
            __lsan_disable();
        parse(&rc, cmd, argv, &pos, &npos);
        if (target != NULL)
            options_driver_conf(&rc, driver_for_target(target));
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < len - 1 && (n = read(fds[0], msg + got, len - 1 - got)) > 0)
        got += (size_t)n;
    msg[got] = '\0';
    close(fds[0]);
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
expect_for(unsigned cmd, char **argv, const char *target, const char *a, const char *b)
{
    char msg[512];

    assert_int_equal(parse_error_for(cmd, argv, target, msg, sizeof(msg)), 2);
    if (strstr(msg, a) == NULL || strstr(msg, b) == NULL)
        fail_msg("expected '%s' and '%s' in: %s", a, b, msg);
    assert_non_null(strstr(msg, a));
    assert_non_null(strstr(msg, b));
    assert_non_null(strchr(msg, '\n'));
    assert_string_equal(strchr(msg, '\n'), "\n"); /* exactly one line */
}

static void
expect(unsigned cmd, char **argv, const char *a, const char *b)
{
    expect_for(cmd, argv, NULL, a, b);
}

static void
test_bad_values(void **state)
{
    char *a1[] = {"run", "-c", "0", NULL};
    char *a2[] = {"run", "-R", "-5", NULL};
    char *a3[] = {"run", "-c", "lots", NULL};
    char *a4[] = {"run", "-c", "2.5", NULL};
    char *a5[] = {"run", "--bogus", NULL};
    char *a6[] = {"run", "-Z", NULL};
    char *a7[] = {"run", "-c", NULL};
    char *a8[] = {"run", "--force", NULL};
    char *a9[] = {"run", "-P", "0", NULL};
    char *a10[] = {"sweep", "-T", "5", NULL};
    char *a11[] = {"run", "--warmup", "1", NULL};
    char *a12[] = {"run", "--cleints", "4", NULL};
    char *a13[] = {"run", "--therads=4", NULL};
    char msg[512];

    expect(CMD_RUN, a1, "--clients", "between 1 and");
    expect(CMD_RUN, a2, "--rate", "between 0 and");
    expect(CMD_RUN, a3, "--clients takes a number", "'lots'");
    expect(CMD_RUN, a4, "whole number", "2.5");
    expect(CMD_RUN, a5, "unknown option '--bogus'", "--help");
    expect(CMD_RUN, a6, "unknown option '-Z'", "--help");
    expect(CMD_RUN, a7, "-c needs a value", "--help");
    expect(CMD_RUN, a8, "--force does not apply", "benchtop run");
    expect(CMD_RUN, a9, "--interval", "between 0.01");
    expect(CMD_SWEEP, a10, "--time does not apply", "benchtop sweep");
    expect(CMD_RUN, a11, "--warmup does not apply", "benchtop run");
    /* issue 27: the nearest option is suggested; a word near none gets no guess */
    expect(CMD_RUN, a12, "unknown option '--cleints'", "did you mean --clients?");
    expect(CMD_RUN, a13, "unknown option '--therads=4'", "did you mean --threads?");
    assert_int_equal(parse_error_for(CMD_RUN, a5, NULL, msg, sizeof msg), 2);
    assert_null(strstr(msg, "did you mean"));
}

/* Range errors print whole numbers, not 6.71089e+07; "1e3" is not a whole number in digits. */
static void
test_whole_number_messages(void **state)
{
    char *a1[] = {"run", "--interval", "7200", NULL};
    char *a2[] = {"run", "-c", "1e3", NULL};
    char *a3[] = {"run", "--seed", "99999999999999999999", NULL};

    expect(CMD_RUN, a1, "between 0.01 and 3600", "7200");
    expect(CMD_RUN, a2, "whole number in digits", "--clients 1000");
    expect(CMD_RUN, a3, "between 0 and 18000000000000000000", "99999999999999999999");
}

/* A driver's options land in its own struct; another database's option is refused. */
static void
test_driver_options(void **state)
{
    const struct driver_class *redis = driver_for_target("redis://127.0.0.1");
    char *argv[] = {"run", "--keys", "500", "--ratio", "1:3", "--fill", NULL};
    char *batch[] = {"run", "--batch", "3", NULL};
    char *keys[] = {"run", "--keys", "3", NULL};
    const struct kv_conf *kv;
    struct runconf rc;
    char **pos;
    int npos;

    if (redis == NULL || driver_for_target("memcached://127.0.0.1") == NULL)
        test_skip("the redis or the memcached backend is not built");
    parse(&rc, CMD_RUN, argv, &pos, &npos);
    kv = options_driver_conf(&rc, redis);
    assert_true(kv->keys == 500);
    assert_string_equal(kv->ratio, "1:3");
    assert_int_equal(kv->fill, 1);
    assert_int_equal(kv->value_size, 32); /* the default */
    assert_int_equal(kv->pipeline, 1);
    assert_int_equal(options_given(&rc, "keys"), 1);
    assert_int_equal(options_given(&rc, "value-size"), 0);
    free(pos);
    options_free(&rc);
    expect_for(CMD_RUN, batch, "redis://127.0.0.1", "--batch is not a redis option", "memcached");
    if (driver_for_target("postgres://h/db") != NULL)
        expect_for(CMD_RUN, keys, "postgres://h/db", "--keys is not a postgres option",
                   "redis, memcached");
}

/* --watch repeats, keeps argv's own strings in order (masked later), and stops at four. */
static void
test_watch_list(void **state)
{
    char *argv[] = {"run",
                    "--watch",
                    "mysql://u:pw@127.0.0.1/a",
                    "--watch",
                    "http://127.0.0.1:8080/nginx_status",
                    "redis://h",
                    NULL};
    char *five[] = {"run",  "--watch", "a://", "--watch", "b://", "--watch",
                    "c://", "--watch", "d://", "--watch", "e://", NULL};
    char *first = argv[2];
    struct runconf rc;
    char **pos;
    int npos;

    parse(&rc, CMD_RUN, argv, &pos, &npos);
    assert_int_equal(rc.watch.n, 2);
    assert_ptr_equal(rc.watch.v[0], first); /* in argv: launch_target masks it there */
    assert_string_equal(rc.watch.v[1], "http://127.0.0.1:8080/nginx_status");
    assert_int_equal(npos, 1);
    free(pos);
    options_free(&rc);
    expect(CMD_RUN, five, "--watch is given more than 4 times", "watch fewer targets");
}

/* A repeatable option (OPT_LIST) keeps every value, in order; the JSON shows them all. */
static void
test_repeated_option(void **state)
{
    const struct driver_class *http = driver_for_target("http://127.0.0.1/");
    char *argv[] = {"run", "-H", "A: 1", "--header", "B: 2", "-H", "C: 3", NULL};
    struct runconf rc;
    char **pos, *json;
    size_t len;
    int npos;
    FILE *f;

    if (http == NULL)
        test_skip("the http backend is not built (libcurl)");
    parse(&rc, CMD_RUN, argv, &pos, &npos);
    rc.tgt.driver = http;
    rc.driver_conf = options_driver_conf(&rc, http);
    f = open_memstream(&json, &len);
    options_print_json(f, &rc);
    fclose(f);
    assert_string_equal(json, "\"header\":\"A: 1\\u000aB: 2\\u000aC: 3\"");
    free(json);
    free(pos);
    options_free(&rc);
}

/* options_list_next gives each value of a list in order, with its length, and stops after it. */
static void
test_list_next(void **state)
{
    const char *p = "tpcb@2\nselect-only\nx", *item;
    size_t len;

    (void)state;
    assert_int_equal(options_list_next(&p, &item, &len), 1);
    assert_int_equal(len, 6);
    assert_memory_equal(item, "tpcb@2", 6);
    assert_int_equal(options_list_next(&p, &item, &len), 1);
    assert_int_equal(len, 11);
    assert_memory_equal(item, "select-only", 11);
    assert_int_equal(options_list_next(&p, &item, &len), 1);
    assert_int_equal(len, 1);
    assert_int_equal(item[0], 'x');
    assert_int_equal(options_list_next(&p, &item, &len), 0);
    p = NULL;
    assert_int_equal(options_list_next(&p, &item, &len), 0);
    p = "";
    assert_int_equal(options_list_next(&p, &item, &len), 0);
}

/* The longest line of text and how many lines it has. */
static size_t
widest_line(const char *text, int *lines)
{
    size_t widest = 0, n;

    for (*lines = 0; *text != '\0'; text += n + (text[n] == '\n'), (*lines)++) {
        n = strcspn(text, "\n");
        if (n > widest)
            widest = n;
    }
    return widest;
}

static void
test_help_lists_every_option(void **state)
{
    const struct option_def *o;
    char flag[64], *buf;
    size_t len;
    int lines;
    FILE *f = open_memstream(&buf, &len);

    (void)state;
    options_print_help(f, CMD_ALL | CMD_REPORT | CMD_MERGE | CMD_INSPECT);
    fclose(f);
    for (o = option_table; o->name != NULL; o++) {
        snprintf(flag, sizeof(flag), "--%s", o->name);
        assert_non_null(strstr(buf, flag));
    }
    /* -H's help is wrapped; its last words are on a line of their own. */
    assert_non_null(strstr(buf, "\n                             secret, password or auth are"));
    assert_true(widest_line(buf, &lines) <= HELP_WIDTH);
    free(buf);
}

/* No line of any --help passes 80 columns: the usage of watch, sweep and report used to. */
static void
test_help_fits_80_columns(void **state)
{
    const struct cmd_entry *const *c = cmd_table;
    char *buf;
    size_t len;
    int lines;
    FILE *f;

    (void)state;
    for (const struct cmd_entry *cmd = NULL;; cmd = *c++) {
        f = open_memstream(&buf, &len);
        cmd_print_help(f, cmd);
        fclose(f);
        assert_true(widest_line(buf, &lines) <= 80);
        assert_true(lines > (cmd == &cmd_serve_entry ? 5 : 10)); /* serve takes -h and -V only */
        if (cmd == NULL) { /* the summary of a long usage goes below it, at the column */
            assert_non_null(strstr(buf, "\n  benchtop sweep TARGET --clients LIST|--rates "
                                        "LIST|--find-rate\n                                     "
                                        "step the load up"));
            assert_non_null(strstr(buf, "(or a libpq conninfo string)"));
        }
        free(buf);
        if (*c == NULL)
            break;
    }
}

/*
 * serve takes no load option: its --help lists only what it takes, and
 * parsing refuses the rest (run's whole list used to show, and be taken).
 */
static void
test_serve_help_is_its_own(void **state)
{
    const char *never[] = {"--clients", "-c, ",    "--threads", "--workload", "--time",
                           "--batch",   "--quiet", "--server",  "options (",  NULL};
    char *a1[] = {"serve", "-c", "4", "redis", NULL};
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);

    (void)state;
    cmd_print_help(f, &cmd_serve_entry);
    fclose(f);
    assert_non_null(strstr(buf, "usage: benchtop serve NAME\n"));
    assert_non_null(strstr(buf, "\n  -h, --help "));
    assert_non_null(strstr(buf, "\n  -V, --version "));
    for (int i = 0; never[i] != NULL; i++)
        if (strstr(buf, never[i]) != NULL)
            fail_msg("serve --help lists %s:\n%s", never[i], buf);
    free(buf);
    expect(CMD_SERVE, a1, "--clients does not apply to 'benchtop serve'", "benchtop serve --help");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values_and_positionals),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_whole_number_messages),
        cmocka_unit_test(test_driver_options),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_help_fits_80_columns),
        cmocka_unit_test(test_serve_help_is_its_own),
        cmocka_unit_test(test_sweep_clients_list),
        cmocka_unit_test(test_watch_list),
        cmocka_unit_test(test_repeated_option),
        cmocka_unit_test(test_list_next),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
