/* amdgpu_meta.c - see amdgpu_meta.h */
#include "amdgpu_meta.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "msgpack.h"

#define EM_AMDGPU 224
#define SHT_NOTE 7
#define NT_AMDGPU_METADATA 32

static uint64_t le(const unsigned char *p, int k)
{
    uint64_t x = 0;
    for (int i = k - 1; i >= 0; i--)
        x = x << 8 | p[i];
    return x;
}

static int fail(char **err, const char *what)
{
    if (!*err)
        *err = xstrdup(what);
    return -1;
}

static void kernel_init(struct amdgpu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    uint64_t *f[] = {&k->sgprs, &k->vgprs,  &k->agprs,   &k->lds,        &k->scratch,
                     &k->wave,  &k->max_wg, &k->kernarg, &k->sgpr_spill, &k->vgpr_spill};
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        *f[i] = AMDGPU_UNKNOWN;
}

/* the numeric field called key, or NULL */
static uint64_t *kernel_field(struct amdgpu_kernel *k, const struct mp_value *key)
{
    static const struct {
        const char *key;
        size_t off;
    } map[] = {
        {".sgpr_count", offsetof(struct amdgpu_kernel, sgprs)},
        {".vgpr_count", offsetof(struct amdgpu_kernel, vgprs)},
        {".agpr_count", offsetof(struct amdgpu_kernel, agprs)},
        {".group_segment_fixed_size", offsetof(struct amdgpu_kernel, lds)},
        {".private_segment_fixed_size", offsetof(struct amdgpu_kernel, scratch)},
        {".wavefront_size", offsetof(struct amdgpu_kernel, wave)},
        {".max_flat_workgroup_size", offsetof(struct amdgpu_kernel, max_wg)},
        {".kernarg_segment_size", offsetof(struct amdgpu_kernel, kernarg)},
        {".sgpr_spill_count", offsetof(struct amdgpu_kernel, sgpr_spill)},
        {".vgpr_spill_count", offsetof(struct amdgpu_kernel, vgpr_spill)},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (mp_str_is(key, map[i].key))
            return (uint64_t *)(void *)((char *)k + map[i].off);
    return NULL;
}

static int read_kernel(struct mp_reader *r, struct amdgpu_kernel *k, char **err)
{
    struct mp_value m, key, val;
    if (mp_next(r, &m) || m.type != MP_MAP)
        return fail(err, "amdhsa.kernels: an entry is not a map");
    for (uint64_t i = 0; i < m.len; i++) {
        if (mp_next(r, &key) || key.type != MP_STR)
            return fail(err, "amdhsa.kernels: a key is not a string");
        uint64_t *f = kernel_field(k, &key);
        int is_name = mp_str_is(&key, ".name");
        if (!f && !is_name) {
            if (mp_skip(r))
                return fail(err, "amdhsa.kernels: a value is truncated");
            continue;
        }
        if (mp_next(r, &val))
            return fail(err, "amdhsa.kernels: a value is truncated");
        if (is_name && val.type == MP_STR && !k->name)
            k->name = xstrndup((const char *)val.data, (size_t)val.len);
        else if (f && mp_as_u64(&val, f))
            return fail(err, "amdhsa.kernels: a count is not a non-negative integer");
        else if (!f && val.type != MP_STR)
            return fail(err, "amdhsa.kernels: .name is not a string");
    }
    if (!k->name)
        return fail(err, "amdhsa.kernels: a kernel has no .name");
    return 0;
}

int amdgpu_meta_parse_note(const unsigned char *p, size_t n, struct amdgpu_meta *out, char **err)
{
    struct mp_reader r = {p, n, 0};
    struct mp_value top, key, val;
    if (mp_next(&r, &top) || top.type != MP_MAP)
        return fail(err, "metadata note: not a msgpack map");
    for (uint64_t i = 0; i < top.len; i++) {
        if (mp_next(&r, &key) || key.type != MP_STR)
            return fail(err, "metadata note: a key is not a string");
        if (mp_str_is(&key, "amdhsa.target")) {
            if (mp_next(&r, &val) || val.type != MP_STR)
                return fail(err, "metadata note: amdhsa.target is not a string");
            free(out->target);
            out->target = xstrndup((const char *)val.data, (size_t)val.len);
        } else if (mp_str_is(&key, "amdhsa.kernels")) {
            if (mp_next(&r, &val) || val.type != MP_ARRAY || val.len > r.n - r.pos)
                return fail(err, "metadata note: amdhsa.kernels is not an array");
            for (uint64_t j = 0; j < val.len; j++) {
                out->k = xrealloc(out->k, (out->n + 1) * sizeof(*out->k));
                kernel_init(&out->k[out->n]);
                out->n++;
                if (read_kernel(&r, &out->k[out->n - 1], err))
                    return -1;
            }
        } else if (mp_skip(&r)) {
            return fail(err, "metadata note: a value is truncated");
        }
    }
    return 0;
}

/* the NT_AMDGPU_METADATA descriptor among the notes in sec[0..len) */
static int find_note(const unsigned char *sec, uint64_t len, const unsigned char **desc,
                     uint64_t *dlen)
{
    uint64_t off = 0;
    while (len - off >= 12) {
        uint64_t nsz = le(sec + off, 4), dsz = le(sec + off + 4, 4), type = le(sec + off + 8, 4);
        uint64_t name = off + 12, d = name + ((nsz + 3) & ~(uint64_t)3);
        if (d > len || dsz > len - d)
            return -1;
        if (type == NT_AMDGPU_METADATA && nsz == 7 && memcmp(sec + name, "AMDGPU", 7) == 0) {
            *desc = sec + d;
            *dlen = dsz;
            return 0;
        }
        off = d + ((dsz + 3) & ~(uint64_t)3);
        if (off > len)
            return -1;
    }
    return -1;
}

int amdgpu_meta_read(const unsigned char *p, size_t n, struct amdgpu_meta *out, char **err)
{
    if (n < 64 || memcmp(p, "\177ELF", 4) != 0)
        return fail(err, "not an ELF file");
    if (p[4] != 2 || p[5] != 1)
        return fail(err, "not a little-endian ELF64 file");
    if (le(p + 18, 2) != EM_AMDGPU)
        return fail(err, "not an AMDGPU code object (e_machine is not EM_AMDGPU)");
    uint64_t shoff = le(p + 0x28, 8), shent = le(p + 0x3a, 2), shnum = le(p + 0x3c, 2);
    if (shent < 64 || shoff > n || shnum > (n - shoff) / shent)
        return fail(err, "the section header table lies outside the file");
    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *sh = p + shoff + i * shent;
        if (le(sh + 4, 4) != SHT_NOTE)
            continue;
        uint64_t off = le(sh + 0x18, 8), size = le(sh + 0x20, 8);
        if (off > n || size > n - off)
            return fail(err, "a note section lies outside the file");
        const unsigned char *desc;
        uint64_t dlen;
        if (find_note(p + off, size, &desc, &dlen) == 0)
            return amdgpu_meta_parse_note(desc, (size_t)dlen, out, err);
    }
    return fail(err, "no NT_AMDGPU_METADATA note (code object v2 or older, or stripped)");
}

void amdgpu_meta_release(struct amdgpu_meta *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->k[i].name);
    free(m->k);
    free(m->target);
    memset(m, 0, sizeof(*m));
}
