/*
 * ownids: the ids a server gave benchtop's own connections (a session or
 * thread id), so that a collector on another connection can tell
 * benchtop's sessions from other applications' on a server that has no
 * application name. Drivers add an id when a connection opens and remove
 * it when it closes (per connection, never per transaction); collectors
 * take a sorted copy once per look and search it.
 *
 * Thread-safe: slots are atomics; a copy taken while a connection opens
 * or closes may miss that one id. Ids are nonzero.
 */
#ifndef BENCHTOP_OWNIDS_H
#define BENCHTOP_OWNIDS_H

#include <stddef.h>
#include <stdint.h>

enum { OWNIDS_MAX = 1 << 15 }; /* more connections than this are not told apart */

void ownids_add(uint64_t id);
void ownids_remove(uint64_t id);
/*
 * The ids now registered, sorted, into ids (room for max); their count.
 * -1 when some connection could not be registered (the set is partial):
 * then no session can be called another application's.
 */
int ownids_copy(uint64_t *ids, size_t max);
/* id among the n sorted ids. */
int ownids_has(const uint64_t *ids, int n, uint64_t id);

#endif
