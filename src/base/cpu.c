/* cpu: /proc readers (see cpu.h). */
#include "cpu.h"

#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

pid_t
cpu_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/*
 * The parent pid and utime + stime ticks of a /proc/.../stat file, and
 * into *reaped (if not NULL) cutime + cstime: the CPU of its children that
 * exited and were waited for; -1 if it is gone. The command name may hold
 * spaces and parentheses: fields start after the last ')'.
 */
static int
stat_read_all(const char *path, int *ppid, unsigned long long *ticks, unsigned long long *reaped)
{
    char buf[1024], *p;
    unsigned long long ut, st, cut = 0, cst = 0;
    FILE *f = fopen(path, "r");
    size_t n;

    if (f == NULL)
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')');
    if (p == NULL || sscanf(p + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
                            ppid, &ut, &st, &cut, &cst) < 3)
        return -1;
    *ticks = ut + st;
    if (reaped != NULL)
        *reaped = cut + cst;
    return 0;
}

static int
stat_read(const char *path, int *ppid, unsigned long long *ticks)
{
    return stat_read_all(path, ppid, ticks, NULL);
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

/* The run-queue wait in a schedstat file (run ns, wait ns, slices), seconds; -1 if unread. */
static double
schedstat_wait(const char *path)
{
    unsigned long long run, wait;
    FILE *f;
    int n;

    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    n = fscanf(f, "%llu %llu", &run, &wait);
    fclose(f);
    return n == 2 ? (double)wait / 1e9 : -1;
}

double
cpu_thread_wait_seconds(pid_t tid)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
    return schedstat_wait(path);
}

