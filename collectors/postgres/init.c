/*
 * postgres/init: blocking connection, target masking, error hints and
 * `benchtop init` for PostgreSQL.
 *
 * init reproduces `pgbench -i -s SCALE` of PostgreSQL 15 (client-side data
 * generation): same tables, columns, fillfactor, rows, keys and filler
 * values, so scripts and results stay comparable with pgbench. Unlike
 * pgbench it does everything up to the primary keys in one transaction, so
 * a failure or a killed client leaves nothing half-built behind.
 */
#include "postgres.h"
#include "base/progress.h"
#include "base/text.h"
#include "base/util.h"
#include "collectors/shared/answer.h"
#include "base/uri.h"
#include "engine/target.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* pgbench's rows per unit of scale (nbranches, ntellers, naccounts). */
enum {
    BRANCHES_PER_SCALE = 1,
    TELLERS_PER_SCALE = 10,
    ACCOUNTS_PER_SCALE = 100000,
};

/* From this scale on pgbench declares aid as bigint (SCALE_32BIT_THRESHOLD). */
enum { BIGINT_SCALE = 20000 };

/* COPY data goes out in chunks this big; ROW_MAX bounds one formatted row. */
enum { COPY_CHUNK = 64 * 1024, ROW_MAX = 64 };

static const char target_hint[] = "(use postgres://user@host:port/dbname or 'host=... dbname=...')";

/*
 * Fixes for the messages users actually meet. Matched on libpq's English
 * text, first match wins, so specific entries come before general ones.
 */
static const struct pg_hint {
    const char *needle;
    const char *also; /* a second substring that must appear too, or NULL */
    const char *hint;
} pg_hints[] = {
    {"password authentication failed", NULL, "(check the password, ~/.pgpass or PGPASSWORD)"},
    {"no password supplied", NULL, "(put the password in ~/.pgpass or PGPASSWORD)"},
    {"database \"", "does not exist",
     "(create it with createdb, or name an existing database in the target)"},
    {"role \"", "does not exist", "(name an existing user in the target)"},
    {"Connection refused", NULL, "(is the server running and is host:port right?)"},
    {"on socket", "No such file or directory", "(is the server running and is host:port right?)"},
    {"could not translate host name", NULL, "(check the host name)"},
    {"Name or service not known", NULL, "(check the host name)"},
    {"unknown host", NULL, "(check the host name)"},
    {"timeout expired", NULL, "(check the host and firewall)"},
    {"timed out", NULL, "(check the host and firewall)"},
    {"No route to host", NULL, "(check the host and firewall)"},
    {"invalid response to SSL negotiation", NULL, "(is host:port a PostgreSQL server?)"},
    {"expected authentication request", NULL, "(is host:port a PostgreSQL server?)"},
    {"no pg_hba.conf entry", NULL, "(allow this host, user and database in pg_hba.conf)"},
    {"too many clients", NULL, "(raise max_connections or close other sessions)"},
    {"remaining connection slots", NULL, "(raise max_connections or close other sessions)"},
    {"the database system is", NULL, "(wait until the server accepts connections)"},
    {"server does not support SSL", NULL, "(use sslmode=prefer or sslmode=disable)"},
    {"certificate verify failed", NULL,
     "(sslrootcert= must name the CA that signed the server's certificate)"},
    {"does not match host name", NULL,
     "(connect by a name the server's certificate holds, or use sslmode=verify-ca)"},
    {"root certificate file", "does not exist",
     "(name the CA's certificate with sslrootcert=PATH, or use sslmode=require)"},
    {"permission denied for schema", NULL,
     "(grant the user CREATE on the schema, or use a database the user owns)"},
    {"must be owner", NULL, "(connect as the owner of the tables or a superuser)"},
    {"permission denied", NULL, "(connect as a user with the needed privileges)"},
    {"No space left on device", NULL, "(free disk space on the server)"},
    {"server closed the connection", NULL, "(check the server log)"},
    {"invalid integer value", NULL, target_hint},
    {"invalid port number", NULL, target_hint},
    {"could not match", NULL, target_hint},
    {"invalid ", " value: \"", target_hint},
    {"connection info string", NULL, target_hint},
    {"in URI", NULL, target_hint},
};

static const char *const uri_schemes[] = {"postgresql://", "postgres://", NULL};

/* A password's place in a target string. */
struct span {
    size_t off;
    size_t len;
};

struct spans {
    struct span *v;
    size_t n;
    size_t cap;
};

/* One pgbench table; the rows of the array are in pgbench's fill order. */
struct pg_table {
    const char *name;
    const char *columns;     /* keys as int */
    const char *big_columns; /* aid as bigint, from BIGINT_SCALE on */
    int fillfactor;          /* pgbench declares fillfactor=100 on all but history */
    int rows_per_scale;      /* 0: created empty */
    size_t (*format_row)(char *dst, int64_t row);
    const char *key; /* primary key column, or NULL */
};

/* State of one `benchtop init`. Times are in microseconds. */
struct init_run {
    PGconn *conn;
    const struct init_conf *ic;
    int scale; /* --scale */
    int64_t rows_total;
    int64_t rows_done;
    struct progress progress;
    uint64_t drop_us;
    uint64_t create_us;
    uint64_t copy_us;
    uint64_t keys_us;
    uint64_t vacuum_us;
};

