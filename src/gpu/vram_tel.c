/* vram_tel.c - see vram_tel.h. */
#include "vram_tel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rootfs.h"
#include "nvml_bind.h"
#include "rsmi_bind.h"

/* the vendor library bound (rsmi_bind.h, nvml_bind.h) and the device picked */
struct vt {
    struct rsmi_bind r;
    struct nvml_bind nv;
    uint32_t rsmi_dev;
    nvmlDevice_t nvml_dev;
};

static void tried(struct vram_tel *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tried(struct vram_tel *t, const char *fmt, ...)
{
    size_t l = strlen(t->tried);
    if (l + 3 >= sizeof(t->tried))
        return;
    if (l)
        l += (size_t)snprintf(t->tried + l, sizeof(t->tried) - l, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->tried + l, sizeof(t->tried) - l, fmt, ap);
    va_end(ap);
}

static int open_rsmi(struct vram_tel *t, struct vt *v, const struct gpu_props *p)
{
    if (rsmi_bind_load(&v->r, t->vendor_init, sizeof(t->vendor_init)))
        return -1;
    snprintf(t->vendor_lib, sizeof(t->vendor_lib), "%s", v->r.lib);
    if (!v->r.rsmi_init || !v->r.rsmi_num_monitor_devices || !v->r.rsmi_dev_memory_usage_get ||
        !v->r.rsmi_dev_pci_id_get) {
        snprintf(t->vendor_init, sizeof(t->vendor_init), "%.400s lacks the rsmi_* functions used",
                 t->vendor_lib);
        return -1;
    }
    rsmi_status_t e = v->r.rsmi_init(0);
    if (e != RSMI_STATUS_SUCCESS) {
        snprintf(t->vendor_init, sizeof(t->vendor_init), "rsmi_init: status %d (%s)", e,
                 rsmi_bind_error(&v->r, e));
        return -1;
    }
    uint32_t n = 0;
    e = v->r.rsmi_num_monitor_devices(&n);
    if (e != RSMI_STATUS_SUCCESS)
        n = 0;
    snprintf(t->vendor_init, sizeof(t->vendor_init), "rsmi_init: RSMI_STATUS_SUCCESS, %u device(s)",
             n);
    if (!p)
        return -1;
    /* HIP and rocm-smi may order devices differently: match the PCI address
     * (HIP's, whose function may be an MI300 partition: rsmi_bind_find) */
    struct pci_addr want;
    int have = pci_addr_parse(p->pci, &want) == 0;
    int best = have ? rsmi_bind_find(&v->r, n, &want, 1) : n == 1 ? 0 : -1;
    if (best >= 0) {
        v->rsmi_dev = (uint32_t)best;
        return 0;
    }
    snprintf(t->vendor_init + strlen(t->vendor_init),
             sizeof(t->vendor_init) - strlen(t->vendor_init), ", none at PCI %s", p->pci);
    return -1;
}

static int open_nvml(struct vram_tel *t, struct vt *v, const struct gpu_props *p)
{
    if (nvml_bind_load(&v->nv, t->vendor_init, sizeof(t->vendor_init)))
        return -1;
    snprintf(t->vendor_lib, sizeof(t->vendor_lib), "%s", v->nv.lib);
    if (!v->nv.nvmlInit_v2 || !v->nv.nvmlErrorString || !v->nv.nvmlDeviceGetHandleByIndex_v2 ||
        !v->nv.nvmlDeviceGetHandleByPciBusId_v2 || !v->nv.nvmlDeviceGetMemoryInfo) {
        snprintf(t->vendor_init, sizeof(t->vendor_init), "%.400s lacks the nvml* functions used",
                 t->vendor_lib);
        return -1;
    }
    nvmlReturn_t e = v->nv.nvmlInit_v2();
    if (e != NVML_SUCCESS) {
        snprintf(t->vendor_init, sizeof(t->vendor_init), "nvmlInit_v2: %d (%s)", e,
                 nvml_bind_error(&v->nv, e));
        return -1;
    }
    snprintf(t->vendor_init, sizeof(t->vendor_init), "nvmlInit_v2: NVML_SUCCESS");
    if (!p)
        return -1;
    /* CUDA_VISIBLE_DEVICES renumbers CUDA's devices, not NVML's: use the PCI address */
    e = p->pci[0] ? v->nv.nvmlDeviceGetHandleByPciBusId_v2(p->pci, &v->nvml_dev)
                  : v->nv.nvmlDeviceGetHandleByIndex_v2(0, &v->nvml_dev);
    if (e != NVML_SUCCESS) {
        snprintf(t->vendor_init + strlen(t->vendor_init),
                 sizeof(t->vendor_init) - strlen(t->vendor_init), ", no device at PCI %s: %s",
                 p->pci[0] ? p->pci : "(index 0)", nvml_bind_error(&v->nv, e));
        return -1;
    }
    return 0;
}

void vram_tel_open(struct vram_tel *t, struct gpu_backend *b, const struct gpu_props *p)
{
    memset(t, 0, sizeof(*t));
    t->b = b;
    t->source = "none";
    if (p)
        snprintf(t->pci, sizeof(t->pci), "%s", p->pci);
    struct vt *v = xcalloc(1, sizeof(*v));
    t->priv = v;
    int is_hip = strcmp(b->name, "hip") == 0, is_cuda = strcmp(b->name, "cuda") == 0;
    if (is_hip || is_cuda) {
        int rc = is_hip ? open_rsmi(t, v, p) : open_nvml(t, v, p);
        if (rc == 0) {
            t->src = is_hip ? VRAM_SRC_RSMI : VRAM_SRC_NVML;
            t->source = is_hip ? "rocm-smi" : "NVML";
            snprintf(t->where, sizeof(t->where), "%s", t->vendor_lib);
            return;
        }
        tried(t, "%s: %s", is_hip ? "rocm-smi" : "NVML", t->vendor_init);
    }
    if (!p)
        return;
    uint64_t u = 0;
    int e =
        t->pci[0] ? rootfs_readf_u64(&u, "/sys/bus/pci/devices/%s/mem_info_vram_used", t->pci) : -1;
    if (e == 0) {
        t->src = VRAM_SRC_SYSFS;
        t->source = "amdgpu sysfs";
        snprintf(t->where, sizeof(t->where), "/sys/bus/pci/devices/%s/mem_info_vram_used", t->pci);
        return;
    }
    tried(t, "amdgpu sysfs: %s", t->pci[0] ? "no readable mem_info_vram_used" : "no PCI address");
    size_t fr = 0, tot = 0;
    if (b->mem_info && b->mem_info(b, &fr, &tot) == 0) {
        t->src = VRAM_SRC_RUNTIME;
        t->source = "runtime mem info";
        snprintf(t->where, sizeof(t->where), "%s", b->lib);
        return;
    }
    tried(t, "runtime mem info: %s", b->err);
}

int vram_tel_used(struct vram_tel *t, uint64_t *used)
{
    struct vt *v = t->priv;
    *used = 0;
    switch (t->src) {
    case VRAM_SRC_RSMI:
        return v->r.rsmi_dev_memory_usage_get(v->rsmi_dev, RSMI_MEM_TYPE_VRAM, used) ? -1 : 0;
    case VRAM_SRC_NVML: {
        nvmlMemory_t m;
        if (v->nv.nvmlDeviceGetMemoryInfo(v->nvml_dev, &m) != NVML_SUCCESS)
            return -1;
        *used = m.used;
        return 0;
    }
    case VRAM_SRC_SYSFS:
        return rootfs_readf_u64(used, "/sys/bus/pci/devices/%s/mem_info_vram_used", t->pci) ? -1
                                                                                            : 0;
    case VRAM_SRC_RUNTIME: {
        size_t fr = 0, tot = 0;
        if (t->b->mem_info(t->b, &fr, &tot))
            return -1;
        *used = tot - fr;
        return 0;
    }
    case VRAM_SRC_NONE:
        break;
    }
    return -1;
}

void vram_tel_close(struct vram_tel *t)
{
    struct vt *v = t->priv;
    if (!v)
        return;
    /* shut down what initialised; no dlclose (see gpu_backend_close) */
    rsmi_bind_close(&v->r, t->src == VRAM_SRC_RSMI, 0);
    nvml_bind_close(&v->nv, t->src == VRAM_SRC_NVML, 0);
    free(v);
    t->priv = NULL;
}
