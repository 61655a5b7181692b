/*
 * benchtop inspect memcached://: the test server flushed and filled with
 * known items (three prefixes of known sizes and TTLs, a key with a
 * terminal escape in it, some of them read); the report's slab classes,
 * census and totals must be what was written. Then --sample.
 */
#include "itest-memcached.h"

#include <jansson.h>
#include <signal.h>
#include <sys/wait.h>

enum { USERS = 100, PAGES = 40, IMGS = 20, READ = 10, ALL = USERS + PAGES + IMGS + 1 };

static char buf[1 << 20];

/* "set KEY 0 TTL SIZE" with SIZE bytes of 'v', then STORED. */
static void
set_one(int fd, const char *key, int ttl, int size)
{
    static char value[40000];
    char head[512];
    int n = snprintf(head, sizeof head, "set %s 0 %d %d\r\n", key, ttl, size);

    memset(value, 'v', (size_t)size);
    memcpy(value + size, "\r\n", 2);
    mc_send(fd, head, (size_t)n);
    mc_send(fd, value, (size_t)size + 2);
    mc_read_until(fd, buf, sizeof buf, "\r\n");
    assert_string_equal(buf, "STORED\r\n");
}

static void
fill(void)
{
    int fd = mc_dial(mc_port());
    char key[64];

    assert_true(fd >= 0);
    mc_send(fd, "flush_all\r\n", 11);
    mc_read_until(fd, buf, sizeof buf, "OK\r\n");
    for (int i = 0; i < USERS; i++)
        snprintf(key, sizeof key, "user:%d", i), set_one(fd, key, 600, 10);
    for (int i = 0; i < PAGES; i++)
        snprintf(key, sizeof key, "page:%d", i), set_one(fd, key, 0, 700);
    for (int i = 0; i < IMGS; i++)
        snprintf(key, sizeof key, "img:%d", i), set_one(fd, key, 30, 30000);
    set_one(fd, "evil\x1b[2J:1", 0, 5);
    for (int i = 0; i < READ; i++) {
        snprintf(key, sizeof key, "get user:%d\r\n", i);
        mc_send(fd, key, strlen(key));
        mc_read_until(fd, buf, sizeof buf, "END\r\n");
    }
    close(fd);
}

static struct run
inspect(const char *extra1, const char *extra2)
{
    char target[300], *args[] = {"inspect", target, (char *)extra1, (char *)extra2, NULL};
    struct run r;

    snprintf(target, sizeof target, "%s", mc_target());
    r = itest_runv(args);
    if (r.status != 0)
        fprintf(stderr, "status %d\n%s\n%s\n", r.status, r.out, r.err);
    return r;
}

static json_int_t
num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (!json_is_integer(v))
        fail_msg("no integer '%s'", key);
    return json_integer_value(v);
}

/* The slab class whose chunks hold an item of `size` bytes: the smallest chunk at least that. */
static json_t *
class_for(json_t *slabs, json_int_t size)
{
    json_t *best = NULL, *s;
    size_t i;

    json_array_foreach(
        slabs, i, s) if (num(s, "chunk_size") >= size &&
                         (best == NULL || num(s, "chunk_size") < num(best, "chunk_size"))) best = s;
    assert_non_null(best);
    return best;
}

static json_t *
prefix(json_t *root, const char *name)
{
    json_t *p;
    size_t i;

    json_array_foreach(json_object_get(root, "prefixes"), i,
                       p) if (strcmp(json_string_value(json_object_get(p, "prefix")), name) ==
                              0) return p;
    fail_msg("no prefix '%s'", name);
    return NULL;
}

static void
check_json(const char *out)
{
    json_error_t je;
    json_t *root = json_loads(out, 0, &je), *slabs, *sizes, *ttl, *img;

    assert_non_null(root);
    assert_int_equal(num(root, "items"), ALL);
    assert_int_equal(num(root, "seen"), ALL);
    assert_int_equal(num(root, "never_fetched"), ALL - READ);
    assert_int_equal(num(prefix(root, "user"), "keys"), USERS);
    assert_int_equal(num(prefix(root, "page"), "keys"), PAGES);
    img = prefix(root, "img");
    assert_int_equal(num(img, "keys"), IMGS);
    /* an item is its header, key and value: at least the value, at most 100 bytes more */
    assert_in_range(num(img, "bytes"), IMGS * 30000, IMGS * 30100);
    sizes = json_object_get(root, "sizes");
    assert_int_equal(num(sizes, "< 100 B"), USERS + 1);
    assert_int_equal(num(sizes, "< 1 KiB"), PAGES);
    assert_int_equal(num(sizes, "< 100 KiB"), IMGS);
    ttl = json_object_get(root, "ttl");
    assert_int_equal(num(ttl, "no TTL"), PAGES + 1);
    assert_int_equal(num(ttl, "< 1 min"), IMGS);
    assert_int_equal(num(ttl, "< 1 hour"), USERS);
    slabs = json_object_get(root, "slabs");
    assert_int_equal(num(class_for(slabs, 30000), "items"), IMGS);
    assert_int_equal(num(class_for(slabs, 700 + 48 + 8), "items"), PAGES);
    /* written 2 s ago, none read since: the class's oldest item is at least 1 s old */
    assert_true(num(class_for(slabs, 30000), "oldest_age_s") >= 1);
    json_decref(root);
}

