/* probe_each_gpu.c - --gpu: which runtime devices the per-GPU probes measure,
 * and running such a probe once per device, each in its own isolated child
 * (a hang or crash on one GPU loses only that GPU's figures).
 *
 * Naming. A runtime device is reported under the slot gpu.<j> of the sysfs
 * GPU at its PCI address (runtime.dev.<i>.gpu, pci_addr.c: never by list
 * position). A device with no sysfs GPU (an NVIDIA GPU: probe_gpu lists AMD
 * ones; the CPU backend's test devices) gets a slot after the sysfs GPUs:
 * gpu.count + its rank among the unpaired devices, so a slot does not
 * depend on the selection. The child's facts are renamed: "sync.launch_us.p50"
 * becomes gpu.<j>.sync.launch_us.p50 and "gpu.gemm_peak.fp16_tflops" becomes
 * gpu.<j>.gemm_peak.fp16_tflops, which is what a `per: gpu` check's
 * "gpu.sync.launch_us.p50" resolves to. When no device can be measured (no
 * runtime, no device, a sysroot) the probe runs once and its facts are
 * "gpu.sync.available" = false and "gpu.sync.why": the same rule with no slot.
 * The runner adds gpu.measured (the slots, a list), gpu.<j>.runtime_device,
 * gpu.<j>.runtime_pci, gpu.<j>.runtime_name, and per slot the isolation
 * outcome gpu.<j>.probe.<name>.{status,message,wall_s}; probe.<name>.status is
 * the worst of them (timeout, then error, then ok), and probe.<name>.per_gpu =
 * true tells the checks engine to judge the probe's checks on gpu.measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpu/isolate.h"
#include "probe_each_gpu.h"

int gpu_select_parse(const char *spec, struct gpu_select *sel, char *why, size_t why_len)
{
    memset(sel, 0, sizeof(*sel));
    sel->explicit_ = 1;
    if (strcmp(spec, "all") == 0) {
        sel->all = 1;
        return 0;
    }
    const char *p = spec;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9') {
            snprintf(why, why_len,
                     "--gpu wants device numbers separated by commas (0,2) or 'all', not '%.60s'",
                     spec);
            return -1;
        }
        long v = strtol(p, &end, 10);
        if (v >= GPU_SELECT_MAX || (*end != ',' && *end != '\0')) {
            snprintf(why, why_len,
                     "--gpu wants device numbers below %d separated by commas (0,2) or 'all', "
                     "not '%.60s'",
                     GPU_SELECT_MAX, spec);
            return -1;
        }
        for (int k = 0; k < sel->n; k++)
            if (sel->dev[k] == (int)v) {
                snprintf(why, why_len, "--gpu names device %ld twice in '%.60s'", v, spec);
                return -1;
            }
        sel->dev[sel->n++] = (int)v;
        if (*end == '\0')
            return 0;
        p = end + 1;
    }
}

static int fact_int(const struct factset *fs, const char *name, int64_t *v)
{
    const struct fact *f = fact_get(fs, name);
    if (!f || f->type != FACT_INT)
        return -1;
    *v = f->i;
    return 0;
}

/* the slot of runtime device i (see the head of this file) */
static int slot_of(const struct factset *fs, int i)
{
    char n[FACT_NAME_MAX];
    int64_t j, count = 0;
    snprintf(n, sizeof(n), "runtime.dev.%d.gpu", i);
    if (fact_int(fs, n, &j) == 0 && j >= 0)
        return (int)j;
    fact_int(fs, "gpu.count", &count);
    int rank = 0;
    for (int k = 0; k < i; k++) {
        snprintf(n, sizeof(n), "runtime.dev.%d.gpu", k);
        rank += fact_int(fs, n, &j) != 0;
    }
    return (int)count + rank;
}

int gpu_select_resolve(struct factset *fs, struct gpu_select *sel, char *why, size_t why_len)
{
    int64_t count = 0;
    int known = fact_int(fs, "runtime.device_count", &count) == 0;
    const struct fact *be = fact_get(fs, "runtime.backend");
    const char *backend = be && be->type == FACT_STR ? be->s : "GPU";
    if (sel->all) {
        sel->n = 0;
        for (int i = 0; known && i < count && i < GPU_SELECT_MAX; i++)
            sel->dev[sel->n++] = i;
    } else if (!sel->explicit_) {
        sel->n = known && count > 0 ? 1 : 0;
        sel->dev[0] = 0;
    } else {
        for (int k = 0; k < sel->n; k++)
            if (!known || sel->dev[k] >= count) {
                if (!known || count <= 0)
                    snprintf(why, why_len,
                             "--gpu %d: no GPU runtime shows a device on this machine (see "
                             "gpu.runtime: rocm-vla-doctor --only gpu.runtime)",
                             sel->dev[k]);
                else
                    snprintf(why, why_len,
                             "--gpu %d: the %s runtime shows %lld device(s), numbered 0 to %lld",
                             sel->dev[k], backend, (long long)count, (long long)count - 1);
                return -1;
            }
    }
    struct strlist slots = STRLIST_INIT;
    for (int k = 0; k < sel->n; k++) {
        int i = sel->dev[k], s = sel->slot[k] = slot_of(fs, i);
        char n[FACT_NAME_MAX], rt[FACT_NAME_MAX];
        strlist_add_owned(&slots, xasprintf("%d", s));
        fact_set_int(fs, fact_gpu_name(n, s, "runtime_device"), i, "--gpu");
        snprintf(rt, sizeof(rt), "runtime.dev.%d.pci", i);
        const struct fact *pci = fact_get(fs, rt);
        fact_gpu_name(n, s, "runtime_pci");
        if (pci && pci->type == FACT_STR && pci->s[0])
            fact_set_str(fs, n, pci->s, "runtime");
        else
            fact_set_unknown(fs, n, "runtime", "the runtime gives no PCI address for device %d", i);
        snprintf(rt, sizeof(rt), "runtime.dev.%d.name", i);
        const struct fact *nm = fact_get(fs, rt);
        if (nm && nm->type == FACT_STR)
            fact_set_str(fs, fact_gpu_name(n, s, "runtime_name"), nm->s, "runtime");
    }
    fact_set_list(fs, "gpu.measured", &slots, "--gpu");
    strlist_release(&slots);
    sel->resolved = 1;
    return 0;
}

