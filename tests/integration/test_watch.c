/*
 * --watch: another target's collector beside a run whose load goes
 * elsewhere, against the throwaway servers (BENCHTOP_MY_*, BENCHTOP_RD_*,
 * BENCHTOP_NG_*: nginx with php-fpm and its own MariaDB behind it). The
 * watched MariaDB's figures are checked against what a second benchtop
 * did to it; the web tier's verdicts against pages whose limit is known
 * by construction: a page that sleeps (the app), a page that holds one
 * row's lock (the database), a php-fpm pool of 2 under 16 clients.
 */
#include "itest-mysql.h"

#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define DB "bt_watch"

static int
setup(void **state)
{
    MYSQL *m = itest_my(NULL);

    itest_my_exec(m, "DROP USER IF EXISTS 'bt_watch'@'127.0.0.1'");
    itest_my_exec(m, "CREATE USER 'bt_watch'@'127.0.0.1' IDENTIFIED BY 'watchpw'");
    itest_my_exec(m, "GRANT PROCESS ON *.* TO 'bt_watch'@'127.0.0.1'");
    itest_my_exec(m, "GRANT SELECT ON " DB ".* TO 'bt_watch'@'127.0.0.1'");
    mysql_close(m);
    return itest_my_fresh_db(DB, "1", "1000");
}

/* The final verdict's line (the last interval, "final":true); aborts when there is none. */
static const char *
final_verdict(const char *out)
{
    const char *line = itest_line(out, "\"final\":true");

    assert_non_null(line);
    return strstr(line, "\"verdict\":");
}

/* Prints each interval's verdict, for the log of a noisy machine. */
static void
print_verdicts(const char *out)
{
    const char *p = out, *v, *end;

    while ((p = strstr(p, "{\"type\":\"interval\"")) != NULL) {
        end = p + strcspn(p, "\n");
        v = strstr(p, "\"verdict\":");
        if (v != NULL && v < end)
            fprintf(stderr, "    t=%.1f %.*s\n", itest_num(p, "t"), (int)(end - v - 10), v + 10);
        p = end;
    }
}

/*
 * Whether an interval's host split named `name` among the run's server-side
 * processes ("cpu":{..., "server_procs":"nginx, php-fpm8.2, mariadbd"}).
 */
static int
server_side_has(const char *out, const char *name)
{
    const char *p;

    for (p = out; (p = strstr(p, "\"server_procs\":\"")) != NULL; p++) {
        const char *end = strchr(p + 16, '"');
        const char *hit = strstr(p + 16, name);

        if (hit != NULL && end != NULL && hit < end)
            return 1;
    }
    return 0;
}

/* Runs a load to its end and checks that its final verdict is kind; the run, for more checks. */
static struct run
run_judged(char **args, const char *kind)
{
    struct run r = itest_runv(args);
    char want[64];

    print_verdicts(r.out);
    assert_int_equal(r.status, 0);
    snprintf(want, sizeof want, "\"kind\":\"%s\"", kind);
    assert_non_null(strstr(final_verdict(r.out), want));
    return r;
}

/* The watched commits: each sample's commit/s of the mysql collector times its seconds. */
static double
watched_commits(const char *out)
{
    const char *p = out;
    double commits = 0, prev_t = -1;

    while ((p = strstr(p, "\"collector\":\"mysql\"")) != NULL) {
        const char *line = p, *end = strchr(p, '\n');
        const char *row = strstr(line, "\"label\":\"commit/s\"");
        double t;

        while (line > out && line[-1] != '\n')
            line--;
        t = itest_num(line, "t");
        if (row != NULL && row < end && prev_t >= 0 && itest_num(row, "num") > -1e300)
            commits += itest_num(row, "num") * (t - prev_t);
        prev_t = t;
        p = end;
    }
    return commits;
}

/*
 * A Redis load watches MariaDB (as a user with a password) while another
 * benchtop commits exactly 1,000 transactions there: the watched commit/s,
 * times each sample's seconds, add up to those 1,000; the password shows
 * nowhere. The load must end inside the watching run (8 s, the load starts
 * at 2 s and takes about 1 s quiet); on a host others keep busy it may not,
 * so a miss there is tried again, then skipped with the load named.
 */
