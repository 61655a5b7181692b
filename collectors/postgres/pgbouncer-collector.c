/*
 * pgbouncer-collector: the server pane for a PgBouncer pooler, read on its
 * admin console with SHOW POOLS, SHOW STATS, SHOW DATABASES and SHOW CONFIG
 * (simple query protocol, one command per query: the console takes no
 * more). Columns are found by name, so versions that add columns parse the
 * same. The console's own pool ("pgbouncer") is left out of every figure.
 */
#include "pgbouncer.h"
#include "postgres.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/runconf.h"
#include "engine/target.h"

enum { CONNECT_TIMEOUT_S = 3 };

static const char app_name[] = "benchtop-collector";
static const char POOL[] = "pool", POOLER[] = "pooler";

struct pgb_coll {
    PGconn *conn;
};

static int
is_console(const PGresult *res, int row)
{
    const char *db = pg_cell_text(res, row, "database");

    return db != NULL && strcmp(db, "pgbouncer") == 0;
}

static PGresult *
show(PGconn *conn, const char *what, char *err)
{
    PGresult *res = PQexec(conn, what);
    char msg[BT_ERRLEN];

    if (PQresultStatus(res) == PGRES_TUPLES_OK)
        return res;
    first_line(msg, sizeof msg, PQerrorMessage(conn));
    seterr(err, "pgbouncer %s: %s", what, msg);
    PQclear(res);
    return NULL;
}

/* --- the parts of one sample --- */

/* Sums the pools; the busiest one (most clients) names the mode. */
static void
parse_pools(const PGresult *res, struct pgb_sample *s)
{
    int busiest = -1, best = -1;

    for (int r = 0; r < PQntuples(res); r++) {
        int clients;
        double wait;

        if (is_console(res, r))
            continue;
        s->pools++;
        s->cl_active += (int)pg_cell_i64(res, r, "cl_active", 0);
        s->cl_waiting += (int)pg_cell_i64(res, r, "cl_waiting", 0);
        s->sv_active += (int)pg_cell_i64(res, r, "sv_active", 0);
        s->sv_idle += (int)pg_cell_i64(res, r, "sv_idle", 0);
        s->sv_used += (int)pg_cell_i64(res, r, "sv_used", 0);
        s->sv_login += (int)pg_cell_i64(res, r, "sv_login", 0);
        wait = (double)pg_cell_i64(res, r, "maxwait", 0) +
               (double)pg_cell_i64(res, r, "maxwait_us", 0) / 1e6;
        s->maxwait_s = fmax(s->maxwait_s, wait);
        clients = (int)(pg_cell_i64(res, r, "cl_active", 0) + pg_cell_i64(res, r, "cl_waiting", 0));
        if (clients > best) {
            best = clients;
            busiest = r;
        }
    }
    if (busiest >= 0 && pg_cell_text(res, busiest, "pool_mode") != NULL)
        snprintf(s->pool_mode, sizeof s->pool_mode, "%s", pg_cell_text(res, busiest, "pool_mode"));
}

static void
parse_stats(const PGresult *res, struct pgb_sample *s)
{
    for (int r = 0; r < PQntuples(res); r++) {
        if (is_console(res, r))
            continue;
        s->xact_count += pg_cell_i64(res, r, "total_xact_count", 0);
        s->query_count += pg_cell_i64(res, r, "total_query_count", 0);
        s->xact_time_us += pg_cell_i64(res, r, "total_xact_time", 0);
        s->query_time_us += pg_cell_i64(res, r, "total_query_time", 0);
        s->wait_time_us += pg_cell_i64(res, r, "total_wait_time", 0);
    }
}

/* SHOW CONFIG rows are key, value, ...: default_pool_size and max_client_conn. */
static void
parse_config(const PGresult *res, struct pgb_sample *s)
{
    for (int r = 0; r < PQntuples(res); r++) {
        const char *key = pg_cell_text(res, r, "key"), *value = pg_cell_text(res, r, "value");

        if (key == NULL || value == NULL)
            continue;
        if (strcmp(key, "default_pool_size") == 0 && s->pool_size == 0)
            s->pool_size = atoi(value);
        else if (strcmp(key, "max_client_conn") == 0)
            s->max_client_conn = atoi(value);
        else if (strcmp(key, "pool_mode") == 0 && s->pool_mode[0] == '\0')
            snprintf(s->pool_mode, sizeof s->pool_mode, "%s", value);
    }
}

/* A database's own pool_size overrides default_pool_size: take the largest one set. */
static void
parse_databases(const PGresult *res, struct pgb_sample *s)
{
    for (int r = 0; r < PQntuples(res); r++) {
        if (!is_console(res, r) && pg_cell_text(res, r, "pool_size") != NULL)
            s->pool_size = (int)fmax(s->pool_size, (double)pg_cell_i64(res, r, "pool_size", 0));
    }
}

