/*
 * serve: `benchtop serve CLASS`, a hidden subcommand for developers and for
 * tests/run-integration. It starts a throwaway server (server.h) and keeps
 * it while it is wanted.
 *
 * Protocol on stdout, one line each, flushed: "target=URL", "dir=FOLDER",
 * "port=N", "pid=PID" (of benchtop, not of the server), "behind=URL" (a
 * pooler's or nginx's), "log=FILE" (the server's main log, inside FOLDER,
 * when the class keeps one), then "ready".
 * Afterwards: SIGUSR1 restarts the server and prints "restarted" or
 * "restart-failed: MESSAGE"; SIGTERM, SIGINT, SIGHUP, SIGQUIT or end of
 * stdin stop the server and remove its folder. Because of the last one,
 * stdin must stay open (a pipe or a terminal): `< /dev/null` stops at once,
 * and a runner that dies without cleaning up still takes the server along.
 */
#ifndef BENCHTOP_SERVE_H
#define BENCHTOP_SERVE_H

/* Runs until told to stop; 0, or 2 after a one-line "benchtop: ..." on stderr. */
int serve_main(const char *class_name);

#endif
