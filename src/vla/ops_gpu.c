/* ops_gpu.c - the VLA ops over a GPU backend (ops_gpu.h): a context's
 * life (vla_gpu_open .. vla_gpu_close: the runtime, device 0, the stream,
 * the kernels; every buffer freed at close), the op table bound to it, the
 * switches the kernel tests flip, the counters they read, and the first
 * failure, which sticks until the caller reads it. The ops themselves are in
 * the ops_gpu_*.c files (ops_gpu_ctx.h lists them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "../gpu/kcache.h"
#include "ops_gpu_ctx.h"

void vgpu_fail(struct vla_gpu *gp, const char *what)
{
    if (gp->err)
        return;
    gp->err = 1;
    snprintf(gp->errmsg, sizeof(gp->errmsg), "%s: %s", what, gp->b ? gp->b->err : "no backend");
}

/* unlike vgpu_fail, it replaces an earlier reason: the states it names
 * (a capture that cannot go on, an op the GPU does not have) are the cause
 * the caller needs */
void vgpu_fail_msg(struct vla_gpu *gp, const char *msg)
{
    gp->err = 1;
    snprintf(gp->errmsg, sizeof(gp->errmsg), "%s", msg);
}

int vla_gpu_failed(struct vla_gpu *gp, char **why)
{
    if (why)
        *why = gp->err ? xstrdup(gp->errmsg) : NULL;
    return gp->err ? -1 : 0;
}

/* the ops over a context: vla_gpu_open copies it with .ctx set */
static const struct vla_ops ops_template = {
    .name = "gpu",
    .host_memory = 0,
    .alloc = vgpu_alloc,
    .release = vgpu_release,
    .upload = vgpu_upload,
    .download = vgpu_download,
    .sync = vgpu_sync,
    .matmul = vgpu_matmul,
    .layernorm = vgpu_layernorm,
    .rmsnorm = vgpu_rmsnorm,
    .gelu_tanh = vgpu_gelu_tanh,
    .silu = vgpu_silu,
    .glu = vgpu_glu,
    .rope = vgpu_rope,
    .attention = vgpu_attention,
    .add = vgpu_add,
    .scale = vgpu_scale,
    .axpy = vgpu_axpy,
    .copy = vgpu_copy,
    .patchify = vgpu_patchify,
    .pos_interp = vgpu_pos_interp,
    .merge = vgpu_merge,
    .embed = vgpu_embed,
    .concat_bcast = vgpu_concat_bcast,
    .time_embed = vgpu_time_embed,
    .moe_route = vgpu_moe_route,
    .gather_rows = vgpu_gather_rows,
    .scatter_add_rows = vgpu_scatter_add_rows,
    .moe_dense = vgpu_moe_dense,
    .bias_act = vgpu_bias_act,
    .bias_layernorm = vgpu_bias_layernorm,
    .qkv_rope = vgpu_qkv_rope,
    .attention_packed = vgpu_attention_packed,
    .attention_block = vgpu_attention_block,
    .mlp_block = vgpu_mlp_block,
    .gated_mlp = vgpu_gated_mlp,
    .attention_o = vgpu_attention_o,
    .time_concat = vgpu_time_concat,
    .denorm_clamp = vgpu_denorm_clamp,
    .max_abs = vgpu_max_abs,
};