double
cpu_process_seconds(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The sum of every thread's run-queue wait in seconds; -1 if none could be read. */
static double
self_runq_s(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    double sum = 0;
    int known = 0;

    while (d != NULL && (e = readdir(d)) != NULL) {
        pid_t tid = (pid_t)atoi(e->d_name);
        double q = tid > 0 ? cpu_thread_wait_seconds(tid) : -1;

        if (q >= 0) {
            sum += q;
            known++;
        }
    }
    if (d != NULL)
        closedir(d);
    return known ? sum : -1;
}

/* "key value" from a cpu.stat-like file; -1 if absent. */
static double
kv_read(const char *path, const char *key)
{
    char line[128], k[64];
    unsigned long long v;
    double out = -1;
    FILE *f = fopen(path, "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "%63s %llu", k, &v) == 2 && strcmp(k, key) == 0)
            out = (double)v;
    if (f != NULL)
        fclose(f);
    return out;
}

/* The directory of this process's CPU cgroup, v1 (cpu controller) or v2; 0, or -1. */
static int
self_cgroup(char *dir, size_t len, int *v1)
{
    char line[512], *path;
    FILE *f = fopen("/proc/self/cgroup", "r");
    int found = -1;

    while (f != NULL && fgets(line, sizeof(line), f) != NULL && found < 0) {
        char *ctl = strchr(line, ':');

        if (ctl == NULL || (path = strchr(ctl + 1, ':')) == NULL)
            continue;
        *path++ = '\0';
        path[strcspn(path, "\n")] = '\0';
        *v1 = strcmp(ctl + 1, "") != 0;
        if (*v1 && strcmp(ctl + 1, "cpu") != 0 && strncmp(ctl + 1, "cpu,", 4) != 0)
            continue;
        snprintf(dir, len, *v1 ? "/sys/fs/cgroup/cpu%s" : "/sys/fs/cgroup%s", path);
        if (access(dir, R_OK) != 0 && !*v1)
            snprintf(dir, len, "/sys/fs/cgroup/unified%s", path);
        if (access(dir, R_OK) != 0 && *v1)
            snprintf(dir, len, "/sys/fs/cgroup/cpu,cpuacct%s", path);
        found = access(dir, R_OK) == 0 ? 0 : -1;
    }
    if (f != NULL)
        fclose(f);
    return found;
}

/* The quota of a cgroup in cores (0 none) from v2 cpu.max or v1 cfs_quota_us / cfs_period_us. */
static double
cgroup_quota(const char *dir, int v1)
{
    char path[600];
    double q = -1, per = 0;
    FILE *f;

    if (v1) {
        snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
        if ((f = fopen(path, "r")) != NULL && fscanf(f, "%lf", &q) != 1)
            q = -1;
        if (f != NULL)
            fclose(f);
        snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
        if ((f = fopen(path, "r")) != NULL && fscanf(f, "%lf", &per) != 1)
            per = 0;
    } else {
        snprintf(path, sizeof(path), "%s/cpu.max", dir);
        if ((f = fopen(path, "r")) != NULL && fscanf(f, "%lf %lf", &q, &per) != 2)
            q = -1; /* "max 100000": no quota */
    }
    if (f != NULL)
        fclose(f);
    return q > 0 && per > 0 ? q / per : 0;
}

void
cpu_self_read(struct cpu_self *s)
{
    char dir[400], path[600];
    int v1 = 0;
    double t;

    memset(s, 0, sizeof(*s));
    s->runq_s = self_runq_s();
    s->throttled_s = -1;
    if (self_cgroup(dir, sizeof(dir), &v1) < 0)
        return;
    snprintf(path, sizeof(path), "%s/cpu.stat", dir);
    t = kv_read(path, v1 ? "throttled_time" : "throttled_usec");
    s->throttled_s = t < 0 ? -1 : t / (v1 ? 1e9 : 1e6);
    s->quota = cgroup_quota(dir, v1);
    if (s->quota > 0)
        snprintf(s->quota_where, sizeof(s->quota_where), "%s of cgroup %.60s",
                 v1 ? "cpu.cfs_quota_us" : "cpu.max", dir);
}

/* One /proc/stat line's figures after its name: busy and total jiffies, irq + softirq. 0 or -1. */
static int
stat_line(const char *s, uint64_t *busy, uint64_t *total, uint64_t *irq)
{
    unsigned long long v[8] = {0};

    /* user nice system idle iowait irq softirq steal */
    if (sscanf(s, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]) < 4)
        return -1;
    *total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    *busy = *total - v[3] - v[4];
    *irq = v[5] + v[6];
    return 0;
}

/* The host's line, and the sum of the cpuN lines outside the calling thread's affinity. */
int
cpu_host_read(struct cpu_host *h)
{
    char line[512];
    FILE *f = fopen("/proc/stat", "r");
    cpu_set_t mine;
    int have = 0, all = sched_getaffinity(0, sizeof mine, &mine) != 0, cpu, at;
    uint64_t b, t, i;

    if (f == NULL)
        return -1;
    memset(h, 0, sizeof *h);
    while (fgets(line, sizeof line, f) != NULL && strncmp(line, "cpu", 3) == 0) {
        if (line[3] == ' ') {
            have = stat_line(line + 4, &h->busy, &h->total, &h->irq) == 0;
        } else if (!all && sscanf(line + 3, "%d%n", &cpu, &at) == 1 && cpu >= 0 &&
                   cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &mine) &&
                   stat_line(line + 3 + at, &b, &t, &i) == 0) {
            h->out_busy += b;
            h->out_total += t;
        }
    }
    fclose(f);
    return have ? 0 : -1;
}

double
cpu_host_busy_pct(const struct cpu_host *prev, const struct cpu_host *cur)
{
    if (cur->total <= prev->total)
        return NAN;
    return 100.0 * (double)(cur->busy - prev->busy) / (double)(cur->total - prev->total);
}

double
cpu_host_outside_busy_pct(const struct cpu_host *prev, const struct cpu_host *cur)
{
    if (cur->out_total <= prev->out_total || cur->out_busy < prev->out_busy)
        return NAN;
    return 100.0 * (double)(cur->out_busy - prev->out_busy) /
           (double)(cur->out_total - prev->out_total);
}

double
cpu_host_irq_pct(const struct cpu_host *prev, const struct cpu_host *cur)
{
    if (cur->total <= prev->total || cur->irq < prev->irq)
        return NAN;
    return 100.0 * (double)(cur->irq - prev->irq) / (double)(cur->total - prev->total);
}

