// vla_ops.hip - the kernels of the VLA pass on a GPU (src/vla/ops_gpu.c).
// One source for HIP and CUDA (prelude.hip). Activations are fp32; the
// reduced-precision path converts GEMM inputs to 16-bit words (vla_cvt16)
// and keeps norms, softmax, RoPE, the time embedding and the integrator in
// fp32 (docs/VLA.md, VLA-PRESETS.md "Keep in fp32"). Every kernel takes a
// 1-D grid; element-wise kernels use grid-stride loops. Block reductions
// shuffle within a warp of RVD_WARP lanes (prelude.hip: 32 on NVIDIA, the
// device's warpSize on AMD) and meet in shared memory.
#define VLA_BLOCK 256

// ---- conversions -----------------------------------------------------

__device__ inline rvd_u16 vla_f2bf(float f)
{
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) // NaN stays NaN
        return (rvd_u16)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1); // round to nearest even
    return (rvd_u16)(u >> 16);
}

__device__ inline rvd_u16 vla_f2h(float f)
{
    unsigned u = __float_as_uint(f), s = (u >> 16) & 0x8000u;
    unsigned a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (rvd_u16)(s | 0x7e00u);
    if (a >= 0x477ff000u) // rounds to >= 65520: overflow to inf
        return (rvd_u16)(s | 0x7c00u);
    if (a < 0x38800000u) { // subnormal half (or zero): a / 2^-24, rounded to even
        float v = __uint_as_float(a) * 16777216.0f;
        unsigned m = (unsigned)v;
        float r = v - (float)m;
        if (r > 0.5f || (r == 0.5f && (m & 1)))
            m++;
        return (rvd_u16)(s | m);
    }
    unsigned e = (a >> 23) - 112, m = a & 0x7fffffu;
    unsigned h = (e << 10) | (m >> 13), rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return (rvd_u16)(s | h);
}

// y[r, c] = 16-bit(x[r, c]) for rows x cols, leading dimensions ldx, ldy
extern "C" __global__ void vla_cvt16(const float *x, long ldx, rvd_u16 *y, long ldy, int rows,
                                     int cols, int bf)
{
    rvd_u64 n = (rvd_u64)rows * cols;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        rvd_u64 r = i / cols, c = i % cols;
        float v = x[r * ldx + c];
        y[r * ldy + c] = bf ? vla_f2bf(v) : vla_f2h(v);
    }
}

// the three attention operands in one launch: ya/yb/yc[r, c] = 16-bit of
// a/b/c[r, c] (leading dimensions lda/ldb/ldc in, dense out; rows ra/rb/rc
// of ca/cb/cc columns)
extern "C" __global__ void vla_cvt16x3(const float *a, long lda, rvd_u16 *ya, int ra, int ca,
                                       const float *b, long ldb, rvd_u16 *yb, int rb, int cb,
                                       const float *c, long ldc, rvd_u16 *yc, int rc, int cc,
                                       int bf)
{
    rvd_u64 na = (rvd_u64)ra * ca, nb = (rvd_u64)rb * cb, n = na + nb + (rvd_u64)rc * cc;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        const float *x = a;
        rvd_u16 *y = ya;
        long ld = lda;
        int cols = ca;
        rvd_u64 j = i;
        if (j >= na + nb) {
            x = c, y = yc, ld = ldc, cols = cc, j -= na + nb;
        } else if (j >= na) {
            x = b, y = yb, ld = ldb, cols = cb, j -= na;
        }
        rvd_u64 r = j / cols, col = j % cols;
        float v = x[r * ld + col];
        y[j] = bf ? vla_f2bf(v) : vla_f2h(v);
    }
}

// ---- the counter RNG (src/vla/rng.c), in double as on the CPU ---------

__device__ inline rvd_u64 vla_mix(rvd_u64 z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ inline rvd_u64 vla_bits(rvd_u64 key, rvd_u64 j)
{
    return vla_mix(key + (j + 1) * 0x9E3779B97F4A7C15ull);
}

// out[i] = mean + scale * normal(i)  (normal: 1) or lo + (hi - lo) uniform(i)
extern "C" __global__ void vla_rng_fill(float *out, rvd_u64 n, rvd_u64 key, double a, double b,
                                        int normal)
{
    const double two53 = 1.0 / 9007199254740992.0;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        double v;
        if (normal) {
            double u1 = ((double)(vla_bits(key, 2 * i) >> 11) + 0.5) * two53;
            double u2 = (double)(vla_bits(key, 2 * i + 1) >> 11) * two53;
            v = a + b * (sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
        } else {
            v = a + (b - a) * ((double)(vla_bits(key, i) >> 11) * two53);
        }
        out[i] = (float)v;
    }
}

// ---- element-wise ----------------------------------------------------

// y[i, j] += b[j] over M rows of N
extern "C" __global__ void vla_bias(float *y, const float *b, int M, int N)
{
    rvd_u64 n = (rvd_u64)M * N;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        y[i] += b[i % N];
}

// y += a * x (a = 1: add); y16 (may be NULL): the result in 16 bits too (the
// integrator state x_t, which the next step's first GEMM reads)
extern "C" __global__ void vla_axpy(float *y, const float *x, float a, rvd_u64 n, rvd_u16 *y16,
                                    int bf)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        float v = y[i] + a * x[i];
        y[i] = v;
        if (y16)
            y16[i] = bf ? vla_f2bf(v) : vla_f2h(v);
    }
}

extern "C" __global__ void vla_scale(float *x, float s, rvd_u64 n)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        x[i] *= s;
}

__device__ inline float vla_gelu_tanh(float x)
{
    return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}

__device__ inline float vla_silu(float x)
{
    return x / (1.0f + expf(-x));
}

// the 16-bit copy a GEMM reads next, written by the producer itself (one
// kernel less per GEMM input: ops_gpu.c's "shadow" copies); NULL: none
__device__ inline void vla_put16(rvd_u16 *y16, rvd_u64 i, float v, int bf)
{
    if (y16)
        y16[i] = bf ? vla_f2bf(v) : vla_f2h(v);
}

// act 0: gelu_tanh, 1: silu (in place); y16: also its 16-bit copy
extern "C" __global__ void vla_act(float *x, rvd_u64 n, int act, rvd_u16 *y16, int bf)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        float v = act ? vla_silu(x[i]) : vla_gelu_tanh(x[i]);
        x[i] = v;
        vla_put16(y16, i, v, bf);
    }
}

// out[t, f] = act(gate[t, f]) * up[t, f]; gate/up rows of ld; act 1 = silu;
// y16: also its 16-bit copy
extern "C" __global__ void vla_glu(const float *gate, const float *up, float *out, int T, int F,
                                   int ld, int act, rvd_u16 *y16, int bf)
{
    rvd_u64 n = (rvd_u64)T * F;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        rvd_u64 t = i / F, f = i % F;
        float g = gate[t * ld + f];
        g = act ? vla_silu(g) : vla_gelu_tanh(g);
        float v = g * up[t * ld + f];
        out[i] = v;
        vla_put16(y16, i, v, bf);
    }
}

// gated_mlp's GLU on 16-bit words: out16[t, f] = act(gate[t, f]) * up[t, f]
// with gate = gu[t, 0..F), up = gu[t, F..2F) (the gate/up GEMM's 16-bit
// output, rows of 2F), written only in 16 bits (the down GEMM's operand):
// a third of vla_glu's bytes. vec: F a multiple of 8 and gu, out 16-byte
// aligned (the host checks), eight elements a thread in 16-byte loads and
// stores; else one. The row and column come from one 32-bit division per
// eight elements (T * F / 8 < 2^32 for every preset), not a 64-bit one per
// element, which bounded vla_glu in the prefix.
struct __attribute__((aligned(16))) vla_w8 {
    unsigned w[4];
};

__device__ inline float vla_from16(rvd_u16 h, int bf)
{
    return bf ? rvd_bf16_to_float(h) : rvd_half_to_float(h);
}

__device__ inline float vla_glu1(rvd_u16 g, rvd_u16 u, int act, int bf)
{
    float x = vla_from16(g, bf);
    return (act ? vla_silu(x) : vla_gelu_tanh(x)) * vla_from16(u, bf);
}

