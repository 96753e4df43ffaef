// prelude.hip - prepended to every kernel source before run-time compilation
// (hiprtc or NVRTC). It maps the few differences between HIP and CUDA so that
// one source serves both. fp16/bf16 travel as raw 16-bit words and are
// converted here with bit operations: no vendor half/bfloat16 header (their
// names and availability under hiprtc differ between ROCm releases).
#if defined(__HIPCC_RTC__) || defined(__HIP__) || defined(__HIPCC__)
#define RVD_HIP 1
#else
#define RVD_CUDA 1
#endif
// a warp's lanes and the xor shuffle within it: CUDA's warp is 32 lanes
// and its shuffle takes a mask; HIP's wavefront is 64 (CDNA) or 32 (RDNA
// in wave32) lanes, the builtin warpSize
#ifdef RVD_HIP
#define RVD_WARP warpSize
#define RVD_SHFL_XOR(v, m) __shfl_xor((v), (m))
#else
#define RVD_WARP 32
#define RVD_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))
#endif
typedef unsigned short rvd_u16;
typedef unsigned long long rvd_u64;
#define RVD_TID ((rvd_u64)blockIdx.x * blockDim.x + threadIdx.x)
#define RVD_NTHREADS ((rvd_u64)gridDim.x * blockDim.x)

__device__ inline float rvd_bf16_to_float(rvd_u16 h)
{
    return __uint_as_float((unsigned)h << 16);
}

__device__ inline float rvd_half_to_float(rvd_u16 h)
{
    unsigned s = (unsigned)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0) { // zero or subnormal: m * 2^-24
        float v = (float)m * 5.9604644775390625e-8f;
        return s ? -v : v;
    }
    if (e == 31)
        return __uint_as_float(s | 0x7f800000u | (m << 13));
    return __uint_as_float(s | ((e + 112) << 23) | (m << 13));
}
