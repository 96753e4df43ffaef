/* peak_model.c - derived peak rates (see peak_model.h) */
#include "peak_model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../src/core/util.h"

double peak_pcie_encoded_gbs(double gts, double width)
{
    if (gts <= 0 || width <= 0)
        return 0;
    /* the line code per generation: 8b/10b up to Gen2 (5 GT/s), 128b/130b
     * for Gen3-5 (8-32 GT/s); Gen6 (64 GT/s, PAM4) always runs in FLIT mode,
     * 256-byte flits of which 242 bytes are TLP and DLLP payload (6 CRC and
     * 8 FEC bytes aside), so 128b/130b would overstate it by 4 % */
    double enc = gts < 8 ? 8.0 / 10.0 : gts < 64 ? 128.0 / 130.0 : 242.0 / 256.0;
    return gts * width * enc / 8.0;
}

double peak_pcie_payload_gbs(double gts, double width)
{
    return peak_pcie_encoded_gbs(gts, width) * PEAK_MPS_BYTES /
           (PEAK_MPS_BYTES + PEAK_TLP_OVERHEAD_BYTES);
}

int peak_dpm_max_mhz(const char *text, double *mhz)
{
    int found = 0;
    *mhz = 0;
    for (const char *p = text; p && *p;) {
        unsigned level;
        double v;
        char unit[4] = "";
        if (sscanf(p, "%u: %lf%3[MmHhZz]", &level, &v, unit) == 3 &&
            strncasecmp(unit, "mhz", 3) == 0 && v > 0) {
            if (v > *mhz)
                *mhz = v;
            found = 1;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return found ? 0 : -EINVAL;
}

static void set_strf(struct factset *fs, const char *name, const char *src, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_strf(struct factset *fs, const char *name, const char *src, const char *fmt, ...)
{
    va_list ap;
    struct strbuf sb = STRBUF_INIT;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    fact_set_str(fs, name, sb.buf ? sb.buf : "", src);
    strbuf_release(&sb);
}

static void set_rate(struct factset *fs, const char *prefix, const char *what, double per_clock,
                     const struct peak_arch *row, const struct peak_inputs *in, struct strbuf *why)
{
    char name[FACT_NAME_MAX];
    snprintf(name, sizeof(name), "%s.peak.%s_tflops", prefix, what);
    const char *miss = !in->arch           ? "the architecture is not known"
                       : !row              ? "the architecture is not in checks.yaml's peaks table"
                       : per_clock <= 0    ? "the peaks table gives this architecture no such rate"
                       : in->cu <= 0       ? "the compute-unit count is not known"
                       : in->sclk_mhz <= 0 ? "the maximum shader clock is not known"
                                           : NULL;
    if (miss) {
        fact_set_unknown(fs, name, "checks.yaml peaks", "not derived: %s", miss);
        /* a missing row is said once, by peak_derive(); a row without this
         * rate describes a GPU without such units (RDNA2 has no bf16 rate):
         * nothing is missing there, the fact alone says why it is unknown */
        if (row && per_clock > 0)
            strbuf_addf(why, "%s%s: %s", why->len ? "; " : "", what, miss);
        return;
    }
    char src[96];
    snprintf(src, sizeof(src), "checks.yaml peaks %s (line %lu)", row->arch, row->line);
    fact_set_float(fs, name, in->cu * in->sclk_mhz * 1e6 * per_clock / 1e12, src);
}

void peak_derive(struct factset *fs, const char *prefix, const struct peak_table *t,
                 const struct peak_inputs *in)
{
    char name[FACT_NAME_MAX];
    const struct peak_arch *row = peaks_find(t, in->arch);
    struct strbuf why = STRBUF_INIT;
    if (!in->arch)
        strbuf_adds(&why, "the architecture is not known");
    else if (!row)
        strbuf_addf(&why, "%.*s is not in checks.yaml's peaks table", (int)strcspn(in->arch, ":"),
                    in->arch);
    set_rate(fs, prefix, "fp16", row ? row->fp16_matrix : 0, row, in, &why);
    set_rate(fs, prefix, "bf16", row ? row->bf16_matrix : 0, row, in, &why);
    set_rate(fs, prefix, "fp32", row ? row->fp32_vector : 0, row, in, &why);
    snprintf(name, sizeof(name), "%s.peak.basis", prefix);
    if (row && in->cu > 0 && in->sclk_mhz > 0)
        set_strf(fs, name, "checks.yaml peaks",
                 "%.0f CUs (%s) x %.0f MHz (%s) x %s FLOPs/clock/CU fp16 %.0f, bf16 %.0f, "
                 "fp32 %.0f",
                 in->cu, in->cu_src, in->sclk_mhz, in->sclk_src, row->arch, row->fp16_matrix,
                 row->bf16_matrix, row->fp32_vector);
    else
        fact_set_unknown(fs, name, "checks.yaml peaks", "not derived");

    snprintf(name, sizeof(name), "%s.peak.mem_gbs", prefix);
    const char *miss = !row                                ? NULL
                       : row->mem_transfers_per_clock <= 0 ? "the peaks table has no memory "
                                                             "transfers-per-clock figure"
                       : in->mclk_mhz <= 0                 ? "the memory clock is not known"
                       : in->bus_bits <= 0                 ? "the memory bus width is not known"
                                                           : NULL;
    if (!row) {
        fact_set_unknown(fs, name, "checks.yaml peaks", "not derived: %s",
                         in->arch ? "the architecture is not in the peaks table"
                                  : "the architecture is not known");
    } else if (miss) {
        fact_set_unknown(fs, name, "checks.yaml peaks", "not derived: %s", miss);
        strbuf_addf(&why, "%smemory: %s", why.len ? "; " : "", miss);
    } else {
        double gbs = in->mclk_mhz * 1e6 * in->bus_bits / 8.0 * row->mem_transfers_per_clock / 1e9;
        char src[96];
        snprintf(src, sizeof(src), "checks.yaml peaks %s (line %lu)", row->arch, row->line);
        fact_set_float(fs, name, gbs, src);
    }
    snprintf(name, sizeof(name), "%s.peak.mem_basis", prefix);
    if (row && !miss)
        set_strf(fs, name, "checks.yaml peaks",
                 "%.0f MHz (%s) x %.0f bits (%s) / 8 x %g transfers per clock (%s %s)",
                 in->mclk_mhz, in->mclk_src, in->bus_bits, in->bus_src,
                 row->mem_transfers_per_clock, row->arch, row->memory ? row->memory : "");
    else
        fact_set_unknown(fs, name, "checks.yaml peaks", "not derived");
    snprintf(name, sizeof(name), "%s.peak.why", prefix);
    fact_set_str(fs, name, why.buf ? why.buf : "", "checks.yaml peaks");
    strbuf_release(&why);
}
