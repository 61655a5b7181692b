/* file: a whole small file read, and the one-line refusals that name the option to fix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/file.h"
#include "base/util.h"

static const struct file_ask text_ask = {
    .what = "script", .option = "-f", .kind = "a script file", .max = 16, .text = 1};
static const struct file_ask bytes_ask = {
    .what = "body", .option = "-d", .kind = "a smaller file", .max = 16};

/* A temporary file holding n bytes of s; its path in path. */
static void
make_file(char *path, const char *s, size_t n)
{
    int fd;

    strcpy(path, "/tmp/benchtop-test-file-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, s, n), (ssize_t)n);
    close(fd);
}

static void
test_reads_the_bytes(void **state)
{
    char path[64], err[BT_ERRLEN];
    size_t len = 99;
    char *buf;

    make_file(path, "a\0b", 3);
    buf = file_read(path, &bytes_ask, &len, err);
    assert_non_null(buf);
    assert_int_equal(len, 3);
    assert_memory_equal(buf, "a\0b\0", 4); /* NUL-terminated after the bytes */
    free(buf);
    unlink(path);
}

static void
test_refusals_name_the_option(void **state)
{
    char path[64], big[64], err[BT_ERRLEN], want[256];
    char *buf;

    assert_null(file_read("/nonexistent/benchtop/x", &text_ask, NULL, err));
    assert_string_equal(err, "cannot read script /nonexistent/benchtop/x: No such file or "
                             "directory (check the path given to -f)");
    assert_null(file_read("/tmp", &text_ask, NULL, err));
    assert_string_equal(err,
                        "cannot read script /tmp: Is a directory (check the path given to -f)");
    make_file(path, "a\0b", 3);
    assert_null(file_read(path, &text_ask, NULL, err));
    snprintf(want, sizeof want, "script %s contains a NUL byte (give -f a text file)", path);
    assert_string_equal(err, want);
    unlink(path);
    make_file(big, "0123456789abcdefg", 17); /* one byte over the cap */
    assert_null(file_read(big, &bytes_ask, NULL, err));
    snprintf(want, sizeof want, "body %s is larger than 16 bytes (give -d a smaller file)", big);
    assert_string_equal(err, want);
    unlink(big);
    make_file(big, "0123456789abcdef", 16); /* at the cap: read */
    buf = file_read(big, &bytes_ask, NULL, err);
    assert_non_null(buf);
    free(buf);
    unlink(big);
    assert_null(file_read("/dev/zero", &text_ask, NULL, err)); /* endless: stops past the cap */
    assert_string_equal(err, "script /dev/zero is larger than 16 bytes (give -f a script file)");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_the_bytes),
        cmocka_unit_test(test_refusals_name_the_option),
    };
    return cmocka_run_group_tests_name("file", tests, NULL, NULL);
}
