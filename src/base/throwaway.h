/*
 * throwaway: throwaway database servers for `benchtop demo` and the tests
 * (`benchtop serve`). Generic parts live here (a private temporary folder,
 * a free loopback port, running programs as an unprivileged user when we
 * are root, waiting for a port to accept, removing everything at the end);
 * what is specific to one database lives in its collectors/NAME-server.c file
 * as a struct server_class listed in collectors/registry.c.
 *
 * Programs are run with fork + exec, never through a shell. Each child gets
 * stdin from /dev/null, stdout and stderr appended to a log file, an empty
 * signal mask and its own process group (so a Ctrl-C meant for benchtop
 * does not kill an initdb half-way: benchtop decides when to stop). A caller
 * that wants a clean stop on SIGINT/SIGTERM must block those signals before
 * server_create and call server_destroy when they arrive (see serve.c).
 */
#ifndef BENCHTOP_SERVER_H
#define BENCHTOP_SERVER_H

#include <stddef.h>
#include <sys/types.h>

struct server {
    const struct server_class *cls;
    char dir[256];    /* private folder, removed by server_destroy */
    int port;         /* loopback TCP port */
    char target[512]; /* what to pass to benchtop, e.g. postgres://postgres@127.0.0.1:PORT/... */
    char behind[512]; /* a pooler's: the target of the server behind it ("" for a server) */
    char user[64];    /* the user the server runs as ("" = ourselves) */
    uid_t uid;
    gid_t gid;
    pid_t pid;     /* server process, when the class tracks one */
    char log[320]; /* the class's main log file inside dir, set by cls->start ("" = none) */
    void *priv;    /* class-private, one heap block; freed after cls->stop */
};

/*
 * One kind of throwaway server. Call order: start (once, from server_create),
 * then any number of restart, then stop (once, from server_destroy or from a
 * failed server_create). Errors are one line in err (BT_ERRLEN bytes).
 */
/*
 * A server that is one process, started with a command line and ready
 * when its port accepts, keeping nothing worth a shutdown (a restart is a
 * stop and the same start): a class that sets .single needs no start,
 * restart or stop of its own.
 */
struct single_server {
    const char *program;       /* "memcached", found through globs */
    const char *const *globs;  /* where to look, NULL-terminated */
    const char *missing_fix;   /* "install the memcached package (apt-get install memcached)" */
    const char *log_name;      /* its output, in s->dir ("memcached.log") */
    const char *target_scheme; /* s->target is SCHEME://127.0.0.1:PORT ("memcached") */
    int start_ms, stop_ms;     /* how long it may take to accept, and to exit after SIGTERM */
    /*
     * Fills argv (at most SINGLE_SERVER_ARGS, ended by NULL) to run prog
     * for s; strings it formats go in buf, len bytes.
     */
    void (*argv)(const struct server *s, char *prog, char **argv, char *buf, size_t len);
};
enum { SINGLE_SERVER_ARGS = 32 };

struct server_class {
    const char *name; /* "postgres" */
    /*
     * Creates the data files in s->dir and starts the server on s->port as
     * s->user; waits until it accepts; fills s->target. Sets s->log before
     * running anything so that server_create can quote the log on failure;
     * its own err need not repeat the log (server_create appends its last
     * error line and where it was kept).
     */
    int (*start)(struct server *s, char *err);
    const struct single_server *single; /* or: one process, started and stopped by throwaway.c */
    /* Stops the server (fast shutdown) and restarts it on the same port and data; waits until it
     * accepts. Only after a start that succeeded: s->priv is set (server_restart checks). */
    int (*restart)(struct server *s, char *err);
    /* Stops the server and releases what s->priv holds (the block itself is freed after it, as
     * is every class's); must be safe to call after a failed (even an early) start. */
    void (*stop)(struct server *s);
    /*
     * Optional, for `benchtop demo`: the name a demo of this server is also
     * asked by ("web"); the paths under s->target its load requests, drawn
     * at random (the driver's --url-file); and the paths it watches beside
     * the load (--watch), with s->behind when that is another driver's
     * database rather than a pooler's server.
     */
    const char *demo_name;
    /* The user a root benchtop runs it as, when it exists (a server that refuses root); */
    /* NULL: nobody */
    const char *run_as;
    const char *const *demo_paths;
    const char *const *demo_watch;
    int serve_only; /* 1: for `serve` (tests) alone; `demo` neither offers nor starts it */
};

/*
 * Clears s, makes the folder (/tmp/benchtop-XXXXXX, mode 0700, owned by the
 * server's user) and picks a port and user; then cls->start. 0, or -1 with
 * err and nothing left behind: the server stopped, the folder removed; only
 * the log, when there is one, is kept as DIR.log and named in err.
 */
int server_create(struct server *s, const struct server_class *cls, char *err);
/* cls->stop, then removes the folder. Safe to call twice. */
void server_destroy(struct server *s);

/* Helpers for classes. */
/* Runs argv (argv[0] a full path; as s->user when set) and waits; output goes to logpath
 * (appended). 0 if it exited 0. */
int server_run(const struct server *s, char *const argv[], const char *logpath, char *err);
/* Starts argv in the background (as s->user when set); returns its pid (reap it with waitpid) or
 * -1. */
pid_t server_spawn(const struct server *s, char *const argv[], const char *logpath, char *err);
/* A free loopback TCP port for a second listener of a class (the kernel's pick; -1 with err). */
int server_pick_port(char *err);
/* Gives path (in s->dir) to s->user, when the server runs as one. 0, or -1 with err. */
int server_give(const struct server *s, const char *path, char *err);
/* Writes text to path (in s->dir) and gives it to s->user. 0, or -1 with err. */
int server_write_file(const struct server *s, const char *path, const char *text, char *err);
/* Waits until 127.0.0.1:port accepts a TCP connection, up to timeout_ms. 0 or -1. */
int server_wait_port(int port, int timeout_ms);
/*
 * Finds an executable: first in PATH, then in the given glob patterns (e.g.
 * "/usr/lib/postgresql/ * /bin/initdb" without spaces; NULL-terminated),
 * taking the highest version among a pattern's matches. 0, or -1 if none.
 */
int server_find_program(const char *name, const char *const *globs, char *out, size_t outlen);
/*
 * Waits until s->port accepts, up to timeout_ms, giving up early when the
 * process s->pid exits (a port taken meanwhile, a bad option): then it is
 * reaped, s->pid is 0 and err says how it ended ("NAME exited with status 1").
 */
int server_wait_ready(struct server *s, const char *name, int timeout_ms, char *err);
/*
 * server_spawn of argv logging to s->log, then server_wait_ready: 0 once it
 * accepts, or -1 with err and s->pid 0.
 */
int server_start(struct server *s, char *const argv[], const char *name, int timeout_ms, char *err);
/* Stops the server (fast) and starts it again on the same port and data; waits until it accepts. */
int server_restart(struct server *s, char *err);
/* Waits for pid to exit and reaps it, up to timeout_ms (a pidfd: no sleep loop). 0 if it did. */
int server_wait_exit(pid_t pid, int timeout_ms);
/* SIGTERM to s->pid, SIGKILL when it has not exited after term_ms; s->pid is 0 after. */
void server_stop_pid(struct server *s, int term_ms);
/* After a failed restart: appends the log's telling line and where the log is to err; -1. */
int server_explain(const struct server *s, char *err);

#endif
