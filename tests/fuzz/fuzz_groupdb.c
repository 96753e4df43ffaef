/* fuzz_groupdb.c - /etc/group, /etc/passwd and the process identity query
 * (probes/probe_groupdb.c, probe_user.c) and the device-node owners that
 * name groups (probe_kfd.c), on a copy of the rx7900xtx-desktop fixture (the
 * first input byte picks the file, see sysroot_fuzz.h). */
#include "sysroot_fuzz.h"

static const char *const targets[] = {"/etc/group", "/etc/passwd", "/.snapshot/identity",
                                      "/.snapshot/devnodes", NULL};

static const char *const probes[] = {"kfd", "user", NULL};

static const struct sysroot_fuzz sf = {"rx7900xtx-desktop", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return sysroot_fuzz_one(&sf, data, size);
}
