/* ops_gpu_attn.c - attention. BLAS-based: S = Q K^T (batched over heads, K
 * shared inside a GQA group, one GEMM over Tq*H rows for a single KV head),
 * a row softmax in fp32, O = P V; the vision blocks in 16 bits through the
 * fused kernel (QK^T, online softmax, PV in one launch) on CUDA sm_80+, else
 * pointer-array GEMMs over cameras x heads, else strided per camera. Also
 * the fused QKV GEMM + RoPE that fills the KV cache and its mirror. */
#include <stdint.h>

#include "ops_gpu_ctx.h"

/* rows of n scores. Rows enough to fill the device (8 a CU, or 2048: the
 * prefix's 6528 rows of 816 keys) take one warp a row with the row in
 * registers (vla_softmax_warp, 16-byte words where every row is aligned):
 * 13.8 against 26.1 us a prefix call on the H200. Fewer rows (a step's
 * 400) take vla_softmax's per-row thread groups: the smallest group (32 ..
 * BLOCK) that leaves each thread at most 8 of a row and still gives a
 * quarter of the grid cap in blocks, where one warp a row left them on 50
 * blocks (8.0 against 6.9 us a step call) */
static void softmax(struct vla_gpu *gp, float *S, int rows, int n, float scale, void *P16, int bf)
{
    if (rows >= 2048 || rows >= gp->gridmax / 2) { /* gridmax: 16 blocks a CU (ops_gpu.c) */
        int per = BLOCK / 32, blocks = (rows + per - 1) / per;
        int vec = n % 4 == 0 && (uintptr_t)S % 16 == 0 && (uintptr_t)P16 % 8 == 0;
        LAUNCH(gp, K_vla_softmax_warp, (unsigned)(blocks < gp->gridmax ? blocks : gp->gridmax), &S,
               &rows, &n, &scale, &P16, &bf, &vec);
        return;
    }
    int gs = 32;
    while (gs < BLOCK && (gs * 8 < n || (rows + BLOCK / gs - 1) / (BLOCK / gs) < gp->gridmax / 4))
        gs *= 2; /* also wider while there are too few blocks to fill the device */
    int per = BLOCK / gs, blocks = (rows + per - 1) / per;
    LAUNCH(gp, K_vla_softmax, (unsigned)(blocks < gp->gridmax ? blocks : gp->gridmax), &S, &rows,
           &n, &scale, &P16, &bf, &gs);
}

/* BLAS-based attention: S_h = Q_h K_g^T, P = softmax(S * scale) in fp32,
 * O_h = P_h V_g; head h reads kv head g = h / (H / KV). out [Tq, H*hd] of
 * type ct: fp32, or (16-bit mode, with a BLAS) the 16-bit operand of the
 * output projection, written by the P V GEMM itself */
