/*
 * uri: where the parts of a scheme://[user[:password]@]host[:port][/path][?query]
 * target are, for every driver that takes one (mysql://, redis://,
 * memcached://; postgres:// only to find its password, libpq parses it).
 * Finding the parts is shared; what a part may hold, and the message
 * when it does not, stays with the driver.
 *
 * The userinfo ends at the last '@' before the query, so '@', ':' and '/'
 * in a password work without percent-escapes, as in most drivers (an '@'
 * in a database name must then be written %40). With no '@' before the
 * query, the last '@' after it ends the userinfo, so that a '?' in a
 * password is still one. Right after "://", a '/' starts a socket path: no
 * userinfo then.
 */
#ifndef BENCHTOP_URI_H
#define BENCHTOP_URI_H

#include <stddef.h>

/* len bytes of the target from off. */
struct uri_span {
    size_t off;
    size_t len;
};

struct uri {
    struct uri_span scheme;    /* "mysql://", "://" included */
    struct uri_span user;      /* the whole userinfo when it has no ':' */
    struct uri_span password;  /* after the userinfo's first ':' */
    struct uri_span authority; /* host[:port] or [v6][:port] */
    struct uri_span host;      /* without brackets: set by uri_split_host */
    struct uri_span port;      /* digits, not checked: set by uri_split_host */
    struct uri_span path;      /* from its '/' to the query */
    struct uri_span query;     /* after the '?' */
    int has_userinfo;
    int has_password; /* "user:@" is an empty password */
    int has_query;
    int has_port; /* a ':' after the host, even with no digits */
};

/* Problems uri_split_host finds; each driver says them in its own words. */
enum uri_host_error { URI_HOST_OK, URI_HOST_NO_CLOSE_BRACKET, URI_HOST_AFTER_BRACKET };

/* Which of the NULL-terminated schemes ("mysql://", ...) target starts with, or NULL. */
const char *uri_scheme_in(const char *target, const char *const *schemes);
/* Splits target; -1 when it has no "scheme://". Decodes and checks nothing. */
int uri_split(const char *target, struct uri *u);
/* Splits u->authority into host and port ("h", "h:1", "[::1]", "[::1]:1"). */
enum uri_host_error uri_split_host(const char *target, struct uri *u);
/* The port in 1..65535 written in p; -1 for anything else (empty included). */
int uri_port(const char *target, struct uri_span p, int *port);
/* %-decodes the span into out (outlen bytes with the NUL); -1 for a bad escape or no room. */
int uri_decode(const char *target, struct uri_span s, char *out, size_t outlen);
/* A newly xmalloc'ed copy of target with span s replaced by `with`. */
char *uri_replace(const char *target, struct uri_span s, const char *with);
/*
 * A copy of text safe to print whatever it is: everything between "://"
 * (or the start, with none) and the last '@' before the host becomes "***".
 * For a target no driver claims (a scheme typo), where nothing says which
 * part is the user.
 */
char *uri_mask(const char *text);

/*
 * Whether a target's server runs on this machine: a loopback host
 * (127.0.0.0/8, ::1, localhost), a unix socket, or no host at all (the
 * client library's local default). From a URI's authority or a
 * conninfo "host=" word.
 */
int uri_is_local(const char *target);

#endif
