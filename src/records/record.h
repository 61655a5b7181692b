/*
 * record: a --record file (or headless output) read back for `benchtop
 * report`: the run header, every interval with its latency histogram still
 * encoded, the server samples as numeric series, events, sweep steps; and
 * the figures of any window re-summarised exactly from it. The lines are
 * parsed with jansson; unknown line types and fields are skipped, so
 * records from newer versions still read.
 */
#ifndef BENCHTOP_RECORD_H
#define BENCHTOP_RECORD_H

#include <stdint.h>
#include <jansson.h>

#include "base/hist.h"

struct rec_interval {
    double t, len; /* end of the interval (seconds into the run), its length */
    int clients;
    uint64_t txns, errors, reconnects;
    char verdict[32];
    char *hdr; /* HdrHistogram V2 base64 (hdrlog.h); NULL in records before it */
    uint64_t min, max, sum, overflow;
};

struct rec_sample {
    double t;
    int nnum;     /* the series known when it was read: later ones are NAN here */
    double *nums; /* one per record series, NAN where absent (record_sample) */
};

struct rec_event {
    double t;
    char *text;
    int seq; /* order read: keeps equal times in order when sorting by t */
};

/* A line of the run's header: "target", "option clients", "server jit", with its value. */
struct rec_kv {
    char *key, *value;
};

/* A window of the run: a sweep step, or the whole (trimmed) run. */
struct rec_window {
    double from, to; /* seconds into the run */
    char label[48];  /* "8 clients", "1000/s", or the file name */
};

struct record {
    char *path;
    char *name;    /* file name without directories */
    char *target;  /* masked, as the record says */
    char *version; /* benchtop's */
    char *workload;
    double start; /* seconds since the epoch */
    int nhead;
    struct rec_kv *head; /* the run header: the run, its options, the host, then the server */
    int nset;            /* the server's settings at start, while reading (then in head) */
    struct rec_kv *set;
    int have_settings_line;    /* a {"type":"settings"} line gave them */
    int cut_line;              /* the last line, cut short while written and left out; 0: none */
    int series_capped;         /* series beyond RECORD_MAX_SERIES were left out */
    double load_from, load_to; /* the load's window: first interval's start, last one's end */
    int ninterval, iv_cap; /* iv grows by doubling (xgrow): a long record loads in linear time */
    struct rec_interval *iv;
    int nseries;
    void *series_ix;  /* name -> index (a jansson object used as a hash) */
    char **series;    /* "section: label"; index 0 is the server's own tps */
    int *series_rate; /* per series: a rate or a % (the value ended in "/s" or "%") */
    int nsample, smp_cap;
    struct rec_sample *smp;
    int nevent, ev_cap;
    struct rec_event *ev;
    int nstep;
    struct rec_window *steps;
};

/* Figures of one window; latencies in us. sd_*: noise (see record_summarize). */
struct rec_summary {
    int n; /* intervals */
    double secs;
    double outage_s; /* within secs: intervals that finished no transaction (an outage, a stall) */
    uint64_t txns, errors;
    double tps, p50, p99, p999, max;
    double sd_tps, sd_p50, sd_p99, sd_p999, sd_errors;
    double errors_per_s;
    char verdict[32];
    double verdict_share;
    double srv_tps;      /* the server's own tps, mean over the window; NAN if unknown */
    double srv_extra[2]; /* the record's first two other varying series, means */
    const char *srv_extra_name[2];
};

/*
 * A field of a record line: a string ("" when absent), a number (NAN), a
 * count (0 when absent or not a positive integer). merge.c and follow.c
 * read lines with them too.
 */
const char *record_jstr(const json_t *o, const char *key);
double record_jnum(const json_t *o, const char *key);
uint64_t record_ju64(const json_t *o, const char *key);

/*
 * What a record may hold: times within RECORD_MAX_T seconds of the start,
 * an interval at most a day long, counts below 2^53 (exact in a double,
 * summable without wrapping), at most RECORD_MAX_SERIES server series.
 */
#define RECORD_MAX_T 1e8
#define RECORD_MAX_INTERVAL 86400.0
#define RECORD_MAX_COUNT 9007199254740992.0
#define RECORD_MAX_SERIES 1000

/*
 * Whether an interval line's time, length and counts are in range (above);
 * 0, or -1 with err. record_load, merge and follow read intervals with it.
 */
int record_interval_check(const json_t *o, char *err);

/*
 * Reads path into r. 0, or -1 with err (naming the file and line). A last
 * line cut short while written is left out (r->cut_line says so).
 */
int record_load(const char *path, struct record *r, char *err);
void record_free(struct record *r);

/*
 * Re-summarises the intervals that lie within [from, to] (to <= 0: the
 * end). Percentiles come from the merged histograms; sd_* is the standard
 * deviation of the per-interval values (tps, errors/s, each interval's own
 * percentiles), the noise the comparison judges differences against.
 * 0, or -1 with err.
 */
int record_summarize(const struct record *r, double from, double to, struct rec_summary *out,
                     char *err);
/* s->verdict and s->verdict_share alone: the verdict of most intervals within [from, to]. */
void record_top_verdict(const struct record *r, double from, double to, struct rec_summary *s);
/* Merges the histograms of the intervals within [from, to] into h. 0 or -1 with err. */
int record_merge_hist(const struct record *r, double from, double to, struct hist *h, char *err);
/* A header line's value in r (e.g. "server jit"), or NULL when r has none. */
const char *record_head(const struct record *r, const char *key);
/* Whether every record has the header line key, all with one value. */
int record_head_same(const struct record *recs, int nrec, const char *key);
/* Whether key appears in recs[i] but in none before it: each key of the union once. */
int record_head_first(const struct record *recs, int i, const char *key);
/* Index of a series by name, or -1. */
int record_series(const struct record *r, const char *name);
/* Sample i's value of series k; NAN where it has none. */
double record_sample(const struct record *r, int i, int k);
/*
 * Whether an interval lies in [from, to] (to <= 0: the end): its middle
 * does, so that times rounded to milliseconds in the record never move an
 * interval out of the window it belongs to.
 */
int record_in_window(const struct rec_interval *iv, double from, double to);
/*
 * Mean of series k over the samples within [from, to], never past the
 * load's window (a dashboard waiting for `q` keeps sampling an idle
 * server); NAN if none.
 */
double record_series_mean(const struct record *r, int k, double from, double to);

#endif
