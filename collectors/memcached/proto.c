/*
 * memcached/proto: request templates and reply parsing for the text and
 * the binary protocol (protocol.txt and protocol-binary.xml in memcached's
 * sources). Pure: no I/O, no globals, so tests feed captured bytes split
 * anywhere.
 *
 * A parser never assumes a whole reply is there: it either takes one
 * complete element, says how much more it needs, or says why the bytes
 * cannot be memcached.
 */
#include "memcached.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/shared/kv.h"
#include "base/text.h"

/* A text reply line that is one fixed word. */
struct word_kind {
    const char *word;
    enum mc_kind kind;
};

static const struct word_kind fixed_words[] = {
    {"END", MC_R_END},
    {"STORED", MC_R_STORED},
    {"NOT_STORED", MC_R_NOT_STORED},
    {"EXISTS", MC_R_EXISTS},
    {"NOT_FOUND", MC_R_NOT_FOUND},
    {"ERROR", MC_R_ERROR},
    {"DELETED", MC_R_OTHER},
    {"TOUCHED", MC_R_OTHER},
    {"OK", MC_R_OTHER},
    {"RESET", MC_R_OTHER},
    {NULL, MC_R_OTHER},
};

/* A text reply line that is a word and a message. */
static const struct word_kind message_words[] = {
    {"CLIENT_ERROR", MC_R_CLIENT_ERROR},
    {"SERVER_ERROR", MC_R_SERVER_ERROR},
    {"VERSION", MC_R_VERSION},
    {"ERROR", MC_R_ERROR},
    {NULL, MC_R_OTHER},
};

/* ---- small helpers ---- */

