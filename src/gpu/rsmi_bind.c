/* rsmi_bind.c - see rsmi_bind.h. */
#include "rsmi_bind.h"

#include <dlfcn.h>
#include <string.h>

#include "backend.h"
#include "gpu_trace.h"

/* --trace-gpu (gpu_trace.h): the real functions behind the wrappers */
static struct {
    RSMI_BIND_FNS(RSMI_BIND_DECL, RSMI_BIND_DECL)
} tr_real;

static const char *tr_rsmi_name(unsigned e)
{
    const char *s = NULL;
    if (!tr_real.rsmi_status_string || tr_real.rsmi_status_string(e, &s) != RSMI_STATUS_SUCCESS)
        return NULL;
    return s;
}

#define GT_EXTRA_TYPES
#include "trace_gen.h"
#define TW_RSMI(r, fn, ...) GT_WRAPPER(tr_real, "rsmi", tr_rsmi_name, r, fn, __VA_ARGS__)
#define TW0_RSMI(r, fn) GT_WRAPPER0(tr_real, "rsmi", tr_rsmi_name, r, fn)
RSMI_BIND_FNS(TW_RSMI, TW0_RSMI)

int rsmi_bind_load(struct rsmi_bind *b, char *why, size_t why_n)
{
    static const char *const names[] = {"librocm_smi64.so",   "librocm_smi64.so.7",
                                        "librocm_smi64.so.6", "librocm_smi64.so.5",
                                        "librocm_smi64.so.1", "/opt/rocm/lib/librocm_smi64.so"};
    memset(b, 0, sizeof(*b));
    b->h = gpu_dlopen_env("ROCM_VLA_DOCTOR_RSMI_LIB", names, ARRAY_SIZE(names), b->lib,
                          sizeof(b->lib), why, why_n);
    if (!b->h)
        return -1;
#define RSMI_BIND_LOAD(r, fn, ...) b->fn = (__typeof__(&fn))dlsym(b->h, #fn);
    RSMI_BIND_FNS(RSMI_BIND_LOAD, RSMI_BIND_LOAD)
#define RSMI_BIND_WRAP(r, fn, ...)                                                                 \
    if (b->fn && gpu_trace_on()) {                                                                 \
        tr_real.fn = b->fn;                                                                        \
        b->fn = tw_##fn;                                                                           \
    }
    RSMI_BIND_FNS(RSMI_BIND_WRAP, RSMI_BIND_WRAP)
    return 0;
}

const char *rsmi_bind_error(const struct rsmi_bind *b, rsmi_status_t e)
{
    const char *s = NULL;
    if (b->rsmi_status_string && b->rsmi_status_string(e, &s) != RSMI_STATUS_SUCCESS)
        s = NULL;
    return s ? s : "?";
}

int rsmi_bind_find(const struct rsmi_bind *b, uint32_t n, const struct pci_addr *want, int hip)
{
    int best = -1;
    enum pci_match best_m = PCI_MATCH_NONE;
    for (uint32_t i = 0; b->rsmi_dev_pci_id_get && i < n; i++) {
        uint64_t id = 0;
        struct pci_addr got;
        unsigned part = 0;
        if (b->rsmi_dev_pci_id_get(i, &id) != RSMI_STATUS_SUCCESS)
            continue;
        pci_addr_from_rsmi(id, &got, &part);
        if (hip && part && got.fn == 0)
            got.fn = part & 7;
        enum pci_match m = pci_addr_match(&got, want);
        if (hip && m == PCI_MATCH_NONE)
            m = pci_addr_match(want, &got);
        if (m > best_m)
            best = (int)i, best_m = m;
    }
    return best;
}

void rsmi_bind_close(struct rsmi_bind *b, int initialised, int unload)
{
    if (!b->h)
        return;
    if (initialised && b->rsmi_shut_down)
        b->rsmi_shut_down();
    if (unload)
        dlclose(b->h);
    b->h = NULL;
}
