/* test_kernel_log_sigs.c - every kernel-log signature held against the
 * kernel lines that print it (tests/data/kernel/log_sigs.txt: the format
 * strings copied from the kernel with file, function and version), never
 * against the test lines typed into the signature rows:
 * - each copied format, its conversions filled with sample values and the
 *   prefix its print macro adds (device name, "[drm]", "*ERROR*") before
 *   it, must be matched by a signature row of its id;
 * - each signature row must have a copied line whose function its source
 *   names and which it matches, so a row without a kernel (or named
 *   user-space) source fails. */
#include "../../probes/kernel_log.h"
#include "../../src/core/util.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COPY "tests/data/kernel/log_sigs.txt"
#define NFIELD 7

struct kline {
    char *f[NFIELD]; /* id, kernel, file, function, macro, args, format */
    char *line;      /* the line the kernel would log */
};

/* the prefix each print macro puts before the message, as dmesg shows it */
static const char *macro_prefix(const char *macro, const char *func, char *buf, size_t n)
{
    static const char *const fixed[][2] = {
        {"dev_err", "amdgpu 0000:03:00.0: amdgpu: "},
        {"dev_info", "amdgpu 0000:03:00.0: amdgpu: "},
        {"dev_warn", "amdgpu 0000:03:00.0: "},
        {"dev_err_core", "amdgpu 0000:03:00.0: "}, /* a file without amdgpu's dev_fmt */
        {"drm_info", "amdgpu 0000:03:00.0: [drm] "},
        {"dev_kfd", "kfd kfd: amdgpu: "},
        {"pr_err", "amdgpu: "},
        {"pr_info", "amdgpu: "},
        {"pr_warn", ""},
        {"pr_notice", ""},
        {"pci_info", "pci 0000:03:00.0: "},
        {"DRM_INFO", "[drm] "},
        {"user", ""},
    };
    for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
        if (!strcmp(macro, fixed[i][0]))
            return fixed[i][1];
    if (!strcmp(macro, "DRM_ERROR"))
        snprintf(buf, n, "[drm:%s [amdgpu]] *ERROR* ", func);
    else if (!strcmp(macro, "DRM_DEV_ERROR"))
        snprintf(buf, n, "amdgpu 0000:03:00.0: [drm:%s [amdgpu]] *ERROR* ", func);
    else
        return NULL;
    return buf;
}

/* the C string literal's text with the printf conversions filled: %s from
 * args (comma-separated, in order), numbers and %pR with sample values */
static char *expand(const char *fmt, const char *args)
{
    char *out = xasprintf("%s", "");
    const char *a = strcmp(args, "-") ? args : "";
    for (const char *p = fmt; *p; p++) {
        char *prev = out;
        if (*p == '\\' && p[1]) {
            p++;
            out = *p == 'n' ? xasprintf("%s", prev) : xasprintf("%s%c", prev, *p);
        } else if (*p == '%' && p[1] == '%') {
            p++;
            out = xasprintf("%s%%", prev);
        } else if (*p == '%') {
            p++;
            p += strspn(p, "-+ #0123456789");
            p += strspn(p, "hlzj");
            if (*p == 's') {
                size_t len = strcspn(a, ",");
                out = xasprintf("%s%.*s", prev, (int)len, a);
                a += len + (a[len] == ',');
            } else if (*p == 'p' && p[1] == 'R') {
                p++;
                out = xasprintf("%s[mem size 0x400000000 64bit pref]", prev);
            } else if (*p == 'p') {
                out = xasprintf("%s0x55d1c0a3e270", prev);
            } else if (*p == 'x') {
                out = xasprintf("%s1a6f4", prev);
            } else {
                out = xasprintf("%s2", prev);
            }
        } else {
            out = xasprintf("%s%c", prev, *p);
        }
        free(prev);
    }
    return out;
}

/* one " | "-separated copy line; the format is the last field, in quotes */
static int parse_line(char *s, struct kline *k)
{
    for (int i = 0; i < NFIELD - 1; i++) {
        char *sep = strstr(s, " | ");
        if (!sep)
            return -1;
        *sep = 0;
        k->f[i] = s;
        s = sep + 3;
    }
    size_t len = strlen(s);
    if (len < 2 || s[0] != '"' || s[len - 1] != '"')
        return -1;
    s[len - 1] = 0;
    k->f[NFIELD - 1] = s + 1;
    return 0;
}

/* the function a copy line names, without its "(6.8+)"-style note */
static int row_names(const struct kl_signature *sig, const struct kline *k)
{
    char fn[128];
    if (sscanf(k->f[3], "%127s", fn) != 1)
        return 0;
    return strstr(sig->source, fn) != NULL;
}

int main(void)
{
    char *text = NULL;
    size_t tlen;
    if (read_user_file(COPY, 1 << 20, &text, &tlen)) {
        fprintf(stderr, "cannot read %s (run from the repository root)\n", COPY);
        return 2;
    }
    struct kline lines[256];
    size_t nl = 0;
    for (char *save = NULL, *s = strtok_r(text, "\n", &save); s; s = strtok_r(NULL, "\n", &save)) {
        if (*s == '#')
            continue;
        CHECK(nl < ARRAY_SIZE(lines));
        if (nl >= ARRAY_SIZE(lines))
            break;
        struct kline *k = &lines[nl];
        int ok = parse_line(s, k) == 0;
        CHECK(ok);
        if (!ok) {
            fprintf(stderr, "  malformed copy line: %s\n", s);
            continue;
        }
        char buf[256];
        const char *pre = macro_prefix(k->f[4], k->f[3], buf, sizeof(buf));
        CHECK(pre != NULL);
        if (!pre) {
            fprintf(stderr, "  %s: unknown print macro %s\n", k->f[0], k->f[4]);
            continue;
        }
        char *msg = expand(k->f[6], k->f[5]);
        k->line = xasprintf("[    5.000000] %s%s", pre, msg);
        free(msg);
        nl++;
    }
    CHECK(nl > 0);

    size_t nsig;
    const struct kl_signature *sigs = kl_signatures(&nsig);
    /* every kernel line is recognised by a row of its id */
    for (size_t i = 0; i < nl; i++) {
        int hit = 0;
        for (size_t j = 0; j < nsig && !hit; j++)
            hit = !strcmp(sigs[j].id, lines[i].f[0]) && kl_match(&sigs[j], lines[i].line);
        CHECK(hit);
        if (!hit)
            fprintf(stderr, "  %s (%s %s): no row matches \"%s\"\n", lines[i].f[0], lines[i].f[1],
                    lines[i].f[3], lines[i].line);
    }
    /* every row has a copied source line that it names and matches */
    for (size_t j = 0; j < nsig; j++) {
        int hit = 0;
        for (size_t i = 0; i < nl && !hit; i++)
            hit = !strcmp(sigs[j].id, lines[i].f[0]) && row_names(&sigs[j], &lines[i]) &&
                  kl_match(&sigs[j], lines[i].line);
        CHECK(hit);
        if (!hit)
            fprintf(stderr, "  row %zu (%s, \"%s\"): no copied kernel line names its source\n", j,
                    sigs[j].id, sigs[j].needle);
    }
    for (size_t i = 0; i < nl; i++)
        free(lines[i].line);
    free(text);
    return test_report();
}