static void
put_be16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static uint16_t
get_be16(const unsigned char *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

/* The start of the next space-separated token in s[*pos..n), its length in *tlen. */
static const char *
next_token(const char *s, size_t n, size_t *pos, size_t *tlen)
{
    size_t i = *pos, start;

    while (i < n && s[i] == ' ')
        i++;
    start = i;
    while (i < n && s[i] != ' ')
        i++;
    *pos = i;
    *tlen = i - start;
    return s + start;
}

static ssize_t
not_memcached(char *err, const char *what, const char *src, size_t n)
{
    char q[61]; /* 60 bytes of what the server sent, made printable */

    text_ascii(q, sizeof q, src, n);
    seterr(err, "%s: \"%s\"", what, q);
    return -1;
}

/* ---- request templates ---- */

static size_t
key_len(int digits)
{
    return KV_KEY_PREFIX_LEN + (size_t)digits;
}

/* "get key:.. key:..\r\n"; remembers where each key's digits are. */
static void
text_get(struct mc_req *r)
{
    size_t klen = key_len(r->digits), at;

    r->head_len = 3 + (size_t)r->nkeys * (klen + 1) + 2;
    r->head = xmalloc(r->head_len + 1);
    memcpy(r->head, "get", 3);
    at = 3;
    for (int i = 0; i < r->nkeys; i++) {
        r->head[at++] = ' ';
        memcpy(r->head + at, KV_KEY_PREFIX, KV_KEY_PREFIX_LEN);
        r->key_at[i] = at + KV_KEY_PREFIX_LEN;
        at += klen;
    }
    memcpy(r->head + at, "\r\n", 3);
}

static void
text_set(struct mc_req *r, size_t value_size)
{
    size_t klen = key_len(r->digits);
    char tail[48];
    int n = snprintf(tail, sizeof tail, " 0 0 %zu\r\n", value_size);

    r->head_len = 4 + klen + (size_t)n;
    r->head = xmalloc(r->head_len + 1);
    memcpy(r->head, "set " KV_KEY_PREFIX, 4 + KV_KEY_PREFIX_LEN);
    r->key_at[0] = 4 + KV_KEY_PREFIX_LEN;
    memcpy(r->head + 4 + klen, tail, (size_t)n + 1);
}

/* One binary request header; the key follows extlen bytes of extras. */
static void
bin_header(unsigned char *h, uint8_t opcode, size_t klen, uint8_t extlen, size_t body)
{
    memset(h, 0, MC_BIN_HEADER);
    h[0] = MC_BIN_REQ;
    h[1] = opcode;
    put_be16(h + 2, (uint16_t)klen);
    h[4] = extlen;
    be32_put(h + 8, (uint32_t)body);
}

/* GET, or GETKQ per key and a NOOP: the server answers hits only, then the NOOP ends the batch. */
static void
bin_get(struct mc_req *r)
{
    size_t klen = key_len(r->digits), one = MC_BIN_HEADER + klen, at = 0;
    int multi = r->op == MC_OP_MULTIGET;

    r->head_len = (size_t)r->nkeys * one + (multi ? MC_BIN_HEADER : 0);
    r->head = xcalloc(r->head_len, 1);
    for (int i = 0; i < r->nkeys; i++) {
        bin_header((unsigned char *)r->head + at, multi ? MC_BIN_GETKQ : MC_BIN_GET, klen, 0, klen);
        memcpy(r->head + at + MC_BIN_HEADER, KV_KEY_PREFIX, KV_KEY_PREFIX_LEN);
        r->key_at[i] = at + MC_BIN_HEADER + KV_KEY_PREFIX_LEN;
        at += one;
    }
    if (multi)
        bin_header((unsigned char *)r->head + at, MC_BIN_NOOP, 0, 0, 0);
}

/* SET with 8 bytes of extras (flags 0, no expiry). */
static void
bin_set(struct mc_req *r, size_t value_size)
{
    size_t klen = key_len(r->digits);

    r->head_len = MC_BIN_HEADER + 8 + klen;
    r->head = xcalloc(r->head_len, 1);
    bin_header((unsigned char *)r->head, MC_BIN_SET, klen, 8, 8 + klen + value_size);
    memcpy(r->head + MC_BIN_HEADER + 8, KV_KEY_PREFIX, KV_KEY_PREFIX_LEN);
    r->key_at[0] = MC_BIN_HEADER + 8 + KV_KEY_PREFIX_LEN;
}

/* ---- text replies ---- */

/* "VALUE key flags bytes [cas]" followed by the data and "\r\n". */
static ssize_t
text_value(const char *buf, size_t len, size_t line_len, struct mc_reply *r, size_t *need,
           char *err)
{
    size_t pos = 6, tlen, total;
    const char *tok;
    uint64_t flags, bytes, cas;

    r->key = next_token(buf, line_len, &pos, &r->key_len);
    tok = next_token(buf, line_len, &pos, &tlen);
    if (r->key_len == 0 || safe_strntoull(tok, tlen, &flags) < 0 || flags > UINT32_MAX)
        return not_memcached(err, "malformed VALUE line", buf, line_len);
    tok = next_token(buf, line_len, &pos, &tlen);
    if (safe_strntoull(tok, tlen, &bytes) < 0 || bytes > MC_MAX_BODY)
        return not_memcached(err, "malformed VALUE length", buf, line_len);
    tok = next_token(buf, line_len, &pos, &tlen);
    if ((tlen > 0 && safe_strntoull(tok, tlen, &cas) < 0) || pos < line_len)
        return not_memcached(err, "malformed VALUE line", buf, line_len);
    r->kind = MC_R_VALUE;
    r->flags = (uint32_t)flags;
    total = line_len + 2 + (size_t)bytes + 2;
    if (len < total) {
        *need = total;
        return 0;
    }
    if (buf[total - 2] != '\r' || buf[total - 1] != '\n')
        return not_memcached(err, "value not followed by \\r\\n", buf, line_len);
    r->data = buf + line_len + 2;
    r->data_len = (size_t)bytes;
    return (ssize_t)total;
}

/* "STAT name value" (the value may contain spaces: `stats settings` has some). */
static ssize_t
text_stat(const char *buf, size_t line_len, struct mc_reply *r, char *err)
{
    size_t pos = 5;

    r->key = next_token(buf, line_len, &pos, &r->key_len);
    if (r->key_len == 0 || pos >= line_len)
        return not_memcached(err, "malformed STAT line", buf, line_len);
    r->kind = MC_R_STAT;
    r->data = buf + pos + 1;
    r->data_len = line_len - pos - 1;
    return (ssize_t)line_len + 2;
}

static int
is_word(const char *buf, size_t line_len, const char *word)
{
    size_t n = strlen(word);

    return line_len == n && memcmp(buf, word, n) == 0;
}

static int
starts_word(const char *buf, size_t line_len, const char *word)
{
    size_t n = strlen(word);

    return line_len > n && memcmp(buf, word, n) == 0 && buf[n] == ' ';
}

/* ---- binary replies ---- */

static enum mc_kind
bin_ok_kind(uint8_t opcode)
{
    switch (opcode) {
    case 0x00: /* GET */
    case 0x09: /* GETQ */
    case 0x0c: /* GETK */
    case 0x0d: /* GETKQ */
        return MC_R_VALUE;
    case 0x01: /* SET, ADD, REPLACE and their quiet forms */
    case 0x02:
    case 0x03:
    case 0x11:
    case 0x12:
    case 0x13:
        return MC_R_STORED;
    case MC_BIN_NOOP:
        return MC_R_END;
    case MC_BIN_VERSION:
        return MC_R_VERSION;
    case MC_BIN_STAT:
        return MC_R_STAT;
    default:
        return MC_R_OTHER;
    }
}

static enum mc_kind
bin_error_kind(uint16_t status)
{
    switch (status) {
    case 0x01:
        return MC_R_NOT_FOUND;
    case 0x02:
        return MC_R_EXISTS;
    case 0x05:
        return MC_R_NOT_STORED;
    case 0x04: /* invalid arguments */
    case 0x06: /* non-numeric value */
    case 0x20: /* authentication */
        return MC_R_CLIENT_ERROR;
    case 0x81:
        return MC_R_ERROR;
    default: /* 0x03 too large, 0x82 out of memory, 0x83 not supported, 0x84 internal, 0x85 busy */
        return MC_R_SERVER_ERROR;
    }
}

/* ---- following one transaction's reply ---- */

static const char *
kind_word(enum mc_kind k)
{
    switch (k) {
    case MC_R_ERROR:
        return "ERROR";
    case MC_R_CLIENT_ERROR:
        return "CLIENT_ERROR";
    case MC_R_SERVER_ERROR:
        return "SERVER_ERROR";
    case MC_R_NOT_STORED:
        return "NOT_STORED";
    case MC_R_EXISTS:
        return "EXISTS";
    case MC_R_NOT_FOUND:
        return "NOT_FOUND";
    default:
        return "unexpected reply";
    }
}

static int
is_error(enum mc_kind k)
{
    return k == MC_R_ERROR || k == MC_R_CLIENT_ERROR || k == MC_R_SERVER_ERROR;
}

/* The server refused the request; the connection stays usable. */
static void
refuse(struct mc_txn *t, const struct mc_reply *r)
{
    const char *w = kind_word(r->kind);

    t->failed = 1;
    if (r->data_len > 0)
        snprintf(t->msg, sizeof t->msg, "%s %.*s", w, (int)r->data_len, r->data);
    else
        snprintf(t->msg, sizeof t->msg, "%s", w);
}

static enum mc_feed
desync(struct mc_txn *t, const char *what)
{
    snprintf(t->msg, sizeof t->msg, "unexpected %s in the reply to a %s (protocol out of step)",
             what, t->op == MC_OP_SET ? "set" : "get");
    return MC_FEED_DESYNC;
}

/* Text: an error line ends any reply; a get is VALUEs and END, a set one status line. */
static enum mc_feed
feed_text(struct mc_txn *t, const struct mc_reply *r)
{
    if (is_error(r->kind)) {
        refuse(t, r);
        return MC_FEED_DONE;
    }
    if (t->op == MC_OP_SET) {
        if (r->kind == MC_R_NOT_STORED || r->kind == MC_R_EXISTS || r->kind == MC_R_NOT_FOUND)
            refuse(t, r);
        else if (r->kind != MC_R_STORED)
            return desync(t, "element");
        return MC_FEED_DONE;
    }
    if (r->kind == MC_R_VALUE)
        return ++t->values > t->nkeys ? desync(t, "extra VALUE") : MC_FEED_MORE;
    if (r->kind != MC_R_END)
        return desync(t, "element");
    t->misses = t->nkeys - t->values;
    return MC_FEED_DONE;
}

/* Binary multiget: GETKQ answers only hits (and errors); the NOOP's answer ends the batch. */
static enum mc_feed
feed_binary_multi(struct mc_txn *t, const struct mc_reply *r)
{
    if (r->opcode == MC_BIN_NOOP) {
        t->misses = t->nkeys - t->values;
        return MC_FEED_DONE;
    }
    if (r->opcode != MC_BIN_GETKQ)
        return desync(t, "opcode");
    if (r->kind == MC_R_VALUE)
        return ++t->values > t->nkeys ? desync(t, "extra value") : MC_FEED_MORE;
    refuse(t, r);
    return MC_FEED_MORE;
}

/* Binary get or set: exactly one packet with the request's opcode. */
static enum mc_feed
feed_binary(struct mc_txn *t, const struct mc_reply *r)
{
    uint8_t want = t->op == MC_OP_SET ? MC_BIN_SET : MC_BIN_GET;

    if (t->op == MC_OP_MULTIGET)
        return feed_binary_multi(t, r);
    if (r->opcode != want)
        return desync(t, "opcode");
    if (t->op == MC_OP_GET && r->kind == MC_R_VALUE)
        t->values = 1;
    else if (t->op == MC_OP_GET && r->kind == MC_R_NOT_FOUND)
        t->misses = 1;
    else if (r->kind != MC_R_STORED || t->op != MC_OP_SET)
        refuse(t, r);
    return MC_FEED_DONE;
}

/* ---- the interface (memcached.h) ---- */

int
mc_key_digits(uint64_t nkeys)
{
    int d = 1;

    for (uint64_t top = nkeys > 0 ? nkeys - 1 : 0; top >= 10; top /= 10)
        d++;
    return d < MC_KEY_MIN_DIGITS ? MC_KEY_MIN_DIGITS : d;
}

void
mc_req_init(struct mc_req *r, enum mc_proto proto, enum mc_op op, int nkeys, int digits,
            const char *value, size_t value_size)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    r->nkeys = op == MC_OP_MULTIGET ? nkeys : 1;
    r->digits = digits;
    r->key_at = xcalloc((size_t)r->nkeys, sizeof *r->key_at);
    if (op == MC_OP_SET && proto == MC_TEXT)
        text_set(r, value_size);
    else if (op == MC_OP_SET)
        bin_set(r, value_size);
    else if (proto == MC_TEXT)
        text_get(r);
    else
        bin_get(r);
    r->iov[0].iov_base = r->head;
    r->iov[0].iov_len = r->head_len;
    r->niov = 1;
    if (op == MC_OP_SET) {
        /* The text protocol ends the data with "\r\n"; the binary one counts it in the header. */
        r->iov[1].iov_base = (void *)value;
        r->iov[1].iov_len = value_size + (proto == MC_TEXT ? 2 : 0);
        r->niov = 2;
    }
    for (int i = 0; i < r->nkeys; i++)
        mc_req_key(r, i, 0);
}