int vla_gpu_open(const char *kind, struct vla_gpu **out, char **why)
{
    *out = NULL;
    *why = NULL;
    double t0 = util_mono_s();
    enum gpu_backend_kind k = GPU_BACKEND_AUTO;
    if (kind && strcmp(kind, "cuda") == 0)
        k = GPU_BACKEND_CUDA;
    else if (kind && strcmp(kind, "hip") == 0)
        k = GPU_BACKEND_HIP;
    char *w = NULL;
    struct gpu_backend *b = gpu_backend_open(k, &w);
    if (!b) {
        *why = xasprintf("no GPU runtime loads (%s)", w ? w : "?");
        free(w);
        return -1;
    }
    int n = 0;
    b->device_count(b, &n);
    struct gpu_props p;
    if (n <= 0) {
        *why = xasprintf("the %s runtime (%s) sees no GPU%s%s", b->name, b->lib,
                         b->init_err[0] ? ": " : "", b->init_err);
        gpu_backend_close(b);
        return -1;
    }
    if (b->set_device(b, 0) || b->props(b, 0, &p)) {
        *why = xasprintf("device 0 cannot be used: %s", b->err);
        gpu_backend_close(b);
        return -1;
    }
    struct vla_gpu *gp = xcalloc(1, sizeof(*gp));
    gp->ops = ops_template;
    gp->ops.ctx = gp;
    gp->b = b;
    gp->dt = GPU_F32;
    const char *nf = getenv("ROCM_VLA_DOCTOR_VLA_NO_FUSE");
    gp->no_shadow = nf && strcmp(nf, "1") == 0;
    const char *np = getenv("ROCM_VLA_DOCTOR_NO_PTR_BATCH");
    gp->no_ptr_batch = np && strcmp(np, "1") == 0;
    const char *nfl = getenv("ROCM_VLA_DOCTOR_NO_FLASH");
    gp->flash_off = nfl && strcmp(nfl, "1") == 0;
    vgpu_skinny_init(gp);
    gp->gridmax = (p.cu_count > 0 ? p.cu_count : 64) * 16;
    const char *target = getenv("ROCM_VLA_DOCTOR_TARGET");
    target = target && *target ? target : p.target;
    if (!*target) {
        *why = xasprintf("the target of device 0 at %s is not known: %s",
                         p.pci[0] ? p.pci : "(no PCI address)", p.arch_why);
        gpu_backend_close(b);
        free(gp);
        return -1;
    }
    snprintf(gp->info.backend, sizeof(gp->info.backend), "%s", b->name);
    snprintf(gp->info.device, sizeof(gp->info.device), "%s", p.name);
    snprintf(gp->info.pci, sizeof(gp->info.pci), "%s", p.pci);
    snprintf(gp->info.target, sizeof(gp->info.target), "%s", target);
    snprintf(gp->info.lt_why, sizeof(gp->info.lt_why), "%s",
             b->blas_lt          ? ""
             : b->blas_lt_err[0] ? b->blas_lt_err
                                 : "this backend has no Lt BLAS binding");
    /* bench prints this: never the BLAS alone where the tuned path is missing */
    const char *lt_name = strcmp(b->name, "hip") == 0 ? "hipBLASLt" : "cuBLASLt";
    if (b->blas_gemm_ex && b->blas_lt)
        snprintf(gp->info.blas, sizeof(gp->info.blas), "%.200s + %.200s (tuned per shape)",
                 b->blas_lib, b->blas_lt_lib);
    else if (b->blas_gemm_ex)
        snprintf(gp->info.blas, sizeof(gp->info.blas), "%.150s (no %s: %.300s)", b->blas_lib,
                 lt_name, gp->info.lt_why);
    else
        gp->info.blas[0] = '\0';
    gp->info.total_mem = p.total_mem;
    /* the fused attention kernel has a body only where the module's target
     * has mma.sync (CUDA sm_80 and newer) */
    gp->flash_hw =
        strcmp(b->name, "cuda") == 0 && strncmp(target, "sm_", 3) == 0 && atoi(target + 3) >= 80;
    size_t fr = 0, tot = 0;
    if (!b->mem_info(b, &fr, &tot))
        gp->free0 = fr;
    if (b->stream_create(b, &gp->s, 0)) {
        *why = xasprintf("cannot create a stream: %s", b->err);
        goto fail;
    }
    int hits0 = kcache_stats.hits, comp0 = kcache_stats.compiles;
    if (vgpu_kernels_load(gp, target, why))
        goto fail;
    gp->info.cache_hits = kcache_stats.hits - hits0;
    gp->info.compiles = kcache_stats.compiles - comp0;
    gp->info.open_s = util_mono_s() - t0;
    *out = gp;
    return 0;
fail:
    gpu_backend_close(b);
    free(gp);
    return -1;
}