static void
spans_add(struct spans *s, size_t off, size_t len)
{
    if (len == 0)
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n].off = off;
    s->v[s->n].len = len;
    s->n++;
}

/*
 * The password after user: and any ?password=. libpq ends the userinfo at
 * the first '@' before a '/'; uri.c's rule (the last '@' before the query)
 * takes in at least as much, so masking never leaves part of one behind.
 */
static void
uri_passwords(const char *t, struct spans *s)
{
    struct uri u;
    size_t p, end;

    uri_split(t, &u);
    if (u.has_password)
        spans_add(s, u.password.off, u.password.len);
    p = u.query.off;
    end = u.query.off + u.query.len;
    while (u.has_query && p < end) {
        size_t amp = p + strcspn(t + p, "&");
        if (strncmp(t + p, "password=", 9) == 0)
            spans_add(s, p + 9, amp - p - 9);
        p = amp + 1;
    }
}

/* libpq ends a conninfo value at a space, or at the closing quote; '\' escapes either. */
static size_t
conninfo_value_end(const char *t, size_t p)
{
    int quoted = t[p] == '\'';

    if (quoted)
        p++;
    while (t[p] != '\0') {
        if (t[p] == '\\' && t[p + 1] != '\0') {
            p += 2;
            continue;
        }
        if (quoted ? t[p] == '\'' : isspace((unsigned char)t[p]))
            return p + quoted;
        p++;
    }
    return p;
}

/*
 * Walks "key = value" pairs as libpq does. A word without '=' is skipped
 * rather than ending the walk, so a typo earlier in the string cannot
 * expose a password later in it.
 */
static void
conninfo_passwords(const char *t, struct spans *s)
{
    size_t p = 0;

    while (t[p] != '\0') {
        size_t key, keylen, val, end;

        while (isspace((unsigned char)t[p]))
            p++;
        key = p;
        while (t[p] != '\0' && t[p] != '=' && !isspace((unsigned char)t[p]))
            p++;
        keylen = p - key;
        while (isspace((unsigned char)t[p]))
            p++;
        if (t[p] != '=')
            continue;
        p++;
        while (isspace((unsigned char)t[p]))
            p++;
        val = p;
        p = end = conninfo_value_end(t, p);
        if (keylen != 8 || strncmp(t + key, "password", 8) != 0)
            continue;
        if (t[val] == '\'') {
            val++;
            if (end > val && t[end - 1] == '\'')
                end--;
        }
        spans_add(s, val, end - val);
    }
}

static void
find_passwords(const char *target, struct spans *s)
{
    if (uri_scheme_in(target, uri_schemes) != NULL)
        uri_passwords(target, s);
    else
        conninfo_passwords(target, s);
}

/* Whether the quoted token tok (n bytes) holds the secret or a piece of it between '@'s. */
static int
token_has_secret(const char *tok, size_t n, const char *secret)
{
    char *t = xstrndup(tok, n), *copy = xstrdup(secret), *save = NULL, *piece;
    int found = n > 0 && strstr(secret, t) != NULL;

    for (piece = strtok_r(copy, "@", &save); piece != NULL && !found;
         piece = strtok_r(NULL, "@", &save))
        found = strstr(t, piece) != NULL;
    free(t);
    free(copy);
    return found;
}

/*
 * libpq quotes what it echoes ("could not translate host name "ss@h"",
 * "invalid percent-encoded token: "p%zz""): a quoted token holding the
 * password or a piece of it is masked whole, and the prose around it is
 * left alone (masking by substring turned "percent" into "***ercent").
 */
static void
mask_quoted(char *line, size_t size, const char *secret)
{
    char out[BT_ERRLEN];
    const char *p = line, *open, *close;
    size_t o = 0;

    while (o < sizeof out && (open = strchr(p, '"')) != NULL &&
           (close = strchr(open + 1, '"')) != NULL) {
        int n = (int)(close - open - 1);
        const char *tok = token_has_secret(open + 1, (size_t)n, secret) ? "***" : NULL;

        o += (size_t)snprintf(out + o, sizeof out - o, "%.*s\"%.*s\"", (int)(open - p), p,
                              tok ? 3 : n, tok ? tok : open + 1);
        p = close + 1;
    }
    if (o < sizeof out)
        snprintf(out + o, sizeof out - o, "%s", p);
    /* Unquoted, it is withheld rather than cut out of the prose. */
    if (strlen(secret) >= 4 && strstr(out, secret) != NULL)
        snprintf(out, sizeof out, "(libpq's message quotes the password)");
    snprintf(line, size, "%s", out);
}

/* libpq echoes a malformed URI, password included, in its parse errors. */
static void
scrub_passwords(char *line, size_t size, const char *target)
{
    struct spans s = {0};
    size_t i;

    find_passwords(target, &s);
    for (i = 0; i < s.n; i++) {
        char *secret = xstrndup(target + s.v[i].off, s.v[i].len);
        mask_quoted(line, size, secret);
        free(secret);
    }
    free(s.v);
}

