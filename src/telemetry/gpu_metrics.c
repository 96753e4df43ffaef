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
    unsigned char size;
    unsigned short count;
};
/* HBM and XCD are arrays read element by element (hbm_temp_c, xcd_gfxclk_mhz) */
enum { SKIP = -1, THROTTLE = GM_NFIELDS, INDEP, HBM, XCD };

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
        M(GM_PCIE_GTS, 2), M(SKIP, 2), A(SKIP, 4, 2), A(HBM, 2, GM_NHBM)

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

/* v1_4..v1_8 (MI300-class): no edge temperature, instantaneous power.
 * MI_HEAD is the temperature/power/utilisation block they share, MI_PCIE
 * the lock status, link, XGMI width, activity and PCIe counters, MI_CLK the
 * firmware timestamp and current clocks (one gfxclk per XCD). */
#define MI_HEAD                                                                                    \
    HDR, M(GM_TEMP_HOTSPOT_C, 2), M(GM_TEMP_MEM_C, 2), M(SKIP, 2), M(GM_POWER_W, 2),               \
        M(GM_GFX_BUSY_PCT, 2), M(GM_UMC_BUSY_PCT, 2)
#define MI_PCIE                                                                                    \
    M(SKIP, 4), M(GM_PCIE_WIDTH, 2), M(GM_PCIE_GTS, 2), A(SKIP, 2, 2), A(SKIP, 4, 2),              \
        A(SKIP, 8, 2), M(GM_PCIE_L0_TO_RECOV, 8), M(GM_PCIE_REPLAY, 8), M(GM_PCIE_REPLAY_ROVER, 8)
#define MI_NAK M(GM_PCIE_NAK_SENT, 4), M(GM_PCIE_NAK_RCVD, 4)
#define MI_XGMI_DATA A(SKIP, 8, 16)
#define MI_CLK M(SKIP, 8), A(XCD, 2, GM_NXCD), A(SKIP, 2, 12), M(GM_UCLK_MHZ, 2)
#define MI_RESID                                                                                   \
    M(GM_ACC_COUNTER, 4), M(GM_RES_PROCHOT, 4), M(GM_RES_PPT, 4), M(GM_RES_SOCKET_THM, 4),         \
        M(GM_RES_VR_THM, 4), M(GM_RES_HBM_THM, 4)
#define MI_ENERGY M(GM_ENERGY_J, 8), M(GM_TIMESTAMP_NS, 8)
/* xcp_stats[NUM_XCP = 8]: structs of u32/u16 arrays and u64 accumulators
 * whose size is a multiple of 8, so an array of u64 has their alignment
 * and size (amdgpu_xcp_metrics 168 bytes, _v1_1 232, _v1_2 440) */
#define MI_XCP(bytes)                                                                              \
    M(GM_NUM_PARTITION, 2), A(SKIP, 8, (bytes) / 8 * 8), M(GM_PCIE_OTHER_END_RECOV, 4)
static const struct gm_member v1_4[] = {MI_HEAD, A(SKIP, 2, 4), MI_ENERGY, M(THROTTLE, 4),
                                        MI_PCIE, MI_XGMI_DATA,  MI_CLK,    M(SKIP, 2)};
static const struct gm_member v1_5[] = {MI_HEAD,        A(SKIP, 2, 4), A(SKIP, 2, 32), MI_ENERGY,
                                        M(THROTTLE, 4), MI_PCIE,       MI_NAK,         MI_XGMI_DATA,
                                        MI_CLK,         M(SKIP, 2)};
static const struct gm_member v1_6[] = {MI_HEAD, MI_ENERGY,    MI_RESID, MI_PCIE,
                                        MI_NAK,  MI_XGMI_DATA, MI_CLK,   MI_XCP(168)};
/* v1_7 and v1_8 add mem_max_bandwidth and xgmi_link_status[8] + padding */
static const struct gm_member v1_7[] = {MI_HEAD, M(SKIP, 8), MI_ENERGY,    MI_RESID,
                                        MI_PCIE, MI_NAK,     MI_XGMI_DATA, A(SKIP, 2, 9),
                                        MI_CLK,  MI_XCP(232)};
