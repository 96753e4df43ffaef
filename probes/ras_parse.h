/* ras_parse.h - the text of amdgpu's RAS sysfs files (the ras/ directory
 * of the GPU's PCI device), parsed exactly as the kernel prints it.
 *
 * Formats (torvalds/linux drivers/gpu/drm/amd/amdgpu/amdgpu_ras.c at
 * 001ebcf5b903646b40697d9b1dc9b24daae82b4f):
 *   <block>_err_count   amdgpu_ras_sysfs_read: "ue: %lu\nce: %lu\n"; 6.8+
 *                       kernels add "de: %lu\n" (deferred errors, UMC first,
 *                       then the ACA path amdgpu_ras_aca_sysfs_read); while
 *                       the driver is not ready to query (in a reset) it
 *                       prints "Query currently inaccessible\n" instead.
 *   gpu_vram_bad_pages  amdgpu_ras_sysfs_badpages_read: one line per page,
 *                       "0x%08x : 0x%08x : %1s\n" (pfn, page size, flag R
 *                       reserved, P pending reserve, F could not reserve).
 * Pure functions on text (no I/O) so that tests and the fuzzer drive them. */
#ifndef RVD_RAS_PARSE_H
#define RVD_RAS_PARSE_H

#include <stdint.h>

/* one block's counters; de is -1 when the kernel printed no "de:" line */
struct ras_count {
    int64_t ue, ce, de;
};

enum ras_count_rc {
    RAS_COUNT_OK = 0,
    RAS_COUNT_INACCESSIBLE = 1, /* "Query currently inaccessible" */
    RAS_COUNT_BAD = -1          /* text the kernel never prints */
};

enum ras_count_rc ras_parse_count(const char *text, struct ras_count *out);

struct ras_pages {
    int64_t reserved, pending, failed;
    int bad_line; /* 1-based number of the first malformed line, 0 if none */
};

/* counts the pages of each flag; returns 0, or -1 with out->bad_line set
 * when a line is not in the kernel's format (nothing else is trusted then) */
int ras_parse_bad_pages(const char *text, struct ras_pages *out);

/* the driver's bad-page threshold (amdgpu_ras_validate_threshold):
 * amdgpu.bad_page_threshold < 0 gives VRAM / 100 MiB (RAS_BAD_PAGE_COVER),
 * a positive value is used as it is, both capped at what the EEPROM table
 * holds; 0 disables retirement (returns 0). */
int64_t ras_page_threshold(int64_t param, int64_t vram_bytes);

/* RAS_MAX_RECORD_COUNT of amdgpu_ras_eeprom.c (torvalds/linux at
 * 017dad64db7ba56f1993ceda4880bb8a7e861253): (256 KiB - 20-byte header) /
 * 24-byte records */
#define RAS_EEPROM_MAX_RECORDS ((256 * 1024 - 20) / 24)

/* which family a block's uncorrectable errors belong to, for the advice:
 * memory (UMC: the driver retires pages), link (XGMI/PCIe), engine (the
 * rest: GFX, SDMA, MMHUB, ...: the driver recovers by a GPU reset) */
enum ras_family { RAS_MEMORY, RAS_LINK, RAS_ENGINE };
enum ras_family ras_block_family(const char *block);

#endif
