/* fuzz_snapshot_answers.c - the snapshot answer files that no other
 * harness reaches, each through the parser that reads it under --sysroot:
 * /.snapshot/read-errors (rootfs_init's reader, rootfs.c),
 * /.snapshot/rocm-lib-deps (probe_rocm_libs.c's set_facts),
 * /.snapshot/target-binaries (probe_target_binaries.c's parse_scan) and
 * /.snapshot/vulkan (probe_vulkan.c). The first byte of the input picks
 * the file (sysroot_fuzz.h), the rest is its text, on a copy of the
 * rx7900xtx-desktop fixture whose gpu and python answers give the probes
 * GPUs and a torch directory to judge against. The Vulkan probe runs in an
 * isolated child on a live host (needs_gpu), so sysroot_fuzz_one skips it;
 * under --sysroot it only parses the file, so it is run here in-process on
 * the same tree. */
#include "sysroot_fuzz.h"

static const char *const targets[] = {"/.snapshot/read-errors", "/.snapshot/rocm-lib-deps",
                                      "/.snapshot/target-binaries", "/.snapshot/vulkan", NULL};

/* table order: gpu and python first, as the readers of their facts expect */
static const char *const probes[] = {"gpu", "python", "rocm_libs", "target_binaries", NULL};

static const struct sysroot_fuzz sf = {"rx7900xtx-desktop", targets, probes};

static void run_vulkan(void)
{
    if (rootfs_init(sf_root) != 0)
        return;
    struct factset fs = FACTSET_INIT;
    struct probe_opts opts;
    memset(&opts, 0, sizeof(opts));
    struct probe_ctx ctx = {&fs, LEVEL_STANDARD, &opts, 0};
    for (size_t t = 0; t < probe_count; t++)
        if (strcmp(probe_table[t].name, "vulkan") == 0)
            probe_table[t].run(&ctx);
    factset_release(&fs);
    rootfs_release();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sysroot_fuzz_one(&sf, data, size);
    if (sf_dirty >= 0 && strcmp(targets[sf_dirty], "/.snapshot/vulkan") == 0)
        run_vulkan();
    return 0;
}