static const struct gm_member v1_8[] = {MI_HEAD, M(SKIP, 8), MI_ENERGY,    MI_RESID,
                                        MI_PCIE, MI_NAK,     MI_XGMI_DATA, A(SKIP, 2, 9),
                                        MI_CLK,  MI_XCP(440)};

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
                                        M(GM_THR_PROCHOT, 4),
                                        M(GM_THR_SPL, 4),
                                        M(GM_THR_FPPT, 4),
                                        M(GM_THR_SPPT, 4),
                                        M(GM_THR_THM_CORE, 4),
                                        M(GM_THR_THM_GFX, 4),
                                        M(GM_THR_THM_SOC, 4),
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
    L(1, 6, v1_6, 1, 1, 1),           L(1, 7, v1_7, 1, 1, 1),
    L(1, 8, v1_8, 1, 1, 1),           L(2, 0, v2_0, 0.01, 0.01, 0.001),
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

/* one little-endian element (every amdgpu host is little-endian); *ones is
 * set when it holds the all-ones "not provided" value */
static uint64_t read_le(const unsigned char *p, unsigned size, int *ones)
{
    uint64_t v = 0, all = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
    for (unsigned b = 0; b < size; b++)
        v |= (uint64_t)p[b] << (8 * b);
    *ones = v == all;
    return v;
}

/* the unit conversion of a gm_field's raw value */
static double scale(const struct gm_layout *l, int id, double d)
{
    switch (id) {
    case GM_TEMP_EDGE_C:
    case GM_TEMP_HOTSPOT_C:
    case GM_TEMP_MEM_C:
    case GM_TEMP_GFX_C:
    case GM_TEMP_SOC_C:
        return d * l->temp;
    case GM_GFX_BUSY_PCT:
    case GM_UMC_BUSY_PCT:
        return d * l->busy;
    case GM_POWER_W:
        return d * l->power;
    case GM_ENERGY_J:
        return d / 65536.0; /* 15.259 uJ units */
    case GM_PCIE_GTS:
        return d * 0.1;
    default:
        return d;
    }
}

/* store one member read at p: a gm_field, a throttle word or an array */
static void store(const struct gm_layout *l, const struct gm_member *m, const unsigned char *p,
                  struct gpu_metrics *out)
{
    int ones;
    if (m->id == HBM || m->id == XCD) {
        for (unsigned i = 0; i < m->count; i++) {
            double d = (double)read_le(p + (size_t)i * m->size, m->size, &ones);
            if (ones)
                continue;
            if (m->id == HBM && i < GM_NHBM) {
                out->hbm_temp_c[i] = d * l->temp;
                out->hbm_known[i] = 1;
            } else if (m->id == XCD && i < GM_NXCD) {
                out->xcd_gfxclk_mhz[i] = d;
                out->xcd_known[i] = 1;
            }
        }
        if (m->id == XCD && out->xcd_known[0]) {
            out->v[GM_GFXCLK_MHZ] = out->xcd_gfxclk_mhz[0];
            out->known[GM_GFXCLK_MHZ] = 1;
        }
        return;
    }
    uint64_t v = read_le(p, m->size, &ones);
    if (m->id == THROTTLE) {
        out->has_throttle = !ones;
        out->throttle = (uint32_t)v;
    } else if (m->id == INDEP) {
        out->has_indep = !ones;
        out->indep_throttle = v;
    } else if (!ones) {
        out->v[m->id] = scale(l, m->id, (double)v);
        out->known[m->id] = 1;
    }
}

/* walk the members with C's natural alignment; buf NULL just sizes it */
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
        if (buf && m->id != SKIP)
            store(l, m, buf + off, out);
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
    if (!l && out->format == 1 && out->content == 9) {
        snprintf(why, why_n,
                 "gpu_metrics 1.9 (the kernel's self-describing attribute list, "
                 "%zu bytes): format not supported yet",
                 out->size);
        return -1;
    }
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
