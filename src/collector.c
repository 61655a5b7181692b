/* collector: the helpers every collector class uses to fill a coll_view. */
#include "collector.h"

#include <math.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct coll_row *
coll_row_add(struct coll_view *v, const char *section, const char *label, double num,
             enum row_level level, const char *fmt, ...)
{
    struct coll_row *r;
    va_list ap;

    if (v->nrows >= COLL_MAX_ROWS)
        return NULL;
    r = &v->rows[v->nrows++];
    /* snprintf truncates where strncpy would leave the name unterminated. */
    snprintf(r->section, sizeof r->section, "%s", section);
    snprintf(r->label, sizeof r->label, "%s", label);
    va_start(ap, fmt);
    vsnprintf(r->value, sizeof r->value, fmt, ap);
    va_end(ap);
    r->num = num;
    r->level = level;
    return r;
}

void
coll_event_add(struct coll_view *v, const char *fmt, ...)
{
    va_list ap;

    if (v->nevents >= COLL_MAX_EVENTS)
        return;
    va_start(ap, fmt);
    vsnprintf(v->events[v->nevents], sizeof v->events[0], fmt, ap);
    va_end(ap);
    v->nevents++;
}

const struct coll_row *
coll_row_find(const struct coll_view *v, const char *section, const char *label)
{
    int i;

    for (i = 0; i < v->nrows; i++) {
        const struct coll_row *r = &v->rows[i];
        if (strcmp(r->section, section) == 0 && strcmp(r->label, label) == 0)
            return r;
    }
    return NULL;
}

void
coll_view_reset(struct coll_view *v)
{
    struct coll_signals *g = &v->sig;

    memset(v, 0, sizeof(*v));
    v->server_tps = NAN;
    g->sessions = g->active = g->on_cpu = g->lock_wait = g->lwlock_wait = NAN;
    g->io_wait = g->commit_wait = g->log_sync_ms_s = NAN;
    g->server_cpu_pct = g->server_cpu_limit = g->rtt_ms = NAN;
}

void
coll_setting_add(struct coll_settings *s, const char *name, const char *value)
{
    if (s->n >= COLL_MAX_SETTINGS)
        return;
    snprintf(s->s[s->n].name, sizeof s->s[0].name, "%s", name);
    snprintf(s->s[s->n].value, sizeof s->s[0].value, "%s", value);
    s->n++;
}

const char *
coll_setting_get(const struct coll_settings *s, const char *name)
{
    int i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->s[i].name, name) == 0)
            return s->s[i].value;
    return NULL;
}

int
coll_settings_diff(const struct coll_settings *prev, const struct coll_settings *cur,
                   struct coll_change *out, int max)
{
    int i, n = 0;

    for (i = 0; i < cur->n && n < max; i++) {
        const char *was = coll_setting_get(prev, cur->s[i].name);

        if (was == NULL || strcmp(was, cur->s[i].value) == 0)
            continue;
        snprintf(out[n].name, sizeof out[n].name, "%s", cur->s[i].name);
        snprintf(out[n].from, sizeof out[n].from, "%s", was);
        snprintf(out[n].to, sizeof out[n].to, "%s", cur->s[i].value);
        n++;
    }
    return n;
}
