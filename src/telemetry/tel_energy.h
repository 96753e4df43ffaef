/* tel_energy.h - the energy a GPU used over an interval (energy per policy
 * call in `bench`, `--level full` and `soak`). From the GPU's own counter
 * where it has one: NVML total energy (NVIDIA, mJ), hwmon energy1_input
 * (amdgpu, uJ), the gpu_metrics energy accumulator (amdgpu, 15.259 uJ);
 * else power samples (NVML or hwmon) integrated by a thread every 10 ms.
 * The source says which. No counter and no power reading: unknown, never 0.
 * AMD values are read through rootfs.h (initialised by the caller). */
#ifndef RVD_TEL_ENERGY_H
#define RVD_TEL_ENERGY_H

#include <stddef.h>

struct tel_energy;

/* backend "cuda", "hip" (anything else has no GPU counter); pci the
 * device's sysfs address or "" (NVML then takes device 0). Never NULL. */
struct tel_energy *tel_energy_start(const char *backend, const char *pci);
/* 0: *joules and *secs over the interval since start, source names the
 * counter ("NVML total energy", "hwmon energy1_input", "gpu_metrics energy
 * accumulator", "integrated NVML power samples", ...); -1: why. Frees e. */
int tel_energy_stop(struct tel_energy *e, double *joules, double *secs, char *source, size_t sn,
                    char *why, size_t wn);

#endif
