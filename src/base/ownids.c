/* ownids: benchtop's own connections' server-side ids (see ownids.h). */
#include "ownids.h"

#include <stdatomic.h>
#include <stdlib.h>

static _Atomic uint64_t slots[OWNIDS_MAX];
static atomic_int high;     /* slots in use lie below this */
static atomic_int overflow; /* connections that found no free slot, still open */

void
ownids_add(uint64_t id)
{
    int i, n = atomic_load(&high);

    for (i = 0; i < OWNIDS_MAX; i++) {
        uint64_t empty = 0;

        if (atomic_compare_exchange_strong(&slots[i], &empty, id)) {
            while (i >= n && !atomic_compare_exchange_weak(&high, &n, i + 1))
                ;
            return;
        }
    }
    atomic_fetch_add(&overflow, 1);
}

void
ownids_remove(uint64_t id)
{
    int i, n = atomic_load(&high);

    for (i = 0; i < n; i++) {
        uint64_t want = id;

        if (atomic_compare_exchange_strong(&slots[i], &want, 0))
            return;
    }
    if (atomic_load(&overflow) > 0)
        atomic_fetch_sub(&overflow, 1);
}

static int
cmp_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

int
ownids_copy(uint64_t *ids, size_t max)
{
    int i, n = atomic_load(&high), k = 0;

    if (atomic_load(&overflow) > 0)
        return -1;
    for (i = 0; i < n && (size_t)k < max; i++) {
        uint64_t id = atomic_load(&slots[i]);

        if (id != 0)
            ids[k++] = id;
    }
    qsort(ids, (size_t)k, sizeof(ids[0]), cmp_id);
    return k;
}

int
ownids_has(const uint64_t *ids, int n, uint64_t id)
{
    return n > 0 && bsearch(&id, ids, (size_t)n, sizeof(ids[0]), cmp_id) != NULL;
}
