/*
 * dash: everything the dashboard shows, as plain data. The TUI loop fills
 * one struct dash from the engine's snapshots and the collectors' views;
 * the panes (ui/pane-*.c) turn it into cells. Nothing here names a
 * database: server figures arrive as collector rows.
 */
#ifndef BENCHTOP_DASH_H
#define BENCHTOP_DASH_H

#include <stddef.h>
#include <stdint.h>

#include "engine/collector.h"
#include "grid.h"
#include "base/hist.h"

#define DASH_HISTORY 256   /* intervals of throughput history kept */
#define DASH_EVENTS 64     /* events kept (newest last) */
#define DASH_SERVERS 4     /* targets watched at once */
#define DASH_LOG2 33       /* latency buckets: [2^i, 2^(i+1)) us */
#define DASH_SWEEP_ROWS 64 /* finished sweep steps shown (SWEEP_MAX_STEPS) */

enum run_state {
    RUN_STARTING,
    RUN_RUNNING,
    RUN_PAUSED,
    RUN_RECONNECTING, /* some clients lost their connection and retry */
    RUN_WATCHING,     /* watch mode: no load */
    RUN_DONE,
};

struct dash_event {
    double t; /* seconds since the start */
    enum row_level level;
    char text[200]; /* the events pane clips it to its width */
};

/* The figures of one segment of the run (see ui/segment.h). */
struct dash_segment {
    char label[64]; /* what started it: "start", "synchronous_commit = off", a marker's label */
    double secs;
    double tps;
    struct hist_summary lat;
};

struct dash_server {
    char name[16];    /* collector name, "postgres" */
    char target[160]; /* masked */
    int ok;           /* the last sample succeeded */
    int have_view;    /* view holds at least one derive */
    double cost_ms;   /* time the last sample took */
    uint64_t late;    /* samples skipped because one took longer than the interval */
    char error[160];  /* why not ok */
    struct coll_view view;
};

/* One finished step of a sweep. */
struct dash_sweep_row {
    double x; /* clients, or the rate */
    double tps;
    double p50_us, p99_us;
    uint64_t errors;
    char verdict[32];
    int probe, met; /* find-rate: a probe, and whether it met the target */
};

/* `benchtop sweep`: what the sweep pane shows. */
struct dash_sweep {
    int active;     /* a sweep was asked for: the pane is part of the layout */
    int rate;       /* the steps vary the rate (else the clients) */
    char title[48]; /* "sweep: clients", "find-rate p99 < 5 ms" */
    int nrows;
    struct dash_sweep_row rows[DASH_SWEEP_ROWS];
    int running;              /* a step runs now (0 once the sweep is over) */
    double running_x;         /* ... its clients or rate */
    int warming;              /* ... and it is in its warm-up */
    double running_s, step_s; /* seconds into the step (warm-up included), its whole length */
    int knee;                 /* row of the knee, or -1 */
    char finding[200];        /* the knee, or find-rate's answer; "" = none yet */
};

#define DASH_TRY_LINES 20 /* the try overlay's rows: heads, 6 rounds, the result */

/* t: the experiment's overlay, filled in round by round (ui/try.c). */
struct dash_try {
    int shown; /* up until a key closes it once the try is over */
    int n;
    char lines[DASH_TRY_LINES][160];
};

/* How the sessions list is ordered (o toggles). */
enum dash_sort {
    DASH_SORT_DURATION, /* the longest-running statement first, idle sessions last */
    DASH_SORT_STATE,    /* blocked, idle in a transaction, active, others, idle */
};

/* The first server's sessions (collector_class.sessions), for the sessions pane. */
struct dash_sessions {
    int shown;       /* the layout gives it a pane (watch), or it is zoomed (7) */
    int have;        /* list holds a read */
    char error[160]; /* why the last read failed; "" */
    int sort;        /* enum dash_sort */
    int sel;         /* the selected row of list (sorted), for C and K */
    int can_kill;    /* the server class can, and --read-only is off */
    struct coll_sessions list;
    /* T: the pane shows the top statements instead (collector_class.statements) */
    int top;
    int have_top;        /* statements holds a read */
    char top_error[160]; /* why the last read failed; "" */
    int top_sel;         /* the first row shown (j/k scroll) */
    struct coll_statements statements;
};

struct dash {
    /* header */
    char target[256]; /* masked */
    char workload[64];
    char mode[16];
    int load; /* 1 when benchtop puts load; 0 in watch mode */
    int clients, threads, connected;
    double rate; /* -R target; 0 = closed loop */
    double elapsed_s;
    double duration_s; /* 0 = until q (or -t) */
    double interval_s;
    enum run_state state;
    double own_cpu_pct;   /* benchtop's CPU over the last interval, % of one core */
    char verdict[400];    /* "CLIENT-BOUND (clear): benchtop thread at 97% CPU; ..."; "" = none */
    char record_stop[96]; /* "recording stopped: No space left on device"; "" = none */
    char status[96];      /* watch --records: "starts in 42 s, 3 of 3 agents ready"; "" = none */
    enum row_level verdict_level;

