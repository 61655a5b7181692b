/*
 * http/server: a throwaway nginx with php-fpm behind it, and a throwaway
 * MariaDB behind that, for `benchtop serve nginx`, the web demo and the
 * integration tests.
 *
 * nginx listens on s->port and serves, from DIR/www:
 *   /static.html     a small static page
 *   /sleep.php?ms=N  sleeps N milliseconds (the app is the limit)
 *   /counter.php     seed 004: in one transaction, UPDATE a counter row +1
 *                    and read it back (one hot row: the database's locks)
 *   /cache.php?n=N   seed 002: N file-cache set/get/update rounds in DIR/cache
 *   /nginx_status    nginx's stub_status
 *   /fpm_status      php-fpm's status page (pm.status_path)
 *   /moved, /unavailable  a 302 and a 503, for status classes
 * php-fpm listens on a loopback TCP port of its own (its status page says
 * the listen queue only for TCP sockets), pm dynamic, pm.max_children from
 * BENCHTOP_FPM_MAX_CHILDREN (default 5). The database is a mysql server
 * class of its own (s->behind names it), unless BENCHTOP_WEB_DB gives a
 * mysql:// target to use instead; counter.php creates its table on the
 * first request. nginx and php-fpm both log errors into DIR/server.log;
 * nginx's access log is DIR/access.log.
 */
#include "base/throwaway.h"
#include "engine/registry.h"
#include "base/uri.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NG_MISSING_FIX                                                                             \
    "install the nginx, php-fpm and php-mysql packages (tools/install-deps --test)"

enum {
    NG_START_TIMEOUT_MS = 15000,
    NG_STOP_TIMEOUT_MS = 10000,
    NG_MAX_CHILDREN = 5,
};

static const char *const nginx_globs[] = {"/usr/sbin/nginx", NULL};
static const char *const fpm_globs[] = {"/usr/sbin/php-fpm*", NULL};

/* The database counter.php talks to, as php-fpm's environment. */
struct ng_db {
    char host[128];
    char user[64];
    char password[128];
    char name[64];
    int port;
};

struct ng_server {
    char nginx[PATH_MAX];
    char fpm[PATH_MAX];
    char nginx_conf[320];
    char fpm_conf[320];
    struct server fpm_proc; /* php-fpm: its own port, pid and log; dir and user are s's */
    struct server db;       /* the MariaDB behind, when we started it */
    struct ng_db dbc;
};

static const char static_html[] = "<!doctype html>\n<title>benchtop</title>\n"
                                  "<p>A small static page served by nginx.</p>\n";

static const char sleep_php[] = "<?php\n"
                                "$ms = isset($_GET['ms']) ? (int)$_GET['ms'] : 20;\n"
                                "usleep(max(0, min($ms, 60000)) * 1000);\n"
                                "echo \"slept $ms ms\\n\";\n";

/* One transaction holding the row lock across two round trips, as an app's read-back does. */
static const char counter_php[] =
    "<?php\n"
    "mysqli_report(MYSQLI_REPORT_OFF);\n"
    "$db = mysqli_connect(getenv('BT_DB_HOST'), getenv('BT_DB_USER'), getenv('BT_DB_PASSWORD'),\n"
    "                     getenv('BT_DB_NAME'), (int)getenv('BT_DB_PORT'));\n"
    "if (!$db) { http_response_code(503); exit(\"no database: \" . mysqli_connect_error() . "
    "\"\\n\"); }\n"
    "function bump($db) {\n"
    "    if (!$db->query('BEGIN')) return false;\n"
    "    if (!$db->query('UPDATE web_counter SET n = n + 1 WHERE id = 1')) return false;\n"
    "    $r = $db->query('SELECT n FROM web_counter WHERE id = 1');\n"
    "    if (!$r || !$db->query('COMMIT')) return false;\n"
    "    return $r->fetch_row()[0];\n"
    "}\n"
    "$n = bump($db);\n"
    "if ($n === false && $db->errno == 1146) {\n"
    "    $db->query('ROLLBACK');\n"
    "    $db->query('CREATE TABLE IF NOT EXISTS web_counter (id INT PRIMARY KEY, n BIGINT NOT "
    "NULL) ENGINE=InnoDB');\n"
    "    $db->query('INSERT IGNORE INTO web_counter VALUES (1, 0)');\n"
    "    $n = bump($db);\n"
    "}\n"
    "if ($n === false) { http_response_code(500); exit(\"database error: \" . $db->error . "
    "\"\\n\"); }\n"
    "echo \"counter $n\\n\";\n";

