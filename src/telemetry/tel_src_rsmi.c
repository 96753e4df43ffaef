/* tel_src_rsmi.c - the telemetry source of AMD GPUs through rocm-smi-lib
 * (src/gpu/rsmi_bind.h), preferred over sysfs on a live host: an overlay
 * (tel_source.h), its values replace sysfs' for the same key; one it cannot
 * give (a failed call, a function the library lacks) is left as the sysfs
 * reading, so an error never turns a known value into 0. Only opened when
 * tel_open lets it use vendor libraries (never --sysroot: the library reads
 * the live machine, and it can hang). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/rsmi_bind.h"
#include "tel_source.h"

#define SRC "rocm-smi"

struct rsmi {
    struct rsmi_bind b;
    uint32_t n;
    char (*pci)[PCI_ADDR_STR]; /* per device: its address as sysfs names the function */
};

static void *open_rsmi(const struct strlist *amd_bdfs, char *status, size_t status_n)
{
    (void)amd_bdfs;
    struct rsmi *r = xcalloc(1, sizeof(*r));
    struct rsmi_bind *b = &r->b;
    if (rsmi_bind_load(b, status, status_n)) {
        free(r);
        return NULL;
    }
    rsmi_status_t e = 0;
    if (!b->rsmi_init || !b->rsmi_num_monitor_devices || !b->rsmi_dev_pci_id_get) {
        snprintf(status, status_n,
                 "%.200s lacks rsmi_init/rsmi_num_monitor_devices/rsmi_dev_pci_id_get", b->lib);
        rsmi_bind_close(b, 0, 1);
    } else if ((e = b->rsmi_init(0)) != RSMI_STATUS_SUCCESS) {
        snprintf(status, status_n, "rsmi_init: status %u (%.200s)", e, rsmi_bind_error(b, e));
        rsmi_bind_close(b, 0, 1);
    } else if ((e = b->rsmi_num_monitor_devices(&r->n)) != RSMI_STATUS_SUCCESS || r->n == 0) {
        snprintf(status, status_n, "%.200s: no device (%s)", b->lib,
                 e == RSMI_STATUS_SUCCESS ? "count 0" : "rsmi_num_monitor_devices failed");
        rsmi_bind_close(b, 1, 1);
    } else {
        snprintf(status, status_n, "loaded %.200s, %u device(s)", b->lib, r->n);
        r->pci = xcalloc(r->n, sizeof(*r->pci));
        for (uint32_t i = 0; i < r->n; i++) {
            uint64_t id = 0;
            struct pci_addr a;
            unsigned part = 0;
            /* a partition id in [31:28] is dropped: sysfs names the function */
            if (b->rsmi_dev_pci_id_get(i, &id) == RSMI_STATUS_SUCCESS) {
                pci_addr_from_rsmi(id, &a, &part);
                pci_addr_format(&a, r->pci[i]);
            }
        }
        return r;
    }
    free(r);
    return NULL;
}

static void close_rsmi(void *st)
{
    struct rsmi *r = st;
    rsmi_bind_close(&r->b, 1, 1);
    free(r->pci);
    free(r);
}

static size_t count(void *st)
{
    return ((struct rsmi *)st)->n;
}

static const char *pci(void *st, size_t i)
{
    return ((struct rsmi *)st)->pci[i];
}

/* the device at the sysfs address pci, matched on the decoded BDFID */
static int find(void *st, const char *pci)
{
    struct rsmi *r = st;
    struct pci_addr want;
    return pci_addr_parse(pci, &want) ? -1 : rsmi_bind_find(&r->b, r->n, &want, 0);
}

#define OK(call) (r->b.call == RSMI_STATUS_SUCCESS)
#define HAS(fn) (r->b.fn != NULL)

