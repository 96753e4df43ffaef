/* peaks.h - the per-architecture table of checks.yaml's top-level `peaks:`
 * (man 5 checks.yaml): operations per clock per compute unit (CU, or SM on
 * NVIDIA) and memory transfers per memory clock, each row with its source.
 * The probes derive a device's peak rates from it (probes/peak_model.h);
 * a figure absent from a row is "no figure", never 0. */
#ifndef RVD_PEAKS_H
#define RVD_PEAKS_H

#include <stddef.h>

#include <yaml.h>

struct peak_arch {
    char *arch;   /* "gfx942", "sm_90": the processor, without target features */
    char *name;   /* "CDNA3: MI300X, MI300A, MI325X" (optional) */
    char *memory; /* "HBM3" (optional) */
    char *source; /* where the figures come from (required) */
    /* dense FLOPs per clock per CU/SM; memory transfers per pin per memory
     * clock as the driver reports it (pp_dpm_mclk, KFD mem_clk_max, the
     * runtime's memory clock); 0: the row has no such figure */
    double fp16_matrix, bf16_matrix, fp32_vector, mem_transfers_per_clock;
    unsigned long line;
};

struct peak_table {
    struct peak_arch *v;
    size_t n;
};

/* parse the `peaks:` node: 0, or -1 after printing "file:line:col: message"
 * (not a list, an entry not a mapping, an unknown or repeated key, a missing
 * arch or source, a malformed arch, a figure that is not a positive number,
 * an arch listed twice). *t is released on failure. */
int peaks_parse(yaml_document_t *doc, yaml_node_t *n, const char *file, struct peak_table *t);
/* the row for a processor ("gfx90a", also "gfx90a:sramecc+:xnack-" or
 * "amdgcn-amd-amdhsa--gfx90a"), or NULL */
const struct peak_arch *peaks_find(const struct peak_table *t, const char *arch);
void peaks_release(struct peak_table *t);

#endif
