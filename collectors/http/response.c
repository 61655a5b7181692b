/*
 * response: the incremental HTTP/1.x response parser (response.h).
 */
#include "response.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"

enum hr_state {
    ST_STATUS,      /* the status line (or empty lines before it) */
    ST_HEADER,      /* header lines up to the empty one */
    ST_BODY,        /* remaining bytes of a Content-Length body */
    ST_UNTIL_CLOSE, /* a body without length: it ends with the connection */
    ST_CHUNK_SIZE,  /* a chunk's size line */
    ST_CHUNK_DATA,  /* remaining bytes of a chunk */
    ST_CHUNK_END,   /* the CRLF after a chunk's data */
    ST_TRAILER,     /* trailer lines after the last chunk, up to the empty one */
    ST_DONE,
};

/* Lengths beyond this are refused: no web page is an exabyte, and sums stay far from overflow. */
#define HR_MAX_LENGTH (UINT64_C(1) << 60)

void
hr_begin(struct hr_parser *p, int head)
{
    memset(p, 0, sizeof *p);
    p->state = ST_STATUS;
    p->head = head;
}

int
hr_started(const struct hr_parser *p)
{
    return p->state != ST_STATUS || p->bytes > 0;
}

int
hr_eof(struct hr_parser *p)
{
    if (p->state != ST_UNTIL_CLOSE)
        return 0;
    p->state = ST_DONE;
    return 1;
}

/* "HTTP/1.x SSS reason": the version's minor digit and the status. */
static int
status_line(struct hr_parser *p, const char *s, size_t n, char *err)
{
    if (n < 12 || memcmp(s, "HTTP/1.", 7) != 0 || s[7] < '0' || s[7] > '9' || s[8] != ' ' ||
        s[9] < '1' || s[9] > '5' || s[10] < '0' || s[10] > '9' || s[11] < '0' || s[11] > '9' ||
        (n > 12 && s[12] != ' '))
        return seterr(err, "the server's reply does not start with an HTTP/1.x status line: '%.*s'",
                      (int)(n < 40 ? n : 40), s);
    p->minor = s[7] - '0';
    p->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
    p->keep_alive = p->minor >= 1;
    p->chunked = p->has_length = 0;
    p->state = ST_HEADER;
    return 0;
}

/* The value without the blanks around it. */
static void
trim(const char **v, size_t *n)
{
    while (*n > 0 && (**v == ' ' || **v == '\t')) {
        (*v)++;
        (*n)--;
    }
    while (*n > 0 && ((*v)[*n - 1] == ' ' || (*v)[*n - 1] == '\t'))
        (*n)--;
}

static int
content_length(struct hr_parser *p, const char *v, size_t n, char *err)
{
    uint64_t len = 0;
    size_t i;

    for (i = 0; i < n && v[i] >= '0' && v[i] <= '9' && len < HR_MAX_LENGTH; i++)
        len = len * 10 + (uint64_t)(v[i] - '0');
    if (n == 0 || i != n || len >= HR_MAX_LENGTH)
        return seterr(err, "the server sent a Content-Length that is not a length: '%.*s'",
                      (int)(n < 40 ? n : 40), v);
    if (p->has_length && len != p->length)
        return seterr(err, "the server sent two different Content-Length headers");
    p->has_length = 1;
    p->length = len;
    return 0;
}

/* Connection: a list of tokens; close ends the connection, keep-alive keeps an HTTP/1.0 one. */
static void
connection(struct hr_parser *p, const char *v, size_t n)
{
    const char *end = v + n, *tok, *comma;
    size_t len;

    for (tok = v; tok < end; tok = comma + 1) {
        comma = memchr(tok, ',', (size_t)(end - tok));
        if (comma == NULL)
            comma = end;
        len = (size_t)(comma - tok);
        trim(&tok, &len);
        if (len == 5 && strncasecmp(tok, "close", 5) == 0)
            p->keep_alive = -1; /* close wins over keep-alive whatever their order */
        else if (len == 10 && strncasecmp(tok, "keep-alive", 10) == 0 && p->keep_alive == 0)
            p->keep_alive = 1;
    }
}

static int
header_line(struct hr_parser *p, const char *s, size_t n, char *err)
{
    const char *colon = memchr(s, ':', n), *v;
    size_t name, vn;

    if (colon == NULL || colon == s)
        return s[0] == ' ' || s[0] == '\t'
                   ? 0 /* an obsolete folded continuation: part of a header we skip or refuse */
                   : seterr(err, "the server sent a header line without a name: '%.*s'",
                            (int)(n < 40 ? n : 40), s);
    name = (size_t)(colon - s);
    v = colon + 1;
    vn = n - name - 1;
    trim(&v, &vn);
    if (name == 14 && strncasecmp(s, "content-length", 14) == 0)
        return content_length(p, v, vn, err);
    if (name == 17 && strncasecmp(s, "transfer-encoding", 17) == 0)
        p->chunked = vn >= 7 && strncasecmp(v + vn - 7, "chunked", 7) == 0 ? 1 : -1;
    else if (name == 10 && strncasecmp(s, "connection", 10) == 0)
        connection(p, v, vn);
    return 0;
}

