// run.cpp - kernels/*.hip compiled ahead of time against ROCm's HIP-CPU
// headers (tools/hip_cpu.sh fetches them; tests/hip_cpu.sh builds and runs
// this), so the HIP branches of the kernels (RVD_HIP: _Float16 conversion
// and arithmetic, warpSize-wide xor shuffles, shared-memory reductions with
// __syncthreads) execute on a 64-lane wavefront and are compared with the
// project's CPU references: src/gpu/fp_ref.c and src/vla/ops_cpu.c.
// One line per case, "PASS name: ..." or "FAIL name: ..."; exit 1 on a FAIL.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "shim.h"

#include "../../kernels/prelude.hip"

#include "../../kernels/fp_numerics.hip"
#include "../../kernels/stream.hip"
#include "../../kernels/vla_ops.hip"

extern "C" {
#include "../../src/gpu/fp_ref.h"
#include "../../src/vla/ops.h"
}

static int failed;

static void report(bool ok, const char *name, const char *fmt, double a, double b)
{
    std::printf("%s %s: ", ok ? "PASS" : "FAIL", name);
    std::printf(fmt, a, b);
    std::printf("\n");
    failed += !ok;
}

template <typename T> static T *dev(size_t n)
{
    void *p = nullptr;
    if (hipMalloc(&p, n * sizeof(T)) != hipSuccess) {
        std::printf("FAIL hipMalloc of %zu bytes\n", n * sizeof(T));
        std::exit(1);
    }
    return static_cast<T *>(p);
}

// the wavefront the HIP branches are compiled for
static void wave_size()
{
    report(warpSize == 64, "wavefront", "warpSize %g (want %g)", (double)warpSize, 64.0);
}

// rvd_fp_convert (RVD_HIP: _Float16 cast; bf16: the software RNE) against
// fp_ref.c's RNE written from the bit layout, over every tricky input
static void convert()
{
    size_t n = 0;
    float *x = fp_tricky_floats(&n);
    float *dx = dev<float>(n);
    rvd_u16 *dh = dev<rvd_u16>(n), *db = dev<rvd_u16>(n);
    hipMemcpy(dx, x, n * sizeof(float), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(rvd_fp_convert, dim3(64), dim3(256), 0, 0, dx, dh, db, (int)n);
    hipDeviceSynchronize();
    std::vector<rvd_u16> h(n), b(n);
    hipMemcpy(h.data(), dh, n * 2, hipMemcpyDeviceToHost);
    hipMemcpy(b.data(), db, n * 2, hipMemcpyDeviceToHost);
    size_t bad_h = 0, bad_b = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t rh = fp_f32_to_f16(x[i]), rb = fp_f32_to_bf16(x[i]);
        bad_h += fp_f16_isnan(rh) ? !fp_f16_isnan(h[i]) : h[i] != rh;
        bad_b += fp_bf16_isnan(rb) ? !fp_bf16_isnan(b[i]) : b[i] != rb;
    }
    report(bad_h == 0, "fp_convert fp16", "%g of %g inputs differ from fp_f32_to_f16",
           (double)bad_h, (double)n);
    report(bad_b == 0, "fp_convert bf16", "%g of %g inputs differ from fp_f32_to_bf16",
           (double)bad_b, (double)n);
    hipFree(dx), hipFree(dh), hipFree(db);
    std::free(x);
}

// rvd_fp_fill: the device RNG and fill against fp_rng_fill
static void fill()
{
    const size_t n = 1 << 16;
    float *d = dev<float>(n);
    hipLaunchKernelGGL(rvd_fp_fill, dim3(32), dim3(256), 0, 0, (void *)d, (rvd_u64)n, 42ull, 0);
    hipDeviceSynchronize();
    std::vector<float> v(n);
    hipMemcpy(v.data(), d, n * sizeof(float), hipMemcpyDeviceToHost);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += v[i] != fp_rng_fill(42, i);
    report(bad == 0, "fp_fill", "%g of %g values differ from fp_rng_fill", (double)bad, (double)n);
    hipFree(d);
}

// rvd_fp_reduce twice (partials, then one block) against an fp64 sum: the
// shared-memory tree with __syncthreads between its levels
static void reduce()
{
    const int n = 100000, blocks = 16;
    std::vector<float> x(n);
    double ref = 0;
    for (int i = 0; i < n; i++)
        ref += x[i] = fp_rng_uniform(7, (uint64_t)i);
    float *dx = dev<float>(n), *dp = dev<float>(blocks), *ds = dev<float>(1);
    hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(rvd_fp_reduce, dim3(blocks), dim3(256), 0, 0, dx, n, dp);
    hipLaunchKernelGGL(rvd_fp_reduce, dim3(1), dim3(256), 0, 0, dp, blocks, ds);
    hipDeviceSynchronize();
    float s = 0;
    hipMemcpy(&s, ds, sizeof(s), hipMemcpyDeviceToHost);
    double rel = std::fabs(s - ref) / ref;
    report(rel < 1e-5, "fp_reduce", "relative error %g against fp64 (sum %g)", rel, ref);
    hipFree(dx), hipFree(dp), hipFree(ds);
}

