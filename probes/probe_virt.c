/* probe_virt.c - is this a VM guest, and is each GPU a whole GPU or an
 * SR-IOV virtual function. A guest is told by the CPU's "hypervisor" flag
 * (x86 CPUID leaf 1 ECX bit 31, shown in /proc/cpuinfo) and named by the
 * DMI vendor and product (/sys/class/dmi/id); a VF on the host by its
 * physfn link, a physical function's VFs by sriov_totalvfs/sriov_numvfs.
 * In a guest the GPU hangs off a root port that the hypervisor emulates
 * (QEMU's pcie-root-port 1b36:000c, VMware's 15ad:07a0) or off no root port
 * at all (Hyper-V's VMBus): that port decides whether AtomicOps pass. */
#include "gpu_pci.h"
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_virt_run(struct probe_ctx *ctx);

#define CPUINFO "/proc/cpuinfo"
#define DMI "/sys/class/dmi/id"

/* the hypervisor DMI names: sys_vendor or product_name substrings */
static const struct {
    const char *match, *name;
} hypervisors[] = {
    {"QEMU", "KVM/QEMU"},
    {"KVM", "KVM/QEMU"},
    {"VMware", "VMware"},
    {"Microsoft Corporation", "Hyper-V"},
    {"Xen", "Xen"},
    {"Amazon EC2", "Amazon EC2 (Nitro)"},
    {"Google", "Google Compute Engine"},
    {"innotek", "VirtualBox"},
};

/* 1 when the cpuinfo text's first "flags" line has "hypervisor", 0 when
 * it lacks it, -1 when there is no flags line (not x86) */
