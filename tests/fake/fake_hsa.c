/* fake_hsa.c - a fake libhsa-runtime64 for the device-pairing tests: the agents
 * of FAKE_HSA_AGENTS ("cpu,0000:0e:00.0=gfx1036,0000:03:00.0=gfx1100") in that
 * order, with HSA_AMD_AGENT_INFO_BDFID/DOMAIN and one ISA each. Like the real
 * one it does not apply HIP_VISIBLE_DEVICES (that is HIP's). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ag {
    int gpu;
    unsigned dom, bus, dev, fn;
    char isa[96];
};
static struct ag ags[8];
static int nag;

int hsa_init(void);
int hsa_init(void)
{
    const char *env = getenv("FAKE_HSA_AGENTS");
    nag = 0;
    for (const char *p = env ? env : ""; *p && nag < 8;) {
        size_t n = strcspn(p, ",");
        char one[64];
        snprintf(one, sizeof(one), "%.*s", (int)n, p);
        struct ag *a = &ags[nag++];
        memset(a, 0, sizeof(*a));
        char gfx[32];
        if (sscanf(one, "%x:%x:%x.%x=%31s", &a->dom, &a->bus, &a->dev, &a->fn, gfx) == 5) {
            a->gpu = 1;
            snprintf(a->isa, sizeof(a->isa), "amdgcn-amd-amdhsa--%s", gfx);
        }
        p += n + (p[n] == ',');
    }
    return 0;
}

typedef struct {
    uint64_t handle;
} h_t;

int hsa_iterate_agents(int (*cb)(h_t, void *), void *data);
int hsa_iterate_agents(int (*cb)(h_t, void *), void *data)
{
    for (int i = 0; i < nag; i++) {
        h_t h = {(uint64_t)i + 1};
        int r = cb(h, data);
        if (r)
            return r;
    }
    return 0;
}

int hsa_agent_get_info(h_t a, int attr, void *v);
int hsa_agent_get_info(h_t a, int attr, void *v)
{
    if (a.handle < 1 || a.handle > (uint64_t)nag)
        return 0x1001; /* HSA_STATUS_ERROR_INVALID_AGENT */
    const struct ag *g = &ags[a.handle - 1];
    switch (attr) {
    case 17: /* HSA_AGENT_INFO_DEVICE: CPU 0, GPU 1 */
        *(int *)v = g->gpu;
        return 0;
    case 0xA006: /* HSA_AMD_AGENT_INFO_BDFID */
        *(uint32_t *)v = g->bus << 8 | g->dev << 3 | g->fn;
        return 0;
    case 0xA00F: /* HSA_AMD_AGENT_INFO_DOMAIN */
        *(uint32_t *)v = g->dom;
        return 0;
    }
    return 0x1003; /* HSA_STATUS_ERROR_INVALID_ARGUMENT */
}

int hsa_agent_iterate_isas(h_t a, int (*cb)(h_t, void *), void *data);
int hsa_agent_iterate_isas(h_t a, int (*cb)(h_t, void *), void *data)
{
    return cb(a, data); /* the ISA handle is the agent's */
}

int hsa_isa_get_info_alt(h_t isa, int attr, void *v);
int hsa_isa_get_info_alt(h_t isa, int attr, void *v)
{
    const struct ag *g = &ags[isa.handle - 1];
    if (attr == 0) { /* HSA_ISA_INFO_NAME_LENGTH, with the NUL */
        *(uint32_t *)v = (uint32_t)strlen(g->isa) + 1;
        return 0;
    }
    if (attr == 1) {
        memcpy(v, g->isa, strlen(g->isa) + 1);
        return 0;
    }
    return 0x1003;
}
