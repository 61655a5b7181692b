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
#include <time.h>
#include <unistd.h>

#include "base/json.h"
#include "base/text.h"
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

/* A name whose value would be a secret: refused, so no undo file, record or screen holds it. */
static int
secret_name(const char *name)
{
    static const char *const words[] = {"pass", "auth", "secret", "credential"};

    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasestr(name, words[i]) != NULL)
            return 1;
    return 0;
}

void
tryset_want(struct tryset *t, int i, const char *value)
{
    free(t->want[i].value);
    t->want[i].value = xstrdup(value);
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
                          (int)((eq ? eq : end) - p), p);
        if (t->n == TRYSET_MAX)
            return seterr(err, "at most %d --set in one try", TRYSET_MAX);
        if ((size_t)(eq - p) >= sizeof t->want[0].name)
            return seterr(err, "--set '%.60s...': the name is too long", p);
        snprintf(t->want[t->n].name, sizeof t->want[0].name, "%.*s", (int)(eq - p), p);
        if (secret_name(t->want[t->n].name))
            return seterr(err,
                          "--set %s: benchtop does not try settings that hold secrets (its value "
                          "would be on screen and in the undo file): change it where the server "
                          "is managed",
                          t->want[t->n].name);
        t->want[t->n].value = xasprintf("%.*s", (int)(end - eq - 1), eq + 1);
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