/* The empty line after the headers: what frames the body. */
static int
headers_end(struct hr_parser *p, char *err)
{
    if (p->status == 101)
        return seterr(err, "the server switched protocols (101): benchtop speaks HTTP/1.x only");
    if (p->status < 200) { /* 100 Continue, 103 Early Hints: the real response follows */
        p->state = ST_STATUS;
        return 0;
    }
    if (p->keep_alive < 0)
        p->keep_alive = 0;
    if (p->head || p->status == 204 || p->status == 304)
        p->state = ST_DONE;
    else if (p->chunked > 0)
        p->state = ST_CHUNK_SIZE;
    else if (p->has_length && p->chunked == 0)
        p->state = p->length > 0 ? ST_BODY : ST_DONE;
    else
        p->state = ST_UNTIL_CLOSE; /* no length (or a coding other than chunked): to the close */
    p->remaining = p->length;
    if (p->state == ST_UNTIL_CLOSE)
        p->keep_alive = 0;
    return 0;
}

/* "1a2b[;ext]": a chunk's size in hex. */
static int
chunk_size(struct hr_parser *p, const char *s, size_t n, char *err)
{
    uint64_t size = 0;
    size_t i;
    int d;

    for (i = 0; i < n && size < HR_MAX_LENGTH; i++) {
        char ch = s[i];
        d = ch >= '0' && ch <= '9'   ? ch - '0'
            : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
            : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                     : -1;
        if (d < 0)
            break;
        size = size * 16 + (uint64_t)d;
    }
    if (i == 0 || size >= HR_MAX_LENGTH || (i < n && s[i] != ';' && s[i] != ' ' && s[i] != '\t'))
        return seterr(err, "the server sent a chunk size that is not hex: '%.*s'",
                      (int)(n < 40 ? n : 40), s);
    p->remaining = size;
    p->state = size > 0 ? ST_CHUNK_DATA : ST_TRAILER;
    return 0;
}

/* One complete line (without its CR LF) in the state that reads lines. */
static int
take_line(struct hr_parser *p, const char *s, size_t n, char *err)
{
    switch (p->state) {
    case ST_STATUS:
        return n == 0 ? 0 : status_line(p, s, n, err);
    case ST_HEADER:
        return n == 0 ? headers_end(p, err) : header_line(p, s, n, err);
    case ST_CHUNK_SIZE:
        return chunk_size(p, s, n, err);
    case ST_CHUNK_END:
        if (n != 0)
            return seterr(err, "the server's chunk is longer than its size said");
        p->state = ST_CHUNK_SIZE;
        return 0;
    case ST_TRAILER:
        if (n == 0)
            p->state = ST_DONE;
        return 0;
    default:
        return seterr(err, "http response parser: no line expected here");
    }
}

/* Body bytes skipped in place: how many of the avail given were taken. */
static size_t
skip_body(struct hr_parser *p, size_t avail)
{
    size_t take;

    if (p->state == ST_UNTIL_CLOSE)
        return avail;
    take = p->remaining < avail ? (size_t)p->remaining : avail;
    p->remaining -= take;
    if (p->remaining == 0)
        p->state = p->state == ST_BODY ? ST_DONE : ST_CHUNK_END;
    return take;
}

ssize_t
hr_feed(struct hr_parser *p, const char *buf, size_t len, int *done, char *err)
{
    size_t pos = 0, n;
    const char *nl;

    while (pos < len && p->state != ST_DONE) {
        if (p->state == ST_BODY || p->state == ST_CHUNK_DATA || p->state == ST_UNTIL_CLOSE) {
            pos += skip_body(p, len - pos);
            continue;
        }
        nl = memchr(buf + pos, '\n', len - pos);
        if (nl == NULL) {
            if (len - pos > HR_MAX_LINE)
                return seterr(err, "the server sent a line longer than %d bytes", HR_MAX_LINE);
            break;
        }
        n = (size_t)(nl - (buf + pos));
        if (take_line(p, buf + pos, n > 0 && nl[-1] == '\r' ? n - 1 : n, err) < 0)
            return -1;
        pos += n + 1;
    }
    p->bytes += pos;
    *done = p->state == ST_DONE;
    return (ssize_t)pos;
}
