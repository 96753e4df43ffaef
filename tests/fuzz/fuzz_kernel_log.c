/* fuzz_kernel_log.c - the kernel log signature scan (probe_kernel_log) and
 * the firmware-failure lines driver_cause reads from it, on a copy of the
 * rx7900xt-firmware fixture whose /.snapshot/dmesg is the input (the first
 * byte picks the file, see sysroot_fuzz.h; there is one more target, the
 * dmesg_restrict setting). */
#include "sysroot_fuzz.h"

static const char *const targets[] = {"/.snapshot/dmesg", "/proc/sys/kernel/dmesg_restrict", NULL};

static const char *const probes[] = {"driver", "kernel_log", "driver_cause", NULL};

static const struct sysroot_fuzz sf = {"rx7900xt-firmware", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