void
mc_req_free(struct mc_req *r)
{
    free(r->head);
    free(r->key_at);
    memset(r, 0, sizeof *r);
}

void
mc_req_key(struct mc_req *r, int i, uint64_t k)
{
    kv_put_digits(r->head + r->key_at[i], r->digits, k);
}

size_t
mc_req_len(const struct mc_req *r)
{
    size_t n = 0;

    for (int i = 0; i < r->niov; i++)
        n += r->iov[i].iov_len;
    return n;
}

ssize_t
mc_text_parse(const char *buf, size_t len, struct mc_reply *r, size_t *need, char *err)
{
    const char *eol = memchr(buf, '\n', len < MC_MAX_LINE ? len : MC_MAX_LINE);
    size_t line_len;

    memset(r, 0, sizeof *r);
    *need = 0;
    if (eol == NULL)
        return len < MC_MAX_LINE ? 0 : not_memcached(err, "reply line too long", buf, len);
    line_len = (size_t)(eol - buf);
    if (line_len == 0 || buf[line_len - 1] != '\r')
        return not_memcached(err, "reply line not ended by \\r\\n", buf, line_len);
    line_len--;
    if (starts_word(buf, line_len, "VALUE"))
        return text_value(buf, len, line_len, r, need, err);
    if (starts_word(buf, line_len, "STAT"))
        return text_stat(buf, line_len, r, err);
    for (const struct word_kind *w = fixed_words; w->word != NULL; w++) {
        if (is_word(buf, line_len, w->word)) {
            r->kind = w->kind;
            return (ssize_t)line_len + 2;
        }
    }
    for (const struct word_kind *w = message_words; w->word != NULL; w++) {
        if (starts_word(buf, line_len, w->word)) {
            r->kind = w->kind;
            r->data = buf + strlen(w->word) + 1;
            r->data_len = line_len - strlen(w->word) - 1;
            return (ssize_t)line_len + 2;
        }
    }
    return not_memcached(err, "not a memcached reply", buf, line_len);
}