static void
test_known_items(void **state)
{
    struct run r;

    fill();
    itest_sleep_ms(2100);
    r = inspect(NULL, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "version 1."));
    assert_non_null(strstr(r.out, "161 of 161 looked at"));
    /* the key's escape reaches the terminal as text, never as the byte */
    assert_null(strchr(r.out, '\x1b'));
    assert_non_null(strstr(r.out, "evil\\x1b[2J "));
    itest_free(&r);
    r = inspect("--json", NULL);
    assert_int_equal(r.status, 0);
    check_json(r.out);
    itest_free(&r);
}

/* --sample stops the dump early and says so. */
static void
test_sample(void **state)
{
    struct run r;

    fill();
    r = inspect("--sample", "50");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "50 of 161 looked at"));
    assert_non_null(strstr(r.out, "(a sample: --sample)"));
    itest_free(&r);
}

/* Many items, noreply sets pipelined; a get at the end so that all were taken. */
static void
fill_many(int n)
{
    static char req[1 << 16];
    int fd = mc_dial(mc_port());
    size_t len = 0;

    assert_true(fd >= 0);
    mc_send(fd, "flush_all\r\n", 11);
    mc_read_until(fd, buf, sizeof buf, "OK\r\n");
    for (int i = 0; i < n; i++) {
        len += (size_t)snprintf(req + len, sizeof req - len,
                                "set many:%07d 0 0 4 noreply\r\nvvvv\r\n", i);
        if (len > sizeof req - 64 || i == n - 1) {
            mc_send(fd, req, len);
            len = 0;
        }
    }
    mc_send(fd, "get many:0000000\r\n", 19);
    mc_read_until(fd, buf, sizeof buf, "END\r\n");
    close(fd);
}

/*
 * 200,000 items: by default the census stops at --sample's 100,000; a
 * dump longer than --budget stops there, says so, and the figures are of
 * the items it saw (a full dump takes about 0.3 s here: 0.05 s sees part).
 */
static void
test_budget(void **state)
{
    char *args[] = {"inspect", (char *)mc_target(), "--json", "--budget",
                    "0.05",    "--sample",          "0",      NULL};
    struct run r;
    json_t *root;
    long long seen;
    int fd;

    fill_many(200000);
    r = inspect(NULL, NULL);
    assert_int_equal(r.status, 0);
    /* "of" the server's curr_items: items flush_all dropped may still count for a moment */
    if (strstr(r.out, "keys (lru_crawler metadump all): 100000 of ") == NULL)
        fail_msg("not stopped at 100000:\n%s", r.out);
    assert_non_null(strstr(r.out, "(a sample: --sample)"));
    itest_free(&r);
    r = itest_runv(args);
    assert_int_equal(r.status, 0);
    root = json_loads(r.out, 0, NULL);
    assert_non_null(root);
    assert_true(json_is_true(json_object_get(root, "budget_hit")));
    seen = num(root, "seen");
    fprintf(stderr, "  --budget 0.05: %lld of 200000 items looked at\n", seen);
    assert_true(seen < 200000);
    if (seen > 0) /* the census is of those seen */
        assert_int_equal(num(prefix(root, "many"), "keys"), seen);
    json_decref(root);
    itest_free(&r);
    fd = mc_dial(mc_port()); /* the memcached tests after this one find the server empty */
    mc_send(fd, "flush_all\r\n", 11);
    mc_read_until(fd, buf, sizeof buf, "OK\r\n");
    close(fd);
}

