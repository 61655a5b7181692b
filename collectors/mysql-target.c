/*
 * mysql-target: mysql:// and mariadb:// targets: parsing them into the
 * arguments of mysql_real_connect and a few mysql_options (TLS, socket),
 * applying those to a handle, and masking the password for display. Pure
 * except for my_target_apply and my_target_check_tls, which only touch the
 * handle they are given.
 */
#include "mysql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char target_usage[] =
    "(use mysql://user:password@host:port/dbname, or ?socket=/path for a unix socket)";

static const char *const my_schemes[] = {"mysql://", "mariadb://"};

/* How a ?key=value parameter of the target is applied. */
enum param_kind {
    P_STRING, /* a string option */
    P_BOOL,   /* a my_bool option: 1/0, true/false, on/off */
    P_SOCKET, /* the unix socket path */
    P_SSL_MODE,
};

static const struct my_param {
    const char *key;
    enum param_kind kind;
    enum mysql_option opt;
} my_params[] = {
    {"socket", P_SOCKET, 0},
    {"ssl-mode", P_SSL_MODE, 0},
    {"ssl-ca", P_STRING, MYSQL_OPT_SSL_CA},
    {"ssl-capath", P_STRING, MYSQL_OPT_SSL_CAPATH},
    {"ssl-cert", P_STRING, MYSQL_OPT_SSL_CERT},
    {"ssl-key", P_STRING, MYSQL_OPT_SSL_KEY},
    {"ssl-cipher", P_STRING, MYSQL_OPT_SSL_CIPHER},
#ifdef LIBMARIADB
    /* Connector/C's names; libmysqlclient has MYSQL_OPT_SSL_MODE instead. */
    {"ssl", P_BOOL, MYSQL_OPT_SSL_ENFORCE},
    {"ssl-crl", P_STRING, MYSQL_OPT_SSL_CRL},
    {"ssl-verify-server-cert", P_BOOL, MYSQL_OPT_SSL_VERIFY_SERVER_CERT},
    {"tls-version", P_STRING, MARIADB_OPT_TLS_VERSION},
#endif
};

enum { N_PARAMS = sizeof my_params / sizeof my_params[0] };

/* Where the password sits in a target string. */
struct span {
    size_t off;
    size_t len;
};

/* Where the parts of a target are, before percent-decoding. */
struct uri_parts {
    struct span user, password, host, port, db, query;
    int has_password;
};

/* ---- targets ---- */

static size_t
scheme_len(const char *t)
{
    size_t i;

    for (i = 0; i < sizeof my_schemes / sizeof my_schemes[0]; i++) {
        size_t n = strlen(my_schemes[i]);
        if (strncmp(t, my_schemes[i], n) == 0)
            return n;
    }
    return 0;
}

/* The last c in [from, to), or to. */
static size_t
last_of(const char *t, size_t from, size_t to, char c)
{
    size_t i, found = to;

    for (i = from; i < to; i++)
        if (t[i] == c)
            found = i;
    return found;
}

static size_t
first_of(const char *t, size_t from, size_t to, char c)
{
    size_t i;

    for (i = from; i < to; i++)
        if (t[i] == c)
            return i;
    return to;
}

/*
 * user[:password] ends at the last '@' before the query, so that '@', ':'
 * and '/' in a password work without percent-escapes (as in most drivers);
 * an '@' in the database name must then be written %40.
 */
static void
split_uri(const char *t, size_t start, struct uri_parts *u)
{
    size_t end = strlen(t);
    size_t q = first_of(t, start, end, '?');
    size_t at = last_of(t, start, q, '@');
    size_t host = start, slash, colon;

    memset(u, 0, sizeof *u);
    if (at < q) {
        colon = first_of(t, start, at, ':');
        u->user = (struct span){start, colon - start};
        if (colon < at) {
            u->has_password = 1;
            u->password = (struct span){colon + 1, at - colon - 1};
        }
        host = at + 1;
    }
    slash = first_of(t, host, q, '/');
    u->host = (struct span){host, slash - host};
    if (slash < q)
        u->db = (struct span){slash + 1, q - slash - 1};
    if (q < end)
        u->query = (struct span){q + 1, end - q - 1};
}

static int
hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A decoded, xmalloc'ed copy of the span; NULL (and *bad set) for a broken %-escape. */
static char *
decode(const char *t, struct span s, int *bad)
{
    char *out = xmalloc(s.len + 1);
    size_t i, o = 0;

    for (i = 0; i < s.len; i++) {
        char c = t[s.off + i];
        if (c == '%') {
            if (i + 2 >= s.len || hex_value(t[s.off + i + 1]) < 0 ||
                hex_value(t[s.off + i + 2]) < 0) {
                *bad = 1;
                free(out);
                return NULL;
            }
            c = (char)(hex_value(t[s.off + i + 1]) * 16 + hex_value(t[s.off + i + 2]));
            i += 2;
        }
        out[o++] = c;
    }
    out[o] = '\0';
    return out;
}