/* The first line of a libpq message, safe to print. */
static void
clean_line(char *dst, size_t size, const char *message, const char *target)
{
    first_line(dst, size, message);
    scrub_passwords(dst, size, target);
}

/* A malformed target is the user's typo, not a connection problem: say so early. */
static int
check_target(const char *target, char *err)
{
    char *msg = NULL;
    char line[BT_ERRLEN];
    PQconninfoOption *opts;
    struct uri u;

    /* libpq ends the password at its first '@' and takes the rest for the host. */
    if (uri_scheme_in(target, uri_schemes) != NULL && uri_split(target, &u) == 0 &&
        memchr(target + u.password.off, '@', u.password.len) != NULL)
        return target_invalid(target, pg_mask_target, "the password has an '@' (write it as %40)",
                              target_hint, err);
    opts = PQconninfoParse(target, &msg);
    if (opts != NULL) {
        PQconninfoFree(opts);
        return 0;
    }
    clean_line(line, sizeof line, msg != NULL ? msg : "out of memory", target);
    PQfreemem(msg);
    return target_invalid(target, pg_mask_target, line, target_hint, err);
}

/*
 * A parenthesised fix for a libpq or server message, such as
 * "(check the host name)"; "" when no fix is known. Never NULL.
 */
static const char *
pg_error_hint(const char *libpq_message)
{
    size_t i;

    if (libpq_message == NULL)
        return "";
    for (i = 0; i < sizeof pg_hints / sizeof pg_hints[0]; i++) {
        const struct pg_hint *h = &pg_hints[i];
        if (strstr(libpq_message, h->needle) != NULL &&
            (h->also == NULL || strstr(libpq_message, h->also) != NULL))
            return h->hint;
    }
    return "";
}

static int
connect_error(const char *target, const char *message, char *err)
{
    char line[BT_ERRLEN];
    const char *hint = pg_error_hint(message);

    clean_line(line, sizeof line, message, target);
    /* Option values (a port "x") are only checked when connecting. */
    if (hint == target_hint)
        return target_invalid(target, pg_mask_target, line, target_hint, err);
    return seterr(err, "could not connect: %s%s%s", line, *hint ? " " : "", hint);
}

/* ---- statements with a deadline, their waits told ---- */

/*
 * The declared lengths of the answer's first messages, read with MSG_PEEK
 * before libpq takes any byte: 1 when one is over PG_REPLY_MAX (libpq would
 * make room for it and read it whole: one wide row of 12 columns of 20 MB
 * was 747 MB), else 0. Looks until ReadyForQuery, 64 KiB or a second;
 * over TLS the bytes are sealed and nothing is looked at.
 */
static int
first_messages_too_large(PGconn *conn)
{
    static unsigned char buf[65536];
    uint64_t until = now_us() + 1000000u;

    if (PQsslInUse(conn))
        return 0;
    for (;;) {
        ssize_t n = recv(PQsocket(conn), buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
        size_t at = 0;

        while (n > 0 && at + 5 <= (size_t)n) {
            uint32_t len = (uint32_t)buf[at + 1] << 24 | (uint32_t)buf[at + 2] << 16 |
                           (uint32_t)buf[at + 3] << 8 | buf[at + 4];
            int may_be_long = buf[at] != '\0' && strchr("TDdVENA", buf[at]) != NULL;
            if (may_be_long && len > PG_REPLY_MAX)
                return 1;
            if (buf[at] == 'Z' || (!may_be_long && len > 30000))
                return 0; /* the end, or a message libpq refuses itself (sync lost) */
            at += 1 + (size_t)len;
        }
        if (n == (ssize_t)sizeof buf || (n <= 0 && errno != EAGAIN) || now_us() >= until ||
            progress_interrupted())
            return 0;
        nanosleep(&(struct timespec){0, 10000000}, NULL); /* the next header is not here yet */
    }
}

/*
 * Waits for conn's next result until deadline (us; 0: none): 0 ready, 1 out
 * of time, -1 connection error. poll in slices of a second, so that a
 * pending signal (progress_check) ends the wait.
 */
static int
wait_result(PGconn *conn, uint64_t deadline)
{
    while (PQisBusy(conn)) {
        struct pollfd p = {.fd = PQsocket(conn), .events = POLLIN};
        uint64_t now = now_us();

        if (deadline != 0 && now >= deadline)
            return 1;
        if (progress_interrupted())
            return -1;
        if (poll(&p, 1, 1000) < 0 && errno != EINTR)
            return -1;
        if ((p.revents & (POLLIN | POLLERR | POLLHUP)) && !PQconsumeInput(conn))
            return -1;
    }
    return 0;
}

/*
 * Takes the next result of the statement sent on conn (in single-row mode)
 * into *keep: its first row, or its end, or its error. 0 when the
 * statement is done, 1 when rows keep coming, -1 when the server sent more
 * than PG_ROWS_MAX rows (a hostile or mistaken server: libpq would hold them
 * all in memory).
 */
static int
take_result(PGconn *conn, PGresult **keep, long *rows)
{
    PGresult *res = PQgetResult(conn);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_EMPTY_QUERY;

    if (res == NULL)
        return 0;
    if (st == PGRES_SINGLE_TUPLE && ++*rows > PG_ROWS_MAX) {
        PQclear(res);
        return -1;
    }
    if (*keep == NULL) {
        *keep = res;
    } else if (PQresultStatus(*keep) == PGRES_SINGLE_TUPLE && st == PGRES_TUPLES_OK) {
        PQclear(res); /* the end: the kept row, as a whole result */
        res = PQcopyResult(*keep, PG_COPYRES_ATTRS | PG_COPYRES_TUPLES);
        PQclear(*keep);
        *keep = res;
    } else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK &&
               (PQresultStatus(*keep) == PGRES_SINGLE_TUPLE ||
                PQresultStatus(*keep) == PGRES_TUPLES_OK)) {
        PQclear(*keep); /* an error after rows wins; the first error tells what happened */
        *keep = res;
    } else {
        PQclear(res);
    }
    return 1;
}

