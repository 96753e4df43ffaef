/* spans.c - a set of element ranges (spans.h). A handful of ranges at a
 * time (one per layer of a KV cache), so plain arrays and linear scans. */
#include "spans.h"

#include <stdlib.h>

#include "../core/util.h"

void vla_spans_cut(struct vla_spans *s, size_t lo, size_t hi)
{
    int hit = 0;
    for (int i = 0; i < s->n && !hit; i++)
        hit = s->v[i].lo < hi && lo < s->v[i].hi;
    if (!hit || lo >= hi)
        return;
    struct vla_span *nv = xmalloc((size_t)(s->n + 1) * sizeof(*nv));
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        struct vla_span r = s->v[i];
        if (r.hi <= lo || hi <= r.lo) {
            nv[n++] = r;
            continue;
        }
        if (r.lo < lo)
            nv[n++] = (struct vla_span){r.lo, lo};
        if (hi < r.hi)
            nv[n++] = (struct vla_span){hi, r.hi};
    }
    free(s->v);
    s->v = nv;
    s->n = n;
}

void vla_spans_add(struct vla_spans *s, size_t lo, size_t hi)
{
    if (lo >= hi)
        return;
    vla_spans_cut(s, lo, hi); /* what is left touches [lo, hi) at most */
    for (int i = 0; i < s->n; i++)
        if (s->v[i].hi == lo || hi == s->v[i].lo) {
            lo = s->v[i].lo < lo ? s->v[i].lo : lo;
            hi = s->v[i].hi > hi ? s->v[i].hi : hi;
            s->v[i--] = s->v[--s->n]; /* merged: look at the one moved here */
        }
    s->v = xrealloc(s->v, (size_t)(s->n + 1) * sizeof(*s->v));
    s->v[s->n++] = (struct vla_span){lo, hi};
}

int vla_spans_cover(const struct vla_spans *s, size_t lo, size_t hi)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].lo <= lo && hi <= s->v[i].hi)
            return 1;
    return 0;
}

void vla_spans_clear(struct vla_spans *s)
{
    s->n = 0;
}

void vla_spans_free(struct vla_spans *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}
