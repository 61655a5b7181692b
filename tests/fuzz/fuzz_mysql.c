/* MySQL rows: SHOW GLOBAL STATUS text, then settings and processlist rows, then derive. */
#include "fuzz.h"

#include "engine/collector.h"
#include "collectors/mysql/mysql.h"

/* Each "a<TAB>b<TAB>c<TAB>d" line of text as a setting and a processlist row. */
static void
rows(struct my_sample *s, char *text)
{
    char *save = NULL, *line;

    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char *f[4] = {line, "", "", ""};
        int i;
        for (i = 1; i < 4 && (f[i] = strchr(f[i - 1], '\t')) != NULL; i++)
            *f[i]++ = '\0';
        for (; i < 4; i++)
            f[i] = "";
        my_setting_set(s, f[0], f[1]);
        my_proc_add(s, f[0], f[1], strtod(f[2], NULL), f[3]);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct my_sample prev, cur;
    static struct coll_view view;
    char err[BT_ERRLEN], *text = fuzz_text(data, size), *split;

    memset(&cur, 0, sizeof(cur));
    split = strstr(text, "\n--\n"); /* status above, other rows below */
    if (split != NULL)
        *split = '\0';
    if (my_status_parse(text, &cur, err) == 0) {
        if (split != NULL)
            rows(&cur, split + 4);
        my_derive(NULL, &cur, 0, &view);
        my_derive(&cur, &cur, 1.0, &view);
        my_derive(&prev, &cur, 1e-9, &view);
        prev = cur;
    }
    free(text);
    return 0;
}