extern "C" __global__ void vla_glu16(const rvd_u16 *gu, rvd_u16 *out, int T, int F, int act,
                                     int bf, int vec)
{
    unsigned per = vec ? 8u : 1u, nc = (unsigned)F / per, n = (unsigned)T * nc;
    for (unsigned i = (unsigned)RVD_TID; i < n; i += (unsigned)RVD_NTHREADS) {
        unsigned t = i / nc, c = (i - t * nc) * per;
        const rvd_u16 *g = gu + (rvd_u64)t * 2 * F + c;
        rvd_u16 *o = out + (rvd_u64)t * F + c;
        if (!vec) {
            *o = bf ? vla_f2bf(vla_glu1(g[0], g[F], act, bf))
                    : vla_f2h(vla_glu1(g[0], g[F], act, bf));
            continue;
        }
        struct vla_w8 a = *(const struct vla_w8 *)g, b = *(const struct vla_w8 *)(g + F), r;
        for (int k = 0; k < 4; k++) {
            rvd_u16 lo = (rvd_u16)(a.w[k] & 0xffffu), hi = (rvd_u16)(a.w[k] >> 16);
            rvd_u16 ulo = (rvd_u16)(b.w[k] & 0xffffu), uhi = (rvd_u16)(b.w[k] >> 16);
            float v0 = vla_glu1(lo, ulo, act, bf), v1 = vla_glu1(hi, uhi, act, bf);
            unsigned r0 = bf ? vla_f2bf(v0) : vla_f2h(v0), r1 = bf ? vla_f2bf(v1) : vla_f2h(v1);
            r.w[k] = r0 | (r1 << 16);
        }
        *(struct vla_w8 *)o = r;
    }
}

// ---- norms: one block per row, fp32 sums ------------------------------

__device__ inline float vla_block_sum(float v, float *sh)
{
    // within each warp by shuffles (a warp is 32 lanes on NVIDIA, 64 or 32
    // on AMD: RVD_WARP), then the warps' partial sums through shared
    // memory: one barrier pair where a tree over the block took nine (the
    // norms of the denoising step, rows of a few thousand, were all
    // barriers). Every lane ends with the same sum, in the same order.
    for (int m = RVD_WARP / 2; m > 0; m >>= 1)
        v += RVD_SHFL_XOR(v, m);
    if ((int)threadIdx.x % RVD_WARP == 0)
        sh[threadIdx.x / RVD_WARP] = v;
    __syncthreads();
    float r = 0;
    for (int i = 0; i < (int)blockDim.x / RVD_WARP; i++)
        r += sh[i];
    __syncthreads();
    return r;
}

extern "C" __global__ void vla_layernorm(const float *x, const float *w, const float *b, float *y,
                                         int T, int D, float eps, rvd_u16 *y16, int bf)
{
    __shared__ float sh[VLA_BLOCK];
    for (int t = blockIdx.x; t < T; t += gridDim.x) {
        const float *r = x + (rvd_u64)t * D;
        float s = 0;
        for (int i = threadIdx.x; i < D; i += VLA_BLOCK)
            s += r[i];
        float mean = vla_block_sum(s, sh) / (float)D;
        s = 0;
        for (int i = threadIdx.x; i < D; i += VLA_BLOCK)
            s += (r[i] - mean) * (r[i] - mean);
        float inv = 1.0f / sqrtf(vla_block_sum(s, sh) / (float)D + eps);
        for (int i = threadIdx.x; i < D; i += VLA_BLOCK) {
            float v = (r[i] - mean) * inv * w[i] + b[i];
            y[(rvd_u64)t * D + i] = v;
            vla_put16(y16, (rvd_u64)t * D + i, v, bf);
        }
    }
}

// 16-byte and 8-byte words of the vectorised row kernels (four fp32
// values, their four 16-bit copies): one load or store instruction where
// the scalar walk took four
struct __attribute__((aligned(16))) vla_f4 {
    float v[4];
};
struct __attribute__((aligned(8))) vla_h4 {
    unsigned w[2];
};

__device__ inline void vla_put16x4(rvd_u16 *y16, rvd_u64 i, const struct vla_f4 &o, int bf)
{
    struct vla_h4 h;
    for (int k = 0; k < 2; k++) {
        unsigned lo = bf ? vla_f2bf(o.v[2 * k]) : vla_f2h(o.v[2 * k]);
        unsigned hi = bf ? vla_f2bf(o.v[2 * k + 1]) : vla_f2h(o.v[2 * k + 1]);
        h.w[k] = lo | (hi << 16);
    }
    *(struct vla_h4 *)(y16 + i) = h;
}

// vec (D % 4 == 0, x, w, y 16-byte and y16 8-byte aligned: the host
// checks) and D <= VLA_RN_C * 4 * VLA_BLOCK: the row and the weights held
// in registers as 16-byte words, x read once (the scalar walk read it
// twice and the weights after the reduction: 9.75 us a prefix row block of
// 816 x 2048 against ~4 us of its bytes at copy bandwidth); else the
// scalar walk
#define VLA_RN_C 4
extern "C" __global__ void __launch_bounds__(VLA_BLOCK) vla_rmsnorm(const float *x, const float *w, float *y, int T, int D,
                                       float eps, rvd_u16 *y16, int bf, int vec)
{
    __shared__ float sh[VLA_BLOCK];
    int nc = D / 4;
    if (vec && nc <= VLA_RN_C * VLA_BLOCK) {
        for (int t = blockIdx.x; t < T; t += gridDim.x) {
            const struct vla_f4 *r = (const struct vla_f4 *)(x + (rvd_u64)t * D);
            struct vla_f4 v[VLA_RN_C], g[VLA_RN_C];
            float s = 0;
#pragma unroll
            for (int k = 0; k < VLA_RN_C; k++) {
                int c = k * VLA_BLOCK + (int)threadIdx.x;
                if (c < nc) {
                    v[k] = r[c];
                    g[k] = ((const struct vla_f4 *)w)[c];
                    for (int e = 0; e < 4; e++)
                        s += v[k].v[e] * v[k].v[e];
                }
            }
            float inv = 1.0f / sqrtf(vla_block_sum(s, sh) / (float)D + eps);
#pragma unroll
            for (int k = 0; k < VLA_RN_C; k++) {
                int c = k * VLA_BLOCK + (int)threadIdx.x;
                if (c < nc) {
                    struct vla_f4 o;
                    for (int e = 0; e < 4; e++)
                        o.v[e] = v[k].v[e] * inv * g[k].v[e];
                    rvd_u64 i = (rvd_u64)t * D + 4 * (rvd_u64)c;
                    *(struct vla_f4 *)(y + i) = o;
                    if (y16)
                        vla_put16x4(y16, i, o, bf);
                }
            }
        }
        return;
    }
    for (int t = blockIdx.x; t < T; t += gridDim.x) {
        const float *r = x + (rvd_u64)t * D;
        float s = 0;
        for (int i = threadIdx.x; i < D; i += VLA_BLOCK)
            s += r[i] * r[i];
        float inv = 1.0f / sqrtf(vla_block_sum(s, sh) / (float)D + eps);
        for (int i = threadIdx.x; i < D; i += VLA_BLOCK) {
            float v = r[i] * inv * w[i];
            y[(rvd_u64)t * D + i] = v;
            vla_put16(y16, (rvd_u64)t * D + i, v, bf);
        }
    }
}

// ---- RoPE (rotate-half), angle in double, rotation in fp32 ------------

extern "C" __global__ void vla_rope(float *x, int T, int heads, int hd, int stride, int pos0,
                                    double theta)
{
    int half = hd / 2;
    rvd_u64 n = (rvd_u64)T * half;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        int t = (int)(i / half), k = (int)(i % half);
        double ang = (double)(pos0 + t) * pow(theta, -2.0 * k / hd);
        float c = (float)cos(ang), s = (float)sin(ang);
        for (int h = 0; h < heads; h++) {
            float *r = x + (rvd_u64)t * stride + (rvd_u64)h * hd;
            float a = r[k], b = r[k + half];
            r[k] = a * c - b * s;
            r[k + half] = b * c + a * s;
        }
    }
}

// ---- softmax over rows (attention probabilities, fp32) -----------------

