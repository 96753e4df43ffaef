/* gpu_probe.c - the common start of every GPU probe (see gpu_probe.h). */
#include "gpu_probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int gpu_probe_begin(struct probe_ctx *ctx, const char *prefix, struct gpu_backend **b,
                    struct gpu_props *p)
{
    char name[FACT_NAME_MAX];
    char *why = NULL;
    *b = NULL;
    if (!rootfs_is_live()) {
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
    if ((*b)->set_device(*b, 0) || (*b)->props(*b, 0, p)) {
        gpu_probe_unavailable(ctx, prefix, "device 0 cannot be used: %s", (*b)->err);
        return 1;
    }
    if (!*gpu_probe_target(p)) {
        /* never another GPU's target (see backend_hip.c): say why there is none */
        gpu_probe_unavailable(ctx, prefix, "the target of %s device 0 at %s is not known: %s",
                              (*b)->name, p->pci[0] ? p->pci : "(no PCI address)", p->arch_why);
        return 1;
    }
    snprintf(name, sizeof(name), "%s.available", prefix);
    fact_set_bool(ctx->facts, name, 1, (*b)->lib);
    snprintf(name, sizeof(name), "%s.device", prefix);
    fact_set_str(ctx->facts, name, p->name, (*b)->lib);
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
