/* fuzz_safetensors.c - safetensors files (src/vla/safetensors.c): the
 * 8-byte header length, the JSON header's strict validation (dtypes, shapes,
 * offsets covering the buffer exactly), lookups and the conversion of every
 * tensor (bounded, so that a valid file of huge tensors is not the cost). */
#include <stdio.h>

#include "../../src/vla/safetensors.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct st_file f;
    memset(&f, 0, sizeof(f));
    if (st_parse(&f, "fuzz.safetensors", data, size) == 0) {
        for (size_t i = 0; i < f.n; i++) {
            const struct st_tensor *t = &f.t[i];
            if (st_find(&f, t->name) != t && st_find(&f, t->name) == NULL)
                abort(); /* a parsed tensor must be found by its name */
            if (t->nelem > (1u << 16))
                continue;
            float *out = malloc((size_t)(t->nelem ? t->nelem : 1) * sizeof(float));
            st_to_f32(&f, t, out);
            free(out);
        }
        st_meta(&f, "format");
    }
    st_close(&f);
    return 0;
}
