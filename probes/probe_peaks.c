/* probe_peaks.c - expectations derived from the device (peak_model.h):
 * for every sysfs GPU gpu.<i> and every runtime device runtime.dev.<i>, the
 * peak fp16/bf16 matrix and fp32 vector rates, the memory bandwidth and (for
 * gpu.<i>) the PCIe link's payload rate, from what the device reports and
 * the per-architecture table of checks.yaml (`peaks:`).
 *
 * Inputs of gpu.<i>, each also a fact with its file as source:
 *   sclk_max_mhz     the top level of pp_dpm_sclk, else the KFD node's
 *                    max_engine_clk_fcompute
 *   mclk_max_mhz     the top level of pp_dpm_mclk, else the KFD memory bank's
 *                    mem_clk_max
 *   vram_width_bits  the widest KFD memory bank's `width`
 * A runtime device uses the runtime's clock_khz, mem_clock_khz and
 * mem_bus_width, and where the runtime does not report one, the value of the
 * sysfs GPU it is paired with (runtime.dev.<i>.gpu). Nothing measured here:
 * the measuring probes (gemm_peak, bandwidth, mem_bandwidth) compare their
 * figures with these. */
#include "gpu_pci.h"
#include "peak_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_peaks_run(struct probe_ctx *ctx);

/* gpu.<g>.<rest> */
static const struct fact *gget(const struct factset *fs, int g, const char *rest)
{
    char n[FACT_NAME_MAX];
    return fact_get(fs, fact_gpu_name(n, g, rest));
}

/* runtime.dev.<i>.<rest> */
static const struct fact *rget(const struct factset *fs, int i, const char *rest)
{
    char n[FACT_NAME_MAX];
    snprintf(n, sizeof(n), "runtime.dev.%d.%s", i, rest);
    return fact_get(fs, n);
}

static double fnum(const struct fact *f)
{
    return !f ? 0 : f->type == FACT_INT ? (double)f->i : f->type == FACT_FLOAT ? f->f : 0;
}

/* the top level of a pp_dpm_* file of the GPU at bdf: MHz, or 0 */
static double dpm_max(const char *bdf, const char *file, char *src, size_t srclen)
{
    char *text = NULL;
    double mhz = 0;
    snprintf(src, srclen, GP_PCI_DEVICES "/%s/%s", bdf, file);
    if (rootfs_read_str(src, &text) == 0 && peak_dpm_max_mhz(text, &mhz) != 0)
        mhz = 0;
    free(text);
    return mhz;
}

/* the widest memory bank of a KFD node, and that bank's mem_clk_max */
static void kfd_banks(int node, double *width, double *clk)
{
    char dir[96];
    struct strlist banks = STRLIST_INIT;
    *width = *clk = 0;
    snprintf(dir, sizeof(dir), GP_KFD_NODES "/%d/mem_banks", node);
    if (rootfs_list(dir, &banks))
        return;
    for (size_t i = 0; i < banks.n; i++) {
        char *props = NULL;
        uint64_t w, c;
        if (rootfs_readf_str(&props, "%s/%s/properties", dir, banks.v[i]))
            continue;
        if (gp_kv_get(props, "width", &w) == 0 && (double)w > *width) {
            *width = (double)w;
            *clk = gp_kv_get(props, "mem_clk_max", &c) == 0 ? (double)c : 0;
        }
        free(props);
    }
    strlist_release(&banks);
}

static void set_input(struct factset *fs, int g, const char *what, double v, const char *src,
                      const char *why)
{
    char n[FACT_NAME_MAX];
    fact_gpu_name(n, g, what);
    if (v <= 0)
        fact_set_unknown(fs, n, src, "%s", why);
    else if (strcmp(what, "vram_width_bits") == 0)
        fact_set_int(fs, n, (int64_t)v, src);
    else
        fact_set_float(fs, n, v, src);
}