    /* throughput (last interval) and its history, oldest first */
    double tps, ops;
    double rx_bytes_s; /* bytes received per second, for targets that count them (HTTP) */
    double server_tps; /* NAN if no collector reports it */
    int nhist;
    double tps_hist[DASH_HISTORY];
    double server_tps_hist[DASH_HISTORY]; /* NAN where unknown */
    uint64_t errors;                      /* last interval */
    double failed_pct; /* failed share of the last interval's transactions, %; flagged over 1 */
    uint64_t errors_total, reconnects_total, late_total, txns_total;
    uint64_t retried_total, retries_total; /* --max-tries */

    /* latency, us */
    struct hist_summary lat_cur, lat_total;
    uint64_t lat_log2[DASH_LOG2]; /* whole run */

    /* before / since the last setting change or marker; nsegments 0 until there is one */
    int nsegments;
    struct dash_segment seg[2]; /* [0] before, [1] since */

    int nservers;
    struct dash_server servers[DASH_SERVERS];

    int nevents;
    struct dash_event events[DASH_EVENTS];

    struct dash_sweep sweep;
    struct dash_sessions sessions;
    struct dash_try trial;

    /* display state */
    int utf8;                   /* Unicode blocks/braille and box drawing; ASCII otherwise */
    int zoom;                   /* 0: every pane; 1..7: that pane alone (header stays) */
    int scroll;                 /* a zoomed events pane: rows back from the newest */
    int help;                   /* the help overlay is open */
    int verdict_open;           /* v: the whole verdict in an overlay (any key closes it) */
    const char *help_lines[40]; /* for the overlay: "key  what it does", NULL-terminated */
    char prompt[200];           /* the one-line prompt on the bottom row; "" = none */
};

/* The style a collector row's level is drawn in (normal: `plain`). */
enum style dash_level_style(enum row_level level, enum style plain);
/* Block elements from empty to full in eighths of a cell, for bars. */
extern const char *const dash_eighths[9];
/* Cells a UTF-8 string takes (one per code point, as grid_put counts). */
int dash_cells(const char *s);

/*
 * The verdict line: the limit, then what to try, then the evidence, so a
 * line cut at 80 columns still says what to do ("COMMIT-BOUND (clear),
 * try synchronous_commit = off: ..."); advice "" or NULL when there is none.
 */
void dash_verdict_line(char *buf, size_t len, const char *head, const char *advice,
                       const char *evidence);
/* Appends an event (dropping the oldest when full). */
void dash_event_add(struct dash *d, enum row_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends a throughput sample to the history (dropping the oldest when full). */
void dash_history_push(struct dash *d, double tps, double server_tps);
/*
 * A server sample that arrived after the tick it measures: taken at
 * taken_s (the run's clock), within half an interval of the last tick at
 * tick_s, it is that interval's figure: it replaces the last point and the
 * figure shown beside the client's tps (1). Else it is the next interval's
 * and waits for the next push (0). The collector's samples are timed as
 * the engine's ticks, and land just after them once a round trip later.
 */
int dash_server_sample(struct dash *d, double server_tps, double taken_s, double tick_s,
                       double interval_s);

/* The panes: each draws into r only. 1..5 are the zoom numbers. */
void pane_header(const struct dash *d, struct grid *g, struct rect r);
void pane_throughput(const struct dash *d, struct grid *g, struct rect r); /* 1 */
void pane_latency(const struct dash *d, struct grid *g, struct rect r);    /* 2 */
void pane_server(const struct dash *d, struct grid *g, struct rect r);     /* 3 */
void pane_events(const struct dash *d, struct grid *g, struct rect r);     /* 4 */
/* 5 zooms the server pane's settings and session detail (pane_server with more rows). */
void pane_sweep(const struct dash *d, struct grid *g, struct rect r);    /* 6 */
void pane_sessions(const struct dash *d, struct grid *g, struct rect r); /* 7 */
/* 7 after T: the top statements, in the sessions' place. */
void pane_statements(const struct dash *d, struct grid *g, struct rect r);
/* Pure: orders l's sessions by sort (enum dash_sort); ties keep the server's order. */
void dash_sessions_sort(struct coll_sessions *l, int sort);
/* "12.3s", "4m05s", "2h03m", "-" for NAN, into buf (at least 8 bytes). */
const char *dash_duration(char *buf, size_t len, double secs);

/* The minimum size; below it layout_draw shows a "terminal too small" notice. */
#define DASH_MIN_W 80
#define DASH_MIN_H 24

/* Lays out the whole screen for g's size: panes, zoom, help overlay, too-small notice. */
void layout_draw(const struct dash *d, struct grid *g);

#endif
