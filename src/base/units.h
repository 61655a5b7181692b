/*
 * units: numbers as people read them, in one style on every screen:
 * counts and rates with SI prefixes (12.3k/s), bytes with IEC ones
 * (1.2 MiB), durations from milliseconds to hours; and a counter's rate
 * from two readings.
 */
#ifndef BENCHTOP_UNITS_H
#define BENCHTOP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* 0.5/s, 12/s, 12.3k/s, 4.5M/s (unit "/s"): three significant digits at most. */
void units_si(char *dst, size_t len, double v, const char *unit);
/* 512 B, 1.2 MiB, 3.0 GiB; unit follows ("/s" gives 1.2 MiB/s). */
void units_iec(char *dst, size_t len, double bytes, const char *unit);
/* 0.4 ms, 850 ms, 12.3 s, 5m 03s, 2h 10m. */
void units_duration(char *dst, size_t len, double secs);
/*
 * A counter's growth per second between two readings secs apart; NAN
 * when there is no earlier reading, no time passed, or it went back (the
 * server restarted and its counters with it). Doubles, so that counters
 * read as text (MySQL's SHOW STATUS) and as integers share it; exact up
 * to 2^53.
 */
double units_rate(double prev, double cur, int have_prev, double secs);

#endif
