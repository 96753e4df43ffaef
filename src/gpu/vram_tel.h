/* vram_tel.h - device-wide VRAM used, read outside the process's allocator:
 * rocm-smi-lib (librocm_smi64, rsmi_bind.h) on the HIP backend, NVML
 * (libnvidia-ml.so.1, nvml_bind.h) on the CUDA reference, else amdgpu's sysfs
 * mem_info_vram_used (through rootfs), else the runtime's own mem info
 * (total - free). Use only inside an isolated probe child: the vendor
 * libraries initialise driver state. Library paths can be forced with
 * ROCM_VLA_DOCTOR_RSMI_LIB / ROCM_VLA_DOCTOR_NVML_LIB (tests). */
#ifndef RVD_GPU_VRAM_TEL_H
#define RVD_GPU_VRAM_TEL_H

#include <stdint.h>

#include "backend.h"

enum vram_src { VRAM_SRC_NONE, VRAM_SRC_RSMI, VRAM_SRC_NVML, VRAM_SRC_SYSFS, VRAM_SRC_RUNTIME };

struct vram_tel {
    enum vram_src src;
    const char *source;    /* "rocm-smi", "NVML", "amdgpu sysfs", "runtime mem info", "none" */
    char where[512];       /* the library or file read */
    char vendor_lib[512];  /* the vendor library tried (rocm-smi or NVML), "" if none */
    char vendor_init[512]; /* its init result: "RSMI_STATUS_SUCCESS (0), 1 device(s)",
                            * "rsmi_init: status 8 (...)", or why it did not load */
    char tried[1024];      /* each source passed over and why, "; "-separated */
    struct gpu_backend *b;
    char pci[32];
    void *priv; /* the vendor library's resolved functions (vram_tel.c) */
};

/* pick the best source for device p of backend b (p NULL: only try the
 * vendor library's init, for a machine without a device). Never fails:
 * src = VRAM_SRC_NONE when nothing can be read. */
void vram_tel_open(struct vram_tel *t, struct gpu_backend *b, const struct gpu_props *p);
/* bytes of VRAM in use on the device: 0 or -1 (t->b->err or nothing) */
int vram_tel_used(struct vram_tel *t, uint64_t *used);
void vram_tel_close(struct vram_tel *t);

#endif
