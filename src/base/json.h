/*
 * json: the JSON writers every JSON line uses (records, sweeps, options):
 * strings through text.c's escaper, numbers that are never NaN or inf.
 */
#ifndef BENCHTOP_JSON_H
#define BENCHTOP_JSON_H

#include <stdio.h>

/* s as a JSON string, quoted and escaped (text_json). */
void json_put_string(FILE *f, const char *s);
/*
 * v as a JSON number, or null when it is not finite: an integer whole, any
 * other value with the fewest digits that read back as v.
 */
void json_number(FILE *f, double v);
/* ,"key":v and ,"key":"s" after an object's first member. */
void json_member_num(FILE *f, const char *key, double v);
void json_member_str(FILE *f, const char *key, const char *s);

#endif
