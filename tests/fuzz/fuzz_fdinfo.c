/* fuzz_fdinfo.c - DRM fdinfo text (src/telemetry/tel_text.c
 * tel_fdinfo_parse: drm-driver, drm-pdev, drm-client-id, drm-engine-*,
 * the VRAM keys of each kernel), as /proc/<pid>/fdinfo/<fd> gives it. The
 * engines' sum saturates: it never wraps below zero. */
#include "../../src/telemetry/telemetry.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct tel_fdinfo fi;
    if (tel_fdinfo_parse(text, &fi) == 0 && (fi.engine_ns < -1 || fi.vram_bytes < -1))
        abort(); /* -1 is unknown; nothing else below zero */
    free(text);
    return 0;
}
