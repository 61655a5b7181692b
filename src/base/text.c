/* text: safe printing of foreign text (see text.h). */
#include "text.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

int
text_utf8_lead(unsigned char c)
{
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return 2;
    if (c >= 0xe0 && c <= 0xef)
        return 3;
    if (c >= 0xf0 && c <= 0xf4)
        return 4;
    return 0;
}

int
text_utf8(const char *str, long *cp)
{
    static const long MIN_FOR_LEN[] = {0, 0, 0x80, 0x800, 0x10000};
    const unsigned char *s = (const unsigned char *)str;
    int n = text_utf8_lead(s[0]);
    long v;

    if (n == 0)
        return 0;
    v = n == 1 ? s[0] : s[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < MIN_FOR_LEN[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

int
text_is_control(long cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

size_t
text_ascii(char *dst, size_t len, const char *src, size_t n)
{
    size_t i;

    for (i = 0; i < n && i + 1 < len; i++)
        dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '.';
    dst[i] = '\0';
    return i;
}

/* text_clean's work; 1 when the whole of src went in, 0 when it was cut. */
static int
clean_into(char *dst, size_t len, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t j = 0;
    long cp;

    while (*src) {
        int n = text_utf8(src, &cp);
        if (n > 0 && !text_is_control(cp)) {
            if (j + (size_t)n >= len)
                break;
            memcpy(dst + j, src, (size_t)n);
            j += (size_t)n;
            src += n;
            continue;
        }
        n = n > 0 ? n : 1;
        if (j + 4 * (size_t)n >= len)
            break;
        for (int i = 0; i < n; i++, src++) {
            unsigned char ch = (unsigned char)*src;
            dst[j++] = '\\';
            dst[j++] = 'x';
            dst[j++] = hex[ch >> 4];
            dst[j++] = hex[ch & 15];
        }
    }
    dst[j] = '\0';
    return *src == '\0';
}

void
text_clean(char *dst, size_t len, const char *src)
{
    if (len > 0)
        clean_into(dst, len, src);
}

void
text_clean_cut(char *dst, size_t len, const char *src)
{
    static const char ellipsis[] = "\u2026";

    if (len < sizeof ellipsis) {
        text_clean(dst, len, src);
        return;
    }
    if (clean_into(dst, len, src))
        return;
    clean_into(dst, len - (sizeof ellipsis - 1), src);
    strcat(dst, ellipsis);
}

/* The entity or escape of a character that means something in mode; NULL if none. */
static const char *
text_special(long cp, enum text_mode mode)
{
    if (mode == TEXT_TERM)
        return NULL;
    switch (cp) {
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '&':
        return "&amp;";
    case '|':
        return mode == TEXT_MARKDOWN ? "\\|" : NULL;
    case '"':
        return mode == TEXT_HTML ? "&quot;" : NULL;
    case '\'':
        return mode == TEXT_HTML ? "&#39;" : NULL;
    default:
        return NULL;
    }
}

void
text_put(FILE *f, const char *src, enum text_mode mode)
{
    long cp;

    while (*src) {
        int n = text_utf8(src, &cp);
        const char *special = n > 0 ? text_special(cp, mode) : NULL;
        if (n > 0 && text_is_control(cp) == 0) {
            if (special)
                fputs(special, f);
            else
                fwrite(src, 1, (size_t)n, f);
            src += n;
            continue;
        }
        for (n = n > 0 ? n : 1; n > 0; n--, src++)
            fprintf(f, "\\x%02x", (unsigned char)*src);
    }
}

void
text_json(FILE *f, const char *src)
{
    long cp;

    fputc('"', f);
    while (*src) {
        int n = text_utf8(src, &cp);
        if (n == 0) {
            fputs("\\ufffd", f);
            src++;
        } else if (cp == '"' || cp == '\\') {
            fprintf(f, "\\%c", (int)cp);
        } else if (text_is_control(cp)) {
            fprintf(f, "\\u%04lx", cp);
        } else {
            fwrite(src, 1, (size_t)n, f);
        }
        src += n;
    }
    fputc('"', f);
}

void
text_sql_digest(char *dst, size_t len, const char *sql)
{
    uint32_t h = 2166136261u; /* FNV-1a: short, stable across runs and hosts */
    const char *p = sql, *w;

    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    while (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '(')
        sql++;
    for (w = sql; w - sql < 16 && isalpha((unsigned char)*w); w++)
        ;
    if (w == sql)
        snprintf(dst, len, "#%06x", (unsigned)(h & 0xffffff));
    else
        snprintf(dst, len, "%.*s #%06x", (int)(w - sql), sql, (unsigned)(h & 0xffffff));
}

/* Where sql is in src, and its length there: whole, or cut short by a truncated src. */
static const char *
sql_find(const char *src, const char *sql, size_t *len)
{
    char head[13];
    const char *p = strstr(src, sql);

    *len = strlen(sql);
    if (p != NULL)
        return p;
    snprintf(head, sizeof head, "%s", sql);
    p = strstr(src, head);
    if (p != NULL) /* to the end of its part of a " | "-joined text */
        *len = strstr(p, " | ") != NULL ? (size_t)(strstr(p, " | ") - p) : strlen(p);
    return p;
}

void
text_json_sql(FILE *f, const char *src, const char *sql)
{
    char buf[1024], digest[32];
    const char *p;
    size_t len;

    if (sql == NULL || sql[0] == '\0' || (p = sql_find(src, sql, &len)) == NULL) {
        text_json(f, src);
        return;
    }
    text_sql_digest(digest, sizeof digest, sql);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - src), src, digest, p + len);
    text_json(f, buf);
}

void
text_one_line(char *dst, size_t len, const char *q)
{
    size_t n = 0;

    for (; *q && n + 1 < len; q++) {
        char ch = *q == '\n' || *q == '\r' || *q == '\t' ? ' ' : *q;

        if (ch == ' ' && (n == 0 || dst[n - 1] == ' '))
            continue;
        dst[n++] = ch;
    }
    dst[n] = '\0';
}
