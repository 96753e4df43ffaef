// memtest.hip - the VRAM pattern test (probe "memtest", check gpu.memtest).
// The buffer is n 32-bit words; word i of pattern (kind, arg) holds
// rvd_mt_value(kind, arg, i). src/gpu/memtest_ref.c computes the same values
// in C (the CPU backend's twin, and the reference tests/unit/test_memtest.c
// checks both against). Errors: a 64-bit count, and the first RVD_MT_FIRST
// (word index, expected, read) in the order the atomics hand out slots.
// flip_word/flip_mask: fault injection (ROCM_VLA_DOCTOR_MEMTEST_FLIP): the
// word read at flip_word has flip_mask XORed in, as a bit that flips in VRAM.

#define RVD_MT_FIRST 16

__device__ inline unsigned rvd_mt_value(unsigned kind, unsigned arg, rvd_u64 i)
{
    if (kind == 0) // walking ones: pass arg of 32 moves every word's one bit
        return 1u << (unsigned)((i + arg) & 31);
    if (kind == 1) // address in address (arg = 0) and its complement (~0)
        return (unsigned)(i ^ (i >> 32)) ^ arg;
    if (kind == 2) { // random: a counter hash of (seed arg, i)
        rvd_u64 z = i * 0x9e3779b97f4a7c15ull + arg;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return (unsigned)(z ^ (z >> 31));
    }
    return arg; // moving inversions: a constant, then its complement
}

__device__ inline void rvd_mt_error(rvd_u64 i, unsigned want, unsigned got, rvd_u64 *count,
                                    rvd_u64 *first_idx, unsigned *first_want, unsigned *first_got)
{
    rvd_u64 slot = atomicAdd(count, 1ull);
    if (slot < RVD_MT_FIRST) {
        first_idx[slot] = i;
        first_want[slot] = want;
        first_got[slot] = got;
    }
}

extern "C" __global__ void rvd_mt_fill(unsigned *buf, rvd_u64 n, unsigned kind, unsigned arg)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        buf[i] = rvd_mt_value(kind, arg, i);
}

// verify every word; with invert != 0 write its complement back (one step of
// moving inversions: read P, write ~P)
extern "C" __global__ void rvd_mt_check(unsigned *buf, rvd_u64 n, unsigned kind, unsigned arg,
                                        int invert, rvd_u64 flip_word, unsigned flip_mask,
                                        rvd_u64 *count, rvd_u64 *first_idx, unsigned *first_want,
                                        unsigned *first_got)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        unsigned want = rvd_mt_value(kind, arg, i);
        unsigned got = ((volatile unsigned *)buf)[i];
        if (i == flip_word)
            got ^= flip_mask;
        if (got != want)
            rvd_mt_error(i, want, got, count, first_idx, first_want, first_got);
        if (invert)
            buf[i] = ~want;
    }
}
