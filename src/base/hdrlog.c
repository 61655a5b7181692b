/*
 * hdrlog: HdrHistogram's V2 encoding (see hdrlog.h). Layout, all
 * big-endian: the compressed form is a cookie, the deflated length and the
 * zlib stream; inflated, a 40-byte header (cookie, payload length,
 * normalizing offset, significant digits, lowest, highest, conversion
 * ratio) then the counts as ZigZag LEB128 varints, a run of zeros written
 * as its negated length.
 */
#include "hdrlog.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "util.h"

enum {
    ENCODING_COOKIE = 0x1c849303 | 0x10,   /* V2, word size 8 */
    COMPRESSED_COOKIE = 0x1c849304 | 0x10, /* "HISTF" in base64 */
    COOKIE_BASE_MASK = ~0xf0,
    HEADER_LEN = 40,
    SIG_DIGITS = 3,
    MAX_VARINT = 9,
};

#define HIGHEST_TRACKABLE 4294967295LL /* 2^32-1: the layout of src/base/hist.c */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void
put64(unsigned char *p, uint64_t v)
{
    be32_put(p, (uint32_t)(v >> 32));
    be32_put(p + 4, (uint32_t)v);
}

static uint64_t
get64(const unsigned char *p)
{
    return (uint64_t)be32_get(p) << 32 | be32_get(p + 4);
}

