/* gaps.h - the fast paths a VLA pass on a GPU backend can take, and for one
 * run which it could not take and why (vla.backend_gaps, bench's "fast
 * paths" line). The reasons are what the backend and its libraries answered
 * at run time (no hipBLASLt loaded and why, no pointer-array GEMM bound, the
 * graph capture's error, the fused attention kernel without a body for the
 * module's target), never a list of what one vendor lacks. docs/VLA.md's
 * "Fast paths" table lists VLA_GAPS (test_vla_gaps holds the two together). */
#ifndef RVD_VLA_GAPS_H
#define RVD_VLA_GAPS_H

#include <stddef.h>

struct vla_gpu;

/* X(key, the fast path): key names the fact vla.backend_gaps.<key> */
#define VLA_GAPS(X)                                                                                \
    X(flash_attention, "fused attention kernel: QK^T, online softmax and PV in one launch")        \
    X(lt_epilogues, "Lt BLAS GEMMs (cuBLASLt, hipBLASLt): tuned per shape, bias and GELU fused")   \
    X(ptr_batch, "pointer-array batched GEMM: the vision attention's cameras x heads in one call") \
    X(graph, "graph capture: the whole pass replayed as one graph launch")

enum vla_gap {
#define VLA_GAP_ENUM(k, path) VLA_GAP_##k,
    VLA_GAPS(VLA_GAP_ENUM) VLA_GAP_N
};

struct vla_gap_info {
    const char *key, *path;
};
extern const struct vla_gap_info vla_gap_table[VLA_GAP_N];

/* one run: why[i] says why path i was not taken, "" where it was */
struct vla_gap_set {
    char why[VLA_GAP_N][400];
};

/* the gaps the first pass on g showed (attention, Lt, pointer batch);
 * dtype: the pass's ("fp32" has no fused kernel by design: not a gap) */
void vla_gaps_from_pass(struct vla_gpu *g, const char *dtype, struct vla_gap_set *gs);
/* the graph gap: graph 0 (or a reason) after the capture was tried */
void vla_gaps_set_graph(struct vla_gap_set *gs, int graph, const char *why);
/* how many paths were not taken */
int vla_gaps_count(const struct vla_gap_set *gs);
/* "key: why; key: why" ("" when every path was taken) into out */
void vla_gaps_join(const struct vla_gap_set *gs, char *out, size_t n);

#endif
