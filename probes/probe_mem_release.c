/* probe_mem_release.c - VRAM returns to its baseline after allocate/free
 * cycles (probe "mem_release", check mem.release). Used VRAM is read outside
 * the process's allocator (src/gpu/vram_tel.h): rocm-smi-lib on HIP, NVML on
 * the CUDA reference, else amdgpu's sysfs mem_info_vram_used, else the
 * runtime's mem info; the runtime's view (total - free) is kept as a second
 * opinion. Facts: memrel.cycles, memrel.chunk_mb, memrel.baseline_mb,
 * memrel.peak_mb, memrel.after_mb, memrel.delta_mb (after - baseline),
 * memrel.source ("rocm-smi", "NVML", "amdgpu sysfs", "runtime mem info"),
 * memrel.source_lib (the library or file read), memrel.source_tried (the
 * sources passed over and why), memrel.runtime_delta_mb (the runtime's
 * view); memrel.vendor_lib and memrel.vendor_init (rsmi_init / nvmlInit
 * result), also when the runtime sees no device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "../src/gpu/vram_tel.h"
#include "probe.h"

#define MR_CYCLES 20

int probe_mem_release_run(struct probe_ctx *ctx);

static double runtime_used_mb(struct gpu_backend *b)
{
    size_t f = 0, t = 0;
    if (b->mem_info(b, &f, &t))
        return -1;
    return (double)(t - f) / 1048576.0;
}

static int used_mb(struct vram_tel *t, double *mb)
{
    uint64_t u = 0;
    if (vram_tel_used(t, &u))
        return -1;
    *mb = (double)u / 1048576.0;
    return 0;
}

static void vendor_facts(struct factset *fs, const struct vram_tel *t)
{
    if (!t->vendor_lib[0] && !t->vendor_init[0])
        return;
    fact_set_str(fs, "memrel.vendor_lib", t->vendor_lib, "dlopen");
    fact_set_str(fs, "memrel.vendor_init", t->vendor_init,
                 t->vendor_lib[0] ? t->vendor_lib : "dlopen");
}

int probe_mem_release_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gpu_backend *b;
    struct gpu_props p;
    struct vram_tel t;
    if (gpu_probe_begin(ctx, "memrel", &b, &p)) {
        if (b) { /* no device: still say whether rocm-smi / NVML load and init */
            vram_tel_open(&t, b, NULL);
            vendor_facts(fs, &t);
            vram_tel_close(&t);
        }
        return 0;
    }
    void *warm = NULL;
    if (!b->malloc(b, &warm, 1 << 20)) /* the allocator's own first-use cost */
        b->free(b, warm);
    b->device_sync(b);
    size_t fr = 0, tot = 0;
    if (b->mem_info(b, &fr, &tot)) {
        gpu_probe_unavailable(ctx, "memrel", "%s", b->err);
        return 0;
    }
    vram_tel_open(&t, b, &p);
    vendor_facts(fs, &t);
    fact_set_str(fs, "memrel.source", t.source, "probe");
    fact_set_str(fs, "memrel.source_lib", t.where, "probe");
    fact_set_str(fs, "memrel.source_tried", t.tried, "probe");
    const char *src = t.where[0] ? t.where : b->lib;
    size_t chunk = 1ull << 30;
    if (chunk > fr / 4)
        chunk = fr / 4;
    double base = 0, after = 0, rt_base = runtime_used_mb(b);
    if (used_mb(&t, &base)) {
        fact_set_unknown(fs, "memrel.delta_mb", src, "cannot read VRAM used (%s)", t.source);
        vram_tel_close(&t);
        return 0;
    }
    double peak = base;
    for (int i = 0; i < MR_CYCLES; i++) {
        void *a = NULL, *c = NULL;
        if (b->malloc(b, &a, chunk) || b->malloc(b, &c, chunk / 2)) {
            fact_set_unknown(fs, "memrel.delta_mb", src, "allocation failed: %s", b->err);
            vram_tel_close(&t);
            return 0;
        }
        b->memset(b, a, i, chunk);
        b->memset(b, c, i, chunk / 2);
        b->device_sync(b);
        double u;
        if (!used_mb(&t, &u) && u > peak)
            peak = u;
        b->free(b, c);
        b->free(b, a);
    }
    b->device_sync(b);
    fact_set_int(fs, "memrel.cycles", MR_CYCLES, "probe");
    fact_set_float(fs, "memrel.chunk_mb", (double)chunk / 1048576.0, "probe");
    if (used_mb(&t, &after)) {
        fact_set_unknown(fs, "memrel.delta_mb", src, "VRAM used unreadable after the cycles (%s)",
                         t.source);
    } else {
        fact_set_float(fs, "memrel.baseline_mb", base, src);
        fact_set_float(fs, "memrel.peak_mb", peak, src);
        fact_set_float(fs, "memrel.after_mb", after, src);
        fact_set_float(fs, "memrel.delta_mb", after - base, src);
    }
    double rt_after = runtime_used_mb(b);
    if (rt_base >= 0 && rt_after >= 0)
        fact_set_float(fs, "memrel.runtime_delta_mb", rt_after - rt_base, b->lib);
    else
        fact_set_unknown(fs, "memrel.runtime_delta_mb", b->lib, "%s", b->err);
    vram_tel_close(&t);
    return 0;
}
