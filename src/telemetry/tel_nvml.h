/* tel_nvml.h - NVIDIA GPUs through NVML (src/gpu/nvml_bind.h): the calls the
 * energy meter (tel_energy.c) makes outside the sampler, whose NVML source
 * (tel_src_nvml.c, tel_source.h) shares the device list and the bus ids. */
#ifndef RVD_TEL_NVML_H
#define RVD_TEL_NVML_H

#include <stddef.h>

struct tel_nvml;

/* NULL when NVML does not load or finds no device; *status says how it went */
struct tel_nvml *tel_nvml_open(const char **status);
void tel_nvml_close(struct tel_nvml *n);
/* the device at PCI address pci ("" = index 0); -1 when none */
int tel_nvml_find(struct tel_nvml *n, const char *pci);
/* an NVML bus id ("00000000:06:00.0", any domain width, any case) in sysfs'
 * form ("0000:06:00.0") in out; -1 when it is not one */
int tel_nvml_bus_id(const char *bus_id, char *out, size_t len);
/* NVML_SUCCESS (0) and the value, or NVML's error code (-1: not in this driver) */
int tel_nvml_energy_mj(struct tel_nvml *n, size_t i, unsigned long long *mj);
int tel_nvml_power_mw(struct tel_nvml *n, size_t i, unsigned *mw);

#endif
