/*
 * postgres/server: a throwaway PostgreSQL cluster (initdb + pg_ctl) for
 * `benchtop serve postgres`, `benchtop demo` and the integration tests.
 *
 * Everything lives in the server's folder: DIR/data (the cluster), DIR/postgres.log
 * (the output of initdb and pg_ctl, and the server's own log) and the Unix
 * socket. The server listens on 127.0.0.1 only, with trust authentication
 * for the user postgres: fine for a cluster nobody else can reach for long.
 * pg_stat_statements is preloaded, so that watch can show the top
 * statements once a database has CREATE EXTENSION pg_stat_statements.
 */
#include "base/throwaway.h"
#include "base/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PG_SERVER_MISSING_FIX "install the postgresql package (apt-get install postgresql)"

/* Where distributions put the server programs, which are usually not in PATH. */
static const char *const initdb_globs[] = {
    "/usr/lib/postgresql/*/bin/initdb", /* Debian, Ubuntu */
    "/usr/pgsql-*/bin/initdb",          /* PGDG packages for RHEL, Fedora */
    "/usr/local/pgsql/bin/initdb",      /* built from source */
    NULL,
};

static const char *const pg_ctl_globs[] = {
    "/usr/lib/postgresql/*/bin/pg_ctl",
    "/usr/pgsql-*/bin/pg_ctl",
    "/usr/local/pgsql/bin/pg_ctl",
    NULL,
};

struct pg_server {
    char initdb[PATH_MAX];
    char pg_ctl[PATH_MAX];
    char data[300]; /* DIR/data */
};

/* pg_ctl from initdb's folder when it is there, so that both come from the same version. */
static int
find_programs(struct pg_server *pg, char *err)
{
    const char *slash;

    if (server_find_program("initdb", initdb_globs, pg->initdb, sizeof pg->initdb) < 0)
        return seterr(err, "initdb not found: " PG_SERVER_MISSING_FIX);
    slash = strrchr(pg->initdb, '/');
    snprintf(pg->pg_ctl, sizeof pg->pg_ctl, "%.*s/pg_ctl", (int)(slash - pg->initdb), pg->initdb);
    if (access(pg->pg_ctl, X_OK) == 0)
        return 0;
    if (server_find_program("pg_ctl", pg_ctl_globs, pg->pg_ctl, sizeof pg->pg_ctl) < 0)
        return seterr(err, "pg_ctl not found: " PG_SERVER_MISSING_FIX);
    return 0;
}

static int
run_initdb(struct server *s, struct pg_server *pg, char *err)
{
    char *argv[] = {pg->initdb, "-D",   pg->data,     "-U",        "postgres", "--auth=trust",
                    "-E",       "UTF8", "--locale=C", "--no-sync", NULL};

    return server_run(s, argv, s->log, err);
}

static int
run_pg_ctl_start(struct server *s, struct pg_server *pg, char *err)
{
    char opts[512];
    /* pg_ctl hands -o to a shell: fine, mkdtemp names have no special characters. */
    char *argv[] = {pg->pg_ctl, "-D", pg->data, "-l", s->log,  "-w",
                    "-t",       "60", "-o",     opts, "start", NULL};

    snprintf(opts, sizeof opts,
             "-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200 "
             "-c shared_buffers=128MB -c shared_preload_libraries=pg_stat_statements",
             s->port, s->dir);
    return server_run(s, argv, s->log, err);
}

/* The -o options of the first start are remembered in DIR/data/postmaster.opts. */
static int
run_pg_ctl_restart(struct server *s, struct pg_server *pg, char *err)
{
    char *argv[] = {pg->pg_ctl, "-D", pg->data, "-l", s->log,    "-m",
                    "fast",     "-w", "-t",     "60", "restart", NULL};

    return server_run(s, argv, s->log, err);
}

static int
run_pg_ctl_stop(struct server *s, struct pg_server *pg, char *mode, char *timeout)
{
    char err[BT_ERRLEN];
    char *argv[] = {pg->pg_ctl, "-D", pg->data, "-m", mode, "-w", "-t", timeout, "stop", NULL};

    return server_run(s, argv, s->log, err);
}

static int
wait_accepting(const struct server *s, int timeout_ms, char *err)
{
    if (server_wait_port(s->port, timeout_ms) == 0)
        return 0;
    return seterr(err, "postgres is running but 127.0.0.1:%d does not accept connections", s->port);
}

static int
pg_start(struct server *s, char *err)
{
    struct pg_server *pg = xcalloc(1, sizeof *pg);

    s->priv = pg;
    if (find_programs(pg, err) < 0)
        return -1;
    snprintf(pg->data, sizeof pg->data, "%s/data", s->dir);
    snprintf(s->log, sizeof s->log, "%s/postgres.log", s->dir);
    /* server_create adds the log's last line and keeps it: no server_explain() here. */
    if (run_initdb(s, pg, err) < 0 || run_pg_ctl_start(s, pg, err) < 0 ||
        wait_accepting(s, 10000, err) < 0)
        return -1;
    snprintf(s->target, sizeof s->target, "postgres://postgres@127.0.0.1:%d/postgres", s->port);
    return 0;
}

static int
pg_restart(struct server *s, char *err)
{
    struct pg_server *pg = s->priv;

    if (run_pg_ctl_restart(s, pg, err) < 0)
        return server_explain(s, err);
    return wait_accepting(s, 30000, err);
}

static void
pg_stop(struct server *s)
{
    struct pg_server *pg = s->priv;
    char pidfile[320];

    if (pg == NULL)
        return;
    snprintf(pidfile, sizeof pidfile, "%s/postmaster.pid", pg->data);
    /* No pid file: nothing runs (a start that failed early), and pg_ctl would only log noise. */
    if (pg->data[0] != '\0' && access(pidfile, F_OK) == 0 &&
        run_pg_ctl_stop(s, pg, "fast", "30") < 0)
        /* The folder is removed next: a server left running would hold deleted files forever. */
        run_pg_ctl_stop(s, pg, "immediate", "10");
}

const struct server_class postgres_server_class = {
    .name = "postgres",
    .run_as = "postgres",
    .start = pg_start,
    .restart = pg_restart,
    .stop = pg_stop,
};
