// fp_numerics.hip - kernels of the numerics probes (fp.correctness,
// fp.sampling, gpu.gemm_peak). One source for HIP and CUDA: the device's own
// float->fp16/bf16 conversion and fp16 arithmetic are reached through
// clang's _Float16 on HIP and PTX instructions (cvt.rn.f16.f32,
// cvt.rn.bf16.f32 from sm_80, mul.rn.f16) on CUDA, so that no vendor
// half/bfloat16 header is needed. bf16 on HIP is the software RNE below
// (gfx9-gfx11 have no float->bf16 instruction; PyTorch converts the same way).

#ifdef RVD_CUDA
#if __CUDA_ARCH__ >= 800
#define RVD_BF16_HW 1
#endif
#endif

// the device's float -> fp16 conversion, round to nearest even
__device__ inline rvd_u16 rvd_f2h_rn(float x)
{
#ifdef RVD_HIP
    union {
        _Float16 h;
        rvd_u16 u;
    } c;
    c.h = (_Float16)x;
    return c.u;
#else
    unsigned short r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x));
    return r;
#endif
}

__device__ inline rvd_u16 rvd_f2bf_sw(float f)
{
    unsigned x = __float_as_uint(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (rvd_u16)((x >> 16) | 0x40);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (rvd_u16)(x >> 16);
}

__device__ inline rvd_u16 rvd_f2bf_rn(float x)
{
#ifdef RVD_BF16_HW
    unsigned short r;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(x));
    return r;
#else
    return rvd_f2bf_sw(x);
#endif
}

// fp16 multiply in the device's fp16 arithmetic
__device__ inline rvd_u16 rvd_hmul(rvd_u16 a, rvd_u16 b)
{
#ifdef RVD_HIP
    union {
        _Float16 h;
        rvd_u16 u;
    } x, y, r;
    x.u = a;
    y.u = b;
    r.h = x.h * y.h;
    return r.u;
#else
    unsigned short r;
    asm("mul.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
    return r;
#endif
}

// a value rounded to fp16 and back: one fp16 operation when applied to the
// fp32 result of an fp32 operation on fp16 inputs (24 >= 2*11 + 2 bits, so the
// double rounding is innocuous for + - * /)
__device__ inline float rvd_f16r(float x)
{
    return rvd_half_to_float(rvd_f2h_rn(x));
}

// 0 when compiled with a bf16 conversion instruction, 1 for the software one
extern "C" __global__ void rvd_fp_info(int *out)
{
#ifdef RVD_BF16_HW
    out[0] = 0;
#else
    out[0] = 1;
#endif
}

extern "C" __global__ void rvd_fp_convert(const float *x, rvd_u16 *h, rvd_u16 *bf, int n)
{
    for (rvd_u64 i = RVD_TID; i < (rvd_u64)n; i += RVD_NTHREADS) {
        h[i] = rvd_f2h_rn(x[i]);
        bf[i] = rvd_f2bf_rn(x[i]);
    }
}

// in[]: {1e-40f, 1.0f, 65504, 2, NaN, 1, -1, 1e38, 10}; h[]: fp16 {2^-24, 1.0,
// 65504, 2.0}; results into out[] and oh[] (see probe_fp.c for the layout).
// Inputs come from memory so the compiler cannot fold them.
extern "C" __global__ void rvd_fp_special(const float *in, const rvd_u16 *h, float *out,
                                          rvd_u16 *oh)
{
    if (RVD_TID != 0)
        return;
    float nan = in[4], one = in[5], mone = in[6];
    out[0] = in[0] * in[1];            // fp32 denormal times 1
    out[1] = in[0] + in[0];            // fp32 denormal add
    out[2] = fminf(nan, one);          // IEEE 754-2008 minNum: 1
    out[3] = fminf(one, nan);
    out[4] = fmaxf(nan, one);
    out[5] = fmaxf(one, nan);
    out[6] = fminf(fmaxf(nan, mone), one);                     // clamp via min/max
    out[7] = nan < mone ? mone : (nan > one ? one : nan);      // clamp via compares
    out[8] = in[7] * in[8];                                    // fp32 overflow: inf
    out[9] = rvd_bf16_to_float(rvd_f2bf_rn(in[2] * in[3]));    // 65504*2 in bf16
    oh[0] = rvd_hmul(h[0], h[1]);                              // fp16 denormal times 1
    oh[1] = rvd_hmul(h[2], h[3]);                              // 65504 * 2 in fp16
    oh[2] = rvd_f2h_rn(in[2] * in[3]);                         // 131008f -> fp16
    out[10] = rvd_half_to_float(h[0]);                         // fp16 denormal widened
}

// attention with fp32 logits and max subtraction: Q, K, V fp16 [heads][seq][d],
// one block per (head, query row), blockDim.x >= d, seq <= 1024; O fp32
extern "C" __global__ void rvd_fp_attention(const rvd_u16 *Q, const rvd_u16 *K, const rvd_u16 *V,
                                            float *O, int seq, int d, float scale)
{
    __shared__ float s[1024];
    __shared__ float red[2];
    int h = blockIdx.x / seq, i = blockIdx.x % seq;
    const rvd_u16 *q = Q + ((rvd_u64)h * seq + i) * d;
    for (int j = threadIdx.x; j < seq; j += blockDim.x) {
        const rvd_u16 *k = K + ((rvd_u64)h * seq + j) * d;
        float acc = 0.0f;
        for (int t = 0; t < d; t++)
            acc = fmaf(rvd_half_to_float(q[t]), rvd_half_to_float(k[t]), acc);
        s[j] = acc * scale;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float m = -3.402823466e38f;
        for (int j = 0; j < seq; j++)
            m = fmaxf(m, s[j]);
        float sum = 0.0f;
        for (int j = 0; j < seq; j++) {
            s[j] = expf(s[j] - m);
            sum += s[j];
        }
        red[0] = sum;
    }
    __syncthreads();
    for (int t = threadIdx.x; t < d; t += blockDim.x) {
        float acc = 0.0f;
        for (int j = 0; j < seq; j++)
            acc = fmaf(s[j], rvd_half_to_float(V[((rvd_u64)h * seq + j) * d + t]), acc);
        O[((rvd_u64)h * seq + i) * d + t] = acc / red[0];
    }
}

// the naive path, for information: every operation in fp16 (logits, exp,
// sum, output) and no max subtraction
extern "C" __global__ void rvd_fp_attention_naive(const rvd_u16 *Q, const rvd_u16 *K,
                                                  const rvd_u16 *V, float *O, int seq, int d,
                                                  float scale)
{
    __shared__ float s[1024];
    __shared__ float red[2];
    int h = blockIdx.x / seq, i = blockIdx.x % seq;
    const rvd_u16 *q = Q + ((rvd_u64)h * seq + i) * d;
    float sc = rvd_f16r(scale);
    for (int j = threadIdx.x; j < seq; j += blockDim.x) {
        const rvd_u16 *k = K + ((rvd_u64)h * seq + j) * d;
        float acc = 0.0f;
        for (int t = 0; t < d; t++)
            acc = rvd_f16r(acc + rvd_f16r(rvd_half_to_float(q[t]) * rvd_half_to_float(k[t])));
        s[j] = rvd_f16r(acc * sc);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int j = 0; j < seq; j++) {
            s[j] = rvd_f16r(expf(s[j]));
            sum = rvd_f16r(sum + s[j]);
        }
        red[0] = sum;
    }
    __syncthreads();
    for (int t = threadIdx.x; t < d; t += blockDim.x) {
        float acc = 0.0f;
        for (int j = 0; j < seq; j++)
            acc = rvd_f16r(acc + rvd_f16r(rvd_f16r(s[j] / red[0]) *
                                          rvd_half_to_float(V[((rvd_u64)h * seq + j) * d + t])));
        O[((rvd_u64)h * seq + i) * d + t] = acc;
    }
}