/* Seed 002's file cache: a file per key; keys from a bounded space so the folder stays small. */
static const char cache_php[] =
    "<?php\n"
    "$dir = getenv('BT_CACHE_DIR');\n"
    "$rounds = isset($_GET['n']) ? max(1, min((int)$_GET['n'], 10000)) : 100;\n"
    "$data = str_repeat('x', 1024);\n"
    "for ($i = 0; $i < $rounds; $i++) {\n"
    "    $file = $dir . '/' . md5((string)mt_rand(0, 999)) . '.data';\n"
    "    file_put_contents($file, serialize([time(), $data]), LOCK_EX);\n"
    "    $got = unserialize((string)@file_get_contents($file));\n"
    "    file_put_contents($file, serialize([time() + 1, $data]), LOCK_EX);\n"
    "}\n"
    "echo \"cache $rounds rounds\\n\";\n";

static int
max_children(char *err)
{
    const char *v = getenv("BENCHTOP_FPM_MAX_CHILDREN");
    long long n;

    if (v == NULL || v[0] == '\0')
        return NG_MAX_CHILDREN;
    if (safe_strtoll(v, &n) < 0 || n < 1 || n > 1000)
        return seterr(
            err, "BENCHTOP_FPM_MAX_CHILDREN must be a whole number from 1 to 1000, not '%s'", v);
    return (int)n;
}

static int
span_copy(const char *t, struct uri_span sp, char *out, size_t len)
{
    return uri_decode(t, sp, out, len);
}

/* The database's parameters from a mysql:// target (user, password, host, port, database). */
static int
db_from_target(const char *t, struct ng_db *d, char *err)
{
    struct uri u;

    memset(d, 0, sizeof *d);
    if (uri_split(t, &u) < 0 || strncmp(t, "mysql://", 8) != 0 ||
        uri_split_host(t, &u) != URI_HOST_OK)
        return seterr(err, "BENCHTOP_WEB_DB must be a mysql:// target, not '%s'", t);
    d->port = 3306;
    if ((u.has_port && uri_port(t, u.port, &d->port) < 0) ||
        span_copy(t, u.host, d->host, sizeof d->host) < 0 ||
        span_copy(t, u.user, d->user, sizeof d->user) < 0 ||
        span_copy(t, u.password, d->password, sizeof d->password) < 0 || u.path.len < 2 ||
        uri_decode(t, (struct uri_span){u.path.off + 1, u.path.len - 1}, d->name, sizeof d->name) <
            0)
        return seterr(err, "BENCHTOP_WEB_DB: cannot read host, port, user and database from it "
                           "(e.g. mysql://root@127.0.0.1:3306/benchtop)");
    return 0;
}

static int
start_db(struct server *s, struct ng_server *ng, char *err)
{
    const char *given = getenv("BENCHTOP_WEB_DB");
    const struct server_class *my = server_class_find("mysql");

    if (given != NULL && given[0] != '\0')
        return db_from_target(given, &ng->dbc, err);
    if (my == NULL)
        return seterr(err, "nginx's counter.php needs a MariaDB: build with the mysql backend or "
                           "set BENCHTOP_WEB_DB=mysql://...");
    if (server_create(&ng->db, my, err) < 0)
        return -1;
    snprintf(s->behind, sizeof s->behind, "%s", ng->db.target);
    return db_from_target(ng->db.target, &ng->dbc, err);
}

