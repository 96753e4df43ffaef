/* fake_nvml.c - a fake libnvidia-ml for the telemetry sampler's NVIDIA
 * process list (tel_nvml.c): one device. FAKE_NVML_COMPUTE and
 * FAKE_NVML_GRAPHICS are "pid:bytes,..." ("pid:-" reports
 * NVML_VALUE_NOT_AVAILABLE); FAKE_NVML_UTIL is "pid:sm%,..." (one
 * utilization sample each, newer on every call); FAKE_NVML_FAIL_PROCS=1 makes
 * the compute list fail (NVML_ERROR_UNKNOWN). The lists honour NVML's
 * buffer protocol: a count below what is there is INSUFFICIENT_SIZE with the
 * needed count written back. nvmlDeviceGetPciInfo_v3 reports the bus id
 * FAKE_NVML_BUSID in NVML's form ("00000000:86:00.0" when unset; "fail"
 * makes the call fail with NVML_ERROR_UNKNOWN); the PCIe link is Gen4 x16,
 * current and max. Every other NVML function is absent, so the sampler's
 * values read "not in this driver". */
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} info_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} pci_t;
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} util_t;

static int dev_token;
static unsigned long long now_us = 1000;

int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
    return 0;
}
int nvmlShutdown(void);
int nvmlShutdown(void)
{
    return 0;
}
const char *nvmlErrorString(int e);
const char *nvmlErrorString(int e)
{
    return e == 999 ? "Unknown Error" : e == 7 ? "Insufficient Size" : "fake error";
}
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetCount_v2(unsigned *n)
{
    *n = 1;
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d)
{
    if (i)
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *d = &dev_token;
    return 0;
}

/* "a:b,c:d" from env into pairs; b "-" is ~0 */
static unsigned pairs(const char *env, unsigned long long (*v)[2], unsigned max)
{
    const char *s = getenv(env);
    unsigned n = 0;
    while (s && *s && n < max) {
        char *end;
        v[n][0] = strtoull(s, &end, 10);
        if (*end != ':')
            break;
        s = end + 1;
        if (*s == '-') {
            v[n][1] = ~0ULL;
            end = (char *)s + 1;
        } else {
            v[n][1] = strtoull(s, &end, 10);
        }
        n++;
        s = *end == ',' ? end + 1 : end;
        if (!*end)
            break;
    }
    return n;
}

static int list(const char *env, unsigned *count, info_t *out)
{
    unsigned long long v[16][2];
    unsigned n = pairs(env, v, 16);
    if (*count < n) {
        *count = n;
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    for (unsigned i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof(out[i]));
        out[i].pid = (unsigned)v[i][0];
        out[i].usedGpuMemory = v[i][1];
    }
    *count = n;
    return 0;
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *count, info_t *out);
int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *count, info_t *out)
{
    (void)d;
    const char *f = getenv("FAKE_NVML_FAIL_PROCS");
    if (f && *f == '1')
        return 999; /* NVML_ERROR_UNKNOWN */
    return list("FAKE_NVML_COMPUTE", count, out);
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(void *d, unsigned *count, info_t *out);
int nvmlDeviceGetGraphicsRunningProcesses_v3(void *d, unsigned *count, info_t *out)
{
    (void)d;
    return list("FAKE_NVML_GRAPHICS", count, out);
}
int nvmlDeviceGetProcessUtilization(void *d, util_t *u, unsigned *count, unsigned long long last);
int nvmlDeviceGetProcessUtilization(void *d, util_t *u, unsigned *count, unsigned long long last)
{
    (void)d;
    unsigned long long v[16][2];
    unsigned n = pairs("FAKE_NVML_UTIL", v, 16);
    if (!n)
        return 6; /* NVML_ERROR_NOT_FOUND */
    if (!u || *count < n) {
        *count = n;
        return 7;
    }
    now_us += 1000;
    for (unsigned i = 0; i < n; i++) {
        memset(&u[i], 0, sizeof(u[i]));
        u[i].pid = (unsigned)v[i][0];
        u[i].smUtil = (unsigned)v[i][1];
        u[i].timeStamp = now_us > last ? now_us : last + 1;
    }
    *count = n;
    return 0;
}

int nvmlDeviceGetPciInfo_v3(void *d, pci_t *p);
int nvmlDeviceGetPciInfo_v3(void *d, pci_t *p)
{
    (void)d;
    const char *id = getenv("FAKE_NVML_BUSID");
    if (id && !strcmp(id, "fail"))
        return 999;
    memset(p, 0, sizeof(*p));
    strncpy(p->busId, id ? id : "00000000:86:00.0", sizeof(p->busId) - 1);
    return 0;
}

/* the GPU's own link (Gen4 x16): what the PCIe path is compared with */
static int link(unsigned *v, unsigned val)
{
    *v = val;
    return 0;
}
int nvmlDeviceGetCurrPcieLinkGeneration(void *d, unsigned *v);
int nvmlDeviceGetCurrPcieLinkGeneration(void *d, unsigned *v)
{
    (void)d;
    return link(v, 4);
}
int nvmlDeviceGetMaxPcieLinkGeneration(void *d, unsigned *v);
int nvmlDeviceGetMaxPcieLinkGeneration(void *d, unsigned *v)
{
    (void)d;
    return link(v, 4);
}
int nvmlDeviceGetCurrPcieLinkWidth(void *d, unsigned *v);
int nvmlDeviceGetCurrPcieLinkWidth(void *d, unsigned *v)
{
    (void)d;
    return link(v, 16);
}
int nvmlDeviceGetMaxPcieLinkWidth(void *d, unsigned *v);
int nvmlDeviceGetMaxPcieLinkWidth(void *d, unsigned *v)
{
    (void)d;
    return link(v, 16);
}
