/*
 * mix: which script a transaction runs, as pgbench's weighted -f/-b.
 *
 * The entries come from -b NAME[@W] (built-in workloads, by the driver's
 * -w names), -w NAME (one more built-in, weight 1) and -f FILE[@W], in that
 * order; with none, the driver's default workload. W is a whole number
 * (default 1); a name whose text after its last '@' is not a number is a
 * name as given, so "a@b.sql" is a file. Each transaction draws its entry
 * from its client's rng with probability weight / total; a mix of one entry
 * draws nothing, so one workload's random sequence is what it was without
 * a mix.
 *
 * Parsing is pure; the driver loads the entries' scripts (mix_load) or
 * runs its built-ins by index.
 */
#ifndef BENCHTOP_MIX_H
#define BENCHTOP_MIX_H

#include <stdint.h>
#include "driver.h"
#include "base/rand.h"
#include "script.h"

#define MIX_MAX 32
#define MIX_WEIGHT_MAX 1000000

struct runconf;

struct mix_entry {
    char *name;            /* the file as given, or the built-in's name */
    int builtin;           /* index in the driver's workloads[], or -1 for a -f file */
    int64_t weight;        /* 0 .. MIX_WEIGHT_MAX */
    struct script *script; /* set by mix_load (files, and built-ins the driver writes as scripts) */
};

struct mix {
    int n;
    int64_t total; /* the weights' sum, > 0 */
    struct mix_entry e[MIX_MAX];
};

/*
 * The entries of rc's -b, -w and -f for a driver named drv whose built-ins
 * are workloads[] (its default first). 0, or -1 with a one-line error in
 * err ("unknown workload 'x' for redis (use -b get, set, ...)", a bad weight,
 * all weights 0, too many entries).
 */
int mix_parse(struct mix *m, const struct runconf *rc, const char *drv,
              const char *const *workloads, char *err);

/*
 * Loads each -f entry's file (lines: 0 SQL statements ending in ';', 1 one
 * command a line, script.h) and parses each built-in whose text[] is not
 * NULL (text: indexed as workloads[]; NULL when the driver has no scripts
 * for built-ins). 0, or -1 with the script's error.
 */
int mix_load(struct mix *m, const char *const *text, const char *const *predef, int lines,
             char *err);

/* A mix of several entries: the next transaction's, drawn by weight. */
int mix_pick_weighted(const struct mix *m, struct rng *rng);

/* The entry the next transaction runs: its index. Draws from rng only when n > 1. */
static inline int
mix_pick(const struct mix *m, struct rng *rng)
{
    return m->n == 1 ? 0 : mix_pick_weighted(m, rng);
}

/* 1 if every entry is a -f file (a custom script need not use the built-ins' tables). */
int mix_files_only(const struct mix *m);

/* "select-only@9,simple-update@1", or the one entry's name: the run's workload label. */
void mix_label(const struct mix *m, char *buf, size_t len);

/*
 * -r: a label for each statement of the loaded scripts (not \set lines),
 * ids[first[e] + command] its index or -1 (ids holds every script's
 * commands, placed at first[e] as the driver lays them out). *out is
 * allocated (free it; the labels point into the scripts). Returns how many.
 */
int mix_stmt_labels(const struct mix *m, const int *first, int *ids, struct stmt_label **out);

void mix_free(struct mix *m);

#endif
