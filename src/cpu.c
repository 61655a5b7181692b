/* cpu: /proc readers (see cpu.h). */
#include "cpu.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

pid_t
cpu_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/*
 * The parent pid and utime + stime ticks of a /proc/.../stat file; -1 if
 * it is gone. The command name may hold spaces and parentheses: fields
 * start after the last ')'.
 */
static int
stat_read(const char *path, int *ppid, unsigned long long *ticks)
{
    char buf[1024], *p;
    unsigned long long ut, st;
    FILE *f = fopen(path, "r");
    size_t n;

    if (f == NULL)
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')');
    if (p == NULL ||
        sscanf(p + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", ppid, &ut, &st) != 3)
        return -1;
    *ticks = ut + st;
    return 0;
}

double
cpu_thread_seconds(pid_t tid)
{
    char path[64];
    unsigned long long ticks;
    int ppid;

    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
    if (stat_read(path, &ppid, &ticks) < 0)
        return -1;
    return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

double
cpu_thread_wait_seconds(pid_t tid)
{
    char path[64];
    unsigned long long run, wait;
    FILE *f;
    int n;

    snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    n = fscanf(f, "%llu %llu", &run, &wait);
    fclose(f);
    return n == 2 ? (double)wait / 1e9 : -1;
}

double
cpu_process_seconds(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int
cpu_host_read(struct cpu_host *h)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    int n;

    if (f == NULL)
        return -1;
    /* user nice system idle iowait irq softirq steal */
    n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 4)
        return -1;
    h->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    h->busy = h->total - v[3] - v[4];
    return 0;
}

double
cpu_host_busy_pct(const struct cpu_host *prev, const struct cpu_host *cur)
{
    if (cur->total <= prev->total)
        return NAN;
    return 100.0 * (double)(cur->busy - prev->busy) / (double)(cur->total - prev->total);
}

int
cpu_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n > 0 ? (int)n : 1;
}

/* The socket inode listening on TCP port `port` in one /proc/net table, or 0. */
static unsigned long
listen_inode(const char *table, int port)
{
    char line[512];
    unsigned long inode = 0;
    unsigned int lport, state;
    FILE *f = fopen(table, "r");

    if (f == NULL)
        return 0;
    while (inode == 0 && fgets(line, sizeof(line), f) != NULL) {
        unsigned long ino;

        /* "  0: 0100007F:9A3B 00000000:0000 0A ... uid timeout inode" */
        if (sscanf(line, " %*d: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*s %*s %*s %*d %*d %lu",
                   &lport, &state, &ino) == 3 &&
            (int)lport == port && state == 0x0A)
            inode = ino;
    }
    fclose(f);
    return inode;
}

/* Does process pid hold the socket with this inode? */
static int
holds_socket(const char *pid, unsigned long inode)
{
    char dir[64], path[330], link[64], want[48];
    struct dirent *e;
    DIR *d;
    int found = 0;

    snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
    snprintf(want, sizeof(want), "socket:[%lu]", inode);
    if ((d = opendir(dir)) == NULL)
        return 0; /* another user's process */
    while (!found && (e = readdir(d)) != NULL) {
        ssize_t n;

        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        n = readlink(path, link, sizeof(link) - 1);
        if (n > 0) {
            link[n] = '\0';
            found = strcmp(link, want) == 0;
        }
    }
    closedir(d);
    return found;
}

pid_t
cpu_port_owner(int port)
{
    unsigned long inode = listen_inode("/proc/net/tcp", port);
    struct dirent *e;
    pid_t pid = -1;
    DIR *d;

    if (inode == 0)
        inode = listen_inode("/proc/net/tcp6", port);
    if (port <= 0 || inode == 0 || (d = opendir("/proc")) == NULL)
        return -1;
    while (pid < 0 && (e = readdir(d)) != NULL)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && holds_socket(e->d_name, inode))
            pid = (pid_t)atoi(e->d_name);
    closedir(d);
    return pid;
}

double
cpu_tree_seconds(pid_t pid)
{
    unsigned long long sum = 0, ticks;
    struct dirent *e;
    int ppid, found = 0;
    DIR *d = opendir("/proc");

    if (d == NULL || pid <= 0) {
        if (d)
            closedir(d);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        char path[300];

        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || stat_read(path, &ppid, &ticks) < 0)
            continue;
        if (atoi(e->d_name) == pid || ppid == pid) {
            found |= atoi(e->d_name) == pid;
            sum += ticks;
        }
    }
    closedir(d);
    return found ? (double)sum / (double)sysconf(_SC_CLK_TCK) : -1;
}
