/* segment: before / since figures around the last cut (see segment.h). */
#include "segment.h"

#include <stdio.h>
#include <string.h>

void
segments_init(struct segments *s)
{
    memset(s, 0, sizeof(*s));
    s->before = hist_new();
    s->since = hist_new();
    snprintf(s->since_label, sizeof(s->since_label), "start");
}

void
segments_free(struct segments *s)
{
    hist_free(s->before);
    hist_free(s->since);
}

void
segments_add(struct segments *s, const struct hist *lat, uint64_t txns, double secs)
{
    hist_merge(s->since, lat);
    s->since_txns += txns;
    s->since_secs += secs;
}

void
segments_cut(struct segments *s, const char *label)
{
    struct hist *h = s->before;

    s->before = s->since;
    s->since = h;
    hist_reset(s->since);
    s->before_txns = s->since_txns;
    s->before_secs = s->since_secs;
    memcpy(s->before_label, s->since_label, sizeof(s->before_label));
    s->since_txns = 0;
    s->since_secs = 0;
    snprintf(s->since_label, sizeof(s->since_label), "%s", label);
    s->cuts++;
}

static void
show_one(struct dash_segment *out, const struct hist *h, uint64_t txns, double secs,
         const char *label)
{
    snprintf(out->label, sizeof(out->label), "%s", label);
    out->secs = secs;
    out->tps = secs > 0 ? (double)txns / secs : 0;
    hist_summarize(h, &out->lat);
}

void
segments_show(const struct segments *s, struct dash *d)
{
    d->nsegments = s->cuts > 0 ? 2 : 0;
    if (s->cuts == 0)
        return;
    show_one(&d->seg[0], s->before, s->before_txns, s->before_secs, s->before_label);
    show_one(&d->seg[1], s->since, s->since_txns, s->since_secs, s->since_label);
}
