/*
 * util: checked allocation, secret wiping, eventfd posting, time, and the
 * two ways a run ends early.
 *
 * Owns nothing global. Every allocation in benchtop goes through the
 * x-functions so a failure is reported once, here, instead of at each call.
 */
#ifndef BENCHTOP_UTIL_H
#define BENCHTOP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define BT_ERRLEN 512

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/*
 * Room for one more of an array of n elements of size bytes whose capacity
 * is *cap: p itself while n < *cap, else p grown (64 at first, then twice).
 */
void *xgrow(void *p, int n, int *cap, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Wipes a string that may hold a password (explicit_bzero: not dropped by the compiler), then frees
 * it. */
void free_secret(char *s);

/* Adds one to an eventfd counter (wakes its reader); a failed write is fatal. */
void eventfd_post(int fd);

/* A non-blocking connect's outcome: 0, or the socket's pending error (SO_ERROR). */
int socket_error(int fd);

struct iovec;
/*
 * sent bytes of iov[at..n) went out: the iovecs fully sent are passed, the
 * one cut is advanced in place; returns the first not fully sent (n: all).
 */
int iov_advance(struct iovec *iov, int at, int n, size_t sent);

/* Monotonic clock in microseconds. */
uint64_t now_us(void);
/*
 * A count read as a double (a record's figure) as a uint64_t, rounded:
 * NAN and below 0 give 0, 2^64 and above UINT64_MAX (a cast would be
 * undefined there: UBSan caught a p99 of 1.8e19 in report --html).
 */
uint64_t u64_of(double x);
/* Seconds since the epoch (CLOCK_REALTIME), for wall-clock times a person or another host reads. */
double wall_now(void);

/* A user error: one line "benchtop: MESSAGE" on stderr (escaped: text_clean), exit code 2. */
void usage_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The same line, for a caller that must clean up first; returns 2 (the exit code). */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A state that cannot happen: message and abort. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Writes a formatted message into err (size BT_ERRLEN); returns -1 for "return seterr(...)". */
int seterr(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Big-endian 32-bit fields of wire formats (memcached's binary protocol, HdrHistogram's encoding).
 */
void be32_put(unsigned char *p, uint32_t v);
uint32_t be32_get(const unsigned char *p);

/* First line of a (possibly multi-line) library message, trimmed and escaped (text_clean). */
void first_line(char *dst, size_t dstlen, const char *src);

/*
 * Strict numbers, as memcached's safe_strtoull family: the whole of the
 * text is the number (no spaces, no trailing characters, no sign on an
 * unsigned), it did not overflow, and it is in [lo, hi] where a range is
 * given. 0 with *out set, or -1 with *out untouched. The "n" forms read
 * s[0..n), which need not end with a NUL (a field of a server's reply).
 */
int safe_strntoull(const char *s, size_t n, uint64_t *out);
int safe_strtoull(const char *s, uint64_t *out);
int safe_strtoll(const char *s, long long *out);
/*
 * v in decimal at the end of tmp (24 bytes), NUL-terminated; returns where it
 * starts. No printf: a per-transaction path (a statement's parameters) stays cheap.
 */
const char *i64_dec(int64_t v, char *tmp);
/* A finite decimal or exponent number ("0.25", "1e-3"); no hex, inf or nan. */
int safe_strtod(const char *s, double *out);
/* safe_strtod's number, or NAN when s is NULL or not one (a server's optional figure). */
double str_num_or_nan(const char *s);
int safe_strntod(const char *s, size_t n, double *out);

/* The index of name in a NULL-terminated names array, or -1. */
int str_index(const char *const *names, const char *name);
/* The same for the len bytes at name (not NUL-terminated). */
int str_index_n(const char *const *names, const char *name, size_t len);

#endif
