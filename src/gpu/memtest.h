/* memtest.h - the VRAM pattern test's sequence and its C twin.
 *
 * The buffer is n 32-bit words. Patterns, in order: walking ones (32 passes,
 * word i = 1 << ((i + pass) mod 32)), address in address (word i = i, then its
 * complement), random (a counter hash of a seed and i), moving inversions
 * (constant P written, then each word verified and inverted, verified and
 * inverted back, verified; P = 0 and 0x55555555). Each pass writes the whole
 * buffer, then verifies it (so aliasing between addresses shows). The
 * operations come from the GPU (kernels/memtest.hip) or from the C twin
 * below (the CPU backend's test devices): the sequence, the error record and
 * the time bound are shared. */
#ifndef RVD_MEMTEST_H
#define RVD_MEMTEST_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

#define MEMTEST_FIRST 16 /* failing words recorded per verify pass (RVD_MT_FIRST) */

/* what one verify pass found: the count, and the first MEMTEST_FIRST */
struct memtest_check {
    uint64_t count;
    uint64_t word[MEMTEST_FIRST];
    uint32_t want[MEMTEST_FIRST], got[MEMTEST_FIRST];
};

struct memtest_ops {
    int (*fill)(void *ctx, unsigned kind, unsigned arg);
    /* verify every word against (kind, arg); invert: write ~expected back */
    int (*check)(void *ctx, unsigned kind, unsigned arg, int invert, struct memtest_check *out);
    void *ctx;
};

struct memtest_result {
    uint64_t errors;      /* mismatched words, over every verify pass */
    struct strlist first; /* the first failing words (each once), described */
    uint64_t words[MEMTEST_FIRST];
    size_t nwords;         /* the words in first */
    struct strlist failed; /* names of the patterns with errors */
    struct strlist run;    /* names of the patterns completed */
    int complete;          /* every pattern ran within the time bound */
    double seconds, bytes; /* time and bytes written + read */
};

/* the sequence on n words at device address base (for the report); stops
 * starting patterns after time_bound_s. 0, or -1 when an operation failed
 * (then *err). Release r with memtest_result_release. */
int memtest_run(const struct memtest_ops *ops, uint64_t n, uint64_t base, double time_bound_s,
                struct memtest_result *r, char *err, size_t err_len);
void memtest_result_release(struct memtest_result *r);

/* the C twin of kernels/memtest.hip (same values, same flip) */
uint32_t memtest_value(unsigned kind, unsigned arg, uint64_t i);
void memtest_cpu_fill(uint32_t *buf, uint64_t n, unsigned kind, unsigned arg);
void memtest_cpu_check(uint32_t *buf, uint64_t n, unsigned kind, unsigned arg, int invert,
                       uint64_t flip_word, uint32_t flip_mask, struct memtest_check *out);

/* ROCM_VLA_DOCTOR_MEMTEST_FLIP=OFFSET[:BIT][@DEVICE] (test hook): bit BIT
 * (0-7, default 0) of the byte at byte offset OFFSET reads flipped in every
 * verify pass (little-endian words: the word at OFFSET & ~3), on runtime
 * device DEVICE only when given. 1 with *word and *mask set, 0 when unset or
 * for another device, -1 when malformed. */
int memtest_flip_hook(int device, uint64_t *word, uint32_t *mask);

#endif
