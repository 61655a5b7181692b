/*
 * mysql/server: a throwaway MariaDB (mariadb-install-db + mariadbd) for
 * `benchtop serve mysql`, `benchtop demo` and the integration tests.
 *
 * Everything lives in the server's folder: DIR/data (the data files),
 * DIR/mariadb.log (the output of mariadb-install-db and the server's error
 * log), DIR/mysqld.sock and DIR/mysqld.pid. The server reads no option
 * file (--no-defaults) and listens on 127.0.0.1 only. Grant tables are on,
 * so tests can make users with passwords: mariadb-install-db's "normal"
 * root accounts (root@localhost, root@127.0.0.1, no password) are what
 * benchtop connects as, and a database "benchtop" is created at install
 * time. mariadbd is benchtop's own child, so stopping it is a signal and a
 * wait, with no pid file to trust. TLS is off unless DIR/tls.crt and
 * DIR/tls.key are there when mariadbd starts (a test makes them and
 * restarts the server): mariadbd reads its certificate only at start, and
 * aborts when a file it is told of is missing. In the same way each line
 * of DIR/server.opts that starts with "--" is one more option for
 * mariadbd at its next start (a test turns performance_schema on so).
 */
#include "base/throwaway.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MY_SERVER_MISSING_FIX "install the mariadb-server package (apt-get install mariadb-server)"

/* How long a clean shutdown may take before mariadbd is killed. */
enum { STOP_TIMEOUT_MS = 60000, READY_TIMEOUT_MS = 60000 };
/* At most this many options from DIR/server.opts. */
enum { MY_OPTS_MAX = 8 };

static const char *const install_db_globs[] = {
    "/usr/bin/mariadb-install-db",
    "/usr/bin/mysql_install_db",
    "/usr/local/mysql/scripts/mariadb-install-db",
    NULL,
};

static const char *const mariadbd_globs[] = {
    "/usr/sbin/mariadbd",    /* Debian, Ubuntu */
    "/usr/libexec/mariadbd", /* RHEL, Fedora */
    "/usr/sbin/mysqld",      "/usr/local/mysql/bin/mariadbd", NULL,
};

struct my_server {
    char install_db[PATH_MAX];
    char mariadbd[PATH_MAX];
    char datadir[320]; /* --datadir=DIR/data */
    char port[32];     /* --port=N */
    char socket[320];  /* --socket=DIR/mysqld.sock */
    char pidfile[320]; /* --pid-file=DIR/mysqld.pid */
    char logerr[340];  /* --log-error=DIR/mariadb.log */
    char extra[340];   /* --extra-file=DIR/init.sql */
    char tmpdir[320];  /* --tmpdir=DIR: temporary tables of its own, not in a shared /tmp */
    char extra_path[320];
    char ssl_cert[340];          /* --ssl-cert=DIR/tls.crt, when it and DIR/tls.key exist */
    char ssl_key[340];           /* --ssl-key=DIR/tls.key */
    char opts[MY_OPTS_MAX][200]; /* DIR/server.opts, read at each start */
};

static int
find_programs(struct my_server *my, char *err)
{
    if (server_find_program("mariadb-install-db", install_db_globs, my->install_db,
                            sizeof my->install_db) < 0)
        return seterr(err, "mariadb-install-db not found: " MY_SERVER_MISSING_FIX);
    if (server_find_program("mariadbd", mariadbd_globs, my->mariadbd, sizeof my->mariadbd) < 0)
        return seterr(err, "mariadbd not found: " MY_SERVER_MISSING_FIX);
    return 0;
}

static void
fill_args(const struct server *s, struct my_server *my)
{
    snprintf(my->datadir, sizeof my->datadir, "--datadir=%s/data", s->dir);
    snprintf(my->port, sizeof my->port, "--port=%d", s->port);
    snprintf(my->socket, sizeof my->socket, "--socket=%s/mysqld.sock", s->dir);
    snprintf(my->pidfile, sizeof my->pidfile, "--pid-file=%s/mysqld.pid", s->dir);
    snprintf(my->logerr, sizeof my->logerr, "--log-error=%s", s->log);
    snprintf(my->tmpdir, sizeof my->tmpdir, "--tmpdir=%s", s->dir);
    snprintf(my->extra_path, sizeof my->extra_path, "%s/init.sql", s->dir);
    snprintf(my->extra, sizeof my->extra, "--extra-file=%s", my->extra_path);
}

