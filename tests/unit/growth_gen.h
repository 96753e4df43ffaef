/* growth_gen.h - generated inputs of n items for the growth test and the
 * growth bench (tools/growth_bench.c): each item distinct, so that every
 * dedupe keeps all n. */
#ifndef RVD_GROWTH_GEN_H
#define RVD_GROWTH_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/util.h"

static void growth_w64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* one plain offload bundle naming n distinct targets, each twice */
static unsigned char *growth_bundle(size_t n, size_t *len)
{
    size_t cap = 32 + 2 * n * 64;
    unsigned char *b = xcalloc(1, cap);
    memcpy(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
    growth_w64(b + 24, 2 * n);
    size_t pos = 32;
    for (size_t i = 0; i < 2 * n; i++) {
        char id[64];
        int l = snprintf(id, sizeof(id), "hipv4-amdgcn-amd-amdhsa--gfx%zu", (i * 7919) % n);
        growth_w64(b + pos, 0);
        growth_w64(b + pos + 8, 0);
        growth_w64(b + pos + 16, (uint64_t)l);
        memcpy(b + pos + 24, id, (size_t)l);
        pos += 24 + (size_t)l;
    }
    *len = pos;
    return b;
}

/* a recorded dependency list (probe_rocm_libs.c's query) with n distinct
 * missing libraries, each reported twice */
static char *growth_deps(size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "root\thip\t/opt/rocm/lib/libamdhip64.so\t/opt/rocm/lib/libamdhip64.so\tld\n");
    for (size_t i = 0; i < 2 * n; i++)
        strbuf_addf(&sb,
                    "dep\t/opt/rocm/lib/libamdhip64.so\t/opt/rocm/lib/libdep%zu.so\t"
                    "libgone%zu.so\t\t\tmissing\n",
                    i % n, i % n);
    return strbuf_detach(&sb);
}

/* a kernel log naming n distinct firmware files that failed, each twice */
static char *growth_kernel_log(size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < 2 * n; i++)
        strbuf_addf(&sb,
                    "[    2.%06zu] amdgpu 0000:03:00.0: Direct firmware load for "
                    "amdgpu/fw_%zu.bin failed with error -2\n",
                    i, i % n);
    return strbuf_detach(&sb);
}

/* a report with n checks; variant v drops the first v tenths of the ids,
 * adds as many new ones and fails every tenth check when v is odd */
static char *growth_report(size_t n, int v)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "{\"schema\": \"rocm-vla-doctor/1\", \"host\": {\"level\": \"quick\"}, "
                     "\"facts\": {\"host.hostname\": \"node\"}, \"facts_meta\": {}, "
                     "\"checks\": [");
    size_t from = (size_t)v * (n / 10);
    for (size_t i = from; i < from + n; i++)
        strbuf_addf(&sb,
                    "%s{\"id\": \"check.%07zu\", \"status\": \"%s\", \"summary\": \"s\", "
                    "\"evidence\": {}}",
                    i > from ? ", " : "", i, (v & 1) && i % 10 == 0 ? "fail" : "pass");
    strbuf_adds(&sb, "]}");
    return strbuf_detach(&sb);
}

#endif
