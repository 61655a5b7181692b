/*
 * pgbench-style scripts (and, when the first byte is odd, command lines):
 * parse, then evaluate every \set and render every statement, and its '?' form.
 */
#include "fuzz.h"

#include "base/rand.h"
#include "engine/script.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const predef[] = {"scale", "client_id", NULL};
    char err[BT_ERRLEN], buf[4096], *text;
    int64_t vars[SCRIPT_MAX_VARS] = {1, 0};
    struct script *s;
    struct rng r;
    int i;

    if (size < 1 || size > SCRIPT_MAX_BYTES)
        return 0;
    text = fuzz_text(data + 1, size - 1);
    s = data[0] & 1 ? script_parse_lines("fuzz.txt", text, predef, err)
                    : script_parse("fuzz.sql", text, predef, err);
    free(text);
    if (s == NULL)
        return 0;
    rng_seed(&r, 1);
    for (i = 0; i < s->ncmds; i++) {
        if (s->cmds[i].kind == SCRIPT_SET)
            script_eval(&s->cmds[i], vars, &r, err);
        else {
            script_render(&s->cmds[i], vars, buf, sizeof(buf));
            free(script_sql_marks(&s->cmds[i]));
        }
    }
    script_free(s);
    return 0;
}
