/* gaps.c - see gaps.h. */
#include "gaps.h"

#include <stdio.h>
#include <string.h>

#include "ops_gpu.h"

const struct vla_gap_info vla_gap_table[VLA_GAP_N] = {
#define VLA_GAP_ROW(k, p) [VLA_GAP_##k] = {#k, p},
    VLA_GAPS(VLA_GAP_ROW)};

static void set(struct vla_gap_set *gs, enum vla_gap i, const char *why)
{
    /* a longer reason is cut: the fact and bench's line carry its start */
    size_t n = why ? strnlen(why, sizeof(gs->why[i]) - 1) : 0;
    memcpy(gs->why[i], why ? why : "", n);
    gs->why[i][n] = '\0';
}

void vla_gaps_from_pass(struct vla_gpu *g, const char *dtype, struct vla_gap_set *gs)
{
    long long fl = 0, calls = 0, fb = 0;
    const char *fwhy = vla_gpu_flash(g, &fl);
    /* the kernel is 16-bit only: an fp32 pass never takes it by design;
     * the reason names the backend and the target the module was built for */
    const struct vla_gpu_info *info = vla_gpu_info(g);
    if (fl == 0 && fwhy && strcmp(dtype, "fp32") != 0)
        snprintf(gs->why[VLA_GAP_flash_attention], sizeof(gs->why[0]),
                 "%.300s (backend %.16s, target %.60s)", fwhy, info->backend, info->target);
    else
        set(gs, VLA_GAP_flash_attention, NULL);
    const char *lt = info->lt_why, *note = "";
    long long ltf = vla_gpu_lt_fallbacks(g, &note);
    if (lt[0])
        set(gs, VLA_GAP_lt_epilogues, lt);
    else if (ltf > 0)
        snprintf(gs->why[VLA_GAP_lt_epilogues], sizeof(gs->why[0]),
                 "%lld GEMM calls of the first pass fell back to the plain BLAS (%.300s)", ltf,
                 note);
    else
        set(gs, VLA_GAP_lt_epilogues, NULL);
    set(gs, VLA_GAP_ptr_batch, vla_gpu_ptr_batch(g, &calls, &fb));
}

void vla_gaps_set_graph(struct vla_gap_set *gs, int graph, const char *why)
{
    set(gs, VLA_GAP_graph, why && why[0] ? why : graph ? NULL : "no graph was captured");
}

int vla_gaps_count(const struct vla_gap_set *gs)
{
    int n = 0;
    for (int i = 0; i < VLA_GAP_N; i++)
        n += gs->why[i][0] != '\0';
    return n;
}

void vla_gaps_join(const struct vla_gap_set *gs, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < VLA_GAP_N && len < n; i++) {
        if (!gs->why[i][0])
            continue;
        int w = snprintf(out + len, n - len, "%s%s: %s", len ? "; " : "", vla_gap_table[i].key,
                         gs->why[i]);
        len = w < 0 ? n : len + (size_t)w;
    }
}
