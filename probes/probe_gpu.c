/* probe_gpu.c - AMD GPUs: display-class PCI devices of vendor 0x1002, in PCI
 * address order (gpu_enumerate, src/core/gpu_enum.h), joined with their KFD
 * topology node (by domain and location_id) for the gfx target, and with
 * their DRM sysfs directory for memory, clocks, thermal and RAS
 * (probe_gpu_drm.c). Other display devices (an NVIDIA card, a BMC's VGA)
 * are listed in gpu.other so that "no AMD GPU" can say what is there
 * instead. */
#include "gpu_pci.h"
#include "kfd_sysfs.h"
#include "../src/core/gpu_enum.h"
#include "../src/gpu/pci_addr.h"
#include "../src/core/pci_names.h"
#include "../src/telemetry/telemetry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_gpu_run(struct probe_ctx *ctx);

struct gpu_dev {
    char bdf[16];
    struct pci_bdf addr;
    unsigned device;
};

struct kfd_node {
    int id;
    char *props; /* NULL when unreadable */
};

/* ---- KFD topology ------------------------------------------------------- */

/* every node's properties; -errno when the topology cannot be listed */
static int kfd_nodes_read(struct kfd_node **out, size_t *n)
{
    struct strlist names = STRLIST_INIT;
    int rc = rootfs_list(GP_KFD_NODES, &names);
    *out = NULL;
    *n = 0;
    if (rc)
        return rc;
    *out = xcalloc(names.n ? names.n : 1, sizeof(**out));
    for (size_t i = 0; i < names.n; i++) {
        int64_t id;
        if (str_parse_i64(names.v[i], &id) || id < 0)
            continue;
        struct kfd_node *k = &(*out)[(*n)++];
        k->id = (int)id;
        if (rootfs_readf_str(&k->props, GP_KFD_NODES "/%d/properties", k->id))
            k->props = NULL;
    }
    strlist_release(&names);
    return 0;
}

/* the KFD node of the GPU at addr, and in *parts how many KFD nodes that
 * device has. A partitioned GPU (MI300-class CPX/DPX/QPX) is one PCI
 * function but one KFD node per partition: kfd_topology_add_device() ORs the
 * partition's node id into location_id (into the function bits when
 * num_nodes > 1, the same as HSA's BDFID; some trees put it in bits
 * [31:28], above the 16 bits of the address). Every partition counts; the
 * one whose location_id is the address itself (partition 0) is the node the
 * facts come from. */
static const struct kfd_node *kfd_node_for(const struct kfd_node *nodes, size_t n,
                                           const struct pci_bdf *addr, int *parts)
{
    const struct kfd_node *exact = NULL, *first = NULL;
    struct pci_addr os = {addr->domain, addr->bus, addr->dev, addr->fn}, rt;
    *parts = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t simd = 0, loc, dom = 0;
        if (!nodes[i].props || gp_kv_get(nodes[i].props, "simd_count", &simd) || simd == 0)
            continue;
        if (gp_kv_get(nodes[i].props, "location_id", &loc))
            continue;
        /* kernels before 5.10 have no domain line: domain 0 */
        gp_kv_get(nodes[i].props, "domain", &dom);
        pci_addr_from_hsa((uint32_t)(loc & 0xffff), (uint32_t)dom, &rt);
        enum pci_match m = pci_addr_match(&rt, &os);
        if (m == PCI_MATCH_NONE)
            continue;
        (*parts)++;
        if (m == PCI_MATCH_EXACT && !exact)
            exact = &nodes[i];
        if (!first)
            first = &nodes[i];
    }
    return exact ? exact : first;
}

/* ---- per-GPU identity ------------------------------------------------------ */

static void set_unknown_all(struct factset *fs, int gpu, const char *const *names, size_t n,
                            const char *source, const char *reason)
{
    char fn[FACT_NAME_MAX];
    for (size_t i = 0; i < n; i++)
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, names[i]), source, "%s", reason);
}

/* HSA_OVERRIDE_GFX_VERSION_<node> wins over HSA_OVERRIDE_GFX_VERSION, as in
 * libhsakmt topology.c; real_gfx is 0 when the real target is unknown. */
