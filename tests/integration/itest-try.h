/*
 * itest-try: what the try tests read back: the undo files a try left in
 * its state folder, and a side's tps in try's table.
 */
#ifndef BENCHTOP_ITEST_TRY_H
#define BENCHTOP_ITEST_TRY_H

#include "itest.h"

/* The undo files left in state_dir/benchtop. */
static inline int
itest_undo_files(const char *state_dir)
{
    char cmd[700];
    FILE *p;
    int n = 0, c;

    snprintf(cmd, sizeof cmd, "ls %s/benchtop 2>/dev/null | grep -c '^undo-.*json$'", state_dir);
    p = popen(cmd, "r");
    assert_non_null(p);
    if (fscanf(p, "%d", &n) != 1)
        n = 0;
    while ((c = fgetc(p)) != EOF)
        ;
    pclose(p);
    return n;
}

/* tps of the table's row for side ("\nA " or "\nB "). */
static inline double
itest_row_tps(const char *out, const char *side)
{
    const char *line = strstr(out, side);
    double tps = -1;
    char name[8];

    assert_non_null(line);
    assert_int_equal(sscanf(line + 1, "%7s %lf", name, &tps), 2);
    return tps;
}

#endif
