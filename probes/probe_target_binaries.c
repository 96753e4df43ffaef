/* probe_target_binaries.c - which gfx targets the PyTorch wheel's libraries
 * and the ROCm math libraries really contain, against each GPU's target.
 *
 * Reads files only (no GPU): the .hip_fatbin section of every library in
 * torch/lib and of the ROCm math libraries (offload_bundle.h), and the
 * per-target Tensile/hipBLASLt files (rocblas/library, hipblaslt/library).
 * The libraries are hundreds of MB, so they are not copied into a collect
 * snapshot; the scan's result is the "target-binaries" query instead (one
 * line per library), which a replay reads back. A sysroot without that query
 * (a fixture tree) is scanned directly.
 *
 * Query lines, tab-separated:
 *   elf <path> <targets, space-separated> <unknown reason> <error> <bundles>
 *   tensile <dir> <gfx names, space-separated>
 */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/binscan/offload_bundle.h"
#include "../src/core/strset.h"

int probe_target_binaries_run(struct probe_ctx *ctx);

#define QUERY "target-binaries"

/* the ROCm libraries with device code that PyTorch uses */
static const char *const math_libs[] = {"rocblas",   "hipblaslt", "MIOpen",
                                        "rocsparse", "rocsolver", "rocfft",
                                        "rccl",      "rocrand",   "hipsparselt"};
static const char *const system_dirs[] = {"/opt/rocm/lib", "/opt/rocm/lib64",
                                          "/usr/lib/x86_64-linux-gnu", "/usr/lib64"};

static char *scan_torch_dir; /* the producer's input: torch's package directory */

static void put_field(struct strbuf *out, const char *s)
{
    strbuf_addc(out, '\t');
    for (; s && *s; s++)
        strbuf_addc(out, *s == '\t' || *s == '\n' ? ' ' : *s);
}

/* a message without the sysroot prefix of host paths */
static const char *unrooted(const char *msg)
{
    const char *root = rootfs_root();
    size_t n = strlen(root);
    return n && strncmp(msg, root, n) == 0 ? msg + n : msg;
}

static int is_math_lib(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(math_libs); i++) {
        size_t n = strlen(math_libs[i]);
        if (str_starts(name, "lib") && strncmp(name + 3, math_libs[i], n) == 0 &&
            str_starts(name + 3 + n, ".so"))
            return 1;
    }
    return 0;
}

/* the real paths scanned so far: a torch/lib or a Tensile directory holds
 * thousands of files, too many to search a list per file */
struct seen {
    struct strlist paths;
    struct strset set;
};

/* candidate files in dir (all shared objects, or the math libraries only),
 * as root-relative real paths, without duplicates from symlinks */
static void add_libs(const char *dir, int all, struct seen *seen, struct strlist *out)
{
    struct strlist names = STRLIST_INIT;
    if (rootfs_list(dir, &names) != 0)
        return;
    for (size_t i = 0; i < names.n; i++) {
        const char *n = names.v[i];
        if (!(all ? str_starts(n, "lib") && strstr(n, ".so") : is_math_lib(n)))
            continue;
        char *path = xasprintf("%s/%s", dir, n), *real = NULL;
        struct stat st;
        if (rootfs_realpath(path, &real) == 0 && rootfs_stat(real, &st) == 0 &&
            S_ISREG(st.st_mode) && strlist_add_unique(&seen->paths, &seen->set, real))
            strlist_add(out, real);
        free(real);
        free(path);
    }
    strlist_release(&names);
}

static void scan_elf(const char *path, struct strbuf *out)
{
    struct offload_scan s;
    memset(&s, 0, sizeof(s));
    char *host = NULL, *err = NULL;
    int rc = rootfs_host_path(path, &host);
    if (rc)
        err = xasprintf("%s: %s", path, strerror(-rc));
    else
        rc = offload_scan_file(host, &s, &err);
    struct strbuf t = STRBUF_INIT;
    for (size_t i = 0; i < s.targets.n; i++)
        strbuf_addf(&t, "%s%s", i ? " " : "", s.targets.v[i]);
    strbuf_adds(out, "elf");
    put_field(out, path);
    put_field(out, t.buf);
    put_field(out, s.unknown ? s.unknown_why : "");
    put_field(out, rc && err ? unrooted(err) : "");
    strbuf_addf(out, "\t%u\n", s.bundles);
    strbuf_release(&t);
    free(err);
    free(host);
    offload_scan_release(&s);
}