static void override_facts(struct factset *fs, int gpu, int node, unsigned real_gfx)
{
    char fn[FACT_NAME_MAX], var[64], real[GP_GFX_NAME_MAX];
    const char *ov = NULL;
    if (node >= 0) {
        snprintf(var, sizeof(var), "HSA_OVERRIDE_GFX_VERSION_%d", node);
        ov = probe_getenv(var);
    }
    if (!ov) {
        snprintf(var, sizeof(var), "HSA_OVERRIDE_GFX_VERSION");
        ov = probe_getenv(var);
    }
    fact_set_str(fs, fact_gpu_name(fn, gpu, "gfx_override"), ov ? ov : "", var);
    fact_set_bool(fs, fact_gpu_name(fn, gpu, "gfx_override_set"), ov != NULL, var);
    if (real_gfx)
        gp_gfx_name(real_gfx, real);

    if (!ov) {
        fact_set_bool(fs, fact_gpu_name(fn, gpu, "gfx_override_valid"), 1, var);
        fact_set_bool(fs, fact_gpu_name(fn, gpu, "gfx_override_major_differs"), 0, var);
        if (real_gfx)
            fact_set_str(fs, fact_gpu_name(fn, gpu, "gfx_claimed"), real, "KFD topology");
        else
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, "gfx_claimed"), "KFD topology",
                             "the real gfx target is unknown");
        return;
    }
    unsigned v[3];
    if (gp_gfx_override_parse(ov, v)) {
        fact_set_bool(fs, fact_gpu_name(fn, gpu, "gfx_override_valid"), 0, var);
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "gfx_claimed"), var, "%s='%s' is not M.m.s",
                         var, ov);
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "gfx_override_major_differs"), var,
                         "%s='%s' is not M.m.s", var, ov);
        return;
    }
    char claimed[GP_GFX_NAME_MAX];
    gp_gfx_name_parts(v[0], v[1], v[2], claimed);
    fact_set_bool(fs, fact_gpu_name(fn, gpu, "gfx_override_valid"), 1, var);
    fact_set_str(fs, fact_gpu_name(fn, gpu, "gfx_claimed"), claimed, var);
    if (real_gfx)
        fact_set_bool(fs, fact_gpu_name(fn, gpu, "gfx_override_major_differs"),
                      v[0] != GP_GFX_MAJOR(real_gfx), var);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "gfx_override_major_differs"), var,
                         "the real gfx target is unknown");
}

static const char *const kfd_fact_names[] = {
    "kfd_node",      "gfx_target_version", "gfx",         "family",         "is_apu",
    "needs_atomics", "cu_count",           "svm_capable", "kfd_partitions",
};

/* facts from the KFD node; returns gfx_target_version or 0 */
static unsigned kfd_facts(struct factset *fs, int gpu, const struct kfd_node *k)
{
    char fn[FACT_NAME_MAX], src[96], gfx[GP_GFX_NAME_MAX];
    uint64_t v, cores = 0, simd = 0, per_cu = 0, cap;
    snprintf(src, sizeof(src), GP_KFD_NODES "/%d/properties", k->id);
    fact_set_int(fs, fact_gpu_name(fn, gpu, "kfd_node"), k->id, src);

    unsigned gfxv = 0;
    if (gp_kv_get(k->props, "gfx_target_version", &v) == 0 && v > 0 && v < 1000000) {
        gfxv = (unsigned)v;
        gp_gfx_name(gfxv, gfx);
        fact_set_int(fs, fact_gpu_name(fn, gpu, "gfx_target_version"), gfxv, src);
        fact_set_str(fs, fact_gpu_name(fn, gpu, "gfx"), gfx, src);
        const char *fam = gp_gfx_family(gfxv);
        if (fam)
            fact_set_str(fs, fact_gpu_name(fn, gpu, "family"), fam, src);
        else
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, "family"), src,
                             "%s is not in the family table", gfx);
    } else {
        const char *const names[] = {"gfx_target_version", "gfx", "family"};
        set_unknown_all(fs, gpu, names, ARRAY_SIZE(names), src,
                        "no usable gfx_target_version in the KFD node (kernel too old?)");
    }

    int cores_rc = gp_kv_get(k->props, "cpu_cores_count", &cores);
    int apu = -1;
    if (cores_rc == 0 && cores > 0)
        apu = 1;
    else if (gfxv)
        apu = gp_gfx_is_apu_target(gfxv);
    if (apu >= 0)
        fact_set_bool(fs, fact_gpu_name(fn, gpu, "is_apu"), apu, src);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "is_apu"), src,
                         "neither cpu_cores_count nor the gfx target tell");

    /* an APU reaches memory without PCIe: amdgpu marks atomics supported */
    int na = apu == 1 ? 0 : gfxv ? gp_gfx_needs_atomics(gfxv) : -1;
    if (na >= 0 && apu >= 0)
        fact_set_bool(fs, fact_gpu_name(fn, gpu, "needs_atomics"), na, src);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "needs_atomics"), src,
                         "the gfx target is unknown or not in the table");

    if (gp_kv_get(k->props, "simd_count", &simd) == 0 &&
        gp_kv_get(k->props, "simd_per_cu", &per_cu) == 0 && per_cu > 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "cu_count"), (int64_t)(simd / per_cu), src);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "cu_count"), src,
                         "simd_count or simd_per_cu missing");

    if (gp_kv_get(k->props, "capability", &cap) == 0)
        fact_set_bool(fs, fact_gpu_name(fn, gpu, "svm_capable"),
                      (cap & HSA_CAP_SVMAPI_SUPPORTED) != 0, src);
    else
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "svm_capable"), src, "no capability line");
    return gfxv;
}

