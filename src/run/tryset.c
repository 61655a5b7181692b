/*
 * tryset: a try's server settings and their undo file (tryset.h).
 *
 * The undo file is written (to a temporary name, synced, renamed) before
 * the first change, so a benchtop killed with SIGKILL mid-round still
 * leaves what puts the server back. It is read with jansson, as records are.
 */
#include "tryset.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"

/* The class and connection that own setting i: the pooler's or the server's. */
static const struct collector_class *
cls_of(const struct tryset *t, int i)
{
    return t->pooled[i] ? t->pool_cls : t->cls;
}

static void *
conn_of(const struct tryset *t, int i)
{
    return t->pooled[i] ? t->pool_conn : t->conn;
}

int
tryset_parse(struct tryset *t, const char *list, char *err)
{
    const char *p = list, *eq, *end;

    while (p != NULL && *p != '\0') {
        end = strchr(p, '\n');
        if (end == NULL)
            end = p + strlen(p);
        eq = memchr(p, '=', (size_t)(end - p));
        if (eq == NULL || eq == p || eq + 1 == end)
            return seterr(err, "--set '%.*s' is not NAME=VALUE (e.g. --set synchronous_commit=off)",
                          (int)(end - p), p);
        if (t->n == TRYSET_MAX)
            return seterr(err, "at most %d --set in one try", TRYSET_MAX);
        if ((size_t)(eq - p) >= sizeof t->want[0].name ||
            (size_t)(end - eq - 1) >= sizeof t->want[0].value)
            return seterr(err, "--set '%.*s' is too long", (int)(end - p), p);
        snprintf(t->want[t->n].name, sizeof t->want[0].name, "%.*s", (int)(eq - p), p);
        snprintf(t->want[t->n].value, sizeof t->want[0].value, "%.*s", (int)(end - eq - 1), eq + 1);
        t->n++;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* mkdir -p for the state folder (0700: it names the user's servers). */
static int
make_dirs(char *path, char *err)
{
    char *s;

    for (s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            seterr(err, "cannot create %s: %s", path, strerror(errno));
            *s = '/';
            return -1;
        }
        *s = '/';
    }
    return 0;
}

/* The state folder's file "KIND-HASH.EXT" for a masked target (its folder made). */
static int
state_path(const char *kind, const char *ext, const char *target_masked, char *buf, size_t len,
           char *err)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    uint64_t h = 1469598103934665603ull; /* FNV-1a: a stable name per target */
    const unsigned char *c;

    for (c = (const unsigned char *)target_masked; *c; c++)
        h = (h ^ *c) * 1099511628211ull;
    if (state != NULL && state[0] == '/')
        snprintf(buf, len, "%s/benchtop/%s-%016llx%s", state, kind, (unsigned long long)h, ext);
    else if (home != NULL && home[0] == '/')
        snprintf(buf, len, "%s/.local/state/benchtop/%s-%016llx%s", home, kind,
                 (unsigned long long)h, ext);
    else
        return seterr(err, "neither XDG_STATE_HOME nor HOME is set: nowhere to keep the undo file "
                           "(set XDG_STATE_HOME)");
    return make_dirs(buf, err);
}

int
tryset_undo_path(const char *target_masked, char *buf, size_t len, char *err)
{
    return state_path("undo", ".json", target_masked, buf, len, err);
}

int
tryset_open(struct tryset *t, const struct collector_class *cls, const struct target *target,
            char *err)
{
    if (cls == NULL || cls->undo_value == NULL || cls->apply_setting == NULL)
        return seterr(err,
                      "%s's settings cannot be changed by benchtop (try --try-clients or "
                      "--try-threads)",
                      cls != NULL && cls->title ? cls->title : "this server");
    t->cls = cls;
    t->target = target;
    t->conn = cls->open(target, err);
    return t->conn != NULL ? 0 : -1;
}

int
tryset_open_pooler(struct tryset *t, const struct collector_class *cls, const struct target *target,
                   const char *masked, char *err)
{
    if (cls->undo_value == NULL || cls->apply_setting == NULL || cls->has_setting == NULL)
        return seterr(err, "%s's settings cannot be changed by benchtop",
                      cls->title ? cls->title : cls->name);
    t->pool_cls = cls;
    snprintf(t->pool_masked, sizeof t->pool_masked, "%s", masked);
    t->pool_conn = cls->open(target, err);
    return t->pool_conn != NULL ? 0 : -1;
}

int
tryset_pooled(const struct tryset *t)
{
    for (int i = 0; i < t->n; i++)
        if (t->pooled[i])
            return 1;
    return 0;
}

/* Whose setting want[i] is: 1 the pooler's, 0 the server's; -1 with err for both or neither. */
static int
route_one(struct tryset *t, int i, char *err)
{
    const char *name = t->want[i].name;
    const char *pt = t->pool_cls->title ? t->pool_cls->title : t->pool_cls->name;
    const char *st = t->cls->title ? t->cls->title : t->cls->name;
    int p = t->pool_cls->has_setting(t->pool_conn, name, t->want[i].value, err), s;

    if (p < 0)
        return -1;
    /* a server that cannot say: the pooler's names are the pooler's, the rest the server's */
    s = t->cls->has_setting ? t->cls->has_setting(t->conn, name, NULL, err) : !p;
    if (s < 0)
        return -1;
    if (p && s)
        return seterr(err,
                      "%s is both a %s and a %s setting: benchtop cannot tell which one to try "
                      "(drop --pooler to try the %s one)",
                      name, pt, st, st);
    if (!p && !s)
        return seterr(err, "%s is neither a %s nor a %s setting", name, pt, st);
    return p;
}

int
tryset_route(struct tryset *t, char *err)
{
    int i, p;

    for (i = 0; i < t->n; i++) {
        if ((p = route_one(t, i, err)) < 0)
            return -1;
        t->pooled[i] = (unsigned char)p;
    }
    if (!tryset_pooled(t)) {
        t->pool_cls->close(t->pool_conn);
        t->pool_conn = NULL;
        t->pool_cls = NULL;
    }
    return 0;
}

/* The undo file: to a temporary name, synced, then renamed over. */
static int
write_undo(const struct tryset *t, const char *target_masked, char *err)
{
    char tmp[sizeof t->path + 8];
    FILE *f;
    int i, bad;

    snprintf(tmp, sizeof tmp, "%s.tmp", t->path);
    if ((f = fopen(tmp, "w")) == NULL)
        return seterr(err, "cannot write the undo file %s: %s", tmp, strerror(errno));
    fputs("{\"target\":", f);
    json_put_string(f, target_masked);
    if (tryset_pooled(t))
        json_member_str(f, "pooler", t->pool_masked);
    fputs(",\"settings\":[", f);
    for (i = 0; i < t->n; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        json_put_string(f, t->orig[i].name);
        json_member_str(f, "value", t->orig[i].value);
        json_member_str(f, "tried", t->want[i].value);
        if (t->pooled[i])
            fputs(",\"pooler\":true", f);
        fputc('}', f);
    }
    fprintf(f, "],\"restart\":%s}\n", t->restart ? "true" : "false");
    bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    if (fclose(f) != 0 || bad || rename(tmp, t->path) != 0) {
        unlink(tmp);
        return seterr(err, "cannot write the undo file %s: %s", t->path, strerror(errno));
    }
    return 0;
}

int
tryset_save(struct tryset *t, const char *target_masked, char *err)
{
    int i;

    for (i = 0; i < t->n; i++) {
        snprintf(t->orig[i].name, sizeof t->orig[i].name, "%s", t->want[i].name);
        if (cls_of(t, i)->undo_value(conn_of(t, i), t->want[i].name, t->orig[i].value,
                                     sizeof t->orig[i].value, err) < 0)
            return -1;
    }
    if (tryset_undo_path(target_masked, t->path, sizeof t->path, err) < 0)
        return -1;
    return write_undo(t, target_masked, err);
}

static int restart_server(struct tryset *t, char *err);

int
tryset_apply(struct tryset *t, char *err)
{
    int i;

    t->applied = 1; /* from the first write on, a failure still reverts */
    for (i = 0; i < t->n; i++)
        if (cls_of(t, i)->apply_setting(conn_of(t, i), t->want[i].name, t->want[i].value, err) < 0)
            return -1;
    return t->restart ? restart_server(t, err) : 0;
}

int
tryset_revert(struct tryset *t, char *err)
{
    char one[BT_ERRLEN];
    int i, rv = 0;

    for (i = 0; i < t->n; i++) {
        if (conn_of(t, i) == NULL)
            snprintf(one, sizeof one, "no connection to %s",
                     t->pooled[i] ? "the pooler" : "the server");
        else if (cls_of(t, i)->apply_setting(conn_of(t, i), t->orig[i].name, t->orig[i].value,
                                             one) == 0)
            continue;
        if (rv == 0)
            snprintf(err, BT_ERRLEN, "could not put %s back to %s: %.300s", t->orig[i].name,
                     t->orig[i].value, one);
        rv = -1;
    }
    if (rv == 0 && t->restart)
        rv = restart_server(t, err);
    if (rv == 0)
        t->applied = 0;
    return rv;
}

int
tryset_finish(struct tryset *t, char *err)
{
    int rv = 0;

    if (t->applied)
        rv = t->conn != NULL ? tryset_revert(t, err)
                             : seterr(err, "no connection to the server to put the settings back");
    if (rv == 0 && t->path[0] != '\0')
        unlink(t->path);
    if (t->conn != NULL)
        t->cls->close(t->conn);
    if (t->pool_conn != NULL)
        t->pool_cls->close(t->pool_conn);
    t->conn = t->pool_conn = NULL;
    return rv;
}

/* One {"name":..,"value":..} of the file into t->orig. */
static int
load_one(struct tryset *t, json_t *item, char *err)
{
    const char *name = json_string_value(json_object_get(item, "name"));
    const char *value = json_string_value(json_object_get(item, "value"));

    if (name == NULL || value == NULL || t->n == TRYSET_MAX)
        return seterr(err, "the undo file %.400s is damaged (remove it after checking the server)",
                      t->path);
    snprintf(t->orig[t->n].name, sizeof t->orig[0].name, "%s", name);
    snprintf(t->orig[t->n].value, sizeof t->orig[0].value, "%s", value);
    snprintf(t->want[t->n].name, sizeof t->want[0].name, "%s", name);
    t->pooled[t->n] = json_is_true(json_object_get(item, "pooler"));
    t->n++;
    return 0;
}

int
tryset_load(struct tryset *t, const char *path, char *target, size_t len, char *err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr), *list;
    const char *tgt;
    size_t i;
    int rv = 0;

    snprintf(t->path, sizeof t->path, "%s", path);
    if (root == NULL)
        return seterr(err, "cannot read the undo file %s: %s", path, jerr.text);
    list = json_object_get(root, "settings");
    tgt = json_string_value(json_object_get(root, "target"));
    if (!json_is_array(list) || tgt == NULL)
        rv = seterr(err, "the undo file %.400s is damaged (remove it after checking the server)",
                    path);
    else
        snprintf(target, len, "%s", tgt);
    for (i = 0; rv == 0 && i < json_array_size(list); i++)
        rv = load_one(t, json_array_get(list, i), err);
    t->restart = json_is_true(json_object_get(root, "restart"));
    if (json_string_value(json_object_get(root, "pooler")) != NULL)
        snprintf(t->pool_masked, sizeof t->pool_masked, "%s",
                 json_string_value(json_object_get(root, "pooler")));
    json_decref(root);
    t->applied = rv == 0;
    return rv;
}