static void scan_tensile(const char *dir, struct seen *seen, struct strbuf *out)
{
    char *real = NULL;
    struct strlist names = STRLIST_INIT, gfx = STRLIST_INIT;
    if (rootfs_realpath(dir, &real) != 0 || strset_get(&seen->set, real, NULL) ||
        rootfs_list(real, &names) != 0) {
        free(real);
        return;
    }
    strlist_add_unique(&seen->paths, &seen->set, real);
    /* each name's targets on their own, then into one set: handing gfx to
     * offload_tensile_targets() would index all of it again per file */
    struct strset gfx_set = STRSET_INIT;
    for (size_t i = 0; i < names.n; i++) {
        struct strlist one = STRLIST_INIT;
        offload_tensile_targets(names.v[i], &one);
        for (size_t k = 0; k < one.n; k++)
            strlist_add_unique(&gfx, &gfx_set, one.v[k]);
        strlist_release(&one);
    }
    strset_release(&gfx_set);
    strlist_sort(&gfx);
    strbuf_adds(out, "tensile");
    put_field(out, real);
    struct strbuf t = STRBUF_INIT;
    for (size_t i = 0; i < gfx.n; i++)
        strbuf_addf(&t, "%s%s", i ? " " : "", gfx.v[i]);
    put_field(out, t.buf);
    strbuf_addc(out, '\n');
    strbuf_release(&t);
    strlist_release(&gfx);
    strlist_release(&names);
    free(real);
}

static int scan_all(struct strbuf *out)
{
    struct seen seen = {STRLIST_INIT, STRSET_INIT};
    struct strlist libs = STRLIST_INIT, tdirs = STRLIST_INIT;
    if (scan_torch_dir) {
        char *d = xasprintf("%s/lib", scan_torch_dir);
        add_libs(d, 1, &seen, &libs);
        free(d);
        strlist_add_owned(&tdirs, xasprintf("%s/lib/rocblas/library", scan_torch_dir));
        strlist_add_owned(&tdirs, xasprintf("%s/lib/hipblaslt/library", scan_torch_dir));
    }
    for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++) {
        add_libs(system_dirs[i], 0, &seen, &libs);
        strlist_add_owned(&tdirs, xasprintf("%s/rocblas/library", system_dirs[i]));
        strlist_add_owned(&tdirs, xasprintf("%s/hipblaslt/library", system_dirs[i]));
        /* Debian: <multiarch>/rocblas/<version>/library */
        char *d = xasprintf("%s/rocblas", system_dirs[i]);
        struct strlist vers = STRLIST_INIT;
        if (rootfs_list(d, &vers) == 0)
            for (size_t j = 0; j < vers.n; j++)
                if (strcmp(vers.v[j], "library") != 0)
                    strlist_add_owned(&tdirs, xasprintf("%s/%s/library", d, vers.v[j]));
        strlist_release(&vers);
        free(d);
    }
    for (size_t i = 0; i < libs.n; i++)
        scan_elf(libs.v[i], out);
    for (size_t i = 0; i < tdirs.n; i++)
        scan_tensile(tdirs.v[i], &seen, out);
    strlist_release(&seen.paths);
    strset_release(&seen.set);
    strlist_release(&libs);
    strlist_release(&tdirs);
    return 0;
}

/* ---- facts -------------------------------------------------------------- */

struct lib {
    char *kind, *path, *unknown, *error;
    struct strlist targets;
};

static size_t parse_scan(char *text, struct lib **out)
{
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    struct lib *v = xcalloc(lines.n ? lines.n : 1, sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < lines.n; i++) {
        char *f[6] = {0};
        size_t nf = str_split_fields(lines.v[i], f, 6);
        int elf = strcmp(f[0], "elf") == 0;
        if (nf < 3 || (!elf && strcmp(f[0], "tensile") != 0))
            continue;
        struct lib *l = &v[n++];
        l->kind = xstrdup(f[0]);
        l->path = xstrdup(f[1]);
        strlist_split(&l->targets, f[2], " ");
        l->unknown = xstrdup(elf && nf > 3 ? f[3] : "");
        l->error = xstrdup(elf && nf > 4 ? f[4] : "");
    }
    strlist_release(&lines);
    *out = v;
    return n;
}