/* ---- enumeration -------------------------------------------------------- */

static void describe(struct strbuf *sb, const char *who, unsigned vendor, unsigned device,
                     const char *bdf)
{
    strbuf_addf(sb, "%s [%04x:%04x] at %s", who, vendor, device, bdf);
}

/* gpu.<i>.pci_name (pci.ids' device line: "Navi 31 [Radeon RX 7900
 * XT/7900 XTX]") and gpu.<i>.board_name (its subsystem line: the card
 * maker's board); the device name, or NULL when pci.ids does not know it */
static char *name_facts(struct factset *fs, struct pci_names *pn, int gi, const struct gpu_dev *g)
{
    char fn[FACT_NAME_MAX], why[PCI_NAMES_WHY_MAX], src[160];
    const char *ids = pci_names_source(pn);
    snprintf(src, sizeof(src), "%s", *ids ? ids : "pci.ids");
    char *dev = NULL, *board = NULL;
    if (pci_names_device(pn, GP_VENDOR_AMD, g->device, &dev, why, sizeof(why)))
        fact_set_unknown(fs, fact_gpu_name(fn, gi, "pci_name"), src, "%s", why);
    else
        fact_set_str(fs, fact_gpu_name(fn, gi, "pci_name"), dev, src);
    uint64_t sv, sd;
    if (rootfs_readf_u64(&sv, GP_PCI_DEVICES "/%s/subsystem_vendor", g->bdf) ||
        rootfs_readf_u64(&sd, GP_PCI_DEVICES "/%s/subsystem_device", g->bdf))
        fact_set_unknown(fs, fact_gpu_name(fn, gi, "board_name"), GP_PCI_DEVICES,
                         "%s has no readable subsystem_vendor/subsystem_device", g->bdf);
    else if (pci_names_board(pn, GP_VENDOR_AMD, g->device, (unsigned)sv, (unsigned)sd, &board, why,
                             sizeof(why)))
        fact_set_unknown(fs, fact_gpu_name(fn, gi, "board_name"), src, "%s", why);
    else
        fact_set_str(fs, fact_gpu_name(fn, gi, "board_name"), board, src);
    free(board);
    return dev;
}

/* who has each GPU open (gpu.idle names them): DRM fdinfo and KFD, one
 * scan of /proc for all GPUs */
static void users_facts(struct factset *fs, const struct gpu_dev *gpus, size_t ngpu)
{
    struct strlist bdfs = STRLIST_INIT;
    for (size_t i = 0; i < ngpu; i++)
        strlist_add(&bdfs, gpus[i].bdf);
    struct tel_sample s;
    int rc = ngpu ? tel_list_procs(&bdfs, &s) : 0;
    for (size_t i = 0; i < ngpu; i++) {
        char fn[FACT_NAME_MAX];
        if (rc) {
            fact_set_errno(fs, fact_gpu_name(fn, (int)i, "users"), "/proc", rc);
            fact_set_errno(fs, fact_gpu_name(fn, (int)i, "user_count"), "/proc", rc);
            continue;
        }
        struct strbuf sb = STRBUF_INIT;
        int64_t n = 0;
        for (size_t k = 0; k < s.nproc; k++)
            n += s.procs[k].gpu == (int)i;
        tel_proc_describe(&s, (int)i, &sb);
        fact_set_str(fs, fact_gpu_name(fn, (int)i, "users"), sb.buf ? sb.buf : "",
                     "/proc/*/fdinfo, /sys/class/kfd/kfd/proc");
        fact_set_int(fs, fact_gpu_name(fn, (int)i, "user_count"), n,
                     "/proc/*/fdinfo, /sys/class/kfd/kfd/proc");
        strbuf_release(&sb);
    }
    if (ngpu && !rc)
        tel_sample_release(&s);
    strlist_release(&bdfs);
}

