/* env_left_set.h - environment variables that, left set in a shell or a
 * profile, hide GPUs from ROCm or slow every GPU call (issue 32). The table
 * and its reasons are in env_left_set.c; probe_env turns it into facts. */
#ifndef RVD_ENV_LEFT_SET_H
#define RVD_ENV_LEFT_SET_H

#include "../src/core/fact.h"

/* sets env.gpu_visibility, env.gpu_visibility_none and env.debug_left from
 * the recorded NAME=value lines (probe_getenv) */
void env_left_set_facts(struct factset *fs);

/* the reason a debugging variable matters, or NULL when `name` is not one
 * of the table's or `value` is its harmless setting (unit tests) */
const char *env_left_set_why(const char *name, const char *value);

#endif
