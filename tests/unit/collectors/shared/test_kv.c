/*
 * The key-value workload both key-value drivers share: the options' checks,
 * the SET:GET mix, the seq walk and its starting points, the key digits,
 * the value buffer, and --fill's batches.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "collectors/shared/kv.h"
#include "base/util.h"

static struct kv_conf
conf(long long keys, const char *pattern, const char *ratio)
{
    struct kv_conf c = {.keys = keys, .value_size = 5, .pipeline = 1};

    c.key_pattern = (char *)pattern;
    c.ratio = (char *)ratio;
    return c;
}

static void
test_setup_errors(void **state)
{
    struct kv_workload w;
    struct kv_conf c = conf(10, "gauss", NULL);
    char err[BT_ERRLEN];

    assert_int_equal(kv_setup(&w, &c, 1, 1, "1:10", err), -1);
    assert_non_null(strstr(err, "unknown key pattern 'gauss'"));
    c = conf(10, NULL, "1:2");
    assert_int_equal(kv_setup(&w, &c, 1, 0, "1:10", err), -1);
    assert_non_null(strstr(err, "--ratio applies to -w mixed only"));
    c = conf(10, NULL, "0:0");
    assert_int_equal(kv_setup(&w, &c, 1, 1, "1:9", err), -1);
    assert_non_null(strstr(err, "'0:0'"));
    assert_non_null(strstr(err, "--ratio 1:9")); /* the driver's default as the example */
    c = conf(10, NULL, "1-2");
    assert_int_equal(kv_setup(&w, &c, 1, 1, "1:10", err), -1);
    c = conf(10, NULL, "-1:2");
    assert_int_equal(kv_setup(&w, &c, 1, 1, "1:10", err), -1);
}

static void
test_ratio(void **state)
{
    struct kv_workload w;
    struct kv_conf c = conf(10, NULL, NULL);
    char err[BT_ERRLEN];

    assert_int_equal(kv_setup(&w, &c, 1, 1, "1:9", err), 0);
    assert_true(w.set_p == 0.1);
    kv_release(&w);
    c.ratio = "3:1";
    assert_int_equal(kv_setup(&w, &c, 1, 1, "1:9", err), 0);
    assert_true(w.set_p == 0.75);
    kv_release(&w);
    c.ratio = "0.5:4.5"; /* fractions, as memaslap takes */
    assert_int_equal(kv_setup(&w, &c, 1, 1, "1:9", err), 0);
    assert_true(w.set_p == 0.1);
    kv_release(&w);
}

/* Over 100,000 draws at 1:9, the SET share is within 5 standard deviations of 10%. */
static void
test_mix_draws(void **state)
{
    struct kv_workload w;
    struct kv_conf c = conf(10, NULL, NULL);
    struct rng rng;
    char err[BT_ERRLEN];
    int i, sets = 0;

    assert_int_equal(kv_setup(&w, &c, 1, 1, "1:9", err), 0);
    rng_seed(&rng, 42);
    for (i = 0; i < 100000; i++)
        sets += kv_next_is_set(&w, &rng);
    assert_in_range(sets, 10000 - 475, 10000 + 475);
    kv_release(&w);
}

static void
test_seq_walk(void **state)
{
    struct kv_workload w;
    struct kv_conf c = conf(10, "seq", NULL);
    struct rng rng;
    char err[BT_ERRLEN];
    uint64_t seq;
    int i;

    assert_int_equal(kv_setup(&w, &c, 4, 0, "1:10", err), 0);
    rng_seed(&rng, 1);
    assert_true(kv_first_key(&w, 0) == 0);
    assert_true(kv_first_key(&w, 1) == 2); /* 1 * 10 / 4 */
    assert_true(kv_first_key(&w, 3) == 7);
    assert_true(kv_first_key(&w, 5) == 2); /* client ids past -c wrap */
    seq = kv_first_key(&w, 3);
    for (i = 0; i < 3; i++)
        assert_true(kv_next_key(&w, &seq, &rng) == (uint64_t)(7 + i));
    assert_true(kv_next_key(&w, &seq, &rng) == 0); /* wraps after key 9 */
    kv_release(&w);
}

static void
test_uniform_and_zipf_stay_in_range(void **state)
{
    const char *patterns[] = {"uniform", "zipf"};
    struct kv_workload w;
    struct rng rng;
    char err[BT_ERRLEN];
    uint64_t seq = 0, k, top = 0;

    for (int p = 0; p < 2; p++) {
        struct kv_conf c = conf(1000, patterns[p], NULL);
        assert_int_equal(kv_setup(&w, &c, 1, 0, "1:10", err), 0);
        rng_seed(&rng, 7);
        for (int i = 0; i < 20000; i++) {
            k = kv_next_key(&w, &seq, &rng);
            assert_true(k < 1000);
            top = k > top ? k : top;
        }
        assert_true(top > 900); /* reaches the end of the key space */
        kv_release(&w);
    }
}

static void
test_digits_and_value(void **state)
{
    struct kv_workload w;
    struct kv_conf c = conf(10, NULL, NULL);
    char err[BT_ERRLEN], key[] = "key:????????";

    kv_put_digits(key + KV_KEY_PREFIX_LEN, 8, 4999);
    assert_string_equal(key, "key:00004999");
    kv_put_digits(key + KV_KEY_PREFIX_LEN, 3, 123456); /* the last digits only */
    assert_string_equal(key, "key:45604999");
    assert_int_equal(kv_setup(&w, &c, 1, 0, "1:10", err), 0);
    assert_int_equal(w.value_size, 5);
    assert_memory_equal(w.value, "xxxxx\r\n", 8);
    kv_release(&w);
}

struct batches {
    uint64_t next, calls, largest;
    int fail_at;
};

static int
record_batch(void *arg, uint64_t first, uint64_t n, char *err)
{
    struct batches *b = arg;

    assert_true(first == b->next); /* every key once, in order */
    b->next += n;
    b->largest = n > b->largest ? n : b->largest;
    if (++b->calls == (uint64_t)b->fail_at)
        return seterr(err, "refused");
    return 0;
}

static void
test_fill_batches(void **state)
{
    struct kv_workload w;
    struct kv_conf c = conf(1005, NULL, NULL);
    struct batches b = {0};
    char err[BT_ERRLEN];

    assert_int_equal(kv_setup(&w, &c, 1, 0, "1:10", err), 0);
    assert_int_equal(kv_fill(&w, 100, 1, record_batch, &b, err), 0);
    assert_true(b.next == 1005);
    assert_true(b.calls == 11);
    assert_true(b.largest == 100);
    b = (struct batches){.fail_at = 3};
    assert_int_equal(kv_fill(&w, 100, 1, record_batch, &b, err), -1);
    assert_string_equal(err, "refused");
    assert_true(b.calls == 3); /* stops at the first failure */
    kv_release(&w);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup_errors),
        cmocka_unit_test(test_ratio),
        cmocka_unit_test(test_mix_draws),
        cmocka_unit_test(test_seq_walk),
        cmocka_unit_test(test_uniform_and_zipf_stay_in_range),
        cmocka_unit_test(test_digits_and_value),
        cmocka_unit_test(test_fill_batches),
    };
    return cmocka_run_group_tests_name("kv", tests, NULL, NULL);
}