static int has_code(const struct lib *l)
{
    return !*l->error && (l->targets.n > 0 || *l->unknown);
}

static char *lib_text(const struct lib *l)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s%s:", l->path, strcmp(l->kind, "tensile") == 0 ? " (Tensile)" : "");
    for (size_t i = 0; i < l->targets.n; i++)
        strbuf_addf(&sb, " %s", l->targets.v[i]);
    if (*l->unknown)
        strbuf_addf(&sb, "%s%s", l->targets.n ? "; " : " ", l->unknown);
    return strbuf_detach(&sb);
}

/* where PyTorch loads its own ROCm from torch/lib (rocm.torch_lib_set
 * "wheel:DIR"), the system's math libraries are not what the model runs:
 * judge torch/lib alone. NULL: every library scanned counts */
static const char *wheel_only;

static void set_gpu_facts(struct factset *fs, int g, const struct lib *libs, size_t n,
                          const struct strlist *listed, int scanned, const char *src)
{
    char name[FACT_NAME_MAX], tmp[FACT_NAME_MAX];
    const struct fact *isa = fact_get(fs, fact_gpu_name(tmp, g, "isa"));
    const struct fact *gfx = fact_get(fs, fact_gpu_name(tmp, g, "gfx"));
    const char *dev = isa && isa->type == FACT_STR && *isa->s   ? isa->s
                      : gfx && gfx->type == FACT_STR && *gfx->s ? gfx->s
                                                                : NULL;
    /* the runtime's ISA name carries xnack/sramecc; its device order can differ
     * from the KFD's (HIP_VISIBLE_DEVICES, an iGPU first), so take the runtime
     * device paired with this GPU by PCI address (runtime.dev.<i>.gpu), and only
     * when it names the same processor as this GPU's gfx */
    const struct fact *arch = NULL;
    const struct fact *ndev = fact_get(fs, "runtime.device_count");
    for (int i = 0; ndev && ndev->type == FACT_INT && i < ndev->i && !arch; i++) {
        snprintf(tmp, sizeof(tmp), "runtime.dev.%d.gpu", i);
        const struct fact *pg = fact_get(fs, tmp);
        if (!pg || pg->type != FACT_INT || pg->i != g)
            continue;
        snprintf(tmp, sizeof(tmp), "runtime.dev.%d.arch", i);
        arch = fact_get(fs, tmp);
    }
    int from_gfx = dev && !(isa && isa->type == FACT_STR && *isa->s);
    if (from_gfx && arch && arch->type == FACT_STR && str_starts(arch->s, dev) &&
        arch->s[strlen(dev)] == ':')
        dev = arch->s;
    fact_set_int(fs, fact_gpu_name(name, g, "binaries.scanned"), scanned, src);
    fact_set_list(fs, fact_gpu_name(name, g, "binaries.libraries"), listed, src);
    if (!dev) {
        static const char *const rest[] = {"binaries.target", "binaries.missing",
                                           "binaries.unknown"};
        for (size_t i = 0; i < ARRAY_SIZE(rest); i++)
            fact_set_unknown(fs, fact_gpu_name(name, g, rest[i]), src,
                             "the GPU's target is not known (no gpu.%d.isa or gpu.%d.gfx)", g, g);
        return;
    }
    char *target = offload_target_from_id(dev, strlen(dev));
    char *proc = target ? offload_target_processor(target) : NULL;
    struct strlist missing = STRLIST_INIT, unknown = STRLIST_INIT;
    for (size_t i = 0; target && i < n; i++) {
        const struct lib *l = &libs[i];
        if (!has_code(l) || (wheel_only && !(str_starts(l->path, wheel_only) &&
                                             l->path[strlen(wheel_only)] == '/')))
            continue;
        int found = 0;
        for (size_t j = 0; j < l->targets.n && !found; j++)
            found = strcmp(l->kind, "tensile") == 0
                        ? strcmp(l->targets.v[j], proc) == 0
                        : offload_target_matches(l->targets.v[j], target);
        if (found)
            continue;
        if (*l->unknown) /* the unread compressed bundles may hold it */
            strlist_add_owned(&unknown, xasprintf("%s: %s", l->path, l->unknown));
        else
            strlist_add_owned(
                &missing,
                xasprintf("%s%s", l->path, strcmp(l->kind, "tensile") == 0 ? " (Tensile)" : ""));
    }
    if (target) {
        fact_set_str(fs, fact_gpu_name(name, g, "binaries.target"), target, src);
        fact_set_list(fs, fact_gpu_name(name, g, "binaries.missing"), &missing, src);
        fact_set_list(fs, fact_gpu_name(name, g, "binaries.unknown"), &unknown, src);
    } else {
        static const char *const rest[] = {"binaries.target", "binaries.missing",
                                           "binaries.unknown"};
        for (size_t i = 0; i < ARRAY_SIZE(rest); i++)
            fact_set_unknown(fs, fact_gpu_name(name, g, rest[i]), src,
                             "the GPU's target '%s' is not an amdgcn target id", dev);
    }
    strlist_release(&missing);
    strlist_release(&unknown);
    free(proc);
    free(target);
}

