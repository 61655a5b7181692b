/* theme: theme files (INI, parsed by libinih) into struct theme. */
#include "theme.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/util.h"

#ifndef BENCHTOP_DATADIR
#define BENCHTOP_DATADIR "/usr/local/share/benchtop"
#endif

static const char *const element_names[ST__COUNT] = {
    [ST_NORMAL] = "normal",
    [ST_HEADER] = "header",
    [ST_TITLE] = "title",
    [ST_BORDER] = "border",
    [ST_LABEL] = "label",
    [ST_VALUE] = "value",
    [ST_GOOD] = "good",
    [ST_WARN] = "warn",
    [ST_BAD] = "bad",
    [ST_DIM] = "dim",
    [ST_GRAPH_CLIENT] = "graph_client",
    [ST_GRAPH_SERVER] = "graph_server",
    [ST_HELP] = "help",
};

static const char *const color_names[] = {"black", "red",     "green", "yellow",
                                          "blue",  "magenta", "cyan",  "white"};

static const struct {
    const char *name;
    unsigned bit;
} attr_names[] = {
    {"bold", TA_BOLD},
    {"reverse", TA_REVERSE},
    {"underline", TA_UNDERLINE},
    {"dim", TA_DIM},
};

struct parse {
    struct theme *t;
    const char *path;
    char *err;
    int failed;
};

static int
parse_color(const char *word, short *out)
{
    char *end;
    long n;
    size_t i;

    if (strcmp(word, "default") == 0) {
        *out = -1;
        return 0;
    }
    for (i = 0; i < sizeof(color_names) / sizeof(color_names[0]); i++)
        if (strcmp(word, color_names[i]) == 0) {
            *out = (short)i;
            return 0;
        }
    n = strtol(word, &end, 10);
    if (*end != '\0' || end == word || n < 0 || n > 255)
        return -1;
    *out = (short)n;
    return 0;
}

static int
parse_attr(const char *word, unsigned *attr)
{
    size_t i;

    for (i = 0; i < sizeof(attr_names) / sizeof(attr_names[0]); i++)
        if (strcmp(word, attr_names[i].name) == 0) {
            *attr |= attr_names[i].bit;
            return 0;
        }
    return -1;
}

/* "fg bg [attr...]" for one element; 0 or -1 with the offending word in bad. */
static int
parse_value(struct theme *t, int st, const char *value, char *bad, size_t badlen)
{
    char buf[256], *save = NULL, *w;
    int n = 0;

    snprintf(buf, sizeof(buf), "%s", value);
    t->attr[st] = 0;
    for (w = strtok_r(buf, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save), n++) {
        int rv = n == 0   ? parse_color(w, &t->fg[st])
                 : n == 1 ? parse_color(w, &t->bg[st])
                          : parse_attr(w, &t->attr[st]);
        if (rv < 0) {
            snprintf(bad, badlen, "%s", w);
            return -1;
        }
    }
    if (n < 2) {
        snprintf(bad, badlen, "%s", value);
        return -1;
    }
    return 0;
}

static int
on_entry(void *user, const char *section, const char *name, const char *value)
{
    struct parse *p = user;
    char bad[64];
    int st;

    if (strcmp(section, "colors") != 0) {
        seterr(p->err, "%s: '%s' is outside the [colors] section (put it under [colors])", p->path,
               name);
        return 0;
    }
    for (st = 0; st < ST__COUNT; st++)
        if (strcmp(name, element_names[st]) == 0)
            break;
    if (st == ST__COUNT) {
        seterr(p->err, "%s: unknown element '%s' (use one of normal, header, title, ...)", p->path,
               name);
        return 0;
    }
    if (parse_value(p->t, st, value, bad, sizeof(bad)) < 0) {
        seterr(p->err,
               "%s: %s: bad colour or attribute '%s' (use: FG BG [bold|reverse|"
               "underline|dim], colours by name or 0-255)",
               p->path, name, bad);
        return 0;
    }
    return 1;
}

/* The folder the running executable is in, for themes/ beside a built ./benchtop. */
static void
exe_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    char *slash;

    buf[n > 0 ? n : 0] = '\0';
    slash = strrchr(buf, '/');
    if (slash != NULL)
        *slash = '\0';
}

static int
find_theme(const char *name, char *path, size_t len)
{
    char dir[PATH_MAX];

    if (strchr(name, '/') != NULL) {
        snprintf(path, len, "%s", name);
        return access(path, R_OK);
    }
    exe_dir(dir, sizeof(dir));
    snprintf(path, len, "%s/themes/%s.theme", dir, name);
    if (access(path, R_OK) == 0)
        return 0;
    snprintf(path, len, "%s/themes/%s.theme", BENCHTOP_DATADIR, name);
    return access(path, R_OK);
}

