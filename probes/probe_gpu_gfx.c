/* probe_gpu_gfx.c - what a gfx target version means: its name, family,
 * whether it only exists as an APU, whether KFD needs PCIe atomics for it,
 * and the HSA_OVERRIDE_GFX_VERSION syntax. Pure functions, unit-tested. */
#include "gpu_pci.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void gp_gfx_name_parts(unsigned major, unsigned minor, unsigned step, char buf[GP_GFX_NAME_MAX])
{
    /* as ROCR's isa names: decimal major, hex minor and stepping */
    snprintf(buf, GP_GFX_NAME_MAX, "gfx%u%x%x", major, minor, step);
}

void gp_gfx_name(unsigned version, char buf[GP_GFX_NAME_MAX])
{
    gp_gfx_name_parts(GP_GFX_MAJOR(version), GP_GFX_MINOR(version), GP_GFX_STEP(version), buf);
}

const char *gp_gfx_family(unsigned version)
{
    unsigned major = GP_GFX_MAJOR(version), minor = GP_GFX_MINOR(version);
    unsigned step = GP_GFX_STEP(version);

    switch (major) {
    case 7:
        return "gcn2";
    case 8:
        return "gcn3"; /* gfx80x: Tonga/Fiji GCN3, Polaris GCN4 share the ISA */
    case 9:
        if (minor == 5)
            return "cdna4"; /* gfx950 */
        if (minor == 4)
            return "cdna3"; /* gfx940/941/942 */
        if (minor == 0 && step == 8)
            return "cdna1"; /* gfx908 */
        if (minor == 0 && step == 10)
            return "cdna2"; /* gfx90a */
        return "gcn5";      /* gfx900/902/904/906/909/90c: Vega */
    case 10:
        if (minor == 1)
            return "rdna1";
        if (minor == 3)
            return "rdna2";
        return NULL;
    case 11:
        return "rdna3"; /* gfx110x, and gfx115x (RDNA 3.5) */
    case 12:
        return "rdna4";
    default:
        return NULL;
    }
}

int gp_gfx_is_apu_target(unsigned version)
{
    /* targets only ever built into a CPU package (Carrizo, Stoney, Raven,
     * Renoir, Van Gogh, Rembrandt, Raphael, Mendocino, Phoenix, Strix) */
    static const unsigned apu[] = {
        80001,  80100,  90002,  90009,  90012,  100303, 100305,
        100306, 100307, 110003, 110500, 110501, 110502, 110503,
    };
    for (size_t i = 0; i < ARRAY_SIZE(apu); i++)
        if (apu[i] == version)
            return 1;
    return 0;
}

int gp_gfx_needs_atomics(unsigned version)
{
    /* amdkfd kfd_device.c kfd_device_info_init: needs_pci_atomics is set
     * for pre-SOC15 parts except Hawaii (gfx701), for gfx10.1.1 and later
     * (all RDNA), and never for gfx9 (Vega10 "doesn't use atomics for basic
     * functioning of the MEC", CDNA likewise). Newer MEC firmware lifts the
     * requirement on some RDNA parts (no_atomic_fw_version); the firmware
     * version is not in sysfs, so the conservative answer is reported. */
    unsigned major = GP_GFX_MAJOR(version);
    if (major == 7)
        return version == 70001 ? 0 : 1;
    if (major == 8)
        return 1;
    if (major == 9)
        return 0;
    if (major >= 10 && major <= 12)
        return 1;
    return -1;
}

int gp_gfx_override_parse(const char *s, unsigned v[3])
{
    /* exactly libhsakmt's test: sscanf("%u.%u.%u%c") == 3, then ranges */
    unsigned major = 0, minor = 0, step = 0;
    char dummy = '\0';
    if (!s || sscanf(s, "%u.%u.%u%c", &major, &minor, &step, &dummy) != 3)
        return -EINVAL;
    if (major > 63 || minor > 255 || step > 255)
        return -EINVAL;
    v[0] = major;
    v[1] = minor;
    v[2] = step;
    return 0;
}
