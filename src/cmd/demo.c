/*
 * demo: `benchtop demo [NAME]`: start a throwaway local server, ready
 * it (init, or the driver's demo_options such as --fill) and run against it.
 */
#include "cmd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/driver.h"
#include "run/options.h"
#include "engine/registry.h"
#include "base/progress.h"
#include "base/throwaway.h"
#include "base/util.h"

/* The driver's demo_options ("fill=1"), as if given on the command line. */
static void
set_demo_options(struct runconf *rc)
{
    const char *const *o;
    char name[64];

    for (o = rc->tgt.driver->demo_options; o != NULL && *o != NULL; o++) {
        size_t n = strcspn(*o, "=");
        snprintf(name, sizeof name, "%.*s", (int)n, *o);
        options_set(rc, name, (*o)[n] == '=' ? *o + n + 1 : "1");
    }
}

/* rc->watch gains target + path, parsed (demo targets are not in argv). */
static void
add_watch(struct runconf *rc, const char *target, const char *path)
{
    char *url = xasprintf("%s%s", target, path);

    launch_watch_target(rc, url);
    free(url);
}

/*
 * A server whose class names demo pages: a --url-file of them in its
 * folder for the load, and its status pages and the database behind it
 * watched.
 */
static int
demo_pages(struct runconf *rc, struct server *srv, char *err)
{
    const struct server_class *cls = srv->cls;
    char path[320], *text = xstrdup(""), *more;
    int i, rv;

    for (i = 0; cls->demo_paths != NULL && cls->demo_paths[i] != NULL; i++) {
        more = xasprintf("%s%s%s\n", text, srv->target, cls->demo_paths[i]);
        free(text);
        text = more;
    }
    for (i = 0; cls->demo_watch != NULL && cls->demo_watch[i] != NULL; i++)
        add_watch(rc, srv->target, cls->demo_watch[i]);
    if (cls->demo_paths == NULL) {
        free(text);
        return 0;
    }
    snprintf(path, sizeof path, "%s/demo-urls", srv->dir);
    rv = server_write_file(srv, path, text, err);
    free(text);
    if (rv == 0)
        options_set(rc, "url-file", path);
    return rv;
}

static int
demo_load(struct runconf *rc, struct server *srv)
{
    struct init_conf ic = {.force = 1, .quiet = rc->quiet};
    char err[BT_ERRLEN];

    launch_target(rc, srv->target, 0);
    ic.target = &rc->tgt;
    if (!rc->quiet)
        fprintf(stderr, "demo: %s server at %s (folder %s)\n", srv->cls->name, rc->tgt.masked,
                srv->dir);
    if (srv->behind[0] != '\0' && driver_for_target(srv->behind) == rc->tgt.driver) {
        launch_server_target(rc, srv->behind);
        ic.target = &rc->server_tgt; /* a pooler: tables and the server pane come from behind it */
    } else if (srv->behind[0] != '\0') { /* a database behind an app: watched */
        add_watch(rc, srv->behind, "");
    }
    set_demo_options(rc);
    if (demo_pages(rc, srv, err) < 0) {
        fprintf(stderr, "benchtop: demo: %s\n", err);
        return 1;
    }
    ic.opts = rc->driver_conf;
    if (rc->tgt.driver->needs_init && rc->tgt.driver->init(&ic, err) < 0) {
        fprintf(stderr, "benchtop: demo: %s\n", err);
        return 1;
    }
    if (progress_interrupted())
        return 0;
    if (!options_given(rc, "clients"))
        rc->clients = 4;
    if (!options_given(rc, "threads"))
        rc->threads = 2;
    cmd_check_run_options(rc, 20);
    return launch_load(rc, NULL, NULL, cmd_front_end);
}

/* "postgres, redis, ..." : the servers a demo can start. */
static const char *
demo_names(char *buf, size_t len)
{
    const struct server_class *c;
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; (c = server_class_at(i)) != NULL && used < len; i++)
        if (!c->serve_only)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     c->demo_name ? c->demo_name : c->name);
    return buf;
}

static int
cmd_demo_exec(struct runconf *rc, char **pos, int npos)
{
    const struct server_class *cls = npos > 0 ? server_class_find(pos[0]) : server_class_at(0);
    struct server srv;
    char err[BT_ERRLEN];
    sigset_t set;
    int rv;

    if (npos > 1 || (npos == 1 && (cls == NULL || cls->serve_only)))
        usage_fatal("demo takes a database name, not '%s' (one of: %s)", pos[npos - 1],
                    demo_names(err, sizeof(err)));
    if (cls == NULL)
        usage_fatal("no backend compiled in that can start a demo server (install a database's "
                    "client library and rebuild: see README)");
    /* Refused before a server starts: a terminal it cannot hold, say. */
    cmd_choose_front_end(rc);
    /* Blocked until the end: Ctrl-C must never skip stopping the servers. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    if (server_create(&srv, cls, err) < 0)
        usage_fatal("demo: %s", err);
    rv = progress_interrupted() ? 0 : demo_load(rc, &srv);
    if (!rc->quiet)
        fprintf(stderr, "demo: stopping the %s server and removing %s\n", cls->name, srv.dir);
    server_destroy(&srv);
    return rv;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_demo_entry = {
    "demo", CMD_DEMO, cmd_demo_exec, "benchtop demo [DATABASE] [OPTIONS]",
    "start a throwaway local server (a DATABASE below), fill it and run against it"};
