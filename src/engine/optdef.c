/* optdef: what a driver may read of the parsed command line (see optdef.h). */
#include "optdef.h"

#include <string.h>

int
options_given(const struct runconf *rc, const char *name)
{
    for (int i = 0; i < OPTIONS_MAX; i++)
        if (rc->given_name[i] != NULL && strcmp(rc->given_name[i], name) == 0)
            return 1;
    return 0;
}

int
options_list_next(const char **p, const char **item, size_t *len)
{
    if (*p == NULL || **p == '\0')
        return 0;
    *item = *p;
    *len = strcspn(*p, "\n");
    *p += *len + ((*p)[*len] == '\n');
    return 1;
}
