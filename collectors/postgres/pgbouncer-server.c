/*
 * pgbouncer-server: a throwaway PgBouncer in front of a throwaway
 * PostgreSQL, for `benchtop demo pgbouncer` and the integration tests.
 *
 * The PostgreSQL behind is a postgres server class of its own (its own
 * folder and port, s->behind names it); PgBouncer listens on s->port with
 * trust authentication for postgres, who is also its admin (the console is
 * the database "pgbouncer"). Transaction pooling and a pool of 8 server
 * connections per database, as a small production set-up would have; the
 * tests change the pool with SET on the console.
 */
#include "base/throwaway.h"
#include "engine/registry.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PGB_MISSING_FIX "install the pgbouncer package (apt-get install pgbouncer)"

enum { PGB_START_TIMEOUT_MS = 10000, PGB_STOP_TIMEOUT_MS = 10000, PGB_POOL_SIZE = 8 };

static const char *const pgbouncer_globs[] = {"/usr/sbin/pgbouncer", "/usr/local/bin/pgbouncer",
                                              NULL};

struct pgb_server {
    char prog[PATH_MAX];
    char ini[320];
    struct server pg; /* the PostgreSQL behind */
};

static int
write_config(const struct server *s, struct pgb_server *pb, char *err)
{
    char users[320], *ini;
    int rc;

    snprintf(users, sizeof users, "%s/userlist.txt", s->dir);
    snprintf(pb->ini, sizeof pb->ini, "%s/pgbouncer.ini", s->dir);
    ini = xasprintf("[databases]\n* = host=127.0.0.1 port=%d\n\n[pgbouncer]\n"
                    "listen_addr = 127.0.0.1\nlisten_port = %d\nunix_socket_dir = %s\n"
                    "auth_type = trust\nauth_file = %s\nadmin_users = postgres\n"
                    "pool_mode = transaction\ndefault_pool_size = %d\nmax_client_conn = 2000\n"
                    "pidfile = %s/pgbouncer.pid\nignore_startup_parameters = extra_float_digits\n",
                    pb->pg.port, s->port, s->dir, users, PGB_POOL_SIZE, s->dir);
    rc = server_write_file(s, users, "\"postgres\" \"\"\n", err);
    if (rc == 0)
        rc = server_write_file(s, pb->ini, ini, err);
    free(ini);
    return rc;
}

static int
spawn(struct server *s, struct pgb_server *pb, char *err)
{
    char *argv[] = {pb->prog, pb->ini, NULL};

    return server_start(s, argv, "pgbouncer", PGB_START_TIMEOUT_MS, err);
}

static int
pgb_start(struct server *s, char *err)
{
    struct pgb_server *pb = xcalloc(1, sizeof *pb);
    const struct server_class *pg = server_class_find("postgres");

    s->priv = pb;
    snprintf(s->log, sizeof s->log, "%s/pgbouncer.log", s->dir);
    if (server_find_program("pgbouncer", pgbouncer_globs, pb->prog, sizeof pb->prog) < 0)
        return seterr(err, "pgbouncer not found: " PGB_MISSING_FIX);
    if (pg == NULL)
        return seterr(err, "pgbouncer needs the postgres backend (configure --with-postgres)");
    if (server_create(&pb->pg, pg, err) < 0 || write_config(s, pb, err) < 0 ||
        spawn(s, pb, err) < 0)
        return -1;
    snprintf(s->target, sizeof s->target, "postgres://postgres@127.0.0.1:%d/postgres", s->port);
    snprintf(s->behind, sizeof s->behind, "%s", pb->pg.target);
    return 0;
}

/* Restarts the pooler only: the server behind keeps running, as in a pooler's upgrade. */
static int
pgb_restart(struct server *s, char *err)
{
    struct pgb_server *pb = s->priv;

    server_stop_pid(s, PGB_STOP_TIMEOUT_MS); /* SIGTERM: immediate shutdown, clients dropped */
    return spawn(s, pb, err) == 0 ? 0 : server_explain(s, err);
}

static void
pgb_stop(struct server *s)
{
    struct pgb_server *pb = s->priv;

    server_stop_pid(s, PGB_STOP_TIMEOUT_MS);
    if (pb != NULL)
        server_destroy(&pb->pg);
}

const struct server_class pgbouncer_server_class = {
    .name = "pgbouncer",
    .start = pgb_start,
    .restart = pgb_restart,
    .stop = pgb_stop,
};