static int cpu_hypervisor_flag(const char *text)
{
    const char *p = text;
    while (p && *p) {
        if (strncmp(p, "flags", 5) == 0) {
            const char *colon = strchr(p, ':'), *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            if (!colon || colon > p + len)
                return -1;
            char *line = xstrndup(colon + 1, len - (size_t)(colon + 1 - p));
            struct strlist w = STRLIST_INIT;
            strlist_split(&w, line, " \t");
            int found = 0;
            for (size_t i = 0; i < w.n && !found; i++)
                found = strcmp(w.v[i], "hypervisor") == 0;
            strlist_release(&w);
            free(line);
            return found;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return -1;
}

static void host_facts(struct factset *fs)
{
    char *cpu = NULL, *vendor = NULL, *product = NULL;
    int crc = rootfs_read_str(CPUINFO, &cpu);
    int flag = crc ? -1 : cpu_hypervisor_flag(cpu);
    rootfs_read_str(DMI "/sys_vendor", &vendor);
    rootfs_read_str(DMI "/product_name", &product);
    const char *name = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(hypervisors) && !name; i++)
        if ((vendor && strstr(vendor, hypervisors[i].match)) ||
            (product && strstr(product, hypervisors[i].match)))
            name = hypervisors[i].name;
    /* Hyper-V's DMI vendor is Microsoft's on real Surface hardware too:
     * the CPU flag decides where it was read */
    if (name && strcmp(name, "Hyper-V") == 0 && flag == 0)
        name = NULL;
    if (flag == 1 || (flag < 0 && name)) {
        fact_set_bool(fs, "host.vm", 1, flag == 1 ? CPUINFO : DMI);
        fact_set_str(fs, "host.hypervisor", name ? name : "an unnamed hypervisor",
                     name ? DMI : CPUINFO);
    } else if (flag == 0) {
        fact_set_bool(fs, "host.vm", 0, CPUINFO);
        fact_set_str(fs, "host.hypervisor", "bare metal", CPUINFO);
    } else {
        const char *why = crc ? "cannot read " CPUINFO
                              : "no CPU flags line (not x86) and no hypervisor in the DMI names";
        fact_set_unknown(fs, "host.vm", CPUINFO, "%s", why);
        fact_set_unknown(fs, "host.hypervisor", CPUINFO, "%s", why);
    }
    free(cpu);
    free(vendor);
    free(product);
}

/* AMD's SR-IOV virtual functions (MxGPU) by PCI device id. A guest sees its
 * VF as a plain PCI function without the host's physfn link, so only the id
 * tells. amdgpu itself detects a VF from a register (amdgpu_virt.c
 * amdgpu_detect_virtualization), not from its pciidlist, which names VFs no
 * differently from whole GPUs. Sources: the pci.ids of this project's build
 * host (Version 2023.04.10, Debian's package) for 686c, 73ae and 73ce; the
 * hwdata pci.ids entries "74b5 Aqua Vanjaram [Instinct MI300X VF]" and
 * "74b9 ... [Instinct MI325X VF]" (as lspci prints them in AMD GPU
 * Operator's SR-IOV documentation: "[Instinct MI300X VF] [1002:74b5]"), and
 * the GPU Operator's VF bind script for 7410 (MI210), 74b5 and 74b9. */
static const struct {
    unsigned device;
    const char *name;
} amd_vfs[] = {
    {0x686c, "Vega 10 [Instinct MI25 / Radeon Pro V340 MxGPU]"},
    {0x73ae, "Navi 21 [Radeon Pro V620 MxGPU]"},
    {0x73ce, "Navi 22 [SR-IOV MxGPU]"},
    {0x7410, "Aldebaran [Instinct MI210 VF]"},
    {0x74b5, "Aqua Vanjaram [Instinct MI300X VF]"},
    {0x74b9, "Aqua Vanjaram [Instinct MI325X VF]"},
};

/* what the host's driver keeps from a VF: hwmon power and temperatures,
 * the power caps, the busy counter and the board's RAS (amdgpu creates
 * none of these files under SR-IOV, amdgpu_pm.c / amdgpu_ras.c) */
static const char *const vf_hidden[] = {
    "power_w",         "power_cap_w", "power_cap_default_w", "power_cap_max_w", "temp_edge_c",
    "temp_junction_c", "temp_mem_c",  "busy_percent",        "ras_ue",          "ras_ce",
};

/* the unknown facts of vf_hidden[] get the reason a VF gives them */
static void vf_reasons(struct factset *fs, int g, int vm)
{
    char fn[FACT_NAME_MAX];
    for (size_t i = 0; i < ARRAY_SIZE(vf_hidden); i++) {
        const struct fact *f = fact_get(fs, fact_gpu_name(fn, g, vf_hidden[i]));
        if (!f || f->type != FACT_UNKNOWN)
            continue;
        char *was = xstrdup(f->reason ? f->reason : "");
        char *src = xstrdup(f->source ? f->source : "");
        fact_set_unknown(fs, fn, src, "not readable %s: the host's driver keeps it (%s)",
                         vm ? "in a VM guest on an SR-IOV VF" : "on an SR-IOV VF", was);
        free(was);
        free(src);
    }
}

static void gpu_facts(struct factset *fs, int g, const char *bdf, int vm)
{
    char fn[FACT_NAME_MAX], dir[96];
    snprintf(dir, sizeof(dir), GP_PCI_DEVICES "/%s", bdf);
    struct strlist ents = STRLIST_INIT;
    int lrc = rootfs_list(dir, &ents);
    int vf = 0;
    for (size_t i = 0; lrc == 0 && i < ents.n && !vf; i++)
        vf = strcmp(ents.v[i], "physfn") == 0;
    strlist_release(&ents);
    uint64_t dev = 0;
    const char *vf_name = NULL;
    int drc = rootfs_readf_u64(&dev, "%s/device", dir);
    for (size_t i = 0; drc == 0 && i < ARRAY_SIZE(amd_vfs) && !vf_name; i++)
        if (amd_vfs[i].device == dev)
            vf_name = amd_vfs[i].name;
    fact_gpu_name(fn, g, "vf_name");
    if (vf_name)
        fact_set_str(fs, fn, vf_name, dir);
    else if (drc)
        fact_set_errno(fs, fn, dir, drc);
    else
        fact_set_unknown(fs, fn, dir, "device 0x%04llx is no AMD SR-IOV VF id in the table",
                         (unsigned long long)dev);
    vf = vf || vf_name;
    if (lrc && !vf_name)
        fact_set_errno(fs, fact_gpu_name(fn, g, "sriov_vf"), dir, lrc);
    else
        fact_set_bool(fs, fact_gpu_name(fn, g, "sriov_vf"), vf, dir);
    fact_gpu_name(fn, g, "virt_function");
    if (vf) {
        char *what =
            xasprintf("an SR-IOV virtual function (%s)", vf_name ? vf_name : "physfn link");
        fact_set_str(fs, fn, what, dir);
        free(what);
        vf_reasons(fs, g, vm);
    } else if (lrc == 0 || drc == 0) {
        fact_set_str(fs, fn, vm ? "the whole GPU passed through" : "the whole GPU", dir);
    } else {
        fact_set_errno(fs, fn, dir, lrc);
    }
    static const char *const counts[] = {"sriov_totalvfs", "sriov_numvfs"};
    for (int i = 0; i < 2; i++) {
        int64_t v;
        int rc = rootfs_readf_i64(&v, "%s/%s", dir, counts[i]);
        fact_gpu_name(fn, g, counts[i]);
        if (rc == 0)
            fact_set_int(fs, fn, v, dir);
        else if (rc == -ENOENT)
            fact_set_unknown(fs, fn, dir, "no %s: not an SR-IOV physical function", counts[i]);
        else
            fact_set_errno(fs, fn, dir, rc);
    }

    /* the root port: emulated in a guest, absent behind Hyper-V's VMBus */
    struct pci_hop *h;
    size_t n;
    fact_gpu_name(fn, g, "virtual_root_port");
    int rc = pci_path_read(bdf, &h, &n);
    if (rc) {
        fact_set_errno(fs, fn, dir, rc);
        return;
    }
    int emulated = n >= 2 && (h[0].vendor == 0x1b36 || h[0].vendor == 0x15ad);
    if (n >= 2 || vm)
        fact_set_bool(fs, fn, emulated || n < 2, h[0].dir);
    else
        fact_set_unknown(fs, fn, dir, "no root port above the GPU on a host that is no guest");
    free(h);
}

int probe_virt_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    host_facts(fs);
    const struct fact *vm = fact_get(fs, "host.vm"), *count = fact_get(fs, "gpu.count");
    int in_vm = vm && vm->type == FACT_BOOL && vm->b;
    int n = count && count->type == FACT_INT ? (int)count->i : 0;
    char buf[FACT_NAME_MAX];
    for (int g = 0; g < n; g++) {
        const char *bdf = probe_gpu_pci(fs, g, buf);
        if (bdf)
            gpu_facts(fs, g, bdf, in_vm);
    }
    return 0;
}
