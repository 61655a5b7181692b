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

/*
 * This process's wait for the CPU, cumulative: every thread's run-queue
 * wait (/proc/self/task/N/schedstat) and the time its cgroup's CPU quota
 * held it back (v2 cpu.stat throttled_usec, v1 throttled_time), in
 * seconds; -1 where unknown. quota: the cgroup's limit in cores (0.1 is
 * 10% of one core), 0 without one.
 */
struct cpu_self {
    double runq_s;
    double throttled_s;
    double quota;
    char quota_where[96]; /* "cgroup /sys/fs/cgroup/cpu/x: cpu.cfs_quota_us" */
};
void cpu_self_read(struct cpu_self *s);

/* The "cpu" line of /proc/stat, summed: busy and total jiffies. */
struct cpu_host {
    uint64_t busy;
    uint64_t total;
    uint64_t irq; /* irq + softirq: the kernel's interrupt work, a network's mostly */
    uint64_t out_busy, out_total; /* ... of the CPUs outside this thread's affinity (none: 0) */
};

int cpu_host_read(struct cpu_host *h);
/* Busy % of all cores between two readings (100 = every core busy); NAN if unknown. */
double cpu_host_busy_pct(const struct cpu_host *prev, const struct cpu_host *cur);
/* Busy % of the CPUs outside the reader's affinity (taskset); NAN if it has them all. */
double cpu_host_outside_busy_pct(const struct cpu_host *prev, const struct cpu_host *cur);
/* ... of which interrupts and softirqs (packets on loopback too), % of all cores; NAN. */
double cpu_host_irq_pct(const struct cpu_host *prev, const struct cpu_host *cur);
/*
 * A local server's process: the one listening on TCP `port` (this user's
 * processes only: /proc/PID/fd of others is closed to us), or -1.
 */
pid_t cpu_port_owner(int port);
/*
 * The run's local processes followed as one group: process trees (a root
 * and its children, PostgreSQL's backends) whose CPU is summed. Peers are
 * the listeners on loopback that the group's processes hold connections
 * to (nginx to php-fpm, php-fpm to MariaDB, pgbouncer to PostgreSQL).
 */
#define CPU_GROUP_MAX 8
struct cpu_group {
    int n;
    pid_t root[CPU_GROUP_MAX];
    double last_s[CPU_GROUP_MAX]; /* each tree's CPU seconds at the last read; -1 unknown */
    uint64_t last_us;             /* when (now_us) the trees were last read */
    int ntried;
    int tried[16];   /* loopback ports looked up already (owned by another user, or ours) */
    char names[64];  /* the roots' command names: "nginx, php-fpm8.2, mariadbd" */
    int peers_every; /* calls of cpu_group_add_peers per look (it backs off) */
    int peers_skip;  /* calls left before the next look */
};

void cpu_group_init(struct cpu_group *g);
/* Adds the tree of root (ignored if <= 0, benchtop itself, present, or the group is full). */
void cpu_group_add(struct cpu_group *g, pid_t root);
/*
 * Adds the owners of loopback listeners the group's processes are
 * connected to. Called every interval, it looks at every call while the
 * group grows, then less often (at most every 16th call).
 */
void cpu_group_add_peers(struct cpu_group *g);
/* The group's CPU since the last call, % of one core; NAN when it has none (or at the first). */
double cpu_group_pct(struct cpu_group *g, double interval_s);

/* Online cores. */
int cpu_cores(void);
/* The CPUs this process may run on (its affinity: taskset, a cpuset); 0 if unknown. */
int cpu_allowed(void);

/* One thread of a process: its id and user + system seconds. */
struct cpu_task {
    int tid;
    double secs;
    double wait_s; /* runnable but waiting for a CPU (schedstat); -1 unknown */
};
/*
 * The threads of process pid (/proc/PID/task/TID/stat), at most max, into
 * out: how many; -1 when pid is not there (another PID namespace, gone).
 */
int cpu_tasks_read(pid_t pid, struct cpu_task *out, int max);
/*
 * The processes whose command line starts with prefix ("nginx: worker"):
 * pid's children, or when it has none its parent's (pid one of them, as a
 * port's owner may be), at most max, into out: how many.
 */
int cpu_workers(pid_t pid, const char *prefix, pid_t *out, int max);
/*
 * Pure: the busiest thread between two readings secs apart, % of one core;
 * NAN if none in both. wait_pct (NULL: not wanted): that thread's wait for
 * a CPU in the same span, %; NAN when unknown.
 */
double cpu_tasks_max_pct(const struct cpu_task *a, int na, const struct cpu_task *b, int nb,
                         double secs, double *wait_pct);
/*
 * The local ports of this process's loopback TCP connections to port
 * (benchtop's load connections to a server on this host), at most max,
 * into ports: how many.
 */
int cpu_own_ports(int port, int *ports, int max);

#endif
