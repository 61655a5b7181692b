/*
 * merge: the records of agents that ran as one (--instance, --start-at)
 * made into one record: intervals aligned on the wall clock, counts
 * summed, histograms added (never percentiles averaged), the server's
 * samples kept once. Read with jansson; written as record lines.
 */
#ifndef BENCHTOP_MERGE_H
#define BENCHTOP_MERGE_H

#include <stdio.h>

/*
 * Writes the merged record of paths[0..n) to out. Records of different
 * targets, workloads, protocols or intervals, the same instance twice, or
 * a file that is no record are user errors: one line, exit 2.
 */
void merge_records(FILE *out, char **paths, int n, int quiet);

#endif
