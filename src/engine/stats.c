/* stats: the per-thread counters' lifecycle and merge. */
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void
wstats_init(struct wstats *s)
{
    memset(s, 0, sizeof(*s));
    s->lat = hist_new();
}

void
wstats_free(struct wstats *s)
{
    hist_free(s->lat);
    s->lat = NULL;
    free(s->stmts);
    s->stmts = NULL;
}

void
wstats_init_stmts(struct wstats *s, int n)
{
    if (n <= 0)
        return;
    s->stmts = xcalloc((size_t)n, sizeof(*s->stmts));
    s->nstmts = n;
}

void
wstats_reset(struct wstats *s)
{
    struct hist *h = s->lat;
    struct stmt_stat *st = s->stmts;
    int n = s->nstmts;

    memset(s, 0, sizeof(*s));
    s->lat = h;
    hist_reset(h);
    s->stmts = st;
    s->nstmts = n;
    if (st != NULL)
        memset(st, 0, (size_t)n * sizeof(*st));
}

void
wstats_merge(struct wstats *dst, const struct wstats *src)
{
    int k;
    uint64_t lag_max = dst->lag_max_us > src->lag_max_us ? dst->lag_max_us : src->lag_max_us;

#define STATS_ADD(name) dst->name += src->name;
    STATS_COUNTERS(STATS_ADD)
#undef STATS_ADD
    dst->lag_max_us = lag_max;
    for (k = 0; k < ERR__COUNT; k++)
        dst->errors[k] += src->errors[k];
    dst->connected += src->connected;
    dst->busy += src->busy;
    dst->connecting += src->connecting;
    dst->retrying += src->retrying;
    dst->never_done += src->never_done;
    if (src->oldest_us > dst->oldest_us)
        dst->oldest_us = src->oldest_us;
    hist_merge(dst->lat, src->lat);
    if (src->last_error[0] != '\0')
        memcpy(dst->last_error, src->last_error, sizeof(dst->last_error));
    for (k = 0; k < STATS_MSGS && src->msgs[k].n; k++)
        wstats_count_msg(dst, src->msgs[k].text, src->msgs[k].n);
    dst->msgs_other += src->msgs_other;
    for (k = 0; k < dst->nstmts && k < src->nstmts; k++) {
        dst->stmts[k].n += src->stmts[k].n;
        dst->stmts[k].errors += src->stmts[k].errors;
        dst->stmts[k].sum_us += src->stmts[k].sum_us;
    }
}

void
wstats_count_msg(struct wstats *s, const char *text, uint64_t n)
{
    int k;

    for (k = 0; k < STATS_MSGS && s->msgs[k].n; k++)
        if (strcmp(s->msgs[k].text, text) == 0)
            break;
    if (k == STATS_MSGS) {
        s->msgs_other += n;
        return;
    }
    if (s->msgs[k].n == 0)
        snprintf(s->msgs[k].text, sizeof(s->msgs[k].text), "%s", text);
    s->msgs[k].n += n;
}

double
wstats_failed_share(const struct wstats *s)
{
    uint64_t errors = wstats_errors(s);

    return errors + s->txns ? (double)errors / (double)(errors + s->txns) : 0.0;
}

int
wstats_top_msgs(const struct wstats *s, const struct err_msg *out[STATS_MSGS])
{
    int n = 0, k, i;

    for (k = 0; k < STATS_MSGS && s->msgs[k].n; k++) {
        for (i = n; i > 0 && out[i - 1]->n < s->msgs[k].n; i--)
            out[i] = out[i - 1];
        out[i] = &s->msgs[k];
        n++;
    }
    return n;
}

uint64_t
wstats_errors(const struct wstats *s)
{
    uint64_t n = 0;
    int k;

    for (k = 0; k < ERR__COUNT; k++)
        n += s->errors[k];
    return n;
}

/* The run's driver's names for its own kinds: set once before threads start, then read-only. */
static const char *driver_kind_names[ERR_DRIVER_KINDS];

void
err_kinds_use(const char *const *names)
{
    for (int i = 0; i < ERR_DRIVER_KINDS; i++)
        driver_kind_names[i] =
            names != NULL && (i == 0 || driver_kind_names[i - 1] != NULL) ? names[i] : NULL;
}

int
err_kind_used(enum err_kind k)
{
    return k < ERR_DRIVER_1 || (k < ERR__COUNT && driver_kind_names[k - ERR_DRIVER_1] != NULL);
}

const char *
err_kind_name(enum err_kind k)
{
    static const char *const names[ERR_DRIVER_1] = {
        [ERR_NONE] = "none",         [ERR_CONN] = "connection",
        [ERR_DEADLOCK] = "deadlock", [ERR_SERIALIZATION] = "serialization",
        [ERR_OTHER] = "other",
    };
    if (k >= ERR_DRIVER_1 && k < ERR__COUNT && driver_kind_names[k - ERR_DRIVER_1] != NULL)
        return driver_kind_names[k - ERR_DRIVER_1];
    return (k >= 0 && k < ERR_DRIVER_1) ? names[k] : "?";
}