void vla_gpu_close(struct vla_gpu *gp)
{
    if (!gp)
        return;
    struct gpu_backend *b = gp->b;
    b->stream_sync(b, gp->s);
    if (gp->load.A) {
        b->free(b, gp->load.A);
        b->free(b, gp->load.B);
        b->free(b, gp->load.C);
    }
    if (gp->graph)
        b->graph_destroy(b, gp->graph);
    for (int i = 0; i < gp->nsg; i++)
        b->graph_destroy(b, gp->sg[i]);
    for (int i = 0; i < gp->nev_created; i++)
        b->event_destroy(b, gp->ev[i]);
    for (int i = 0; i < gp->prof_created; i++)
        b->event_destroy(b, gp->prof_ev[i]);
    if (gp->pool)
        b->free_host(b, gp->pool);
    vla_attn_cache_free(&gp->ap, b);
    struct scratch *sc[] = {&gp->a16,     &gp->q16,    &gp->k16,    &gp->v16,   &gp->S,
                            &gp->P16,     &gp->tok,    &gp->red,    &gp->moe_w, &gp->moe_gu,
                            &gp->moe_act, &gp->moe_eo, &gp->qkvbuf, &gp->o16,   &gp->w16,
                            &gp->qkv16,   &gp->att16,  &gp->hid16,  &gp->wa16,  &gp->wb16,
                            &gp->gu16,    &gp->glu16,  &gp->sk_ws,  &gp->sk_cnt};
    for (size_t i = 0; i < ARRAY_SIZE(sc); i++)
        if (sc[i]->p)
            b->free(b, sc[i]->p);
    for (int i = 0; i < SH_N; i++)
        if (gp->sh_buf[i].p)
            b->free(b, gp->sh_buf[i].p);
    for (int i = 0; i < gp->nallocs; i++) { /* the caller's buffers stay its own */
        if (gp->allocs[i].m16)
            b->free(b, gp->allocs[i].m16);
        vla_spans_free(&gp->allocs[i].valid);
    }
    free(gp->allocs);
    if (gp->arena16)
        b->free(b, gp->arena16);
    if (gp->arena)
        b->free(b, gp->arena);
    if (gp->mod)
        b->module_unload(b, gp->mod);
    if (gp->s)
        b->stream_destroy(b, gp->s);
    gpu_backend_close(b);
    free(gp);
}

long long vla_gpu_lt_fallbacks(struct vla_gpu *gp, const char **why)
{
    *why = gp->b->blas_lt_note;
    return gp->lt_fallbacks;
}

int vla_gpu_set_blaslt(struct vla_gpu *gp, int on)
{
    gp->no_lt = !on;
    return gp->b && gp->b->blas_lt ? 0 : -1;
}

void vla_gpu_set_fuse(struct vla_gpu *gp, int on)
{
    gp->no_shadow = !on;
    vgpu_shadows_clear(gp);
    vgpu_mirrors_clear(gp);
}

void vla_gpu_fuse_counts(struct vla_gpu *gp, long long *shadow_hits, long long *mirror_hits,
                         long long *conversions)
{
    *shadow_hits = gp->sh_hits;
    *mirror_hits = gp->mirror_hits;
    *conversions = gp->cvt_launches;
}

const char *vla_gpu_ptr_batch(struct vla_gpu *gp, long long *calls, long long *fallbacks)
{
    *calls = gp->ap.calls;
    *fallbacks = gp->ap.fallbacks;
    if (gp->no_ptr_batch)
        return "disabled by ROCM_VLA_DOCTOR_NO_PTR_BATCH=1";
    if (!gp->b->blas_gemm_ptrs)
        return gp->b->blas_gemm_ex ? "the BLAS has no pointer-array batched GEMM" : "no BLAS";
    return gp->ap.fallbacks ? gp->ap.why : NULL;
}

int vla_gpu_set_flash(struct vla_gpu *gp, int on)
{
    gp->flash_off = !on;
    return gp->flash_hw ? 0 : -1;
}

const char *vla_gpu_flash(struct vla_gpu *gp, long long *calls)
{
    *calls = gp->flash_calls;
    if (!gp->flash_hw)
        return "the fused attention kernel needs mma.sync (CUDA sm_80 or newer); this target runs "
               "the BLAS path (GEMMs around a softmax kernel)";
    if (gp->flash_off)
        return "disabled (ROCM_VLA_DOCTOR_NO_FLASH=1 or the kernel tests' A/B)";
    if (gp->no_shadow)
        return "the unfused path (ROCM_VLA_DOCTOR_VLA_NO_FUSE=1) has no fused attention";
    return NULL;
}

const struct vla_gpu_info *vla_gpu_info(struct vla_gpu *gp)
{
    return &gp->info;
}

int vla_gpu_set_dtype(struct vla_gpu *gp, const char *dtype)
{
    vgpu_shadows_clear(gp);
    vgpu_mirrors_clear(gp);
    if (strcmp(dtype, "fp32") == 0)
        gp->dt = GPU_F32;
    else if (strcmp(dtype, "bf16") == 0)
        gp->dt = GPU_BF16;
    else if (strcmp(dtype, "fp16") == 0)
        gp->dt = GPU_F16;
    else
        return -1;
    return vgpu_make16(gp);
}

size_t vla_gpu_used_bytes(struct vla_gpu *gp)
{
    size_t fr = 0, tot = 0;
    if (!gp->b || gp->b->mem_info(gp->b, &fr, &tot) || fr > gp->free0)
        return 0;
    return gp->free0 - fr;
}

size_t vla_gpu_alloc_peak(struct vla_gpu *gp)
{
    return gp->peak;
}

const struct vla_ops *vla_gpu_ops(struct vla_gpu *gp)
{
    return &gp->ops;
}
