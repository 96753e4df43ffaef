/* codeobj_check.c - the kernels of AMDGPU code objects against their
 * target's limits and the launch sizes the host code uses.
 *
 *   codeobj_check [--markdown] LAUNCH.tsv CODEOBJ...
 *
 * LAUNCH.tsv (tests/data/kernel-launch.tsv) names for every kernel the
 * largest block size and dynamic LDS the host code launches it with; each
 * code object (the .bin files of the kernel cache, plain ELF from hiprtc)
 * is read through its NT_AMDGPU_METADATA note. Prints one line per kernel
 * and target (a Markdown table with --markdown, what docs/VLA.md keeps),
 * then every violation. Exit 0 all within limits, 1 a violation (or a
 * kernel without a launch entry, or an entry without a kernel), 2 bad
 * input. Not a unit test (no test_ prefix): tests/gpu_ci.sh runs it on what
 * the real hiprtc compiled. */
/* layers: core binscan */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/binscan/amdgpu_limits.h"
#include "../../src/binscan/amdgpu_meta.h"
#include "../../src/core/util.h"

struct launch {
    char name[128];
    uint64_t block, dyn_lds;
    int seen;
};

static int read_launches(const char *path, struct launch **out, size_t *n)
{
    char *buf;
    size_t len;
    int rc = read_user_file(path, 1 << 20, &buf, &len);
    if (rc) {
        fprintf(stderr, "codeobj_check: %s: %s\n", path, user_file_strerror(rc));
        return -1;
    }
    int lineno = 0;
    for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        struct launch l = {0};
        unsigned long long b, d;
        if (sscanf(line, "%127s %llu %llu", l.name, &b, &d) != 3 || b == 0) {
            fprintf(stderr, "codeobj_check: %s:%d: want \"kernel block dyn_lds ...\"\n", path,
                    lineno);
            free(buf);
            return -1;
        }
        l.block = b;
        l.dyn_lds = d;
        *out = xrealloc(*out, (*n + 1) * sizeof(**out));
        (*out)[(*n)++] = l;
    }
    free(buf);
    return 0;
}

static const char *num(char *b, size_t n, uint64_t v)
{
    if (v == AMDGPU_UNKNOWN)
        return "?";
    snprintf(b, n, "%" PRIu64, v);
    return b;
}

int main(int argc, char **argv)
{
    int md = argc > 1 && strcmp(argv[1], "--markdown") == 0;
    if (argc < 3 + md) {
        fprintf(stderr, "usage: codeobj_check [--markdown] LAUNCH.tsv CODEOBJ...\n");
        return 2;
    }
    struct launch *ls = NULL;
    size_t nl = 0;
    if (read_launches(argv[1 + md], &ls, &nl))
        return 2;
    struct strlist problems = STRLIST_INIT;
    int bad = 0, input_bad = 0;
    if (md)
        printf("| kernel | target | VGPR | AGPR | SGPR | LDS B | scratch B | wave | max WG | "
               "spills S/V | launch block | dyn LDS B |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int a = 2 + md; a < argc; a++) {
        char *buf, *err = NULL;
        size_t len;
        int rc = read_user_file(argv[a], 64 << 20, &buf, &len);
        if (rc) {
            fprintf(stderr, "codeobj_check: %s: %s\n", argv[a], user_file_strerror(rc));
            input_bad = 1;
            continue;
        }
        struct amdgpu_meta m = {0};
        if (amdgpu_meta_read((const unsigned char *)buf, len, &m, &err)) {
            fprintf(stderr, "codeobj_check: %s: %s\n", argv[a], err);
            input_bad = 1;
        }
        const struct amdgpu_limits *lim = amdgpu_limits_for(m.target);
        const char *tgt = m.target && strstr(m.target, "--") ? strstr(m.target, "--") + 2 : "?";
        if (!lim && !err) {
            fprintf(stderr, "codeobj_check: %s: target %s is not in the limits table\n", argv[a],
                    m.target ? m.target : "(none)");
            input_bad = 1;
        }
        for (size_t i = 0; lim && i < m.n; i++) {
            const struct amdgpu_kernel *k = &m.k[i];
            struct launch *l = NULL;
            for (size_t j = 0; j < nl; j++)
                if (strcmp(ls[j].name, k->name) == 0)
                    l = &ls[j];
            struct strlist kp = STRLIST_INIT;
            if (!l)
                strlist_add(&kp, "no launch entry in the launch table (add the host's block "
                                 "size and dynamic LDS)");
            else
                l->seen = 1;
            amdgpu_check_kernel(k, lim, l ? l->block : 1, l ? l->dyn_lds : 0, &kp);
            char b[11][24];
            printf(md ? "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s/%s | %s | %s |\n"
                      : "%-26s %-8s vgpr %-4s agpr %-4s sgpr %-4s lds %-6s scratch %-5s wave "
                        "%-3s maxwg %-5s spills %s/%s block %-5s dynlds %s\n",
                   k->name, tgt, num(b[0], 24, k->vgprs), num(b[1], 24, k->agprs),
                   num(b[2], 24, k->sgprs), num(b[3], 24, k->lds), num(b[4], 24, k->scratch),
                   num(b[5], 24, k->wave), num(b[6], 24, k->max_wg), num(b[9], 24, k->sgpr_spill),
                   num(b[10], 24, k->vgpr_spill), l ? num(b[7], 24, l->block) : "?",
                   l ? num(b[8], 24, l->dyn_lds) : "?");
            /* scratch (spills or a stack object) is not a launch failure,
             * but slow: reported */
            if ((k->scratch != AMDGPU_UNKNOWN && k->scratch > 0) ||
                (k->vgpr_spill != AMDGPU_UNKNOWN && k->vgpr_spill > 0) ||
                (k->sgpr_spill != AMDGPU_UNKNOWN && k->sgpr_spill > 0))
                fprintf(stderr,
                        "codeobj_check: note: %s on %s: scratch %s B, SGPR spills %s, VGPR "
                        "spills %s\n",
                        k->name, tgt, b[4], b[9], b[10]);
            for (size_t p = 0; p < kp.n; p++)
                strlist_add_owned(&problems, xasprintf("%s on %s: %s", k->name, tgt, kp.v[p]));
            bad += kp.n > 0;
            strlist_release(&kp);
        }
        free(err);
        amdgpu_meta_release(&m);
        free(buf);
    }
    for (size_t j = 0; j < nl; j++)
        if (!ls[j].seen) {
            strlist_add_owned(&problems, xasprintf("%s: in the launch table but in no code "
                                                   "object (a stale entry)",
                                                   ls[j].name));
            bad++;
        }
    for (size_t p = 0; p < problems.n; p++)
        fprintf(stderr, "codeobj_check: FAIL %s\n", problems.v[p]);
    strlist_release(&problems);
    free(ls);
    return input_bad ? 2 : bad ? 1 : 0;
}
