/* units: numbers as people read them (see units.h). */
#include "units.h"

#include <math.h>
#include <stdio.h>

void
units_si(char *dst, size_t len, double v, const char *unit)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T"};
    int i = 0;

    while (fabs(v) >= 999.5 && i < 4) {
        v /= 1000;
        i++;
    }
    if (i > 0)
        snprintf(dst, len, "%.1f%s%s", v, prefix[i], unit);
    else if (v != floor(v) && fabs(v) < 9.95)
        snprintf(dst, len, "%.1f%s", v, unit);
    else
        snprintf(dst, len, "%.0f%s", v, unit);
}

void
units_iec(char *dst, size_t len, double bytes, const char *unit)
{
    static const char *const prefix[] = {"", "Ki", "Mi", "Gi", "Ti"};
    int i = 0;

    while (fabs(bytes) >= 1024 && i < 4) {
        bytes /= 1024;
        i++;
    }
    if (i > 0)
        snprintf(dst, len, "%.1f %sB%s", bytes, prefix[i], unit);
    else
        snprintf(dst, len, "%.0f B%s", bytes, unit);
}

void
units_duration(char *dst, size_t len, double secs)
{
    long s = lround(secs);
    double ms = secs * 1000;

    if (ms < 9.95 && ms != floor(ms))
        snprintf(dst, len, "%.1f ms", ms);
    else if (secs < 1)
        snprintf(dst, len, "%.0f ms", ms);
    else if (secs < 59.95)
        snprintf(dst, len, "%.1f s", secs);
    else if (s < 3600)
        snprintf(dst, len, "%ldm %02lds", s / 60, s % 60);
    else
        snprintf(dst, len, "%ldh %02ldm", s / 3600, s % 3600 / 60);
}

double
units_rate(double prev, double cur, int have_prev, double secs)
{
    if (!have_prev || !(secs > 0) || cur < prev)
        return NAN;
    return (cur - prev) / secs;
}