static int
make_subdir(const struct server *s, const char *name, char *err)
{
    char path[320];

    snprintf(path, sizeof path, "%s/%s", s->dir, name);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return seterr(err, "cannot create %s: %s", path, strerror(errno));
    return server_give(s, path, err);
}

static int
write_www(const struct server *s, char *err)
{
    static const struct {
        const char *name;
        const char *text;
    } pages[] = {
        {"static.html", static_html},
        {"sleep.php", sleep_php},
        {"counter.php", counter_php},
        {"cache.php", cache_php},
    };
    char path[320];

    if (make_subdir(s, "www", err) < 0 || make_subdir(s, "cache", err) < 0 ||
        make_subdir(s, "tmp", err) < 0)
        return -1;
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        snprintf(path, sizeof path, "%s/www/%s", s->dir, pages[i].name);
        if (server_write_file(s, path, pages[i].text, err) < 0)
            return -1;
    }
    return 0;
}

static int
write_fpm_conf(const struct server *s, struct ng_server *ng, int children, char *err)
{
    const struct ng_db *d = &ng->dbc;
    char *conf;
    int rc;

    snprintf(ng->fpm_conf, sizeof ng->fpm_conf, "%s/php-fpm.conf", s->dir);
    conf =
        xasprintf("[global]\npid = %s/php-fpm.pid\nerror_log = %s\ndaemonize = no\n\n"
                  "[benchtop]\nlisten = 127.0.0.1:%d\nlisten.backlog = 511\n"
                  "pm = dynamic\npm.max_children = %d\npm.start_servers = 1\n"
                  "pm.min_spare_servers = 1\npm.max_spare_servers = %d\n"
                  "pm.status_path = /fpm_status\nclear_env = yes\n"
                  "env[BT_DB_HOST] = %s\nenv[BT_DB_PORT] = %d\nenv[BT_DB_USER] = %s\n"
                  "env[BT_DB_NAME] = %s\nenv[BT_CACHE_DIR] = %s/cache\n%s%s%s",
                  s->dir, ng->fpm_proc.log, ng->fpm_proc.port, children, children, d->host, d->port,
                  d->user, d->name, s->dir, d->password[0] ? "env[BT_DB_PASSWORD] = \"" : "",
                  d->password, d->password[0] ? "\"\n" : "");
    rc = server_write_file(s, ng->fpm_conf, conf, err);
    free_secret(conf);
    return rc;
}

static int
write_nginx_conf(const struct server *s, struct ng_server *ng, char *err)
{
    const char *d = s->dir;
    char *conf;
    int rc;

    snprintf(ng->nginx_conf, sizeof ng->nginx_conf, "%s/nginx.conf", d);
    conf = xasprintf("daemon off;\nmaster_process on;\nworker_processes 2;\npid %s/nginx.pid;\n"
                     "error_log %s warn;\nevents { worker_connections 4096; }\n"
                     "http {\n  log_format bt '$remote_addr [$time_local] \"$request\" $status "
                     "$body_bytes_sent \"$http_referer\" \"$http_authorization\"';\n"
                     "  access_log %s/access.log bt;\n  default_type text/html;\n"
                     "  keepalive_requests 1000000;\n  keepalive_timeout 75s;\n"
                     "  client_body_temp_path %s/tmp/body;\n  proxy_temp_path %s/tmp/proxy;\n"
                     "  fastcgi_temp_path %s/tmp/fastcgi;\n  uwsgi_temp_path %s/tmp/uwsgi;\n"
                     "  scgi_temp_path %s/tmp/scgi;\n"
                     "  server {\n    listen 127.0.0.1:%d reuseport;\n    root %s/www;\n"
                     "    location = /nginx_status { stub_status; }\n"
                     "    location = /moved { return 302 /static.html; }\n"
                     "    location = /unavailable { return 503; }\n"
                     "    location ~ (\\.php|^/fpm_status)$ {\n"
                     "      include /etc/nginx/fastcgi_params;\n"
                     "      fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n"
                     "      fastcgi_pass 127.0.0.1:%d;\n    }\n  }\n}\n",
                     d, s->log, d, d, d, d, d, d, s->port, d, ng->fpm_proc.port);
    rc = server_write_file(s, ng->nginx_conf, conf, err);
    free(conf);
    return rc;
}