/* -1 with err if a line of text is too long for a theme (inih would cut it). */
static int
check_lines(const char *path, const char *text, char *err)
{
    int lineno = 1;

    while (*text) {
        size_t n = strcspn(text, "\n");
        if (n > THEME_MAX_LINE)
            return seterr(err, "%s:%d: line is longer than %d bytes (use: element = FG BG [attrs])",
                          path, lineno, THEME_MAX_LINE);
        text += n + (text[n] == '\n');
        lineno++;
    }
    return 0;
}

static const struct file_ask theme_file = {.what = "theme",
                                           .option = "--theme",
                                           .kind = "a .theme file",
                                           .max = THEME_MAX_BYTES,
                                           .text = 1};

int
theme_parse(struct theme *t, const char *path, const char *text, char *err)
{
    struct parse p = {.t = t, .path = path, .err = err};
    int i, rv;

    for (i = 0; i < ST__COUNT; i++) {
        t->fg[i] = t->bg[i] = -1;
        t->attr[i] = 0;
    }
    if (check_lines(path, text, err) < 0)
        return -1;
    err[0] = '\0';
    rv = ini_parse_string(text, on_entry, &p);
    if (rv > 0 && err[0] != '\0') {
        char msg[BT_ERRLEN];
        snprintf(msg, sizeof(msg), "%s", err);
        return seterr(err, "%.*s (line %d)", (int)sizeof(msg) - 16, msg, rv);
    }
    if (rv > 0)
        return seterr(err, "%s:%d: not an INI line (use: element = FG BG [attrs])", path, rv);
    return 0;
}

/*
 * The three named themes, built in: a benchtop copied away from its
 * themes/ folder, or installed under another prefix, still has them (field
 * trial 7: "theme 'default' not found"). themes/NAME.theme are the same
 * colours, to copy and edit; test_theme checks that they agree.
 */
static const struct {
    const char *name, *text;
} builtin[] = {
    {"default", "[colors]\n"
                "normal       = default default\n"
                "header       = black   cyan    bold\n"
                "title        = cyan    default bold\n"
                "border       = blue    default\n"
                "label        = default default\n"
                "value        = white   default bold\n"
                "good         = green   default\n"
                "warn         = yellow  default bold\n"
                "bad          = white   red     bold\n"
                "dim          = default default dim\n"
                "graph_client = green   default\n"
                "graph_server = magenta default\n"
                "help         = black   white\n"},
    {"light", "[colors]\n"
              "normal       = black   default\n"
              "header       = white   blue    bold\n"
              "title        = blue    default bold\n"
              "border       = blue    default\n"
              "label        = black   default\n"
              "value        = black   default bold\n"
              "good         = green   default bold\n"
              "warn         = red     default\n"
              "bad          = white   red     bold\n"
              "dim          = 244     default\n"
              "graph_client = blue    default\n"
              "graph_server = magenta default\n"
              "help         = white   blue\n"},
    {"mono", "[colors]\n"
             "normal       = default default\n"
             "header       = default default reverse\n"
             "title        = default default bold\n"
             "border       = default default\n"
             "label        = default default\n"
             "value        = default default bold\n"
             "good         = default default\n"
             "warn         = default default bold underline\n"
             "bad          = default default reverse bold\n"
             "dim          = default default dim\n"
             "graph_client = default default\n"
             "graph_server = default default dim\n"
             "help         = default default reverse\n"},
};

const char *
theme_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
        if (strcmp(builtin[i].name, name) == 0)
            return builtin[i].text;
    return NULL;
}

int
theme_load(struct theme *t, const char *name, char *err)
{
    char path[PATH_MAX + 64];
    char *text;
    int rv;

    if (find_theme(name, path, sizeof(path)) < 0 && theme_builtin(name) != NULL) {
        snprintf(path, sizeof(path), "built-in %s", name);
        return theme_parse(t, path, theme_builtin(name), err);
    }
    if (find_theme(name, path, sizeof(path)) < 0)
        return seterr(err,
                      "theme '%s' not found (use default, light or mono, or a path to a "
                      ".theme file)",
                      name);
    if ((text = file_read(path, &theme_file, NULL, err)) == NULL)
        return -1;
    rv = theme_parse(t, path, text, err);
    free(text);
    return rv;
}

void
theme_strip_colors(struct theme *t)
{
    int i;

    for (i = 0; i < ST__COUNT; i++)
        t->fg[i] = t->bg[i] = -1;
}
