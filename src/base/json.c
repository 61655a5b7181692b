/* json: writing JSON values (see json.h). */
#include "json.h"

#include <math.h>

#include "text.h"

void
json_put_string(FILE *f, const char *s)
{
    text_json(f, s);
}

void
json_number(FILE *f, double v)
{
    if (!isfinite(v)) /* JSON has no such number */
        fputs("null", f);
    else
        fprintf(f, "%.6g", v);
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
