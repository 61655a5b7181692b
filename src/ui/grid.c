/*
 * grid: cells in a plain array. Text goes in one code point per cell;
 * everything is clipped here, so a pane can never write outside the grid
 * however long the server's strings are.
 */
#include "grid.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "base/util.h"

/* Code points that do not take exactly one column: shown as '?' so the columns stay aligned. */
static const struct {
    unsigned lo, hi;
} NOT_ONE_COLUMN[] = {
    {0x0300, 0x036f},   {0x0483, 0x0489},   {0x0591, 0x05bd},   {0x0610, 0x061a},
    {0x064b, 0x065f},   {0x0e31, 0x0e3a},   {0x1100, 0x115f},   {0x1ab0, 0x1aff},
    {0x1dc0, 0x1dff},   {0x200b, 0x200f},   {0x2028, 0x202e},   {0x2060, 0x206f},
    {0x20d0, 0x20ff},   {0x231a, 0x231b},   {0x2329, 0x232a},   {0x23e9, 0x23ec},
    {0x25fd, 0x25fe},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x26aa, 0x26ab},
    {0x26bd, 0x26be},   {0x26f2, 0x26f5},   {0x2705, 0x2705},   {0x270a, 0x270b},
    {0x274c, 0x274c},   {0x2753, 0x2757},   {0x2795, 0x2797},   {0x2e80, 0x303e},
    {0x3041, 0x33ff},   {0x3400, 0x4dbf},   {0x4e00, 0x9fff},   {0xa000, 0xa4cf},
    {0xa960, 0xa97f},   {0xac00, 0xd7a3},   {0xf900, 0xfaff},   {0xfe00, 0xfe0f},
    {0xfe10, 0xfe19},   {0xfe20, 0xfe2f},   {0xfe30, 0xfe6f},   {0xfeff, 0xfeff},
    {0xff00, 0xff60},   {0xffe0, 0xffe6},   {0x16fe0, 0x16fe4}, {0x17000, 0x18cff},
    {0x1b000, 0x1b2ff}, {0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e},
    {0x1f191, 0x1f19a}, {0x1f200, 0x1f2ff}, {0x1f300, 0x1f64f}, {0x1f680, 0x1f6ff},
    {0x1f7e0, 0x1f7eb}, {0x1f90c, 0x1f9ff}, {0x1fa70, 0x1faff}, {0x20000, 0x3fffd},
    {0xe0000, 0xe0fff},
};

static int
one_column(unsigned cp)
{
    size_t n = sizeof(NOT_ONE_COLUMN) / sizeof(NOT_ONE_COLUMN[0]);

    if (cp < 0x300)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (cp >= NOT_ONE_COLUMN[i].lo && cp <= NOT_ONE_COLUMN[i].hi)
            return 0;
    return 1;
}

/*
 * Copies the character at *s into out (a cell's ch) and advances *s. A
 * malformed byte, a control character or a character that is not one
 * column wide still takes one cell, as '?' (tab and newline as ' '), so
 * what a test counts is what the terminal shows.
 */
static void
next_char(const char **s, char out[8])
{
    const unsigned char *p = (const unsigned char *)*s;
    long cp;
    int n = text_utf8(*s, &cp);

    if (n == 0) {
        /* One '?' for a cut sequence, as terminals show it: its continuations go with it. */
        int skip = 1, want = text_utf8_lead(p[0]);

        while (skip < want && (p[skip] & 0xc0) == 0x80)
            skip++;
        strcpy(out, "?");
        *s += skip;
        return;
    }
    *s += n;
    if (cp == '\t' || cp == '\n' || cp == '\r')
        strcpy(out, " ");
    else if (text_is_control(cp) || !one_column((unsigned)cp))
        strcpy(out, "?");
    else {
        memcpy(out, p, (size_t)n);
        out[n] = '\0';
    }
}

static struct cell *
cell_at(struct grid *g, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->w || y >= g->h)
        return NULL;
    return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

