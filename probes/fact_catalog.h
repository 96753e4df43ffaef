/* fact_catalog.h - every fact a probe can produce, declared by the probes.
 *
 * Each probe table entry (probe_table.c) points at the list of facts the
 * probe may set, with their types; a fact may always be unknown instead.
 * Names with a part in angle brackets are patterns:
 *   <i>      a decimal index (gpu.<i>.vram_bytes, runtime.dev.<i>.name)
 *   <probe>  the name of a probe in the table (probe.<probe>.status)
 *   <VAR>    an environment variable name (env.var.<VAR>)
 * checks.yaml is validated against this catalogue before any probe runs, so
 * a misspelt fact is a load error, never a check that silently skips. */
#ifndef RVD_FACT_CATALOG_H
#define RVD_FACT_CATALOG_H

#include <stddef.h>
#include <stdio.h>

#include "../src/fact.h"

struct fact_decl {
    const char *name; /* NULL ends a list */
    enum fact_type type;
};

/* one list per probe (fact_catalog.c), referenced from probe_table.c */
extern const struct fact_decl facts_host[], facts_env[], facts_driver[], facts_kernel_log[],
    facts_kfd[], facts_user[], facts_container[], facts_gpu[], facts_pcie[], facts_iommu[],
    facts_kernel[], facts_rocm[], facts_python[], facts_gpu_runtime[], facts_kernels[],
    facts_sync[], facts_bandwidth[], facts_hmm[], facts_mem_release[], facts_target_binaries[],
    facts_vulkan[], facts_fp[], facts_fp_sampling[], facts_gemm_peak[], facts_vla[];
/* set for every probe by the probe runner (probe_table.c, src/gpu/isolate.c) */
extern const struct fact_decl facts_probe_runner[];

/* does a declared name (possibly a pattern) match a concrete fact name? */
int fact_pattern_match(const char *pattern, const char *name);
/* the declaration a fact name matches: 0 and *out, or -1 when no probe
 * declares it */
int fact_catalog_find(const char *name, const struct fact_decl **out, const char **probe);
/* the declared name closest to a misspelt one (edit distance), or NULL;
 * per_gpu also offers "gpu.<name>" for each "gpu.<i>.<name>" */
const char *fact_catalog_suggest(const char *name, int per_gpu, char *buf, size_t n);
const char *fact_type_name(enum fact_type t);
/* `list --facts`: name, type and probe of every declaration, in run order */
void fact_catalog_print(FILE *out);

#endif
