/* ops_gpu_launch.c - the VLA kernels (kernels/vla_ops.hip, compiled at
 * run time or loaded from the cache) looked up by name, launched on the
 * context's one stream (so a pass can be captured as one graph), and with
 * --profile an event recorded after every launch of one eager pass, summed
 * per kernel name and stage. */
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "../gpu/kcache.h"
#include "ops_gpu_ctx.h"

#define KNAME(n) #n,
static const char *const knames[] = {VGPU_KERNELS(KNAME)};

/* the module for target and every kernel of VGPU_KERNELS in it; 0, or -1
 * with *why (malloc'd) */
int vgpu_kernels_load(struct vla_gpu *gp, const char *target, char **why)
{
    struct gpu_backend *b = gp->b;
    char *kw = NULL;
    if (gpu_kernel_load(b, "vla_ops", target, &gp->mod, &kw)) {
        *why = xasprintf("the VLA kernels do not build for %s: %s", target, kw ? kw : "?");
        free(kw);
        return -1;
    }
    for (int i = 0; i < K_COUNT; i++)
        if (b->function(b, gp->mod, knames[i], &gp->f[i])) {
            *why = xasprintf("kernel %s: %s", knames[i], b->err);
            return -1;
        }
    return 0;
}

unsigned vgpu_grid_for(struct vla_gpu *gp, uint64_t work)
{
    uint64_t g = (work + BLOCK - 1) / BLOCK;
    g = g < 1 ? 1 : g;
    return (unsigned)(g > (uint64_t)gp->gridmax ? (uint64_t)gp->gridmax : g);
}

/* the time since the previous mark is `what`'s (stream order) */
void vgpu_prof_mark(struct vla_gpu *gp, const char *what)
{
    if (!gp->prof_on || gp->capturing || gp->prof_n >= PROF_MAX)
        return;
    if (gp->prof_n == gp->prof_created) {
        if (gp->b->event_create(gp->b, &gp->prof_ev[gp->prof_n])) {
            gp->prof_on = 0;
            return;
        }
        gp->prof_created++;
    }
    gp->b->event_record(gp->b, gp->prof_ev[gp->prof_n], gp->s);
    gp->prof_stage[gp->prof_n] = (unsigned char)(gp->prof_syncs < 2 ? gp->prof_syncs : 2);
    gp->prof_what[gp->prof_n++] = what;
}

void vgpu_launch(struct vla_gpu *gp, int k, unsigned grid, void **args)
{
    if (gp->err)
        return;
    if (gp->b->launch(gp->b, gp->f[k], grid, BLOCK, 0, gp->s, args))
        vgpu_fail(gp, knames[k]);
    vgpu_prof_mark(gp, knames[k]);
}

/* vgpu_launch() with its own block size and dynamic shared memory (a kernel
 * whose work split needs them) */
void vgpu_launch_b(struct vla_gpu *gp, int k, unsigned grid, unsigned block, unsigned smem,
                   void **args)
{
    if (gp->err)
        return;
    if (gp->b->launch(gp->b, gp->f[k], grid, block, smem, gp->s, args))
        vgpu_fail(gp, knames[k]);
    vgpu_prof_mark(gp, knames[k]);
}

void vla_gpu_profile_begin(struct vla_gpu *gp)
{
    gp->b->stream_sync(gp->b, gp->s);
    gp->prof_on = 1;
    gp->prof_n = 0;
    gp->prof_syncs = 0;
    vgpu_prof_mark(gp, "start");
}

int vla_gpu_profile_end(struct vla_gpu *gp, struct vla_gpu_prof *out, int max)
{
    gp->b->stream_sync(gp->b, gp->s);
    gp->prof_on = 0;
    int n = 0;
    for (int i = 1; i < gp->prof_n; i++) {
        float ms = 0;
        if (gp->b->event_elapsed_ms(gp->b, &ms, gp->prof_ev[i - 1], gp->prof_ev[i]))
            return -1;
        static const char *const stage[] = {"vision", "prefix", "steps"};
        const char *st = stage[gp->prof_stage[i]];
        int j = 0;
        while (j < n && (strcmp(out[j].what, gp->prof_what[i]) != 0 || out[j].stage != st))
            j++;
        if (j == n) {
            if (n == max)
                continue;
            out[n++] = (struct vla_gpu_prof){gp->prof_what[i], st, 0, 0};
        }
        out[j].calls++;
        out[j].ms += ms;
    }
    return n;
}
