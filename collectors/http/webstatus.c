/* webstatus: pure parsers of nginx's stub_status and php-fpm's status page, and derive. */
#include "webstatus.h"

#include "base/units.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

static const char NGINX[] = "nginx", FPM[] = "php-fpm";

/* The next line of page (from *at), without its end, into buf; 0 at the end. */
static int
next_line(const char *page, size_t len, size_t *at, char *buf, size_t buflen)
{
    size_t n = 0;

    if (*at >= len)
        return 0;
    while (*at < len && page[*at] != '\n') {
        if (n + 1 < buflen && page[*at] != '\r')
            buf[n++] = page[*at];
        (*at)++;
    }
    (*at)++;
    buf[n] = '\0';
    return 1;
}

static char *
trim(char *s)
{
    char *end;

    s += strspn(s, " \t");
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
        *--end = '\0';
    return s;
}

/* Whitespace-separated whole numbers of line into v (up to n); how many were read, -1 on junk. */
static int
numbers(char *line, uint64_t *v, int n)
{
    char *save = NULL, *tok;
    int k = 0;

    for (tok = strtok_r(line, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
        if (k == n || safe_strtoull(tok, &v[k]) < 0)
            return -1;
        k++;
    }
    return k;
}

/* "Reading: 0 Writing: 1 Waiting: 1" */
static int
reading_line(char *p, struct ws_nginx *ng)
{
    static const char *const words[] = {"Reading:", "Writing:", "Waiting:"};
    uint64_t *const to[] = {&ng->reading, &ng->writing, &ng->waiting};
    char *save = NULL, *tok = strtok_r(p, " \t", &save);
    int i;

    for (i = 0; i < 3; i++) {
        if (tok == NULL || strcmp(tok, words[i]) != 0)
            return -1;
        tok = strtok_r(NULL, " \t", &save);
        if (tok == NULL || safe_strtoull(tok, to[i]) < 0)
            return -1;
        tok = strtok_r(NULL, " \t", &save);
    }
    return 0;
}

/*
 * Active connections: 2
 * server accepts handled requests
 *  10 10 20
 * Reading: 0 Writing: 1 Waiting: 1
 */
static int
parse_nginx(const char *page, size_t len, struct ws_nginx *ng, char *err)
{
    char line[256], *p;
    size_t at = 0;
    int seen = 0;
    uint64_t v[3];

    while (next_line(page, len, &at, line, sizeof line)) {
        p = trim(line);
        if (strncmp(p, "Active connections:", 19) == 0) {
            if (numbers(p + 19, v, 1) != 1)
                return seterr(err, "stub_status: bad Active connections line");
            ng->active = v[0];
            seen |= 1;
        } else if (strncmp(p, "server accepts handled requests", 31) == 0) {
            if (!next_line(page, len, &at, line, sizeof line) || numbers(line, v, 3) != 3)
                return seterr(err, "stub_status: bad accepts/handled/requests line");
            ng->accepts = v[0];
            ng->handled = v[1];
            ng->requests = v[2];
            seen |= 2;
        } else if (strncmp(p, "Reading:", 8) == 0) {
            if (reading_line(p, ng) < 0)
                return seterr(err, "stub_status: bad Reading/Writing/Waiting line");
            seen |= 4;
        }
    }
    return seen == 7 ? 0 : seterr(err, "stub_status: a line is missing");
}

/* "name:   value" lines; the numbers this page must have, and the words. */
static int
parse_fpm(const char *page, size_t len, struct ws_fpm *f, char *err)
{
    static const struct {
        const char *name;
        size_t off;
    } fields[] = {
        {"accepted conn", offsetof(struct ws_fpm, accepted)},
        {"listen queue", offsetof(struct ws_fpm, queue)},
        {"max listen queue", offsetof(struct ws_fpm, max_queue)},
        {"idle processes", offsetof(struct ws_fpm, idle)},
        {"active processes", offsetof(struct ws_fpm, active)},
        {"total processes", offsetof(struct ws_fpm, total)},
        {"max children reached", offsetof(struct ws_fpm, max_children)},
        {"slow requests", offsetof(struct ws_fpm, slow)},
    };
    char line[256], *colon, *name, *value;
    size_t at = 0, i;
    unsigned seen = 0;

    while (next_line(page, len, &at, line, sizeof line)) {
        if ((colon = strchr(line, ':')) == NULL)
            continue;
        *colon = '\0';
        name = trim(line);
        value = trim(colon + 1);
        if (strcmp(name, "pool") == 0)
            snprintf(f->pool, sizeof f->pool, "%s", value);
        else if (strcmp(name, "process manager") == 0)
            snprintf(f->pm, sizeof f->pm, "%s", value);
        for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
            if (strcmp(name, fields[i].name) != 0)
                continue;
            if (safe_strtoull(value, (uint64_t *)((char *)f + fields[i].off)) < 0)
                return seterr(err, "php-fpm status: '%s' is not a number", fields[i].name);
            seen |= 1u << i;
        }
    }
    /* slow requests is optional: older pools do not say it */
    return (seen | 1u << 7) == 0xff ? 0 : seterr(err, "php-fpm status: a line is missing");
}

