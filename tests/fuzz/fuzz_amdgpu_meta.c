/* fuzz_amdgpu_meta.c - AMDGPU code objects in memory
 * (src/binscan/amdgpu_meta.c, msgpack.c): the input as a whole ELF code
 * object, then as a bare NT_AMDGPU_METADATA msgpack note, each kernel found
 * checked against every target's limits, and the msgpack reader skipping
 * through the raw bytes. */
#include "../../src/binscan/amdgpu_limits.h"
#include "../../src/binscan/amdgpu_meta.h"
#include "../../src/binscan/msgpack.h"
#include "fuzz.h"

static void check_all(const struct amdgpu_meta *m)
{
    static const char *const procs[] = {"gfx90a", "gfx1030"};
    for (size_t i = 0; i < m->n; i++)
        for (size_t t = 0; t < sizeof(procs) / sizeof(procs[0]); t++) {
            struct strlist p = STRLIST_INIT;
            amdgpu_check_kernel(&m->k[i], amdgpu_limits_for(procs[t]), 256, 4096, &p);
            strlist_release(&p);
        }
    amdgpu_limits_for(m->target);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct amdgpu_meta m = {0};
    char *err = NULL;
    amdgpu_meta_read(data, size, &m, &err);
    check_all(&m);
    amdgpu_meta_release(&m);
    free(err);
    err = NULL;
    amdgpu_meta_parse_note(data, size, &m, &err);
    check_all(&m);
    amdgpu_meta_release(&m);
    free(err);
    struct mp_reader r = {data, size, 0};
    while (r.pos < r.n && mp_skip(&r) == 0)
        ;
    return 0;
}
