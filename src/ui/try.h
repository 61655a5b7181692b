/*
 * try (ui): the dashboard's `t`. The verdict shown names an experiment
 * (src/analysis/trystat.h, try_propose); the bottom row asks for a y; the
 * rounds then run inside the load (src/run/tryrun.h) while the panes keep
 * drawing, an overlay fills in a row per round, and the result's sentence
 * goes to the events pane and the record. The server is put back at the
 * end, and by tui_try_end before the dashboard exits (q, SIGINT, SIGTERM).
 */
#ifndef BENCHTOP_UI_TRY_H
#define BENCHTOP_UI_TRY_H

#include <stdio.h>

#include "dash.h"
#include "run/session.h"
#include "run/tryrun.h"

struct tui_try {
    struct tryrun run;
    struct try_proposal p;
    int have_settings; /* settings: the target's as last read */
    struct coll_settings settings;
};

/* t: the question into d->prompt (1), or a one-line refusal in the events (0). */
int tui_try_ask(struct tui_try *tt, struct dash *d, struct session *s, enum verdict_kind shown);
/* The answer to the question; the rounds start from run time t on y. */
void tui_try_answer(struct tui_try *tt, struct dash *d, struct session *s, int yes, double t);
/* Each tick while rounds run: the next round, the overlay's rows, the result (to record too). */
void tui_try_tick(struct tui_try *tt, struct dash *d, struct session *s,
                  const struct snapshot *snap, const struct verdict *v, FILE *record);
/* The rounds run now (the load keys are off). */
int tui_try_running(const struct tui_try *tt);
/* Before the dashboard exits: a try still running is put back. 0, or -1 with err. */
int tui_try_end(struct tui_try *tt, char *err);

#endif