static void
put_ch(struct grid *g, int x, int y, enum style st, const char *ch)
{
    struct cell *c = cell_at(g, x, y);

    if (c == NULL)
        return;
    snprintf(c->ch, sizeof(c->ch), "%s", ch);
    c->style = (unsigned char)st;
}

struct grid *
grid_new(int w, int h)
{
    struct grid *g = xmalloc(sizeof(*g));

    g->w = w > 0 ? w : 0;
    g->h = h > 0 ? h : 0;
    g->cells = xcalloc((size_t)g->w * (size_t)g->h, sizeof(*g->cells));
    return g;
}

void
grid_free(struct grid *g)
{
    if (g == NULL)
        return;
    free(g->cells);
    free(g);
}

void
grid_clear(struct grid *g)
{
    memset(g->cells, 0, (size_t)g->w * (size_t)g->h * sizeof(*g->cells));
}

void
grid_fill(struct grid *g, struct rect r, enum style st)
{
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++)
            put_ch(g, x, y, st, "");
}

int
grid_put(struct grid *g, int x, int y, int max_w, enum style st, const char *text)
{
    int end = max_w < 0 || x + max_w > g->w ? g->w : x + max_w;
    int n = 0;
    char ch[8];

    if (y < 0 || y >= g->h || text == NULL)
        return 0;
    /* Left of the grid: consume the characters without drawing them. */
    for (; *text != '\0' && x < end; x++) {
        next_char(&text, ch);
        if (x >= 0) {
            put_ch(g, x, y, st, ch);
            n++;
        }
    }
    return n;
}

int
grid_printf(struct grid *g, int x, int y, int max_w, enum style st, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return grid_put(g, x, y, max_w, st, buf);
}

void
grid_box(struct grid *g, struct rect r, const char *title, int utf8)
{
    const char *hz = utf8 ? "─" : "-";
    const char *vt = utf8 ? "│" : "|";
    int x1 = r.x + r.w - 1, y1 = r.y + r.h - 1;

    if (r.w < 2 || r.h < 2)
        return;
    for (int x = r.x + 1; x < x1; x++) {
        put_ch(g, x, r.y, ST_BORDER, hz);
        put_ch(g, x, y1, ST_BORDER, hz);
    }
    for (int y = r.y + 1; y < y1; y++) {
        put_ch(g, r.x, y, ST_BORDER, vt);
        put_ch(g, x1, y, ST_BORDER, vt);
    }
    put_ch(g, r.x, r.y, ST_BORDER, utf8 ? "┌" : "+");
    put_ch(g, x1, r.y, ST_BORDER, utf8 ? "┐" : "+");
    put_ch(g, r.x, y1, ST_BORDER, utf8 ? "└" : "+");
    put_ch(g, x1, y1, ST_BORDER, utf8 ? "┘" : "+");
    /* "┌─ title ─┐": the title keeps a corner and a dash on each side. */
    if (title != NULL && title[0] != '\0' && r.w >= 7)
        grid_printf(g, r.x + 2, r.y, r.w - 4, ST_TITLE, " %s ", title);
}

void
grid_row_text(const struct grid *g, int y, char *buf, size_t len)
{
    size_t n = 0;

    if (len == 0)
        return;
    for (int x = 0; y >= 0 && y < g->h && x < g->w; x++) {
        const char *ch = g->cells[(size_t)y * (size_t)g->w + (size_t)x].ch;
        size_t k = ch[0] != '\0' ? strnlen(ch, sizeof(g->cells[0].ch) - 1) : 1;

        if (n + k >= len)
            break;
        memcpy(buf + n, ch[0] != '\0' ? ch : " ", k);
        n += k;
    }
    buf[n] = '\0';
}

const struct cell *
grid_at(const struct grid *g, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->w || y >= g->h)
        return NULL;
    return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

void
grid_put_run(struct grid *g, int *x, int y, int end, enum style st, const char *text)
{
    if (*x < end)
        *x += grid_put(g, *x, y, end - *x, st, text);
}
