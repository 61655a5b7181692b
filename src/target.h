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
/* "postgres://..., redis://..." for error messages. */
void target_known_schemes(char *buf, size_t len);

#endif
