/* fuzz_ld_cache.c - glibc's binary ld.so.cache (src/binscan/ld_resolve.c,
 * ld_cache_parse), then a lookup of a name from the input and of a fixed one,
 * and the DPM-level text parser of probes/peak_model.c on the same bytes. */
#include "../../probes/peak_model.h"
#include "../../src/binscan/ld_resolve.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ld_cache c;
    char *err = NULL;
    if (ld_cache_parse(data, size, &c, &err) == 0) {
        ld_cache_lookup(&c, "libamdhip64.so.6");
        if (c.n)
            ld_cache_lookup(&c, c.v[c.n - 1].name);
        ld_cache_release(&c);
    }
    free(err);
    char *text = fuzz_cstr(data, size);
    double mhz;
    peak_dpm_max_mhz(text, &mhz);
    free(text);
    return 0;
}