/* "sync.x" -> "gpu.<s>.sync.x", "gpu.gemm_peak.x" -> "gpu.<s>.gemm_peak.x";
 * slot < 0: "gpu.sync.x", "gpu.gemm_peak.x" */
static void renamed(char out[FACT_NAME_MAX], const char *name, int slot)
{
    const char *rest = str_starts(name, "gpu.") ? name + 4 : name;
    if (slot >= 0)
        snprintf(out, FACT_NAME_MAX, "gpu.%d.%s", slot, rest);
    else
        snprintf(out, FACT_NAME_MAX, "gpu.%s", rest);
}

/* the facts [from, n) that one child left: renamed; the isolation outcome
 * probe.<p>.* goes to gpu.<slot>.probe.<p>.* (slot >= 0) or stays */
static void rename_tail(struct factset *fs, size_t from, const char *probe, int slot)
{
    struct factset tail = FACTSET_INIT;
    char own[FACT_NAME_MAX], n[FACT_NAME_MAX];
    snprintf(own, sizeof(own), "probe.%s.", probe);
    factset_take_tail(fs, from, &tail);
    for (size_t i = 0; i < tail.n; i++) {
        const struct fact *f = tail.v[i];
        if (str_starts(f->name, own)) {
            if (slot >= 0)
                snprintf(n, sizeof(n), "gpu.%d.%s", slot, f->name);
            else
                snprintf(n, sizeof(n), "%s", f->name);
        } else {
            renamed(n, f->name, slot);
        }
        fact_copy_as(fs, f, n);
    }
    factset_release(&tail);
}

static int severity(const char *st)
{
    return strcmp(st, "timeout") == 0 ? 2 : strcmp(st, "error") == 0 ? 1 : 0;
}

void probe_run_each_gpu(const struct probe *p, struct probe_ctx *ctx, double budget_s,
                        const struct gpu_select *sel)
{
    struct factset *fs = ctx->facts;
    char n[FACT_NAME_MAX];
    int saved = ctx->device;
    snprintf(n, sizeof(n), "probe.%s.per_gpu", p->name);
    fact_set_bool(fs, n, 1, "probe table");
    if (sel->n == 0) { /* nothing to measure: the probe says why, once */
        ctx->device = 0;
        size_t from = fs->n;
        isolate_run(p, ctx, budget_s);
        rename_tail(fs, from, p->name, -1);
        ctx->device = saved;
        return;
    }
    const char *worst = "ok";
    double wall = 0;
    struct strbuf msg = STRBUF_INIT;
    for (int k = 0; k < sel->n; k++) {
        /* an earlier device's outcome was renamed: isolate_run sets these afresh */
        ctx->device = sel->dev[k];
        size_t from = fs->n;
        isolate_run(p, ctx, budget_s);
        rename_tail(fs, from, p->name, sel->slot[k]);
        snprintf(n, sizeof(n), "gpu.%d.probe.%s.status", sel->slot[k], p->name);
        const struct fact *st = fact_get(fs, n);
        const char *s = st && st->type == FACT_STR ? st->s : "error";
        snprintf(n, sizeof(n), "gpu.%d.probe.%s.wall_s", sel->slot[k], p->name);
        const struct fact *w = fact_get(fs, n);
        wall += w && w->type == FACT_FLOAT ? w->f : 0;
        if (severity(s) > 0) {
            snprintf(n, sizeof(n), "gpu.%d.probe.%s.message", sel->slot[k], p->name);
            const struct fact *m = fact_get(fs, n);
            strbuf_addf(&msg, "%sdevice %d (gpu.%d): %s", msg.len ? "; " : "", sel->dev[k],
                        sel->slot[k], m && m->type == FACT_STR ? m->s : s);
        }
        if (severity(s) > severity(worst))
            worst = severity(s) == 2 ? "timeout" : "error";
    }
    ctx->device = saved;
    snprintf(n, sizeof(n), "probe.%s.status", p->name);
    fact_set_str(fs, n, worst, "isolation runner");
    if (msg.len) {
        snprintf(n, sizeof(n), "probe.%s.message", p->name);
        fact_set_str(fs, n, msg.buf, "isolation runner");
    }
    snprintf(n, sizeof(n), "probe.%s.wall_s", p->name);
    fact_set_float(fs, n, wall, "isolation runner");
    strbuf_release(&msg);
}
