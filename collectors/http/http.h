/*
 * http: the HTTP backend's private interface. Two load drivers share the
 * options, the URL list and what prepare checks: http:// on the engine's own
 * sockets (driver.c, HTTP/1.1 written and parsed by benchtop) and https://
 * through libcurl's multi interface (curl.c, for TLS).
 */
#ifndef BENCHTOP_HTTP_H
#define BENCHTOP_HTTP_H

#include <stddef.h>

#include "engine/driver.h"

struct ht_conf {
    char *method;   /* -X */
    char *data;     /* -d BODY or -d @FILE */
    char *headers;  /* -H, repeatable: lines */
    char *url_file; /* --url-file */
    int url_order;  /* --url-order */
    int insecure;   /* --insecure */
    int pipeline;   /* --pipeline (http:// only) */
};

struct ht_opts {
    struct ht_conf http;
};

/* What both drivers take from the command line, checked by ht_load. */
struct ht_common {
    char **urls;
    int nurls;
    int url_order;
    int per_request; /* -C: a new connection per request */
    int insecure;
    int head;           /* HEAD: no body in any response */
    const char *method; /* as sent: GET, POST with -d, or -X's */
    char *custom;       /* -X's when it is not what GET/POST without it would be */
    char *body;
    size_t body_len;
    int has_body;
    char *header_lines; /* -H's, as options_list_next walks them */
    int clients;
    int pipeline;
};

extern const struct driver_options ht_options[];
extern const char *const ht_workloads[];
extern const char *const ht_modes[];
extern const char *const ht_err_kinds[];

char *ht_mask(const char *target);
/* Options, URLs and body for a target of scheme ("http" or "https"); 0, or -1 with err. */
int ht_load(struct ht_common *hc, const struct runconf *rc, const void *opts, const char *scheme,
            char *err);
void ht_unload(struct ht_common *hc);
/* The one blocking request of prepare (libcurl): the server is there and speaks HTTP. */
int ht_probe(const struct ht_common *hc, char *err);
/* The next request's URL index; next: --url-order's place, rng: the draw. */
int ht_pick_url(const struct ht_common *hc, int *next, struct rng *rng);
/* A final status other than 2xx as the driver's error kinds. */
void ht_status_result(long status, struct txn_result *res);
int ht_init(const struct init_conf *ic, char *err);

#endif
