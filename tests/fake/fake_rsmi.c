/* fake_rsmi.c - a fake librocm_smi64 for the PCI matching of vram_tel.c and
 * the telemetry sampler (tel_rsmi.c): one device per BDFID in
 * FAKE_RSMI_BDFIDS (comma-separated, hex, any bits set, partition bits
 * [31:28] included); device i reports (i + 1) MiB of VRAM used, so a test can
 * tell which one was picked. Every device reports the same known telemetry
 * (sclk levels 500/1234/2500 MHz at 1234, mclk 96/1000 at 1000, 123.5 W of
 * 250 W, edge/junction/memory 41/52/63 C with critical 91/102/113 C, busy
 * 77 %, fan 1357 RPM, 8 GiB VRAM, GTT 3 MiB of 4 GiB). FAKE_RSMI_FAIL=1 makes
 * every value call fail (RSMI_STATUS_NOT_SUPPORTED); the PCI ids still read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t ids[16];
static uint32_t nid;

int rsmi_init(uint64_t flags);
int rsmi_init(uint64_t flags)
{
    (void)flags;
    const char *env = getenv("FAKE_RSMI_BDFIDS");
    nid = 0;
    for (const char *p = env ? env : ""; *p && nid < 16;) {
        char *end;
        ids[nid++] = strtoull(p, &end, 16);
        p = end + (*end == ',');
        if (end == p)
            break;
    }
    return 0;
}
int rsmi_shut_down(void);
int rsmi_shut_down(void)
{
    return 0;
}
int rsmi_num_monitor_devices(uint32_t *n);
int rsmi_num_monitor_devices(uint32_t *n)
{
    *n = nid;
    return 0;
}
int rsmi_dev_pci_id_get(uint32_t i, uint64_t *id);
int rsmi_dev_pci_id_get(uint32_t i, uint64_t *id)
{
    if (i >= nid)
        return 2; /* RSMI_STATUS_INVALID_ARGS */
    *id = ids[i];
    return 0;
}
int rsmi_dev_memory_usage_get(uint32_t i, int type, uint64_t *used);
#define NOT_SUPPORTED 2
/* 0 when device i exists and the calls are not told to fail */
static int fails(uint32_t i)
{
    const char *f = getenv("FAKE_RSMI_FAIL");
    return i >= nid ? 1 : (f && *f == '1') ? NOT_SUPPORTED : 0;
}
int rsmi_dev_memory_usage_get(uint32_t i, int type, uint64_t *used)
{
    if (fails(i))
        return fails(i);
    *used = type == 2 ? 3u << 20 : ((uint64_t)i + 1) << 20;
    return 0;
}
int rsmi_dev_memory_total_get(uint32_t i, int type, uint64_t *total);
int rsmi_dev_memory_total_get(uint32_t i, int type, uint64_t *total)
{
    if (fails(i))
        return fails(i);
    *total = type == 2 ? 4ull << 30 : 8ull << 30;
    return 0;
}
/* rsmi_frequencies_t's layout */
struct freqs {
    uint32_t num_supported, current;
    uint64_t frequency[32];
};
int rsmi_dev_gpu_clk_freq_get(uint32_t i, int type, struct freqs *f);
int rsmi_dev_gpu_clk_freq_get(uint32_t i, int type, struct freqs *f)
{
    if (fails(i))
        return fails(i);
    memset(f, 0, sizeof(*f));
    if (type == 0) { /* RSMI_CLK_TYPE_SYS */
        f->num_supported = 3, f->current = 1;
        f->frequency[0] = 500000000, f->frequency[1] = 1234000000, f->frequency[2] = 2500000000u;
    } else if (type == 4) { /* RSMI_CLK_TYPE_MEM */
        f->num_supported = 2, f->current = 1;
        f->frequency[0] = 96000000, f->frequency[1] = 1000000000;
    } else {
        return NOT_SUPPORTED;
    }
    return 0;
}
/* a sensor-indexed call: only sensor 0 exists */
static int sensor_fails(uint32_t i, uint32_t s)
{
    return fails(i) ? fails(i) : s ? NOT_SUPPORTED : 0;
}
int rsmi_dev_power_ave_get(uint32_t i, uint32_t s, uint64_t *p);
int rsmi_dev_power_ave_get(uint32_t i, uint32_t s, uint64_t *p)
{
    if (sensor_fails(i, s))
        return sensor_fails(i, s);
    *p = 123500000;
    return 0;
}
int rsmi_dev_power_cap_get(uint32_t i, uint32_t s, uint64_t *p);
int rsmi_dev_power_cap_get(uint32_t i, uint32_t s, uint64_t *p)
{
    if (sensor_fails(i, s))
        return sensor_fails(i, s);
    *p = 250000000;
    return 0;
}
int rsmi_dev_temp_metric_get(uint32_t i, uint32_t sensor, int metric, int64_t *t);
int rsmi_dev_temp_metric_get(uint32_t i, uint32_t sensor, int metric, int64_t *t)
{
    /* RSMI_TEMP_CURRENT 0, RSMI_TEMP_CRITICAL 5; sensors edge, junction, memory */
    if (fails(i) || sensor > 2 || (metric != 0 && metric != 5))
        return fails(i) ? fails(i) : NOT_SUPPORTED;
    *t = (metric ? 91000 : 41000) + (int64_t)sensor * 11000;
    return 0;
}
int rsmi_dev_busy_percent_get(uint32_t i, uint32_t *b);
int rsmi_dev_busy_percent_get(uint32_t i, uint32_t *b)
{
    if (fails(i))
        return fails(i);
    *b = 77;
    return 0;
}
int rsmi_dev_fan_rpms_get(uint32_t i, uint32_t s, int64_t *rpm);
int rsmi_dev_fan_rpms_get(uint32_t i, uint32_t s, int64_t *rpm)
{
    if (sensor_fails(i, s))
        return sensor_fails(i, s);
    *rpm = 1357;
    return 0;
}
int rsmi_status_string(int st, const char **s);
int rsmi_status_string(int st, const char **s)
{
    *s = st ? "RSMI_STATUS_INVALID_ARGS" : "RSMI_STATUS_SUCCESS";
    return 0;
}
