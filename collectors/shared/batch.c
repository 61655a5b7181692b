/*
 * batch: the --batch option group (see batch.h).
 */
#include "batch.h"

#include <stddef.h>

static const struct option_def batch_defs[] = {
    {"batch", 0, OPT_INT, offsetof(struct batch_conf, batch), 1, 1000000, "", "N", CMD_LOAD,
     "operations per request or transaction: keys per multiget (memcached, default 10), "
     "statements per transaction (sqlite, default 1)"},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL},
};

const struct option_group batch_option_group = {"batching", batch_defs, NULL};

static const struct option_def pipeline_defs[] = {
    {"pipeline", 0, OPT_INT, 0, 1, 10000, "1", "DEPTH", CMD_LOAD,
     "requests in flight per connection, each timed alone (redis, http://)"},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL},
};

const struct option_group pipeline_option_group = {"pipelining", pipeline_defs, NULL};
