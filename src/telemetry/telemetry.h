/* telemetry.h - one sampler of GPU telemetry for every consumer (`monitor`,
 * `soak`, the energy figure of `bench`, and the dashboard).
 *
 * A sample holds, per GPU, a fixed set of values (enum tel_key), each with
 * the source it came from ("pp_dpm_sclk", "hwmon", "gpu_metrics", "NVML",
 * "sysfs") or unknown (src NULL, a reason in why[]) - never a 0 standing in
 * for "not read". AMD GPUs are read from sysfs through rootfs.h (so
 * --sysroot fixtures and snapshots replay), and on a live host through
 * rocm-smi-lib when tel_open is asked to (tel_src_rsmi.c: src "rocm-smi" wins
 * over sysfs for the same value; what it cannot give stays sysfs'); NVIDIA
 * GPUs through NVML (tel_src_nvml.c) when tel_open is asked to. Each is a
 * source of tel_source.h, in one table. The process list comes from DRM
 * fdinfo (/proc/PID/fdinfo) and KFD (/sys/class/kfd/kfd/proc), and NVML.
 *
 * Throttle: gpu_metrics' ASIC-independent throttle bits (AMD) or NVML's
 * clock-event reasons (NVIDIA) as names. RDNA firmware reports some bits
 * permanently, so consumers judge changes (a bit that turns on), and the
 * sample says which bits were already set in the first sample. */
#ifndef RVD_TELEMETRY_H
#define RVD_TELEMETRY_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "tel_keys.h"

#define TEL_KEY_ENUM(e, name, unit, what) e,
enum tel_key { TEL_KEYS(TEL_KEY_ENUM) TEL_NKEYS };
#undef TEL_KEY_ENUM

/* "sclk_mhz", ... (the JSON and CSV names) */
const char *tel_key_name(enum tel_key k);
/* its unit ("MHz", "bytes", "count", ...) and one line of meaning */
const char *tel_key_unit(enum tel_key k);
const char *tel_key_meaning(enum tel_key k);

#define TEL_WHY_MAX 96

struct tel_gpu {
    char pci[16];   /* "0000:03:00.0" (NVML's busId normalised); "nvml:0" (NVML's
                     * index) only when NVML cannot tell the address */
    char vendor[8]; /* "amd", "nvidia" */
    double v[TEL_NKEYS];
    const char *src[TEL_NKEYS]; /* static strings; NULL: unknown */
    char why[TEL_NKEYS][TEL_WHY_MAX];
    int throttle_known;
    char throttle[256];     /* names of the active reasons, "" for none */
    char throttle_src[32];  /* "gpu_metrics 1.3", "NVML" */
    char throttle_why[128]; /* when unknown: "gpu_metrics format 1.9 unknown" */
    uint64_t throttle_bits; /* indep_throttle_status / clock-event reasons */
    char path_hop[16];      /* the narrowest hop's PCI address, "" when unknown */
    char procs_why[128];    /* NVIDIA: why the GPU's process list is unknown, "" when read */
};

struct tel_proc {
    int pid;
    char comm[32];
    int gpu;            /* index into the sample's gpus, -1 when not matched */
    int64_t vram_bytes; /* -1 unknown */
    int64_t engine_ns;  /* drm-engine-* summed; -1 unknown (KFD) */
    double busy_pct;    /* engine time over wall time since the last sample; <0 unknown */
    const char *src;    /* "fdinfo", "kfd", "NVML compute", "NVML graphics" */
    int saturated;      /* a sum passed INT64_MAX and is held there */
};

struct tel_sample {
    double t_s;    /* seconds since tel_open */
    double wall_s; /* CLOCK_REALTIME */
    size_t ngpu;
    struct tel_gpu *gpus;
    size_t nproc;
    struct tel_proc *procs;
    int procs_unreadable; /* processes whose fdinfo could not be read (other users') */
};

struct tel;

/* amd_bdfs: the AMD GPUs' PCI addresses (as the gpu probe lists them, in
 * its order); vendor_libs: also read NVIDIA GPUs through NVML and AMD GPUs
 * through rocm-smi-lib when they load (live host only, never --sysroot: both
 * read the live machine). procs: also list the processes using them.
 * Returns NULL never. */