int probe_gpu_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    struct strlist other = STRLIST_INIT;
    struct gpu_enum all_dev;
    int rc = gpu_enumerate(&all_dev);
    if (rc) {
        fact_set_errno(fs, "gpu.count", GP_PCI_DEVICES, rc);
        fact_set_errno(fs, "gpu.names", GP_PCI_DEVICES, rc);
        fact_set_errno(fs, "gpu.other", GP_PCI_DEVICES, rc);
        return 0;
    }

    struct gpu_dev *gpus = xcalloc(all_dev.n + 1, sizeof(*gpus));
    size_t ngpu = 0;
    for (size_t i = 0; i < all_dev.n; i++) {
        const struct gpu_enum_dev *d = &all_dev.v[i];
        if (d->vendor == GP_VENDOR_AMD) {
            struct gpu_dev *g = &gpus[ngpu++];
            snprintf(g->bdf, sizeof(g->bdf), "%s", d->bdf);
            g->addr = d->addr;
            g->device = d->device;
        } else {
            struct strbuf sb = STRBUF_INIT;
            const char *vn = gp_vendor_name(d->vendor);
            char hex[8];
            snprintf(hex, sizeof(hex), "%04x", d->vendor);
            describe(&sb, vn ? vn : hex, d->vendor, d->device, d->bdf);
            strlist_add_owned(&other, strbuf_detach(&sb));
        }
    }
    gpu_enum_release(&all_dev);
    fact_set_int(fs, "gpu.count", (int64_t)ngpu, GP_PCI_DEVICES);
    fact_set_list(fs, "gpu.other", &other, GP_PCI_DEVICES);
    strlist_release(&other);

    struct kfd_node *nodes;
    size_t nnodes;
    int kfd_rc = kfd_nodes_read(&nodes, &nnodes);
    struct strbuf all = STRBUF_INIT;
    struct pci_names *pn = pci_names_open();
    struct gp_numa_host *numa = xcalloc(1, sizeof(*numa));
    gp_numa_host_facts(fs, numa);

    for (size_t i = 0; i < ngpu; i++) {
        int gi = (int)i;
        struct gpu_dev *g = &gpus[i];
        char fn[FACT_NAME_MAX], src[96], devid[8];
        snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s", g->bdf);
        snprintf(devid, sizeof(devid), "0x%04x", g->device);
        fact_set_str(fs, fact_gpu_name(fn, gi, "pci"), g->bdf, src);
        fact_set_str(fs, fact_gpu_name(fn, gi, "device_id"), devid, src);

        int parts = 0;
        const struct kfd_node *k = kfd_rc ? NULL : kfd_node_for(nodes, nnodes, &g->addr, &parts);
        unsigned gfxv = 0;
        if (k) {
            gfxv = kfd_facts(fs, gi, k);
            fact_set_int(fs, fact_gpu_name(fn, gi, "kfd_partitions"), parts, GP_KFD_NODES);
        } else {
            char reason[160];
            if (kfd_rc)
                snprintf(reason, sizeof(reason), "cannot list " GP_KFD_NODES ": %s",
                         strerror(-kfd_rc));
            else
                snprintf(reason, sizeof(reason),
                         "no KFD topology node for %s (amdgpu without KFD, or an unsupported "
                         "GPU)",
                         g->bdf);
            set_unknown_all(fs, gi, kfd_fact_names, ARRAY_SIZE(kfd_fact_names), GP_KFD_NODES,
                            reason);
        }
        override_facts(fs, gi, k ? k->id : -1, gfxv);
        gp_drm_facts(fs, gi, g->bdf, k ? k->id : -1, k ? k->props : NULL);
        gp_atomics_fw_facts(fs, gi, g->bdf, k ? k->props : NULL, gfxv);
        gp_numa_facts(fs, gi, g->bdf, numa);

        char gfx[GP_GFX_NAME_MAX];
        if (gfxv)
            gp_gfx_name(gfxv, gfx);
        if (all.len)
            strbuf_adds(&all, ", ");
        /* lspci -nn's form: the name, then the ids it stands for */
        char *name = name_facts(fs, pn, gi, g);
        char *who = name ? xasprintf("%s %s", gfxv ? gfx : "AMD", name) : NULL;
        describe(&all, who ? who : gfxv ? gfx : "AMD", GP_VENDOR_AMD, g->device, g->bdf);
        free(who);
        free(name);
    }
    pci_names_close(pn);
    fact_set_str(fs, "gpu.names", all.buf ? all.buf : "", GP_PCI_DEVICES);
    strbuf_release(&all);
    users_facts(fs, gpus, ngpu);
    gp_xgmi_facts(fs, (int)ngpu); /* needs every GPU's KFD node */
    free(numa);

    for (size_t i = 0; i < nnodes; i++)
        free(nodes[i].props);
    free(nodes);
    free(gpus);
    return 0;
}
