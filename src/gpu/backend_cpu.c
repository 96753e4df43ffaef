/* backend_cpu.c - the CPU backend: the numerical reference and what runs
 * where no GPU exists. Memory is host memory, copies are memcpy, gemm is a
 * plain triple loop with double accumulation (more exact than the fp32
 * accumulation the GPU backends promise, which is what a reference needs).
 * Streams, events, modules and graphs do not exist here: they return -1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "pci_addr.h"

static float gpu_half_to_float(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return s ? -v : v;
}

uint16_t gpu_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffff;
    if (ax > 0x7f800000)
        return sign | 0x7e00; /* NaN */
    if (ax >= 0x477ff000)     /* rounds to >= 65520: inf */
        return sign | 0x7c00;
    if (ax < 0x38800000) { /* subnormal half (or zero): scale and round */
        float a;
        memcpy(&a, &ax, 4);
        float q = a * 16777216.0f; /* 2^24: units of the smallest subnormal */
        return sign | (uint16_t)nearbyintf(q);
    }
    uint32_t e = (ax >> 23) - 112, m = ax & 0x7fffff;
    uint32_t h = (e << 10) | (m >> 13);
    uint32_t rest = m & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        h++;
    return sign | (uint16_t)h;
}

float gpu_bf16_to_float(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t gpu_float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

static int k_none(struct gpu_backend *b, const char *what)
{
    gpu_set_err(b, "the CPU backend has no %s", what);
    return -1;
}

/* the devices this backend shows: one (the host), or the test hook's */
struct cpu_priv {
    int n, cur;
    char pci[GPU_CPU_MAX_DEVICES][32];
};

int gpu_cpu_test_devices(char pci[][32], int max, char *why, size_t why_len)
{
    const char *e = getenv("ROCM_VLA_DOCTOR_CPU_DEVICES");
    if (!e || !*e)
        return 0;
    char *end;
    long n = strtol(e, &end, 10);
    if (*end == '\0') {
        if (n < 1 || n > max) {
            snprintf(why, why_len, "ROCM_VLA_DOCTOR_CPU_DEVICES=%.40s: want 1 to %d", e, max);
            return -1;
        }
        /* domain 0x00ff: no real machine has it, so these pair with no sysfs GPU */
        for (int i = 0; i < n; i++)
            snprintf(pci[i], 32, "00ff:%02x:00.0", i);
        return (int)n;
    }
    int k = 0;
    for (const char *p = e; *p;) {
        size_t len = strcspn(p, ",");
        char one[32];
        struct pci_addr a;
        snprintf(one, sizeof(one), "%.*s", (int)(len < 31 ? len : 31), p);
        if (k == max || len > 16 || pci_addr_parse(one, &a)) {
            snprintf(why, why_len,
                     "ROCM_VLA_DOCTOR_CPU_DEVICES: '%.40s' is not a PCI address (or more than %d)",
                     one, max);
            return -1;
        }
        pci_addr_format(&a, pci[k++]);
        p += len + (p[len] == ',');
    }
    return k;
}

static int k_device_count(struct gpu_backend *b, int *n)
{
    *n = ((struct cpu_priv *)b->priv)->n;
    return 0;
}

static int k_set_device(struct gpu_backend *b, int dev)
{
    struct cpu_priv *c = b->priv;
    if (dev < 0 || dev >= c->n) {
        gpu_set_err(b, "the CPU backend has no device %d (%d shown)", dev, c->n);
        return -1;
    }
    c->cur = dev;
    return 0;
}

static int k_props(struct gpu_backend *b, int dev, struct gpu_props *p)
{
    const struct cpu_priv *c = b->priv;
    if (dev < 0 || dev >= c->n) {
        gpu_set_err(b, "the CPU backend has no device %d (%d shown)", dev, c->n);
        return -1;
    }
    memset(p, 0, sizeof(*p));
    if (c->pci[dev][0]) {
        snprintf(p->name, sizeof(p->name), "host CPU (test device %d)", dev);
        snprintf(p->pci, sizeof(p->pci), "%s", c->pci[dev]);
    } else {
        snprintf(p->name, sizeof(p->name), "host CPU");
    }
    snprintf(p->arch, sizeof(p->arch), "cpu");
    snprintf(p->target, sizeof(p->target), "cpu");
    long pages = sysconf(_SC_PHYS_PAGES), ps = sysconf(_SC_PAGESIZE);
    p->total_mem = pages > 0 && ps > 0 ? (uint64_t)pages * (uint64_t)ps : 0;
    p->cu_count = (int)sysconf(_SC_NPROCESSORS_ONLN);
    p->managed = p->concurrent_managed = p->pageable_access = 1;
    p->clock_khz = p->mem_clock_khz = p->mem_bus_width = -1;
    return 0;
}

static int k_mem_info(struct gpu_backend *b, size_t *f, size_t *t)
{
    (void)b;
    long av = sysconf(_SC_AVPHYS_PAGES), pages = sysconf(_SC_PHYS_PAGES),
         ps = sysconf(_SC_PAGESIZE);
    *f = (size_t)av * (size_t)ps;
    *t = (size_t)pages * (size_t)ps;
    return 0;
}
static int k_malloc(struct gpu_backend *b, void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    return *p ? 0 : k_none(b, "memory left");
}
static int k_free(struct gpu_backend *b, void *p)
{
    (void)b;
    free(p);
    return 0;
}
static int k_memcpy(struct gpu_backend *b, void *d, const void *s, size_t n, enum gpu_copy k)
{
    (void)b;
    (void)k;
    memmove(d, s, n);
    return 0;
}
/* ROCM_VLA_DOCTOR_FAULT=no_peer:<i>,<j> (test hook): test devices i and j cannot
 * access each other; every other pair of test devices can (they share host memory) */
static int k_can_access_peer(struct gpu_backend *b, int dev, int peer, int *can)
{
    const struct cpu_priv *c = b->priv;
    const char *f = getenv("ROCM_VLA_DOCTOR_FAULT");
    int x = -1, y = -1;
    *can = 0;
    if (dev < 0 || dev >= c->n || peer < 0 || peer >= c->n || dev == peer) {
        gpu_set_err(b, "the CPU backend has no device pair %d, %d", dev, peer);
        return -1;
    }
    *can = !(f && sscanf(f, "no_peer:%d,%d", &x, &y) == 2 &&
             ((x == dev && y == peer) || (x == peer && y == dev)));
    return 0;
}
static int k_enable_peer(struct gpu_backend *b, int peer)
{
    int can = 0;
    int e = k_can_access_peer(b, ((struct cpu_priv *)b->priv)->cur, peer, &can);
    if (!e && !can) {
        gpu_set_err(b, "peer access from test device %d to %d refused (no_peer fault)",
                    ((struct cpu_priv *)b->priv)->cur, peer);
        return -1;
    }
    return e;
}
static int k_memcpy_peer(struct gpu_backend *b, void *d, int dd, const void *s, int sd, size_t n,
                         gpu_stream st)
{
    (void)b, (void)dd, (void)sd, (void)st;
    memmove(d, s, n);
    return 0;
}

static int k_memset(struct gpu_backend *b, void *p, int v, size_t n)
{
    (void)b;
    memset(p, v, n);
    return 0;
}

static double load(enum gpu_dtype t, const void *p, size_t i)
{
    if (t == GPU_F16)
        return gpu_half_to_float(((const uint16_t *)p)[i]);
    if (t == GPU_BF16)
        return gpu_bf16_to_float(((const uint16_t *)p)[i]);
    return ((const float *)p)[i];
}

static int k_gemm(struct gpu_backend *b, enum gpu_dtype t, int m, int n, int k, const void *A,
                  const void *B, float *Cm, gpu_stream s)
{
    (void)b;
    (void)s;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int l = 0; l < k; l++)
                acc += load(t, A, (size_t)i * k + l) * load(t, B, (size_t)l * n + j);
            Cm[(size_t)i * n + j] = (float)acc;
        }
    return 0;
}

