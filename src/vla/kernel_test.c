/* kernel_test.c - `bench --kernel-test`: the GPU backend's fused kernels
 * against the CPU reference on odd shapes (ops_check.c), then the odd
 * preset's whole pass: GPU fp32 vs CPU fp32, GPU bf16 fused vs GPU bf16
 * unfused, GPU bf16 vs CPU fp32. Run by tests/gpu_device.sh. */
#include "kernel_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "bench_gpu.h"
#include "model.h"
#include "ops_check.h"
#include "ops_gpu.h"
#include "weights.h"

/* the odd preset's actions on an ops table (weights generated or given), of
 * `batch` observations at `image` px */
static int pass_at(struct vla_gpu *g, const struct vla_preset *p, const struct vla_weights *w,
                   const struct vla_ops *o, int resident, int image, int batch, float *act)
{
    struct vla_model m;
    if (vla_model_init_batch(&m, p, w, o, image, batch, resident))
        return -1;
    struct vla_inputs in;
    vla_inputs_synthetic_batch(&in, p, image, batch, 0);
    int rc = vla_forward(&m, &in, act, NULL, NULL);
    vla_inputs_release(&in);
    vla_model_release(&m);
    return rc || vla_gpu_failed(g, NULL) ? -1 : 0;
}

static int pass(struct vla_gpu *g, const struct vla_preset *p, const struct vla_weights *w,
                const struct vla_ops *o, int resident, float *act)
{
    return pass_at(g, p, w, o, resident, p->vision.image, 1, act);
}

static int judge(const char *what, const float *got, const float *want, size_t n, double min_cos,
                 double max_rel)
{
    double cosv, err, mx = 0;
    vla_actions_compare(got, want, n, &cosv, &err);
    for (size_t i = 0; i < n; i++)
        mx = fabs(want[i]) > mx ? fabs(want[i]) : mx;
    int ok = cosv >= min_cos && err <= max_rel * mx;
    printf("%s %-44s cosine %.9f, max error %.3g of max |ref| %.3g (bounds >= %g, <= %g)\n",
           ok ? "ok  " : "FAIL", what, cosv, err, mx, min_cos, max_rel * mx);
    return !ok;
}

