/* probe_gpu_atomics_fw.c - whether KFD would refuse a GPU on a PCIe path
 * without AtomicOps. kfd_device.c (kfd_device_info_init, checked in
 * kgd2kfd_device_init) sets needs_pci_atomics per GC version and, for
 * RDNA, no_atomic_fw_version: the MEC firmware from which the compute
 * micro engine works without PCIe atomics. KFD skips the device ("PCI
 * rejects atomics %d<%d") only when the path has no atomics, the GPU needs
 * them and no_atomic_fw_version is 0 or above the loaded MEC firmware. A
 * KFD topology node exists only for a GPU KFD accepted. The MEC version is
 * the node's fw_version (kfd_topology.c) or amdgpu's
 * fw_version/mec_fw_version (the same adev->gfx.mec_fw_version); without a
 * node the GC version comes from amdgpu's ip_discovery/die/0/GC/0. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_pci.h"

int gp_no_atomic_fw_version(unsigned major, unsigned minor, unsigned step)
{
    /* torvalds/linux kfd_device.c (GC 10.1.1+ as since 5.15 with GC
     * 10.3.6/10.3.7 from 6.0, GFX11 RS64 509 from 6.5, GFX12 2090 from
     * 6.13/6.11.x stable). GFX11's 509 holds for RS64 firmware (F32 has
     * none); sysfs does not say which one runs, so a version >= 509 is
     * taken as RS64's */
    /* every GC 10.1 part is 10.1.1 or later (Navi10 is 10.1.10), though
     * its gfx target (gfx1010) reads 10.1.0 */
    if (major == 10 && minor < 3)
        return 145;
    if (major == 10 && minor == 3 && step == 6)
        return 14;
    if (major == 10 && minor == 3 && step == 7)
        return 3;
    if (major == 10)
        return 92;
    if (major == 11)
        return 509;
    if (major == 12)
        return 2090;
    return 0;
}

/* the GC IP version amdgpu discovered: 0, or -errno */
static int gc_version(const char *bdf, unsigned v[3])
{
    static const char *const part[] = {"major", "minor", "revision"};
    for (int i = 0; i < 3; i++) {
        uint64_t x;
        int rc =
            rootfs_readf_u64(&x, GP_PCI_DEVICES "/%s/ip_discovery/die/0/GC/0/%s", bdf, part[i]);
        if (rc)
            return rc;
        v[i] = (unsigned)x;
    }
    return 0;
}

/* the loaded MEC firmware: 0 and *out, or -errno */
static int mec_version(const char *bdf, const char *kfd_props, uint64_t *out, char *src,
                       size_t src_n)
{
    if (kfd_props && gp_kv_get(kfd_props, "fw_version", out) == 0 && *out) {
        snprintf(src, src_n, GP_KFD_NODES " properties fw_version");
        return 0;
    }
    char *text;
    snprintf(src, src_n, GP_PCI_DEVICES "/%s/fw_version/mec_fw_version", bdf);
    int rc = rootfs_readf_str(&text, "%s", src);
    if (rc)
        return rc;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 16);
    rc = end == text || errno || (*end && *end != '\n') || v == 0 ? -EINVAL : 0;
    free(text);
    *out = v;
    return rc;
}

void gp_atomics_fw_facts(struct factset *fs, int gpu, const char *bdf, const char *kfd_props,
                         unsigned gfxv)
{
    char fn[FACT_NAME_MAX], src[160];
    uint64_t mec = 0;
    int mec_rc = mec_version(bdf, kfd_props, &mec, src, sizeof(src));
    if (mec_rc == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "mec_fw"), (int64_t)mec, src);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "mec_fw"), src, mec_rc);

    const char *refuses = fact_gpu_name(fn, gpu, "kfd_refuses_without_atomics");
    if (kfd_props) {
        fact_set_bool(fs, refuses, 0, GP_KFD_NODES " (a node exists: KFD accepted the GPU)");
        return;
    }
    unsigned v[3];
    if (gfxv) {
        v[0] = GP_GFX_MAJOR(gfxv);
        v[1] = gfxv / 100 % 100;
        v[2] = gfxv % 100;
    } else if (gc_version(bdf, v)) {
        fact_set_unknown(fs, refuses, GP_PCI_DEVICES,
                         "no KFD node and no ip_discovery/die/0/GC/0 version for %s", bdf);
        return;
    }
    int needs = gp_gfx_needs_atomics(v[0] * 10000 + v[1] * 100 + v[2]);
    int thr = gp_no_atomic_fw_version(v[0], v[1], v[2]);
    snprintf(src, sizeof(src), "kfd_device.c for GC %u.%u.%u", v[0], v[1], v[2]);
    if (needs < 0)
        fact_set_unknown(fs, refuses, src, "GC %u.%u.%u is not in the table", v[0], v[1], v[2]);
    else if (!needs)
        fact_set_bool(fs, refuses, 0, src);
    else if (!thr)
        fact_set_bool(fs, refuses, 1, src);
    else if (mec_rc == 0)
        fact_set_bool(fs, refuses, mec < (uint64_t)thr, src);
    else
        fact_set_unknown(fs, refuses, src, "the MEC firmware version is unknown (KFD needs %d)",
                         thr);
}
