/* gpu_metrics.c - see gpu_metrics.h. The layouts below were written from
 * the field lists of the kernel's struct gpu_metrics_vX_Y (sizes and order
 * only); tests/unit/test_gpu_metrics.c checks the sizes the alignment rules
 * give against the ones the kernel's structs have (the real v1_3 capture of
 * an RX 6900 XT is 120 bytes). */
#include "gpu_metrics.h"

#include <stdio.h>
#include <string.h>

#include "../core/util.h"

/* one member: its id (a gm_field, or one of the extra ids below, or SKIP), the
 * size of one element (1, 2, 4, 8) and the element count */
struct gm_member {
    short id;
    unsigned char size, count;
};
enum { SKIP = -1, THROTTLE = GM_NFIELDS, INDEP };

#define M(id, size)                                                                                \
    {                                                                                              \
        id, size, 1                                                                                \
    }
#define A(id, size, n)                                                                             \
    {                                                                                              \
        id, size, n                                                                                \
    }
/* struct metrics_table_header */
#define HDR M(SKIP, 2), M(SKIP, 1), M(SKIP, 1)

/* temperature, utilisation, power and energy block shared by v1_1..v1_3 */
#define V1_HEAD                                                                                    \
    HDR, M(GM_TEMP_EDGE_C, 2), M(GM_TEMP_HOTSPOT_C, 2), M(GM_TEMP_MEM_C, 2), A(SKIP, 2, 3),        \
        M(GM_GFX_BUSY_PCT, 2), M(GM_UMC_BUSY_PCT, 2), M(SKIP, 2), M(GM_POWER_W, 2),                \
        M(GM_ENERGY_J, 8), M(GM_TIMESTAMP_NS, 8), A(SKIP, 2, 7), M(GM_GFXCLK_MHZ, 2), M(SKIP, 2),  \
        M(GM_UCLK_MHZ, 2), A(SKIP, 2, 4), M(THROTTLE, 4), M(GM_FAN_RPM, 2), M(GM_PCIE_WIDTH, 2),   \
        M(GM_PCIE_GTS, 2), M(SKIP, 2), A(SKIP, 4, 2), A(SKIP, 2, 4)

static const struct gm_member v1_0[] = {HDR,
                                        M(GM_TIMESTAMP_NS, 8),
                                        M(GM_TEMP_EDGE_C, 2),
                                        M(GM_TEMP_HOTSPOT_C, 2),
                                        M(GM_TEMP_MEM_C, 2),
                                        A(SKIP, 2, 3),
                                        M(GM_GFX_BUSY_PCT, 2),
                                        M(GM_UMC_BUSY_PCT, 2),
                                        M(SKIP, 2),
                                        M(GM_POWER_W, 2),
                                        M(GM_ENERGY_J, 4),
                                        A(SKIP, 2, 7),
                                        M(GM_GFXCLK_MHZ, 2),
                                        M(SKIP, 2),
                                        M(GM_UCLK_MHZ, 2),
                                        A(SKIP, 2, 4),
                                        M(THROTTLE, 4),
                                        M(GM_FAN_RPM, 2),
                                        M(GM_PCIE_WIDTH, 1),
                                        M(GM_PCIE_GTS, 1)};
static const struct gm_member v1_1[] = {V1_HEAD};
static const struct gm_member v1_2[] = {V1_HEAD, M(SKIP, 8)};
static const struct gm_member v1_3[] = {V1_HEAD, M(SKIP, 8), A(SKIP, 2, 4), M(INDEP, 8)};

/* v1_4..v1_6 (MI300-class): no edge temperature, instantaneous power;
 * jpeg is 0 (v1_4) or 32 JPEG activity words, resid adds v1_6's
 * accumulation counter and five residencies, nak v1_5's NAK counters */