static void attend(struct vla_gpu *gp, const float *q, int qs, const float *k, const float *v,
                   int ks, void *out, enum gpu_dtype ct, int Tq, int Tk, int H, int KV, int hd,
                   float scale)
{
    int G_ = H / KV;
    enum gpu_dtype t = gp->dt;
    const void *Q = q, *K = k, *V = v;
    long ldq = qs, ldk = ks, ldv = ks;
    size_t kspan = (size_t)(Tk - 1) * ks + (size_t)KV * hd; /* floats of k's (v's) rows */
    const void *sq = NULL, *sk = NULL, *sv = NULL;
    if (t != GPU_F32 && !gp->no_shadow && qs == H * hd) {
        /* q's 16-bit copy from qkv_rope, K and V from the KV cache's mirror */
        sq = vgpu_shadow_of(gp, q, (size_t)Tq * qs);
        sk = vgpu_mirror_of(gp, k, kspan);
        sv = vgpu_mirror_of(gp, v, kspan);
    }
    if (sq && sk && sv) {
        gp->mirror_hits++;
        Q = sq, K = sk, V = sv;
    } else if (t != GPU_F32) {
        void *q16 = vgpu_scratch(gp, &gp->q16, (size_t)Tq * H * hd * 2);
        void *k16 = vgpu_scratch(gp, &gp->k16, (size_t)Tk * KV * hd * 2);
        void *v16 = vgpu_scratch(gp, &gp->v16, (size_t)Tk * KV * hd * 2);
        long lq = qs, lk = ks;
        int qc = H * hd, kc = KV * hd, bf = t == GPU_BF16;
        if (gp->no_shadow) {
            vgpu_cvt16(gp, q, qs, q16, (long)H * hd, Tq, H * hd);
            vgpu_cvt16(gp, k, ks, k16, (long)KV * hd, Tk, KV * hd);
            vgpu_cvt16(gp, v, ks, v16, (long)KV * hd, Tk, KV * hd);
        } else { /* one launch for the three */
            uint64_t n = (uint64_t)Tq * qc + 2 * (uint64_t)Tk * kc;
            LAUNCH(gp, K_vla_cvt16x3, vgpu_grid_for(gp, n), &q, &lq, &q16, &Tq, &qc, &k, &lk, &k16,
                   &Tk, &kc, &v, &lk, &v16, &Tk, &kc, &bf);
        }
        Q = q16, K = k16, V = v16;
        ldq = (long)H * hd, ldk = ldv = (long)KV * hd;
    }
    size_t es = t == GPU_F32 ? 4 : 2, eo = ct == GPU_F32 ? 4 : 2;
    long long sS = (long long)Tq * Tk;
    vgpu_wrote(gp, out, (size_t)Tq * H * hd * eo);
    float *S = vgpu_scratch(gp, &gp->S, (size_t)H * sS * sizeof(float));
    int bf = t == GPU_BF16;
    if (KV == 1 && H > 1 && ldq == (long)H * hd) {
        /* one KV head (multi-query: pi0's and lingbot's decoders): a row's
         * H query heads are H rows of hd, so S' = Q' K^T and O' = P' V are
         * single GEMMs over Tq * H rows (S' in (query, head) row order; O'
         * [Tq * H, hd] is out [Tq, H * hd]) where the per-head form was H
         * batched GEMMs of Tq rows: M = 400 instead of 8 x 50 for a step's
         * expert attending to the prefix, through cuBLASLt's tuned path */
        int M = Tq * H;
        void *P1 = t == GPU_F32 ? NULL : vgpu_scratch(gp, &gp->P16, (size_t)M * Tk * 2);
        vgpu_gemm(gp, t, 0, 1, M, Tk, hd, 1.0f, Q, hd, 0, K, ldk, 0, 0.0f, S, Tk, 0, 1);
        softmax(gp, S, M, Tk, scale, P1, bf);
        vgpu_gemm_ct(gp, t, ct, 0, 0, M, hd, Tk, 1.0f, t == GPU_F32 ? (const void *)S : P1, Tk, 0,
                     V, ldv, 0, 0.0f, out, hd, 0, 1);
        return;
    }
    if (G_ == 1) {
        vgpu_gemm(gp, t, 0, 1, Tq, Tk, hd, 1.0f, Q, ldq, hd, K, ldk, hd, 0.0f, S, Tk, sS, H);
    } else {
        for (int g = 0; g < KV; g++)
            vgpu_gemm(gp, t, 0, 1, Tq, Tk, hd, 1.0f, (const char *)Q + (size_t)g * G_ * hd * es,
                      ldq, hd, (const char *)K + (size_t)g * hd * es, ldk, 0, 0.0f,
                      S + (size_t)g * G_ * sS, Tk, sS, G_);
    }
    int rows = H * Tq;
    void *P16 = t == GPU_F32 ? NULL : vgpu_scratch(gp, &gp->P16, (size_t)H * sS * 2);
    softmax(gp, S, rows, Tk, scale, P16, bf);
    const void *P = t == GPU_F32 ? (const void *)S : P16;
    long ldo = (long)H * hd;
    if (G_ == 1) {
        vgpu_gemm_ct(gp, t, ct, 0, 0, Tq, hd, Tk, 1.0f, P, Tk, sS, V, ldv, hd, 0.0f, out, ldo, hd,
                     H);
    } else {
        for (int g = 0; g < KV; g++)
            vgpu_gemm_ct(gp, t, ct, 0, 0, Tq, hd, Tk, 1.0f,
                         (const char *)P + (size_t)g * G_ * sS * es, Tk, sS,
                         (const char *)V + (size_t)g * hd * es, ldv, 0, 0.0f,
                         (char *)out + (size_t)g * G_ * hd * eo, ldo, hd, G_);
    }
}

