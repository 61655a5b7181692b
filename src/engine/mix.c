/*
 * mix: the entries of -b/-w/-f with their weights, and the per-transaction
 * draw (see mix.h).
 */
#include "mix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/optdef.h"
#include "runconf.h"
#include "base/util.h"

/* "get, set, incr or mixed" */
static void
list_names(const char *const *names, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; names[i] != NULL && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0         ? ""
                                 : names[i + 1] ? ", "
                                                : " or ",
                                 names[i]);
}

/* The length of item's name and its weight: the text after the last '@' when it is a number. */
static int
split_weight(const char *item, size_t *name_len, int64_t *weight, char *err)
{
    const char *at = strrchr(item, '@');
    uint64_t w;

    *name_len = strlen(item);
    *weight = 1;
    if (at == NULL || at[1] < '0' || at[1] > '9')
        return 0;
    if (safe_strtoull(at + 1, &w) < 0) {
        if (strspn(at + 1, "0123456789") != strlen(at + 1))
            return 0; /* "a@1b.sql": a name with an '@' */
        w = MIX_WEIGHT_MAX + 1u;
    }
    if (w > MIX_WEIGHT_MAX)
        return seterr(err, "weight of '%s' is larger than %d (give a smaller @W)", item,
                      MIX_WEIGHT_MAX);
    *name_len = (size_t)(at - item);
    *weight = (int64_t)w;
    return 0;
}

static int
add_entry(struct mix *m, const char *item, int is_file, const char *drv,
          const char *const *workloads, char *err)
{
    struct mix_entry *e;
    char names[256];
    size_t len;
    int64_t w;
    int b = -1;

    if (m->n == MIX_MAX)
        return seterr(err, "more than %d scripts and built-ins in the mix (give fewer -f/-b)",
                      MIX_MAX);
    if (split_weight(item, &len, &w, err) < 0)
        return -1;
    if (len == 0)
        return seterr(err, "'%s' names no %s (give -%c NAME@W)", item,
                      is_file ? "file" : "workload", is_file ? 'f' : 'b');
    if (!is_file && (b = str_index_n(workloads, item, len)) < 0) {
        list_names(workloads, names, sizeof names);
        return seterr(err, "unknown workload '%.*s' for %s (use -w %s)", (int)len, item, drv,
                      names);
    }
    e = &m->e[m->n++];
    e->name = xstrndup(item, len);
    e->builtin = b;
    e->weight = w;
    m->total += w;
    return 0;
}

/* Each value of an OPT_LIST option (-f or -b) as an entry. */
static int
add_list(struct mix *m, const char *list, int is_file, const char *drv,
         const char *const *workloads, char *err)
{
    const char *p = list, *value;
    char item[4096];
    size_t len;

    while (options_list_next(&p, &value, &len)) {
        if (len >= sizeof item)
            return seterr(err, "'%.40s...' is longer than %zu bytes (give a shorter name)", value,
                          sizeof item - 1);
        memcpy(item, value, len);
        item[len] = '\0';
        if (add_entry(m, item, is_file, drv, workloads, err) < 0)
            return -1;
    }
    return 0;
}

int
mix_parse(struct mix *m, const struct runconf *rc, const char *drv, const char *const *workloads,
          char *err)
{
    memset(m, 0, sizeof *m);
    if (add_list(m, rc->builtin, 0, drv, workloads, err) < 0 ||
        add_list(m, rc->workload, 0, drv, workloads, err) < 0 ||
        add_list(m, rc->script_file, 1, drv, workloads, err) < 0)
        goto fail;
    if (m->n == 0 && add_entry(m, workloads[0], 0, drv, workloads, err) < 0)
        goto fail;
    if (m->total == 0) {
        seterr(err, "every weight in the mix is 0 (give at least one -f/-b a weight above 0)");
        goto fail;
    }
    return 0;
fail:
    mix_free(m);
    return -1;
}

int
mix_load(struct mix *m, const char *const *text, const char *const *predef, int lines, char *err)
{
    for (int i = 0; i < m->n; i++) {
        struct mix_entry *e = &m->e[i];
        if (e->builtin < 0)
            e->script = script_load(e->name, predef, lines, err);
        else if (text != NULL && text[e->builtin] != NULL)
            e->script = lines ? script_parse_lines(e->name, text[e->builtin], predef, err)
                              : script_parse(e->name, text[e->builtin], predef, err);
        else
            continue;
        if (e->script == NULL)
            return -1;
    }
    return 0;
}

int
mix_pick_weighted(const struct mix *m, struct rng *rng)
{
    int64_t r;
    int i;

    r = rng_range(rng, 0, m->total - 1);
    for (i = 0; r >= m->e[i].weight; i++)
        r -= m->e[i].weight;
    return i;
}

int
mix_files_only(const struct mix *m)
{
    for (int i = 0; i < m->n; i++)
        if (m->e[i].builtin >= 0)
            return 0;
    return 1;
}

void
mix_label(const struct mix *m, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    if (m->n == 1) {
        snprintf(buf, len, "%s", m->e[0].name);
        return;
    }
    for (int i = 0; i < m->n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s@%lld", i ? "," : "", m->e[i].name,
                                 (long long)m->e[i].weight);
}

int
mix_stmt_labels(const struct mix *m, const int *first, int *ids, struct stmt_label **out)
{
    int e, i, n = 0;

    for (e = 0; e < m->n; e++)
        for (i = 0; m->e[e].script != NULL && i < m->e[e].script->ncmds; i++)
            n += m->e[e].script->cmds[i].kind == SCRIPT_SQL;
    *out = xcalloc((size_t)n + 1, sizeof **out);
    n = 0;
    for (e = 0; e < m->n; e++) {
        const struct script *s = m->e[e].script;
        for (i = 0; s != NULL && i < s->ncmds; i++) {
            ids[first[e] + i] = s->cmds[i].kind == SCRIPT_SQL ? n : -1;
            if (s->cmds[i].kind != SCRIPT_SQL)
                continue;
            (*out)[n].script = s->name;
            (*out)[n].line = s->cmds[i].line;
            (*out)[n++].text = s->cmds[i].sql;
        }
    }
    return n;
}

void
mix_free(struct mix *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->e[i].name);
        script_free(m->e[i].script);
    }
    memset(m, 0, sizeof *m);
}
