/* growth_gen.h - generated inputs of n items for the growth test and the
 * growth bench (tools/growth_bench.c): each item distinct, so that every
 * dedupe keeps all n. The ones only the test uses are inline: the bench
 * includes this file too. */
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

/* an /etc/group of n groups (gid = index), each with the user "u" among
 * other members, and the identity query of "u" holding every gid twice */
static inline char *growth_group_db(size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&sb, "grp%zu:x:%zu:other%zu,u,more\n", i, i, i);
    return strbuf_detach(&sb);
}

static inline char *growth_identity(size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "user u\nuid 1000\ngid 0\ngroups");
    for (size_t i = 0; i < 2 * n; i++)
        strbuf_addf(&sb, " %zu", i % n);
    strbuf_addc(&sb, '\n');
    return strbuf_detach(&sb);
}

/* identifier i of two characters, distinct for i < 925 (a letter other
 * than i, so never the keyword "in", then [a-z0-9_]): a rule naming 450 of
 * them twice fits in EXPR_MAX_LEN */
static inline void growth_ident(size_t i, char out[3])
{
    static const char first[] = "abcdefghjklmnopqrstuvwxyz";
    static const char second[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
    out[0] = first[i / (sizeof(second) - 1) % (sizeof(first) - 1)];
    out[1] = second[i % (sizeof(second) - 1)];
    out[2] = '\0';
}

/* a rule reading n distinct facts, each twice: "x in [ab,ac,...,ab,ac,...]" */
static inline char *growth_rule(size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "x in [");
    for (size_t i = 0; i < 2 * n; i++) {
        char id[3];
        growth_ident(i % n, id);
        strbuf_addf(&sb, "%s%s", i ? "," : "", id);
    }
    strbuf_adds(&sb, "]");
    return strbuf_detach(&sb);
}

#endif