void vgpu_attention(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                    float *out, int Tq, int Tk, int H, int KV, int hd, float scale)
{
    struct vla_gpu *gp = ctx;
    attend(gp, q, qs, k, v, ks, out, GPU_F32, Tq, Tk, H, KV, hd, scale);
}

/* x += attention(...) o_w^T: in 16-bit mode with a BLAS the P V GEMM writes
 * the output projection's 16-bit operand (no conversion kernel between the
 * two GEMMs) and att is not written; else the composition */
void vgpu_attention_o(void *ctx, const float *q, int qs, const float *k, const float *v, int ks,
                      const float *o_w, float *att, float *x, int Tq, int Tk, int H, int KV, int hd,
                      int D, float scale)
{
    struct vla_gpu *gp = ctx;
    int qd = H * hd;
    if (gp->dt == GPU_F32 || gp->no_shadow || !gp->b->blas_gemm_ex) {
        vgpu_attention(gp, q, qs, k, v, ks, att, Tq, Tk, H, KV, hd, scale);
        vgpu_matmul(gp, att, o_w, NULL, x, Tq, D, qd, 1);
        return;
    }
    enum gpu_dtype t;
    const void *W = vgpu_weight_operand16(gp, o_w, D, qd, &t);
    void *a16 = vgpu_scratch(gp, &gp->o16, (size_t)Tq * qd * 2);
    attend(gp, q, qs, k, v, ks, a16, t, Tq, Tk, H, KV, hd, scale);
    vgpu_wrote(gp, att,
               (size_t)Tq * qd * sizeof(float)); /* its old contents are not its value now */
    vgpu_wrote(gp, x, (size_t)Tq * D * sizeof(float));
    vgpu_gemm(gp, t, 0, 1, Tq, D, qd, 1.0f, a16, qd, 0, W, qd, 0, 1.0f, x, D, 0, 1);
}