static int
sample_version(PGconn *conn, struct pgb_sample *s, char *err)
{
    uint64_t t0 = now_us();
    PGresult *res = show(conn, "SHOW VERSION", err);

    if (res == NULL)
        return -1;
    s->rtt_ms = (double)(now_us() - t0) / 1000.0;
    if (PQntuples(res) > 0 && PQnfields(res) > 0)
        snprintf(s->version, sizeof s->version, "%s", PQgetvalue(res, 0, 0));
    PQclear(res);
    return 0;
}

/* --- the collector class --- */

/* The console of the PgBouncer at target (its raw string: libpq's conninfo or URI). */
static struct pgb_coll *
console_open(const char *target, char *err)
{
    struct pgb_coll *c = xcalloc(1, sizeof *c);
    char *console = pgb_console_target(target);
    int rc = pg_connect_as(console, app_name, CONNECT_TIMEOUT_S, &c->conn, err);

    free(console);
    if (rc < 0) {
        free(c);
        return NULL;
    }
    return c;
}

static void *
pgb_coll_open(const struct target *target, char *err)
{
    return console_open(target->raw, err);
}

static int
pgb_coll_has_setting(void *conn, const char *name, const char *value, char *err)
{
    return pgb_has_setting(((struct pgb_coll *)conn)->conn, name, value, err);
}

static char *
pgb_coll_undo_value(void *conn, const char *name, char *err)
{
    return pgb_undo_value(((struct pgb_coll *)conn)->conn, name, err);
}

static int
pgb_coll_apply(void *conn, const char *name, const char *value, char *err)
{
    return pgb_apply_setting(((struct pgb_coll *)conn)->conn, name, value, err);
}

static void
pgb_coll_close(void *conn)
{
    struct pgb_coll *c = conn;

    PQfinish(c->conn);
    free(c);
}

static int
pgb_coll_sample(void *conn, void *out, char *err)
{
    static const char *const what[] = {"SHOW POOLS", "SHOW STATS", "SHOW DATABASES", "SHOW CONFIG"};
    static void (*const parse[])(const PGresult *, struct pgb_sample *) = {
        parse_pools, parse_stats, parse_databases, parse_config};
    struct pgb_coll *c = conn;
    struct pgb_sample *s = out;

    if (sample_version(c->conn, s, err) < 0)
        return -1;
    for (size_t i = 0; i < sizeof what / sizeof what[0]; i++) {
        PGresult *res = show(c->conn, what[i], err);

        if (res == NULL)
            return -1;
        parse[i](res, s);
        PQclear(res);
    }
    return 0;
}

/* --- derive: pure --- */

static void
add_ms(struct coll_view *v, const char *section, const char *label, double ms, enum row_level level)
{
    if (isnan(ms))
        coll_row_add(v, section, label, NAN, ROW_DIM, "-");
    else
        coll_row_add(v, section, label, ms, level, "%.2f ms", ms);
}

static void
derive_pool(const struct pgb_sample *c, struct coll_view *v)
{
    coll_row_add(v, POOL, "clients waiting", c->cl_waiting, c->cl_waiting ? ROW_WARN : ROW_GOOD,
                 "%d", c->cl_waiting);
    add_ms(v, POOL, "longest wait", c->maxwait_s * 1000.0,
           c->maxwait_s > 0 ? ROW_WARN : ROW_NORMAL);
    coll_row_add(v, POOL, "clients active", c->cl_active, ROW_NORMAL, "%d", c->cl_active);
    coll_row_add(v, POOL, "server conns", c->sv_active, /* num: the busy ones */
                 c->pool_size > 0 && c->sv_active >= c->pool_size ? ROW_WARN : ROW_NORMAL,
                 "%d active, %d idle of %d", c->sv_active, c->sv_idle + c->sv_used, c->pool_size);
    coll_row_add(v, POOL, "pool mode", NAN, ROW_NORMAL, "%s", c->pool_mode[0] ? c->pool_mode : "-");
    coll_row_add(v, POOL, "max client conn", c->max_client_conn, ROW_NORMAL, "%d",
                 c->max_client_conn);
}

static void
derive_rates(const struct pgb_sample *p, const struct pgb_sample *c, double secs,
             struct coll_view *v)
{
    double xacts = p ? (double)(c->xact_count - p->xact_count) : NAN;
    double queries = p ? (double)(c->query_count - p->query_count) : NAN;

    if (p == NULL || secs <= 0 || xacts < 0) {
        coll_row_add(v, POOLER, "transactions/s", NAN, ROW_DIM, "-");
        return;
    }
    v->server_tps = xacts / secs;
    coll_row_add(v, POOLER, "transactions/s", xacts / secs, ROW_NORMAL, "%.1f", xacts / secs);
    coll_row_add(v, POOLER, "queries/s", queries / secs, ROW_NORMAL, "%.1f", queries / secs);
    add_ms(v, POOLER, "wait per xact",
           xacts > 0 ? (double)(c->wait_time_us - p->wait_time_us) / xacts / 1000.0 : NAN,
           c->wait_time_us > p->wait_time_us ? ROW_WARN : ROW_NORMAL);
    add_ms(v, POOLER, "server time/xact",
           xacts > 0 ? (double)(c->xact_time_us - p->xact_time_us) / xacts / 1000.0 : NAN,
           ROW_NORMAL);
}