static int
invalid(const char *target, const char *why, char *err)
{
    char *masked = my_mask_target(target);

    seterr(err, "invalid target '%s': %s %s", masked, why, target_usage);
    free(masked);
    return -1;
}

/* host, [v6host], host:port, [v6host]:port */
static int
parse_host_port(const char *t, struct span h, struct uri_parts *u, char *why, size_t whylen)
{
    size_t end = h.off + h.len, close, colon;

    u->port = (struct span){end, 0};
    if (h.len > 0 && t[h.off] == '[') {
        close = first_of(t, h.off, end, ']');
        if (close == end) {
            snprintf(why, whylen, "'[' without ']' in the host");
            return -1;
        }
        u->host = (struct span){h.off + 1, close - h.off - 1};
        if (close + 1 < end && t[close + 1] != ':') {
            snprintf(why, whylen, "unexpected text after ']'");
            return -1;
        }
        if (close + 1 < end)
            u->port = (struct span){close + 2, end - close - 2};
        return 0;
    }
    colon = first_of(t, h.off, end, ':');
    u->host = (struct span){h.off, colon - h.off};
    if (colon < end)
        u->port = (struct span){colon + 1, end - colon - 1};
    return 0;
}

static int
parse_port(const char *t, struct span p, unsigned *port, char *why, size_t whylen)
{
    unsigned long v = 0;
    size_t i;

    if (p.len == 0)
        return 0;
    for (i = 0; i < p.len; i++) {
        char c = t[p.off + i];
        if (c < '0' || c > '9' || v > 65535) {
            snprintf(why, whylen, "the port must be a number from 1 to 65535");
            return -1;
        }
        v = v * 10 + (unsigned long)(c - '0');
    }
    if (v < 1 || v > 65535) {
        snprintf(why, whylen, "the port must be a number from 1 to 65535");
        return -1;
    }
    *port = (unsigned)v;
    return 0;
}