#define V1_4_BODY(jpeg, resid, nak)                                                                \
    HDR, M(GM_TEMP_HOTSPOT_C, 2), M(GM_TEMP_MEM_C, 2), M(SKIP, 2), M(GM_POWER_W, 2),               \
        M(GM_GFX_BUSY_PCT, 2), M(GM_UMC_BUSY_PCT, 2), A(SKIP, 2, 4), A(SKIP, 2, jpeg),             \
        M(GM_ENERGY_J, 8), M(GM_TIMESTAMP_NS, 8), A(SKIP, 4, resid), M(THROTTLE, 4), M(SKIP, 4),   \
        M(GM_PCIE_WIDTH, 2), M(GM_PCIE_GTS, 2), A(SKIP, 2, 2), A(SKIP, 4, 2), A(SKIP, 8, 5),       \
        A(SKIP, 4, nak), A(SKIP, 8, 16), M(SKIP, 8), M(GM_GFXCLK_MHZ, 2), A(SKIP, 2, 7),           \
        A(SKIP, 2, 12), M(GM_UCLK_MHZ, 2), M(SKIP, 2)
static const struct gm_member v1_4[] = {V1_4_BODY(0, 0, 0)};
static const struct gm_member v1_5[] = {V1_4_BODY(32, 0, 2)};
static const struct gm_member v1_6[] = {V1_4_BODY(32, 6, 2)};

/* APUs: v2_0 has the timestamp first, v2_1.. after the utilisation */
#define V2_TEMPS M(GM_TEMP_GFX_C, 2), M(GM_TEMP_SOC_C, 2), A(SKIP, 2, 8), A(SKIP, 2, 2)
#define V2_ACT M(GM_GFX_BUSY_PCT, 2), M(SKIP, 2)
#define V2_POWER_CLOCKS                                                                            \
    M(GM_POWER_W, 2), A(SKIP, 2, 3), A(SKIP, 2, 8), A(SKIP, 2, 6), M(GM_GFXCLK_MHZ, 2),            \
        M(SKIP, 2), M(GM_UCLK_MHZ, 2), A(SKIP, 2, 3), A(SKIP, 2, 8), A(SKIP, 2, 2),                \
        M(THROTTLE, 4), M(SKIP, 2)
#define V2_1_BODY HDR, V2_TEMPS, V2_ACT, M(GM_TIMESTAMP_NS, 8), V2_POWER_CLOCKS, A(SKIP, 2, 3)
static const struct gm_member v2_0[] = {HDR,    M(GM_TIMESTAMP_NS, 8), V2_TEMPS,
                                        V2_ACT, V2_POWER_CLOCKS,       M(SKIP, 2)};
static const struct gm_member v2_1[] = {V2_1_BODY};
static const struct gm_member v2_2[] = {V2_1_BODY, M(INDEP, 8)};
static const struct gm_member v2_3[] = {V2_1_BODY, M(INDEP, 8), A(SKIP, 2, 12)};
static const struct gm_member v2_4[] = {V2_1_BODY, M(INDEP, 8), A(SKIP, 2, 12), A(SKIP, 2, 6)};

/* v3_0 has no current clocks: the time-filtered gfxclk and uclk stand in */
static const struct gm_member v3_0[] = {HDR,
                                        M(GM_TEMP_GFX_C, 2),
                                        M(GM_TEMP_SOC_C, 2),
                                        A(SKIP, 2, 16),
                                        M(SKIP, 2),
                                        M(GM_GFX_BUSY_PCT, 2),
                                        M(SKIP, 2),
                                        A(SKIP, 2, 8),
                                        A(SKIP, 2, 16),
                                        A(SKIP, 2, 4),
                                        M(GM_TIMESTAMP_NS, 8),
                                        M(GM_POWER_W, 4),
                                        M(SKIP, 2),
                                        A(SKIP, 4, 4),
                                        A(SKIP, 2, 16),
                                        A(SKIP, 2, 3),
                                        M(GM_GFXCLK_MHZ, 2),
                                        A(SKIP, 2, 5),
                                        M(GM_UCLK_MHZ, 2),
                                        M(SKIP, 2),
                                        A(SKIP, 2, 18),
                                        A(SKIP, 4, 7),
                                        M(SKIP, 4)};

