/* fuzz_host_text.c - the host's text files through the probes that read
 * them: os-release, /proc/cmdline, the kernel release and config, cgroups
 * (container detection), the whitelisted environment, modprobe.d files and
 * the installed kernel modules list (host, env, container, iommu, kernel,
 * driver_cause), on a copy of the rx6900xt-blacklist fixture (see
 * sysroot_fuzz.h: the first input byte picks the file). */
#include "sysroot_fuzz.h"

static const char *const targets[] = {"/etc/os-release",
                                      "/usr/lib/os-release",
                                      "/proc/cmdline",
                                      "/proc/sys/kernel/osrelease",
                                      "/proc/sys/kernel/hostname",
                                      "/proc/sys/kernel/dmesg_restrict",
                                      "/proc/1/cgroup",
                                      "/boot/config-6.8.0-49-generic",
                                      "/etc/modprobe.d/vfio-gpu.conf",
                                      "/usr/lib/modprobe.d/50-amdgpu-options.conf",
                                      "/lib/modprobe.d/aliases.conf",
                                      "/lib/modules/6.8.0-49-generic/modules.builtin",
                                      "/opt/rocm-6.2.0/.info/version",
                                      "/.snapshot/environ",
                                      NULL};

static const char *const probes[] = {"host",  "env",    "driver",       "container",
                                     "iommu", "kernel", "driver_cause", NULL};

static const struct sysroot_fuzz sf = {"rx6900xt-blacklist", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
