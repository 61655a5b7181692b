/* merge: `benchtop merge RECORD... > MERGED`: one record from a fleet's (src/records/merge.h). */
#include "cmd.h"

#include <stdio.h>

#include "records/merge.h"
#include "run/options.h"
#include "base/util.h"

static int
cmd_merge(struct runconf *rc, char **pos, int npos)
{
    char err[BT_ERRLEN];

    if (npos < 2)
        usage_fatal("merge needs the records of two agents or more (e.g. benchtop merge "
                    "agent-*.jsonl > run.jsonl)");
    if (merge_records(stdout, pos, npos, rc->quiet, err) < 0)
        usage_fatal("%s", err);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

/* name, option mask, exec, usage, summary for --help */
const struct cmd_entry cmd_merge_entry = {
    "merge", CMD_MERGE, cmd_merge, "benchtop merge RECORD... > MERGED",
    "one record from the agents of one run (--instance): counts summed, histograms added"};