int
cpu_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n > 0 ? (int)n : 1;
}

int
cpu_allowed(void)
{
    cpu_set_t set;

    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

void
cpu_group_init(struct cpu_group *g)
{
    memset(g, 0, sizeof(*g));
}

/* "nginx, php-fpm8.2": the roots' names from /proc/PID/comm, each once. */
static void
group_name(struct cpu_group *g, pid_t pid)
{
    char path[64], comm[32] = "";
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return;
    if (fgets(comm, sizeof(comm), f) != NULL)
        comm[strcspn(comm, "\n")] = '\0';
    fclose(f);
    if (comm[0] == '\0' || strstr(g->names, comm) != NULL ||
        strlen(g->names) + strlen(comm) + 3 > sizeof(g->names))
        return;
    if (g->names[0])
        strcat(g->names, ", ");
    strcat(g->names, comm);
}

static int
group_has(const struct cpu_group *g, pid_t pid)
{
    for (int i = 0; i < g->n; i++)
        if (g->root[i] == pid)
            return 1;
    return 0;
}

/*
 * One pass over /proc: the pids of the group's trees (root or parent in it)
 * into members (up to max; NULL: none wanted), and each tree's CPU ticks
 * into ticks (-1 when its root is gone). How many members.
 */
static int
group_scan(const struct cpu_group *g, pid_t *members, int max, long long *ticks)
{
    unsigned long long t, reaped;
    long long sum[CPU_GROUP_MAX] = {0};
    int seen[CPU_GROUP_MAX] = {0};
    struct dirent *e;
    int ppid, n = 0, i;
    DIR *d = opendir("/proc");

    while (d != NULL && (e = readdir(d)) != NULL) {
        char path[300];
        pid_t pid = (pid_t)atoi(e->d_name);

        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        if (pid <= 0 || stat_read_all(path, &ppid, &t, &reaped) < 0)
            continue;
        for (i = 0; i < g->n; i++) {
            if (g->root[i] != pid && g->root[i] != (pid_t)ppid)
                continue;
            seen[i] |= g->root[i] == pid;
            /*
             * The root's reaped children count too: short-lived ones
             * (PostgreSQL's parallel workers) exit within an interval
             * and leave their CPU in the parent's cutime + cstime.
             */
            sum[i] += (long long)t + (g->root[i] == pid ? (long long)reaped : 0);
            if (members != NULL && n < max)
                members[n++] = pid;
            break;
        }
    }
    if (d != NULL)
        closedir(d);
    for (i = 0; i < g->n; i++)
        ticks[i] = seen[i] ? sum[i] : -1;
    return n;
}

void
cpu_group_add(struct cpu_group *g, pid_t root)
{
    long long ticks[CPU_GROUP_MAX];

    if (root <= 0 || root == getpid() || g->n == CPU_GROUP_MAX || group_has(g, root))
        return;
    g->root[g->n++] = root;
    /* the tree's starting point, counted as cpu_group_pct will count it */
    group_scan(g, NULL, 0, ticks);
    for (int i = 0; i < g->n; i++) /* all read now: one time base for the next interval */
        g->last_s[i] = ticks[i] >= 0 ? (double)ticks[i] / (double)sysconf(_SC_CLK_TCK) : -1;
    g->last_us = now_us();
    group_name(g, root);
}

/* A /proc/net/tcp{,6} address is loopback: 127.0.0.0/8, ::1 or ::ffff:127.x.y.z. */
static int
loopback_hex(const char *a)
{
    size_t n = strlen(a);

    if (n == 8)
        return strncasecmp(a + 6, "7F", 2) == 0;
    return n == 32 && (strcmp(a, "00000000000000000000000001000000") == 0 ||
                       (strncasecmp(a, "0000000000000000FFFF0000", 24) == 0 &&
                        strncasecmp(a + 30, "7F", 2) == 0));
}

/*
 * The host's TCP sockets that matter: listeners, and connections between
 * loopback ends. With 10,000 connections a table holds 20,000 of them and
 * every socket a process holds is looked up in it, so the connections are
 * sorted by inode (a bsearch each) and the few listeners kept apart.
 */
struct tcp_sock {
    unsigned long inode;
    int lport, rport;
};

struct tcp_table {
    struct tcp_sock *conn; /* sorted by inode once read */
    int nconn, conn_cap;
    struct tcp_sock *listen; /* as read: IPv4's first */
    int nlisten, listen_cap;
};

static void
tcp_push(struct tcp_sock **v, int *n, int *cap, struct tcp_sock s)
{
    *v = xgrow(*v, *n, cap, sizeof(**v));
    (*v)[(*n)++] = s;
}

static int
tcp_read(const char *path, struct tcp_table *t)
{
    char line[512], rem[40];
    unsigned int lport, rport, state;
    unsigned long ino;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        struct tcp_sock s;
        if (sscanf(line, " %*d: %*[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*s %*s %*s %*d %*d %lu",
                   &lport, rem, &rport, &state, &ino) != 5 ||
            ino == 0)
            continue;
        s = (struct tcp_sock){.inode = ino, .lport = (int)lport, .rport = (int)rport};
        if (state == 0x0A)
            tcp_push(&t->listen, &t->nlisten, &t->listen_cap, s);
        else if (state == 0x01 && loopback_hex(rem))
            tcp_push(&t->conn, &t->nconn, &t->conn_cap, s);
    }
    fclose(f);
    return 0;
}

