/*
 * response: an incremental HTTP/1.x response parser (pure: no I/O, no
 * allocation). The driver hands it whatever it read; it takes complete
 * lines of the status line, headers, chunk sizes and trailers, and skips
 * body bytes without copying them. A line cut by the end of the buffer is
 * left unconsumed: the driver keeps those bytes and feeds them again with
 * what follows.
 *
 * It knows what decides where a response ends and whether the connection
 * goes on: the status (1xx interim responses skipped, 204 and 304 without
 * a body), Content-Length, Transfer-Encoding: chunked, a body that runs to
 * the connection's close, HTTP/1.0 vs 1.1 and the Connection header, and
 * whether the request was HEAD. Other headers are skipped.
 *
 * Why hand-written: Debian 12 has no llhttp package, and http-parser
 * (libhttp-parser-dev) is archived upstream, has no pkg-config file and
 * calls back per header piece; a response parser that only tracks framing
 * is short, and its unit tests and fuzzer cover it.
 */
#ifndef BENCHTOP_HTTP_RESPONSE_H
#define BENCHTOP_HTTP_RESPONSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HR_MAX_LINE 8192 /* longest status, header, chunk-size or trailer line */

struct hr_parser {
    int state;      /* enum in response.c */
    int head;       /* the request was HEAD: no body whatever the headers say */
    int status;     /* the final status, once its line was read */
    int minor;      /* HTTP/1.minor */
    int keep_alive; /* the connection goes on after this response */
    int chunked;
    int has_length;
    uint64_t length;    /* Content-Length */
    uint64_t remaining; /* body (or chunk) bytes still to skip */
    uint64_t bytes;     /* bytes of this response consumed so far */
};

/* Ready for the next response; head: its request was HEAD. */
void hr_begin(struct hr_parser *p, int head);

/*
 * Takes bytes from buf[0..len): returns how many it consumed (0..len), and
 * sets *done when the response ended at that point (nothing after its end is
 * consumed). -1: not HTTP, with why in err (the connection is out of step).
 */
ssize_t hr_feed(struct hr_parser *p, const char *buf, size_t len, int *done, char *err);

/*
 * The server closed the connection: 1 if that ends the response (a body
 * that runs to the close), 0 if the response was cut short.
 */
int hr_eof(struct hr_parser *p);

/* Whether any byte of the current response was taken yet. */
int hr_started(const struct hr_parser *p);

#endif