/* SQL that mariadb-install-db runs after the system tables (bootstrap mode: no GRANT there). */
static int
write_init_sql(const struct my_server *my, char *err)
{
    static const char sql[] = "CREATE DATABASE IF NOT EXISTS benchtop;\n";
    FILE *f = fopen(my->extra_path, "w");

    if (f == NULL)
        return seterr(err, "cannot write %s: %s", my->extra_path, strerror(errno));
    fputs(sql, f);
    if (fclose(f) != 0)
        return seterr(err, "cannot write %s: %s", my->extra_path, strerror(errno));
    /* The folder is the server user's and 0700: a root-owned 0644 file in it is readable to it. */
    chmod(my->extra_path, 0644);
    return 0;
}

static int
run_install_db(struct server *s, struct my_server *my, char *err)
{
    char *argv[] = {my->install_db,
                    "--no-defaults", /* must come first */
                    my->datadir,
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db",
                    "--skip-name-resolve",
                    my->extra,
                    my->tmpdir,
                    NULL};

    return server_run(s, argv, s->log, err);
}

/* TLS when a certificate and its key are in the folder (see the top): 1, or 0 for none. */
static int
find_tls(const struct server *s, struct my_server *my)
{
    char crt[320], key[320];

    snprintf(crt, sizeof crt, "%s/tls.crt", s->dir);
    snprintf(key, sizeof key, "%s/tls.key", s->dir);
    if (access(crt, R_OK) != 0 || access(key, R_OK) != 0)
        return 0;
    snprintf(my->ssl_cert, sizeof my->ssl_cert, "--ssl-cert=%s", crt);
    snprintf(my->ssl_key, sizeof my->ssl_key, "--ssl-key=%s", key);
    return 1;
}

/* DIR/server.opts's "--" lines into my->opts (up to MY_OPTS_MAX): how many. */
static int
read_opts(const struct server *s, struct my_server *my)
{
    char path[320], line[sizeof my->opts[0]];
    FILE *f;
    int n = 0;

    snprintf(path, sizeof path, "%s/server.opts", s->dir);
    if ((f = fopen(path, "r")) == NULL)
        return 0;
    while (n < MY_OPTS_MAX && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "--", 2) == 0)
            snprintf(my->opts[n++], sizeof my->opts[0], "%s", line);
    }
    fclose(f);
    return n;
}

static int
spawn_mariadbd(struct server *s, struct my_server *my, char *err)
{
    int tls = find_tls(s, my), nopts = read_opts(s, my), n = 0;
    char *argv[24 + MY_OPTS_MAX] = {
        my->mariadbd, "--no-defaults", /* must come first */
        my->datadir,  my->port,        "--bind-address=127.0.0.1", my->socket,
        my->pidfile,  my->logerr,      "--skip-name-resolve",      "--max-connections=500",
        my->tmpdir};

    while (argv[n] != NULL)
        n++;
    if (tls) {
        argv[n++] = my->ssl_cert;
        argv[n++] = my->ssl_key;
    }
    for (int i = 0; i < nopts; i++)
        argv[n++] = my->opts[i];
    s->pid = server_spawn(s, argv, s->log, err);
    return s->pid < 0 ? -1 : 0;
}

static int
my_start(struct server *s, char *err)
{
    struct my_server *my = xcalloc(1, sizeof *my);

    s->priv = my;
    snprintf(s->log, sizeof s->log, "%s/mariadb.log", s->dir);
    if (find_programs(my, err) < 0)
        return -1;
    fill_args(s, my);
    /* server_create adds the log's last line and keeps it: no explaining here. */
    if (write_init_sql(my, err) < 0 || run_install_db(s, my, err) < 0 ||
        spawn_mariadbd(s, my, err) < 0 ||
        server_wait_ready(s, "mariadbd", READY_TIMEOUT_MS, err) < 0)
        return -1;
    snprintf(s->target, sizeof s->target, "mysql://root@127.0.0.1:%d/benchtop", s->port);
    return 0;
}

static int
my_restart(struct server *s, char *err)
{
    struct my_server *my = s->priv;

    /* SIGTERM is mariadbd's clean shutdown; SIGKILL only when that hangs. */
    server_stop_pid(s, STOP_TIMEOUT_MS);
    if (spawn_mariadbd(s, my, err) == 0 &&
        server_wait_ready(s, "mariadbd", READY_TIMEOUT_MS, err) == 0)
        return 0;
    return server_explain(s, err);
}

static void
my_stop(struct server *s)
{
    server_stop_pid(s, STOP_TIMEOUT_MS);
}

const struct server_class mysql_server_class = {
    .name = "mysql",
    .start = my_start,
    .restart = my_restart,
    .stop = my_stop,
};