int probe_target_binaries_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const char *src =
        rootfs_is_live() ? "library files (.hip_fatbin, Tensile)" : ROOTFS_SNAPSHOT_DIR "/" QUERY;
    const struct fact *td = fact_get(fs, "python.torch_dir");
    free(scan_torch_dir);
    scan_torch_dir = td && td->type == FACT_STR && *td->s ? xstrdup(td->s) : NULL;

    char *text = NULL;
    /* a fixture tree rather than a collected snapshot: scan its files in place */
    int rc = probe_query_or_tree(QUERY, scan_all, &text, &src, "library files under the sysroot");
    free(scan_torch_dir);
    scan_torch_dir = NULL;
    if (rc) {
        const char *names[] = {"binaries.scanned", "binaries.with_code", "binaries.libraries",
                               "binaries.errors", "binaries.unknown"};
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_errno(fs, names[i], src, rc);
        return 0;
    }

    struct lib *libs;
    size_t n = parse_scan(text, &libs);
    free(text);
    struct strlist listed = STRLIST_INIT, errors = STRLIST_INIT, unknown = STRLIST_INIT;
    int with_code = 0;
    for (size_t i = 0; i < n; i++) {
        if (*libs[i].error)
            strlist_add(&errors, libs[i].error);
        if (!has_code(&libs[i]))
            continue;
        with_code++;
        strlist_add_owned(&listed, lib_text(&libs[i]));
        if (*libs[i].unknown && libs[i].targets.n == 0)
            strlist_add_owned(&unknown, xasprintf("%s: %s", libs[i].path, libs[i].unknown));
    }
    fact_set_int(fs, "binaries.scanned", (int64_t)n, src);
    fact_set_int(fs, "binaries.with_code", with_code, src);
    fact_set_list(fs, "binaries.libraries", &listed, src);
    fact_set_list(fs, "binaries.errors", &errors, src);
    fact_set_list(fs, "binaries.unknown", &unknown, src);
    if (td && td->type == FACT_STR)
        fact_set_str(fs, "binaries.torch_dir", td->s, "python.torch_dir");
    else
        fact_set_unknown(fs, "binaries.torch_dir", "python.torch_dir",
                         "torch's directory is not known: only system libraries were scanned");

    const struct fact *ls = fact_get(fs, "rocm.torch_lib_set");
    wheel_only = ls && ls->type == FACT_STR && str_starts(ls->s, "wheel:") && td &&
                         td->type == FACT_STR && *td->s
                     ? td->s
                     : NULL;
    if (wheel_only)
        fact_set_str(fs, "binaries.scope",
                     "torch/lib only: PyTorch loads its wheel's ROCm libraries", ls->s);
    else
        fact_set_str(fs, "binaries.scope", "torch/lib and the system's ROCm math libraries",
                     ls && ls->type == FACT_STR ? ls->s : "rocm.torch_lib_set unknown");
    const struct fact *count = fact_get(fs, "gpu.count");
    for (int g = 0; count && count->type == FACT_INT && g < count->i; g++)
        set_gpu_facts(fs, g, libs, n, &listed, (int)n, src);
    wheel_only = NULL;

    for (size_t i = 0; i < n; i++) {
        free(libs[i].kind);
        free(libs[i].path);
        free(libs[i].unknown);
        free(libs[i].error);
        strlist_release(&libs[i].targets);
    }
    free(libs);
    strlist_release(&listed);
    strlist_release(&errors);
    strlist_release(&unknown);
    return 0;
}
