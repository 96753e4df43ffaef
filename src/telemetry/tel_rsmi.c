/* tel_rsmi.c - AMD GPUs through rocm-smi-lib (tel_rsmi.h). Every function is
 * resolved with __typeof__ from rsmi_api.h, so a wrong signature fails the
 * build. Values rocm-smi gives replace sysfs' for the same key; one it cannot
 * give (a failed call, a function the library lacks) is left as the sysfs
 * reading, so an error never turns a known value into 0. */
#include "tel_rsmi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/pci_addr.h"
#include "../gpu/rsmi_api.h"
#include "tel_nvml.h"

#define SRC "rocm-smi"

#define FNS(X)                                                                                     \
    X(rsmi_init)                                                                                   \
    X(rsmi_shut_down)                                                                              \
    X(rsmi_num_monitor_devices)                                                                    \
    X(rsmi_dev_pci_id_get)                                                                         \
    X(rsmi_dev_gpu_clk_freq_get)                                                                   \
    X(rsmi_dev_power_ave_get)                                                                      \
    X(rsmi_dev_power_cap_get)                                                                      \
    X(rsmi_dev_temp_metric_get)                                                                    \
    X(rsmi_dev_busy_percent_get)                                                                   \
    X(rsmi_dev_fan_rpms_get) X(rsmi_dev_memory_usage_get) X(rsmi_dev_memory_total_get)

#define DECL(fn) __typeof__(&fn) fn;
struct tel_rsmi {
    void *h;
    FNS(DECL)
    uint32_t n;
};

static char status_buf[600];

struct tel_rsmi *tel_rsmi_open(const char **status)
{
    static const char *const names[] = {"librocm_smi64.so",   "librocm_smi64.so.7",
                                        "librocm_smi64.so.6", "librocm_smi64.so.5",
                                        "librocm_smi64.so.1", "/opt/rocm/lib/librocm_smi64.so"};
    char lib[256] = "";
    *status = status_buf;
    void *h = tel_dlopen("ROCM_VLA_DOCTOR_RSMI_LIB", names, ARRAY_SIZE(names), lib, sizeof(lib),
                         status_buf, sizeof(status_buf));
    if (!h)
        return NULL;
    struct tel_rsmi *r = xcalloc(1, sizeof(*r));
    r->h = h;
#define LOADFN(fn) r->fn = (__typeof__(&fn))dlsym(h, #fn);
    FNS(LOADFN)
    rsmi_status_t e = 0;
    if (!r->rsmi_init || !r->rsmi_num_monitor_devices || !r->rsmi_dev_pci_id_get) {
        snprintf(status_buf, sizeof(status_buf),
                 "%.200s lacks rsmi_init/rsmi_num_monitor_devices/rsmi_dev_pci_id_get", lib);
    } else if ((e = r->rsmi_init(0)) != RSMI_STATUS_SUCCESS) {
        snprintf(status_buf, sizeof(status_buf), "rsmi_init: status %u", e);
    } else if ((e = r->rsmi_num_monitor_devices(&r->n)) != RSMI_STATUS_SUCCESS || r->n == 0) {
        snprintf(status_buf, sizeof(status_buf), "%.200s: no device (%s)", lib,
                 e == RSMI_STATUS_SUCCESS ? "count 0" : "rsmi_num_monitor_devices failed");
        if (r->rsmi_shut_down)
            r->rsmi_shut_down();
    } else {
        snprintf(status_buf, sizeof(status_buf), "loaded %.200s, %u device(s)", lib, r->n);
        return r;
    }
    dlclose(h);
    free(r);
    return NULL;
}

void tel_rsmi_close(struct tel_rsmi *r)
{
    if (!r)
        return;
    if (r->rsmi_shut_down)
        r->rsmi_shut_down();
    dlclose(r->h);
    free(r);
}

int tel_rsmi_find(struct tel_rsmi *r, const char *pci)
{
    struct pci_addr want;
    if (!r || pci_addr_parse(pci, &want))
        return -1;
    int best = -1;
    enum pci_match best_m = PCI_MATCH_NONE;
    for (uint32_t i = 0; i < r->n; i++) {
        uint64_t id = 0;
        struct pci_addr got;
        unsigned part = 0;
        if (r->rsmi_dev_pci_id_get(i, &id) != RSMI_STATUS_SUCCESS)
            continue;
        /* a partition id in [31:28] is dropped: sysfs names the function */
        pci_addr_from_rsmi(id, &got, &part);
        enum pci_match m = pci_addr_match(&got, &want);
        if (m > best_m)
            best = (int)i, best_m = m;
    }
    return best;
}

#define OK(call) (r->call == RSMI_STATUS_SUCCESS)
#define HAS(fn) (r->fn != NULL)

static void clocks(struct tel_rsmi *r, uint32_t d, struct tel_gpu *g, rsmi_clk_type_t type,
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

static void temps(struct tel_rsmi *r, uint32_t d, struct tel_gpu *g)
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

static void memory(struct tel_rsmi *r, uint32_t d, struct tel_gpu *g, rsmi_memory_type_t type,
                   enum tel_key used, enum tel_key total)
{
    uint64_t v;
    if (HAS(rsmi_dev_memory_usage_get) && OK(rsmi_dev_memory_usage_get(d, type, &v)))
        tel_gpu_set(g, used, (double)v, SRC);
    if (HAS(rsmi_dev_memory_total_get) && OK(rsmi_dev_memory_total_get(d, type, &v)))
        tel_gpu_set(g, total, (double)v, SRC);
}

void tel_rsmi_sample(struct tel_rsmi *r, int dev, struct tel_gpu *g)
{
    if (!r || dev < 0 || (uint32_t)dev >= r->n)
        return;
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
