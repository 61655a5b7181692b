/*
 * server: throwaway database servers for `benchtop demo` and the tests
 * (`benchtop serve`). Generic parts live here (a private temporary folder,
 * a free loopback port, running programs as an unprivileged user when we
 * are root, waiting for a port to accept, removing everything at the end);
 * what is specific to one database lives in its collectors/*-server.c file
 * as a struct server_class listed in collectors/registry.c.
 */
#ifndef BENCHTOP_SERVER_H
#define BENCHTOP_SERVER_H

#include <sys/types.h>

struct server {
    const struct server_class *cls;
    char dir[256];      /* private folder, removed by server_destroy */
    int port;           /* loopback TCP port */
    char target[512];   /* what to pass to benchtop, e.g. postgres://postgres@127.0.0.1:PORT/postgres */
    char user[64];      /* the user the server runs as ("" = ourselves) */
    uid_t uid;
    gid_t gid;
    pid_t pid;          /* server process, when the class tracks one */
    void *priv;         /* class-private */
};

struct server_class {
    const char *name;   /* "postgres" */
    /* Creates the data files in s->dir and starts the server on s->port; waits until it accepts. */
    int (*start)(struct server *s, char *err);
    /* Stops the server (fast shutdown) and restarts it on the same port and data; waits until it accepts. */
    int (*restart)(struct server *s, char *err);
    /* Stops the server; must be safe to call after a failed start. */
    void (*stop)(struct server *s);
};

/* Finds the class by name in the registry (NULL if not compiled in). */
const struct server_class *server_class_find(const char *name);

/* Makes the folder and picks a port and user; then cls->start. 0 or -1 with err. */
int server_create(struct server *s, const struct server_class *cls, char *err);
/* cls->stop, then removes the folder. */
void server_destroy(struct server *s);

/* Helpers for classes. */
/* Runs argv (as s->user when set) and waits; output goes to logpath (appended). 0 if it exited 0. */
int server_run(const struct server *s, char *const argv[], const char *logpath, char *err);
/* Starts argv in the background (as s->user when set); returns its pid or -1. */
pid_t server_spawn(const struct server *s, char *const argv[], const char *logpath, char *err);
/* Waits until 127.0.0.1:port accepts a TCP connection, up to timeout_ms. 0 or -1. */
int server_wait_port(int port, int timeout_ms);
/* Finds an executable: first in PATH, then in the given glob patterns (e.g. "/usr/lib/postgresql/ * /bin/initdb" without spaces). */
int server_find_program(const char *name, const char *const *globs, char *out, size_t outlen);

#endif
