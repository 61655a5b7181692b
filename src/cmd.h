/*
 * cmd: what the subcommands share with main.c (the command table), and
 * the subcommands that live in files of their own.
 */
#ifndef BENCHTOP_CMD_H
#define BENCHTOP_CMD_H

#include "driver.h"
#include "runconf.h"

struct sweep;

/* Finds the driver for target and fills rc's target fields; in_argv: hide it from ps. */
const struct driver_class *resolve_target(struct runconf *rc, char *target, int in_argv);
/* Prepares the driver, runs the load with the dashboard or headless; sweep may be NULL. */
int run_load(struct runconf *rc, struct sweep *sweep);

/* Raises the open-file limit for this many clients, or exits 2 saying how. */
void raise_fd_limit(int clients);

int cmd_sweep(struct runconf *rc, char **pos, int npos); /* src/cmd-sweep.c */

#endif
