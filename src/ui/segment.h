/*
 * segment: the run cut into segments at setting changes and the user's
 * markers, so the panes can show the figures before and since the last
 * cut. The current segment's intervals are merged as they arrive (one
 * histogram merge per interval, nothing per transaction); a cut makes it
 * the "before" segment and starts an empty one. Cuts fall on interval
 * boundaries: the interval a cut happens in counts to the new segment.
 */
#ifndef BENCHTOP_SEGMENT_H
#define BENCHTOP_SEGMENT_H

#include <stdint.h>

#include "dash.h"
#include "base/hist.h"

struct segments {
    struct hist *before, *since;
    uint64_t before_txns, since_txns;
    double before_secs, since_secs;
    char before_label[64], since_label[64];
    int cuts;
};

void segments_init(struct segments *s);
void segments_free(struct segments *s);
/* One interval of the load: its latencies, transactions and length. */
void segments_add(struct segments *s, const struct hist *lat, uint64_t txns, double secs);
/* Ends the current segment; the next one is called label ("synchronous_commit = off"). */
void segments_cut(struct segments *s, const char *label);
/* d->seg[0] (before) and d->seg[1] (since); d->nsegments 0 until the first cut. */
void segments_show(const struct segments *s, struct dash *d);

#endif