static void
pgb_coll_derive(const void *prev, const void *cur, double secs, struct coll_view *v)
{
    const struct pgb_sample *p = prev, *c = cur;

    coll_view_reset(v);
    derive_pool(c, v);
    derive_rates(p, c, secs, v);
    coll_row_add(v, POOLER, "version", NAN, ROW_NORMAL, "%s", c->version);
    if (p != NULL && p->cl_waiting == 0 && c->cl_waiting > 0)
        coll_event_add(v, "pgbouncer: %d clients wait for a server connection", c->cl_waiting);
    v->sig.pool_waiting = c->cl_waiting;
    v->sig.pool_servers = c->sv_active;
    v->sig.pool_size = c->pool_size;
    v->sig.pool_maxwait_ms = c->maxwait_s * 1000.0;
    snprintf(v->sig.pool_mode, sizeof v->sig.pool_mode, "%.11s", c->pool_mode);
    snprintf(v->sig.pool_setting, sizeof v->sig.pool_setting, "default_pool_size");
    v->sig.rtt_ms = c->rtt_ms;
}

/* --- finding a pooler behind a target --- */

char *
pgb_console_target(const char *target)
{
    /* libpq applies the last dbname: a URI's own database yields to ?dbname=pgbouncer. */
    const char *sep = strchr(target, '?') ? "&" : "?";

    if (strstr(target, "://") == NULL)
        return xasprintf("%s dbname=pgbouncer", target);
    return xasprintf("%s%sdbname=pgbouncer", target, sep);
}

/* One sample of the console at target; 0, or -1 when it is no PgBouncer console. */
static int
probe(const char *target, struct pgb_sample *s)
{
    char err[BT_ERRLEN];
    struct pgb_coll *c = console_open(target, err);
    int rc;

    if (c == NULL)
        return -1;
    rc = pgb_coll_sample(c, s, err);
    pgb_coll_close(c);
    return rc == 0 && strstr(s->version, "PgBouncer") != NULL ? 0 : -1;
}

/*
 * 1 when target reaches PostgreSQL itself: its port setting is the port
 * connected to (through PgBouncer it is the port of the server behind).
 * Such a target is not probed: a server asked for a database "pgbouncer"
 * that it lacks writes a FATAL line to its log, one per run of benchtop.
 */
static int
is_server_itself(const char *target)
{
    char err[BT_ERRLEN];
    PGconn *conn;
    PGresult *res;
    int itself;

    if (pg_connect_as(target, app_name, CONNECT_TIMEOUT_S, &conn, err) < 0)
        return 0;
    res = PQexec(conn, "SELECT current_setting('port')");
    itself = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
             strcmp(PQgetvalue(res, 0, 0), PQport(conn)) == 0;
    PQclear(res);
    PQfinish(conn);
    return itself;
}

static int
pgb_coll_detect(const char *target)
{
    struct pgb_sample s = {0};

    return !is_server_itself(target) && probe(target, &s) == 0;
}

/* Protocol-level prepared statements in transaction pooling came with PgBouncer 1.21. */
static int
keeps_prepared(const char *version)
{
    int major = 0, minor = 0;

    sscanf(version, "PgBouncer %d.%d", &major, &minor);
    return major > 1 || (major == 1 && minor >= 21);
}

static int
pgb_coll_vet(const char *pooler_target, const struct runconf *rc, char *err)
{
    struct pgb_sample s = {0};

    if (rc->mode == NULL || strcmp(rc->mode, "prepared") != 0)
        return 0;
    if (probe(pooler_target, &s) < 0 || strcmp(s.pool_mode, "session") == 0 ||
        keeps_prepared(s.version))
        return 0;
    return seterr(err,
                  "-M prepared cannot work through %s in %s pooling: a server connection does "
                  "not keep a client's prepared statements (use -M extended or simple, or "
                  "pool_mode = session)",
                  s.version, s.pool_mode);
}

const struct collector_class pgbouncer_collector_class = {
    .name = "pgbouncer",
    .title = "PgBouncer",
    .pools = "postgres",
    .sample_size = sizeof(struct pgb_sample),
    .open = pgb_coll_open,
    .close = pgb_coll_close,
    .sample = pgb_coll_sample,
    .derive = pgb_coll_derive,
    .detect = pgb_coll_detect,
    .vet = pgb_coll_vet,
    .has_setting = pgb_coll_has_setting,
    .apply_setting = pgb_coll_apply,
    .undo_value = pgb_coll_undo_value,
};
