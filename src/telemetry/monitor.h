/* monitor.h - `rocm-vla-doctor monitor` (headless telemetry recording) and
 * the AMD GPU list the telemetry users share. */
#ifndef RVD_MONITOR_H
#define RVD_MONITOR_H

#include "../core/util.h"

/* the AMD GPUs' PCI addresses as the gpu probe lists them (the numbering of
 * gpu.<i> in the checks): gpu_enumerate's (src/core/gpu_enum.h), through
 * rootfs; telemetry.c */
void tel_list_amd(struct strlist *bdfs);

int monitor_cmd(int argc, char **argv);
struct cmd_spec;
extern const struct cmd_spec monitor_spec; /* its option table */

#endif