int
ws_parse(const char *page, size_t len, struct ws_sample *out, char *err)
{
    if (len >= 19 && memmem(page, len, "Active connections:", 19) != NULL) {
        out->kind = WS_NGINX;
        return parse_nginx(page, len, &out->ng, err);
    }
    if (memmem(page, len, "process manager:", 16) != NULL) {
        out->kind = WS_FPM;
        return parse_fpm(page, len, &out->fpm, err);
    }
    return seterr(err, "the page is neither nginx's stub_status nor php-fpm's status page "
                       "(watch the status URL itself, in plain text)");
}

static void
add_rate(struct coll_view *v, const char *section, const char *label, double r)
{
    if (isnan(r))
        coll_row_add(v, section, label, NAN, ROW_DIM, "-");
    else
        coll_row_add(v, section, label, r, ROW_NORMAL, "%.1f", r);
}

static void
derive_nginx(const struct ws_nginx *p, const struct ws_nginx *c, double secs, struct coll_view *v)
{
    int hp = p != NULL;
    double dropped = hp && c->accepts >= p->accepts && c->handled >= p->handled
                         ? (double)((c->accepts - p->accepts) - (c->handled - p->handled))
                         : NAN;

    coll_row_add(v, NGINX, "active", (double)c->active, ROW_NORMAL, "%llu",
                 (unsigned long long)c->active);
    coll_row_add(v, NGINX, "reading", (double)c->reading, ROW_NORMAL, "%llu",
                 (unsigned long long)c->reading);
    coll_row_add(v, NGINX, "writing", (double)c->writing, ROW_NORMAL, "%llu",
                 (unsigned long long)c->writing);
    coll_row_add(v, NGINX, "waiting", (double)c->waiting, ROW_NORMAL, "%llu",
                 (unsigned long long)c->waiting);
    add_rate(v, NGINX, "requests/s", units_rate(hp ? p->requests : 0, c->requests, hp, secs));
    add_rate(v, NGINX, "accepts/s", units_rate(hp ? p->accepts : 0, c->accepts, hp, secs));
    add_rate(v, NGINX, "handled/s", units_rate(hp ? p->handled : 0, c->handled, hp, secs));
    if (dropped > 0)
        coll_row_add(v, NGINX, "dropped", dropped, ROW_BAD, "%.0f (worker_connections)", dropped);
    v->server_tps = units_rate(hp ? p->requests : 0, c->requests, hp, secs);
}

