/* tel_source.h - one source of GPU telemetry for the sampler (telemetry.c),
 * as nvtop's per-vendor backends: a source lists devices, names each one's
 * PCI address, fills a struct tel_gpu for it and may list the processes
 * using them. The sources are one table (tel_sources.c), sampled in its
 * order; a new source is one file (tel_src_<name>.c) and one line there.
 *
 * Pairing is by PCI address, never by index: a device at an address an
 * earlier source already lists is that GPU. An overlay source (rocm-smi)
 * adds no GPU: what it gives overwrites the earlier source's values of the
 * same GPU, the rest stays theirs. Another source's device at a listed
 * address is left out (NVML beside amdgpu: never one GPU twice). */
#ifndef RVD_TEL_SOURCE_H
#define RVD_TEL_SOURCE_H

#include <stddef.h>

#include "telemetry.h"

/* what a source's sample may need besides its own state */
struct tel_src_ctx {
    double now;       /* seconds since tel_open */
    double recheck_s; /* tel_set_recheck: how long a file found absent is not opened */
};

struct tel_source_ops {
    /* "sysfs", "rsmi", "nvml": tel_source_status's name, and the key of a
     * device whose address the source cannot tell ("nvml:0") */
    const char *name;
    const char *vendor; /* struct tel_gpu.vendor: "amd", "nvidia" */
    /* reads the live machine through a vendor library: opened only when
     * tel_open allows it (never under --sysroot) */
    int vendor_lib;
    int overlay; /* adds no GPU (see above); opened only when a GPU is listed */
    /* the source's state, or NULL with why in status (how it went in either
     * case: "loaded librocm_smi64.so.7, 1 device(s)"). amd_bdfs: the AMD
     * GPUs' addresses tel_open was given (gpu_enumerate's order). */
    void *(*open)(const struct strlist *amd_bdfs, char *status, size_t status_n);
    size_t (*count)(void *st);
    /* device i's PCI address in sysfs' form, "" when the source cannot tell */
    const char *(*pci)(void *st, size_t i);
    /* the device at PCI address pci in any spelling, -1 none. NULL: the
     * sampler compares pci() (case-insensitive) */
    int (*find)(void *st, const char *pci);
    /* device i's values: each key set (tel_gpu_set, with the source) or, by
     * a source that owns the GPU, unknown with a reason (tel_gpu_unknown);
     * g->pci and g->vendor are set before. An overlay sets only what it
     * reads. */
    void (*sample)(void *st, size_t i, struct tel_gpu *g, const struct tel_src_ctx *c);
    /* add the processes using the source's GPUs to s (tel_proc_add); gpu[i]:
     * device i's index in s->gpus, -1 when not there. 0, or -errno when
     * the whole list cannot be read (a GPU's own unknown list: procs_why).
     * NULL: the source knows no processes. */
    int (*processes)(void *st, struct tel_sample *s, size_t *cap, const int *gpu);
    void (*close)(void *st);
};

/* the table (tel_sources.c), in sampling order */
extern const struct tel_source_ops *const tel_sources[];
extern const size_t tel_nsources;

extern const struct tel_source_ops tel_src_sysfs; /* tel_src_sysfs.c */
extern const struct tel_source_ops tel_src_rsmi;  /* tel_src_rsmi.c */
extern const struct tel_source_ops tel_src_nvml;  /* tel_src_nvml.c */

/* tel_open over the sources srcs[0..n-1] (tel_open: tel_sources) */
struct tel *tel_open_sources(const struct tel_source_ops *const *srcs, size_t n,
                             const struct strlist *amd_bdfs, int vendor_libs, int procs);
/* how source name came out: its open's status, "not asked" when it was not
 * opened (vendor libraries not allowed, an overlay with no GPU), NULL when
 * the sampler has no such source */
const char *tel_source_status(const struct tel *t, const char *name);

/* ---- for the sources ---- */

void tel_gpu_set(struct tel_gpu *g, enum tel_key k, double v, const char *src);
void tel_gpu_unknown(struct tel_gpu *g, enum tel_key k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* the process pid on GPU gpu of s (added with unknown values when new);
 * *cap: s->procs' capacity */
struct tel_proc *tel_proc_add(struct tel_sample *s, size_t *cap, int pid, int gpu,
                              const char *comm);
/* /proc/PID/comm, "?" when unreadable */
void tel_proc_comm(int pid, char *buf, size_t n);
/* the processes of s's GPUs from DRM fdinfo (/proc/PID/fdinfo) and KFD
 * (/sys/class/kfd/kfd/proc), matched by PCI address: 0, or -errno when
 * /proc cannot be listed (tel_procs.c) */
int tel_procs_drm_kfd(struct tel_sample *s, size_t *cap);

#endif
