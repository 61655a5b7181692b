/* Tests for sqlite:// targets: paths, parameters, and every bad form with its one-line fix. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "config.h"

#ifdef HAVE_SQLITE
#include "collectors/sqlite/sqlite.h"
#include "base/util.h"

static void
test_paths(void **state)
{
    struct sqlite_target t;
    char err[BT_ERRLEN];

    assert_int_equal(sqlite_target_parse("sqlite:///tmp/x.db", &t, err), 0);
    assert_string_equal(t.path, "/tmp/x.db");
    assert_string_equal(t.journal_mode, "");
    assert_int_equal(t.busy_timeout_ms, 5000);
    assert_int_equal(sqlite_target_parse("sqlite://rel/x.db", &t, err), 0);
    assert_string_equal(t.path, "rel/x.db");
}

static void
test_parameters(void **state)
{
    struct sqlite_target t;
    char err[BT_ERRLEN];

    assert_int_equal(
        sqlite_target_parse("sqlite:///x.db?journal_mode=wal&synchronous=normal&busy_timeout=250",
                            &t, err),
        0);
    assert_string_equal(t.path, "/x.db");
    assert_string_equal(t.journal_mode, "wal");
    assert_string_equal(t.synchronous, "normal");
    assert_int_equal(t.busy_timeout_ms, 250);
}

static void
expect_error(const char *target, const char *needle)
{
    struct sqlite_target t;
    char err[BT_ERRLEN] = "";

    assert_int_equal(sqlite_target_parse(target, &t, err), -1);
    assert_non_null(strstr(err, needle));
    assert_null(strchr(err, '\n'));
}

static void
test_bad_targets(void **state)
{
    expect_error("sqlite://", "names no file");
    expect_error("sqlite://?journal_mode=wal", "names no file");
    expect_error("sqlite:///x.db?journal=wal", "unknown sqlite target parameter 'journal'");
    expect_error("sqlite:///x.db?busy_timeout=soon", "not a number of ms");
    expect_error("sqlite:///x.db?busy_timeout=-1", "not a number of ms");
    expect_error("sqlite:///x.db?wal", "has no value");
    expect_error("postgres://x/y", "not a sqlite target");
}

/* /proc/locks lines: who keeps a writer out of the file (0xfe:0x00, db inode 77, -shm 78). */
static void
test_foreign_lock_lines(void **state)
{
    struct sqlite_holder h;

#define BLOCKS(line, wal, self) sqlite_lock_blocks(line, 0xfe, 0x00, 77, 78, wal, self, &h)
    /* a rollback journal: a reader's SHARED, a writer's RESERVED, a whole-file lock */
    assert_int_equal(BLOCKS("1: POSIX  ADVISORY  READ 4834 fe:00:77 1073741826 1073742335\n", 0, 1),
                     1);
    assert_int_equal(h.pid, 4834);
    assert_int_equal(h.write, 0);
    assert_int_equal(BLOCKS("2: POSIX  ADVISORY  WRITE 12 fe:00:77 1073741825 1073741825\n", 0, 1),
                     1);
    assert_int_equal(h.write, 1);
    assert_int_equal(BLOCKS("3: OFDLCK ADVISORY  WRITE 13 fe:00:77 0 EOF\n", 0, 1), 1);
    /* not: our own, a waiter, another file or device, flock, bytes below the lock bytes */
    assert_int_equal(
        BLOCKS("1: POSIX  ADVISORY  READ 4834 fe:00:77 1073741826 1073742335\n", 0, 4834), 0);
    assert_int_equal(
        BLOCKS("1: -> POSIX  ADVISORY  WRITE 99 fe:00:77 1073741824 1073741824\n", 0, 1), 0);
    assert_int_equal(BLOCKS("1: POSIX  ADVISORY  READ 5 fe:00:76 1073741826 1073742335\n", 0, 1),
                     0);
    assert_int_equal(BLOCKS("1: POSIX  ADVISORY  READ 5 fe:01:77 1073741826 1073742335\n", 0, 1),
                     0);
    assert_int_equal(BLOCKS("1: FLOCK  ADVISORY  WRITE 5 fe:00:77 0 EOF\n", 0, 1), 0);
    assert_int_equal(BLOCKS("1: POSIX  ADVISORY  WRITE 5 fe:00:77 0 1000\n", 0, 1), 0);
    assert_int_equal(BLOCKS("garbage\n", 0, 1), 0);
    /* WAL: only a writer on the -shm file's write lock; readers there or on the file block no one
     */
    assert_int_equal(BLOCKS("9: POSIX  ADVISORY  WRITE 5299 fe:00:78 120 120\n", 1, 1), 1);
    assert_int_equal(h.pid, 5299);
    assert_int_equal(BLOCKS("9: POSIX  ADVISORY  READ 5299 fe:00:78 124 124\n", 1, 1), 0);
    assert_int_equal(BLOCKS("9: POSIX  ADVISORY  READ 5299 fe:00:78 128 128\n", 1, 1), 0);
    assert_int_equal(BLOCKS("1: POSIX  ADVISORY  READ 4834 fe:00:77 1073741826 1073742335\n", 1, 1),
                     0);
#undef BLOCKS
}

/* /proc/locks lines: another process's WAL read mark in the -shm file (inode 78), bytes 123-127. */
static void
test_wal_reader_lines(void **state)
{
    struct sqlite_holder h;

#define READS(line, self) sqlite_lock_reads_wal(line, 0xfe, 0x00, 78, self, &h)
    assert_int_equal(READS("8: POSIX  ADVISORY  READ 657 fe:00:78 123 123\n", 1), 1);
    assert_int_equal(h.pid, 657);
    assert_int_equal(h.write, 0);
    assert_int_equal(READS("8: POSIX  ADVISORY  READ 658 fe:00:78 127 127\n", 1), 1);
    assert_int_equal(h.pid, 658);
    /* not: the DMS byte every connection holds, the write or checkpoint lock, our own mark, */
    /* the database file, a waiter */
    assert_int_equal(READS("9: POSIX  ADVISORY  READ 657 fe:00:78 128 128\n", 1), 0);
    assert_int_equal(READS("9: POSIX  ADVISORY  READ 657 fe:00:78 122 122\n", 1), 0);
    assert_int_equal(READS("9: POSIX  ADVISORY  WRITE 664 fe:00:78 121 121\n", 1), 0);
    assert_int_equal(READS("9: POSIX  ADVISORY  WRITE 664 fe:00:78 124 124\n", 1), 0);
    assert_int_equal(READS("8: POSIX  ADVISORY  READ 657 fe:00:78 123 123\n", 657), 0);
    assert_int_equal(READS("8: POSIX  ADVISORY  READ 657 fe:00:77 123 123\n", 1), 0);
    assert_int_equal(READS("8: -> POSIX  ADVISORY  READ 657 fe:00:78 123 123\n", 1), 0);
#undef READS
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_parameters),
        cmocka_unit_test(test_bad_targets),
        cmocka_unit_test(test_foreign_lock_lines),
        cmocka_unit_test(test_wal_reader_lines),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int
main(void)
{
    return 0;
}
#endif