/* A memcached of our own on port, -m mb, with opt (or NULL); its pid, fd >= 0 once it answers. */
static pid_t
start_own(int port, const char *mb, const char *opt, int *fd)
{
    char p[16];
    pid_t pid;

    snprintf(p, sizeof p, "%d", port);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execlp("memcached", "memcached", "-u", "nobody", "-l", "127.0.0.1", "-p", p, "-U", "0",
               "-m", mb, opt ? "-o" : (char *)NULL, opt, (char *)NULL);
        _exit(127);
    }
    *fd = -1;
    for (int i = 0; i < 100 && (*fd = mc_dial(port)) < 0; i++) /* ready within 10 s */
        itest_sleep_ms(100);
    return pid;
}

/*
 * A memcached of our own started with -o no_lru_crawler refuses the
 * metadump: the report still has the totals and slabs, and one line
 * quoting the refusal and saying what gives the census.
 */
static void
test_crawler_off(void **state)
{
    int port = itest_free_port(), fd;
    char target[64], *args[] = {"inspect", target, NULL};
    pid_t pid = start_own(port, "16", "no_lru_crawler", &fd);
    struct run r;

    snprintf(target, sizeof target, "memcached://127.0.0.1:%d", port);
    if (fd >= 0)
        close(fd);
    r = itest_runv(args);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    assert_true(fd >= 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "version 1."));
    assert_non_null(strstr(r.out, "slab classes:"));
    assert_non_null(strstr(r.out, "metadump refused (\"CLIENT_ERROR lru crawler disabled\")"));
    assert_non_null(strstr(r.out, "-o lru_crawler"));
    itest_free(&r);
}

/* Debian's memcached package installs it here, off PATH. */
#define MEMCACHED_TOOL "/usr/share/memcached/scripts/memcached-tool"

/* memcached-tool HOST:PORT display's row for the class that evicted: 0, or -1 if none. */
static int
tool_row(int port, int *cls, long *pages, long *count, char *full, long *evicted, long *evtime,
         long *oom)
{
    char cmd[128], line[256];
    FILE *f;
    int found = -1;

    snprintf(cmd, sizeof cmd, "perl %s 127.0.0.1:%d display 2>&1", MEMCACHED_TOOL, port);
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f) != NULL)
        if (found < 0 &&
            sscanf(line, "%d %*s %*ds %ld %ld %3s %ld %ld %ld", cls, pages, count, full, evicted,
                   evtime, oom) == 7 &&
            *evicted > 0)
            found = 0;
    pclose(f);
    return found;
}

/*
 * 8 MB filled with 400 items of 30,000 bytes: their class evicts. Its
 * pages, items, Full?, evictions, evict time and OOM as memcached-tool
 * display shows them (issue 47: these columns were missing).
 */
static void
test_evictions_as_memcached_tool(void **state)
{
    int port = itest_free_port(), fd, cls = 0, row;
    char target[64], key[32], full[4] = "", *args[] = {"inspect", target, "--json", NULL};
    long pages, count, evicted, evtime, oom;
    pid_t pid = start_own(port, "8", NULL, &fd);
    json_t *root, *k = NULL, *slab;
    struct run r;
    size_t i;

    snprintf(target, sizeof target, "memcached://127.0.0.1:%d", port);
    if (fd < 0)
        kill(pid, SIGTERM), waitpid(pid, NULL, 0);
    assert_true(fd >= 0);
    for (int n = 0; n < 400; n++)
        snprintf(key, sizeof key, "big:%d", n), set_one(fd, key, 0, 30000);
    close(fd);
    r = itest_runv(args);
    row = tool_row(port, &cls, &pages, &count, full, &evicted, &evtime, &oom);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    assert_int_equal(row, 0);
    assert_int_equal(r.status, 0);
    root = json_loads(r.out, 0, NULL);
    assert_non_null(root);
    json_array_foreach(json_object_get(root, "slabs"), i, slab) if (num(slab, "class") == cls) k =
        slab;
    assert_non_null(k);
    assert_int_equal(num(k, "pages"), pages);
    assert_int_equal(num(k, "items"), count);
    assert_int_equal(json_is_true(json_object_get(k, "full")), strcmp(full, "yes") == 0);
    assert_int_equal(num(k, "evicted"), evicted);
    assert_true(labs((long)num(k, "evicted_time_s") - evtime) <= 1); /* a second may tick between */
    assert_int_equal(num(k, "outofmemory"), oom);
    assert_true(evicted > 0);
    json_decref(root);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_items),
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_crawler_off),
        cmocka_unit_test(test_evictions_as_memcached_tool),
    };
    return cmocka_run_group_tests_name("inspect_memcached", tests, NULL, NULL);
}
