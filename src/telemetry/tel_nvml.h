/* tel_nvml.h - the sampler's NVIDIA half (NVML, dlopen'd through
 * src/gpu/nvml_api.h) and the setters the sampler's parts share. */
#ifndef RVD_TEL_NVML_H
#define RVD_TEL_NVML_H

#include <stddef.h>

#include "telemetry.h"

struct tel_nvml;

/* NULL when NVML does not load or finds no device; *status says how it went */
struct tel_nvml *tel_nvml_open(const char **status);
size_t tel_nvml_count(const struct tel_nvml *n);
void tel_nvml_sample(struct tel_nvml *n, size_t i, struct tel_gpu *g);
void tel_nvml_close(struct tel_nvml *n);
/* the device at PCI address pci ("" = index 0); -1 when none */
int tel_nvml_find(struct tel_nvml *n, const char *pci);
/* device i's PCI address in sysfs' form ("0000:06:00.0"); "" when NVML
 * cannot tell it (the sample's pcie_path_* reasons say why) */
const char *tel_nvml_pci(const struct tel_nvml *n, size_t i);
/* the name a sample gives device i (struct tel_gpu.pci): its PCI address,
 * else "nvml:<i>" */
void tel_nvml_key(const struct tel_nvml *n, size_t i, char *buf, size_t len);
/* an NVML bus id ("00000000:06:00.0", any domain width, any case) in sysfs'
 * form ("0000:06:00.0") in out; -1 when it is not one */
int tel_nvml_bus_id(const char *bus_id, char *out, size_t len);
/* NVML_SUCCESS (0) and the value, or NVML's error code (-1: not in this driver) */
int tel_nvml_energy_mj(struct tel_nvml *n, size_t i, unsigned long long *mj);
int tel_nvml_power_mw(struct tel_nvml *n, size_t i, unsigned *mw);
const char *tel_nvml_error(struct tel_nvml *n, int e);

/* one process on an NVIDIA GPU */
struct tel_nvml_proc {
    unsigned pid;
    long long vram_bytes; /* -1: NVML_VALUE_NOT_AVAILABLE */
    double busy_pct;      /* SM utilization of its newest sample; -1 none or not supported */
    const char *src;      /* "NVML compute", "NVML graphics", "NVML compute+graphics" */
};
/* the processes on device i (compute and graphics, one entry per pid):
 * 0 and *out (free it; NULL when none), or -1 with the failing call and
 * NVML's reason in why (the list is unknown then, not empty) */
int tel_nvml_procs(struct tel_nvml *n, size_t i, struct tel_nvml_proc **out, size_t *nout,
                   char *why, size_t why_n);

/* a vendor library: the path in env when set, else the first of names that
 * loads; its path in lib. NULL with "not loaded: <why>" in status. */
void *tel_dlopen(const char *env, const char *const *names, size_t n, char *lib, size_t lib_n,
                 char *status, size_t status_n);

void tel_gpu_set(struct tel_gpu *g, enum tel_key k, double v, const char *src);
void tel_gpu_unknown(struct tel_gpu *g, enum tel_key k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
