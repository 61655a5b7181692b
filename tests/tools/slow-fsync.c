/*
 * slow-fsync.so: an LD_PRELOAD shim that makes every fsync() and fdatasync()
 * wait SLOW_FSYNC_MS milliseconds (default 20; 0 turns it off) before doing
 * the real call.
 *
 * It exists because the disks of the test machines (SSDs with write caches,
 * virtual disks) finish a sync in microseconds, so a commit-bound server, one
 * whose throughput is set by how fast it can flush its WAL, cannot be shown
 * on them. Preloaded into the server, this brings back a slow disk's sync
 * latency and touches nothing else; durability is unchanged since the real
 * call still runs. Numbers measured with it are not the machine's own, so
 * every test that uses it says so.
 *
 *   gcc -shared -fPIC -o slow-fsync.so slow-fsync.c -ldl
 *   LD_PRELOAD=/path/to/slow-fsync.so SLOW_FSYNC_MS=30 postgres ...
 *
 * Only fsync and fdatasync are wrapped: they are what PostgreSQL uses with its
 * Linux default wal_sync_method (fdatasync) and at checkpoints. O_SYNC and
 * O_DSYNC writes (wal_sync_method = open_sync, open_datasync) and
 * sync_file_range (a mere writeback hint in PostgreSQL) are left alone.
 *
 * The wrappers may run in a signal handler or in any thread of the server,
 * so they only use async-signal-safe calls: no stdio, no malloc, no getenv.
 * The environment is read once, when the library is loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { DEFAULT_MS = 20, MAX_MS = 60000 };

/*
 * Set once by the constructor, before main(), then only read: a preloaded
 * library has nowhere else to keep them.
 */
static struct timespec delay;
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

static void
warn(const char *msg)
{
    ssize_t n = write(STDERR_FILENO, msg, strlen(msg));

    (void)n;
}

/* Unset or empty means the default; a bad value is reported, then the default is used. */
static long
delay_ms(void)
{
    const char *s = getenv("SLOW_FSYNC_MS");
    char *end;
    long ms;

    if (!s || !*s)
        return DEFAULT_MS;
    errno = 0;
    ms = strtol(s, &end, 10);
    if (errno || *end || ms < 0 || ms > MAX_MS) {
        warn("slow-fsync: SLOW_FSYNC_MS must be a whole number of ms in 0..60000; using 20\n");
        return DEFAULT_MS;
    }
    return ms;
}

__attribute__((constructor)) static void
init(void)
{
    int saved = errno;
    long ms = delay_ms();

    delay.tv_sec = ms / 1000;
    delay.tv_nsec = ms % 1000 * 1000000L;
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    errno = saved;
}

/* Sleeps the whole delay even if signals interrupt it, and leaves errno as it found it. */
static void
slow_down(void)
{
    struct timespec left = delay;
    int saved;

    if (left.tv_sec == 0 && left.tv_nsec == 0)
        return;
    saved = errno;
    while (nanosleep(&left, &left) < 0 && errno == EINTR)
        ;
    errno = saved;
}

/*
 * Without a real function (another library's constructor syncing before ours
 * ran), the system call does the same job and is just as signal-safe.
 */
int
fsync(int fd)
{
    slow_down();
    if (real_fsync)
        return real_fsync(fd);
    return (int)syscall(SYS_fsync, fd);
}

int
fdatasync(int fd)
{
    slow_down();
    if (real_fdatasync)
        return real_fdatasync(fd);
    return (int)syscall(SYS_fdatasync, fd);
}