static int
inode_cmp(const void *a, const void *b)
{
    unsigned long x = ((const struct tcp_sock *)a)->inode, y = ((const struct tcp_sock *)b)->inode;

    return (x > y) - (x < y);
}

/* The loopback connection with this inode, or NULL. */
static const struct tcp_sock *
tcp_find(const struct tcp_table *t, unsigned long inode)
{
    struct tcp_sock key = {.inode = inode};

    return t->nconn ? bsearch(&key, t->conn, (size_t)t->nconn, sizeof(key), inode_cmp) : NULL;
}

/* The inode of a socket listening on port (IPv4's first, as the tables were read), or 0. */
static unsigned long
tcp_listener(const struct tcp_table *t, int port)
{
    for (int i = 0; i < t->nlisten; i++)
        if (t->listen[i].lport == port)
            return t->listen[i].inode;
    return 0;
}

/* Both tables; tcp_free frees them. */
static void
tcp_read_all(struct tcp_table *t)
{
    memset(t, 0, sizeof(*t));
    tcp_read("/proc/net/tcp", t);
    tcp_read("/proc/net/tcp6", t);
    if (t->nconn > 1)
        qsort(t->conn, (size_t)t->nconn, sizeof(*t->conn), inode_cmp);
}

static void
tcp_free(struct tcp_table *t)
{
    free(t->conn);
    free(t->listen);
}

/*
 * Calls each(inode, arg) for every socket process pid holds, until it
 * returns nonzero: then 1; 0 when none did or pid's descriptors are closed
 * to us (another user's process).
 */
static int
fd_sockets(pid_t pid, int (*each)(unsigned long inode, void *arg), void *arg)
{
    char dir[64], path[330], link[64];
    struct dirent *e;
    unsigned long ino;
    int stop = 0;
    DIR *d;

    snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
    if ((d = opendir(dir)) == NULL)
        return 0;
    while (!stop && (e = readdir(d)) != NULL) {
        ssize_t len;

        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        len = readlink(path, link, sizeof(link) - 1);
        if (len <= 0)
            continue;
        link[len] = '\0';
        if (sscanf(link, "socket:[%lu]", &ino) == 1)
            stop = each(ino, arg);
    }
    closedir(d);
    return stop;
}

static int
is_inode(unsigned long inode, void *want)
{
    return inode == *(unsigned long *)want;
}

/* The process holding the socket listening on port, from tables already read; -1. */
static pid_t
port_owner(const struct tcp_table *t, int port)
{
    unsigned long inode = tcp_listener(t, port);
    struct dirent *e;
    pid_t pid = -1;
    DIR *d;

    if (inode == 0 || (d = opendir("/proc")) == NULL)
        return -1;
    while (pid < 0 && (e = readdir(d)) != NULL) {
        pid_t p = (pid_t)atoi(e->d_name);

        if (p > 0 && fd_sockets(p, is_inode, &inode))
            pid = p;
    }
    closedir(d);
    return pid;
}