struct gm_layout {
    unsigned format, content;
    const struct gm_member *m;
    size_t n;
    /* multiply the raw value: temperature (1 = Celsius, 0.01 = centi-Celsius),
     * utilisation (1 = %, 0.01 = centi-%), power (1 = W, 0.001 = mW) */
    double temp, busy, power;
};

#define L(f, c, arr, t, b, p)                                                                      \
    {                                                                                              \
        f, c, arr, ARRAY_SIZE(arr), t, b, p                                                        \
    }
static const struct gm_layout layouts[] = {
    L(1, 0, v1_0, 1, 1, 1),           L(1, 1, v1_1, 1, 1, 1),
    L(1, 2, v1_2, 1, 1, 1),           L(1, 3, v1_3, 1, 1, 1),
    L(1, 4, v1_4, 1, 1, 1),           L(1, 5, v1_5, 1, 1, 1),
    L(1, 6, v1_6, 1, 1, 1),           L(2, 0, v2_0, 0.01, 0.01, 0.001),
    L(2, 1, v2_1, 0.01, 0.01, 0.001), L(2, 2, v2_2, 0.01, 0.01, 0.001),
    L(2, 3, v2_3, 0.01, 0.01, 0.001), L(2, 4, v2_4, 0.01, 0.01, 0.001),
    L(3, 0, v3_0, 0.01, 1, 0.001),
};

static const struct gm_layout *layout_for(unsigned format, unsigned content)
{
    for (size_t i = 0; i < ARRAY_SIZE(layouts); i++)
        if (layouts[i].format == format && layouts[i].content == content)
            return &layouts[i];
    return NULL;
}

static size_t align_up(size_t off, size_t a)
{
    return (off + a - 1) / a * a;
}

/* walk the members with C's natural alignment; cb(NULL) just sizes it */
static size_t layout_walk(const struct gm_layout *l, const unsigned char *buf,
                          struct gpu_metrics *out)
{
    size_t off = 0, maxal = 1;
    for (size_t i = 0; i < l->n; i++) {
        const struct gm_member *m = &l->m[i];
        if (!m->count)
            continue;
        off = align_up(off, m->size);
        if (m->size > maxal)
            maxal = m->size;
        if (buf && m->id != SKIP) {
            uint64_t v = 0, ones = m->size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * m->size)) - 1;
            for (unsigned b = 0; b < m->size; b++) /* little-endian on every amdgpu host */
                v |= (uint64_t)buf[off + b] << (8 * b);
            if (m->id == THROTTLE) {
                out->has_throttle = v != ones;
                out->throttle = (uint32_t)v;
            } else if (m->id == INDEP) {
                out->has_indep = v != ones;
                out->indep_throttle = v;
            } else if (v != ones) {
                double d = (double)v;
                switch (m->id) {
                case GM_TEMP_EDGE_C:
                case GM_TEMP_HOTSPOT_C:
                case GM_TEMP_MEM_C:
                case GM_TEMP_GFX_C:
                case GM_TEMP_SOC_C:
                    d *= l->temp;
                    break;
                case GM_GFX_BUSY_PCT:
                case GM_UMC_BUSY_PCT:
                    d *= l->busy;
                    break;
                case GM_POWER_W:
                    d *= l->power;
                    break;
                case GM_ENERGY_J:
                    d *= 1.0 / 65536.0;
                    break; /* 15.259 uJ units */
                case GM_PCIE_GTS:
                    d *= 0.1;
                    break;
                default:
                    break;
                }
                out->v[m->id] = d;
                out->known[m->id] = 1;
            }
        }
        off += (size_t)m->size * m->count;
    }
    return align_up(off, maxal);
}

