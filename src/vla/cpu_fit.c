/* cpu_fit.c - see cpu_fit.h */
#include "cpu_fit.h"

#include "model.h"
#include "weights.h"

int vla_cpu_fits(const struct vla_preset *p, double *bytes, double *flops)
{
    struct vla_weights w;
    vla_weights_layout(&w, p, 0);
    double need = (double)w.arena_len * 4, f = vla_flops(p, p->vision.image);
    vla_weights_release(&w);
    if (bytes)
        *bytes = need;
    if (flops)
        *flops = f;
    return need <= VLA_CPU_MAX_WEIGHT_BYTES && f <= VLA_CPU_MAX_FLOPS;
}
