/* gpu_probe.c - the common start of every GPU probe (see gpu_probe.h). */
#include "gpu_probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/rootfs.h"

void gpu_probe_unavailable(struct probe_ctx *ctx, const char *prefix, const char *fmt, ...)
{
    char name[FACT_NAME_MAX], why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(name, sizeof(name), "%s.available", prefix);
    fact_set_bool(ctx->facts, name, 0, "GPU backend");
    snprintf(name, sizeof(name), "%s.why", prefix);
    fact_set_str(ctx->facts, name, why, "GPU backend");
}

/* fault injection for tests (ROCM_VLA_DOCTOR_FAULT=device_abort:<i> or
 * device_hang:<i>): the probe child of runtime device i dies or hangs, so that
 * tests show the other GPUs' children and facts are not lost */
static void device_fault(int dev)
{
    const char *f = getenv("ROCM_VLA_DOCTOR_FAULT");
    int which = -1;
    if (!f)
        return;
    if (sscanf(f, "device_abort:%d", &which) == 1 && which == dev) {
        fprintf(stderr, "fault injection: aborting the probe child of device %d\n", dev);
        abort();
    }
    if (sscanf(f, "device_hang:%d", &which) == 1 && which == dev) {
        fprintf(stderr, "fault injection: the probe child of device %d hangs\n", dev);
        fflush(stderr);
        for (;;)
            pause();
    }
}

static int probe_begin(struct probe_ctx *ctx, const char *prefix, struct gpu_backend **b,
                       struct gpu_props *p, int cpu_ok)
{
    char name[FACT_NAME_MAX];
    char *why = NULL;
    *b = NULL;
    char test_pci[GPU_CPU_MAX_DEVICES][32], bad[160];
    /* the CPU backend's test devices stand in for GPUs also on a fixture machine */
    int test_devices = gpu_cpu_test_devices(test_pci, GPU_CPU_MAX_DEVICES, bad, sizeof(bad));
    if (!rootfs_is_live() && test_devices <= 0) {
        gpu_probe_unavailable(ctx, prefix,
                              "reading a sysroot or snapshot: GPU probes measure "
                              "the live machine only");
        return 1;
    }
    *b = gpu_backend_open(GPU_BACKEND_AUTO, &why);
    if (!*b) {
        gpu_probe_unavailable(ctx, prefix, "no GPU runtime loads (%s)", why);
        free(why);
        return 1;
    }
    snprintf(name, sizeof(name), "%s.backend", prefix);
    fact_set_str(ctx->facts, name, (*b)->name, (*b)->lib);
    int n = 0;
    (*b)->device_count(*b, &n);
    if (n <= 0) {
        gpu_probe_unavailable(ctx, prefix, "the %s runtime (%s) sees no GPU%s%s", (*b)->name,
                              (*b)->lib, (*b)->init_err[0] ? ": " : "", (*b)->init_err);
        return 1;
    }
    int dev = ctx->device;
    if (dev >= n) {
        gpu_probe_unavailable(ctx, prefix, "the %s runtime shows %d device(s), no device %d",
                              (*b)->name, n, dev);
        return 1;
    }
    if ((*b)->set_device(*b, dev) || (*b)->props(*b, dev, p)) {
        gpu_probe_unavailable(ctx, prefix, "device %d cannot be used: %s", dev, (*b)->err);
        return 1;
    }
    if (!*gpu_probe_target(p)) {
        /* never another GPU's target (see backend_hip.c): say why there is none */
        gpu_probe_unavailable(ctx, prefix, "the target of %s device %d at %s is not known: %s",
                              (*b)->name, dev, p->pci[0] ? p->pci : "(no PCI address)",
                              p->arch_why);
        return 1;
    }
    device_fault(dev);
    snprintf(name, sizeof(name), "%s.device", prefix);
    fact_set_str(ctx->facts, name, p->name, (*b)->lib);
    if (!cpu_ok && strcmp((*b)->name, "cpu") == 0) {
        gpu_probe_unavailable(ctx, prefix,
                              "device %d is the CPU backend's test device (%s, "
                              "ROCM_VLA_DOCTOR_CPU_DEVICES): this probe measures GPUs only",
                              dev, p->pci);
        return 1;
    }
    snprintf(name, sizeof(name), "%s.available", prefix);
    fact_set_bool(ctx->facts, name, 1, (*b)->lib);
    return 0;
}

void gpu_probe_fraction(struct probe_ctx *ctx, const char *name, double measured, int dev,
                        const char *peak)
{
    char pn[FACT_NAME_MAX], out[FACT_NAME_MAX], frac[FACT_NAME_MAX], text[FACT_NAME_MAX];
    snprintf(pn, sizeof(pn), "runtime.dev.%d.peak.%s", dev, peak);
    snprintf(out, sizeof(out), "%s_peak", name);
    snprintf(frac, sizeof(frac), "%s_fraction", name);
    snprintf(text, sizeof(text), "%s_vs_peak", name);
    const struct fact *f = fact_get(ctx->facts, pn);
    if (f && f->type == FACT_FLOAT && f->f > 0) {
        char *t = xasprintf("%.2f of the %.4g derived from the device", measured / f->f, f->f);
        fact_set_float(ctx->facts, out, f->f, pn);
        fact_set_float(ctx->facts, frac, measured / f->f, pn);
        fact_set_str(ctx->facts, text, t, pn);
        free(t);
        return;
    }
    const char *why = f && f->type == FACT_UNKNOWN && f->reason
                          ? f->reason
                          : "no derived peak: the peaks probe did not describe this runtime device";
    char *t = xasprintf("no fraction of a peak (%s)", why);
    fact_set_unknown(ctx->facts, out, pn, "%s", why);
    fact_set_unknown(ctx->facts, frac, pn, "%s", why);
    fact_set_str(ctx->facts, text, t, pn);
    free(t);
}

int gpu_probe_begin(struct probe_ctx *ctx, const char *prefix, struct gpu_backend **b,
                    struct gpu_props *p)
{
    return probe_begin(ctx, prefix, b, p, 0);
}

int gpu_probe_begin_cpu_ok(struct probe_ctx *ctx, const char *prefix, struct gpu_backend **b,
                           struct gpu_props *p)
{
    return probe_begin(ctx, prefix, b, p, 1);
}

const char *gpu_probe_target(const struct gpu_props *p)
{
    const char *t = getenv("ROCM_VLA_DOCTOR_TARGET");
    return t && *t ? t : p->target;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double gpu_quantile(double *v, size_t n, double q)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof(*v), cmp_d);
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}