static int k_no_stream(struct gpu_backend *b, gpu_stream *s, int nb)
{
    (void)s;
    (void)nb;
    return k_none(b, "streams");
}
static int k_sync(struct gpu_backend *b)
{
    (void)b;
    return 0;
}
static int k_compile(struct gpu_backend *b, const char *src, const char *name, const char *target,
                     void **bin, size_t *len, struct strbuf *log)
{
    (void)src, (void)name, (void)target, (void)log;
    *bin = NULL;
    *len = 0;
    return k_none(b, "kernel compiler");
}

struct gpu_backend *gpu_backend_cpu_open(void)
{
    struct gpu_backend *b = xcalloc(1, sizeof(*b));
    b->name = "cpu";
    struct cpu_priv *c = xcalloc(1, sizeof(*c));
    char why[160];
    c->n = gpu_cpu_test_devices(c->pci, GPU_CPU_MAX_DEVICES, why, sizeof(why));
    if (c->n <= 0) { /* unset, or malformed (gpu_backend_open reports that) */
        memset(c->pci, 0, sizeof(c->pci));
        c->n = 1;
    }
    b->priv = c;
    snprintf(b->blas_lib, sizeof(b->blas_lib), "plain C loops (fp64 accumulation)");
    b->blas_api = "CPU reference k_gemm";
    b->device_count = k_device_count;
    b->set_device = k_set_device;
    b->props = k_props;
    b->mem_info = k_mem_info;
    b->malloc = k_malloc;
    b->malloc_managed = k_malloc;
    b->malloc_host = k_malloc;
    b->free = k_free;
    b->free_host = k_free;
    b->memcpy = k_memcpy;
    b->memset = k_memset;
    b->can_access_peer = k_can_access_peer;
    b->enable_peer = k_enable_peer;
    b->memcpy_peer_async = k_memcpy_peer;
    b->stream_create = k_no_stream;
    b->device_sync = k_sync;
    b->compile = k_compile;
    b->blas_gemm = k_gemm;
    return b;
}
