/* soak_outputs.h - outputs that stay right under load (issue 36): every
 * soak call's actions against the first call's (same inputs, same seed),
 * in the child one call at a time (soak_outputs_compare), then the run's
 * verdict facts in the parent (soak_outputs_facts). Pure functions, so the
 * unit tests give them planted differences.
 *
 * The backends are deterministic for a fixed input: the CPU reference, and
 * a GPU graph replay (GEMM algorithms picked once per shape, no atomics in
 * a sum; the only atomics of kernels/vla_ops.hip are a max and an or of the
 * non-finite scan). So a call that differs in any bit is reported, and one
 * that differs beyond the tolerance of checks.yaml's soak.outputs (relative
 * to the first call's largest |action|) fails.
 *
 * Facts (soak.outputs_*, declared in probes/fact_catalog.c):
 *   compared          calls compared with the first (the first excluded)
 *   differ_calls      calls that differ from the first in any bit
 *   first_differ_call the 1-based index of the first such call
 *                     (unknown with the reason when none differs)
 *   max_diff          the largest |a - a0| over every call, physical units
 *   max_rel_diff      max_diff / max |a0| (the first call's largest action)
 *   nonfinite         non-finite values in every call's actions, summed
 *   nonfinite_calls   calls with at least one non-finite value */
#ifndef RVD_SOAK_OUTPUTS_H
#define RVD_SOAK_OUTPUTS_H

#include <stddef.h>

#include "../core/fact.h"

/* one call against the first */
struct soak_out_cmp {
    int differ;      /* any bit differs */
    double max_diff; /* max |cur - ref| over finite pairs (physical units) */
    double rel_diff; /* max_diff / max |ref|; max_diff when max |ref| is 0 */
    long nonfinite;  /* non-finite values of cur */
};

void soak_outputs_compare(const float *ref, const float *cur, size_t n, struct soak_out_cmp *out);

/* the run's facts from the calls' comparisons (cmp[0] is the first call's
 * own, which compares with itself: its non-finite values count) */
void soak_outputs_facts(const struct soak_out_cmp *cmp, size_t ncalls, struct factset *fs);

/* the test hook ROCM_VLA_DOCTOR_SOAK_OUTPUTS="CALL KIND [VALUE][,...]":
 * from the 1-based call CALL on, KIND "add" adds VALUE to the first
 * action, "nan" makes it NaN: a marginal GPU's wrong result placed by call
 * count (never by the clock), after the pass and before the comparison.
 * Returns 0, or -1 with a message for a malformed spec. */
struct soak_out_plant {
    long from_call;
    int nan;
    double add;
};
int soak_outputs_plants(const char *spec, struct soak_out_plant *v, size_t max, size_t *n);
void soak_outputs_apply(const struct soak_out_plant *v, size_t n, long call, float *act);

#endif