// S[r, :n] = softmax(S[r, :n] * scale); with p16, also its 16-bit copy.
// gs threads per row (a power of two dividing VLA_BLOCK), VLA_BLOCK / gs rows
// per block: rows of a few hundred (vision's 256 keys) would leave most of a
// whole block idle through each reduction. Every thread of the block walks
// the same number of row groups, so the barriers stay uniform.
extern "C" __global__ void vla_softmax(float *S, int rows, int n, float scale, rvd_u16 *p16,
                                       int bf, int gs)
{
    __shared__ float sh[VLA_BLOCK];
    int per = VLA_BLOCK / gs, lane = (int)threadIdx.x % gs, grp = (int)threadIdx.x / gs;
    float *g = sh + grp * gs;
    for (int r0 = (int)blockIdx.x * per; r0 < rows; r0 += (int)gridDim.x * per) {
        int r = r0 + grp, live = r < rows;
        float *row = S + (rvd_u64)(live ? r : 0) * n;
        float mx = -3.402823466e38f;
        for (int j = lane; live && j < n; j += gs)
            mx = fmaxf(mx, row[j] * scale);
        g[lane] = mx;
        __syncthreads();
        for (int s = gs / 2; s > 0; s >>= 1) {
            if (lane < s)
                g[lane] = fmaxf(g[lane], g[lane + s]);
            __syncthreads();
        }
        mx = g[0];
        __syncthreads();
        float sum = 0;
        for (int j = lane; live && j < n; j += gs)
            sum += expf(row[j] * scale - mx);
        g[lane] = sum;
        __syncthreads();
        for (int s = gs / 2; s > 0; s >>= 1) {
            if (lane < s)
                g[lane] += g[lane + s];
            __syncthreads();
        }
        float inv = 1.0f / g[0];
        __syncthreads();
        // the exponent again rather than a write and a read of S; with p16
        // only the 16-bit probabilities are written (all the next GEMM reads)
        for (int j = lane; live && j < n; j += gs) {
            float p = expf(row[j] * scale - mx) * inv;
            if (p16)
                p16[(rvd_u64)r * n + j] = bf ? vla_f2bf(p) : vla_f2h(p);
            else
                row[j] = p;
        }
    }
}

// S[r, :n] = softmax(S[r, :n] * scale); with p16 only its 16-bit copy is
// written (all the next GEMM reads), else S in place. One warp a row, no
// barrier (the rows of a block are independent): rows of up to 1024
// scores (VLA_SM_C a lane) are held in registers (vec: n % 4 == 0, S
// 16-byte and p16 8-byte aligned, in 16-byte words), so S is read once
// and the probabilities written once; a longer row keeps a running
// maximum and sum in one read pass, then reads the row again for the
// write. Launched only where the rows fill the device (ops_gpu_attn.c):
// vla_softmax above took 26 us a prefix call (6528 rows of 816) against
// ~8 us of its bytes, but spreads a step's 400 rows over 400 blocks where
// this takes 50 (8.0 against 6.9 us a step call, H200).
#define VLA_SM_C (1024 / RVD_WARP)
__device__ inline float vla_warp_max(float v)
{
    for (int m = RVD_WARP / 2; m > 0; m >>= 1)
        v = fmaxf(v, RVD_SHFL_XOR(v, m));
    return v;
}

__device__ inline float vla_warp_sum(float v)
{
    for (int m = RVD_WARP / 2; m > 0; m >>= 1)
        v += RVD_SHFL_XOR(v, m);
    return v;
}

__device__ inline void vla_sm_put(float *row, rvd_u16 *p, int j, float v, int bf)
{
    if (p)
        p[j] = bf ? vla_f2bf(v) : vla_f2h(v);
    else
        row[j] = v;
}

extern "C" __global__ void __launch_bounds__(VLA_BLOCK) vla_softmax_warp(float *S, int rows, int n, float scale, rvd_u16 *p16,
                                       int bf, int vec)
{
    const float lo = -3.402823466e38f;
    int lane = (int)threadIdx.x % RVD_WARP, wpb = (int)blockDim.x / RVD_WARP;
    for (int r = (int)blockIdx.x * wpb + (int)threadIdx.x / RVD_WARP; r < rows;
         r += (int)gridDim.x * wpb) {
        float *row = S + (rvd_u64)r * n;
        rvd_u16 *p = p16 ? p16 + (rvd_u64)r * n : (rvd_u16 *)0;
        float v[VLA_SM_C], mx = lo;
        if (n > VLA_SM_C * RVD_WARP) { // online: max and sum in one pass
            float sum = 0;
            for (int j = lane; j < n; j += RVD_WARP) {
                float x = row[j] * scale;
                if (x > mx) {
                    sum *= expf(mx - x);
                    mx = x;
                }
                sum += expf(x - mx);
            }
            float m = vla_warp_max(mx);
            sum = vla_warp_sum(sum * expf(mx - m));
            float inv = 1.0f / sum;
            for (int j = lane; j < n; j += RVD_WARP)
                vla_sm_put(row, p, j, expf(row[j] * scale - m) * inv, bf);
            continue;
        }
        if (vec) {
#pragma unroll
            for (int k = 0; k < VLA_SM_C / 4; k++) {
                int j = (k * RVD_WARP + lane) * 4;
                struct vla_f4 f = {{0, 0, 0, 0}};
                if (j < n)
                    f = *(const struct vla_f4 *)(row + j);
                for (int e = 0; e < 4; e++) {
                    v[4 * k + e] = j < n ? f.v[e] * scale : lo;
                    mx = fmaxf(mx, v[4 * k + e]);
                }
            }
        } else {
#pragma unroll
            for (int k = 0; k < VLA_SM_C; k++) {
                int j = k * RVD_WARP + lane;
                v[k] = j < n ? row[j] * scale : lo;
                mx = fmaxf(mx, v[k]);
            }
        }
        mx = vla_warp_max(mx);
        float sum = 0;
#pragma unroll
        for (int k = 0; k < VLA_SM_C; k++) {
            v[k] = expf(v[k] - mx); // the padding's -FLT_MAX becomes 0
            sum += v[k];
        }
        float inv = 1.0f / vla_warp_sum(sum);
        if (vec) {
#pragma unroll
            for (int k = 0; k < VLA_SM_C / 4; k++) {
                int j = (k * RVD_WARP + lane) * 4;
                if (j >= n)
                    continue;
                struct vla_f4 o;
                for (int e = 0; e < 4; e++)
                    o.v[e] = v[4 * k + e] * inv;
                if (p)
                    vla_put16x4(p, (rvd_u64)j, o, bf);
                else
                    *(struct vla_f4 *)(row + j) = o;
            }
        } else {
#pragma unroll
            for (int k = 0; k < VLA_SM_C; k++) {
                int j = k * RVD_WARP + lane;
                if (j < n)
                    vla_sm_put(row, p, j, v[k] * inv, bf);
            }
        }
    }
}

// ---- fused operations (src/vla/ops.h) ---------------------------------

// y[t, n] = act(y[t, n] + bias[n]); act 0 none, 1 gelu_tanh, 2 silu; y16:
// also the 16-bit copy
extern "C" __global__ void vla_bias_act(float *y, const float *bias, int T, int N, int act,
                                        rvd_u16 *y16, int bf)
{
    // the column advances by the stride mod N per element: one 64-bit
    // remainder per thread instead of one per element
    rvd_u64 n = (rvd_u64)T * N, S = RVD_NTHREADS;
    unsigned step = (unsigned)(S % (rvd_u64)N), col = (unsigned)(RVD_TID % (rvd_u64)N);
    for (rvd_u64 i = RVD_TID; i < n; i += S) {
        float v = y[i] + bias[col];
        v = act == 1 ? vla_gelu_tanh(v) : act == 2 ? vla_silu(v) : v;
        y[i] = v;
        vla_put16(y16, i, v, bf);
        col += step;
        col = col >= (unsigned)N ? col - (unsigned)N : col;
    }
}

// x[t] += bias (bias may be NULL), y = layernorm(x); one block per row. A
// thread reads back only the elements it wrote itself (same index walk).
// (Keeping rows of up to 2048 in registers instead was measured slower on
// the H200: 13.5 against 10.1 us a vision layernorm in bench --profile.)
extern "C" __global__ void vla_bias_layernorm(float *x, const float *bias, const float *w,
                                              const float *b, float *y, int T, int D, float eps,
                                              rvd_u16 *y16, int bf)
{
    __shared__ float sh[VLA_BLOCK];
    for (int t = blockIdx.x; t < T; t += gridDim.x) {
        float *r = x + (rvd_u64)t * D;
        float s = 0;
        for (int i = threadIdx.x; i < D; i += VLA_BLOCK) {
            float v = r[i];
            if (bias) {
                v += bias[i];
                r[i] = v;
            }
            s += v;
        }
        float mean = vla_block_sum(s, sh) / (float)D;
        s = 0;
        for (int i = threadIdx.x; i < D; i += VLA_BLOCK)
            s += (r[i] - mean) * (r[i] - mean);
        float inv = 1.0f / sqrtf(vla_block_sum(s, sh) / (float)D + eps);
        for (int i = threadIdx.x; i < D; i += VLA_BLOCK) {
            float v = (r[i] - mean) * inv * w[i] + b[i];
            y[(rvd_u64)t * D + i] = v;
            vla_put16(y16, (rvd_u64)t * D + i, v, bf);
        }
    }
}