static void
test_watch_counts_another_load(void **state)
{
    char *watched = itest_my_target_as("bt_watch:watchpw", DB);
    char *args[] = {"run",        itest_env("BENCHTOP_RD_TARGET"),
                    "--headless", "-T",
                    "8",          "-c",
                    "2",          "--watch",
                    watched,      NULL};
    char *load[] = {"run", itest_my_target(DB), "--headless", "-t", "250", "-c", "4",
                    "-w",  "counter",           "-q",         NULL};
    struct run r, l;
    double commits;
    char argv_seen[4096], saw[512];

    for (int attempt = 0;; attempt++) {
        int o, e;
        pid_t pid = itest_spawn(args, &o, &e);

        itest_sleep_ms(2000); /* a sample or two before the load: its rates start at 0 */
        itest_cmdline(pid, argv_seen, sizeof argv_seen);
        l = itest_runv(load);
        assert_int_equal(l.status, 0);
        r = itest_finish(pid, o, e);
        assert_int_equal(r.status, 0);
        commits = watched_commits(r.out);
        fprintf(stderr, "  watched commits %.1f (another benchtop made 1000)\n", commits);
        snprintf(saw, sizeof saw, "the watch counted %.1f of 1000 commits", commits);
        if (fabs(commits - 1000) <= 10 || !itest_busy_retry(__func__, attempt, saw))
            break;
        itest_free(&r);
        itest_free(&l);
    }
    assert_true(fabs(commits - 1000) <= 10);
    assert_non_null(strstr(r.out, "\"target\":\"mysql://bt_watch:***@"));
    assert_null(strstr(r.out, "watchpw"));
    assert_null(strstr(r.err, "watchpw"));
    assert_null(strstr(argv_seen, "watchpw"));
    assert_non_null(strstr(argv_seen, "--watch mysql://bt_watch:***@"));
    /* the verdict stays Redis's own: a watched database that is not behind it is only shown */
    assert_null(strstr(final_verdict(r.out), "MySQL"));
    itest_free(&r);
    itest_free(&l);
}

static void
refused(char *watch, const char *why)
{
    char *args[] = {
        "run", itest_env("BENCHTOP_RD_TARGET"), "--headless", "-T", "1", "--watch", watch, NULL};
    struct run r = itest_runv(args);

    assert_int_equal(r.status, 2);
    assert_int_equal(itest_lines(r.err), 1);
    assert_non_null(strstr(r.err, why));
    assert_null(strstr(r.err, "secretpw"));
    itest_free(&r);
}

static void
test_watch_refused(void **state)
{
    refused("mysql://root:secretpw@10.1.2.3:3306/x", "only reads servers on loopback");
    refused("gopher://root:secretpw@127.0.0.1/", "nothing reads it");
}

/* A page that sleeps 20 ms while the database behind it idles: app-bound. */
static void
test_app_bound(void **state)
{
    char url[512], status[512];
    char *args[] = {"run",     url,       "--headless",
                    "-T",      "8",       "-c",
                    "8",       "--watch", itest_env("BENCHTOP_NG_BEHIND"),
                    "--watch", status,    NULL};
    struct run r;

    snprintf(url, sizeof url, "%ssleep.php?ms=20", itest_env("BENCHTOP_NG_TARGET"));
    snprintf(status, sizeof status, "%snginx_status", itest_env("BENCHTOP_NG_TARGET"));
    r = run_judged(args, "app");
    assert_non_null(strstr(r.out, "MySQL has spare capacity ("));
    assert_non_null(strstr(r.out, "latency is spent above it"));
    /* nginx's own figures, beside it: every request of the run went through it */
    assert_true(itest_max_row(r.out, "\"collector\":\"webstatus\"", "requests/s") > 0);
    itest_free(&r);
}

/*
 * Every request updates the same row and holds its lock 20 ms (a page the
 * test adds to the server's folder): the database behind is lock-bound,
 * and says so as the one behind the app.
 */
static void
test_lock_bound_behind(void **state)
{
    static const char page[] =
        "<?php\n"
        "$db = mysqli_connect(getenv('BT_DB_HOST'), getenv('BT_DB_USER'), "
        "getenv('BT_DB_PASSWORD'), getenv('BT_DB_NAME'), (int)getenv('BT_DB_PORT'));\n"
        "$db->query('CREATE TABLE IF NOT EXISTS hot_row (id INT PRIMARY KEY, n BIGINT) "
        "ENGINE=InnoDB');\n"
        "$db->query('INSERT IGNORE INTO hot_row VALUES (1, 0)');\n"
        "$db->query('BEGIN');\n"
        "$db->query('UPDATE hot_row SET n = n + 1 WHERE id = 1');\n"
        "usleep(20000);\n"
        "$db->query('COMMIT');\n"
        "echo \"ok\\n\";\n";
    char path[512], url[512];
    char *args[] = {"run", url,       "--headless",
                    "-T",  "10",      "-c",
                    "16",  "--watch", itest_env("BENCHTOP_NG_BEHIND"),
                    NULL};
    struct run r;
    FILE *f;

    snprintf(path, sizeof path, "%s/www/hot_row.php", itest_env("BENCHTOP_NG_DIR"));
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(page, f);
    fclose(f);
    snprintf(url, sizeof url, "%shot_row.php", itest_env("BENCHTOP_NG_TARGET"));
    r = itest_runv(args);
    print_verdicts(r.out);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(final_verdict(r.out), "\"kind\":\"lock\""));
    assert_non_null(strstr(r.out, "MySQL behind the app: "));
    /*
     * The host split counts the app's processes on the server side, not as
     * other programs: nginx (the target), php-fpm (nginx's connections to
     * it) and the MariaDB watched behind it.
     */
    assert_true(server_side_has(r.out, "nginx"));
    assert_true(server_side_has(r.out, "php-fpm"));
    assert_true(server_side_has(r.out, "mariadbd") || server_side_has(r.out, "mysqld"));
    itest_free(&r);
}

