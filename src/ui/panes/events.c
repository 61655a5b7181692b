/*
 * events: the tail of the event log, newest at the bottom like a
 * terminal, so the eye goes to the same place for the latest line.
 */
#include "ui/dash.h"

#include <stdio.h>

enum {
    TIME_W = 6, /* "  12.0s": the column holds until 9999.9 s, 2.7 hours */
};

void
pane_events(const struct dash *d, struct grid *g, struct rect r)
{
    struct rect in = {r.x + 1, r.y + 1, r.w - 2, r.h - 2};
    int n = d->nevents < DASH_EVENTS ? d->nevents : DASH_EVENTS;
    int shown = n < in.h ? n : in.h;
    /* zoomed, the arrows scroll back through the whole history */
    int back = d->zoom == 4 && d->scroll > 0 ? d->scroll : 0;
    char title[48];

    if (back > n - shown)
        back = n - shown;
    snprintf(title, sizeof title, back > 0 ? "4 events (%d newer below)" : "4 events", back);
    grid_box(g, r, title, d->utf8);
    if (in.w <= 0 || in.h <= 0)
        return;
    if (n <= 0) {
        grid_put(g, in.x, in.y, in.w, ST_DIM, "no events yet");
        return;
    }
    for (int i = 0; i < shown; i++) {
        const struct dash_event *e = &d->events[n - back - shown + i];
        int y = in.y + i;
        int x = in.x + grid_printf(g, in.x, y, in.w, ST_DIM, "%*.1fs", TIME_W, e->t);

        if (x + 2 < in.x + in.w)
            grid_put(g, x + 2, y, in.x + in.w - x - 2, dash_level_style(e->level, ST_NORMAL),
                     e->text);
    }
}
