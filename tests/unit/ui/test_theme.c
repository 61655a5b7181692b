/* Theme files: the shipped ones load; hostile or wrong ones fail with one line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/theme.h"
#include "base/util.h"

/* Writes text to a temporary file, loads it as a theme, returns theme_load's result. */
static int
load_text(const char *text, size_t len, char *path, char *err)
{
    struct theme t;
    int fd, rv;

    strcpy(path, "/tmp/test_theme_XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    rv = theme_load(&t, path, err);
    unlink(path);
    return rv;
}

static void
expect_error(const char *text, size_t len, const char *frag)
{
    char path[64], err[BT_ERRLEN] = "";

    assert_int_equal(load_text(text, len, path, err), -1);
    if (strstr(err, frag) == NULL || strchr(err, '\n') != NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err, frag);
}

static void
expect_text(const char *text, const char *frag)
{
    expect_error(text, strlen(text), frag);
}

static void
test_good(void **state)
{
    char path[64], err[BT_ERRLEN] = "";
    struct theme t;
    const char *text = "# c\n[colors]\nnormal = default default\nbad = 196 black bold\n";

    (void)state;
    if (load_text(text, strlen(text), path, err) != 0)
        fail_msg("%s", err);
    assert_int_equal(theme_load(&t, "themes/default.theme", err), 0);
}

/*
 * The named themes are built in, the same colours as themes/NAME.theme: a
 * benchtop away from its themes/ folder still has them (this test's binary
 * is, in build/tests/, and nothing is installed: field trial 7 had "theme
 * 'default' not found").
 */
static void
test_builtin(void **state)
{
    static const char *const names[] = {"default", "light", "mono"};
    char err[BT_ERRLEN], path[64];

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct theme file, built, named;

        snprintf(path, sizeof path, "themes/%s.theme", names[i]);
        assert_non_null(theme_builtin(names[i]));
        if (theme_load(&file, path, err) != 0 ||
            theme_parse(&built, names[i], theme_builtin(names[i]), err) != 0 ||
            theme_load(&named, names[i], err) != 0)
            fail_msg("%s: %s", names[i], err);
        if (memcmp(&file, &built, sizeof file) != 0)
            fail_msg("%s differs from its built-in copy in src/ui/theme.c", path);
        assert_memory_equal(&named, &built, sizeof named);
    }
    assert_null(theme_builtin("solarized"));
    assert_int_equal(theme_load(&(struct theme){0}, "solarized", err), -1);
    assert_non_null(strstr(err, "theme 'solarized' not found"));
}

static void
test_bad(void **state)
{
    static const char nul[] = "[colors]\n\0normal = red red\n";
    char *big = malloc(THEME_MAX_BYTES + 100);
    char err[BT_ERRLEN];
    struct theme t;

    (void)state;
    expect_text("[colors]\nfrobnicate = red blue\n", "unknown element 'frobnicate'");
    expect_text("[colors]\nnormal = 999 red\n", "bad colour or attribute '999'");
    expect_text("[colours]\nnormal = red red\n", "'normal' is outside the [colors] section");
    expect_error(nul, sizeof(nul) - 1, "contains a NUL byte");
    memset(big, ' ', THEME_MAX_BYTES + 100);
    memcpy(big, "[colors]\n", 9);
    expect_error(big, 500, "line is longer than 200 bytes");
    expect_error(big, THEME_MAX_BYTES + 100, "is larger than 65536 bytes");
    free(big);
    assert_int_equal(theme_load(&t, "/dev/zero", err), -1);
    assert_string_equal(err,
                        "theme /dev/zero is larger than 65536 bytes (give --theme a .theme file)");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
