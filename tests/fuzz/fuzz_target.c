/* Targets: each backend's URI parser and password masking, and argv scrubbing. */
#include "fuzz.h"

#include "config.h"
#include "collectors/memcached/memcached.h"
#include "collectors/mysql/mysql.h"
#include "collectors/postgres/postgres.h"
#include "collectors/redis/redis.h"
#include "run/target.h"
#include "base/uri.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[BT_ERRLEN], *text = fuzz_text(data, size), *masked, *arg;
    struct redis_target rt;
    struct mc_addr ma;
    struct my_target mt;

    redis_target_parse(text, &rt, err);
    mc_target_parse(text, &ma, err);
    if (my_target_parse(text, &mt, err) == 0)
        my_target_free(&mt);
    uri_is_local(text);
    masked = pg_mask_target(text);
    arg = xstrdup(text);
    target_scrub_arg(arg, masked);
    free(masked);
    free(arg);
    free(redis_mask_target(text));
    free(my_mask_target(text));
    free(text);
    return 0;
}
