/* spans.h - a set of element ranges [lo, hi): which parts of a GPU
 * allocation's 16-bit mirror hold the current values (ops_gpu.c). Writes
 * add or cut ranges; a read asks whether one range is covered. */
#ifndef RVD_VLA_SPANS_H
#define RVD_VLA_SPANS_H

#include <stddef.h>

struct vla_span {
    size_t lo, hi;
};

struct vla_spans {
    struct vla_span *v; /* disjoint, none touching another, in no order */
    int n;
};

/* [lo, hi) no longer in the set (a contiguous cut splits one range at most) */
void vla_spans_cut(struct vla_spans *s, size_t lo, size_t hi);
/* [lo, hi) in the set, merged with the ranges it overlaps or touches */
void vla_spans_add(struct vla_spans *s, size_t lo, size_t hi);
/* 1 when one range of the set holds all of [lo, hi) */
int vla_spans_cover(const struct vla_spans *s, size_t lo, size_t hi);
void vla_spans_clear(struct vla_spans *s); /* empty, memory kept */
void vla_spans_free(struct vla_spans *s);

#endif
