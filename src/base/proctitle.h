/*
 * proctitle: what `ps` (/proc/PID/cmdline) shows of benchtop's command line
 * once a secret in it was masked, without the masked argument's old length.
 */
#ifndef BENCHTOP_PROCTITLE_H
#define BENCHTOP_PROCTITLE_H

/*
 * Moves the arguments to the heap (argv[i] then points at the copies, which
 * the option parser and its pointers use) and keeps the kernel's area for
 * the title. Call first thing in main.
 */
void proctitle_init(int argc, char **argv);
/*
 * Writes the arguments as they are now (masked in place) into that area as
 * one line, "benchtop run postgres://u:***@h/db -c 8": the kernel shows a
 * title whose area's last byte is not NUL up to its first NUL (as for
 * setproctitle), so the NULs that fill the rest tell nothing.
 */
void proctitle_update(void);

#endif
