/*
 * hdrlog: a latency histogram (src/base/hist.h) in HdrHistogram's V2 compressed
 * encoding (zlib-deflated, base64), the form HdrHistogram's interval logs
 * (.hlog) carry, so its tools (HistogramLogProcessor, the plotters) read
 * what benchtop records. src/base/hist.c's buckets are HdrHistogram's counts
 * array for lowest 1 us, highest 2^32-1 us, 3 significant digits, so the
 * conversion is exact both ways. What the encoding does not carry (the
 * exact min, max, sum, and samples beyond 2^32 us) travels beside it in
 * the record.
 */
#ifndef BENCHTOP_HDRLOG_H
#define BENCHTOP_HDRLOG_H

#include <stdint.h>
#include <stdio.h>

#include "hist.h"

/* The V2 compressed encoding of h, base64; the caller frees it. */
char *hdrlog_encode(const struct hist *h);
/*
 * Adds the counts of an encoding to h (decoding into a histogram that
 * already holds samples merges them). 0, or -1 with err.
 */
int hdrlog_decode(const char *b64, struct hist *h, char *err);

/*
 * The record's ,"hist_us":{min, max, sum, overflow, hdr} member: what
 * `benchtop report` and `benchtop merge` need to re-summarise any window
 * exactly.
 */
void hdrlog_write_json(FILE *f, const struct hist *h);

/* An interval log's header; start_epoch is the run's start (seconds). */
void hdrlog_write_header(FILE *f, double start_epoch);
/* One interval line: start (seconds from the run's start), length, max in ms. */
void hdrlog_write_interval(FILE *f, double start_s, double len_s, uint64_t max_us, const char *b64);

#endif