// deterministic tree reduction: partial[blockIdx] = sum of a fixed strided
// subset; blockDim.x must be 256. Run twice (n partials, then grid 1).
extern "C" __global__ void rvd_fp_reduce(const float *x, int n, float *partial)
{
    __shared__ float sh[256];
    float acc = 0.0f;
    for (rvd_u64 i = RVD_TID; i < (rvd_u64)n; i += RVD_NTHREADS)
        acc += x[i];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w)
            sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sh[0];
}

// the same sums combined with atomicAdd: order depends on scheduling
extern "C" __global__ void rvd_fp_reduce_atomic(const float *x, int n, float *out)
{
    float acc = 0.0f;
    for (rvd_u64 i = RVD_TID; i < (rvd_u64)n; i += RVD_NTHREADS)
        acc += x[i];
    atomicAdd(out, acc);
}

// ---- counter-based RNG (src/gpu/fp_ref.c has the same) ----
__device__ inline rvd_u64 rvd_rng_u64(rvd_u64 seed, rvd_u64 counter)
{
    rvd_u64 z = seed + (counter + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ inline float rvd_rng_uniform(rvd_u64 seed, rvd_u64 counter)
{
    return (float)(rvd_rng_u64(seed, counter) >> 40) * 5.9604644775390625e-08f;
}

// inverse-CDF sampling: row r of p[rows][k] (unnormalised, >= 0), per_row
// samples each; sample s of row r uses counter r * per_row + s
extern "C" __global__ void rvd_fp_sample(const float *p, int k, int rows, int per_row,
                                         rvd_u64 seed, int *out)
{
    rvd_u64 total_n = (rvd_u64)rows * per_row;
    for (rvd_u64 t = RVD_TID; t < total_n; t += RVD_NTHREADS) {
        const float *pr = p + (t / per_row) * k;
        float tot = 0.0f;
        int last = 0;
        for (int j = 0; j < k; j++) {
            tot += pr[j];
            if (pr[j] > 0.0f)
                last = j;
        }
        float target = rvd_rng_uniform(seed, t) * tot, c = 0.0f;
        int idx = last; // rounding can leave target >= the running sum's end
        for (int j = 0; j < k; j++) {
            c += pr[j];
            if (target < c) {
                idx = j;
                break;
            }
        }
        out[t] = idx;
    }
}

// GEMM input fill: multiples of 1/128 in [-1, 1), exact in every format
__device__ inline float rvd_rng_fill(rvd_u64 seed, rvd_u64 counter)
{
    return (float)((int)(rvd_rng_u64(seed, counter) >> 56) - 128) / 128.0f;
}

// dtype: 0 fp32, 1 fp16, 2 bf16 (enum gpu_dtype)
extern "C" __global__ void rvd_fp_fill(void *out, rvd_u64 n, rvd_u64 seed, int dtype)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        float v = rvd_rng_fill(seed, i);
        if (dtype == 0)
            ((float *)out)[i] = v;
        else if (dtype == 1)
            ((rvd_u16 *)out)[i] = rvd_f2h_rn(v);
        else
            ((rvd_u16 *)out)[i] = rvd_f2bf_sw(v);
    }
}
