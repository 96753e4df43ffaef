/* ops_check.h - the fused operations of an ops table held to the unfused
 * composition on the reference table, on odd shapes (37 rows, 3 heads of
 * 72, 1/7/50-row GEMMs, two sequences). The CPU unit test runs it CPU vs
 * CPU; `bench --kernel-test` runs it GPU vs CPU (tests/gpu_device.sh). */
#ifndef RVD_VLA_OPS_CHECK_H
#define RVD_VLA_OPS_CHECK_H

#include <stdio.h>

#include "ops.h"

/* every fused op of `test` against the composition on `ref` (host memory).
 * tol: the largest error allowed, relative to the reference's max |value|.
 * Prints one line per case to log (NULL: quiet); returns the failures. */
int vla_ops_check(const struct vla_ops *ref, const struct vla_ops *test, double tol, FILE *log);

/* the odd-shaped preset (vision 3 heads x 72 on 49 tokens x 2 cameras,
 * decoders 3 heads x 72 over 1 KV head, a 7-row chunk): YAML text */
extern const char vla_odd_preset_yaml[];

#endif