/* The undo file's path: keyed by the server's identity, or the masked target without one. */
static int
undo_path(struct tryset *t, const char *target_masked, char *err)
{
    char key[300];

    snprintf(key, sizeof key, "%s%s", t->id[0] ? "id:" : "", t->id[0] ? t->id : target_masked);
    return state_path("undo", ".json", key, t->path, sizeof t->path, err);
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
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
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
    if (t->id[0])
        json_member_str(f, "server", t->id);
    fputs(",\"settings\":[", f);
    for (i = 0; i < t->n; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        json_put_string(f, t->orig[i].name);
        json_member_str(f, "value", t->orig[i].value);
        json_member_str(f, "tried", t->want[i].value);
        if (t->seen[i] != NULL)
            json_member_str(f, "seen", t->seen[i]);
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

/* undo_value under the mutex (the lock's renewer may use conn); NULL with err. */
static char *
read_undo(struct tryset *t, int i, const char *name, char *err)
{
    char *v;

    pthread_mutex_lock(&t->mu);
    v = conn_of(t, i) == NULL ? NULL : cls_of(t, i)->undo_value(conn_of(t, i), name, err);
    if (conn_of(t, i) == NULL)
        seterr(err, "no connection to %s", t->pooled[i] ? "the pooler" : "the server");
    pthread_mutex_unlock(&t->mu);
    return v;
}

static int
set_one(struct tryset *t, int i, const char *name, const char *value, char *err)
{
    int rv;

    pthread_mutex_lock(&t->mu);
    rv = conn_of(t, i) == NULL
             ? seterr(err, "no connection to %s", t->pooled[i] ? "the pooler" : "the server")
             : cls_of(t, i)->apply_setting(conn_of(t, i), name, value, err);
    pthread_mutex_unlock(&t->mu);
    return rv;
}

/* The renewer: the lock kept alive while the try runs (classes whose lock expires). */
static void *
renew_loop(void *arg)
{
    struct tryset *t = arg;
    char holder[128], err[BT_ERRLEN];
    struct timespec at;

    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        clock_gettime(CLOCK_REALTIME, &at);
        at.tv_sec += t->cls->try_lock_renew_s;
        pthread_cond_timedwait(&t->cv, &t->mu, &at);
        if (!t->stop && t->conn != NULL)
            t->cls->try_lock(t->conn, t->token, 1, holder, sizeof holder, err);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* A holder "HOST:PID" that is a benchtop of this host no longer running: its lock is stale. */
static int
holder_gone(const char *holder)
{
    char host[100];
    const char *colon = strrchr(holder, ':');
    long pid;

    if (colon == NULL || gethostname(host, sizeof host) != 0 ||
        strlen(host) != (size_t)(colon - holder) || strncmp(holder, host, strlen(host)) != 0)
        return 0;
    pid = strtol(colon + 1, NULL, 10);
    return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* The server's one-try lock, taken on t->conn (a stale one of a killed benchtop taken over). */
static int
take_lock(struct tryset *t, char *err)
{
    char host[100] = "", holder[128] = "";
    int rv;

    if (t->cls->try_lock == NULL)
        return 0;
    gethostname(host, sizeof host);
    snprintf(t->token, sizeof t->token, "%.100s:%ld", host, (long)getpid());
    rv = t->cls->try_lock(t->conn, t->token, 0, holder, sizeof holder, err);
    if (rv == 0 && holder_gone(holder) && t->cls->try_unlock != NULL) {
        t->cls->try_unlock(t->conn, holder);
        rv = t->cls->try_lock(t->conn, t->token, 0, holder, sizeof holder, err);
    }
    if (rv < 0)
        return -1;
    if (rv == 2) /* no lock can be held on this connection */
        return 0;
    if (rv == 0)
        return seterr(err,
                      "another benchtop try%s%s is changing this server's settings now: wait "
                      "for it to end (one try at a time per server)",
                      holder[0] ? " on " : "", holder);
    t->locked = 1;
    if (t->cls->try_lock_renew_s > 0) { /* a lock that would expire mid-try is none */
        if ((rv = pthread_create(&t->renewer, NULL, renew_loop, t)) != 0)
            return seterr(err, "cannot start a thread to keep the try lock: %s", strerror(rv));
        t->renewing = 1;
    }
    return 0;
}

static void
drop_lock(struct tryset *t)
{
    if (t->renewing) {
        pthread_mutex_lock(&t->mu);
        t->stop = 1;
        pthread_cond_signal(&t->cv);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->renewer, NULL);
        t->renewing = 0;
    }
    if (t->locked && t->conn != NULL && t->cls->try_unlock != NULL)
        t->cls->try_unlock(t->conn, t->token);
    t->locked = 0;
}

/* The lock, then the server's identity and so the undo file's path. */
static int
lock_and_locate(struct tryset *t, const char *target_masked, char *err)
{
    snprintf(t->masked, sizeof t->masked, "%s", target_masked);
    if (take_lock(t, err) < 0)
        return -1;
    t->id[0] = '\0';
    if (t->cls->identity != NULL && t->cls->identity(t->conn, t->id, sizeof t->id, err) < 0)
        return -1;
    return undo_path(t, target_masked, err);
}

int
tryset_save(struct tryset *t, const char *target_masked, char *err)
{
    int i;

    if (lock_and_locate(t, target_masked, err) < 0)
        return -1;
    if (access(t->path, F_OK) == 0) {
        seterr(err,
               "a try on this server did not finish and left settings changed (%.300s): put "
               "them back with benchtop try --undo TARGET",
               t->path);
        t->path[0] = '\0'; /* not ours: tryset_finish must not remove it */
        return -1;
    }
    for (i = 0; i < t->n; i++) {
        snprintf(t->orig[i].name, sizeof t->orig[i].name, "%s", t->want[i].name);
        if ((t->orig[i].value = read_undo(t, i, t->want[i].name, err)) == NULL)
            return -1;
    }
    if (write_undo(t, target_masked, err) < 0) {
        t->path[0] = '\0';
        return -1;
    }
    return 0;
}

int
tryset_find_undo(struct tryset *t, const char *target_masked, char *err)
{
    if (lock_and_locate(t, target_masked, err) < 0)
        return -1;
    if (access(t->path, F_OK) == 0)
        return 1;
    /* a file of an older benchtop, keyed by the target's spelling */
    t->id[0] = '\0';
    if (undo_path(t, target_masked, err) < 0)
        return -1;
    return access(t->path, F_OK) == 0;
}

static int restart_server(struct tryset *t, char *err);

/* Some setting may be B on the server now. */
static int
tryset_changed(const struct tryset *t)
{
    for (int i = 0; i < t->n; i++)
        if (t->done[i])
            return 1;
    return 0;
}

/* B as the server now holds it, kept (and in the undo file) to see drift before the revert. */
static void
note_seen(struct tryset *t, int i)
{
    char err[BT_ERRLEN];
    char *v = read_undo(t, i, t->want[i].name, err);

    if (v == NULL)
        return;
    if (t->seen[i] != NULL && strcmp(t->seen[i], v) == 0) {
        free(v);
        return;
    }
    free(t->seen[i]);
    t->seen[i] = v;
    if (t->path[0] != '\0')
        write_undo(t, t->masked, err); /* a failure keeps the file before: still correct */
}

/* Setting i after a failed apply: changed (so to be put back) only if it is no longer A. */
static int
changed_anyway(struct tryset *t, int i)
{
    char err[BT_ERRLEN];
    char *v = read_undo(t, i, t->want[i].name, err);
    int changed = v == NULL || strcmp(v, t->orig[i].value) != 0;

    free(v);
    return changed;
}

int
tryset_apply(struct tryset *t, char *err)
{
    int i;

    if (t->drift[0] != '\0') /* B again would overwrite the admin's value, and A is not A */
        return seterr(err,
                      "%s was changed during the try by someone else: the try stops (its rounds "
                      "no longer compare the server as it was with B)",
                      t->drift);
    for (i = 0; i < t->n; i++) {
        t->done[i] = 1; /* from the write on, a failure still reverts */
        t->applied = 1;
        if (set_one(t, i, t->want[i].name, t->want[i].value, err) < 0) {
            t->done[i] = (unsigned char)changed_anyway(t, i);
            t->applied = tryset_changed(t);
            return -1;
        }
        note_seen(t, i);
    }
    return t->restart ? restart_server(t, err) : 0;
}

/*
 * Setting i before its revert: 0 to put it back, 1 when it needs nothing
 * (already A), 2 when someone else changed it during the try (left, said).
 */
static int
drifted(struct tryset *t, int i)
{
    char err[BT_ERRLEN];
    char *now = read_undo(t, i, t->orig[i].name, err);
    int rv = 0;

    if (now == NULL) /* cannot tell: put it back */
        return 0;

    if (strcmp(now, t->orig[i].value) == 0)
        rv = 1;
    else if (t->seen[i] != NULL && strcmp(now, t->seen[i]) != 0) {
        fprintf(stderr, "benchtop: %s was changed during the try by someone else (now ",
                t->orig[i].name);
        text_put(stderr, now, TEXT_TERM);
        fputs(", not B's ", stderr);
        text_put(stderr, t->seen[i], TEXT_TERM);
        fputs("): left as it is\n", stderr);
        snprintf(t->drift, sizeof t->drift, "%s", t->orig[i].name);
        rv = 2;
    }
    free(now);
    return rv;
}

int
tryset_revert(struct tryset *t, char *err)
{
    char one[BT_ERRLEN];
    int i, rv = 0;

    for (i = 0; i < t->n; i++) {
        if (!t->done[i])
            continue;
        if (drifted(t, i) || set_one(t, i, t->orig[i].name, t->orig[i].value, one) == 0) {
            t->done[i] = 0;
            continue;
        }
        if (rv == 0)
            snprintf(err, BT_ERRLEN, "could not put %s back: %.300s", t->orig[i].name, one);
        rv = -1;
    }
    if (rv == 0 && t->restart)
        rv = restart_server(t, err);
    t->applied = tryset_changed(t);
    if (rv == 0)
        t->applied = 0;
    return rv;
}

void
tryset_free(struct tryset *t)
{
    for (int i = 0; i < TRYSET_MAX; i++) {
        free(t->want[i].value);
        free(t->orig[i].value);
        free(t->seen[i]);
        t->want[i].value = t->orig[i].value = t->seen[i] = NULL;
    }
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
    drop_lock(t);
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
    const char *tried = json_string_value(json_object_get(item, "tried"));
    const char *seen = json_string_value(json_object_get(item, "seen"));

    if (name == NULL || value == NULL || t->n == TRYSET_MAX ||
        strlen(name) >= sizeof t->orig[0].name)
        return seterr(err, "the undo file %.400s is damaged (remove it after checking the server)",
                      t->path);
    snprintf(t->orig[t->n].name, sizeof t->orig[0].name, "%s", name);
    t->orig[t->n].value = xstrdup(value);
    snprintf(t->want[t->n].name, sizeof t->want[0].name, "%s", name);
    t->want[t->n].value = xstrdup(tried != NULL ? tried : "");
    t->seen[t->n] = seen != NULL ? xstrdup(seen) : NULL;
    t->pooled[t->n] = json_is_true(json_object_get(item, "pooler"));
    t->done[t->n] = 1;
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
