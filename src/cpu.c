/* cpu: /proc readers (see cpu.h). */
#include "cpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

pid_t
cpu_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* /proc/self/task/TID/NAME into buf (NUL-terminated); -1 if the thread is gone. */
static int
read_task_file(pid_t tid, const char *name, char *buf, size_t len)
{
    char path[64];
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, name);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 0;
}

double
cpu_thread_seconds(pid_t tid)
{
    char buf[1024], *p;
    unsigned long long ut, st;

    if (read_task_file(tid, "stat", buf, sizeof buf) < 0)
        return -1;
    /* the command name may hold spaces and parentheses: fields start after the last ')' */
    p = strrchr(buf, ')');
    if (p == NULL ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

double
cpu_thread_wait_seconds(pid_t tid)
{
    char buf[128];
    unsigned long long run, wait;

    if (read_task_file(tid, "schedstat", buf, sizeof buf) < 0 ||
        sscanf(buf, "%llu %llu", &run, &wait) != 2)
        return -1;
    return (double)wait / 1e9;
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
