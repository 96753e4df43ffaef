/* fuzz_gpu_metrics.c - the telemetry's parsers of machine data: the binary
 * gpu_metrics file (every revision's layout, sizes, all-ones values) and,
 * on the same bytes as text, the pp_dpm_* tables and DRM fdinfo. What a
 * successful parse returns must agree with the layout table (the struct's
 * size fits the input) and stay in range. */
#include <math.h>

#include "../../src/telemetry/gpu_metrics.h"
#include "../../src/telemetry/telemetry.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gpu_metrics m;
    char why[160], names[64];
    if (gpu_metrics_parse(data, size, &m, why, sizeof(why)) == 0) {
        if (m.size != gpu_metrics_struct_size(m.format, m.content) || m.size > size)
            abort();
        for (int k = 0; k < GM_NFIELDS; k++)
            if (m.known[k] && (!isfinite(m.v[k]) || m.v[k] < 0))
                abort();
        /* the arrays the sampler reduces (hottest HBM, slowest XCD) */
        for (int i = 0; i < GM_NHBM; i++)
            if (m.hbm_known[i] && (!isfinite(m.hbm_temp_c[i]) || m.hbm_temp_c[i] < 0))
                abort();
        for (int i = 0; i < GM_NXCD; i++)
            if (m.xcd_known[i] && (!isfinite(m.xcd_gfxclk_mhz[i]) || m.xcd_gfxclk_mhz[i] < 0))
                abort();
        if (m.known[GM_GFXCLK_MHZ] && m.xcd_known[0] && m.v[GM_GFXCLK_MHZ] != m.xcd_gfxclk_mhz[0])
            abort(); /* gfxclk is XCD 0's where the array exists */
        gpu_metrics_throttle_names(m.indep_throttle, names, sizeof(names));
        if (strlen(names) >= sizeof(names))
            abort();
    } else if (!why[0] || strlen(why) >= sizeof(why)) {
        abort(); /* every refusal says why */
    }
    char *s = fuzz_cstr(data, size);
    struct tel_dpm d;
    if (tel_dpm_parse(s, &d) == 0 && (d.n < 1 || d.nstar > d.n || d.min > d.max))
        abort();
    struct tel_dpm_pcie p;
    if (tel_dpm_pcie_parse(s, &p) == 0 &&
        (p.n < 1 || p.nstar > p.n || (p.star_conflict && p.nstar < 2)))
        abort();
    struct tel_fdinfo f;
    if (tel_fdinfo_parse(s, &f) == 0 && (!f.driver[0] || f.vram_bytes < -1 || f.engine_ns < -1))
        abort();
    free(s);
    return 0;
}