/* The first row's first column of sql on conn within secs, or "" (a side question). */
static void
side_answer(PGconn *conn, const char *sql, const char *param, int secs, char *out, size_t len)
{
    uint64_t deadline = now_us() + (uint64_t)secs * 1000000u;
    PGresult *res = NULL;
    long rows = 0;

    out[0] = '\0';
    if (!PQsendQueryParams(conn, sql, 1, NULL, &param, NULL, NULL, 0))
        return;
    PQsetSingleRowMode(conn);
    while (wait_result(conn, deadline) == 0 && take_result(conn, &res, &rows) == 1)
        ;
    if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) > 0)
        text_clean(out, len, PQgetvalue(res, 0, 0));
    PQclear(res);
}

/*
 * What conn's statement waits for, asked on a second connection: "a lock on
 * T held by pid N, idle in transaction", or "the server's answer". The
 * chain of blockers is followed to its root: behind a queued ALTER TABLE the
 * wait is for the session the ALTER waits for, not the ALTER.
 */
static void
what_blocks(PGconn *conn, char *out, size_t len)
{
    static const char sql[] =
        "with recursive chain(pid, depth) as ("
        " select unnest(pg_blocking_pids($1::int)), 1"
        " union select unnest(pg_blocking_pids(c.pid)), c.depth + 1 from chain c"
        " where c.depth < 8) "
        "select format('a lock on %s held by pid %s, %s%s', coalesce(w.relation::regclass::text, "
        "w.locktype), b.pid, coalesce(b.state, 'no state'), case when c.depth > 1 then "
        "format(' (pid %s waits for it too, ahead of this one)', "
        "(pg_blocking_pids($1::int))[1]) else '' end) "
        "from pg_locks w, chain c, pg_stat_activity b "
        "where w.pid = $1::int and not w.granted and b.pid = c.pid "
        "order by cardinality(pg_blocking_pids(c.pid)) = 0 desc, c.depth limit 1";
    PQconninfoOption *o = PQconninfo(conn), *i;
    const char *keys[64], *values[64];
    char pid[16], lock[256];
    int n = 0;
    PGconn *side;

    snprintf(out, len, "the server's answer");
    for (i = o; i != NULL && i->keyword != NULL && n < 62; i++)
        if (i->val != NULL && strcmp(i->keyword, "application_name") != 0)
            keys[n] = i->keyword, values[n++] = i->val;
    keys[n] = "connect_timeout", values[n++] = "2";
    keys[n] = values[n] = NULL;
    side = PQconnectdbParams(keys, values, 0);
    PQconninfoFree(o);
    snprintf(pid, sizeof pid, "%d", PQbackendPID(conn));
    if (PQstatus(side) == CONNECTION_OK) {
        side_answer(side, sql, pid, 2, lock, sizeof lock);
        if (lock[0] != '\0')
            snprintf(out, len, "%s", lock);
    }
    PQfinish(side);
}

PGresult *
pg_result_bounded(PGconn *conn, int secs, char *err)
{
    uint64_t t0 = now_us(), deadline = secs > 0 ? t0 + (uint64_t)secs * 1000000u : 0;
    char why[300] = "the server's answer";
    PGresult *res = NULL;
    long rows = 0;
    int rc, told = 0;

    PQsetSingleRowMode(conn); /* refused after PQsendPrepare, which returns no rows */
    if (first_messages_too_large(conn)) {
        seterr(err,
               "the server announced a message over %d MiB for one of benchtop's own statements "
               "(is this a PostgreSQL server?)",
               PG_REPLY_MAX >> 20);
        return NULL;
    }
    for (;;) {
        rc = wait_result(conn, told ? deadline : t0 + 1000000u);
        if (rc == 1 && !told) {
            told = 1;
            what_blocks(conn, why, sizeof why);
            fprintf(stderr, "benchtop: waiting for %s\n", why);
            continue;
        }
        if (rc == 0 && (rc = take_result(conn, &res, &rows)) == 1)
            continue;
        break;
    }
    if (rc == 0)
        return res;
    PQclear(res);
    if (rc == 1)
        seterr(err, "gave up after %d s waiting for %s (end that session, or check the server)",
               secs, why);
    else if (rows > PG_ROWS_MAX)
        seterr(err,
               "the server sent more than %d rows for one of benchtop's own statements "
               "(is this a PostgreSQL server?)",
               PG_ROWS_MAX);
    else if (progress_interrupted())
        seterr(err, "interrupted while waiting for %s", why);
    else
        pg_result_error(conn, NULL, "read the server's answer", err);
    return NULL;
}

