/*
 * text: what benchtop prints of text it did not write (server replies,
 * error messages, file names) is made safe here, once: UTF-8 decoding,
 * escaping of control and malformed bytes for terminals, and JSON strings.
 */
#ifndef BENCHTOP_TEXT_H
#define BENCHTOP_TEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * The UTF-8 sequence at s: its length (1-4) with *cp its code point, or 0
 * if the bytes there are not a well-formed sequence (overlong, surrogate,
 * cut short, above U+10FFFF).
 */
int text_utf8(const char *s, long *cp);
/* Length of the UTF-8 sequence a lead byte starts, 0 if it cannot start one. */
int text_utf8_lead(unsigned char c);
/* A code point a terminal acts on instead of showing: C0, DEL, C1. */
int text_is_control(long cp);
/*
 * Copies src into dst (size len, always terminated) with every control
 * character and every malformed byte written as \xHH, so that no escape
 * sequence from a server reaches the terminal. Cuts at a whole escape.
 */
void text_clean(char *dst, size_t len, const char *src);
/* text_clean, but a src that does not fit ends in "…" after its last whole character. */
void text_clean_cut(char *dst, size_t len, const char *src);
/* A statement on one line: newlines and tabs as spaces, runs of spaces as one (not escaped). */
void text_one_line(char *dst, size_t len, const char *q);
/*
 * Copies the n bytes at src into dst (size len, always terminated) for a
 * one-line message: printable ASCII as it is, every other byte as '.'.
 * Returns how many bytes it copied (fewer than n: cut to fit).
 */
size_t text_ascii(char *dst, size_t len, const char *src, size_t n);
/* Where text_put writes to. */
enum text_mode {
    TEXT_TERM,     /* a terminal or a text file: control and malformed bytes as \xHH */
    TEXT_MARKDOWN, /* ... and | < > & as \| &lt; &gt; &amp;: no HTML, no broken table */
    TEXT_HTML,     /* ... and & < > " ' as entities: element text and attribute values */
};
/* Writes src to f made safe for mode, whatever its length. */
void text_put(FILE *f, const char *src, enum text_mode mode);
/* Writes src as a JSON string literal: valid UTF-8, malformed bytes as U+FFFD. */
void text_json(FILE *f, const char *src);
/*
 * Another session's statement as a record keeps it: its first word and a
 * digest of the whole ("UPDATE #3f2a9c"), so that a record (0644, copied
 * around) holds none of its literals yet equal statements still match.
 */
void text_sql_digest(char *dst, size_t len, const char *sql);
/*
 * text_json of src with the statement sql in it digested (text_sql_digest);
 * src as is when sql is NULL, empty or not in it.
 */
void text_json_sql(FILE *f, const char *src, const char *sql);

#endif
