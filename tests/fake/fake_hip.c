/* fake_hip.c - a fake libamdhip64 (with hiprtc inside, as on ROCm 5.x) for the
 * device-pairing tests (tests/unit/test_gpu_pairing.c). It lists the devices of
 * FAKE_HIP_DEVICES ("0000:0e:00.0,0000:03:00.0": PCI addresses in the order
 * the real HIP would enumerate them) and applies HIP_VISIBLE_DEVICES (indices
 * into that list) the way HIP does: hidden devices disappear and the rest are
 * renumbered from 0. hiprtc "compiles" any source for the --offload-arch
 * given and records the last target in FAKE_HIPRTC_LOG when set.
 * With FAKE_HIP_SEGV set, hipInit says so on stderr and crashes (SIGSEGV):
 * the vendor library that takes every GPU probe down (tests/gpu_ci.sh,
 * tests/html.sh). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXDEV 8
static char devs[MAXDEV][32];
static int ndev = -1;

static void enumerate(void)
{
    char all[MAXDEV][32];
    int nall = 0;
    const char *env = getenv("FAKE_HIP_DEVICES");
    ndev = 0;
    for (const char *p = env ? env : ""; *p && nall < MAXDEV;) {
        size_t n = strcspn(p, ",");
        snprintf(all[nall++], sizeof(all[0]), "%.*s", (int)n, p);
        p += n + (p[n] == ',');
    }
    const char *vis = getenv("HIP_VISIBLE_DEVICES");
    if (!vis) {
        for (int i = 0; i < nall; i++)
            memcpy(devs[ndev++], all[i], sizeof(all[0]));
        return;
    }
    for (const char *p = vis; *p && ndev < MAXDEV;) {
        int i = atoi(p);
        if (i >= 0 && i < nall)
            memcpy(devs[ndev++], all[i], sizeof(all[0]));
        p += strcspn(p, ",");
        p += *p == ',';
    }
}

int hipInit(unsigned f);
int hipInit(unsigned f)
{
    (void)f;
    if (getenv("FAKE_HIP_SEGV")) {
        fprintf(stderr, "fake libamdhip64: crashing in hipInit\n");
        raise(SIGSEGV);
    }
    enumerate();
    return 0;
}
int hipRuntimeGetVersion(int *v);
int hipRuntimeGetVersion(int *v)
{
    *v = 60241134;
    return 0;
}
int hipDriverGetVersion(int *v);
int hipDriverGetVersion(int *v)
{
    *v = 60241134;
    return 0;
}
const char *hipGetErrorName(int e);
const char *hipGetErrorName(int e)
{
    return e == 101 ? "hipErrorInvalidDevice" : "hipErrorUnknown";
}
const char *hipGetErrorString(int e);
const char *hipGetErrorString(int e)
{
    return e == 101 ? "invalid device ordinal" : "unknown error";
}
int hipGetDeviceCount(int *n);
int hipGetDeviceCount(int *n)
{
    if (ndev < 0)
        enumerate();
    *n = ndev;
    return 0;
}
int hipSetDevice(int d);
int hipSetDevice(int d)
{
    return d >= 0 && d < ndev ? 0 : 101;
}
int hipDeviceGetName(char *name, int len, int d);
int hipDeviceGetName(char *name, int len, int d)
{
    if (d < 0 || d >= ndev)
        return 101;
    snprintf(name, (size_t)len, "Fake AMD GPU at %s", devs[d]);
    return 0;
}
int hipDeviceGetPCIBusId(char *bus, int len, int d);
int hipDeviceGetPCIBusId(char *bus, int len, int d)
{
    if (d < 0 || d >= ndev)
        return 101;
    snprintf(bus, (size_t)len, "%s", devs[d]);
    return 0;
}
int hipDeviceTotalMem(size_t *b, int d);
int hipDeviceTotalMem(size_t *b, int d)
{
    *b = 0;
    return d >= 0 && d < ndev ? 0 : 101;
}
int hipDeviceGetAttribute(int *v, int a, int d);
int hipDeviceGetAttribute(int *v, int a, int d)
{
    (void)a;
    (void)d;
    *v = -1;
    return 1; /* no attributes: the pairing does not depend on them */
}

/* hiprtc */
struct prog {
    char target[64];
};
int hiprtcVersion(int *maj, int *min);
int hiprtcVersion(int *maj, int *min)
{
    *maj = 6;
    *min = 2;
    return 0;
}
const char *hiprtcGetErrorString(int e);
const char *hiprtcGetErrorString(int e)
{
    return e ? "HIPRTC_ERROR_INVALID_OPTION" : "HIPRTC_SUCCESS";
}
int hiprtcCreateProgram(struct prog **p, const char *src, const char *name, int nh, const char **h,
                        const char **in);
int hiprtcCreateProgram(struct prog **p, const char *src, const char *name, int nh, const char **h,
                        const char **in)
{
    (void)src, (void)name, (void)nh, (void)h, (void)in;
    *p = calloc(1, sizeof(**p));
    return *p ? 0 : 1;
}
int hiprtcCompileProgram(struct prog *p, int n, const char **opts);
int hiprtcCompileProgram(struct prog *p, int n, const char **opts)
{
    for (int i = 0; i < n; i++)
        if (strncmp(opts[i], "--offload-arch=", 15) == 0)
            snprintf(p->target, sizeof(p->target), "%s", opts[i] + 15);
    if (!p->target[0])
        return 5;
    const char *log = getenv("FAKE_HIPRTC_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s\n", p->target);
        fclose(f);
    }
    return 0;
}
int hiprtcGetProgramLogSize(struct prog *p, size_t *n);
int hiprtcGetProgramLogSize(struct prog *p, size_t *n)
{
    (void)p;
    *n = 0;
    return 0;
}
int hiprtcGetProgramLog(struct prog *p, char *log);
int hiprtcGetProgramLog(struct prog *p, char *log)
{
    (void)p;
    *log = '\0';
    return 0;
}
int hiprtcGetCodeSize(struct prog *p, size_t *n);
int hiprtcGetCodeSize(struct prog *p, size_t *n)
{
    *n = strlen("fake code object for ") + strlen(p->target) + 1;
    return 0;
}
int hiprtcGetCode(struct prog *p, char *code);
int hiprtcGetCode(struct prog *p, char *code)
{
    sprintf(code, "fake code object for %s", p->target);
    return 0;
}
int hiprtcDestroyProgram(struct prog **p);
int hiprtcDestroyProgram(struct prog **p)
{
    free(*p);
    *p = NULL;
    return 0;
}

/* the rest of the runtime the backend resolves: never called by the pairing */
#define STUB(n)                                                                                    \
    int n(void);                                                                                   \
    int n(void)                                                                                    \
    {                                                                                              \
        return 1;                                                                                  \
    }
STUB(hipMemGetInfo)
STUB(hipMalloc)
STUB(hipMallocManaged)
STUB(hipHostMalloc)
STUB(hipFree)
STUB(hipHostFree)
STUB(hipMemcpy)
STUB(hipMemcpyAsync)
STUB(hipMemset)
STUB(hipStreamCreateWithFlags)
STUB(hipStreamDestroy)
STUB(hipStreamSynchronize)
STUB(hipDeviceSynchronize)
STUB(hipEventCreate)
STUB(hipEventDestroy)
STUB(hipEventRecord)
STUB(hipEventSynchronize)
STUB(hipEventElapsedTime)
STUB(hipModuleLoadData)
STUB(hipModuleUnload)
STUB(hipModuleGetFunction)
STUB(hipModuleLaunchKernel)