pid_t
cpu_port_owner(int port)
{
    struct tcp_table t;
    pid_t pid;

    if (port <= 0) /* a unix socket, a file (SQLite): no table to read */
        return -1;
    tcp_read_all(&t);
    pid = port_owner(&t, port);
    tcp_free(&t);
    return pid;
}

static int
int_in(const int *v, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/*
 * The loopback listeners a process's outgoing connections go to, into
 * ports (a set of at most 16). A connection whose local port listens is
 * one it accepted (a client of it, as benchtop is): not followed.
 */
struct peer_ports {
    const struct tcp_table *t;
    int ports[16];
    int np;
};

static int
peer_port(unsigned long inode, void *arg)
{
    struct peer_ports *pp = arg;
    const struct tcp_sock *s = tcp_find(pp->t, inode);

    if (s == NULL || tcp_listener(pp->t, s->lport) || !tcp_listener(pp->t, s->rport))
        return 0;
    if (pp->np < 16 && !int_in(pp->ports, pp->np, s->rport))
        pp->ports[pp->np++] = s->rport;
    return 0;
}

/*
 * A look costs a readlink per descriptor the group holds (a Redis with
 * 10,000 clients: 10,000) and the host's TCP tables: it is made at every
 * call while it finds someone, then at every 2nd, 4th ... 16th call.
 */
#define PEERS_EVERY_MAX 16

void
cpu_group_add_peers(struct cpu_group *g)
{
    struct tcp_table t;
    struct peer_ports pp = {.t = &t};
    int nm, i, before = g->n;
    long long ticks[CPU_GROUP_MAX];
    pid_t members[256];

    if (g->n == 0 || g->n == CPU_GROUP_MAX || g->peers_skip-- > 0)
        return;
    tcp_read_all(&t);
    nm = group_scan(g, members, 256, ticks);
    for (i = 0; i < nm; i++)
        fd_sockets(members[i], peer_port, &pp);
    for (i = 0; i < pp.np; i++) {
        if (int_in(g->tried, g->ntried, pp.ports[i]))
            continue;
        if (g->ntried < (int)(sizeof(g->tried) / sizeof(g->tried[0])))
            g->tried[g->ntried++] = pp.ports[i];
        nm = g->n;
        cpu_group_add(g, port_owner(&t, pp.ports[i]));
        if (g->n > nm) /* found mid-interval: its CPU counts from the next one */
            g->last_s[nm] = -1;
    }
    tcp_free(&t);
    g->peers_every = g->n > before || g->peers_every == 0 ? 1 : g->peers_every * 2;
    if (g->peers_every > PEERS_EVERY_MAX)
        g->peers_every = PEERS_EVERY_MAX;
    g->peers_skip = g->peers_every - 1;
}

double
cpu_group_pct(struct cpu_group *g, double interval_s)
{
    long long ticks[CPU_GROUP_MAX];
    double sum = 0, now, hz = (double)sysconf(_SC_CLK_TCK);
    uint64_t t;
    int known = 0;

    if (g->n == 0)
        return NAN; /* no local server (SQLite, a remote one): no walk of /proc */
    group_scan(g, NULL, 0, ticks);
    /*
     * Over the time since the last read, not the caller's interval: the
     * reads come when the session handles a snapshot, late on a loaded
     * host, and a 1 s interval then held 0.4 or 1.7 s of the server's CPU
     * (56% and 200% in turn on a server using both cores).
     */
    t = now_us();
    if (g->last_us > 0 && t > g->last_us)
        interval_s = (double)(t - g->last_us) / 1e6;
    g->last_us = t;
    for (int i = 0; i < g->n; i++) {
        now = ticks[i] >= 0 ? (double)ticks[i] / hz : -1;
        /* a child that exits unreaped takes its CPU with it: never below 0 */
        if (now >= 0 && g->last_s[i] >= 0 && interval_s > 0) {
            sum += fmax(0, now - g->last_s[i]);
            known++;
        }
        g->last_s[i] = now;
    }
    return known ? sum / interval_s * 100 : NAN;
}

int
cpu_tasks_read(pid_t pid, struct cpu_task *out, int max)
{
    char dir[48], path[96];
    unsigned long long ticks;
    struct dirent *e;
    int n = 0, ppid;
    DIR *d;

    snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
    if (pid <= 0 || (d = opendir(dir)) == NULL)
        return -1;
    while (n < max && (e = readdir(d)) != NULL) {
        int tid = atoi(e->d_name);

        snprintf(path, sizeof(path), "%s/%d/stat", dir, tid);
        if (tid <= 0 || stat_read(path, &ppid, &ticks) < 0)
            continue;
        out[n].tid = tid;
        out[n].secs = (double)ticks / (double)sysconf(_SC_CLK_TCK);
        snprintf(path, sizeof(path), "%s/%d/schedstat", dir, tid);
        out[n++].wait_s = schedstat_wait(path);
    }
    closedir(d);
    return n;
}

/* Whether /proc/PID/cmdline starts with prefix (nginx writes its role there). */
static int
cmdline_starts(pid_t pid, const char *prefix)
{
    char path[48], buf[128];
    size_t n;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strncmp(buf, prefix, strlen(prefix)) == 0;
}

/* The children of parent whose command line starts with prefix, at most max, into out. */
static int
children_named(pid_t parent, const char *prefix, pid_t *out, int max)
{
    char path[64];
    unsigned long long ticks;
    struct dirent *e;
    int n = 0, ppid;
    DIR *d = opendir("/proc");

    if (d == NULL)
        return 0;
    while (n < max && (e = readdir(d)) != NULL) {
        pid_t pid = (pid_t)atoi(e->d_name);

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        if (pid > 0 && stat_read(path, &ppid, &ticks) == 0 && ppid == (int)parent &&
            cmdline_starts(pid, prefix))
            out[n++] = pid;
    }
    closedir(d);
    return n;
}

int
cpu_workers(pid_t pid, const char *prefix, pid_t *out, int max)
{
    char path[48];
    unsigned long long ticks;
    int n, ppid;

    if (pid <= 0)
        return 0;
    n = children_named(pid, prefix, out, max);
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if (n > 0 || stat_read(path, &ppid, &ticks) < 0 || ppid <= 1)
        return n;
    return children_named((pid_t)ppid, prefix, out, max);
}

double
cpu_tasks_max_pct(const struct cpu_task *a, int na, const struct cpu_task *b, int nb, double secs,
                  double *wait_pct)
{
    double best = NAN, wait = NAN;

    if (!(secs > 0))
        nb = 0;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < na; j++)
            if (a[j].tid == b[i].tid && b[i].secs >= a[j].secs &&
                !(100 * (b[i].secs - a[j].secs) / secs <= best)) {
                best = 100 * (b[i].secs - a[j].secs) / secs;
                wait = a[j].wait_s >= 0 && b[i].wait_s >= a[j].wait_s
                           ? 100 * (b[i].wait_s - a[j].wait_s) / secs
                           : NAN;
            }
    if (wait_pct != NULL)
        *wait_pct = wait;
    return best;
}

/* What cpu_own_ports collects while it walks this process's sockets. */
struct own_ports {
    const struct tcp_table *t;
    int port, *ports, max, n;
};

static int
own_port_add(unsigned long inode, void *arg)
{
    struct own_ports *o = arg;
    const struct tcp_sock *s = tcp_find(o->t, inode);

    if (s != NULL && s->rport == o->port && o->n < o->max)
        o->ports[o->n++] = s->lport;
    return o->n == o->max;
}

int
cpu_own_ports(int port, int *ports, int max)
{
    struct tcp_table t;
    struct own_ports o = {.t = &t, .port = port, .ports = ports, .max = max};

    if (port <= 0 || max <= 0)
        return 0;
    tcp_read_all(&t);
    fd_sockets(getpid(), own_port_add, &o);
    tcp_free(&t);
    return o.n;
}