static int
parse_bool(const char *v, my_bool *out)
{
    static const char *const yes[] = {"1", "true", "on", "yes"};
    static const char *const no[] = {"0", "false", "off", "no"};
    size_t i;

    for (i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

static void
add_bool(struct my_target *t, enum mysql_option opt, my_bool v)
{
    struct my_option *o = &t->opts[t->nopts++];

    o->opt = opt;
    o->is_bool = 1;
    o->flag = v;
}

/* ssl-mode as in the mysql client: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY. */
static int
apply_ssl_mode(struct my_target *t, const char *v, char *why, size_t whylen)
{
#ifdef LIBMARIADB
    if (strcasecmp(v, "DISABLED") == 0 || strcasecmp(v, "PREFERRED") == 0)
        return 0;
    if (strcasecmp(v, "REQUIRED") == 0) {
        add_bool(t, MYSQL_OPT_SSL_ENFORCE, 1);
        t->tls_required = 1;
        return 0;
    }
    if (strcasecmp(v, "VERIFY_CA") == 0 || strcasecmp(v, "VERIFY_IDENTITY") == 0) {
        add_bool(t, MYSQL_OPT_SSL_ENFORCE, 1);
        add_bool(t, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, 1);
        t->tls_required = 1;
        return 0;
    }
#endif
    snprintf(why, whylen,
             "ssl-mode must be DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY");
    return -1;
}

static const struct my_param *
find_param(const char *key)
{
    char norm[64];
    size_t i;

    snprintf(norm, sizeof norm, "%s", key);
    for (i = 0; norm[i] != '\0'; i++)
        if (norm[i] == '_')
            norm[i] = '-'; /* ssl_ca as in my.cnf works too */
    for (i = 0; i < N_PARAMS; i++)
        if (strcmp(my_params[i].key, norm) == 0)
            return &my_params[i];
    return NULL;
}

static int
apply_param(struct my_target *t, const char *key, char *value, char *why, size_t whylen)
{
    const struct my_param *p = find_param(key);
    struct my_option *o;
    my_bool flag;

    if (p == NULL) {
        snprintf(why, whylen,
                 "unknown parameter '%s' (known: socket, ssl-mode, ssl-ca, ssl-cert, "
                 "ssl-key, ...)",
                 key);
        return -1;
    }
    if (t->nopts + 2 > MY_MAX_OPTS) {
        snprintf(why, whylen, "too many parameters");
        return -1;
    }
    switch (p->kind) {
    case P_SOCKET:
        free(t->socket);
        t->socket = xstrdup(value);
        return 0;
    case P_SSL_MODE:
        return apply_ssl_mode(t, value, why, whylen);
    case P_BOOL:
        if (parse_bool(value, &flag) < 0) {
            snprintf(why, whylen, "%s takes 1 or 0, not '%s'", p->key, value);
            return -1;
        }
        add_bool(t, p->opt, flag);
        return 0;
    case P_STRING:
        o = &t->opts[t->nopts++];
        o->opt = p->opt;
        o->str = xstrdup(value);
        return 0;
    }
    return 0;
}

static int
parse_query(const char *s, struct span q, struct my_target *t, char *why, size_t whylen)
{
    size_t p = q.off, end = q.off + q.len;
    int bad = 0;

    while (p < end) {
        size_t amp = first_of(s, p, end, '&');
        size_t eq = first_of(s, p, amp, '=');
        char *key, *value;
        int rc;

        if (amp == p) {
            p++;
            continue;
        }
        if (eq == amp) {
            snprintf(why, whylen, "parameter without a value (write key=value)");
            return -1;
        }
        key = decode(s, (struct span){p, eq - p}, &bad);
        value = decode(s, (struct span){eq + 1, amp - eq - 1}, &bad);
        rc = bad ? -1 : apply_param(t, key, value, why, whylen);
        if (bad)
            snprintf(why, whylen, "a '%%' not followed by two hex digits");
        free(key);
        free(value);
        if (rc < 0)
            return -1;
        p = amp + 1;
    }
    return 0;
}

static char *
decode_or_null(const char *s, struct span sp, int *bad)
{
    return sp.len == 0 ? NULL : decode(s, sp, bad);
}

static int
parse_parts(const char *target, const struct uri_parts *u, struct my_target *t, char *why,
            size_t whylen)
{
    int bad = 0;

    t->user = decode_or_null(target, u->user, &bad);
    if (u->has_password)
        t->password = decode(target, u->password, &bad); /* "user:@" is an empty password */
    t->host = decode_or_null(target, u->host, &bad);
    t->db = decode_or_null(target, u->db, &bad);
    if (bad) {
        snprintf(why, whylen, "a '%%' not followed by two hex digits");
        return -1;
    }
    if (t->db != NULL && strchr(t->db, '/') != NULL) {
        snprintf(why, whylen, "the database name contains '/'");
        return -1;
    }
    /* A host that is a path (percent-encoded, as libpq allows) names a unix socket. */
    if (t->host != NULL && t->host[0] == '/') {
        t->socket = t->host;
        t->host = xstrdup("localhost");
    }
    if (parse_port(target, u->port, &t->port, why, whylen) < 0)
        return -1;
    return parse_query(target, u->query, t, why, whylen);
}

int
my_target_parse(const char *target, struct my_target *t, char *err)
{
    size_t start = scheme_len(target);
    struct uri_parts u;
    char why[200];

    memset(t, 0, sizeof *t);
    if (start == 0)
        return invalid(target, "it does not start with mysql:// or mariadb://", err);
    split_uri(target, start, &u);
    if (parse_host_port(target, u.host, &u, why, sizeof why) < 0 ||
        parse_parts(target, &u, t, why, sizeof why) < 0) {
        my_target_free(t);
        return invalid(target, why, err);
    }
    return 0;
}

void
my_target_free(struct my_target *t)
{
    int i;

    free(t->user);
    free_secret(t->password);
    free(t->host);
    free(t->socket);
    free(t->db);
    for (i = 0; i < t->nopts; i++)
        free(t->opts[i].str);
    memset(t, 0, sizeof *t);
}

int
my_target_apply(MYSQL *m, const struct my_target *t, unsigned timeout_s, char *err)
{
    int i, rc = 0;

    /*
     * Reads [client] (and [client-server], [client-mariadb]) plus
     * [benchtop] from the option files, as the mysql client does; the
     * target's own user, password, host, port, socket and database win
     * because they are passed to mysql_real_connect.
     */
    rc |= mysql_options(m, MYSQL_READ_DEFAULT_GROUP, "benchtop");
    if (timeout_s > 0)
        rc |= mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout_s);
    for (i = 0; i < t->nopts; i++) {
        const struct my_option *o = &t->opts[i];
        rc |= mysql_options(m, o->opt, o->is_bool ? (const void *)&o->flag : o->str);
    }
    if (rc != 0)
        return seterr(err, "the client library rejected an option of the target %s", target_usage);
    return 0;
}

int
my_target_check_tls(MYSQL *m, const struct my_target *t, char *err)
{
    if (!t->tls_required || mysql_get_ssl_cipher(m) != NULL)
        return 0;
    return seterr(err, "the server offers no TLS but the target asks for it (enable TLS on the "
                       "server, or drop ssl-mode from the target)");
}

/* The password's place in target, or len 0 when it has none; any scheme://, to be safe. */
static struct span
password_span(const char *target)
{
    const char *sep = strstr(target, "://");
    size_t start = sep ? (size_t)(sep - target) + 3 : 0;
    struct uri_parts u;

    if (start == 0)
        return (struct span){0, 0};
    split_uri(target, start, &u);
    return u.has_password ? u.password : (struct span){0, 0};
}

char *
my_mask_target(const char *target)
{
    struct span s = password_span(target);
    size_t n = strlen(target);
    char *out;

    if (s.len == 0)
        return xstrdup(target);
    out = xmalloc(n - s.len + 4);
    memcpy(out, target, s.off);
    memcpy(out + s.off, "***", 3);
    strcpy(out + s.off + 3, target + s.off + s.len);
    return out;
}
