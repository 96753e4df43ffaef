/* probe.h - probes produce facts, never verdicts.
 *
 * The probes form one static table (probe_table.c); its order is the order
 * of the run. Each probe reads the system only through rootfs.h, so that it
 * works the same on the live host, a fixture tree and a collected snapshot. */
#ifndef RVD_PROBE_H
#define RVD_PROBE_H

#include "../src/core/checks.h"
#include "../src/core/fact.h"
#include "../src/core/probe_def.h"
#include "../src/core/rootfs.h"

/* The design's rule for --sysroot (issue 30): a recorded machine is data.
 * No probe executes a program the snapshot names, and none measures this
 * host; a probe that can only measure skips with this reason, unless an
 * option names what to run here (--python). */
#define PROBE_LIVE_ONLY "measured on the live machine only"

extern const struct probe probe_table[];
extern const size_t probe_count;

/* the table's row named name, or NULL: how a command outside the probes
 * (soak's host line, the dashboard's workload) reaches one probe */
const struct probe *probe_find(const char *name);

/* run every probe up to ctx->level, in table order; probes with needs_gpu
 * run in an isolated child (src/gpu/isolate.h), the per-GPU ones once per
 * device of ctx->opts->gpus. -1 after an error() when --gpu is malformed or
 * names a device the runtime does not show (exit 2). */
int probes_run_all(struct probe_ctx *ctx);
/* before a GPU probe forks: the HIP backend's library directory from
 * rocm.torch_lib_set ("wheel:DIR": PyTorch loads its torch/lib copies, so the
 * GPU children load them too); nothing on a sysroot */
void probes_pick_hip_dir(const struct factset *fs);
/* `check --only`: add to out the probes producing facts (names as a check
 * writes them, per_gpu: of a per-GPU check; src/core/checks_facts.c) and
 * the probes those read (probe_needs_of); then probes_select_finish() adds
 * host (every report names it) and, when a probe above the quick level runs
 * (at `level`), every quick probe. out becomes probe_opts.only_probes. */
void probes_select(const struct strlist *facts, int per_gpu, struct strlist *out);
void probes_select_finish(struct strlist *out, enum level level);

/* shared by probes: environment variables recorded in the "environ" query;
 * NULL when unset. Only variables on the whitelist in probe_env.c are ever
 * recorded, so a snapshot never carries secrets. */
const char *probe_getenv(const char *name);
/* a query whose producer reads files too large for a snapshot (ELF
 * libraries): the recorded text under a collected snapshot, else the
 * producer's text, also on a fixture tree without the query (its files are
 * read in place; *src then becomes `tree_src`). 0 or -errno. */
int probe_query_or_tree(const char *name, rootfs_producer producer, char **text, const char **src,
                        const char *tree_src);
/* AMD GPUs found by probe_gpu: index -> PCI address ("0000:03:00.0") */
const char *probe_gpu_pci(const struct factset *fs, int gpu, char buf[FACT_NAME_MAX]);

#endif
