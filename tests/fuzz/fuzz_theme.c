/* Theme files (INI through libinih). */
#include "fuzz.h"

#include "ui/theme.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct theme t;
    char err[BT_ERRLEN], *text;

    if (size > THEME_MAX_BYTES)
        return 0;
    text = fuzz_text(data, size);
    theme_parse(&t, "fuzz.theme", text, err);
    free(text);
    return 0;
}