PGresult *
pg_exec_bounded(PGconn *conn, const char *sql, int secs, char *err)
{
    if (!PQsendQuery(conn, sql)) {
        pg_result_error(conn, NULL, "send a statement", err);
        return NULL;
    }
    return pg_result_bounded(conn, secs, err);
}

/* "could not VERB OBJECT: server message (fix)" from a failed result. */
static int
sql_error(PGconn *conn, const PGresult *res, const char *verb, const char *object, char *err)
{
    char what[160];

    snprintf(what, sizeof what, "%s %s", verb, object);
    return pg_result_error(conn, res, what, err);
}

/* Data steps (keys, vacuum) take as long as the data: no deadline, but their waits are told. */
static int
run_sql(PGconn *conn, const char *sql, const char *verb, const char *object, char *err)
{
    int quick = strncmp(sql, "alter", 5) != 0 && strncmp(sql, "vacuum", 6) != 0;
    PGresult *res = pg_exec_bounded(conn, sql, quick ? PG_ANSWER_TIMEOUT_S : 0, err);
    int rc = 0;

    if (res == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = sql_error(conn, res, verb, object, err);
    PQclear(res);
    return rc;
}

static int drain_results(PGconn *conn, const char *verb, const char *object, char *err);

/*
 * run_sql for one long statement (a primary key at scale 50 takes seconds):
 * sent, then waited for a second at a time, saying how long it has run.
 */
static int
run_sql_ticking(struct init_run *r, const char *sql, const char *verb, const char *object,
                char *err)
{
    struct pollfd p = {.fd = PQsocket(r->conn), .events = POLLIN};
    int seconds = 0;

    if (!PQsendQuery(r->conn, sql))
        return sql_error(r->conn, NULL, verb, object, err);
    while (PQisBusy(r->conn)) {
        int n = poll(&p, 1, 1000);
        if (n == 0)
            progress_tick(r->ic->quiet, "creating primary keys", ++seconds);
        if ((n > 0 || (n < 0 && errno == EINTR)) && !PQconsumeInput(r->conn))
            break; /* the connection failed: PQgetResult says how */
        if (n < 0 && errno != EINTR)
            break;
    }
    return drain_results(r->conn, verb, object, err);
}

/* Reads every pending result so the connection is ready for the next command. */
static int
drain_results(PGconn *conn, const char *verb, const char *object, char *err)
{
    PGresult *res;
    int rc = 0;

    while ((res = PQgetResult(conn)) != NULL) {
        if (rc == 0 && PQresultStatus(res) != PGRES_COMMAND_OK)
            rc = sql_error(conn, res, verb, object, err);
        PQclear(res);
    }
    return rc;
}

static size_t
put_uint(char *dst, uint64_t v)
{
    char tmp[20];
    size_t n = 0, i;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (i = 0; i < n; i++)
        dst[i] = tmp[n - 1 - i];
    return n;
}

static size_t
put_text(char *dst, const char *s)
{
    size_t n = strlen(s);

    memcpy(dst, s, n);
    return n;
}

/* pgbench 15 INSERTs branches and tellers without filler, so it stays NULL (\N). */
static size_t
branch_row(char *dst, int64_t row)
{
    size_t n = put_uint(dst, (uint64_t)row + 1);

    return n + put_text(dst + n, "\t0\t\\N\n");
}

static size_t
teller_row(char *dst, int64_t row)
{
    size_t n = put_uint(dst, (uint64_t)row + 1);

    dst[n++] = '\t';
    n += put_uint(dst + n, (uint64_t)(row / TELLERS_PER_SCALE) + 1);
    return n + put_text(dst + n, "\t0\t\\N\n");
}

/* An empty filler that char(84) pads with blanks: pgbench's nod to TPC-B's row size. */
static size_t
account_row(char *dst, int64_t row)
{
    size_t n = put_uint(dst, (uint64_t)row + 1);

    dst[n++] = '\t';
    n += put_uint(dst + n, (uint64_t)(row / ACCOUNTS_PER_SCALE) + 1);
    return n + put_text(dst + n, "\t0\t\n");
}

static const struct pg_table pg_tables[] = {
    {"pgbench_branches", "bid int not null,bbalance int,filler char(88)",
     "bid int not null,bbalance int,filler char(88)", 1, BRANCHES_PER_SCALE, branch_row, "bid"},
    {"pgbench_tellers", "tid int not null,bid int,tbalance int,filler char(84)",
     "tid int not null,bid int,tbalance int,filler char(84)", 1, TELLERS_PER_SCALE, teller_row,
     "tid"},
    {"pgbench_accounts", "aid int not null,bid int,abalance int,filler char(84)",
     "aid bigint not null,bid int,abalance int,filler char(84)", 1, ACCOUNTS_PER_SCALE, account_row,
     "aid"},
    {"pgbench_history", "tid int,bid int,aid int,delta int,mtime timestamp,filler char(22)",
     "tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)", 0, 0, NULL, NULL},
};

enum { N_TABLES = sizeof pg_tables / sizeof pg_tables[0] };

/* Existing tables may hold someone's data: touch them only when asked to. */
static int
check_existing(struct init_run *r, char *err)
{
    static const char sql[] =
        "select count(*) from pg_catalog.pg_class where relname in ('pgbench_accounts', "
        "'pgbench_branches', 'pgbench_history', 'pgbench_tellers') "
        "and pg_catalog.pg_table_is_visible(oid)";
    PGresult *res = pg_exec_bounded(r->conn, sql, PG_ANSWER_TIMEOUT_S, err);
    int found;

    if (res == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        sql_error(r->conn, res, "look for", "existing pgbench tables", err);
        PQclear(res);
        return -1;
    }
    found = atoi(PQgetvalue(res, 0, 0));
    PQclear(res);
    if (found > 0 && !r->ic->force)
        return seterr(err,
                      "pgbench tables already exist in database %s "
                      "(use --force to drop and recreate them)",
                      PQdb(r->conn));
    return 0;
}

static int
drop_tables(struct init_run *r, char *err)
{
    progress_say(r->ic->quiet, "dropping old tables...");
    return run_sql(r->conn,
                   "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, "
                   "pgbench_tellers",
                   "drop", "the old pgbench tables", err);
}

static int
create_tables(struct init_run *r, char *err)
{
    int big = r->scale >= BIGINT_SCALE;
    size_t i;

    progress_say(r->ic->quiet, "creating tables...");
    for (i = 0; i < N_TABLES; i++) {
        const struct pg_table *t = &pg_tables[i];
        char *sql = xasprintf("create table %s(%s)%s", t->name, big ? t->big_columns : t->columns,
                              t->fillfactor ? " with (fillfactor=100)" : "");
        int rc = run_sql(r->conn, sql, "create", t->name, err);

        free(sql);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int
put_chunk(struct init_run *r, const struct pg_table *t, const char *buf, size_t len, char *err)
{
    if (len > 0 && PQputCopyData(r->conn, buf, (int)len) != 1)
        return sql_error(r->conn, NULL, "copy into", t->name, err);
    progress_show(&r->progress, r->rows_done);
    return 0;
}

static int
copy_rows(struct init_run *r, const struct pg_table *t, char *buf, char *err)
{
    int64_t nrows = (int64_t)t->rows_per_scale * r->scale;
    int64_t row;
    size_t len = 0;

    for (row = 0; row < nrows; row++) {
        if (len > COPY_CHUNK - ROW_MAX) {
            if (put_chunk(r, t, buf, len, err) < 0)
                return -1;
            len = 0;
        }
        len += t->format_row(buf + len, row);
        r->rows_done++;
    }
    return put_chunk(r, t, buf, len, err);
}

/*
 * FREEZE (as pgbench does from server 14 on) is allowed because the table
 * was created in this transaction, and spares VACUUM a pass over the rows.
 */
static int
copy_table(struct init_run *r, const struct pg_table *t, char *err)
{
    int freeze = PQserverVersion(r->conn) >= 140000;
    char *sql = xasprintf("copy %s from stdin%s", t->name, freeze ? " with (freeze on)" : "");
    PGresult *res = PQexec(r->conn, sql);
    char *buf;
    int rc;

    free(sql);
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        sql_error(r->conn, res, "copy into", t->name, err);
        PQclear(res);
        return -1;
    }
    PQclear(res);
    buf = xmalloc(COPY_CHUNK);
    rc = copy_rows(r, t, buf, err);
    free(buf);
    /* On failure the caller drops the connection, which ends the COPY and the transaction. */
    if (rc < 0)
        return -1;
    if (PQputCopyEnd(r->conn, NULL) != 1)
        return sql_error(r->conn, NULL, "copy into", t->name, err);
    return drain_results(r->conn, "copy into", t->name, err);
}

static int
copy_tables(struct init_run *r, char *err)
{
    size_t i;

    r->rows_total = 0;
    for (i = 0; i < N_TABLES; i++)
        r->rows_total += (int64_t)pg_tables[i].rows_per_scale * r->scale;
    progress_start(&r->progress, "generating data (COPY)", r->rows_total, r->ic->quiet);
    for (i = 0; i < N_TABLES; i++)
        if (pg_tables[i].rows_per_scale > 0 && copy_table(r, &pg_tables[i], err) < 0)
            return -1;
    return 0;
}

static int
create_keys(struct init_run *r, char *err)
{
    size_t i;

    progress_say(r->ic->quiet, "creating primary keys...");
    for (i = 0; i < N_TABLES; i++) {
        const struct pg_table *t = &pg_tables[i];
        char *sql;
        int rc;

        if (t->key == NULL)
            continue;
        sql = xasprintf("alter table %s add primary key (%s)", t->name, t->key);
        rc = run_sql_ticking(r, sql, "add a primary key to", t->name, err);
        free(sql);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* VACUUM cannot run in a transaction block, so it comes after the commit. */
static int
vacuum_tables(struct init_run *r, char *err)
{
    size_t i;

    progress_say(r->ic->quiet, "vacuuming...");
    for (i = 0; i < N_TABLES; i++) {
        char *sql = xasprintf("vacuum analyze %s", pg_tables[i].name);
        int rc = run_sql(r->conn, sql, "vacuum", pg_tables[i].name, err);

        free(sql);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* One step of init, its time kept in *us for the summary. */
static int
timed_step(struct init_run *r, int (*step)(struct init_run *, char *), uint64_t *us, char *err)
{
    uint64_t t0 = now_us();
    int rc = step(r, err);

    *us = now_us() - t0;
    return rc;
}

/* Everything that must appear at once or not at all. */
static int
build_tables(struct init_run *r, char *err)
{
    if (run_sql(r->conn, "begin", "start", "a transaction", err) < 0)
        return -1;
    /* DROP ... IF EXISTS would print a NOTICE per missing table. */
    if (run_sql(r->conn, "set local client_min_messages = warning", "set", "client_min_messages",
                err) < 0)
        return -1;
    if (check_existing(r, err) < 0)
        return -1;
    if (r->ic->force && timed_step(r, drop_tables, &r->drop_us, err) < 0)
        return -1;
    if (timed_step(r, create_tables, &r->create_us, err) < 0 ||
        timed_step(r, copy_tables, &r->copy_us, err) < 0 ||
        timed_step(r, create_keys, &r->keys_us, err) < 0)
        return -1;
    return run_sql(r->conn, "commit", "commit", "the new tables", err);
}

static void
print_summary(const struct init_run *r, uint64_t total_us)
{
    const struct progress_step steps[] = {
        {"drop", r->drop_us}, {"create", r->create_us}, {"copy", r->copy_us},
        {"keys", r->keys_us}, {"vacuum", r->vacuum_us},
    };

    progress_done(r->ic->quiet, total_us, steps, 5);
}

char *
pg_mask_target(const char *target)
{
    struct spans s = {0};
    char *out, *o;
    size_t i, from = 0;

    find_passwords(target, &s);
    /* Each masked span is at least one byte long and becomes three. */
    out = o = xmalloc(3 * strlen(target) + 1);
    for (i = 0; i < s.n; i++) {
        memcpy(o, target + from, s.v[i].off - from);
        o += s.v[i].off - from;
        memcpy(o, "***", 3);
        o += 3;
        from = s.v[i].off + s.v[i].len;
    }
    strcpy(o, target + from);
    free(s.v);
    return out;
}

int
pg_result_error(PGconn *conn, const PGresult *res, const char *what, char *err)
{
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    char line[BT_ERRLEN];
    const char *hint;

    if (msg == NULL)
        msg = PQerrorMessage(conn);
    first_line(line, sizeof line, msg);
    hint = pg_error_hint(msg);
    return seterr(err, "could not %s: %s%s%s", what, line, *hint ? " " : "", hint);
}

/* The connect_timeout in force (target, PGCONNECT_TIMEOUT or ours), as libpq reads it: 0 none. */
static int
timeout_of(PGconn *conn)
{
    PQconninfoOption *opts = PQconninfo(conn), *o;
    int t = 0;

    for (o = opts; o != NULL && o->keyword != NULL; o++)
        if (strcmp(o->keyword, "connect_timeout") == 0 && o->val != NULL)
            t = atoi(o->val);
    PQconninfoFree(opts);
    return t <= 0 ? 0 : t < 2 ? 2 : t; /* libpq's floor */
}

/*
 * Another kind of server on the port (Redis, MySQL) waits for more of the
 * startup packet than PostgreSQL's first answer needs: after a second of
 * silence, what answers there is asked (answer.h) and named.
 */
static int
probe_silent(PGconn *conn, char *err)
{
    const char *host = PQhost(conn), *kind;

    if (host == NULL || host[0] == '/' || host[0] == '\0')
        return 0;
    kind = answer_probe(host, PQport(conn), 300);
    if (kind == NULL)
        return 0;
    return seterr(err,
                  "could not connect: %s answers at %s port %s, not PostgreSQL (check the "
                  "port, or use that database's scheme)",
                  kind, host, PQport(conn));
}

/* PQconnectPoll to the end, within the connect_timeout, probing a silent port once. */
static int
connect_watching(PGconn *conn, char *err)
{
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    uint64_t start = now_us(), limit = (uint64_t)timeout_of(conn) * 1000000u;
    int probed = 0;

    while (PQstatus(conn) != CONNECTION_BAD && st != PGRES_POLLING_OK &&
           st != PGRES_POLLING_FAILED) {
        struct pollfd p = {.fd = PQsocket(conn),
                           .events = st == PGRES_POLLING_READING ? POLLIN : POLLOUT};
        int n = poll(&p, 1, 250);

        if (n != 0) {
            st = PQconnectPoll(conn);
            continue;
        }
        if (limit && now_us() - start >= limit)
            return seterr(err,
                          "could not connect: timeout expired after %d s (check the host "
                          "and firewall)",
                          timeout_of(conn));
        if (!probed && now_us() - start >= 1000000u && (probed = 1) && probe_silent(conn, err) < 0)
            return -1;
    }
    return 0;
}

int
pg_connect_as(const char *target, const char *application_name, int connect_timeout_s, PGconn **out,
              char *err)
{
    /*
     * libpq applies the keys in order, the last value winning, and
     * dbname with expand_dbname=1 takes a URI or a conninfo string whole.
     * So a connect_timeout before dbname is only a default the target may
     * override, and an application_name after it overrides the target's.
     * fallback_application_name yields to the target and to PGAPPNAME, so
     * without a forced name the user's choice wins.
     */
    const char *keys[4], *values[4];
    char timeout[16];
    int n = 0;
    PGconn *conn;

    *out = NULL;
    if (check_target(target, err) < 0)
        return -1;
    if (connect_timeout_s > 0 && getenv("PGCONNECT_TIMEOUT") == NULL) {
        snprintf(timeout, sizeof timeout, "%d", connect_timeout_s);
        keys[n] = "connect_timeout";
        values[n++] = timeout;
    }
    keys[n] = "dbname";
    values[n++] = target;
    keys[n] = application_name ? "application_name" : "fallback_application_name";
    values[n++] = application_name ? application_name : "benchtop";
    keys[n] = values[n] = NULL;
    conn = PQconnectStartParams(keys, values, 1);
    if (conn == NULL)
        return seterr(err, "could not connect: out of memory");
    if (connect_watching(conn, err) < 0) {
        PQfinish(conn);
        return -1;
    }
    if (PQstatus(conn) != CONNECTION_OK) {
        connect_error(target, PQerrorMessage(conn), err);
        PQfinish(conn);
        return -1;
    }
    *out = conn;
    return 0;
}

void
pg_tls_read(PGconn *conn, struct drv_tls *out)
{
    const char *protocol = PQsslAttribute(conn, "protocol");
    const char *cipher = PQsslAttribute(conn, "cipher");

    memset(out, 0, sizeof *out);
    out->used = PQsslInUse(conn);
    if (!out->used)
        return;
    snprintf(out->protocol, sizeof out->protocol, "%s", protocol ? protocol : "?");
    snprintf(out->cipher, sizeof out->cipher, "%s", cipher ? cipher : "?");
}

int
pg_connect_blocking(const char *target, PGconn **out, char *err)
{
    return pg_connect_as(target, NULL, PG_CONNECT_TIMEOUT_S, out, err);
}

/*
 * One init per database at a time: two would drop each other's tables (or
 * meet a duplicate key). A session advisory lock, let go when the
 * connection closes, whatever ends it.
 */
static int
hold_init_lock(PGconn *conn, char *err)
{
    PGresult *res = pg_exec_bounded(
        conn, "select pg_try_advisory_lock(hashtext('benchtop init ' || current_database()))",
        PG_ANSWER_TIMEOUT_S, err);
    int held;

    if (res == NULL)
        return -1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        sql_error(conn, res, "take", "the init lock", err);
        PQclear(res);
        return -1;
    }
    held = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
    PQclear(res);
    if (!held)
        return seterr(err,
                      "another benchtop init is filling database %s (wait for it to end; "
                      "pg_stat_activity shows it)",
                      PQdb(conn));
    return 0;
}

int
pg_init(const struct init_conf *ic, char *err)
{
    struct init_run r = {0};
    uint64_t t0, total;
    int rc;

    const struct pg_opts *o = ic->opts;

    if (o->scale < 1)
        return seterr(err, "scale must be at least 1, not %d (use --scale 1 or more)", o->scale);
    if (pg_connect_blocking(ic->target->raw, &r.conn, err) < 0)
        return -1;
    if (hold_init_lock(r.conn, err) < 0) {
        PQfinish(r.conn);
        return -1;
    }
    r.ic = ic;
    r.scale = o->scale;
    t0 = now_us();
    /* On failure closing the connection rolls the whole transaction back. */
    rc = build_tables(&r, err);
    if (rc == 0) {
        char why[BT_ERRLEN];

        rc = timed_step(&r, vacuum_tables, &r.vacuum_us, why);
        /* Say the data is there, or a rerun would only meet "already exist". */
        if (rc < 0)
            seterr(err, "tables created and filled, but %s", why);
    }
    total = now_us() - t0;
    PQfinish(r.conn);
    if (rc == 0)
        print_summary(&r, total);
    return rc;
}

const char *
pg_cell_text(const PGresult *res, int row, const char *col)
{
    int f = PQfnumber(res, col);

    if (f < 0 || row >= PQntuples(res) || PQgetisnull(res, row, f))
        return NULL;
    return PQgetvalue(res, row, f);
}

int64_t
pg_cell_i64(const PGresult *res, int row, const char *col, int64_t if_null)
{
    const char *s = pg_cell_text(res, row, col);

    return s ? strtoll(s, NULL, 10) : if_null;
}

double
pg_cell_f64(const PGresult *res, int row, const char *col, double if_null)
{
    const char *s = pg_cell_text(res, row, col);

    return s ? strtod(s, NULL) : if_null;
}