void vgpu_qkv_rope(void *ctx, const float *h, const float *q_w, const float *kv_w, float *q,
                   float *kv, int nseq, size_t kvs, int T, int D, int H, int KV, int hd, int pos0,
                   double theta)
{
    struct vla_gpu *gp = ctx;
    int qd = H * hd, kvd = 2 * KV * hd, NT = nseq * T;
    if (gp->no_shadow || kv_w != q_w + (size_t)qd * D) {
        /* the weights are not one [q; kv] matrix: the composition */
        vgpu_matmul(gp, h, q_w, NULL, q, NT, qd, D, 0);
        for (int s = 0; s < nseq; s++) {
            vgpu_matmul(gp, h + (size_t)s * T * D, kv_w, NULL, kv + s * kvs, T, kvd, D, 0);
            vgpu_rope(gp, q + (size_t)s * T * qd, T, H, hd, qd, pos0, theta);
            vgpu_rope(gp, kv + s * kvs, T, KV, hd, kvd, pos0, theta);
        }
        return;
    }
    /* q_w and kv_w are adjacent rows of one [q; kv] matrix (weights.c lays
     * them out so): one GEMM over every sequence's rows, then one kernel per
     * sequence for RoPE and the split (each sequence's K/V go to its own
     * cache, positions restart per sequence) */
    float *buf = vgpu_scratch(gp, &gp->qkvbuf, (size_t)NT * (qd + kvd) * sizeof(float));
    vgpu_matmul(gp, h, q_w, NULL, buf, NT, qd + kvd, D, 0);
    vgpu_wrote(gp, q, (size_t)NT * qd * sizeof(float));
    /* 16-bit: q's copy as a shadow (every sequence's rows), each sequence's
     * K/V rows into the mirror of kv's allocation (made on first use,
     * outside a capture) */
    uint16_t *q16 = vgpu_shadow_target(gp, SH_ROPE_Q, (size_t)NT * qd);
    int bf = gp->dt == GPU_BF16;
    for (int s = 0; s < nseq; s++) {
        float *bs = buf + (size_t)s * T * (qd + kvd), *qs = q + (size_t)s * T * qd,
              *ks = kv + s * kvs;
        vgpu_wrote(gp, ks, (size_t)T * kvd * sizeof(float));
        void *q16s = q16 ? q16 + (size_t)s * T * qd : NULL, *kv16 = NULL;
        struct alloc_rec *r = vgpu_mirror_target(gp, ks, (size_t)T * kvd);
        if (r)
            kv16 = r->m16 + (ks - r->p);
        LAUNCH(gp, K_vla_rope_split, vgpu_grid_for(gp, (uint64_t)T * (hd / 2)), &bs, &T, &H, &KV,
               &hd, &pos0, &theta, &qs, &ks, &q16s, &kv16, &bf);
        if (kv16 && !gp->err)
            vla_spans_add(&r->valid, (size_t)(ks - r->p), (size_t)(ks - r->p) + (size_t)T * kvd);
    }
    vgpu_shadow_set(gp, SH_ROPE_Q, q, (size_t)NT * qd, q16);
}

/* vision attention on the QKV projection's 16-bit rows qkv16 [C*T, 3W]
 * ([tokens, 3, heads, hd]) read in place by leading dimension 3W and head
 * stride hd: the fused kernel where flash16 takes it, else S = Q K^T (fp32), one softmax over every
 * sequence and head writing 16-bit P, O = P V written straight into out [C*T, W] (type ot: fp32, or
 * the 16-bit operand of the o-projection). A sequence's rows are T * 3W apart and its heads hd
 * apart: no single stride spans both, so with C > 1 each GEMM is one pointer-array call over every
 * sequence x head (attn_ptrs.h), else (no such call, ROCM_VLA_DOCTOR_NO_PTR_BATCH=1, arrays not
 * built before a capture, the call failing) per sequence one strided batch over the heads. */
static int attend_ptrs(struct vla_gpu *gp, enum vla_attn_phase ph, const struct vla_attn_geom *g)
{
    if (gp->err || gp->no_ptr_batch || g->C < 2)
        return -1;
    if (vla_attn_ptr_gemm(&gp->ap, gp->b, gp->capturing, ph, g, gp->s))
        return -1;
    vgpu_prof_mark(gp, "GEMM, batched over cameras x heads (BLAS)");
    return 0;
}

/* the fused kernel's limits (kernels/vla_ops.hip "fused attention"): 16-bit
 * operands, an even head size of at most 128 (32-bit fragment loads, the
 * register tile), word-aligned rows. Its four kernels: the narrow pair (hd
 * <= 80: two key groups of four warps, 5 column steps of 16) and the wide
 * pair (hd <= 128: one group, 8 steps), each in bf16 and fp16; the dynamic
 * shared memory is the groups' K and transposed V tiles (64 keys; rows
 * padded by 4 words) */
#define FA_HDMAX 128
#define FA_BQ 64
#define FA_VW (64 / 2 + 4)

