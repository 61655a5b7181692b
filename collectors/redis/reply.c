/*
 * redis/reply: replies on the blocking connections (prepare, the collector,
 * inspect) read with caps. hiredis 0.14 callocs an array's element pointers
 * as soon as it reads the header (`*2147483647` asks for 16 GB) and keeps
 * a bulk string's bytes until the last arrives (`$2147483647`, 2 GB); its
 * reader has no limit of its own (maxelements came in hiredis 1.0). So the
 * reader's object functions count what one reply makes and refuse past
 * RD_REPLY_OBJECTS, before anything is allocated, and the reads are ours:
 * past RD_REPLY_BYTES_BLOCKING of a reply not yet complete it fails. Either
 * way the context is in error, with a message that says why.
 */
#include "redis.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

/* What one reply made so far (the reader's privdata while redis_reply reads). */
struct bound {
    size_t objects;
    int refused; /* an array (or its elements) over RD_REPLY_OBJECTS */
};

static const redisReplyObjectFunctions *hiredis_fns; /* hiredis's own, which we call through */
static pthread_once_t fns_once = PTHREAD_ONCE_INIT;

static void
find_hiredis_fns(void)
{
    redisReader *r = redisReaderCreate();

    if (r != NULL)
        hiredis_fns = r->fn;
    redisReaderFree(r);
}

/* 0 when n more objects fit in this reply; -1 refuses them (hiredis then says out of memory). */
static int
count(const redisReadTask *task, size_t n)
{
    struct bound *b = task->privdata;

    if (b == NULL)
        return 0;
    if (n > RD_REPLY_OBJECTS - b->objects) {
        b->refused = 1;
        return -1;
    }
    b->objects += n;
    return 0;
}

static void *
bound_string(const redisReadTask *task, char *str, size_t len)
{
    return count(task, 1) < 0 ? NULL : hiredis_fns->createString(task, str, len);
}

static void *
bound_array(const redisReadTask *task, int elements)
{
    return count(task, 1 + (size_t)(elements > 0 ? elements : 0)) < 0
               ? NULL
               : hiredis_fns->createArray(task, elements);
}

static void *
bound_integer(const redisReadTask *task, long long value)
{
    return count(task, 1) < 0 ? NULL : hiredis_fns->createInteger(task, value);
}

static void *
bound_nil(const redisReadTask *task)
{
    return count(task, 1) < 0 ? NULL : hiredis_fns->createNil(task);
}

static void
bound_free(void *obj)
{
    hiredis_fns->freeObject(obj);
}

static redisReplyObjectFunctions bound_fns = {bound_string, bound_array, bound_integer, bound_nil,
                                              bound_free};

/* What redisGetReply does between two looks at the reader: send what is queued, read once. */
static int
read_more(redisContext *c)
{
    int done = 0;

    do
        if (redisBufferWrite(c, &done) != REDIS_OK)
            return REDIS_ERR;
    while (!done);
    return redisBufferRead(c);
}

static int
refuse(redisContext *c, long n, const char *what)
{
    c->err = REDIS_ERR_PROTOCOL;
    snprintf(c->errstr, sizeof c->errstr, "a reply of more than %ld %s (is this a Redis server?)",
             n, what);
    return REDIS_ERR;
}

int
redis_reply(redisContext *c, redisReply **out)
{
    struct bound b = {0};
    void *r = NULL;
    int rc;

    *out = NULL;
    if (c->err) /* an earlier reply failed: its message stays (the reader's would say less) */
        return REDIS_ERR;
    pthread_once(&fns_once, find_hiredis_fns);
    if (hiredis_fns == NULL)
        return refuse(c, 0, "objects: no reader");
    c->reader->fn = &bound_fns;
    c->reader->privdata = &b;
    rc = redisGetReplyFromReader(c, &r);
    while (rc == REDIS_OK && r == NULL && (c->flags & REDIS_BLOCK)) {
        rc = read_more(c);
        if (rc == REDIS_OK && c->reader->len - c->reader->pos > RD_REPLY_BYTES_BLOCKING)
            rc = refuse(c, RD_REPLY_BYTES_BLOCKING >> 20, "MiB");
        else if (rc == REDIS_OK)
            rc = redisGetReplyFromReader(c, &r);
    }
    c->reader->privdata = NULL;
    if (b.refused)
        refuse(c, RD_REPLY_OBJECTS, "elements");
    *out = r;
    return rc;
}

redisReply *
redis_command(redisContext *c, const char *format, ...)
{
    redisReply *r = NULL;
    va_list ap;
    int rc;

    va_start(ap, format);
    rc = redisvAppendCommand(c, format, ap);
    va_end(ap);
    if (rc == REDIS_OK)
        redis_reply(c, &r);
    return r;
}

redisReply *
redis_command_argv(redisContext *c, int argc, const char **argv, const size_t *lens)
{
    redisReply *r = NULL;

    if (redisAppendCommandArgv(c, argc, argv, lens) == REDIS_OK)
        redis_reply(c, &r);
    return r;
}
