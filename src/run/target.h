/* target: driver lookup and password scrubbing for target strings. */
#ifndef BENCHTOP_TARGET_H
#define BENCHTOP_TARGET_H

#include <stddef.h>
#include <stdio.h>

/*
 * Overwrites a command-line argument in place with its masked form (or
 * stars when that does not fit), so `ps` no longer shows the password.
 */
void target_scrub_arg(char *arg, const char *masked);
/*
 * A newly allocated copy of target with its password masked: the driver's
 * own masking, or any scheme://user:password@ form's; NULL when neither
 * knows the target.
 */
char *target_mask(const char *target);

struct runconf;
/*
 * With no target among the npos positional arguments, the target from
 * --target-file (its first line) or from the environment's
 * BENCHTOP_TARGET, so a password need not be in argv: *pos then holds
 * that one (a copy). A file that does not hold one is a user error (exit 2).
 */
void target_default(const struct runconf *rc, char ***pos, int *npos);

#endif
