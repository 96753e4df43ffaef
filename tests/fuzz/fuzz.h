/* fuzz.h - shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c).
 *
 * Each harness defines LLVMFuzzerTestOneInput() and nothing else that
 * libFuzzer needs, so the same file links against libFuzzer (`make fuzz`,
 * clang) or against replay_main.c (`make test`, gcc: every corpus file and
 * every crash reproducer replayed once, no fuzzing). */
#ifndef RVD_FUZZ_H
#define RVD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the input as a NUL-terminated string (the parsers that take C strings);
 * bytes after an embedded NUL are simply not seen by them */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* the next part of an input made of parts separated by NUL bytes (harnesses
 * that feed several parsers or several files from one input); NULL when
 * none is left. *pos advances past the separator. */
static inline char *fuzz_part(const uint8_t *data, size_t size, size_t *pos)
{
    if (*pos > size)
        return NULL;
    const uint8_t *start = data + *pos;
    const uint8_t *nul = memchr(start, 0, size - *pos);
    size_t n = nul ? (size_t)(nul - start) : size - *pos;
    *pos += n + 1;
    return fuzz_cstr(start, n);
}

#endif
