/* fuzz_offload_bundle.c - clang offload bundles in memory
 * (src/binscan/offload_bundle.c): plain __CLANG_OFFLOAD_BUNDLE__ tables and CCOB
 * compressed bundles, then the target-id helpers on every target found and on
 * the raw input. */
#include "../../src/binscan/offload_bundle.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct offload_scan scan;
    memset(&scan, 0, sizeof(scan));
    char *err = NULL;
    offload_scan_buffer(data, size, "fuzz", &scan, &err);
    free(err);
    for (size_t i = 0; i < scan.targets.n; i++) {
        char *proc = offload_target_processor(scan.targets.v[i]);
        if (proc)
            offload_target_matches(scan.targets.v[i], proc);
        free(proc);
    }
    offload_scan_release(&scan);

    char *id = offload_target_from_id((const char *)data, size);
    free(id);
    char *text = fuzz_cstr(data, size);
    char *proc = offload_target_processor(text);
    free(proc);
    offload_target_matches(text, "gfx90a:xnack-");
    struct strlist out = STRLIST_INIT;
    offload_tensile_targets(text, &out);
    strlist_release(&out);
    free(text);
    return 0;
}