int vla_kernel_test(const char *backend)
{
    char *why = NULL;
    if (strcmp(backend, "cpu") == 0) {
        error("bench --kernel-test: needs a GPU backend (auto, cuda or hip); the CPU is the "
              "reference it compares with");
        return 2;
    }
    struct vla_gpu *g = NULL;
    if (vla_gpu_open(backend, &g, &why)) {
        error("bench --kernel-test: %s", why ? why : "no GPU");
        free(why);
        return 2;
    }
    const struct vla_gpu_info *gi = vla_gpu_info(g);
    const struct vla_ops *go = vla_gpu_ops(g);
    printf("kernel tests on %s (%s, %s); GEMMs through %s\n", gi->device, gi->backend, gi->target,
           gi->blas[0] ? gi->blas : "the project's own kernel");
    int fails = 0;
    printf("-- fused ops, fp32, GPU vs the CPU composition\n");
    fails += vla_ops_check(&vla_ops_cpu, go, 1e-4, stdout);
    vla_gpu_set_dtype(g, "bf16");
    printf("-- fused ops, bf16 (16-bit attention operands), GPU vs the CPU composition\n");
    long long sh0, mi0, cv0, sh1, mi1, cv1;
    vla_gpu_fuse_counts(g, &sh0, &mi0, &cv0);
    fails += vla_ops_check(&vla_ops_cpu, go, 3e-2, stdout);
    vla_gpu_fuse_counts(g, &sh1, &mi1, &cv1);
    /* the decoder attention and axpy cases read the KV cache's and x_t's
     * mirrors, the GEMMs after norms and activations their shadows */
    int fused_ran = mi1 > mi0 && sh1 > sh0;
    printf("%s 16-bit operands: %lld from shadows, %lld from mirrors, %lld conversion launches\n",
           fused_ran ? "ok  " : "FAIL", sh1 - sh0, mi1 - mi0, cv1 - cv0);
    fails += !fused_ran;
    /* the vision attention cases through the fused kernel, and the same
     * cases again through its portable fallback (BLAS GEMMs + softmax) */
    long long fc0, fc1;
    const char *fwhy = vla_gpu_flash(g, &fc0);
    if (fwhy) {
        printf("skip the fused attention kernel (the BLAS path ran): %s\n", fwhy);
    } else {
        vla_gpu_set_flash(g, 0);
        printf("-- fused ops, bf16, vision attention by BLAS GEMMs + softmax (no fused kernel)\n");
        fails += vla_ops_check(&vla_ops_cpu, go, 3e-2, stdout);
        vla_gpu_set_flash(g, 1);
        vla_gpu_flash(g, &fc1);
        int fl_ok = fc0 > 0 && fc1 == fc0;
        printf("%s fused attention kernel: %lld launches in the bf16 cases, %lld with it off\n",
               fl_ok ? "ok  " : "FAIL", fc0, fc1 - fc0);
        fails += !fl_ok;
        /* the fp16 kernels of the pair (vla_flash_attn_h, _w_h): the same
         * cases with fp16 operands, the fused kernel on */
        vla_gpu_set_dtype(g, "fp16");
        printf("-- fused ops, fp16 (the fused attention's fp16 kernels)\n");
        fails += vla_ops_check(&vla_ops_cpu, go, 3e-2, stdout);
        long long fc2;
        vla_gpu_flash(g, &fc2);
        int h_ok = fc2 - fc1 == fc0;
        printf("%s fused attention kernel, fp16: %lld launches\n", h_ok ? "ok  " : "FAIL",
               fc2 - fc1);
        fails += !h_ok;
        vla_gpu_set_dtype(g, "bf16");
    }
    /* the attention cases of 2 and 3 sequences on the BLAS path (the fused
     * kernel's fallback, or where there is no fused kernel): their GEMMs over sequences
     * x heads by pointer arrays, or (why says) the strided path per sequence */
    long long pc, pf;
    const char *pwhy = vla_gpu_ptr_batch(g, &pc, &pf);
    if (pwhy && pc == 0)
        printf("skip pointer-array attention GEMMs (the strided path per sequence): %s\n", pwhy);
    else {
        int ptr_ok = pc > 0 && pf == 0;
        printf("%s pointer-array attention GEMMs: %lld calls over sequences x heads, %lld strided "
               "fallbacks%s%s\n",
               ptr_ok ? "ok  " : "FAIL", pc, pf, pwhy ? ": " : "", pwhy ? pwhy : "");
        fails += !ptr_ok;
    }
    /* the libraries by name: on AMD the A/B is hipBLASLt against rocBLAS */
    int amd = strcmp(gi->backend, "hip") == 0;
    const char *ltn = amd ? "hipBLASLt" : "cuBLASLt", *exn = amd ? "rocBLAS" : "cublasGemmEx";
    /* the step's small-M GEMMs: the 16-bit cases again with the split-K
     * kernel switched to the state the passes above did not run */
    long long sk0, sk1;
    const char *skwhy = vla_gpu_skinny(g, &sk0);
    int sk_on = skwhy == NULL, sk = vla_gpu_set_skinny(g, !sk_on) == 0;
    if (!sk) {
        printf("skip the split-K small-M GEMM (%s ran): %s\n", ltn, skwhy);
    } else {
        const char *by = sk_on ? ltn : "the split-K kernel";
        vla_gpu_set_dtype(g, "bf16");
        printf("-- fused ops, bf16, GEMMs of <= 64 rows through %s\n", by);
        fails += vla_ops_check(&vla_ops_cpu, go, 3e-2, stdout);
        vla_gpu_set_dtype(g, "fp16");
        printf("-- fused ops, fp16, GEMMs of <= 64 rows through %s\n", by);
        fails += vla_ops_check(&vla_ops_cpu, go, 3e-2, stdout);
        vla_gpu_skinny(g, &sk1);
        vla_gpu_set_skinny(g, sk_on);
        /* on: every case ran it; off: the A/B added none */
        int sk_ok = sk_on ? sk0 > 0 && sk1 == sk0 : sk0 == 0 && sk1 > 0;
        printf("%s split-K small-M GEMM: %lld launches with it on\n", sk_ok ? "ok  " : "FAIL",
               sk_on ? sk0 : sk1);
        fails += !sk_ok;
    }
    vla_gpu_set_dtype(g, "fp32");
    int lt = vla_gpu_set_blaslt(g, 0) == 0;
    if (lt) {
        printf("-- fused ops, fp32, GEMMs through %s instead of %s\n", exn, ltn);
        fails += vla_ops_check(&vla_ops_cpu, go, 1e-4, stdout);
        /* the vision blocks' portable path: no bias or GELU epilogue, the
         * bias (and GELU) by kernels after a BLAS GEMM */
        vla_gpu_set_dtype(g, "bf16");
        printf("-- fused ops, bf16, no %s (the blocks' bias and GELU by kernels)\n", ltn);
        fails += vla_ops_check(&vla_ops_cpu, go, 3e-2, stdout);
        vla_gpu_set_dtype(g, "fp32");
    } else {
        printf("skip the %s A/B: %s\n", ltn, gi->lt_why);
    }
    vla_gpu_set_blaslt(g, 1);

    printf("-- the odd preset's pass\n");
    struct vla_preset p;
    if (vla_preset_load_string(&p, "odd", vla_odd_preset_yaml, strlen(vla_odd_preset_yaml))) {
        vla_gpu_close(g);
        return 3;
    }
    size_t na = (size_t)p.chunk * p.action_dim;
    float *cpu = xcalloc(na, sizeof(float)), *g32 = xcalloc(na, sizeof(float));
    float *gbf = xcalloc(na, sizeof(float)), *gun = xcalloc(na, sizeof(float));
    float *gex = xcalloc(na, sizeof(float)), *gsk = xcalloc(na, sizeof(float));
    /* a batch of 3 at 120 px (7 x 7 patches of 16, 8 px per side dropped):
     * the per-observation KV strides, positions and patch grid */
    enum { KB = 3, KIMG = 120 };
    float *cb = xcalloc(KB * na, sizeof(float)), *gb = xcalloc(KB * na, sizeof(float));
    float *gbb = xcalloc(KB * na, sizeof(float));
    struct vla_weights hw, dw;
    int rc = vla_weights_layout(&hw, &p, 1);
    if (!rc) {
        vla_weights_synthetic(&hw, &p, 0);
        rc = pass(g, &p, &hw, &vla_ops_cpu, 0, cpu) ||
             pass_at(g, &p, &hw, &vla_ops_cpu, 0, KIMG, KB, cb);
    }
    rc = rc || vla_weights_layout(&dw, &p, 0) || vla_gpu_weights(g, &dw, &p, 0, 0);
    rc = rc || pass(g, &p, &dw, go, 1, g32);
    rc = rc || pass_at(g, &p, &dw, go, 1, KIMG, KB, gb);
    rc = rc || vla_gpu_set_dtype(g, "bf16") || pass(g, &p, &dw, go, 1, gbf);
    rc = rc || pass_at(g, &p, &dw, go, 1, KIMG, KB, gbb);
    if (!rc) {
        vla_gpu_set_fuse(g, 0);
        rc = pass(g, &p, &dw, go, 1, gun);
        vla_gpu_set_fuse(g, 1);
    }
    if (!rc && sk) {
        vla_gpu_set_skinny(g, !sk_on);
        rc = pass(g, &p, &dw, go, 1, gsk);
        vla_gpu_set_skinny(g, sk_on);
    }
    if (!rc && lt) {
        vla_gpu_set_blaslt(g, 0);
        rc = pass(g, &p, &dw, go, 1, gex);
        vla_gpu_set_blaslt(g, 1);
    }
    if (rc) {
        vla_gpu_failed(g, &why); /* NULL since the open succeeded */
        printf("FAIL the odd preset's pass did not run: %s\n", why ? why : "");
        free(why);
        fails++;
    } else {
        fails += judge("pass: GPU fp32 vs CPU fp32", g32, cpu, na, 0.999999, 1e-3);
        for (int b = 0; b < KB; b++) {
            char what[64];
            snprintf(what, sizeof(what), "pass: batch %d, %d px, obs %d: GPU vs CPU fp32", KB, KIMG,
                     b);
            fails += judge(what, gb + b * na, cb + b * na, na, 0.999999, 1e-3);
            snprintf(what, sizeof(what), "pass: batch %d, %d px, obs %d: GPU bf16 vs CPU", KB, KIMG,
                     b);
            fails += judge(what, gbb + b * na, cb + b * na, na, 0.999, 5e-2);
        }
        fails += judge("pass: GPU bf16 fused vs GPU bf16 unfused", gbf, gun, na, 0.99999, 2e-2);
        fails += judge("pass: GPU bf16 vs CPU fp32", gbf, cpu, na, 0.999, 5e-2);
        if (sk)
            fails += judge("pass: GPU bf16 split-K small-M GEMM vs Lt BLAS", sk_on ? gbf : gsk,
                           sk_on ? gsk : gbf, na, 0.99999, 2e-2);
        char ab[96];
        snprintf(ab, sizeof(ab), "pass: GPU bf16 %s vs %s", ltn, exn);
        if (lt)
            fails += judge(ab, gbf, gex, na, 0.99999, 2e-2);
    }
    vla_weights_release(&hw);
    vla_weights_release(&dw);
    vla_preset_release(&p);
    free(cpu), free(g32), free(gbf), free(gun), free(gex), free(gsk), free(cb), free(gb), free(gbb);
    vla_gpu_close(g);
    printf("%s: %d failure(s)\n", fails ? "kernel tests FAILED" : "kernel tests passed", fails);
    return fails ? 1 : 0;
}
