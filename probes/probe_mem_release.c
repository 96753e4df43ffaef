/* probe_mem_release.c - VRAM returns to its baseline after allocate/free
 * cycles (probe "mem_release", check mem.release). Used VRAM is read from the
 * runtime (total - free) and, as a second opinion outside the process's
 * allocator, from the driver: amdgpu's mem_info_vram_used in sysfs for AMD.
 * Facts: memrel.cycles, memrel.chunk_mb, memrel.baseline_mb, memrel.peak_mb,
 * memrel.after_mb, memrel.delta_mb (after - baseline), memrel.source,
 * memrel.sysfs_delta_mb (AMD only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/gpu_probe.h"
#include "../src/gpu/isolate.h"
#include "probe.h"

#define MR_CYCLES 20

int probe_mem_release_run(struct probe_ctx *ctx);

static double used_mb(struct gpu_backend *b)
{
    size_t f = 0, t = 0;
    if (b->mem_info(b, &f, &t))
        return -1;
    return (double)(t - f) / 1048576.0;
}

static int sysfs_used(const char *pci, uint64_t *v)
{
    return rootfs_readf_u64(v, "/sys/bus/pci/devices/%s/mem_info_vram_used", pci);
}

int probe_mem_release_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct gpu_backend *b;
    struct gpu_props p;
    if (gpu_probe_begin(ctx, "memrel", &b, &p))
        return 0;
    const char *src = b->lib;
    void *warm = NULL;
    if (!b->malloc(b, &warm, 1 << 20)) /* the allocator's own first-use cost */
        b->free(b, warm);
    b->device_sync(b);
    size_t fr = 0, tot = 0;
    if (b->mem_info(b, &fr, &tot)) {
        gpu_probe_unavailable(ctx, "memrel", "%s", b->err);
        return 0;
    }
    size_t chunk = 1ull << 30;
    if (chunk > fr / 4)
        chunk = fr / 4;
    double base = used_mb(b), peak = base;
    uint64_t s0 = 0, s1 = 0;
    int have_sysfs = p.pci[0] && sysfs_used(p.pci, &s0) == 0;
    for (int i = 0; i < MR_CYCLES; i++) {
        void *a = NULL, *c = NULL;
        if (b->malloc(b, &a, chunk) || b->malloc(b, &c, chunk / 2)) {
            fact_set_unknown(fs, "memrel.delta_mb", src, "allocation failed: %s", b->err);
            return 0;
        }
        b->memset(b, a, i, chunk);
        b->memset(b, c, i, chunk / 2);
        b->device_sync(b);
        double u = used_mb(b);
        peak = u > peak ? u : peak;
        b->free(b, c);
        b->free(b, a);
    }
    b->device_sync(b);
    double after = used_mb(b);
    fact_set_int(fs, "memrel.cycles", MR_CYCLES, "probe");
    fact_set_float(fs, "memrel.chunk_mb", (double)chunk / 1048576.0, "probe");
    fact_set_float(fs, "memrel.baseline_mb", base, src);
    fact_set_float(fs, "memrel.peak_mb", peak, src);
    fact_set_float(fs, "memrel.after_mb", after, src);
    fact_set_float(fs, "memrel.delta_mb", after - base, src);
    fact_set_str(fs, "memrel.source", have_sysfs ? "runtime mem info + amdgpu sysfs" : "runtime mem info",
                 src);
    if (have_sysfs && sysfs_used(p.pci, &s1) == 0)
        fact_set_float(fs, "memrel.sysfs_delta_mb", ((double)s1 - (double)s0) / 1048576.0,
                       "mem_info_vram_used");
    return 0;
}