// rvd_triad, exact
static void triad()
{
    const size_t n = 10007;
    std::vector<float> b(n), c(n), a(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (float)i, c[i] = (float)(n - i);
    float *da = dev<float>(n), *db = dev<float>(n), *dc = dev<float>(n);
    hipMemcpy(db, b.data(), n * 4, hipMemcpyHostToDevice);
    hipMemcpy(dc, c.data(), n * 4, hipMemcpyHostToDevice);
    hipLaunchKernelGGL(rvd_triad, dim3(8), dim3(256), 0, 0, da, db, dc, 3.0f, (rvd_u64)n);
    hipDeviceSynchronize();
    hipMemcpy(a.data(), da, n * 4, hipMemcpyDeviceToHost);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += a[i] != b[i] + 3.0f * c[i];
    report(bad == 0, "triad", "%g of %g elements wrong", (double)bad, (double)n);
    hipFree(da), hipFree(db), hipFree(dc);
}

// vla_rmsnorm and vla_layernorm: vla_block_sum's warpSize-wide xor shuffles
// and the per-wave partials in shared memory, against ops_cpu.c
static void norms()
{
    const int T = 5, D = 1000;
    std::vector<float> x((size_t)T * D), w(D), bias(D), y((size_t)T * D), r((size_t)T * D);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = fp_rng_fill(3, i);
    for (int i = 0; i < D; i++)
        w[i] = 1.0f + fp_rng_fill(4, (uint64_t)i) / 4, bias[i] = fp_rng_fill(5, (uint64_t)i);
    float *dx = dev<float>(x.size()), *dw = dev<float>(D), *db = dev<float>(D),
          *dy = dev<float>(y.size());
    hipMemcpy(dx, x.data(), x.size() * 4, hipMemcpyHostToDevice);
    hipMemcpy(dw, w.data(), D * 4, hipMemcpyHostToDevice);
    hipMemcpy(db, bias.data(), D * 4, hipMemcpyHostToDevice);
    // case 0: rmsnorm's scalar walk, 1: its vec walk (D % 4 == 0 and the
    // row in registers as 16-byte words), 2: layernorm
    for (int k = 0; k < 3; k++) {
        int ln = k == 2, vec = k == 1;
        if (ln)
            hipLaunchKernelGGL(vla_layernorm, dim3(T), dim3(VLA_BLOCK), 0, 0, dx, dw, db, dy, T, D,
                               1e-6f, (rvd_u16 *)nullptr, 0);
        else
            hipLaunchKernelGGL(vla_rmsnorm, dim3(T), dim3(VLA_BLOCK), 0, 0, dx, dw, dy, T, D, 1e-6f,
                               (rvd_u16 *)nullptr, 0, vec);
        hipDeviceSynchronize();
        hipMemcpy(y.data(), dy, y.size() * 4, hipMemcpyDeviceToHost);
        if (ln)
            vla_ops_cpu.layernorm(nullptr, x.data(), w.data(), bias.data(), r.data(), T, D, 1e-6f);
        else
            vla_ops_cpu.rmsnorm(nullptr, x.data(), w.data(), r.data(), T, D, 1e-6f);
        // the sums run in another order (waves, then their partials): an
        // fp32 rounding difference, measured against the largest output
        // because a layernorm output near 0 is a cancellation of (x-mean)*w
        // against the bias
        double worst = 0, top = 0;
        for (size_t i = 0; i < y.size(); i++) {
            worst = std::fmax(worst, std::fabs(y[i] - r[i]));
            top = std::fmax(top, std::fabs(r[i]));
        }
        report(worst <= 1e-5 * top,
               ln    ? "vla_layernorm"
               : vec ? "vla_rmsnorm (vec)"
                     : "vla_rmsnorm",
               "worst difference %g from ops_cpu.c, largest output %g", worst, top);
    }
    hipFree(dx), hipFree(dw), hipFree(db), hipFree(dy);
}

int main()
{
    wave_size();
    convert();
    fill();
    reduce();
    triad();
    norms();
    return failed ? 1 : 0;
}