static void sysfs_gpu(struct factset *fs, const struct peak_table *t, int g)
{
    char bdfbuf[FACT_NAME_MAX], n[FACT_NAME_MAX];
    char ssrc[160], msrc[160], bsrc[128] = "KFD topology (no node)", ksrc[128];
    const char *bdf = probe_gpu_pci(fs, g, bdfbuf);
    const struct fact *node = gget(fs, g, "kfd_node");
    int kn = node && node->type == FACT_INT ? (int)node->i : -1;
    double sclk = bdf ? dpm_max(bdf, "pp_dpm_sclk", ssrc, sizeof(ssrc)) : 0;
    double mclk = bdf ? dpm_max(bdf, "pp_dpm_mclk", msrc, sizeof(msrc)) : 0;
    double width = 0, bank_clk = 0;
    if (!bdf)
        snprintf(ssrc, sizeof(ssrc), "pp_dpm_sclk (no PCI address)");
    if (!bdf)
        snprintf(msrc, sizeof(msrc), "pp_dpm_mclk (no PCI address)");
    if (kn >= 0) {
        kfd_banks(kn, &width, &bank_clk);
        snprintf(bsrc, sizeof(bsrc), GP_KFD_NODES "/%d/mem_banks", kn);
        if (sclk <= 0) {
            char *props = NULL;
            uint64_t v;
            snprintf(ksrc, sizeof(ksrc), GP_KFD_NODES "/%d/properties", kn);
            if (rootfs_read_str(ksrc, &props) == 0 &&
                gp_kv_get(props, "max_engine_clk_fcompute", &v) == 0 && v > 0) {
                sclk = (double)v;
                snprintf(ssrc, sizeof(ssrc), "%s max_engine_clk_fcompute", ksrc);
            }
            free(props);
        }
        if (mclk <= 0 && bank_clk > 0) {
            mclk = bank_clk;
            snprintf(msrc, sizeof(msrc), "%s mem_clk_max", bsrc);
        }
    }
    set_input(fs, g, "sclk_max_mhz", sclk, ssrc,
              "neither pp_dpm_sclk nor the KFD node's max_engine_clk_fcompute gives it");
    set_input(fs, g, "mclk_max_mhz", mclk, msrc,
              "neither pp_dpm_mclk nor a KFD memory bank's mem_clk_max gives it");
    set_input(fs, g, "vram_width_bits", width, bsrc, "no KFD memory bank states its width");

    const struct fact *gfx = gget(fs, g, "gfx"), *cu = gget(fs, g, "cu_count");
    struct peak_inputs in = {
        .arch = gfx && gfx->type == FACT_STR && *gfx->s ? gfx->s : NULL,
        .cu = fnum(cu),
        .sclk_mhz = sclk,
        .mclk_mhz = mclk,
        .bus_bits = width,
        .cu_src = "KFD",
        .sclk_src = str_ends(ssrc, "pp_dpm_sclk") ? "pp_dpm_sclk" : "KFD",
        .mclk_src = str_ends(msrc, "pp_dpm_mclk") ? "pp_dpm_mclk" : "KFD",
        .bus_src = "KFD",
    };
    snprintf(n, sizeof(n), "gpu.%d", g);
    peak_derive(fs, n, t, &in);

    /* the link as negotiated now (probe_pcie.c): the payload it can carry */
    const struct fact *gts = gget(fs, g, "link.speed_gts");
    const struct fact *w = gget(fs, g, "link.width");
    double pay = peak_pcie_payload_gbs(fnum(gts), fnum(w));
    fact_gpu_name(n, g, "peak.link_gbs");
    if (pay > 0)
        fact_set_float(fs, n, pay, "gpu.<i>.link.speed_gts, gpu.<i>.link.width");
    else
        fact_set_unknown(fs, n, "gpu.<i>.link",
                         "not derived: the link's speed or width is not "
                         "known");
    fact_gpu_name(n, g, "peak.link_basis");
    if (pay > 0) {
        char *b = xasprintf("%g GT/s x%.0f, %s encoding, 256-byte payloads behind 24 bytes of "
                            "TLP overhead: %.1f GB/s encoded, %.1f GB/s payload per direction",
                            fnum(gts), fnum(w), fnum(gts) < 8 ? "8b/10b" : "128b/130b",
                            peak_pcie_encoded_gbs(fnum(gts), fnum(w)), pay);
        fact_set_str(fs, n, b, "peak_model.h");
        free(b);
    } else {
        fact_set_unknown(fs, n, "gpu.<i>.link", "not derived");
    }
}

/* a runtime device: the runtime's figures, the paired sysfs GPU's where the
 * runtime has none */
static void runtime_dev(struct factset *fs, const struct peak_table *t, int i)
{
    const struct fact *pg = rget(fs, i, "gpu");
    int g = pg && pg->type == FACT_INT ? (int)pg->i : -1;
    const struct fact *arch = rget(fs, i, "target");
    if (!arch || arch->type != FACT_STR || !*arch->s)
        arch = g >= 0 ? gget(fs, g, "gfx") : NULL;
    struct peak_inputs in = {
        .arch = arch && arch->type == FACT_STR && *arch->s ? arch->s : NULL,
        .cu = fnum(rget(fs, i, "cu_count")),
        .sclk_mhz = fnum(rget(fs, i, "clock_khz")) / 1000.0,
        .mclk_mhz = fnum(rget(fs, i, "mem_clock_khz")) / 1000.0,
        .bus_bits = fnum(rget(fs, i, "mem_bus_width")),
        .cu_src = "runtime",
        .sclk_src = "runtime",
        .mclk_src = "runtime",
        .bus_src = "runtime",
    };
    if (g >= 0) {
        if (in.cu <= 0 && (in.cu = fnum(gget(fs, g, "cu_count"))) > 0)
            in.cu_src = "KFD";
        if (in.sclk_mhz <= 0 && (in.sclk_mhz = fnum(gget(fs, g, "sclk_max_mhz"))) > 0)
            in.sclk_src = "sysfs";
        if (in.mclk_mhz <= 0 && (in.mclk_mhz = fnum(gget(fs, g, "mclk_max_mhz"))) > 0)
            in.mclk_src = "sysfs";
        if (in.bus_bits <= 0 && (in.bus_bits = fnum(gget(fs, g, "vram_width_bits"))) > 0)
            in.bus_src = "KFD";
    }
    char n[FACT_NAME_MAX];
    snprintf(n, sizeof(n), "runtime.dev.%d", i);
    peak_derive(fs, n, t, &in);
}

int probe_peaks_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    static const struct peak_table none = {NULL, 0};
    const struct checkset *cs = probe_ctx_checks(ctx);
    const struct peak_table *t = cs ? &cs->peaks : &none;
    const struct fact *count = fact_get(fs, "gpu.count");
    for (int g = 0; count && count->type == FACT_INT && g < count->i && g < 4096; g++)
        sysfs_gpu(fs, t, g);
    const struct fact *nd = fact_get(fs, "runtime.device_count");
    for (int i = 0; nd && nd->type == FACT_INT && i < nd->i && i < 4096; i++)
        runtime_dev(fs, t, i);
    return 0;
}
