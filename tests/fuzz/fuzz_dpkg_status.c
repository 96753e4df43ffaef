/* fuzz_dpkg_status.c - dpkg's status database and the ROCm install's
 * version files (probe_rocm.c), on a copy of the rx580-legacy fixture (the
 * first input byte picks the file, see sysroot_fuzz.h). */
#include "sysroot_fuzz.h"

static const char *const targets[] = {"/var/lib/dpkg/status", "/opt/rocm/.info/version", NULL};

static const char *const probes[] = {"driver", "gpu", "rocm", NULL};

static const struct sysroot_fuzz sf = {"rx580-legacy", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