struct tel *tel_open(const struct strlist *amd_bdfs, int vendor_libs, int procs);
/* one sample; release with tel_sample_release */
void tel_sample(struct tel *t, struct tel_sample *s);
void tel_sample_release(struct tel_sample *s);
/* how NVML came out ("not asked", "loaded libnvidia-ml.so.1, 1 device", "not loaded: ...") */
const char *tel_nvml_status(const struct tel *t);
/* how rocm-smi-lib came out: the source set of the AMD GPUs ("not asked":
 * sysfs only; "loaded librocm_smi64.so.7, 1 device(s)": rocm-smi, then sysfs) */
const char *tel_rsmi_status(const struct tel *t);
void tel_close(struct tel *t);
/* an optional sysfs file of an AMD GPU (fan, GTT, power cap, energy,
 * mem_busy_percent, gpu_metrics) found absent is not opened again for this
 * many seconds; tests set 0 (look every sample) or a long interval */
#define TEL_RECHECK_S 5.0
void tel_set_recheck(struct tel *t, double seconds);
/* the name a sample gives the GPU at PCI address pci (struct tel_gpu.pci: the
 * address itself, as sysfs writes it; "nvml:<i>" for an NVIDIA GPU whose
 * address NVML cannot tell), in buf; NULL
 * when this sampler does not see that GPU */
const char *tel_gpu_key(struct tel *t, const char *pci, char *buf, size_t n);

/* the processes using the GPUs bdfs (DRM fdinfo, KFD) without sampling
 * the GPUs: s->gpus holds only their PCI addresses. 0, or -errno when /proc
 * cannot be listed. Release with tel_sample_release. */
int tel_list_procs(const struct strlist *bdfs, struct tel_sample *s);
/* the processes using this sampler's GPUs without sampling their values:
 * AMD through DRM fdinfo and KFD, NVIDIA through NVML (when tel_open loaded
 * it); s->gpus holds the GPUs' keys (struct tel_gpu.pci) and, for an NVIDIA
 * GPU whose list NVML could not give, procs_why. 0, or -errno when /proc
 * cannot be listed and there is no NVIDIA GPU. Release with
 * tel_sample_release. */
int tel_sample_procs(struct tel *t, struct tel_sample *s);
/* "used by python3 (pid 41211, 2.0 GiB VRAM[, 87% busy], kfd), ...",
 * "users: ? (<the NVML call>: <reason>)" when the list is unknown, or "no
 * process found that has it open[ (N processes not readable ...)]" */
void tel_proc_describe(const struct tel_sample *s, int gpu, struct strbuf *out);

/* ---- text parsers (tel_text.c), unit-tested on the real captures ---- */

/* pp_dpm_sclk / pp_dpm_mclk: "N: <MHz>Mhz[ *]" lines. The range is the
 * first and the last level (RDNA3 prints the current clock as a middle
 * level "1: 31Mhz *" between the minimum and the maximum), cur = the first
 * level marked '*' (-1 when none is), n = levels, nstar = marked levels. A
 * deep-sleep line "S: 19Mhz *" (SMU 13.0.6, APUs) gives cur and is no level.
 * 0, or -EINVAL when no N: line parses */
struct tel_dpm {
    int n, nstar;
    double min, max, cur;
};
int tel_dpm_parse(const char *text, struct tel_dpm *out);
/* pp_dpm_pcie: "N: 16.0GT/s, x16 [619Mhz][ *]": the marked level's speed
 * and width (-1 when none is marked), and the top level's. The SMU marks
 * every level equal to the link it runs, so a table whose levels are all
 * one link (RX 7900 XT: three "16.0GT/s, x16 ... *") marks them all:
 * star_conflict is 1 only when marked levels differ in speed or width,
 * the one case where the mark does not tell the link */
struct tel_dpm_pcie {
    int n, nstar, star_conflict;
    double cur_gts, max_gts;
    int cur_width, max_width;
};
int tel_dpm_pcie_parse(const char *text, struct tel_dpm_pcie *out);

/* DRM fdinfo ("key:\tvalue" lines). 0 and the fields, or -ENOENT when the
 * file is not a DRM client's (no drm-driver). Sizes in bytes, -1 unknown. */
struct tel_fdinfo {
    char driver[16], pdev[16];
    uint64_t client_id;
    int has_client_id;
    int64_t vram_bytes, engine_ns;
    int saturated; /* the engines' sum passed INT64_MAX and is held there */
};
int tel_fdinfo_parse(const char *text, struct tel_fdinfo *out);

#endif
