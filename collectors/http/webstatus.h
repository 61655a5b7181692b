/*
 * webstatus: an application tier's own status page, watched with
 * --watch http://127.0.0.1:PORT/PATH beside a load: nginx's stub_status or
 * php-fpm's status page (plain text), told apart by their text. The
 * parsers and derive are pure (tests feed them captured pages); the
 * collector class fetches the page with libcurl on the collector thread.
 */
#ifndef BENCHTOP_WEBSTATUS_H
#define BENCHTOP_WEBSTATUS_H

#include <stdint.h>

#include "base/cpu.h"
#include "engine/collector.h"

enum ws_kind { WS_NONE, WS_NGINX, WS_FPM };

/* nginx stub_status: connections now, and counters since nginx started. */
struct ws_nginx {
    uint64_t active, reading, writing, waiting;
    uint64_t accepts, handled, requests;
};

/* php-fpm's status page (pm.status_path), one pool. */
struct ws_fpm {
    char pool[32];
    char pm[16];        /* process manager: static, dynamic, ondemand */
    uint64_t accepted;  /* accepted conn: requests since the pool started */
    uint64_t queue;     /* listen queue: requests waiting for a free process */
    uint64_t max_queue; /* the most that ever waited */
    uint64_t idle, active, total;
    uint64_t max_children; /* max children reached: times the pool was full */
    uint64_t slow;         /* slow requests (request_slowlog_timeout) */
};

enum { WS_TASKS = 64 };

/*
 * One raw sample: what the page said and how long it took; for an nginx
 * on this host, its worker processes' threads (workers 0: not seen).
 */
struct ws_sample {
    enum ws_kind kind;
    double fetch_ms;
    struct ws_nginx ng;
    struct ws_fpm fpm;
    int workers, ntasks;
    struct cpu_task tasks[WS_TASKS];
};

/*
 * Pure: parses a page of len bytes (not NUL-terminated) into out. 0, or -1
 * with err when it is neither page or a figure is not a number.
 */
int ws_parse(const char *page, size_t len, struct ws_sample *out, char *err);
/* Pure: the collector_class derive (struct ws_sample samples). */
void ws_derive(const void *prev, const void *cur, double secs, struct coll_view *view);

#endif
