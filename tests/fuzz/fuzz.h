/*
 * fuzz: what the libFuzzer targets share. Each tests/fuzz/fuzz_NAME.c
 * defines LLVMFuzzerTestOneInput; its seeds are in tests/fuzz/corpus/NAME.
 * `make fuzz` runs each for FUZZ_SECONDS; `make check` replays the corpus.
 */
#ifndef BENCHTOP_FUZZ_H
#define BENCHTOP_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (parsers of text get C strings). */
static inline char *
fuzz_text(const uint8_t *data, size_t size)
{
    char *s = xmalloc(size + 1);

    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* n bytes as a file (a memfd) named in path, for readers of paths; its fd, or -1. */
static inline int
fuzz_file(const uint8_t *data, size_t n, char *path, size_t len)
{
    int fd = memfd_create("fuzz", 0);

    if (fd < 0 || write(fd, data, n) != (ssize_t)n) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

#endif
