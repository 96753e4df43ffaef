/* fuzz_preset.c - VLA model presets (src/vla/preset.c): YAML, the fields and
 * their ranges, the derived shapes. */
#include "../../src/vla/preset.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vla_preset p;
    if (vla_preset_load_string(&p, "fuzz.yaml", (const char *)data, size) == 0) {
        /* what the workload derives from a valid preset */
        vla_grid(&p, p.vision.image);
        vla_image_tokens(&p, p.vision.image);
        vla_prefix_len(&p, p.vision.image);
    }
    vla_preset_release(&p);
    return 0;
}
