/*
 * The memcached collector against the throwaway server: N known sets and
 * gets between two samples come out as rates that, times the seconds
 * between the samples, give N back (within 1%); the slab view adds up to
 * the server's item count; a restart fails one sample, a re-open works and
 * derive reports the restart.
 */
#include "itest-memcached.h"
#include "collectors/memcached/memcached.h"

#define NSETS 5000
#define NGETS 3000

/* N sets of 1,000-byte values under keys of our own, pipelined 100 at a time. */
static void
do_sets(int fd, int n)
{
    static char req[100 * 1100], buf[8192];
    char value[1001];
    size_t len = 0;

    memset(value, 'v', 1000);
    value[1000] = '\0';
    for (int i = 0; i < n; i++) {
        len += (size_t)snprintf(req + len, sizeof req - len, "set coll:%06d 0 0 1000\r\n%s\r\n", i,
                                value);
        if ((i + 1) % 100 == 0 || i + 1 == n) {
            size_t want = 8 * (size_t)(i % 100 + 1), got = 0;
            mc_send(fd, req, len);
            while (got < want) {
                ssize_t k = read(fd, buf, want - got < sizeof buf ? want - got : sizeof buf);
                assert_true(k > 0);
                assert_memory_equal(buf, "STORED\r\n", 8);
                got += (size_t)k;
            }
            len = 0;
        }
    }
}

static void
do_gets(int fd, int n)
{
    static char buf[4096];
    char req[64];

    for (int i = 0; i < n; i++) {
        int len = snprintf(req, sizeof req, "get coll:%06d\r\n", i % NSETS);
        mc_send(fd, req, (size_t)len);
        mc_read_until(fd, buf, sizeof buf, "END\r\n");
    }
}

static const struct coll_row *
row(const struct coll_view *v, const char *section, const char *label)
{
    const struct coll_row *r = coll_row_find(v, section, label);

    if (r == NULL)
        fail_msg("no row %s/%s", section, label);
    return r;
}

static void
test_rates_match_known_load(void **state)
{
    const struct collector_class *cc = &memcached_collector_class;
    struct mc_sample *a = calloc(1, cc->sample_size), *b = calloc(1, cc->sample_size);
    struct coll_view v;
    char err[BT_ERRLEN];
    void *conn = cc->open(itest_parsed(mc_target()), err);
    int fd = mc_dial(mc_port());
    uint64_t t0, t1;
    double secs, items = 0;

    assert_non_null(conn);
    assert_true(fd >= 0);
    assert_int_equal(cc->sample(conn, a, err), 0);
    t0 = now_us();
    do_sets(fd, NSETS);
    do_gets(fd, NGETS);
    assert_int_equal(cc->sample(conn, b, err), 0);
    t1 = now_us();
    secs = (double)(t1 - t0) / 1e6;
    cc->derive(a, b, secs, &v);
    fprintf(stderr, "  %.3f s: set/s %s, get/s %s, hit %s, cpu %s\n", secs,
            row(&v, "commands", "set/s")->value, row(&v, "commands", "get/s")->value,
            row(&v, "commands", "hit %")->value, row(&v, "cpu", "user+sys")->value);
    assert_true(fabs(row(&v, "commands", "set/s")->num * secs - NSETS) <= 0.01 * NSETS);
    assert_true(fabs(row(&v, "commands", "get/s")->num * secs - NGETS) <= 0.01 * NGETS);
    assert_true(fabs(row(&v, "commands", "hits/s")->num * secs - NGETS) <= 0.01 * NGETS);
    assert_true(row(&v, "commands", "hit %")->num == 100.0);
    assert_true(fabs(v.server_tps * secs - (NSETS + NGETS)) <= 0.01 * (NSETS + NGETS));
    /* the collector's connection and ours, at least */
    assert_true(row(&v, "connections", "current")->num >= 2);
    assert_true(row(&v, "cpu", "user+sys")->num > 0);
    assert_true(row(&v, "memory", "items")->num >= NSETS);
    /* every slab row together holds exactly the server's items */
    for (int i = 0; i < v.nrows; i++)
        if (strcmp(v.rows[i].section, "slabs") == 0 && strcmp(v.rows[i].label, "classes") != 0)
            items += v.rows[i].num;
    assert_true(items == row(&v, "memory", "items")->num);
    /* the evidence: -m 64, the hit ratio, -t 4 with the busiest from /proc (local), rusage */
    fprintf(stderr, "  threads %s, self cpu %.0f%% of limit %.0f%%\n",
            row(&v, "cpu", "threads")->value, v.sig.server_cpu_self_pct, v.sig.server_cpu_limit);
    assert_true(v.sig.mem_limit == 64 << 20);
    assert_string_equal(v.sig.mem_limit_setting, "-m");
    assert_true(v.sig.mem_used > NSETS * 1000.0);
    assert_true(v.sig.hit_ratio == 1.0);
    assert_true(v.sig.evictions_s == 0);
    assert_true(v.sig.server_threads == 4);
    assert_true(b->ntasks > 4); /* the workers and the server's own threads */
    assert_true(v.sig.thread_max_pct > 0 && v.sig.thread_max_pct <= 100 * 1.05);
    assert_true(v.sig.server_cpu_self_pct > 0);
    assert_true(v.sig.server_cpu_limit <= 100.0 * cpu_cores());
    close(fd);
    cc->close(conn);
    free(a);
    free(b);
}

/* A restart breaks the collector's connection: one failed sample, then open works again. */
static void
test_restart(void **state)
{
    const struct collector_class *cc = &memcached_collector_class;
    struct mc_sample *a = calloc(1, cc->sample_size), *b = calloc(1, cc->sample_size);
    struct coll_view v;
    char err[BT_ERRLEN] = "";
    void *conn = cc->open(itest_parsed(mc_target()), err);

    assert_non_null(conn);
    assert_int_equal(cc->sample(conn, a, err), 0);
    mc_restart();
    assert_int_equal(cc->sample(conn, b, err), -1);
    fprintf(stderr, "  after the restart: %s\n", err);
    assert_non_null(strstr(err, mc_target() + strlen("memcached://")));
    cc->close(conn);
    conn = cc->open(itest_parsed(mc_target()), err);
    assert_non_null(conn);
    memset(b, 0, cc->sample_size);
    assert_int_equal(cc->sample(conn, b, err), 0);
    cc->derive(a, b, 1.0, &v);
    assert_non_null(strstr(v.events[0], "memcached restarted"));
    assert_string_equal(row(&v, "commands", "get/s")->value, "-");
    cc->close(conn);
    free(a);
    free(b);
}

static void
test_open_fails(void **state)
{
    char err[BT_ERRLEN] = "";

    assert_null(memcached_collector_class.open(itest_parsed("memcached://127.0.0.1:1"), err));
    assert_non_null(strstr(err, "Connection refused"));
    /* a malformed target is refused once, where it is parsed: no collector sees it */
    assert_null(itest_parsed_err("memcached://", err));
    assert_non_null(strstr(err, "no host"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates_match_known_load),
        cmocka_unit_test(test_restart),
        cmocka_unit_test(test_open_fails),
    };
    return cmocka_run_group_tests_name("memcached_collector", tests, NULL, NULL);
}