/* HdrHistogram's ZigZag LEB128: 7 bits a byte, the ninth byte holds 8. */
static size_t
varint_put(unsigned char *p, int64_t signed_value)
{
    uint64_t v = ((uint64_t)signed_value << 1) ^ (uint64_t)(signed_value >> 63);
    size_t n = 0;

    while (n < MAX_VARINT - 1 && v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

/* Bytes read, or 0 when the varint runs past end. */
static size_t
varint_get(const unsigned char *p, const unsigned char *end, int64_t *out)
{
    uint64_t v = 0;
    size_t n = 0;

    for (;;) {
        if (p + n >= end)
            return 0;
        unsigned char b = p[n];
        if (n == MAX_VARINT - 1) {
            v |= (uint64_t)b << 56;
            n++;
            break;
        }
        v |= (uint64_t)(b & 0x7f) << (7 * n);
        n++;
        if (!(b & 0x80))
            break;
    }
    *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    return n;
}

static char *
base64_encode(const unsigned char *in, size_t len)
{
    char *out = xmalloc((len + 2) / 3 * 4 + 1), *o = out;
    size_t i;

    for (i = 0; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *o++ = b64chars[v >> 18];
        *o++ = b64chars[(v >> 12) & 63];
        *o++ = b64chars[(v >> 6) & 63];
        *o++ = b64chars[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0);
        *o++ = b64chars[v >> 18];
        *o++ = b64chars[(v >> 12) & 63];
        *o++ = i + 1 < len ? b64chars[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

/* A base64 character's value (b64chars' index, without a search per character), or -1. */
static int
b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/*
 * Decoded length, or -1 on a character outside the alphabet or anything
 * after the padding: the text goes on into --hlog files as it is, so a
 * newline there would be a line of its own.
 */
static long
base64_decode(const char *in, unsigned char *out)
{
    uint32_t acc = 0;
    int bits = 0;
    long n = 0;
    const char *pad = in + strcspn(in, "=");

    if (strspn(pad, "=") > 2 || pad[strspn(pad, "=")] != '\0')
        return -1;
    for (; *in && *in != '='; in++) {
        int v = b64_value(*in);
        if (v < 0)
            return -1;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    return n;
}

/* The uncompressed encoding of h into buf (room for the worst case); its length. */
static size_t
encode_raw(const struct hist *h, unsigned char *buf)
{
    unsigned char *p = buf + HEADER_LEN;
    int lo, hi, i;

    hist_touched(h, &lo, &hi);
    for (i = 0; i <= hi;) {
        uint64_t c = i < lo ? 0 : hist_bucket(h, i);
        int zeros = 0;
        if (c == 0) {
            while (i <= hi && (i < lo || hist_bucket(h, i) == 0)) {
                zeros++;
                i++;
            }
            p += varint_put(p, zeros > 1 ? -(int64_t)zeros : 0);
            continue;
        }
        p += varint_put(p, (int64_t)c);
        i++;
    }
    be32_put(buf, ENCODING_COOKIE);
    be32_put(buf + 4, (uint32_t)(p - buf - HEADER_LEN));
    be32_put(buf + 8, 0);
    be32_put(buf + 12, SIG_DIGITS);
    put64(buf + 16, 1);
    put64(buf + 24, HIGHEST_TRACKABLE);
    put64(buf + 32, 0x3ff0000000000000ULL); /* 1.0: integer values */
    return (size_t)(p - buf);
}

char *
hdrlog_encode(const struct hist *h)
{
    int lo, hi;
    hist_touched(h, &lo, &hi);
    size_t cap = HEADER_LEN + (size_t)(hi < 0 ? 1 : hi + 1) * MAX_VARINT;
    unsigned char *raw = xmalloc(cap);
    size_t rawlen = encode_raw(h, raw);
    uLongf zlen = compressBound(rawlen);
    unsigned char *z = xmalloc(8 + zlen);
    char *out;

    if (compress(z + 8, &zlen, raw, rawlen) != Z_OK)
        fatal("zlib could not deflate %zu bytes", rawlen);
    be32_put(z, COMPRESSED_COOKIE);
    be32_put(z + 4, (uint32_t)zlen);
    out = base64_encode(z, 8 + zlen);
    free(raw);
    free(z);
    return out;
}

static int
decode_counts(const unsigned char *p, const unsigned char *end, struct hist *h, char *err)
{
    int idx = 0, n = hist_nbuckets();
    int64_t v;
    size_t used;

    while (p < end) {
        if ((used = varint_get(p, end, &v)) == 0)
            return seterr(err, "histogram counts end inside a number");
        p += used;
        if (v < 0) {
            idx += (int)(v < -n ? n + 1 : -v);
            continue;
        }
        if (idx >= n)
            return seterr(err, "histogram counts go beyond 2^32 us");
        hist_bucket_add(h, idx++, (uint64_t)v);
    }
    return 0;
}

/* raw is the inflated encoding. */
static int
decode_raw(const unsigned char *raw, size_t len, struct hist *h, char *err)
{
    if (len < HEADER_LEN || (be32_get(raw) & COOKIE_BASE_MASK) != (0x1c849303 & COOKIE_BASE_MASK))
        return seterr(err, "not an HdrHistogram V2 encoding");
    if (be32_get(raw + 12) != SIG_DIGITS || get64(raw + 16) != 1 || be32_get(raw + 8) != 0)
        return seterr(err, "HdrHistogram encoding with a layout other than benchtop's "
                           "(lowest 1, 3 digits)");
    if ((size_t)be32_get(raw + 4) > len - HEADER_LEN)
        return seterr(err, "histogram encoding is truncated");
    return decode_counts(raw + HEADER_LEN, raw + HEADER_LEN + be32_get(raw + 4), h, err);
}

int
hdrlog_decode(const char *b64, struct hist *h, char *err)
{
    size_t len = strlen(b64);
    unsigned char *z = xmalloc(len / 4 * 3 + 3);
    long zlen = base64_decode(b64, z);
    uLongf rawlen = HEADER_LEN + (uLongf)hist_nbuckets() * MAX_VARINT;
    unsigned char *raw = xmalloc(rawlen);
    int rv = -1;

    if (zlen < 8 || be32_get(z) != COMPRESSED_COOKIE || be32_get(z + 4) > (uint32_t)zlen - 8)
        seterr(err, "not a compressed HdrHistogram V2 histogram (base64 \"HISTF...\")");
    else if (uncompress(raw, &rawlen, z + 8, be32_get(z + 4)) != Z_OK)
        seterr(err, "histogram does not inflate (corrupt record?)");
    else
        rv = decode_raw(raw, rawlen, h, err);
    free(z);
    free(raw);
    return rv;
}

void
hdrlog_write_header(FILE *f, double start_epoch)
{
    time_t t = (time_t)start_epoch;
    char when[64];

    strftime(when, sizeof when, "%a %b %d %H:%M:%S UTC %Y", gmtime(&t));
    fprintf(f, "#[Histogram log format version 1.3]\n");
    fprintf(f, "#[benchtop: latency in microseconds; Interval_Max in milliseconds]\n");
    fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch, when);
    fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch);
    fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
               "\"Interval_Compressed_Histogram\"\n");
}

void
hdrlog_write_interval(FILE *f, double start_s, double len_s, uint64_t max_us, const char *b64)
{
    fprintf(f, "%.3f,%.3f,%.3f,%s\n", start_s, len_s, (double)max_us / 1000.0, b64);
}

void
hdrlog_write_json(FILE *f, const struct hist *h)
{
    char *b64 = hdrlog_encode(h);

    fprintf(
        f, ",\"hist_us\":{\"min\":%llu,\"max\":%llu,\"sum\":%llu,\"overflow\":%llu,\"hdr\":\"%s\"}",
        (unsigned long long)hist_min(h), (unsigned long long)hist_max(h),
        (unsigned long long)hist_sum(h), (unsigned long long)hist_overflow(h), b64);
    free(b64);
}
