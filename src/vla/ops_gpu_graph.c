/* ops_gpu_graph.c - the stage boundary (sync) and the pass as graphs: one
 * graph of the whole pass for the timed replays, and the same pass split at
 * every stage boundary with events between the pieces for the stage times.
 * Host inputs and outputs go through the staging ops_gpu_mem.c records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "ops_gpu_ctx.h"

void vgpu_sync(void *ctx)
{
    struct vla_gpu *gp = ctx;
    vgpu_shadows_clear(gp);
    gp->prof_syncs += gp->prof_on; /* vla_forward syncs after vision and after the prefix */
    if (gp->capturing == 2) {      /* split capture: a stage boundary ends one graph */
        gpu_graph g = NULL;
        if (gp->b->graph_end(gp->b, gp->s, &g) || gp->nsg == MAX_EVENTS) {
            vgpu_fail(gp, "graph of a stage");
            return;
        }
        gp->sg[gp->nsg++] = g;
        if (gp->b->graph_begin(gp->b, gp->s))
            vgpu_fail(gp, "graph begin");
        return;
    }
    if (gp->capturing)
        return;
    if (gp->b->stream_sync(gp->b, gp->s))
        vgpu_fail(gp, "stream synchronize");
}

static void run_staged(struct vla_gpu *gp, int from, int to, int up)
{
    for (int i = from; i < to; i++) {
        if (up && gp->st[i].host_src)
            memcpy(gp->st[i].pin, gp->st[i].host_src, gp->st[i].bytes);
        if (!up && gp->st[i].host_dst)
            memcpy(gp->st[i].host_dst, gp->st[i].pin, gp->st[i].bytes);
    }
}

/* capture the pass: mode 1 whole, mode 2 split at every stage boundary */
static int capture(struct vla_gpu *gp, struct vla_model *m, const struct vla_inputs *in,
                   float *actions, int mode, char **why)
{
    struct gpu_backend *b = gp->b;
    b->stream_sync(b, gp->s);
    if (b->graph_begin(b, gp->s)) {
        *why = xasprintf("begin capture: %s", b->err);
        return -1;
    }
    gp->capturing = mode;
    int rc = vla_forward(m, in, actions, NULL, NULL);
    gp->capturing = 0;
    gpu_graph g = NULL;
    int e = b->graph_end(b, gp->s, &g);
    if (mode == 2 && g) /* the empty tail after the last boundary */
        b->graph_destroy(b, g), g = NULL;
    if (rc || e || gp->err) {
        *why = xasprintf("capture failed: %s", gp->err ? gp->errmsg
                                               : e     ? b->err
                                                       : "the pass failed");
        if (g)
            b->graph_destroy(b, g);
        gp->err = 0;
        return -1;
    }
    if (mode == 1)
        gp->graph = g;
    return 0;
}

int vla_gpu_graph_capture(struct vla_gpu *gp, struct vla_model *m, const struct vla_inputs *in,
                          float *actions, char **why)
{
    *why = NULL;
    struct gpu_backend *b = gp->b;
    if (!b->graph_begin || !b->graph_end) {
        *why = xasprintf("the %s backend has no graph API", b->name);
        return -1;
    }
    if (gp->err) {
        *why = xasprintf("an earlier error: %s", gp->errmsg);
        return -1;
    }
    size_t need = (size_t)m->B *
                      ((size_t)in->cameras * 3 * in->image * in->image + (size_t)in->ntok +
                       2 * (size_t)m->C * m->A) *
                      4 +
                  MAX_STAGED * 64;
    if (!gp->pool) {
        if (b->malloc_host(b, (void **)&gp->pool, 2 * need)) {
            *why = xasprintf("pinned staging: %s", b->err);
            gp->pool = NULL;
            return -1;
        }
        gp->pool_len = 2 * need;
    }
    int want = VLA_STAGES(m->p) + 1;
    if (want > MAX_EVENTS) {
        *why = xasprintf("too many stages (%d) for the event table", want);
        return -1;
    }
    while (gp->nev_created < want && b->event_create(b, &gp->ev[gp->nev_created]) == 0)
        gp->nev_created++;
    gp->pool_used = 0;
    gp->nst = 0;
    if (capture(gp, m, in, actions, 1, why))
        return -1;
    gp->nst_whole = gp->nst;
    char *w2 = NULL;
    if (capture(gp, m, in, actions, 2, &w2) || gp->nsg != VLA_STAGES(m->p)) {
        /* the whole graph stands; stage times are then unknown */
        for (int i = 0; i < gp->nsg; i++)
            b->graph_destroy(b, gp->sg[i]);
        gp->nsg = 0;
        gp->nst = gp->nst_whole;
    }
    free(w2);
    return 0;
}

int vla_gpu_graph_run(struct vla_gpu *gp, double *stage_s, int nstages)
{
    struct gpu_backend *b = gp->b;
    if (!stage_s) {
        run_staged(gp, 0, gp->nst_whole, 1);
        if (b->graph_launch(b, gp->graph, gp->s) || b->stream_sync(b, gp->s))
            return vgpu_fail(gp, "graph replay"), -1;
        run_staged(gp, 0, gp->nst_whole, 0);
        return 0;
    }
    /* the split graphs back to back, events between them (outside any graph) */
    for (int i = 0; i < nstages; i++)
        stage_s[i] = NAN;
    if (gp->nsg != nstages || gp->nev_created < nstages + 1)
        return 0;
    run_staged(gp, gp->nst_whole, gp->nst, 1);
    int e = b->event_record(b, gp->ev[0], gp->s);
    for (int i = 0; i < gp->nsg && !e; i++)
        e = b->graph_launch(b, gp->sg[i], gp->s) || b->event_record(b, gp->ev[i + 1], gp->s);
    if (e || b->stream_sync(b, gp->s))
        return vgpu_fail(gp, "stage graph replay"), -1;
    run_staged(gp, gp->nst_whole, gp->nst, 0);
    for (int i = 0; i < nstages; i++) {
        float ms = -1;
        if (!b->event_elapsed_ms(b, &ms, gp->ev[i], gp->ev[i + 1]))
            stage_s[i] = ms * 1e-3;
    }
    return 0;
}
