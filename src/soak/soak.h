/* soak.h - `rocm-vla-doctor soak` (soak_cmd.c): a sustained run of the
 * reference VLA pass and a GEMM load with telemetry sampled throughout and
 * drift verdicts (soak_analyze.h, the level "soak" checks of checks.yaml). */
#ifndef RVD_SOAK_H
#define RVD_SOAK_H

int soak_cmd(int argc, char **argv);
struct cmd_spec;
extern const struct cmd_spec soak_spec; /* its option table */

#endif
