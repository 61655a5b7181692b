/*
 * mysql/target: mysql:// and mariadb:// targets: parsing them into the
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

#include "base/uri.h"
#include "engine/target.h"

static const char target_usage[] =
    "(use mysql://user:password@host:port/dbname, or ?socket=/path for a unix socket)";

static const char *const my_schemes[] = {"mysql://", "mariadb://", NULL};

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

/* ---- targets ---- */

static size_t
first_of(const char *t, size_t from, size_t to, char c)
{
    size_t i;

    for (i = from; i < to; i++)
        if (t[i] == c)
            return i;
    return to;
}

/* A decoded, xmalloc'ed copy of the span; NULL (and *bad set) for a broken %-escape. */
static char *
decode(const char *t, struct uri_span s, int *bad)
{
    char *out = xmalloc(s.len + 1);

    if (uri_decode(t, s, out, s.len + 1) == 0)
        return out;
    *bad = 1;
    free(out);
    return NULL;
}

/* host, [v6host], host:port, [v6host]:port */
static int
parse_host_port(const char *t, struct uri *u, char *why, size_t whylen)
{
    switch (uri_split_host(t, u)) {
    case URI_HOST_NO_CLOSE_BRACKET:
        snprintf(why, whylen, "'[' without ']' in the host");
        return -1;
    case URI_HOST_AFTER_BRACKET:
        snprintf(why, whylen, "unexpected text after ']'");
        return -1;
    case URI_HOST_OK:
        break;
    }
    return 0;
}

static int
parse_port(const char *t, struct uri_span p, unsigned *port, char *why, size_t whylen)
{
    int v;

    if (p.len == 0)
        return 0;
    if (uri_port(t, p, &v) < 0) {
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
parse_query(const char *s, struct uri_span q, struct my_target *t, char *why, size_t whylen)
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
        key = decode(s, (struct uri_span){p, eq - p}, &bad);
        value = decode(s, (struct uri_span){eq + 1, amp - eq - 1}, &bad);
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
decode_or_null(const char *s, struct uri_span sp, int *bad)
{
    return sp.len == 0 ? NULL : decode(s, sp, bad);
}

/* The database: the path without its '/'. */
static struct uri_span
db_span(const struct uri *u)
{
    return u->path.len > 0 ? (struct uri_span){u->path.off + 1, u->path.len - 1} : u->path;
}

static int
parse_parts(const char *target, const struct uri *u, struct my_target *t, char *why, size_t whylen)
{
    int bad = 0;

    t->user = decode_or_null(target, u->user, &bad);
    if (u->has_password)
        t->password = decode(target, u->password, &bad); /* "user:@" is an empty password */
    t->host = decode_or_null(target, u->host, &bad);
    t->db = decode_or_null(target, db_span(u), &bad);
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
    struct uri u;
    char why[200];

    memset(t, 0, sizeof *t);
    if (uri_scheme_in(target, my_schemes) == NULL || uri_split(target, &u) < 0)
        return target_invalid(target, my_mask_target,
                              "it does not start with mysql:// or mariadb://", target_usage, err);
    if (parse_host_port(target, &u, why, sizeof why) < 0 ||
        parse_parts(target, &u, t, why, sizeof why) < 0) {
        my_target_free(t);
        return target_invalid(target, my_mask_target, why, target_usage, err);
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

void *
my_target_new(const char *target, char *err)
{
    struct my_target *t = xmalloc(sizeof *t);

    if (my_target_parse(target, t, err) == 0)
        return t;
    free(t);
    return NULL;
}

void
my_target_delete(void *t)
{
    my_target_free(t);
    free(t);
}

int
my_target_apply(MYSQL *m, const struct my_target *t, unsigned timeout_s, char *err)
{
    unsigned long packet_max = MY_PACKET_MAX;
    int i, rc = 0;

    /*
     * Reads [client] (and [client-server], [client-mariadb]) plus
     * [benchtop] from the option files, as the mysql client does; the
     * target's own user, password, host, port, socket and database win
     * because they are passed to mysql_real_connect.
     */
    rc |= mysql_options(m, MYSQL_READ_DEFAULT_GROUP, "benchtop");
    rc |= mysql_options(m, MYSQL_OPT_MAX_ALLOWED_PACKET, &packet_max);
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

/*
 * The server's Ssl_version and Ssl_cipher of this session, the same with
 * either client library. A server (or proxy) that will not answer gets the
 * client's own word: TLS or not, by its cipher, with the protocol unknown.
 */
void
my_tls_read(MYSQL *m, struct drv_tls *out)
{
    const char *cipher = mysql_get_ssl_cipher(m);
    MYSQL_RES *res;
    MYSQL_ROW row;

    memset(out, 0, sizeof *out);
    out->used = cipher != NULL;
    snprintf(out->protocol, sizeof out->protocol, "%s", out->used ? "?" : "");
    snprintf(out->cipher, sizeof out->cipher, "%s", out->used ? cipher : "");
    if (mysql_query(m, "SHOW SESSION STATUS WHERE Variable_name = 'Ssl_version'") != 0 ||
        (res = mysql_store_result(m)) == NULL)
        return;
    row = mysql_fetch_row(res);
    if (out->used && row != NULL && row[1] != NULL && row[1][0] != '\0')
        snprintf(out->protocol, sizeof out->protocol, "%s", row[1]);
    mysql_free_result(res);
}

/* Any scheme://, to be safe; an empty password shows nothing and stays as it is. */
char *
my_mask_target(const char *target)
{
    struct uri u;

    if (uri_split(target, &u) < 0 || u.password.len == 0)
        return xstrdup(target);
    return uri_replace(target, u.password, "***");
}