/*
 * Starts `benchtop serve nginx` with a php-fpm pool of max_children on the
 * harness's MariaDB; its target into target. The server ends when *in_fd
 * is closed (its stdin).
 */
static pid_t
serve_nginx(const char *max_children, char *target, size_t len, int *in_fd)
{
    int in[2], out[2];
    char line[512];
    FILE *f;
    pid_t pid;

    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    pid = fork();
    if (pid == 0) {
        setenv("BENCHTOP_FPM_MAX_CHILDREN", max_children, 1);
        setenv("BENCHTOP_WEB_DB", itest_my_target(DB), 1);
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(itest_env("BENCHTOP_BIN"), "benchtop", "serve", "nginx", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    f = fdopen(out[0], "r");
    target[0] = '\0';
    while (fgets(line, sizeof line, f) != NULL && strcmp(line, "ready\n") != 0)
        if (strncmp(line, "target=", 7) == 0)
            snprintf(target, len, "%.*s", (int)strcspn(line + 7, "\n"), line + 7);
    fclose(f);
    assert_true(target[0] != '\0');
    *in_fd = in[1];
    return pid;
}

/* A php-fpm pool of 2 under 16 clients of a 20 ms page: the pool is the limit. */
static void
test_fpm_pool_full(void **state)
{
    char target[512], url[600], status[600];
    char *args[] = {"run",  url,       "--headless",        "-T", "8", "-c", "16", "--watch",
                    status, "--watch", itest_my_target(DB), NULL};
    int in;
    pid_t srv = serve_nginx("2", target, sizeof target, &in);
    struct run r;

    snprintf(url, sizeof url, "%ssleep.php?ms=20", target);
    snprintf(status, sizeof status, "%sfpm_status", target);
    r = run_judged(args, "app");
    close(in);
    waitpid(srv, NULL, 0);
    assert_non_null(strstr(r.out, "php-fpm at pm.max_children 2, "));
    assert_true(itest_max_row(r.out, "\"collector\":\"webstatus\"", "listen queue") >= 1);
    itest_free(&r);
}

/*
 * benchtop demo web: nginx, php-fpm and MariaDB of its own, the seed
 * pages loaded, the three watched, all removed at the end.
 */
static void
test_demo_web(void **state)
{
    char *args[] = {"demo", "web", "--headless", "-T", "5", NULL};
    struct run r = itest_runv(args);
    const char *folder = strstr(r.err, "(folder ");
    char dir[256];
    struct stat st;

    assert_int_equal(r.status, 0);
    assert_non_null(folder);
    snprintf(dir, sizeof dir, "%.*s", (int)strcspn(folder + 8, ")"), folder + 8);
    assert_int_equal(stat(dir, &st), -1); /* removed */
    assert_true(itest_max_row(r.out, "\"collector\":\"mysql\"", "commit/s") > 0);
    assert_true(itest_max_row(r.out, "fpm_status\"", "requests/s") > 0);
    assert_true(itest_max_row(r.out, "nginx_status\"", "requests/s") > 0);
    assert_true(itest_num(itest_line(r.out, "\"type\":\"summary\""), "transactions") > 0);
    assert_int_equal(itest_num(itest_line(r.out, "\"type\":\"summary\""), "errors"), 0);
    itest_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_counts_another_load),
        cmocka_unit_test(test_watch_refused),
    };
    const struct CMUnitTest web[] = {
        cmocka_unit_test(test_app_bound),
        cmocka_unit_test(test_lock_bound_behind),
        cmocka_unit_test(test_fpm_pool_full),
        cmocka_unit_test(test_demo_web),
    };
    int failed = cmocka_run_group_tests(tests, setup, NULL);

    /* tests/run-integration starts nginx only when benchtop has the http backend (libcurl). */
    if (getenv("BENCHTOP_NG_TARGET") == NULL) {
        test_skip_say("watch_web", "no nginx server in this run (benchtop built without libcurl): "
                                   "the web tier's 4 tests");
        return failed;
    }
    return failed + cmocka_run_group_tests_name("watch_web", web, setup, NULL);
}
