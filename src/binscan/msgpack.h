/* msgpack.h - a bounds-checked, read-only msgpack reader.
 *
 * Used on the NT_AMDGPU_METADATA note of AMDGPU code objects (LLVM
 * AMDGPUUsage, "Code Object V3 Metadata" and later: the note is one msgpack
 * map). Only reading, in place: a cursor over the buffer; every length read
 * is checked against the bytes left, nesting is capped, so a corrupt note is
 * an error, never a crash or an unbounded recursion. Format: the msgpack
 * specification (github.com/msgpack/msgpack/blob/master/spec.md). */
#ifndef RVD_BINSCAN_MSGPACK_H
#define RVD_BINSCAN_MSGPACK_H

#include <stddef.h>
#include <stdint.h>

enum mp_type {
    MP_NIL,
    MP_BOOL,
    MP_UINT,
    MP_INT,
    MP_FLOAT,
    MP_STR,
    MP_BIN,
    MP_ARRAY,
    MP_MAP,
    MP_EXT
};

struct mp_reader {
    const unsigned char *p;
    size_t n, pos;
};

/* one value's head: for STR/BIN/EXT `len` bytes at `data`; for ARRAY/MAP
 * `len` elements (pairs for a map) follow; for UINT/BOOL `u`, INT `i`,
 * FLOAT `f` */
struct mp_value {
    enum mp_type type;
    uint64_t len;
    const unsigned char *data;
    uint64_t u;
    int64_t i;
    double f;
};

/* read the next value's head; 0, or -1 (truncated or reserved byte 0xc1) */
int mp_next(struct mp_reader *r, struct mp_value *v);
/* skip one whole value (its elements too); 0 or -1 (also past 64 levels) */
int mp_skip(struct mp_reader *r);
/* 1 when v is a string equal to s */
int mp_str_is(const struct mp_value *v, const char *s);
/* v as an unsigned integer (a non-negative INT too): 0, or -1 */
int mp_as_u64(const struct mp_value *v, uint64_t *out);

#endif
