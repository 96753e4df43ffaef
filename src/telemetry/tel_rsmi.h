/* tel_rsmi.h - AMD GPUs through rocm-smi-lib (librocm_smi64, dlopen'd
 * through src/gpu/rsmi_api.h), a source the sampler prefers over sysfs on a
 * live host. Never opened under --sysroot: the library reads the live
 * machine, and it can hang, so only callers that tel_open lets use vendor
 * libraries (monitor, soak's parent sampler, the dashboard) reach it. */
#ifndef RVD_TEL_RSMI_H
#define RVD_TEL_RSMI_H

#include "telemetry.h"

struct tel_rsmi;

/* NULL when the library does not load, lacks rsmi_init or finds no device;
 * *status says how it went ("loaded librocm_smi64.so.7, 2 device(s)") */
struct tel_rsmi *tel_rsmi_open(const char **status);
/* the rocm-smi device at the sysfs PCI address pci (matched on the decoded
 * BDFID, never by index); -1 when none is there */
int tel_rsmi_find(struct tel_rsmi *r, const char *pci);
/* overwrite g's values that device dev gives with src "rocm-smi"; a value
 * whose call fails keeps what sysfs put there (or its unknown reason) */
void tel_rsmi_sample(struct tel_rsmi *r, int dev, struct tel_gpu *g);
void tel_rsmi_close(struct tel_rsmi *r);

#endif