static int
spawn_fpm(struct ng_server *ng, char *err)
{
    char *argv[] = {ng->fpm, "--nodaemonize", "--fpm-config", ng->fpm_conf, NULL};

    return server_start(&ng->fpm_proc, argv, "php-fpm", NG_START_TIMEOUT_MS, err);
}

static int
spawn_nginx(struct server *s, struct ng_server *ng, char *err)
{
    char prefix[300];
    char *argv[] = {ng->nginx, "-p", prefix, "-c", ng->nginx_conf, "-e", s->log, NULL};

    snprintf(prefix, sizeof prefix, "%s/", s->dir);
    return server_start(s, argv, "nginx", NG_START_TIMEOUT_MS, err);
}

static int
find_programs(struct ng_server *ng, char *err)
{
    if (server_find_program("nginx", nginx_globs, ng->nginx, sizeof ng->nginx) < 0)
        return seterr(err, "nginx not found: " NG_MISSING_FIX);
    if (server_find_program("php-fpm", fpm_globs, ng->fpm, sizeof ng->fpm) < 0)
        return seterr(err, "php-fpm not found: " NG_MISSING_FIX);
    return 0;
}

/* php-fpm shares s's folder, user and log (so a failed start quotes either); its port and pid are
 * its own. */
static int
fpm_init(const struct server *s, struct ng_server *ng, char *err)
{
    ng->fpm_proc = *s;
    ng->fpm_proc.pid = 0;
    ng->fpm_proc.priv = NULL;
    ng->fpm_proc.port = server_pick_port(err);
    return ng->fpm_proc.port < 0 ? -1 : 0;
}

static int
ng_start(struct server *s, char *err)
{
    struct ng_server *ng = xcalloc(1, sizeof *ng);
    int children;

    s->priv = ng;
    snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
    if ((children = max_children(err)) < 0 || find_programs(ng, err) < 0 ||
        start_db(s, ng, err) < 0 || fpm_init(s, ng, err) < 0 || write_www(s, err) < 0 ||
        write_fpm_conf(s, ng, children, err) < 0 || write_nginx_conf(s, ng, err) < 0)
        return -1;
    if (spawn_fpm(ng, err) < 0 || spawn_nginx(s, ng, err) < 0)
        return -1;
    snprintf(s->target, sizeof s->target, "http://127.0.0.1:%d/", s->port);
    return 0;
}

/* Restarts nginx only: php-fpm and the database keep running. */
static int
ng_restart(struct server *s, char *err)
{
    struct ng_server *ng = s->priv;

    server_stop_pid(s, NG_STOP_TIMEOUT_MS);
    return spawn_nginx(s, ng, err) == 0 ? 0 : server_explain(s, err);
}

static void
ng_stop(struct server *s)
{
    struct ng_server *ng = s->priv;

    server_stop_pid(s, NG_STOP_TIMEOUT_MS);
    if (ng != NULL) {
        server_stop_pid(&ng->fpm_proc, NG_STOP_TIMEOUT_MS);
        server_destroy(&ng->db);
        explicit_bzero(&ng->dbc, sizeof ng->dbc);
    }
}

/* `benchtop demo web`: the two seed pages, with the tiers' status pages watched. */
static const char *const ng_demo_paths[] = {"counter.php", "cache.php", NULL};
static const char *const ng_demo_watch[] = {"nginx_status", "fpm_status", NULL};

const struct server_class nginx_server_class = {
    .name = "nginx",
    .start = ng_start,
    .restart = ng_restart,
    .stop = ng_stop,
    .demo_name = "web",
    .demo_paths = ng_demo_paths,
    .demo_watch = ng_demo_watch,
};
