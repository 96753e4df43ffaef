/* gpu_metrics.h - the amdgpu `gpu_metrics` sysfs file (binary).
 *
 * The file starts with a 4-byte header {u16 structure_size; u8
 * format_revision; u8 content_revision} and then holds one of the kernel's
 * published structs (drivers/gpu/drm/amd/include/kgd_pp_interface.h:
 * gpu_metrics_v1_0..v1_8 for dGPUs, v2_0..v2_4 for APUs, v3_0). Those
 * structs are plain C structs with natural alignment, little-endian. This
 * parser does not overlay a C struct: each revision is a table of field
 * sizes in declaration order (gpu_metrics.c), the offsets follow from C's
 * alignment rules, and the table's computed size must equal both the
 * header's structure_size and the bytes read. An unknown revision or a size
 * that disagrees is reported as such, never parsed by a guess. v1_9 (the
 * self-describing list of encoded attributes that follows v1_8) is
 * recognised and refused as "format not supported yet".
 *
 * v1_6 is the layout that stayed upstream (1664 bytes: no throttle_status,
 * per-partition xcp_stats); the May-2024 v1_6 with throttle_status was
 * reverted and no released kernel reports it. MI300-class parts report no
 * throttle bits from v1_6 on, only the residency accumulators below.
 *
 * Values the firmware does not provide are all-ones (0xffff, 0xffffffff)
 * and come back unknown, never 0.
 *
 * Throttle bits: indep_throttle_status (v1_3, v2_2..v2_4) uses the kernel's
 * ASIC-independent SMU_THROTTLER_*_BIT numbering; throttle_status is ASIC
 * dependent and only reported as a number. RDNA firmware reports some
 * independent bits permanently (set while idle); callers count a bit's
 * 0->1 transitions as throttle events and report a bit already set in the
 * first sample as "set since start (may be permanent on RDNA)". */
#ifndef RVD_GPU_METRICS_H
#define RVD_GPU_METRICS_H

#include <stddef.h>
#include <stdint.h>

enum gm_field {
    GM_TEMP_EDGE_C,
    GM_TEMP_HOTSPOT_C,
    GM_TEMP_MEM_C,
    GM_TEMP_GFX_C, /* APU */
    GM_TEMP_SOC_C, /* APU */
    GM_GFX_BUSY_PCT,
    GM_UMC_BUSY_PCT,
    GM_POWER_W,      /* average (v1_0-1_3, v2, v3) or current (v1_4+) socket power */
    GM_ENERGY_J,     /* energy_accumulator, 15.259 uJ units */
    GM_GFXCLK_MHZ,   /* current_gfxclk (v1_4+: instance 0) */
    GM_UCLK_MHZ,     /* current_uclk */
    GM_FAN_RPM,      /* current_fan_speed (v1_0-1_3) */
    GM_PCIE_WIDTH,   /* lanes */
    GM_PCIE_GTS,     /* GT/s (the struct holds 0.1 GT/s) */
    GM_TIMESTAMP_NS, /* system_clock_counter, driver-attached */
    /* PCIe link health counters, accumulated since the driver loaded (v1_4+) */
    GM_PCIE_L0_TO_RECOV,     /* L0 -> recovery transitions */
    GM_PCIE_REPLAY,          /* replays */
    GM_PCIE_REPLAY_ROVER,    /* replay-number rollovers */
    GM_PCIE_NAK_SENT,        /* v1_5+ */
    GM_PCIE_NAK_RCVD,        /* v1_5+ */
    GM_PCIE_OTHER_END_RECOV, /* v1_6+: recoveries the link partner started */
    /* v1_6..v1_8 throttler residency: counters that advance while that
     * limiter holds the clocks back, read against accumulation_counter
     * (GM_ACC_COUNTER) over the same interval */
    GM_ACC_COUNTER,
    GM_RES_PROCHOT,
    GM_RES_PPT,
    GM_RES_SOCKET_THM,
    GM_RES_VR_THM,
    GM_RES_HBM_THM,
    GM_NUM_PARTITION, /* v1_6+: compute partitions now */
    /* v3_0 (APU) throttle_residency_* (ASIC dependent accumulators) */
    GM_THR_PROCHOT,
    GM_THR_SPL,
    GM_THR_FPPT,
    GM_THR_SPPT,
    GM_THR_THM_CORE,
    GM_THR_THM_GFX,
    GM_THR_THM_SOC,
    GM_NFIELDS
};

enum { GM_NHBM = 4, GM_NXCD = 8 }; /* the kernel's NUM_HBM_INSTANCES, MAX_GFX_CLKS */

struct gpu_metrics {
    unsigned format, content; /* the header's revision */
    size_t size;              /* structure_size */
    double v[GM_NFIELDS];
    unsigned char known[GM_NFIELDS];
    int has_throttle, has_indep;
    uint32_t throttle;       /* ASIC dependent */
    uint64_t indep_throttle; /* ASIC independent (SMU_THROTTLER_*_BIT) */
    /* v1_1..v1_3 temperature_hbm[] (Celsius) */
    double hbm_temp_c[GM_NHBM];
    unsigned char hbm_known[GM_NHBM];
    /* v1_4+ current_gfxclk[] (MHz), one per XCD; GM_GFXCLK_MHZ is [0] */
    double xcd_gfxclk_mhz[GM_NXCD];
    unsigned char xcd_known[GM_NXCD];
};

/* parse len bytes. 0 and *out, or -1 with why (one line, no newline, e.g.
 * "gpu_metrics format 1.10 unknown", "gpu_metrics 1.3: structure_size 100,
 * the kernel's v1_3 is 120 bytes", "gpu_metrics 1.3: 64 bytes read, 120
 * expected"). Bytes after structure_size are accepted only when all zero
 * (a capture padded to a page). */
int gpu_metrics_parse(const void *buf, size_t len, struct gpu_metrics *out, char *why,
                      size_t why_n);

/* the size the kernel's struct of that revision has, or 0 when unknown
 * (and for v1_9, whose size varies with its attribute count) */
size_t gpu_metrics_struct_size(unsigned format, unsigned content);

/* the set independent throttle bits by name ("PPT0,TEMP_HOTSPOT"), "" for
 * none; unnamed bits as "BIT<n>" */
void gpu_metrics_throttle_names(uint64_t bits, char *buf, size_t n);

#endif