// the fused QKV projection's rows [T, (H + 2 KV) hd] (q, k, v) -> q [T, H hd]
// and kv [T, 2 KV hd] (k then v), RoPE (rotate-half, angle in double) on q
// and k at positions pos0..; q16 / kv16 (each may be NULL): the same values
// in 16 bits, in q's and kv's layout (the attention GEMMs' operands, so no
// conversion kernel runs before them)
__device__ inline void vla_put(float *o, rvd_u16 *o16, rvd_u64 i, float v, int bf)
{
    o[i] = v;
    if (o16)
        o16[i] = bf ? vla_f2bf(v) : vla_f2h(v);
}

extern "C" __global__ void vla_rope_split(const float *qkv, int T, int H, int KV, int hd,
                                          int pos0, double theta, float *q, float *kv,
                                          rvd_u16 *q16, rvd_u16 *kv16, int bf)
{
    int half = hd / 2, qd = H * hd, kvd = 2 * KV * hd, ld = qd + kvd;
    rvd_u64 n = (rvd_u64)T * half;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        int t = (int)(i / half), k = (int)(i % half);
        double ang = (double)(pos0 + t) * pow(theta, -2.0 * k / hd);
        float c = (float)cos(ang), s = (float)sin(ang);
        const float *src = qkv + (rvd_u64)t * ld;
        for (int h = 0; h < H + KV; h++) { // q heads, then k heads
            const float *r = src + (rvd_u64)h * hd;
            rvd_u64 at = h < H ? (rvd_u64)t * qd + (rvd_u64)h * hd
                               : (rvd_u64)t * kvd + (rvd_u64)(h - H) * hd;
            float *o = h < H ? q : kv;
            rvd_u16 *o16 = h < H ? q16 : kv16;
            float a = r[k], b = r[k + half];
            vla_put(o, o16, at + k, a * c - b * s, bf);
            vla_put(o, o16, at + k + half, b * c + a * s, bf);
        }
        for (int h = 0; h < KV; h++) { // v unrotated
            const float *r = src + qd + (rvd_u64)(KV + h) * hd;
            rvd_u64 at = (rvd_u64)t * kvd + (rvd_u64)(KV + h) * hd;
            vla_put(kv, kv16, at + k, r[k], bf);
            vla_put(kv, kv16, at + k + half, r[k + half], bf);
        }
    }
}

// y16[t, n] = 16-bit(x[t, n] + bias[n]) (bias may be NULL), x read only:
// the vision QKV projection's output as the attention GEMMs' operand
// [T, 3, heads, hd] when the GEMM could not add the bias and round itself
extern "C" __global__ void vla_bias_cvt16(const float *x, const float *bias, int T, int N,
                                          rvd_u16 *y16, int bf)
{
    // the column advances by the stride mod N, as in vla_bias_act
    rvd_u64 n = (rvd_u64)T * N, S = RVD_NTHREADS;
    unsigned step = (unsigned)(S % (rvd_u64)N), col = (unsigned)(RVD_TID % (rvd_u64)N);
    for (rvd_u64 i = RVD_TID; i < n; i += S) {
        float v = x[i] + (bias ? bias[col] : 0.0f);
        y16[i] = bf ? vla_f2bf(v) : vla_f2h(v);
        col += step;
        col = col >= (unsigned)N ? col - (unsigned)N : col;
    }
}

// ---- vision helpers --------------------------------------------------

// img [3, S, S] -> patches [(S/p)^2, 3 p p] (channel, row, column)
// g <= S / p patches per side: the remainder pixels (right, bottom) are dropped
// nimg images [3, S, S] -> [nimg, g*g, 3*p*p]: every camera in one launch
extern "C" __global__ void vla_patchify(const float *img, float *out, int nimg, int S, int p,
                                        int g)
{
    int pp = 3 * p * p;
    rvd_u64 per = (rvd_u64)g * g * pp, n = per * nimg;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        rvd_u64 im = i / per, r = i % per;
        int tok = (int)(r / pp), e = (int)(r % pp);
        int gy = tok / g, gx = tok % g, c = e / (p * p), y = (e / p) % p, xx = e % p;
        out[i] = img[im * 3 * S * S + ((rvd_u64)c * S + gy * p + y) * S + gx * p + xx];
    }
}

// bilinear, half-pixel centres, edge-clamped; g0 == g1 copies
extern "C" __global__ void vla_pos_interp(const float *tab, int g0, float *out, int g1, int D)
{
    rvd_u64 n = (rvd_u64)g1 * g1 * D;
    double sc = (double)g0 / g1;
    for (rvd_u64 idx = RVD_TID; idx < n; idx += RVD_NTHREADS) {
        int i = (int)(idx % D), tok = (int)(idx / D), oy = tok / g1, ox = tok % g1;
        if (g0 == g1) {
            out[idx] = tab[idx];
            continue;
        }
        double sy = (oy + 0.5) * sc - 0.5, sx = (ox + 0.5) * sc - 0.5;
        sy = sy < 0 ? 0 : sy;
        sx = sx < 0 ? 0 : sx;
        int y0 = (int)sy, y1 = y0 + 1 < g0 ? y0 + 1 : g0 - 1;
        int x0 = (int)sx, x1 = x0 + 1 < g0 ? x0 + 1 : g0 - 1;
        float fy = (float)(sy - y0), fx = (float)(sx - x0);
        float a = tab[((rvd_u64)y0 * g0 + x0) * D + i], b = tab[((rvd_u64)y0 * g0 + x1) * D + i];
        float c = tab[((rvd_u64)y1 * g0 + x0) * D + i], d = tab[((rvd_u64)y1 * g0 + x1) * D + i];
        out[idx] = (1 - fy) * ((1 - fx) * a + fx * b) + fy * ((1 - fx) * c + fx * d);
    }
}

// [g*g, D] -> [(g/m)^2, m*m*D], m x m neighbours concatenated row-major
extern "C" __global__ void vla_merge(const float *x, float *out, int g, int m, int D)
{
    int go = g / m;
    rvd_u64 n = (rvd_u64)g * g * D;
    for (rvd_u64 idx = RVD_TID; idx < n; idx += RVD_NTHREADS) {
        int i = (int)(idx % D);
        rvd_u64 r = idx / D;
        int sub = (int)(r % (m * m)), o = (int)(r / (m * m));
        int oy = o / go, ox = o % go, dy = sub / m, dx = sub % m;
        out[idx] = x[((rvd_u64)(oy * m + dy) * g + ox * m + dx) * D + i];
    }
}

// out[t] = table[tokens[t]] * mul
extern "C" __global__ void vla_embed(const float *table, const int *tokens, float *out, int T,
                                     int D, float mul)
{
    rvd_u64 n = (rvd_u64)T * D;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        out[i] = table[(rvd_u64)tokens[i / D] * D + i % D] * mul;
}

// out[t] = [a[t], b] (b broadcast)
extern "C" __global__ void vla_concat_bcast(const float *a, int Da, const float *b, int Db,
                                            float *out, int T)
{
    int W = Da + Db;
    rvd_u64 n = (rvd_u64)T * W;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        int t = (int)(i / W), c = (int)(i % W);
        out[i] = c < Da ? a[(rvd_u64)t * Da + c] : b[c - Da];
    }
}

// [sin(t w_i), cos(t w_i)], computed in double as on the CPU
extern "C" __global__ void vla_time_embed(float *out, int D, float t, double min_p, double max_p)
{
    int half = D / 2;
    for (int i = (int)RVD_TID; i < half; i += (int)RVD_NTHREADS) {
        double frac = half > 1 ? (double)i / (half - 1) : 0.0;
        double period = min_p * pow(max_p / min_p, frac);
        double a = (double)t * (6.283185307179586 / period);
        out[i] = (float)sin(a);
        out[half + i] = (float)cos(a);
    }
}

// out[t] = [a[t], time embedding of t] for T rows (time_embed's values,
// computed per row: one kernel instead of time_embed + concat_bcast); y16
// (may be NULL): out in 16 bits too (the next GEMM's operand)
extern "C" __global__ void vla_time_concat(const float *a, int Da, float *out, int T, int D,
                                           float t, double min_p, double max_p, rvd_u16 *y16,
                                           int bf)
{
    int W = Da + D, half = D / 2;
    rvd_u64 n = (rvd_u64)T * W;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        int r = (int)(i / W), c = (int)(i % W);
        float v;
        if (c < Da) {
            v = a[(rvd_u64)r * Da + c];
        } else if (c - Da >= 2 * half) { // an odd D's last column: time_embed leaves it 0
            v = 0.0f;
        } else {
            int j = c - Da, k = j < half ? j : j - half;
            double frac = half > 1 ? (double)k / (half - 1) : 0.0;
            double period = min_p * pow(max_p / min_p, frac);
            double x = (double)t * (6.283185307179586 / period);
            v = (float)(j < half ? sin(x) : cos(x));
        }
        out[i] = v;
        if (y16)
            y16[i] = bf ? vla_f2bf(v) : vla_f2h(v);
    }
}

