/* fake_rsmi.c - a fake librocm_smi64 for the PCI matching of vram_tel.c: one
 * device per BDFID in FAKE_RSMI_BDFIDS (comma-separated, hex, any bits set,
 * partition bits [31:28] included); device i reports (i + 1) MiB of VRAM used,
 * so a test can tell which one was picked. */
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
int rsmi_dev_memory_usage_get(uint32_t i, int type, uint64_t *used)
{
    (void)type;
    *used = ((uint64_t)i + 1) << 20;
    return 0;
}
int rsmi_status_string(int st, const char **s);
int rsmi_status_string(int st, const char **s)
{
    *s = st ? "RSMI_STATUS_INVALID_ARGS" : "RSMI_STATUS_SUCCESS";
    return 0;
}