static int flash16(struct vla_gpu *gp, const void *qkv16, void *out, enum gpu_dtype ot, int C,
                   int T, int H, int hd, float scale)
{
    if (gp->err || !gp->flash_hw || gp->flash_off || hd % 2 || hd > FA_HDMAX ||
        (uintptr_t)qkv16 % 4 || (uintptr_t)out % 4)
        return -1;
    int wide = hd > 80, nkc = wide ? 8 : 5, groups = wide ? 1 : 2, bf = gp->dt == GPU_BF16;
    int k = wide ? (bf ? K_vla_flash_attn_w_bf : K_vla_flash_attn_w_h)
                 : (bf ? K_vla_flash_attn_bf : K_vla_flash_attn_h);
    unsigned smem = (unsigned)(groups * (64 * (8 * nkc + 4) + 16 * nkc * FA_VW) * 4);
    int W = H * hd, KV = H, nt = (T + FA_BQ - 1) / FA_BQ, o16 = ot != GPU_F32;
    long ld = 3L * W, seq = (long)T * ld, so = (long)T * W, ldo = W;
    const uint16_t *q = qkv16, *kp = q + W, *v = q + 2 * W;
    float s2 = (float)(scale * 1.4426950408889634); /* exp(x) = exp2(x log2 e) */
    void *args[] = {&q,  &ld, &kp, &v,  &ld, &seq, &seq, &so, &H,
                    &KV, &T,  &T,  &hd, &s2, &out, &ldo, &o16};
    vgpu_launch_b(gp, k, (unsigned)(C * H * nt), (unsigned)(128 * groups), smem, args);
    gp->flash_calls++;
    return 0;
}

static void attend16(struct vla_gpu *gp, const void *qkv16, void *out, enum gpu_dtype ot, int C,
                     int T, int H, int hd, float scale)
{
    if (!flash16(gp, qkv16, out, ot, C, T, H, hd, scale))
        return;
    enum gpu_dtype t = gp->dt;
    int W = H * hd, CH = C * H, bf = t == GPU_BF16;
    long ld = 3L * W;
    long long sS = (long long)T * T;
    float *S = vgpu_scratch(gp, &gp->S, (size_t)CH * sS * sizeof(float));
    void *P16 = vgpu_scratch(gp, &gp->P16, (size_t)CH * sS * 2);
    const uint16_t *base = qkv16;
    struct vla_attn_geom g = {qkv16, S, P16, out, t, ot, C, T, H, hd};
    int strided = attend_ptrs(gp, VLA_AP_SCORES, &g);
    for (int c = 0; strided && c < C; c++) {
        const uint16_t *q = base + (size_t)c * T * ld;
        vgpu_gemm(gp, t, 0, 1, T, T, hd, 1.0f, q, ld, hd, q + W, ld, hd, 0.0f,
                  S + (size_t)c * H * sS, T, sS, H);
    }
    softmax(gp, S, CH * T, T, scale, P16, bf);
    strided = attend_ptrs(gp, VLA_AP_PV, &g);
    for (int c = 0; strided && c < C; c++) {
        const uint16_t *P = (const uint16_t *)P16 + (size_t)c * H * sS;
        const uint16_t *V = base + (size_t)c * T * ld + 2 * (size_t)W;
        if (ot == GPU_F32)
            vgpu_gemm(gp, t, 0, 0, T, hd, T, 1.0f, P, T, sS, V, ld, hd, 0.0f,
                      (float *)out + (size_t)c * T * W, W, hd, H);
        else
            vgpu_gemm16(gp, t, 0, 0, T, hd, T, P, T, sS, V, ld, hd,
                        (uint16_t *)out + (size_t)c * T * W, W, hd, H);
    }
}

/* qkv [M, N] fp32 + bias (NULL: none) as 16-bit into the qkv16 scratch */
static void *qkv_to16(struct vla_gpu *gp, const float *qkv, const float *bias, int M, int N)
{
    void *q16 = vgpu_scratch(gp, &gp->qkv16, (size_t)M * N * 2);
    int bf = gp->dt == GPU_BF16;
    LAUNCH(gp, K_vla_bias_cvt16, vgpu_grid_for(gp, (uint64_t)M * N), &qkv, &bias, &M, &N, &q16,
           &bf);
    return q16;
}