size_t gpu_metrics_struct_size(unsigned format, unsigned content)
{
    const struct gm_layout *l = layout_for(format, content);
    return l ? layout_walk(l, NULL, NULL) : 0;
}

int gpu_metrics_parse(const void *buf, size_t len, struct gpu_metrics *out, char *why, size_t why_n)
{
    const unsigned char *p = buf;
    memset(out, 0, sizeof(*out));
    if (len < 4) {
        snprintf(why, why_n, "gpu_metrics: %zu bytes, shorter than its 4-byte header", len);
        return -1;
    }
    out->size = (size_t)p[0] | (size_t)p[1] << 8;
    out->format = p[2];
    out->content = p[3];
    const struct gm_layout *l = layout_for(out->format, out->content);
    if (!l) {
        snprintf(why, why_n, "gpu_metrics format %u.%u unknown (%zu bytes)", out->format,
                 out->content, out->size);
        return -1;
    }
    size_t want = layout_walk(l, NULL, NULL);
    if (out->size != want) {
        snprintf(why, why_n,
                 "gpu_metrics %u.%u: structure_size %zu, the kernel's v%u_%u is %zu bytes",
                 out->format, out->content, out->size, out->format, out->content, want);
        return -1;
    }
    if (len < want) {
        snprintf(why, why_n, "gpu_metrics %u.%u: %zu bytes read, %zu expected", out->format,
                 out->content, len, want);
        return -1;
    }
    for (size_t i = want; i < len; i++)
        if (p[i]) {
            snprintf(why, why_n,
                     "gpu_metrics %u.%u: %zu bytes read, %zu expected (data after the struct)",
                     out->format, out->content, len, want);
            return -1;
        }
    layout_walk(l, p, out);
    return 0;
}

/* the kernel's SMU_THROTTLER_*_BIT numbers (amdgpu_smu.h) */
static const struct {
    unsigned bit;
    const char *name;
} throttle_bits[] = {
    {0, "PPT0"},          {1, "PPT1"},          {2, "PPT2"},          {3, "PPT3"},
    {4, "SPL"},           {5, "FPPT"},          {6, "SPPT"},          {7, "SPPT_APU"},
    {16, "TDC_GFX"},      {17, "TDC_SOC"},      {18, "TDC_MEM"},      {19, "TDC_VDD"},
    {20, "TDC_CVIP"},     {21, "EDC_CPU"},      {22, "EDC_GFX"},      {23, "APCC"},
    {32, "TEMP_GPU"},     {33, "TEMP_CORE"},    {34, "TEMP_MEM"},     {35, "TEMP_EDGE"},
    {36, "TEMP_HOTSPOT"}, {37, "TEMP_SOC"},     {38, "TEMP_VR_GFX"},  {39, "TEMP_VR_SOC"},
    {40, "TEMP_VR_MEM0"}, {41, "TEMP_VR_MEM1"}, {42, "TEMP_LIQUID0"}, {43, "TEMP_LIQUID1"},
    {44, "VRHOT0"},       {45, "VRHOT1"},       {46, "PROCHOT_CPU"},  {47, "PROCHOT_GFX"},
    {56, "PPM"},          {57, "FIT"},
};

void gpu_metrics_throttle_names(uint64_t bits, char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (unsigned b = 0; b < 64 && n; b++) {
        if (!(bits >> b & 1))
            continue;
        const char *name = NULL;
        for (size_t i = 0; i < ARRAY_SIZE(throttle_bits); i++)
            if (throttle_bits[i].bit == b)
                name = throttle_bits[i].name;
        int w = name ? snprintf(buf + used, n - used, "%s%s", used ? "," : "", name)
                     : snprintf(buf + used, n - used, "%sBIT%u", used ? "," : "", b);
        if (w < 0 || (size_t)w >= n - used) {
            buf[used] = '\0';
            return;
        }
        used += (size_t)w;
    }
}