ssize_t
mc_bin_parse(const char *buf, size_t len, struct mc_reply *r, size_t *need, char *err)
{
    const unsigned char *h = (const unsigned char *)buf;
    size_t klen, extlen, body;

    memset(r, 0, sizeof *r);
    *need = 0;
    if (len >= 1 && h[0] != MC_BIN_RES)
        return not_memcached(err, "not a binary memcached reply", buf, len < 24 ? len : 24);
    if (len < MC_BIN_HEADER) {
        *need = MC_BIN_HEADER;
        return 0;
    }
    klen = get_be16(h + 2);
    extlen = h[4];
    body = be32_get(h + 8);
    if (h[5] != 0 || body > MC_MAX_BODY || klen + extlen > body)
        return not_memcached(err, "malformed binary reply header", buf, MC_BIN_HEADER);
    if (len < MC_BIN_HEADER + body) {
        *need = MC_BIN_HEADER + body;
        return 0;
    }
    r->opcode = h[1];
    r->status = get_be16(h + 6);
    r->kind = r->status == 0 ? bin_ok_kind(r->opcode) : bin_error_kind(r->status);
    if (r->kind == MC_R_VALUE && extlen >= 4)
        r->flags = be32_get(h + MC_BIN_HEADER);
    r->key = buf + MC_BIN_HEADER + extlen;
    r->key_len = klen;
    r->data = r->key + klen;
    r->data_len = body - extlen - klen;
    return (ssize_t)(MC_BIN_HEADER + body);
}

ssize_t
mc_parse(enum mc_proto proto, const char *buf, size_t len, struct mc_reply *r, size_t *need,
         char *err)
{
    if (proto == MC_TEXT)
        return mc_text_parse(buf, len, r, need, err);
    return mc_bin_parse(buf, len, r, need, err);
}

void
mc_txn_begin(struct mc_txn *t, enum mc_proto proto, enum mc_op op, int nkeys)
{
    t->op = op;
    t->proto = proto;
    t->nkeys = op == MC_OP_MULTIGET ? nkeys : 1;
    t->values = 0;
    t->misses = 0;
    t->failed = 0;
    t->msg[0] = '\0';
}

enum mc_feed
mc_txn_feed(struct mc_txn *t, const struct mc_reply *r)
{
    return t->proto == MC_TEXT ? feed_text(t, r) : feed_binary(t, r);
}
