/* test_vla_safetensors.c - safetensors write/read, dtype conversion, and a
 * corrupt-header fuzz loop that must never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/vla/safetensors.h"
#include "test.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*len ? *len : 1);
    if (fread(b, 1, *len, f) != *len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

int main(void)
{
    char path[] = "/tmp/test_vla_st.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    float a[6] = {1, -2, 3.5f, 0, 1e-3f, -7}, b[3] = {0.25f, 0.5f, 0.75f};
    struct st_wtensor wt[2] = {{"w.a", 2, {2, 3}, a}, {"w.b", 1, {3}, b}};
    const char *meta[] = {"preset", "tiny \"quoted\""};
    CHECK(st_write(path, wt, 2, meta, 1) == 0);

    struct st_file f;
    CHECK(st_open(&f, path) == 0);
    CHECK(f.n == 2);
    CHECK_STR(st_meta(&f, "preset"), "tiny \"quoted\"");
    const struct st_tensor *t = st_find(&f, "w.a");
    CHECK(t && t->ndim == 2 && t->shape[0] == 2 && t->shape[1] == 3 && t->dtype == ST_F32);
    float out[6] = {0};
    if (t)
        st_to_f32(&f, t, out);
    CHECK(memcmp(out, a, sizeof(a)) == 0);
    CHECK(st_find(&f, "nope") == NULL);
    /* the data buffer is 8-byte aligned in the file */
    CHECK(((f.data - (const unsigned char *)f.map) % 8) == 0);
    st_close(&f);

    /* conversions */
    CHECK(st_bf16_to_f32(0x3F80) == 1.0f);
    CHECK(st_bf16_to_f32(0xC040) == -3.0f);
    CHECK(st_f16_to_f32(0x3C00) == 1.0f);
    CHECK(st_f16_to_f32(0xC000) == -2.0f);
    CHECK(st_f16_to_f32(0x7BFF) == 65504.0f);
    CHECK(st_f16_to_f32(0x0001) == 5.9604644775390625e-08f); /* smallest subnormal */
    CHECK(st_f16_to_f32(0x7C00) > 1e38f);

    /* fuzz: flip bytes of the header and length; every result is a clean
     * accept or reject (ASan/UBSan builds run this too) */
    size_t len = 0;
    unsigned char *good = slurp(path, &len), *buf = malloc(len + 1);
    CHECK(good != NULL);
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    unsigned long long s = 12345;
    int accepted = 0, rejected = 0;
    for (int it = 0; good && it < 20000; it++) {
        memcpy(buf, good, len);
        size_t hend = 8 + (size_t)good[0] + ((size_t)good[1] << 8);
        int flips = 1 + it % 4;
        for (int k = 0; k < flips; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t at = (size_t)(s >> 33) % (hend < len ? hend : len);
            buf[at] = (unsigned char)(s >> 13);
        }
        size_t n = it % 7 == 0 ? (size_t)(s >> 40) % (len + 1) : len; /* sometimes truncate */
        struct st_file g;
        memset(&g, 0, sizeof(g));
        if (st_parse(&g, "fuzz", buf, n) == 0)
            accepted++;
        else
            rejected++;
        st_close(&g);
    }
    fclose(stderr);
    stderr = saved;
    CHECK(rejected > 1000);
    CHECK(accepted + rejected == 20000);
    free(buf);
    free(good);
    unlink(path);
    return test_report();
}