static void clocks(struct rsmi *r, uint32_t d, struct tel_gpu *g, rsmi_clk_type_t type,
                   enum tel_key cur)
{
    rsmi_frequencies_t f;
    memset(&f, 0, sizeof(f));
    if (!HAS(rsmi_dev_gpu_clk_freq_get) || !OK(rsmi_dev_gpu_clk_freq_get(d, type, &f)))
        return;
    if (f.num_supported == 0 || f.num_supported > RSMI_MAX_NUM_FREQUENCIES)
        return;
    /* the range is the first and the last level, as pp_dpm_* (tel_dpm_parse) */
    tel_gpu_set(g, cur + 1, (double)f.frequency[0] / 1e6, SRC);
    tel_gpu_set(g, cur + 2, (double)f.frequency[f.num_supported - 1] / 1e6, SRC);
    if (f.current < f.num_supported)
        tel_gpu_set(g, cur, (double)f.frequency[f.current] / 1e6, SRC);
}

static void temps(struct rsmi *r, uint32_t d, struct tel_gpu *g)
{
    static const struct {
        uint32_t sensor;
        enum tel_key key; /* the limit is key + 1 */
    } t[] = {{RSMI_TEMP_TYPE_EDGE, TEL_TEMP_EDGE_C},
             {RSMI_TEMP_TYPE_JUNCTION, TEL_TEMP_JUNCTION_C},
             {RSMI_TEMP_TYPE_MEMORY, TEL_TEMP_MEM_C}};
    if (!HAS(rsmi_dev_temp_metric_get))
        return;
    for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
        int64_t v;
        if (OK(rsmi_dev_temp_metric_get(d, t[i].sensor, RSMI_TEMP_CURRENT, &v)))
            tel_gpu_set(g, t[i].key, (double)v / 1e3, SRC);
        if (OK(rsmi_dev_temp_metric_get(d, t[i].sensor, RSMI_TEMP_CRITICAL, &v)))
            tel_gpu_set(g, t[i].key + 1, (double)v / 1e3, SRC);
    }
}

static void memory(struct rsmi *r, uint32_t d, struct tel_gpu *g, rsmi_memory_type_t type,
                   enum tel_key used, enum tel_key total)
{
    uint64_t v;
    if (HAS(rsmi_dev_memory_usage_get) && OK(rsmi_dev_memory_usage_get(d, type, &v)))
        tel_gpu_set(g, used, (double)v, SRC);
    if (HAS(rsmi_dev_memory_total_get) && OK(rsmi_dev_memory_total_get(d, type, &v)))
        tel_gpu_set(g, total, (double)v, SRC);
}

static void sample(void *st, size_t dev, struct tel_gpu *g, const struct tel_src_ctx *c)
{
    struct rsmi *r = st;
    (void)c;
    uint32_t d = (uint32_t)dev;
    clocks(r, d, g, RSMI_CLK_TYPE_SYS, TEL_SCLK_MHZ);
    clocks(r, d, g, RSMI_CLK_TYPE_MEM, TEL_MCLK_MHZ);
    uint64_t u;
    if (HAS(rsmi_dev_power_ave_get) && OK(rsmi_dev_power_ave_get(d, 0, &u)))
        tel_gpu_set(g, TEL_POWER_W, (double)u / 1e6, SRC);
    if (HAS(rsmi_dev_power_cap_get) && OK(rsmi_dev_power_cap_get(d, 0, &u)))
        tel_gpu_set(g, TEL_POWER_CAP_W, (double)u / 1e6, SRC);
    temps(r, d, g);
    uint32_t busy;
    if (HAS(rsmi_dev_busy_percent_get) && OK(rsmi_dev_busy_percent_get(d, &busy)))
        tel_gpu_set(g, TEL_BUSY_PCT, busy, SRC);
    int64_t rpm;
    if (HAS(rsmi_dev_fan_rpms_get) && OK(rsmi_dev_fan_rpms_get(d, 0, &rpm)) && rpm >= 0)
        tel_gpu_set(g, TEL_FAN_RPM, (double)rpm, SRC);
    memory(r, d, g, RSMI_MEM_TYPE_VRAM, TEL_VRAM_USED_B, TEL_VRAM_TOTAL_B);
    memory(r, d, g, RSMI_MEM_TYPE_GTT, TEL_GTT_USED_B, TEL_GTT_TOTAL_B);
}

const struct tel_source_ops tel_src_rsmi = {
    .name = "rsmi",
    .vendor = "amd",
    .vendor_lib = 1,
    .overlay = 1,
    .open = open_rsmi,
    .count = count,
    .pci = pci,
    .find = find,
    .sample = sample,
    .close = close_rsmi,
};
