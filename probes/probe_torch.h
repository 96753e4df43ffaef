/* probe_torch.h - the torch probe's collector (probe_torch.c), shared by
 * the full level and `bench --torch` (src/cmd/bench.c). */
#ifndef RVD_PROBE_TORCH_H
#define RVD_PROBE_TORCH_H

#include <stdio.h>

#include "../src/core/fact.h"
#include "../src/vla/bench_gpu.h"
#include "../src/vla/preset.h"

/* run torch_probe.py under interpreter exe (a path, or a name looked up on
 * PATH) on preset want (a name or a .yaml path); torch.* facts into fs,
 * unknown with the reason where the answer lacks them; budget_s bounds the
 * probe's wall time (0: the default). 0. */
int probe_torch_collect(struct factset *fs, const char *exe, const char *want, double budget_s);
/* the child's stdout (one JSON object) and stderr as torch.* facts, or why
 * no answer came (why non-NULL); doc: the doctor's actions on the shared
 * preset, or NULL. Untrusted input: the fuzz harness torch_answer feeds it. */
struct strbuf;
void probe_torch_answer(struct factset *fs, const char *exe, const char *why, struct strbuf *out,
                        struct strbuf *err, const float *doc, size_t ndoc);

/* `bench --torch`: run the torch probe under python (NULL: python3 on
 * PATH) on preset p and print the table after the doctor's figures g
 * (probes/bench_torch.c; src/cmd/bench.c calls it) */
void probe_bench_torch(FILE *f, const char *python, const struct vla_preset *p,
                       const struct vla_gpu_out *g);

#endif
