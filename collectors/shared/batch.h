/*
 * batch: the --batch option, shared by the backends that put several
 * operations into one request or transaction (memcached's multiget: keys
 * per request; SQLite: statements per transaction). Each backend keeps a
 * struct batch_conf in its option struct and lists batch_option_group.
 */
#ifndef BENCHTOP_BATCH_H
#define BENCHTOP_BATCH_H

#include "engine/optdef.h"

struct batch_conf {
    int batch; /* --batch; 0 when not given: the backend's own default */
};

extern const struct option_group batch_option_group;

/*
 * --pipeline: requests in flight per connection (Redis, http://). The group
 * is one int: a backend lists it at the offset of an int of its own.
 */
extern const struct option_group pipeline_option_group;

#endif