void
tryset_put_back(struct tryset *t)
{
    char err[BT_ERRLEN];

    if (t->conn == NULL)
        return;
    if (tryset_finish(t, err) < 0)
        fprintf(stderr,
                "benchtop: %s; the undo file %s keeps the original values (run "
                "benchtop try --undo TARGET)\n",
                err, t->path);
}

static struct tryset *guarded; /* the try whose settings may be changed now */

static void
put_back_at_exit(void)
{
    if (guarded != NULL)
        tryset_put_back(guarded);
}

void
tryset_guard(struct tryset *t)
{
    static int registered;

    guarded = t;
    if (!registered)
        atexit(put_back_at_exit);
    registered = 1;
}

int
tryset_leftover(const char *target_masked, char *err)
{
    char path[512];

    if (tryset_undo_path(target_masked, path, sizeof path, err) < 0)
        return -1;
    return access(path, F_OK) == 0;
}

int
tryset_serve_register(const char *target_masked, long pid, int restarts, char *err)
{
    char path[512], tmp[520];
    FILE *f;

    if (state_path("serve", "", target_masked, path, sizeof path, err) < 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if ((f = fopen(tmp, "w")) == NULL)
        return seterr(err, "cannot write %s: %s", tmp, strerror(errno));
    fprintf(f, "%ld %d\n", pid, restarts);
    if (fclose(f) != 0 || rename(tmp, path) != 0) { /* a reader sees the old count or the new */
        unlink(tmp);
        return seterr(err, "cannot write %s: %s", path, strerror(errno));
    }
    return 0;
}

void
tryset_serve_unregister(const char *target_masked)
{
    char path[512], err[BT_ERRLEN];

    if (state_path("serve", "", target_masked, path, sizeof path, err) == 0)
        unlink(path);
}

/* 0 with *pid and *restarts; -1 with err when no live serve keeps this target. */
static int
tryset_serve_find(const char *target_masked, long *pid, int *restarts, char *err)
{
    char path[512];
    FILE *f;
    int n = 0;

    if (state_path("serve", "", target_masked, path, sizeof path, err) < 0)
        return -1;
    if ((f = fopen(path, "r")) != NULL) {
        n = fscanf(f, "%ld %d", pid, restarts);
        fclose(f);
    }
    if (n != 2 || *pid <= 0 || kill((pid_t)*pid, 0) != 0)
        return seterr(err,
                      "--restart: %s is not a throwaway server that a running benchtop "
                      "serve keeps (restart-only settings are refused elsewhere; drop "
                      "--restart)",
                      target_masked);
    return 0;
}

int
tryset_restart_on(struct tryset *t, const char *target_masked, char *err)
{
    long pid;
    int n;

    if (t->cls->allow_restart == NULL)
        return seterr(err, "--restart: %s's settings are not changed by a restart from benchtop",
                      t->cls->title ? t->cls->title : t->cls->name);
    if (tryset_pooled(t))
        return seterr(err, "--restart restarts the server, not the pooler: drop --restart for "
                           "the pooler's settings");
    if (tryset_serve_find(target_masked, &pid, &n, err) < 0)
        return -1;
    snprintf(t->masked, sizeof t->masked, "%s", target_masked);
    t->restart = 1;
    t->cls->allow_restart(t->conn);
    return 0;
}

/* The throwaway restarted by its serve (SIGUSR1), seen done, and reconnected to: 60 s at most. */
static int
restart_server(struct tryset *t, char *err)
{
    long pid;
    int before, now = -1, i;

    if (tryset_serve_find(t->masked, &pid, &before, err) < 0)
        return -1;
    if (kill((pid_t)pid, SIGUSR1) != 0)
        return seterr(err, "cannot ask serve (pid %ld) for a restart: %s", pid, strerror(errno));
    for (i = 0; i < 600 && !(now > before); i++) {
        usleep(100000);
        if (tryset_serve_find(t->masked, &pid, &now, err) < 0)
            return -1;
    }
    if (!(now > before))
        return seterr(err, "the throwaway server did not restart within 60 s");
    if (t->conn != NULL) /* a reconnect that failed before left none */
        t->cls->close(t->conn);
    if ((t->conn = t->cls->open(t->target, err)) == NULL)
        return -1;
    t->cls->allow_restart(t->conn);
    return 0;
}
