/* json: writing JSON values (see json.h). */
#include "json.h"

#include <math.h>
#include <stdlib.h>

#include "text.h"

void
json_put_string(FILE *f, const char *s)
{
    text_json(f, s);
}

/*
 * The fewest significant digits (up to 17) that read back as exactly v: a
 * byte count stays whole (20971520, not 2.09715e+07) and a rate keeps the
 * digits it has, without the noise of a fixed %.17g.
 */
static void
shortest(char *buf, size_t len, double v)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void
json_number(FILE *f, double v)
{
    char buf[40];

    if (!isfinite(v)) { /* JSON has no such number */
        fputs("null", f);
        return;
    }
    if (v == trunc(v) && fabs(v) < 9007199254740992.0) /* 2^53: every such integer is exact */
        snprintf(buf, sizeof buf, "%.0f", v);
    else
        shortest(buf, sizeof buf, v);
    fputs(buf, f);
}

void
json_member_num(FILE *f, const char *key, double v)
{
    fprintf(f, ",\"%s\":", key);
    json_number(f, v);
}

void
json_member_str(FILE *f, const char *key, const char *s)
{
    fprintf(f, ",\"%s\":", key);
    json_put_string(f, s);
}
