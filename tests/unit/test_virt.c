/* test_virt.c - the VM-guest and SR-IOV facts (probes/probe_virt.c): the
 * CPU's hypervisor flag and the DMI names, a QEMU guest whose GPU hangs off
 * QEMU's pcie-root-port (1b36:000c), bare metal, an SR-IOV physical
 * function with its VF counts and a VF (physfn link), a guest's MI300X VF
 * told by its device id alone, and an aarch64 host
 * (no flags line) that is unknown, never "bare metal". */
#include "../../probes/probe.h"
#include "sysroot_tree.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

int probe_virt_run(struct probe_ctx *ctx);

#define RP "pci0000:00/0000:00:02.0"
#define GPU RP "/0000:01:00.0"

static struct factset fs = FACTSET_INIT;
static struct probe_opts opts = {0};
static struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};

static void machine(const char *flags, const char *vendor, unsigned rp_vendor, unsigned rp_dev)
{
    tree_fresh("virt");
    if (flags)
        putf("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: %s\n\n",
             flags);
    else
        put("/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n");
    if (vendor)
        put("/sys/class/dmi/id/sys_vendor", vendor);
    put_pci_dev(RP, rp_vendor, rp_dev);
    put_pci_dev(GPU, 0x1002, 0x744c);
}

static void run(void)
{
    factset_release(&fs);
    if (rootfs_init(root))
        exit(2);
    fact_set_int(&fs, "gpu.count", 1, "test");
    fact_set_str(&fs, "gpu.0.pci", "0000:01:00.0", "test");
    probe_virt_run(&ctx);
}

static int fbool(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_BOOL ? f->b : -1;
}

static const char *fstr(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_STR ? f->s : "";
}

static int64_t fint(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_INT ? f->i : -999;
}

int main(void)
{
    /* a KVM guest: the flag, QEMU's DMI name, QEMU's root port */
    machine("fpu vme sse2 hypervisor lahf_lm", "QEMU\n", 0x1b36, 0x000c);
    run();
    CHECK(fbool("host.vm") == 1);
    CHECK_STR(fstr("host.hypervisor"), "KVM/QEMU");
    CHECK(fbool("gpu.0.virtual_root_port") == 1);
    CHECK(fbool("gpu.0.sriov_vf") == 0);
    CHECK(fint("gpu.0.sriov_totalvfs") == -999);

    CHECK_STR(fstr("gpu.0.virt_function"), "the whole GPU passed through");

    /* an MI300X VF in a guest: no physfn link, only the device id (74b5)
     * tells; what the host keeps gets the VF's reason, a read value stays */
    machine("fpu vme sse2 hypervisor", "QEMU\n", 0x1b36, 0x000c);
    put_pci_dev(GPU, 0x1002, 0x74b5);
    factset_release(&fs);
    if (rootfs_init(root))
        return 2;
    fact_set_int(&fs, "gpu.count", 1, "test");
    fact_set_str(&fs, "gpu.0.pci", "0000:01:00.0", "test");
    fact_set_unknown(&fs, "gpu.0.power_w", "hwmon", "No such file or directory");
    fact_set_float(&fs, "gpu.0.temp_edge_c", 40.0, "hwmon");
    probe_virt_run(&ctx);
    CHECK(fbool("gpu.0.sriov_vf") == 1);
    CHECK_STR(fstr("gpu.0.vf_name"), "Aqua Vanjaram [Instinct MI300X VF]");
    CHECK(strstr(fstr("gpu.0.virt_function"), "SR-IOV virtual function") != NULL);
    const struct fact *p = fact_get(&fs, "gpu.0.power_w");
    CHECK(p && p->type == FACT_UNKNOWN && strstr(p->reason, "not readable in a VM guest") &&
          strstr(p->reason, "No such file"));
    p = fact_get(&fs, "gpu.0.temp_edge_c");
    CHECK(p && p->type == FACT_FLOAT);

    /* bare metal: no flag, a real AMD root port; the word inside another
     * flag is not the flag */
    machine("fpu vme sse2 nohypervisor_x", "Supermicro\n", 0x1022, 0x1483);
    run();
    CHECK(fbool("host.vm") == 0);
    CHECK(fbool("gpu.0.virtual_root_port") == 0);

    /* the host side of SR-IOV: a PF with VFs, then the VF itself */
    put("/sys/devices/" GPU "/sriov_totalvfs", "8\n");
    put("/sys/devices/" GPU "/sriov_numvfs", "4\n");
    run();
    CHECK(fint("gpu.0.sriov_totalvfs") == 8 && fint("gpu.0.sriov_numvfs") == 4);
    put_link("/sys/devices/" GPU "/physfn", "../0000:01:00.0");
    run();
    CHECK(fbool("gpu.0.sriov_vf") == 1);

    /* Hyper-V's vendor string on a machine without the flag is no guest */
    machine("fpu sse2", "Microsoft Corporation\n", 0x8086, 0x7a38);
    run();
    CHECK(fbool("host.vm") == 0);

    /* aarch64: no flags line; DMI names the hypervisor, else unknown */
    machine(NULL, "QEMU\n", 0x1b36, 0x000c);
    run();
    CHECK(fbool("host.vm") == 1);
    machine(NULL, NULL, 0x1b36, 0x000c);
    run();
    CHECK(fbool("host.vm") == -1);
    tree_remove();
    factset_release(&fs);
    return test_report();
}
