/*
 * cpu: CPU time as Linux reports it in /proc, for the verdict and the
 * header: per thread, for this process, and for the whole host.
 */
#ifndef BENCHTOP_CPU_H
#define BENCHTOP_CPU_H

#include <stdint.h>
#include <sys/types.h>

/* The calling thread's id (for cpu_thread_seconds from another thread). */
pid_t cpu_gettid(void);
/* User + system seconds of one of this process's threads; -1 if it is gone. */
double cpu_thread_seconds(pid_t tid);
/*
 * Seconds one of this process's threads spent runnable but waiting for a
 * CPU (the run queue), from /proc/self/task/TID/schedstat; -1 if unknown.
 */
double cpu_thread_wait_seconds(pid_t tid);
/* User + system seconds of this whole process. */
double cpu_process_seconds(void);

/* The "cpu" line of /proc/stat, summed: busy and total jiffies. */
struct cpu_host {
    uint64_t busy;
    uint64_t total;
};

int cpu_host_read(struct cpu_host *h);
/* Busy % of all cores between two readings (100 = every core busy); NAN if unknown. */
double cpu_host_busy_pct(const struct cpu_host *prev, const struct cpu_host *cur);
/*
 * A local server's processes: the one listening on TCP `port` (this
 * user's processes only: /proc/PID/fd of others is closed to us), or -1;
 * and the CPU seconds of it and its children (PostgreSQL's backends), -1
 * once it is gone.
 */
pid_t cpu_port_owner(int port);
double cpu_tree_seconds(pid_t pid);
/* Online cores. */
int cpu_cores(void);

#endif