// y = clamp(x * sd + mean, lo, hi) per action dimension; y may be x
extern "C" __global__ void vla_denorm_clamp(const float *x, float *y, int T, int A,
                                            const float *mean, const float *sd, const float *lo,
                                            const float *hi)
{
    rvd_u64 n = (rvd_u64)T * A;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        int a = (int)(i % A);
        float v = x[i] * sd[a] + mean[a];
        v = v < lo[a] ? lo[a] : v > hi[a] ? hi[a] : v;
        y[i] = v;
    }
}

// res[0] = max |x| over finite values (as uint bits), res[1] |= any NaN/Inf; zeroed first
extern "C" __global__ void vla_max_abs(const float *x, rvd_u64 n, unsigned *res)
{
    unsigned m = 0, bad = 0;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        unsigned u = __float_as_uint(x[i]) & 0x7fffffffu;
        if (u >= 0x7f800000u)
            bad = 1;
        else if (u > m)
            m = u; // non-negative floats order as their bits
    }
    if (m)
        atomicMax(&res[0], m);
    if (bad)
        atomicOr(&res[1], 1u);
}

// ---- MoE on the device (graph-capturable: no host round trip) ---------

// per token: router scores (sigmoid, or softmax over all), top-k (ties to
// the lower index) renormalised to sum 1, written densely to w [T, X]
// (zero for experts not chosen). X <= 256.
extern "C" __global__ void vla_moe_route(const float *logits, int T, int X, int k, int softmax,
                                         float *w)
{
    for (int t = (int)RVD_TID; t < T; t += (int)RVD_NTHREADS) {
        const float *l = logits + (rvd_u64)t * X;
        float *o = w + (rvd_u64)t * X;
        float mx = -3.402823466e38f, sum = 0;
        if (softmax) {
            for (int e = 0; e < X; e++)
                mx = l[e] > mx ? l[e] : mx;
            for (int e = 0; e < X; e++)
                sum += expf(l[e] - mx);
        }
        for (int e = 0; e < X; e++)
            o[e] = 0;
        float tot = 0;
        unsigned taken[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int j = 0; j < k; j++) {
            int best = -1;
            float bs = 0;
            for (int e = 0; e < X; e++) {
                if (taken[e >> 5] & (1u << (e & 31)))
                    continue;
                float s = softmax ? expf(l[e] - mx) / sum : 1.0f / (1.0f + expf(-l[e]));
                if (best < 0 || s > bs) {
                    best = e;
                    bs = s;
                }
            }
            taken[best >> 5] |= 1u << (best & 31);
            o[best] = bs;
            tot += bs;
        }
        for (int e = 0; e < X; e++)
            o[e] /= tot;
    }
}

// y[t, d] += sum_x w[t, x] eo[x, t, d], experts in index order (as the CPU)
extern "C" __global__ void vla_moe_combine(const float *eo, const float *w, int T, int X, int D,
                                           float *y)
{
    rvd_u64 n = (rvd_u64)T * D;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        rvd_u64 t = i / D;
        float acc = y[i];
        for (int x = 0; x < X; x++) {
            float wx = w[t * X + x];
            if (wx != 0.0f)
                acc += wx * eo[(rvd_u64)x * n + i];
        }
        y[i] = acc;
    }
}

// ---- GEMM without a BLAS (HIP until a rocBLAS binding exists) ---------
// C_i[m x n] = alpha op(A_i) op(B_i) + beta C_i, row-major, fp32 accumulate;
// 16 x 16 tiles, grid = tilesN * tilesM * batch blocks of 256 threads.
#define VLA_T 16
#define VLA_GEMM(NAME, TYPE, CONV)                                                             \
    extern "C" __global__ void NAME(int ta, int tb, int m, int n, int k, float alpha,         \
                                    const TYPE *A, long lda, long long sA, const TYPE *B,     \
                                    long ldb, long long sB, float beta, float *C, long ldc,   \
                                    long long sC, int bf)                                      \
    {                                                                                          \
        __shared__ float As[VLA_T][VLA_T + 1];                                                 \
        __shared__ float Bs[VLA_T][VLA_T + 1];                                                 \
        int tilesN = (n + VLA_T - 1) / VLA_T, tilesM = (m + VLA_T - 1) / VLA_T;               \
        int blk = blockIdx.x, bi = blk / (tilesN * tilesM);                                    \
        blk %= tilesN * tilesM;                                                                \
        int bx = blk % tilesN, by = blk / tilesN;                                              \
        A += (long long)bi * sA;                                                               \
        B += (long long)bi * sB;                                                               \
        C += (long long)bi * sC;                                                               \
        int tx = threadIdx.x % VLA_T, ty = threadIdx.x / VLA_T;                                \
        int row = by * VLA_T + ty, col = bx * VLA_T + tx;                                      \
        float acc = 0.0f;                                                                      \
        for (int t = 0; t < k; t += VLA_T) {                                                   \
            int ak = t + tx, bk = t + ty;                                                      \
            As[ty][tx] = (row < m && ak < k)                                                   \
                             ? CONV(ta ? A[(long long)ak * lda + row] : A[(long long)row * lda + ak], bf) \
                             : 0.0f;                                                           \
            Bs[ty][tx] = (col < n && bk < k)                                                   \
                             ? CONV(tb ? B[(long long)col * ldb + bk] : B[(long long)bk * ldb + col], bf) \
                             : 0.0f;                                                           \
            __syncthreads();                                                                   \
            for (int l = 0; l < VLA_T; l++)                                                    \
                acc = fmaf(As[ty][l], Bs[l][tx], acc);                                         \
            __syncthreads();                                                                   \
        }                                                                                      \
        if (row < m && col < n) {                                                              \
            float *c = &C[(long long)row * ldc + col];                                         \
            *c = alpha * acc + (beta != 0.0f ? beta * *c : 0.0f);                              \
        }                                                                                      \
    }

__device__ inline float vla_id(float x, int bf)
{
    (void)bf;
    return x;
}
__device__ inline float vla_w16(rvd_u16 x, int bf)
{
    return bf ? rvd_bf16_to_float(x) : rvd_half_to_float(x);
}
VLA_GEMM(vla_gemm_f32, float, vla_id)
VLA_GEMM(vla_gemm_w16, rvd_u16, vla_w16)

// ---- fused attention (flash): QK^T, online softmax and PV in one kernel ----
//
// A block takes 64 query rows of one (sequence, head): four warps of 16
// rows each, times KG key groups. Group j walks the key tiles j, j + KG, ...
// (64 keys each), staging K (key-major) and V (transposed: dim-major, pairs
// of keys per word) in its own part of shared memory, so S and P never
// reach global memory; at the end the groups' running (max, sum, O) merge
// through shared memory. Two groups double the warps in flight: a vision
// layer has few (sequence, head, 64-row) blocks, about 1.5 per SM on an
// H200, and one group's tiles one after the other left the SM idle on
// each tile's loads. Scores, running max and row sums stay fp32 (base-2
// exponent, log2(e) folded into the scale); P is rounded to the inputs'
// 16-bit type for the P V product, as the BLAS path rounds its
// probabilities. Operands are 16-bit rows with leading dimension ldq/ldk
// and head stride hd (q, k, v may be views into one [T, 3, H, hd] QKV
// row); head h reads kv head h / (H / KV); sequences are sq/sk/so elements
// apart. out [rows, ldo] gets O (16-bit or fp32) at column h * hd.
//
// The products run on tensor cores through mma.sync m16n8k16 (sm_80 and
// newer), a vendor-only feature: elsewhere the kernel body is empty and
// ops_gpu.c never launches it (attend16 runs the portable path: BLAS GEMMs
// around vla_softmax). hd is even and at most 128; the host (flash16)
// picks the kernel below by dtype and head size, with its block size and
// dynamic shared memory.
#define VLA_FA_BQ 64
#define VLA_FA_BK 64
#define VLA_FA_NINF __int_as_float(0xff800000) // no math.h under NVRTC
// a tile's words: K 64 keys x (8 NKC + 4) (the 4-word pad spreads a
// fragment load's 8 rows over all banks), Vt 16 NKC dims x (32 + 4)
#define VLA_FA_VW (VLA_FA_BK / 2 + 4)

