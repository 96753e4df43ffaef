/* bench_torch.h - `bench --torch`: the doctor's pass and the team's PyTorch
 * (the torch probe, probes/probe_torch.c) side by side per stage. The
 * printer lives with the probe (probes/bench_torch.c), a layer above this
 * one, so main sets the hook and bench calls it. */
#ifndef RVD_VLA_BENCH_TORCH_H
#define RVD_VLA_BENCH_TORCH_H

#include <stdio.h>

#include "bench_gpu.h"
#include "preset.h"

/* run the torch probe under python (NULL: python3 on PATH) on preset p and
 * print the table after the doctor's figures g (one pass, its stages) */
typedef void (*vla_bench_torch_fn)(FILE *f, const char *python, const struct vla_preset *p,
                                   const struct vla_gpu_out *g);
/* set by main (NULL: --torch says it is not built in) */
extern vla_bench_torch_fn vla_bench_torch_hook;

#endif
