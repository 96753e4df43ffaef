/* tel_src_nvml.c - the telemetry source of NVIDIA GPUs through NVML
 * (src/gpu/nvml_bind.h), and the NVML calls of the energy meter
 * (tel_nvml.h). A function the driver lacks leaves its values unknown with
 * the reason. NVML reads the live GPU only: under --sysroot it is never
 * opened. */
#include "tel_nvml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/nvml_bind.h"
#include "tel_source.h"

#define TEL_NVML_MAX 64

struct tel_nvml {
    struct nvml_bind b;
    unsigned n;
    nvmlDevice_t dev[TEL_NVML_MAX];
    /* per device: its PCI address in sysfs' form, read once (it does not
     * change while the driver is loaded); "" with pci_why when NVML cannot
     * tell it */
    char pci[TEL_NVML_MAX][16];
    char pci_why[TEL_NVML_MAX][TEL_WHY_MAX - 32];
    /* per device: the newest process utilization sample seen (us), so the
     * next call returns only what came after it */
    unsigned long long util_ts[TEL_NVML_MAX];
};

static char status_buf[600];

int tel_nvml_bus_id(const char *bus_id, char *out, size_t len)
{
    unsigned dom, bus, dev, fn;
    int end = 0;
    /* only hex digits and the separators: scanf would take signs, spaces, "0x" */
    if (strspn(bus_id, "0123456789abcdefABCDEF:.") != strlen(bus_id) ||
        sscanf(bus_id, "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &end) != 4 || bus_id[end] ||
        dev > 0x1f || fn > 7)
        return -1;
    /* sysfs' form: at least 4 lower-case domain digits */
    snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
    return 0;
}

/* device i's address from nvmlDeviceGetPciInfo_v3, or why it is unknown */
static void pci_addr(struct tel_nvml *n, unsigned i)
{
    nvmlPciInfo_t info;
    memset(&info, 0, sizeof(info));
    int e = n->b.nvmlDeviceGetPciInfo_v3 ? n->b.nvmlDeviceGetPciInfo_v3(n->dev[i], &info) : -1;
    info.busId[sizeof(info.busId) - 1] = '\0';
    if (e != NVML_SUCCESS)
        snprintf(n->pci_why[i], sizeof(n->pci_why[i]), "nvmlDeviceGetPciInfo_v3: %.30s",
                 nvml_bind_error(&n->b, e));
    else if (tel_nvml_bus_id(info.busId, n->pci[i], sizeof(n->pci[i])))
        snprintf(n->pci_why[i], sizeof(n->pci_why[i]), "NVML bus id \"%.20s\" not understood",
                 info.busId);
}

/* NULL when NVML does not load or finds no device; status says how it went */
static struct tel_nvml *nvml_open(char *status, size_t status_n)
{
    struct tel_nvml *n = xcalloc(1, sizeof(*n));
    struct nvml_bind *b = &n->b;
    if (nvml_bind_load(b, status, status_n)) {
        free(n);
        return NULL;
    }
    unsigned count = 0;
    int e = -1;
    if (!b->nvmlInit_v2 || !b->nvmlErrorString || !b->nvmlDeviceGetCount_v2 ||
        !b->nvmlDeviceGetHandleByIndex_v2) {
        snprintf(status, status_n, "%.200s lacks nvmlInit_v2/nvmlDeviceGetCount_v2", b->lib);
        nvml_bind_close(b, 0, 1);
    } else if ((e = b->nvmlInit_v2()) != NVML_SUCCESS) {
        snprintf(status, status_n, "nvmlInit_v2: %.200s", nvml_bind_error(b, e));
        nvml_bind_close(b, 0, 1);
    } else if ((e = b->nvmlDeviceGetCount_v2(&count)) != NVML_SUCCESS || count == 0) {
        snprintf(status, status_n, "%.200s: no device (%.200s)", b->lib,
                 e == NVML_SUCCESS ? "count 0" : nvml_bind_error(b, e));
        nvml_bind_close(b, 1, 1);
    } else {
        for (unsigned i = 0; i < count && n->n < TEL_NVML_MAX; i++)
            if (b->nvmlDeviceGetHandleByIndex_v2(i, &n->dev[n->n]) == NVML_SUCCESS)
                pci_addr(n, n->n++);
        snprintf(status, status_n, "loaded %.200s, %u device(s)", b->lib, n->n);
        return n;
    }
    free(n);
    return NULL;
}

struct tel_nvml *tel_nvml_open(const char **status)
{
    *status = status_buf;
    return nvml_open(status_buf, sizeof(status_buf));
}

static size_t count(void *st)
{
    return ((struct tel_nvml *)st)->n;
}

void tel_nvml_close(struct tel_nvml *n)
{
    if (!n)
        return;
    nvml_bind_close(&n->b, 1, 1);
    free(n);
}

/* one unsigned value: set k to v * mul, or unknown with NVML's reason */
static void uval(struct tel_nvml *n, struct tel_gpu *g, enum tel_key k, const char *fname, int e,
                 unsigned long long v, double mul)
{
    if (e == NVML_SUCCESS)
        tel_gpu_set(g, k, (double)v * mul, "NVML");
    else
        tel_gpu_unknown(g, k, "%s: %s", fname, nvml_bind_error(&n->b, e));
}

#define CALL(fn, ...) (n->b.fn ? n->b.fn(__VA_ARGS__) : -1)

static const char *const reasons[] = {
    "GpuIdle",
    "ApplicationsClocksSetting",
    "SwPowerCap",
    "HwSlowdown",
    "SyncBoost",
    "SwThermalSlowdown",
    "HwThermalSlowdown",
    "HwPowerBrakeSlowdown",
    "DisplayClockSetting",
};

static double gen_gts(unsigned gen)
{
    static const double g[] = {0, 2.5, 5, 8, 16, 32, 64};
    return gen < sizeof(g) / sizeof(g[0]) ? g[gen] : -1;
}

/* a PCIe generation as GT/s */
static void gen_val(struct tel_nvml *n, struct tel_gpu *g, enum tel_key k, const char *fname, int e,
                    unsigned v)
{
    if (e == NVML_SUCCESS && gen_gts(v) > 0)
        tel_gpu_set(g, k, gen_gts(v), "NVML");
    else if (e == NVML_SUCCESS)
        tel_gpu_unknown(g, k, "%s: generation %u not known", fname, v);
    else
        uval(n, g, k, fname, e, 0, 1);
}

static void sample(void *st, size_t i, struct tel_gpu *g, const struct tel_src_ctx *c)
{
    struct tel_nvml *n = st;
    (void)c;
    nvmlDevice_t d = n->dev[i];
    unsigned v = 0;
    unsigned long long ull = 0;
    int e;
    e = CALL(nvmlDeviceGetClockInfo, d, NVML_CLOCK_SM, &v);
    uval(n, g, TEL_SCLK_MHZ, "nvmlDeviceGetClockInfo(SM)", e, v, 1);
    e = CALL(nvmlDeviceGetMaxClockInfo, d, NVML_CLOCK_SM, &v);
    uval(n, g, TEL_SCLK_MAX_MHZ, "nvmlDeviceGetMaxClockInfo(SM)", e, v, 1);
    tel_gpu_unknown(g, TEL_SCLK_MIN_MHZ, "NVML has no minimum clock");
    e = CALL(nvmlDeviceGetClockInfo, d, NVML_CLOCK_MEM, &v);
    uval(n, g, TEL_MCLK_MHZ, "nvmlDeviceGetClockInfo(MEM)", e, v, 1);
    e = CALL(nvmlDeviceGetMaxClockInfo, d, NVML_CLOCK_MEM, &v);
    uval(n, g, TEL_MCLK_MAX_MHZ, "nvmlDeviceGetMaxClockInfo(MEM)", e, v, 1);
    tel_gpu_unknown(g, TEL_MCLK_MIN_MHZ, "NVML has no minimum clock");
    e = CALL(nvmlDeviceGetPowerUsage, d, &v);
    uval(n, g, TEL_POWER_W, "nvmlDeviceGetPowerUsage", e, v, 1e-3);
    e = CALL(nvmlDeviceGetEnforcedPowerLimit, d, &v);
    uval(n, g, TEL_POWER_CAP_W, "nvmlDeviceGetEnforcedPowerLimit", e, v, 1e-3);
    e = CALL(nvmlDeviceGetTotalEnergyConsumption, d, &ull);
    uval(n, g, TEL_ENERGY_J, "nvmlDeviceGetTotalEnergyConsumption", e, ull, 1e-3);
    tel_gpu_unknown(g, TEL_TEMP_EDGE_C, "NVML reports one GPU temperature (temp_junction_c)");
    tel_gpu_unknown(g, TEL_TEMP_EDGE_LIMIT_C, "NVML reports one GPU temperature");
    e = CALL(nvmlDeviceGetTemperature, d, NVML_TEMPERATURE_GPU, &v);
    uval(n, g, TEL_TEMP_JUNCTION_C, "nvmlDeviceGetTemperature", e, v, 1);
    /* slowdown is where the clocks drop: the limit that matters here */
    e = CALL(nvmlDeviceGetTemperatureThreshold, d, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v);
    uval(n, g, TEL_TEMP_JUNCTION_LIMIT_C, "nvmlDeviceGetTemperatureThreshold(SLOWDOWN)", e, v, 1);
    tel_gpu_unknown(g, TEL_TEMP_MEM_C, "not read through NVML");
    e = CALL(nvmlDeviceGetTemperatureThreshold, d, NVML_TEMPERATURE_THRESHOLD_MEM_MAX, &v);
    uval(n, g, TEL_TEMP_MEM_LIMIT_C, "nvmlDeviceGetTemperatureThreshold(MEM_MAX)", e, v, 1);
    tel_gpu_unknown(g, TEL_FAN_RPM, "NVML reports fan speed in percent");
    e = CALL(nvmlDeviceGetFanSpeed, d, &v);
    uval(n, g, TEL_FAN_PCT, "nvmlDeviceGetFanSpeed", e, v, 1);
    nvmlUtilization_t u = {0, 0};
    e = CALL(nvmlDeviceGetUtilizationRates, d, &u);
    uval(n, g, TEL_BUSY_PCT, "nvmlDeviceGetUtilizationRates", e, u.gpu, 1);
    uval(n, g, TEL_MEM_BUSY_PCT, "nvmlDeviceGetUtilizationRates", e, u.memory, 1);
    nvmlMemory_t m = {0, 0, 0};
    e = CALL(nvmlDeviceGetMemoryInfo, d, &m);
    uval(n, g, TEL_VRAM_USED_B, "nvmlDeviceGetMemoryInfo", e, m.used, 1);
    uval(n, g, TEL_VRAM_TOTAL_B, "nvmlDeviceGetMemoryInfo", e, m.total, 1);
    tel_gpu_unknown(g, TEL_GTT_USED_B, "no GTT on NVIDIA");
    tel_gpu_unknown(g, TEL_GTT_TOTAL_B, "no GTT on NVIDIA");
    e = CALL(nvmlDeviceGetCurrPcieLinkGeneration, d, &v);
    gen_val(n, g, TEL_PCIE_GTS, "nvmlDeviceGetCurrPcieLinkGeneration", e, v);
    e = CALL(nvmlDeviceGetCurrPcieLinkWidth, d, &v);
    uval(n, g, TEL_PCIE_WIDTH, "nvmlDeviceGetCurrPcieLinkWidth", e, v, 1);
    e = CALL(nvmlDeviceGetMaxPcieLinkGeneration, d, &v);
    gen_val(n, g, TEL_PCIE_MAX_GTS, "nvmlDeviceGetMaxPcieLinkGeneration", e, v);
    e = CALL(nvmlDeviceGetMaxPcieLinkWidth, d, &v);
    uval(n, g, TEL_PCIE_MAX_WIDTH, "nvmlDeviceGetMaxPcieLinkWidth", e, v, 1);
    e = CALL(nvmlDeviceGetPcieReplayCounter, d, &v);
    uval(n, g, TEL_PCIE_REPLAYS, "nvmlDeviceGetPcieReplayCounter", e, v, 1);
    /* with the address, the sampler walks the path through sysfs (telemetry.c) */
    for (enum tel_key k = TEL_PCIE_PATH_WIDTH; !n->pci[i][0] && k <= TEL_PCIE_PATH_LIMITED; k++)
        tel_gpu_unknown(g, k, "NVML cannot tell the PCI address: %s", n->pci_why[i]);

    e = n->b.nvmlDeviceGetCurrentClocksEventReasons
            ? n->b.nvmlDeviceGetCurrentClocksEventReasons(d, &ull)
            : CALL(nvmlDeviceGetCurrentClocksThrottleReasons, d, &ull);
    if (e == NVML_SUCCESS) {
        size_t used = 0;
        g->throttle_known = 1;
        g->throttle_bits = ull;
        snprintf(g->throttle_src, sizeof(g->throttle_src), "NVML");
        for (unsigned b = 0; b < 64; b++) {
            if (!(ull >> b & 1))
                continue;
            int w = b < sizeof(reasons) / sizeof(reasons[0])
                        ? snprintf(g->throttle + used, sizeof(g->throttle) - used, "%s%s",
                                   used ? "," : "", reasons[b])
                        : snprintf(g->throttle + used, sizeof(g->throttle) - used, "%sBIT%u",
                                   used ? "," : "", b);
            if (w < 0 || (size_t)w >= sizeof(g->throttle) - used)
                break;
            used += (size_t)w;
        }
    } else {
        snprintf(g->throttle_why, sizeof(g->throttle_why),
                 "nvmlDeviceGetCurrentClocksEventReasons: %s", nvml_bind_error(&n->b, e));
    }
}

static const char *pci(void *st, size_t i)
{
    return ((struct tel_nvml *)st)->pci[i];
}

int tel_nvml_find(struct tel_nvml *n, const char *pci)
{
    nvmlDevice_t d;
    char want[16];
    if (!n || !n->n)
        return -1;
    /* the addresses NVML gave first: no lookup, and any spelling of the domain */
    if (pci && !tel_nvml_bus_id(pci, want, sizeof(want))) {
        unsigned known = 0;
        for (unsigned i = 0; i < n->n; i++) {
            if (!strcmp(n->pci[i], want))
                return (int)i;
            known += n->pci[i][0] != '\0';
        }
        if (known == n->n)
            return -1; /* NVML told every address: not one of its GPUs */
    }
    if (!pci || !*pci || !n->b.nvmlDeviceGetHandleByPciBusId_v2)
        return 0;
    if (n->b.nvmlDeviceGetHandleByPciBusId_v2(pci, &d) != NVML_SUCCESS)
        return -1;
    for (unsigned i = 0; i < n->n; i++)
        if (n->dev[i] == d)
            return (int)i;
    return -1;
}

int tel_nvml_energy_mj(struct tel_nvml *n, size_t i, unsigned long long *mj)
{
    return CALL(nvmlDeviceGetTotalEnergyConsumption, n->dev[i], mj);
}

int tel_nvml_power_mw(struct tel_nvml *n, size_t i, unsigned *mw)
{
    return CALL(nvmlDeviceGetPowerUsage, n->dev[i], mw);
}

static const char *tel_nvml_error(struct tel_nvml *n, int e)
{
    return nvml_bind_error(&n->b, e);
}

/* one process on an NVIDIA GPU */
struct tel_nvml_proc {
    unsigned pid;
    long long vram_bytes; /* -1: NVML_VALUE_NOT_AVAILABLE */
    double busy_pct;      /* SM utilization of its newest sample; -1 none or not supported */
    const char *src;      /* "NVML compute", "NVML graphics", "NVML compute+graphics" */
};

/* one _v3 process list into *v (grown as NVML asks); 0, or NVML's error */
static int proc_list(struct tel_nvml *n, int compute, nvmlDevice_t d, nvmlProcessInfo_t **v,
                     unsigned *cnt)
{
    __typeof__(n->b.nvmlDeviceGetComputeRunningProcesses_v3) fn =
        compute ? n->b.nvmlDeviceGetComputeRunningProcesses_v3
                : n->b.nvmlDeviceGetGraphicsRunningProcesses_v3;
    if (!fn)
        return -1;
    unsigned cap = 32;
    /* processes can start between the calls: ask again with what it said */
    for (int tries = 0; tries < 3; tries++) {
        *v = xrealloc(*v, (cap + 1) * sizeof(**v));
        *cnt = cap;
        int e = fn(d, cnt, *v);
        if (e != NVML_ERROR_INSUFFICIENT_SIZE)
            return e;
        cap = *cnt + 8;
    }
    return NVML_ERROR_INSUFFICIENT_SIZE;
}

static struct tel_nvml_proc *proc_add(struct tel_nvml_proc **out, size_t *nout, unsigned pid)
{
    for (size_t k = 0; k < *nout; k++)
        if ((*out)[k].pid == pid)
            return &(*out)[k];
    *out = xrealloc(*out, (*nout + 1) * sizeof(**out));
    struct tel_nvml_proc *p = &(*out)[(*nout)++];
    p->pid = pid;
    p->vram_bytes = -1;
    p->busy_pct = -1;
    p->src = NULL;
    return p;
}

/* SM utilization per process from the samples since the last call; a pid
 * without a sample keeps -1 (unknown), never 0 */
static void proc_util(struct tel_nvml *n, size_t i, struct tel_nvml_proc *p, size_t np)
{
    unsigned cnt = 0;
    nvmlDevice_t d = n->dev[i];
    if (!n->b.nvmlDeviceGetProcessUtilization || !np)
        return;
    int e = n->b.nvmlDeviceGetProcessUtilization(d, NULL, &cnt, n->util_ts[i]);
    if (e != NVML_ERROR_INSUFFICIENT_SIZE && e != NVML_SUCCESS)
        return; /* NOT_FOUND: no sample since the last; NOT_SUPPORTED: none */
    if (!cnt)
        return;
    unsigned cap = cnt + 8;
    nvmlProcessUtilizationSample_t *u = xcalloc(cap, sizeof(*u));
    cnt = cap;
    e = n->b.nvmlDeviceGetProcessUtilization(d, u, &cnt, n->util_ts[i]);
    if (e == NVML_SUCCESS) {
        /* each process's newest sample (they need not come in order) */
        unsigned long long newest = n->util_ts[i], *at = xcalloc(np, sizeof(*at));
        for (unsigned k = 0; k < cnt && k < cap; k++) {
            for (size_t j = 0; j < np; j++)
                if (p[j].pid == u[k].pid && (p[j].busy_pct < 0 || u[k].timeStamp >= at[j])) {
                    p[j].busy_pct = u[k].smUtil > 100 ? 100 : u[k].smUtil;
                    at[j] = u[k].timeStamp;
                }
            if (u[k].timeStamp > newest)
                newest = u[k].timeStamp;
        }
        n->util_ts[i] = newest;
        free(at);
    }
    free(u);
}

/* the processes on device i (compute and graphics, one entry per pid):
 * 0 and *out (free it; NULL when none), or -1 with the failing call and
 * NVML's reason in why (the list is unknown then, not empty) */
static int nvml_procs(struct tel_nvml *n, size_t i, struct tel_nvml_proc **out, size_t *nout,
                      char *why, size_t why_n)
{
    *out = NULL;
    *nout = 0;
    nvmlProcessInfo_t *v = NULL;
    for (int compute = 1; compute >= 0; compute--) {
        unsigned cnt = 0;
        int e = proc_list(n, compute, n->dev[i], &v, &cnt);
        if (e != NVML_SUCCESS) {
            snprintf(why, why_n, "%s: %s",
                     compute ? "nvmlDeviceGetComputeRunningProcesses_v3"
                             : "nvmlDeviceGetGraphicsRunningProcesses_v3",
                     tel_nvml_error(n, e));
            free(v);
            free(*out);
            *out = NULL;
            *nout = 0;
            return -1;
        }
        for (unsigned k = 0; k < cnt; k++) {
            struct tel_nvml_proc *p = proc_add(out, nout, v[k].pid);
            long long b =
                v[k].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE ? -1 : (long long)v[k].usedGpuMemory;
            if (b > p->vram_bytes)
                p->vram_bytes = b;
            p->src = !p->src ? (compute ? "NVML compute" : "NVML graphics")
                     : compute
                         ? p->src
                         : (strcmp(p->src, "NVML compute") == 0 ? "NVML compute+graphics" : p->src);
        }
    }
    free(v);
    proc_util(n, i, *out, *nout);
    why[0] = '\0';
    return 0;
}

/* the processes on the GPUs through NVML; a failing call leaves the GPU's
 * list unknown (procs_why), not empty */
static int processes(void *st, struct tel_sample *s, size_t *cap, const int *gpu)
{
    struct tel_nvml *n = st;
    for (size_t i = 0; i < n->n; i++) {
        if (gpu[i] < 0)
            continue;
        struct tel_gpu *g = &s->gpus[gpu[i]];
        struct tel_nvml_proc *np;
        size_t cnt;
        if (nvml_procs(n, i, &np, &cnt, g->procs_why, sizeof(g->procs_why)))
            continue;
        for (size_t k = 0; k < cnt; k++) {
            char comm[32];
            tel_proc_comm((int)np[k].pid, comm, sizeof(comm));
            struct tel_proc *p = tel_proc_add(s, cap, (int)np[k].pid, gpu[i], comm);
            p->src = np[k].src;
            p->vram_bytes = np[k].vram_bytes;
            p->busy_pct = np[k].busy_pct;
        }
        free(np);
    }
    return 0;
}

static int find(void *st, const char *pci)
{
    return tel_nvml_find(st, pci);
}

static void *open_src(const struct strlist *amd_bdfs, char *status, size_t status_n)
{
    (void)amd_bdfs;
    return nvml_open(status, status_n);
}

static void close_src(void *st)
{
    tel_nvml_close(st);
}

const struct tel_source_ops tel_src_nvml = {
    .name = "nvml",
    .vendor = "nvidia",
    .vendor_lib = 1,
    .open = open_src,
    .count = count,
    .pci = pci,
    .find = find,
    .sample = sample,
    .processes = processes,
    .close = close_src,
};