#if defined(RVD_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <int BF> __device__ inline void vla_fa_mma(float *c, const unsigned *a, unsigned b0,
                                                    unsigned b1)
{
    if (BF)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// two floats as one word of 16-bit values, lo in the low half (round to
// nearest even, as vla_f2bf / vla_f2h)
template <int BF> __device__ inline unsigned vla_fa_pack(float lo, float hi)
{
    unsigned r;
    if (BF)
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    else
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

// 2^x by the hardware's approximation (2 ulp; -inf gives 0): the
// probabilities are rounded to 16 bits right after
__device__ inline float vla_fa_exp2(float x)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ inline unsigned vla_fa_ld(const rvd_u16 *p)
{
    return *(const unsigned *)p;
}

// one key tile into a group's shared memory; every load is issued before
// the first store (storing each word as it arrived waited one memory
// latency per word). K: a warp reads 32 consecutive words of one key per
// instruction; V: 8 words of 4 key pairs, so that the transposed stores hit
// distinct banks (2-way at most). Keys past Tk are zero: their P is zero,
// but 0 * NaN is not.
template <int NKC>
__device__ inline void vla_fa_tile(unsigned *Ks, unsigned *Vt, const rvd_u16 *kh,
                                   const rvd_u16 *vh, long ldk, int k0, int Tk, int hd, int wr,
                                   int lane)
{
    const int KX = (NKC * 8 + 31) / 32, KW = NKC * 8 + 4;
    // K, then V: each phase's loads all in flight at once, and only one
    // phase's words held in registers (the narrow kernel has 128 a thread)
    unsigned kr[KX][VLA_FA_BK / 4];
#pragma unroll
    for (int x = 0; x < KX; x++) {
        int w = lane + 32 * x;
#pragma unroll
        for (int u = 0; u < VLA_FA_BK / 4; u++) {
            int key = k0 + wr + 4 * u;
            kr[x][u] = w < NKC * 8 && key < Tk && 2 * w < hd
                           ? vla_fa_ld(kh + (long)key * ldk + 2 * w)
                           : 0u;
        }
    }
#pragma unroll
    for (int x = 0; x < KX; x++) {
        int w = lane + 32 * x;
#pragma unroll
        for (int u = 0; u < VLA_FA_BK / 4; u++)
            if (w < NKC * 8)
                Ks[(wr + 4 * u) * KW + w] = kr[x][u];
    }
    unsigned va[NKC][2], vc[NKC][2];
    int wl = lane & 7, pl = lane >> 3;
#pragma unroll
    for (int x = 0; x < NKC; x++) {
#pragma unroll
        for (int y = 0; y < 2; y++) {
            int w = wl + 8 * x, key = k0 + 2 * (pl + 4 * wr + 16 * y), in = 2 * w < hd;
            va[x][y] = in && key < Tk ? vla_fa_ld(vh + (long)key * ldk + 2 * w) : 0u;
            vc[x][y] = in && key + 1 < Tk ? vla_fa_ld(vh + (long)(key + 1) * ldk + 2 * w) : 0u;
        }
    }
#pragma unroll
    for (int x = 0; x < NKC; x++) {
#pragma unroll
        for (int y = 0; y < 2; y++) {
            int w = wl + 8 * x, p = pl + 4 * wr + 16 * y;
            Vt[(2 * w) * VLA_FA_VW + p] = (va[x][y] & 0xffffu) | (vc[x][y] << 16);
            Vt[(2 * w + 1) * VLA_FA_VW + p] = (va[x][y] >> 16) | (vc[x][y] & 0xffff0000u);
        }
    }
}

// NKC: the head size's 16-column steps as a compile-time bound (hd <=
// 16 NKC), so that the Q fragments and O accumulators take the registers
// this head size needs; KG key groups of four warps
template <int BF, int NKC, int KG>
__device__ void vla_fa_body(const rvd_u16 *q, long ldq, const rvd_u16 *k, const rvd_u16 *v,
                            long ldk, long sq, long sk, long so, int H, int KV, int Tq, int Tk,
                            int hd, float scale2, void *out, long ldo, int out16, unsigned *smem)
{
    const int KW = NKC * 8 + 4, TILE = VLA_FA_BK * KW + NKC * 16 * VLA_FA_VW;
    int nt = (Tq + VLA_FA_BQ - 1) / VLA_FA_BQ, b = (int)blockIdx.x;
    int qt = b % nt, h = (b / nt) % H, s = b / (nt * H), g = h / (H / KV);
    int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    int wr = warp & 3, kg = warp >> 2; // row group, key group
    int nkc = (hd + 15) / 16, nnc = (hd + 7) / 8;
    const rvd_u16 *qh = q + (long)s * sq + (long)h * hd;
    const rvd_u16 *kh = k + (long)s * sk + (long)g * hd, *vh = v + (long)s * sk + (long)g * hd;
    int r0 = qt * VLA_FA_BQ + wr * 16 + gid, r1 = r0 + 8;
    unsigned *Ks = smem + kg * TILE, *Vt = Ks + VLA_FA_BK * KW;

    unsigned qa[NKC][4];
#pragma unroll
    for (int kc = 0; kc < NKC; kc++) {
        int d = kc * 16 + tig * 2;
        qa[kc][0] = r0 < Tq && d < hd ? vla_fa_ld(qh + (long)r0 * ldq + d) : 0u;
        qa[kc][1] = r1 < Tq && d < hd ? vla_fa_ld(qh + (long)r1 * ldq + d) : 0u;
        qa[kc][2] = r0 < Tq && d + 8 < hd ? vla_fa_ld(qh + (long)r0 * ldq + d + 8) : 0u;
        qa[kc][3] = r1 < Tq && d + 8 < hd ? vla_fa_ld(qh + (long)r1 * ldq + d + 8) : 0u;
    }
    float o[2 * NKC][4];
#pragma unroll
    for (int n = 0; n < 2 * NKC; n++)
        o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
    float m0 = VLA_FA_NINF, m1 = VLA_FA_NINF, l0 = 0.0f, l1 = 0.0f;

    // every group runs every round (the barriers are the block's); a group
    // whose tile is past Tk sits the round out
    for (int t0 = 0; t0 * VLA_FA_BK < Tk; t0 += KG) {
        int k0 = (t0 + kg) * VLA_FA_BK, live = k0 < Tk;
        __syncthreads(); // the previous tile's readers are done
        if (live)
            vla_fa_tile<NKC>(Ks, Vt, kh, vh, ldk, k0, Tk, hd, wr, lane);
        __syncthreads();
        if (!live)
            continue;

        float sc[VLA_FA_BK / 8][4];
#pragma unroll
        for (int n = 0; n < VLA_FA_BK / 8; n++) {
            sc[n][0] = sc[n][1] = sc[n][2] = sc[n][3] = 0.0f;
            const unsigned *kr = Ks + (n * 8 + gid) * KW + tig;
#pragma unroll
            for (int kc = 0; kc < NKC; kc++)
                if (kc < nkc)
                    vla_fa_mma<BF>(sc[n], qa[kc], kr[kc * 8], kr[kc * 8 + 4]);
        }
        // online softmax over this tile; a row's four owners (one quad)
        // agree on its max through two shuffles. The max is taken over the
        // raw scores (the scale is positive), so each probability is one
        // fma and one exp2; only a tile past Tk's end is masked.
        float t0m = VLA_FA_NINF, t1m = VLA_FA_NINF;
        if (k0 + VLA_FA_BK > Tk) {
#pragma unroll
            for (int n = 0; n < VLA_FA_BK / 8; n++) {
                int col = k0 + n * 8 + tig * 2;
#pragma unroll
                for (int j = 0; j < 2; j++)
                    if (col + j >= Tk)
                        sc[n][j] = sc[n][2 + j] = VLA_FA_NINF;
            }
        }
#pragma unroll
        for (int n = 0; n < VLA_FA_BK / 8; n++) {
            t0m = fmaxf(t0m, fmaxf(sc[n][0], sc[n][1]));
            t1m = fmaxf(t1m, fmaxf(sc[n][2], sc[n][3]));
        }
        t0m = fmaxf(t0m, __shfl_xor_sync(0xffffffffu, t0m, 1));
        t0m = fmaxf(t0m, __shfl_xor_sync(0xffffffffu, t0m, 2));
        t1m = fmaxf(t1m, __shfl_xor_sync(0xffffffffu, t1m, 1));
        t1m = fmaxf(t1m, __shfl_xor_sync(0xffffffffu, t1m, 2));
        // finite: key k0 < Tk is in the tile
        float n0 = fmaxf(m0, t0m * scale2), n1 = fmaxf(m1, t1m * scale2);
        float c0 = vla_fa_exp2(m0 - n0), c1 = vla_fa_exp2(m1 - n1); // first tile: exp2(-inf) = 0
        m0 = n0, m1 = n1;
        float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
        for (int n = 0; n < VLA_FA_BK / 8; n++) {
#pragma unroll
            for (int j = 0; j < 2; j++) {
                sc[n][j] = vla_fa_exp2(fmaf(sc[n][j], scale2, -n0));
                sc[n][2 + j] = vla_fa_exp2(fmaf(sc[n][2 + j], scale2, -n1));
                s0 += sc[n][j], s1 += sc[n][2 + j];
            }
        }
        l0 = l0 * c0 + s0, l1 = l1 * c1 + s1;
#pragma unroll
        for (int n = 0; n < 2 * NKC; n++) {
            o[n][0] *= c0, o[n][1] *= c0, o[n][2] *= c1, o[n][3] *= c1;
        }
        // P V: the score accumulators of two 8-key column blocks are exactly
        // the A fragment of one 16-key step
#pragma unroll
        for (int kc = 0; kc < VLA_FA_BK / 16; kc++) {
            unsigned pa[4] = {vla_fa_pack<BF>(sc[2 * kc][0], sc[2 * kc][1]),
                              vla_fa_pack<BF>(sc[2 * kc][2], sc[2 * kc][3]),
                              vla_fa_pack<BF>(sc[2 * kc + 1][0], sc[2 * kc + 1][1]),
                              vla_fa_pack<BF>(sc[2 * kc + 1][2], sc[2 * kc + 1][3])};
#pragma unroll
            for (int n = 0; n < 2 * NKC; n++) {
                const unsigned *vr = Vt + (n * 8 + gid) * VLA_FA_VW + kc * 8 + tig;
                if (n < nnc)
                    vla_fa_mma<BF>(o[n], pa, vr[0], vr[4]);
            }
        }
    }
    if (KG > 1) {
        // group 1 hands its (max, partial sums, O) to group 0 through the
        // tile buffers, now free; a lane of group 0 holds the same rows and
        // columns as its twin in group 1. A group that saw no tile (Tk <=
        // 64) hands max -inf, sums 0: its weight exp2(-inf) is 0.
        float *xo = (float *)smem, *xm = xo + 128 * 2 * NKC * 4;
        int slot = wr * 32 + lane;
        __syncthreads();
        if (kg == 1) {
#pragma unroll
            for (int n = 0; n < 2 * NKC; n++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    xo[(slot * 2 * NKC + n) * 4 + j] = o[n][j];
            xm[slot * 4] = m0, xm[slot * 4 + 1] = m1, xm[slot * 4 + 2] = l0;
            xm[slot * 4 + 3] = l1;
        }
        __syncthreads();
        if (kg == 1)
            return;
        float mb0 = xm[slot * 4], mb1 = xm[slot * 4 + 1];
        float n0 = fmaxf(m0, mb0), n1 = fmaxf(m1, mb1); // m0, m1: group 0 had tile 0
        float a0 = vla_fa_exp2(m0 - n0), a1 = vla_fa_exp2(m1 - n1), b0 = vla_fa_exp2(mb0 - n0),
              b1 = vla_fa_exp2(mb1 - n1);
        l0 = l0 * a0 + xm[slot * 4 + 2] * b0, l1 = l1 * a1 + xm[slot * 4 + 3] * b1;
#pragma unroll
        for (int n = 0; n < 2 * NKC; n++) {
            const float *x = xo + (slot * 2 * NKC + n) * 4;
            o[n][0] = o[n][0] * a0 + x[0] * b0, o[n][1] = o[n][1] * a0 + x[1] * b0;
            o[n][2] = o[n][2] * a1 + x[2] * b1, o[n][3] = o[n][3] * a1 + x[3] * b1;
        }
    }
    // each thread summed its own columns: the row's quad adds them up
    l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
    l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
    float i0 = 1.0f / l0, i1 = 1.0f / l1;
    long ob = (long)s * so + (long)h * hd;
#pragma unroll
    for (int n = 0; n < 2 * NKC; n++) {
        int d = n * 8 + tig * 2;
        if (n >= nnc || d >= hd)
            continue;
#pragma unroll
        for (int half = 0; half < 2; half++) {
            int r = half ? r1 : r0;
            float inv = half ? i1 : i0, x0 = o[n][2 * half] * inv, x1 = o[n][2 * half + 1] * inv;
            if (r >= Tq)
                continue;
            long at = ob + (long)r * ldo + d;
            if (out16) {
                *(unsigned *)((rvd_u16 *)out + at) = vla_fa_pack<BF>(x0, x1);
            } else {
                ((float *)out)[at] = x0;
                ((float *)out)[at + 1] = x1;
            }
        }
    }
}

#endif

// four kernels, so that each is one instantiation with the registers its
// head sizes need (two in one kernel spilled under the narrow kernel's
// bound): the narrow pair (hd <= 80, 2 key groups, 256 threads) fits two
// blocks an SM; the wide pair (hd <= 128, 1 key group, 128 threads) needs
// about twice the registers a thread. _bf / _h: bf16 or fp16 operands.
#define VLA_FA_ARGS                                                                                \
    const rvd_u16 *q, long ldq, const rvd_u16 *k, const rvd_u16 *v, long ldk, long sq, long sk,    \
        long so, int H, int KV, int Tq, int Tk, int hd, float scale2, void *out, long ldo,         \
        int out16
#if defined(RVD_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define VLA_FA_CALL(BF, NKC, KG)                                                                   \
    {                                                                                              \
        extern __shared__ unsigned vla_fa_smem[]; /* sized by the host (flash16) */               \
        vla_fa_body<BF, NKC, KG>(q, ldq, k, v, ldk, sq, sk, so, H, KV, Tq, Tk, hd, scale2, out,    \
                                 ldo, out16, vla_fa_smem);                                         \
    }
#else
#define VLA_FA_CALL(BF, NKC, KG)                                                                   \
    {                                                                                              \
        (void)q, (void)ldq, (void)k, (void)v, (void)ldk, (void)sq, (void)sk, (void)so, (void)H;    \
        (void)KV, (void)Tq, (void)Tk, (void)hd, (void)scale2, (void)out, (void)ldo, (void)out16;   \
    }
#endif
extern "C" __global__ void __launch_bounds__(256, 2) vla_flash_attn_bf(VLA_FA_ARGS)
    VLA_FA_CALL(1, 5, 2)
extern "C" __global__ void __launch_bounds__(256, 2) vla_flash_attn_h(VLA_FA_ARGS)
    VLA_FA_CALL(0, 5, 2)
extern "C" __global__ void __launch_bounds__(128) vla_flash_attn_w_bf(VLA_FA_ARGS)
    VLA_FA_CALL(1, 8, 1)
extern "C" __global__ void __launch_bounds__(128) vla_flash_attn_w_h(VLA_FA_ARGS)
    VLA_FA_CALL(0, 8, 1)

// ---- split-K weight-streaming GEMM for a few rows (the denoising step) ---
//
// C[m, n] = sum_k A[m, k] W[n, k] for M <= 64 rows (a step's 50-51), A and W
// 16-bit, row-major with leading dimensions lda / ldw. A step's weight GEMMs
// took about 10 us each through cuBLASLt where their weights need 2-5 us at
// copy bandwidth: with 50 rows the work is the weight stream, so this kernel
// is shaped for bytes in flight, not for arithmetic. The earlier own
// small-M kernel (PERFORMANCE-HISTORY.md, "own small-M GEMM") lost because
// every block re-read and converted the whole fp32 activation, its down
// GEMM had 32 blocks for 132 SMs, and its loads were synchronous; here:
//  - a block takes 64 weight rows (4 warps x 16) of one K slice: the grid is
//    tiles x splits (blockIdx.x = split * tiles + tile), the host picks the
//    splits that fill the device (N 1024, K 4096: 16 tiles x 16 slices);
//  - weights and A are streamed through a 3-stage cp.async pipeline of
//    64-k chunks (16 KB a stage, 48 KB a block: two blocks an SM keep about
//    64 KB of loads in flight), rows past M / N and k past K zero-filled by
//    the copy itself (src-size 0), the 16-byte chunks XOR-swizzled by row so
//    that ldmatrix reads hit every bank once;
//  - the products on tensor cores: mma.sync m16n8k16 with the weight rows as
//    the 16-row operand and the activation rows as the 8-column one (the
//    8-row tiles past M are skipped warp-uniformly);
//  - splits > 1: each block stores its fp32 partial in ws [splits, M, N],
//    and the last block of a tile to arrive (a counter per tile, cnt, that
//    it resets to 0 for the next launch or graph replay) sums the partials
//    in split order (deterministic: no float atomics) and writes C: 16-bit
//    (out16) or fp32 as sum + beta C.
// The host (ops_gpu_skinny.c) checks M <= 64, K and both leading
// dimensions multiples of 8, A and W 16-byte aligned, 128 threads. Only
// CUDA sm_80+ has cp.async, ldmatrix and mma.sync: elsewhere (HIP, older
// targets) the body is empty and the host never launches it (the
// cuBLASLt / hipBLASLt / BLAS path runs).
#define VLA_SK_BN 64     // weight rows (output columns) a block
#define VLA_SK_BK 64     // k a pipeline stage
#define VLA_SK_STAGES 3
#define VLA_SK_TILE (64 * VLA_SK_BK) // 16-bit words of one 64-row tile of a stage

#if defined(RVD_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ inline unsigned vla_sk_saddr(const void *p)
{
    unsigned a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

// row r's 16-byte chunk c of a 64 x 64 tile, swizzled
__device__ inline int vla_sk_off(int r, int c)
{
    return r * VLA_SK_BK + ((c ^ (r & 7)) << 3);
}

// one stage: 512 chunks of W and 512 of A, 4 + 4 a thread
__device__ inline void vla_sk_load(rvd_u16 *ws, rvd_u16 *as, const rvd_u16 *W, long ldw,
                                   const rvd_u16 *A, long lda, int M, int N, int n0, int k0,
                                   int kend, int t)
{
#pragma unroll
    for (int u = 0; u < 4; u++) {
        int i = t + 128 * u, r = i >> 3, c = i & 7, k = k0 + c * 8;
        int okw = n0 + r < N && k < kend, oka = r < M && k < kend;
        const rvd_u16 *gw = okw ? W + (long)(n0 + r) * ldw + k : W;
        const rvd_u16 *ga = oka ? A + (long)r * lda + k : A;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(
                         vla_sk_saddr(ws + vla_sk_off(r, c))),
                     "l"(gw), "r"(okw ? 16 : 0));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(
                         vla_sk_saddr(as + vla_sk_off(r, c))),
                     "l"(ga), "r"(oka ? 16 : 0));
    }
    asm volatile("cp.async.commit_group;");
}

__device__ inline void vla_sk_ldm4(unsigned *r, const rvd_u16 *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(vla_sk_saddr(p)));
}

__device__ inline float vla_sk_ldcg(const float *p)
{
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

template <int BF>
__device__ inline void vla_sk_body(const rvd_u16 *A, long lda, const rvd_u16 *W, long ldw, int M,
                                   int N, int K, int kslice, float beta, void *C, long ldc,
                                   int out16, float *ws, unsigned *cnt)
{
    __shared__ __align__(128) rvd_u16 sw[VLA_SK_STAGES][VLA_SK_TILE];
    __shared__ __align__(128) rvd_u16 sa[VLA_SK_STAGES][VLA_SK_TILE];
    const int t = (int)threadIdx.x, lane = t & 31, w = t >> 5, g = lane >> 2, q = lane & 3;
    const int tiles = (N + VLA_SK_BN - 1) / VLA_SK_BN, splits = (int)gridDim.x / tiles;
    const int tile = (int)blockIdx.x % tiles, split = (int)blockIdx.x / tiles;
    const int n0 = tile * VLA_SK_BN, kb0 = split * kslice;
    const int kend = kb0 + kslice < K ? kb0 + kslice : K;
    const int nk = kend > kb0 ? (kend - kb0 + VLA_SK_BK - 1) / VLA_SK_BK : 0;
    float acc[8][4];
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
        for (int e = 0; e < 4; e++)
            acc[j][e] = 0.0f;
#pragma unroll
    for (int s = 0; s < VLA_SK_STAGES - 1; s++) {
        if (s < nk)
            vla_sk_load(sw[s], sa[s], W, ldw, A, lda, M, N, n0, kb0 + s * VLA_SK_BK, kend, t);
        else
            asm volatile("cp.async.commit_group;");
    }
    for (int kb = 0; kb < nk; kb++) {
        asm volatile("cp.async.wait_group %0;" ::"n"(VLA_SK_STAGES - 2));
        __syncthreads(); // stage kb landed for every thread; stage kb-1 is free
        int nx = kb + VLA_SK_STAGES - 1, sn = nx % VLA_SK_STAGES;
        if (nx < nk)
            vla_sk_load(sw[sn], sa[sn], W, ldw, A, lda, M, N, n0, kb0 + nx * VLA_SK_BK, kend, t);
        else
            asm volatile("cp.async.commit_group;");
        const rvd_u16 *tw = sw[kb % VLA_SK_STAGES], *ta = sa[kb % VLA_SK_STAGES];
#pragma unroll
        for (int kk = 0; kk < VLA_SK_BK / 16; kk++) {
            unsigned a[4];
            vla_sk_ldm4(a, tw + vla_sk_off(w * 16 + (lane & 15), kk * 2 + (lane >> 4)));
#pragma unroll
            for (int jp = 0; jp < 4; jp++) {
                if (jp * 16 >= M) // warp-uniform: the rows past M are zero
                    continue;
                unsigned b[4];
                vla_sk_ldm4(b, ta + vla_sk_off(jp * 16 + (lane & 7) + ((lane >> 4) << 3),
                                               kk * 2 + ((lane >> 3) & 1)));
                vla_fa_mma<BF>(acc[2 * jp], a, b[0], b[1]);
                vla_fa_mma<BF>(acc[2 * jp + 1], a, b[2], b[3]);
            }
        }
    }
    asm volatile("cp.async.wait_group 0;");
    if (splits > 1) {
#pragma unroll
        for (int j = 0; j < 8; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int n = n0 + w * 16 + g + (e >> 1) * 8, m = j * 8 + 2 * q + (e & 1);
                if (m < M && n < N)
                    ws[((long)split * M + m) * N + n] = acc[j][e];
            }
        __threadfence(); // the partials before the count that publishes them
        __syncthreads(); // also: every ldmatrix done, so the tiles' first word is free
        int *last = (int *)&sw[0][0]; // (48 KB of tiles leave no room for a word of its own)
        if (t == 0)
            *last = atomicAdd(cnt + tile, 1u) == (unsigned)splits - 1;
        __syncthreads();
        if (!*last)
            return;
        __threadfence();
    }
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            int n = n0 + w * 16 + g + (e >> 1) * 8, m = j * 8 + 2 * q + (e & 1);
            if (m >= M || n >= N)
                continue;
            float v = acc[j][e];
            if (splits > 1) { // every split's partial, in split order
                v = 0.0f;
                for (int s = 0; s < splits; s++)
                    v += vla_sk_ldcg(ws + ((long)s * M + m) * N + n);
            }
            if (out16) {
                ((rvd_u16 *)C)[(long)m * ldc + n] = BF ? vla_f2bf(v) : vla_f2h(v);
            } else {
                float *o = (float *)C + (long)m * ldc + n;
                *o = v + (beta != 0.0f ? beta * *o : 0.0f);
            }
        }
    if (splits > 1 && t == 0)
        cnt[tile] = 0u; // ready for the next launch (stream-ordered)
}
#endif

#define VLA_SK_ARGS                                                                                \
    const rvd_u16 *A, long lda, const rvd_u16 *W, long ldw, int M, int N, int K, int kslice,       \
        float beta, void *C, long ldc, int out16, float *ws, unsigned *cnt
#if defined(RVD_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define VLA_SK_CALL(BF)                                                                            \
    {                                                                                              \
        vla_sk_body<BF>(A, lda, W, ldw, M, N, K, kslice, beta, C, ldc, out16, ws, cnt);            \
    }
#else
#define VLA_SK_CALL(BF)                                                                            \
    {                                                                                              \
        (void)A, (void)lda, (void)W, (void)ldw, (void)M, (void)N, (void)K, (void)kslice;           \
        (void)beta, (void)C, (void)ldc, (void)out16, (void)ws, (void)cnt;                          \
    }
#endif
extern "C" __global__ void __launch_bounds__(128) vla_gemm_skinny_bf(VLA_SK_ARGS) VLA_SK_CALL(1)
extern "C" __global__ void __launch_bounds__(128) vla_gemm_skinny_h(VLA_SK_ARGS) VLA_SK_CALL(0)