void vgpu_attention_packed(void *ctx, const float *qkv, const float *bias, float *out, int C, int T,
                           int H, int hd, float scale)
{
    struct vla_gpu *gp = ctx;
    int W = H * hd;
    if (gp->dt == GPU_F32 || gp->no_shadow) {
        /* the composition: the bias into the operands, one call per sequence */
        float *q = (float *)qkv; /* the model's own buffer; nothing else reads it */
        if (bias) {
            int M = C * T, N = 3 * W;
            vgpu_wrote(gp, q, (size_t)M * N * sizeof(float));
            LAUNCH(gp, K_vla_bias, vgpu_grid_for(gp, (uint64_t)M * N), &q, &bias, &M, &N);
        }
        for (int c = 0; c < C; c++) {
            const float *qc = q + (size_t)c * T * 3 * W;
            vgpu_attention(gp, qc, 3 * W, qc + W, qc + 2 * W, 3 * W, out + (size_t)c * T * W, T, T,
                           H, H, hd, scale);
        }
        return;
    }
    /* 16-bit: the operands rounded once (with the bias) in their own
     * [tokens, 3, heads, hd] layout, read in place by the GEMMs */
    vgpu_wrote(gp, out, (size_t)C * T * W * sizeof(float));
    attend16(gp, qkv_to16(gp, qkv, bias, C * T, 3 * W), out, GPU_F32, C, T, H, hd, scale);
}

void vgpu_attention_block(void *ctx, const float *h, const float *qkv_w, const float *qkv_b,
                          const float *o_w, float *qkv, float *att, float *x, int C, int T, int H,
                          int hd, float scale)
{
    struct vla_gpu *gp = ctx;
    int W = H * hd, M = C * T;
    if (!vgpu_blocks16(gp)) { /* the composition */
        vgpu_matmul(gp, h, qkv_w, NULL, qkv, M, 3 * W, W, 0);
        vgpu_attention_packed(gp, qkv, qkv_b, att, C, T, H, hd, scale);
        vgpu_matmul(gp, att, o_w, NULL, x, M, W, W, 1);
        return;
    }
    /* 16-bit: the QKV GEMM adds its bias and writes the attention GEMMs'
     * operand; O is written 16-bit for the o-projection: no layout or
     * conversion kernel between the GEMMs */
    enum gpu_dtype t = gp->dt;
    vgpu_wrote(gp, qkv, (size_t)M * 3 * W * sizeof(float));
    vgpu_wrote(gp, att, (size_t)M * W * sizeof(float));
    const void *A = vgpu_act_operand(gp, h, M, W, t, &gp->a16);
    const void *Bq = vgpu_weight16(gp, qkv_w, 3 * W, W, &gp->wa16);
    void *q16 = vgpu_scratch(gp, &gp->qkv16, (size_t)M * 3 * W * 2);
    if (vgpu_lt_ex(gp, t, t, 0, 1, M, 3 * W, W, 1.0f, A, W, Bq, W, 0.0f, q16, 3 * W, qkv_b,
                   GPU_LT_PLAIN)) {
        /* no cuBLASLt (or it refused): fp32 GEMM, then bias and rounding */
        vgpu_gemm(gp, t, 0, 1, M, 3 * W, W, 1.0f, A, W, 0, Bq, W, 0, 0.0f, qkv, 3 * W, 0, 1);
        q16 = qkv_to16(gp, qkv, qkv_b, M, 3 * W);
    }
    void *o16 = vgpu_scratch(gp, &gp->att16, (size_t)M * W * 2);
    attend16(gp, q16, o16, t, C, T, H, hd, scale);
    const void *Bo = vgpu_weight16(gp, o_w, W, W, &gp->wb16);
    vgpu_wrote(gp, x, (size_t)M * W * sizeof(float));
    vgpu_gemm(gp, t, 0, 1, M, W, W, 1.0f, o16, W, 0, Bo, W, 0, 1.0f, x, W, 0, 1);
}
