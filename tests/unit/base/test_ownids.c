/* ownids: benchtop's own connection ids, added and removed from many threads, copied sorted. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/ownids.h"

static uint64_t ids[OWNIDS_MAX];

static void
test_add_remove(void **state)
{
    int n;

    assert_int_equal(ownids_copy(ids, OWNIDS_MAX), 0);
    ownids_add(42);
    ownids_add(7);
    ownids_add(1000);
    ownids_remove(7);
    ownids_add(9);
    n = ownids_copy(ids, OWNIDS_MAX);
    assert_int_equal(n, 3);
    assert_true(ids[0] == 9 && ids[1] == 42 && ids[2] == 1000);
    assert_true(ownids_has(ids, n, 42));
    assert_false(ownids_has(ids, n, 7));
    assert_false(ownids_has(ids, 0, 42));
    ownids_remove(9);
    ownids_remove(42);
    ownids_remove(1000);
    assert_int_equal(ownids_copy(ids, OWNIDS_MAX), 0);
}

static void *
churn(void *arg)
{
    uint64_t base = (uint64_t)(uintptr_t)arg * 100000;
    int round, i;

    for (round = 0; round < 200; round++) {
        for (i = 1; i <= 50; i++)
            ownids_add(base + (uint64_t)i);
        for (i = 1; i <= 50; i++)
            if (i % 2 == 0 || round < 199)
                ownids_remove(base + (uint64_t)i);
    }
    return NULL;
}

/* Four threads open and close connections at once: what stays open is exactly what is left. */
static void
test_threads(void **state)
{
    pthread_t th[4];
    int t, n;

    for (t = 0; t < 4; t++)
        pthread_create(&th[t], NULL, churn, (void *)(uintptr_t)(t + 1));
    for (t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    n = ownids_copy(ids, OWNIDS_MAX);
    assert_int_equal(n, 4 * 25);
    for (t = 1; t <= 4; t++) {
        assert_true(ownids_has(ids, n, (uint64_t)t * 100000 + 1));
        assert_false(ownids_has(ids, n, (uint64_t)t * 100000 + 2));
    }
}

/* More connections than slots: the set is partial and says so (-1), until they close. */
static void
test_overflow(void **state)
{
    uint64_t i;

    for (i = 1; i <= OWNIDS_MAX + 1; i++)
        ownids_add(1000000 + i);
    assert_int_equal(ownids_copy(ids, OWNIDS_MAX), -1);
    for (i = 1; i <= OWNIDS_MAX + 1; i++)
        ownids_remove(1000000 + i);
    assert_int_equal(ownids_copy(ids, OWNIDS_MAX) >= 0, 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_remove),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_overflow),
    };
    return cmocka_run_group_tests_name("ownids", tests, NULL, NULL);
}
