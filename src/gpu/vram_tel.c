/* vram_tel.c - see vram_tel.h. */
#include "vram_tel.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rootfs.h"
#include "nvml_api.h"
#include "pci_addr.h"
#include "rsmi_api.h"

#define RSMI_FNS(X)                                                                                \
    X(rsmi_init)                                                                                   \
    X(rsmi_shut_down) X(rsmi_num_monitor_devices) X(rsmi_dev_pci_id_get)                           \
        X(rsmi_dev_memory_usage_get) X(rsmi_status_string)
#define NVML_FNS(X)                                                                                \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlShutdown) X(nvmlErrorString) X(nvmlDeviceGetHandleByIndex_v2)                            \
        X(nvmlDeviceGetHandleByPciBusId_v2) X(nvmlDeviceGetMemoryInfo)

#define DECL(fn) __typeof__(&fn) fn;
struct vt {
    void *h;
    RSMI_FNS(DECL)
    NVML_FNS(DECL)
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

static void *load(struct vram_tel *t, const char *env, const char *const *names, size_t n)
{
    const char *forced = getenv(env);
    struct strbuf why = STRBUF_INIT;
    void *h = forced && *forced
                  ? gpu_dlopen_first(&forced, 1, t->vendor_lib, sizeof(t->vendor_lib), &why)
                  : gpu_dlopen_first(names, n, t->vendor_lib, sizeof(t->vendor_lib), &why);
    if (!h)
        snprintf(t->vendor_init, sizeof(t->vendor_init), "not loaded: %s",
                 why.buf ? why.buf : "not found");
    strbuf_release(&why);
    return h;
}

static const char *rsmi_str(struct vt *v, rsmi_status_t e)
{
    const char *s = NULL;
    if (v->rsmi_status_string && v->rsmi_status_string(e, &s) != RSMI_STATUS_SUCCESS)
        s = NULL;
    return s ? s : "?";
}

static int open_rsmi(struct vram_tel *t, struct vt *v, const struct gpu_props *p)
{
    static const char *const names[] = {"librocm_smi64.so",   "librocm_smi64.so.7",
                                        "librocm_smi64.so.6", "librocm_smi64.so.5",
                                        "librocm_smi64.so.1", "/opt/rocm/lib/librocm_smi64.so"};
    v->h = load(t, "ROCM_VLA_DOCTOR_RSMI_LIB", names, ARRAY_SIZE(names));
    if (!v->h)
        return -1;
#define LOADFN(fn) v->fn = (__typeof__(&fn))dlsym(v->h, #fn);
    RSMI_FNS(LOADFN)
    if (!v->rsmi_init || !v->rsmi_num_monitor_devices || !v->rsmi_dev_memory_usage_get ||
        !v->rsmi_dev_pci_id_get) {
        snprintf(t->vendor_init, sizeof(t->vendor_init), "%.400s lacks the rsmi_* functions used",
                 t->vendor_lib);
        return -1;
    }
    rsmi_status_t e = v->rsmi_init(0);
    if (e != RSMI_STATUS_SUCCESS) {
        snprintf(t->vendor_init, sizeof(t->vendor_init), "rsmi_init: status %d (%s)", e,
                 rsmi_str(v, e));
        return -1;
    }
    uint32_t n = 0;
    e = v->rsmi_num_monitor_devices(&n);
    snprintf(t->vendor_init, sizeof(t->vendor_init), "rsmi_init: RSMI_STATUS_SUCCESS, %u device(s)",
             e == RSMI_STATUS_SUCCESS ? n : 0);
    if (!p)
        return -1;
    /* HIP and rocm-smi may order devices differently: match the PCI address.
     * rocm-smi's BDFID may carry an MI300 partition id in bits [31:28] or in
     * the function bits (pci_addr.h); HIP prints the latter as the function.
     * Decoding the fields (never comparing the raw 64-bit value) matches both;
     * an exact function wins over a partition of function 0. */
    struct pci_addr want;
    int have = pci_addr_parse(p->pci, &want) == 0;
    int best = -1;
    enum pci_match best_m = PCI_MATCH_NONE;
    for (uint32_t i = 0; have && i < n; i++) {
        uint64_t id = 0;
        struct pci_addr got;
        if (v->rsmi_dev_pci_id_get(i, &id) != RSMI_STATUS_SUCCESS)
            continue;
        unsigned part = 0;
        pci_addr_from_rsmi(id, &got, &part);
        /* HIP's function is the partition id (HSA's BDFID): where rocm-smi puts
         * it in [31:28], compare it in the same place */
        if (part && got.fn == 0)
            got.fn = part & 7;
        enum pci_match m = pci_addr_match(&got, &want);
        if (m == PCI_MATCH_NONE)
            m = pci_addr_match(&want, &got);
        if (m > best_m)
            best = (int)i, best_m = m;
    }
    if (!have && n == 1)
        best = 0;
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
    static const char *const names[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
    v->h = load(t, "ROCM_VLA_DOCTOR_NVML_LIB", names, ARRAY_SIZE(names));
    if (!v->h)
        return -1;
    NVML_FNS(LOADFN)
    if (!v->nvmlInit_v2 || !v->nvmlErrorString || !v->nvmlDeviceGetHandleByIndex_v2 ||
        !v->nvmlDeviceGetHandleByPciBusId_v2 || !v->nvmlDeviceGetMemoryInfo) {
        snprintf(t->vendor_init, sizeof(t->vendor_init), "%.400s lacks the nvml* functions used",
                 t->vendor_lib);
        return -1;
    }
    nvmlReturn_t e = v->nvmlInit_v2();
    if (e != NVML_SUCCESS) {
        snprintf(t->vendor_init, sizeof(t->vendor_init), "nvmlInit_v2: %d (%s)", e,
                 v->nvmlErrorString(e));
        return -1;
    }
    snprintf(t->vendor_init, sizeof(t->vendor_init), "nvmlInit_v2: NVML_SUCCESS");
    if (!p)
        return -1;
    /* CUDA_VISIBLE_DEVICES renumbers CUDA's devices, not NVML's: use the PCI address */
    e = p->pci[0] ? v->nvmlDeviceGetHandleByPciBusId_v2(p->pci, &v->nvml_dev)
                  : v->nvmlDeviceGetHandleByIndex_v2(0, &v->nvml_dev);
    if (e != NVML_SUCCESS) {
        snprintf(t->vendor_init + strlen(t->vendor_init),
                 sizeof(t->vendor_init) - strlen(t->vendor_init), ", no device at PCI %s: %s",
                 p->pci[0] ? p->pci : "(index 0)", v->nvmlErrorString(e));
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
        return v->rsmi_dev_memory_usage_get(v->rsmi_dev, RSMI_MEM_TYPE_VRAM, used) ? -1 : 0;
    case VRAM_SRC_NVML: {
        nvmlMemory_t m;
        if (v->nvmlDeviceGetMemoryInfo(v->nvml_dev, &m) != NVML_SUCCESS)
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
    /* shut down what initialised (no dlclose: see gpu_backend_close) */
    if (t->src == VRAM_SRC_RSMI && v->rsmi_shut_down)
        v->rsmi_shut_down();
    if (t->src == VRAM_SRC_NVML && v->nvmlShutdown)
        v->nvmlShutdown();
    free(v);
    t->priv = NULL;
}