static void
derive_fpm(const struct ws_fpm *p, const struct ws_fpm *c, double secs, struct coll_view *v)
{
    /* a static pool has all its processes from the start; the others grow to the limit */
    int hp = p != NULL, full = c->max_children > 0 || strcmp(c->pm, "static") == 0;
    double reached = hp && c->max_children >= p->max_children
                         ? (double)(c->max_children - p->max_children)
                         : NAN;
    struct coll_signals *g = &v->sig;

    coll_row_add(v, FPM, "pool", NAN, ROW_NORMAL, "%s (%s)", c->pool, c->pm);
    coll_row_add(v, FPM, "listen queue", (double)c->queue, c->queue ? ROW_WARN : ROW_GOOD,
                 "%llu (max %llu)", (unsigned long long)c->queue, (unsigned long long)c->max_queue);
    coll_row_add(v, FPM, "active", (double)c->active, ROW_NORMAL, "%llu of %llu",
                 (unsigned long long)c->active, (unsigned long long)c->total);
    coll_row_add(v, FPM, "idle", (double)c->idle, ROW_NORMAL, "%llu", (unsigned long long)c->idle);
    if (reached > 0)
        coll_row_add(v, FPM, "max children", reached, ROW_BAD, "reached %.0f times now", reached);
    else
        coll_row_add(v, FPM, "max children", reached, ROW_NORMAL, "reached %llu times in all",
                     (unsigned long long)c->max_children);
    add_rate(v, FPM, "requests/s", units_rate(hp ? p->accepted : 0, c->accepted, hp, secs));
    if (c->slow > 0)
        coll_row_add(v, FPM, "slow requests", (double)c->slow, ROW_WARN, "%llu",
                     (unsigned long long)c->slow);
    v->server_tps = units_rate(hp ? p->accepted : 0, c->accepted, hp, secs);
    /* the page counts the process serving it as active */
    g->app_queue = (double)c->queue;
    g->app_busy = (double)c->active;
    /* until then a dynamic pool can still grow: its limit is not known */
    g->app_workers = full ? (double)c->total : NAN;
    snprintf(g->app_name, sizeof g->app_name, "%s", FPM);
    snprintf(g->app_limit, sizeof g->app_limit, "pm.max_children");
}

/* The workers' CPU seconds, all threads. */
static double
workers_secs(const struct ws_sample *s)
{
    double t = 0;

    for (int i = 0; i < s->ntasks; i++)
        t += s->tasks[i].secs;
    return t;
}

/*
 * nginx's workers as a threaded server's threads: their CPU, the busiest,
 * and worker_processes to raise (one worker at 96% of a core held a
 * static page at 32 clients, field trial 5, C12). Over the same workers.
 */
static void
derive_workers(const struct ws_sample *p, const struct ws_sample *c, double secs,
               struct coll_view *v)
{
    double used;

    if (p == NULL || c->workers <= 0 || p->workers != c->workers || !(secs > 0))
        return;
    used = (workers_secs(c) - workers_secs(p)) / secs * 100;
    if (used >= 0) {
        v->sig.server_cpu_pct = used;
        v->sig.server_cpu_limit = 100.0 * c->workers;
    }
    coll_threads(v, c->workers, "worker_processes", p->tasks, p->ntasks, c->tasks, c->ntasks, secs);
}

void
ws_derive(const void *prev, const void *cur, double secs, struct coll_view *view)
{
    const struct ws_sample *p = prev, *c = cur;

    coll_view_reset(view);
    if (p != NULL && p->kind != c->kind)
        p = NULL; /* the URL now serves the other page: start over */
    if (c->kind == WS_NGINX) {
        derive_nginx(p ? &p->ng : NULL, &c->ng, secs, view);
        derive_workers(p, c, secs, view);
    } else if (c->kind == WS_FPM)
        derive_fpm(p ? &p->fpm : NULL, &c->fpm, secs, view);
    coll_row_add(view, c->kind == WS_NGINX ? NGINX : FPM, "page fetch", c->fetch_ms, ROW_NORMAL,
                 "%.1f ms", c->fetch_ms);
}
