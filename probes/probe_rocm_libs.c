/* probe_rocm_libs.c - the ROCm libraries that will be loaded and whether
 * their dependencies resolve within one ROCm install, found the way the
 * dynamic loader finds them (src/binscan/ld_resolve.h), never by running ldd.
 *
 * Roots: for the HIP runtime, rocBLAS, hipBLASLt, MIOpen and rocm-smi the
 * first name of the GPU backend's dlopen list (src/gpu/backend_hip.c,
 * vram_tel.c) that the loader finds, and the copies in PyTorch's torch/lib.
 * Which libamdhip64 PyTorch itself loads is resolved from torch/lib's
 * libc10_hip.so (its RUNPATH $ORIGIN normally wins over the system).
 *
 * The resolution is the "rocm-lib-deps" query: on a live host its producer
 * reads the libraries (hundreds of MB, never copied into a snapshot) and
 * writes tab-separated lines; a snapshot replays the text, a fixture tree is
 * resolved in place. Lines:
 *   root  COMPONENT  PATH  REAL  HOW        (PATH "" when not found)
 *   dep   ROOT  FROM  NEEDED  FOUND  REAL  HOW
 *   err   ROOT  MESSAGE
 *   torch REQUESTER  FOUND  REAL  HOW       (libamdhip64 as PyTorch loads it) */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/binscan/ld_resolve.h"
#include "../src/core/strset.h"

int probe_rocm_libs_run(struct probe_ctx *ctx);

#define QUERY "rocm-lib-deps"

struct component {
    const char *name;
    const char *prefix;         /* file name prefix in torch/lib */
    const char *const names[8]; /* the backend's dlopen order */
};

static const struct component components[] = {
    {"hip",
     "libamdhip64.so",
     {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
      "/opt/rocm/lib/libamdhip64.so"}},
    {"rocblas",
     "librocblas.so",
     {"librocblas.so", "librocblas.so.5", "librocblas.so.4", "librocblas.so.3", "librocblas.so.0",
      "/opt/rocm/lib/librocblas.so"}},
    {"hipblaslt",
     "libhipblaslt.so",
     {"libhipblaslt.so", "libhipblaslt.so.1", "libhipblaslt.so.0",
      "/opt/rocm/lib/libhipblaslt.so"}},
    {"miopen", "libMIOpen.so", {"libMIOpen.so", "libMIOpen.so.1", "/opt/rocm/lib/libMIOpen.so"}},
    {"rocm-smi",
     "librocm_smi64.so",
     {"librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5",
      "librocm_smi64.so.1", "/opt/rocm/lib/librocm_smi64.so"}},
};

/* libraries of a ROCm release: a dependency with one of these names that
 * resolves outside the root's tree mixes two ROCm installs */
static const char *const rocm_names[] = {
    "libamdhip64.",    "libhsa-runtime64.", "libhsakmt.",
    "libamd_comgr.",   "libhiprtc.",        "librocblas.",
    "libhipblaslt.",   "libhipblas.",       "libMIOpen.",
    "librocm_smi64.",  "librocsolver.",     "librocsparse.",
    "libhipsparse.",   "librocfft.",        "libhipfft.",
    "librocrand.",     "libhiprand.",       "librccl.",
    "libroctx64.",     "libroctracer64.",   "librocprofiler-register.",
    "librocm-core.",   "libamd_smi.",       "libhipsolver.",
    "libhipsparselt.", "librocm-dbgapi."};

static char *scan_torch_dir;

static void field(struct strbuf *out, const char *s)
{
    strbuf_addc(out, '\t');
    for (; s && *s; s++)
        strbuf_addc(out, *s == '\t' || *s == '\n' ? ' ' : *s);
}

static void emit_closure(const struct ld_env *env, const char *root, struct strbuf *out)
{
    struct ld_closure c;
    ld_closure_build(env, root, &c);
    for (size_t i = 0; i < c.n; i++) {
        const struct ld_object *o = &c.v[i];
        if (o->error) {
            strbuf_adds(out, "err");
            field(out, root);
            field(out, o->error);
            strbuf_addc(out, '\n');
        }
        for (size_t k = 0; k < o->needed.n; k++) {
            char *real = NULL;
            if (*o->found.v[k] && rootfs_realpath(o->found.v[k], &real))
                real = NULL;
            strbuf_adds(out, "dep");
            field(out, root);
            field(out, o->path);
            field(out, o->needed.v[k]);
            field(out, o->found.v[k]);
            field(out, real ? real : o->found.v[k]);
            field(out, o->how.v[k]);
            strbuf_addc(out, '\n');
            free(real);
        }
    }
    if (c.truncated) {
        strbuf_adds(out, "err");
        field(out, root);
        char *m = xasprintf("more than %d objects: the rest was not resolved", LD_MAX_OBJECTS);
        field(out, m);
        free(m);
        strbuf_addc(out, '\n');
    }
    ld_closure_release(&c);
}

static void emit_root(const char *component, const char *path, const char *how, struct strbuf *out)
{
    char *real = NULL;
    if (path && rootfs_realpath(path, &real))
        real = NULL;
    strbuf_adds(out, "root");
    field(out, component);
    field(out, path);
    field(out, real ? real : path);
    field(out, how);
    strbuf_addc(out, '\n');
    free(real);
}

/* which libamdhip64 torch/lib's HIP library needs, resolved from it */
static void emit_torch(const struct ld_env *env, const char *lib, struct strbuf *out)
{
    static const char *const requesters[] = {"libc10_hip.so", "libtorch_hip.so"};
    for (size_t r = 0; r < ARRAY_SIZE(requesters); r++) {
        char *req = xasprintf("%s/%s", lib, requesters[r]);
        if (!rootfs_exists(req)) {
            free(req);
            continue;
        }
        struct ld_closure c;
        ld_closure_build(env, req, &c);
        const struct ld_object *o = &c.v[0];
        for (size_t k = 0; k < o->needed.n; k++) {
            if (!str_starts(o->needed.v[k], "libamdhip64."))
                continue;
            char *real = NULL;
            if (*o->found.v[k] && rootfs_realpath(o->found.v[k], &real))
                real = NULL;
            strbuf_adds(out, "torch");
            field(out, req);
            field(out, o->found.v[k]);
            field(out, real ? real : o->found.v[k]);
            field(out, o->how.v[k]);
            strbuf_addc(out, '\n');
            free(real);
        }
        ld_closure_release(&c);
        free(req);
        return;
    }
}

static int resolve_all(struct strbuf *out)
{
    struct ld_env env;
    ld_env_init(&env, probe_getenv("LD_LIBRARY_PATH"));
    struct strlist roots = STRLIST_INIT;
    for (size_t i = 0; i < ARRAY_SIZE(components); i++) {
        const struct component *c = &components[i];
        char *p = NULL;
        const char *how = "missing";
        for (size_t k = 0; k < ARRAY_SIZE(c->names) && c->names[k] && !p; k++)
            p = ld_search_program(&env, c->names[k], &how);
        emit_root(c->name, p, p ? how : "not found", out);
        if (p && !strlist_has(&roots, p))
            strlist_add(&roots, p);
        free(p);
    }
    if (scan_torch_dir) {
        char *lib = xasprintf("%s/lib", scan_torch_dir);
        struct strlist names = STRLIST_INIT;
        rootfs_list(lib, &names);
        for (size_t i = 0; i < ARRAY_SIZE(components); i++)
            for (size_t k = 0; k < names.n; k++) {
                if (!str_starts(names.v[k], components[i].prefix))
                    continue;
                char *p = xasprintf("%s/%s", lib, names.v[k]);
                char *comp = xasprintf("wheel %s", components[i].name);
                emit_root(comp, p, "torch/lib", out);
                if (!strlist_has(&roots, p))
                    strlist_add(&roots, p);
                free(comp);
                free(p);
                break;
            }
        emit_torch(&env, lib, out);
        strlist_release(&names);
        free(lib);
    }
    for (size_t i = 0; i < roots.n; i++)
        emit_closure(&env, roots.v[i], out);
    strlist_release(&roots);
    ld_env_release(&env);
    return 0;
}

/* ---- facts ---------------------------------------------------------------- */

static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return xstrndup(path, s ? (size_t)(s - path) : 0);
}

/* the install a file belongs to: /opt/<rocm...> for anything under it, else
 * its directory (Debian's multiarch dir, a wheel's torch/lib) */
static char *tree_of(const char *real)
{
    if (str_starts(real, "/opt/rocm")) {
        size_t n = 5 + strcspn(real + 5, "/");
        return xstrndup(real, n);
    }
    return dir_of(real);
}

static int is_rocm_name(const char *needed, const char *real)
{
    for (size_t i = 0; i < ARRAY_SIZE(rocm_names); i++)
        if (str_starts(needed, rocm_names[i]))
            return 1;
    return str_starts(real, "/opt/rocm");
}

static size_t split_tabs(char *line, char **f, size_t max)
{
    size_t n = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        p = strchr(p, '\t');
        if (!p)
            break;
        *p++ = '\0';
    }
    return n;
}

/* the real path of the root recorded as `root` (paths: root -> index in
 * reals; the first record of a root wins), else root itself */
static const char *root_real(const struct strset *paths, const struct strlist *reals,
                             const char *root)
{
    size_t i;
    return strset_get(paths, root, &i) ? reals->v[i] : root;
}

/* the facts from the recorded list; not static for the growth test */
void rocm_libs_set_facts(struct factset *fs, char *text, const char *src);
void rocm_libs_set_facts(struct factset *fs, char *text, const char *src)
{
    struct strlist lines = STRLIST_INIT, roots = STRLIST_INIT, missing = STRLIST_INIT,
                   mixed = STRLIST_INIT, errors = STRLIST_INIT;
    /* the dedupe of the lists, hashed: a recorded list has as many lines as
     * the snapshot's size cap allows */
    struct strset missing_seen = STRSET_INIT, mixed_seen = STRSET_INIT, errors_seen = STRSET_INIT,
                  root_paths = STRSET_INIT;
    strlist_split(&lines, text, "\n");
    struct strlist root_path_v = STRLIST_INIT, root_reals = STRLIST_INIT;
    for (size_t i = 0; i < lines.n; i++) {
        char *f[5];
        if (!str_starts(lines.v[i], "root\t"))
            continue;
        char *row = xstrdup(lines.v[i]);
        if (split_tabs(row, f, 5) == 5 && *f[2]) {
            strlist_add_owned(&roots, xasprintf("%s: %s (%s)", f[1], f[2], f[4]));
            strlist_add(&root_path_v, f[2]);
            strset_add(&root_paths, root_path_v.v[root_path_v.n - 1], root_reals.n);
            strlist_add(&root_reals, f[3]);
        }
        free(row);
    }
    int objects = 0, torch_seen = 0;
    for (size_t i = 0; i < lines.n; i++) {
        char *f[7] = {0};
        size_t n = split_tabs(lines.v[i], f, 7);
        if (strcmp(f[0], "dep") == 0 && n == 7) {
            objects++;
            if (!*f[4]) {
                strlist_add_unique_owned(&missing, &missing_seen,
                                         xasprintf("%s (needed by %s)", f[3], f[2]));
                continue;
            }
            if (!is_rocm_name(f[3], f[5]))
                continue;
            char *want = tree_of(root_real(&root_paths, &root_reals, f[1]));
            char *got = tree_of(f[5]);
            if (strcmp(want, got) != 0) {
                strlist_add_unique_owned(
                    &mixed, &mixed_seen,
                    xasprintf("%s needs %s -> %s (%s), outside %s", f[2], f[3], f[5], f[6], want));
            }
            free(want);
            free(got);
        } else if (strcmp(f[0], "err") == 0 && n == 3) {
            strlist_add_unique(&errors, &errors_seen, f[2]);
        } else if (strcmp(f[0], "torch") == 0 && n == 5 && !torch_seen) {
            torch_seen = 1;
            if (!*f[2]) {
                fact_set_unknown(fs, "rocm.torch_hip_lib", src,
                                 "%s needs libamdhip64 and the loader finds none", f[1]);
                fact_set_unknown(fs, "rocm.torch_lib_set", src,
                                 "%s needs libamdhip64 and the loader finds none", f[1]);
                continue;
            }
            fact_set_str(fs, "rocm.torch_hip_lib", f[2], src);
            /* the wheel's own copy when it lies in the requester's directory
             * (compared by real path: torch/lib may be reached by a link) */
            char *reqdir = dir_of(f[1]), *founddir = dir_of(f[2]), *realdir = dir_of(f[3]);
            char *reqreal = NULL;
            if (rootfs_realpath(reqdir, &reqreal))
                reqreal = xstrdup(reqdir);
            int wheel = strcmp(founddir, reqdir) == 0 || strcmp(realdir, reqreal) == 0;
            char *set = xasprintf("%s:%s", wheel ? "wheel" : "system", founddir);
            fact_set_str(fs, "rocm.torch_lib_set", set, src);
            free(set);
            free(reqreal);
            free(reqdir);
            free(founddir);
            free(realdir);
        }
    }
    if (!torch_seen) {
        const struct fact *td = fact_get(fs, "python.torch_dir");
        const char *why = td && td->type == FACT_STR && *td->s
                              ? "torch/lib has no libc10_hip.so or libtorch_hip.so needing "
                                "libamdhip64 (not a ROCm build)"
                              : "PyTorch's directory is not known";
        fact_set_unknown(fs, "rocm.torch_hip_lib", src, "%s", why);
        fact_set_unknown(fs, "rocm.torch_lib_set", src, "%s", why);
    }
    fact_set_list(fs, "rocm.lib_deps.roots", &roots, src);
    fact_set_int(fs, "rocm.lib_deps.checked", objects, src);
    fact_set_list(fs, "rocm.lib_deps.missing", &missing, src);
    fact_set_list(fs, "rocm.lib_deps.mixed", &mixed, src);
    fact_set_list(fs, "rocm.lib_deps.errors", &errors, src);
    strset_release(&root_paths);
    strset_release(&missing_seen);
    strset_release(&mixed_seen);
    strset_release(&errors_seen);
    strlist_release(&root_path_v);
    strlist_release(&root_reals);
    strlist_release(&lines);
    strlist_release(&roots);
    strlist_release(&missing);
    strlist_release(&mixed);
    strlist_release(&errors);
}

/* What rocm.install names: the system install the rocm probe chose, else
 * the ROCm user space a PyTorch wheel loads from its own torch/lib (a valid
 * setup: the wheel needs only a kernel driver, issue 33), else unknown. */
static void user_space_fact(struct factset *fs)
{
    const char *name = "rocm.user_space", *src = "rocm.version, rocm.torch_lib_set";
    const struct fact *v = fact_get(fs, "rocm.version"), *s = fact_get(fs, "rocm.source");
    const struct fact *t = fact_get(fs, "rocm.torch_lib_set"),
                      *h = fact_get(fs, "python.torch_hip");
    char *text = NULL;
    if (v && v->type == FACT_STR && s && s->type == FACT_STR)
        text = xasprintf("ROCm %s (%s)", v->s, s->s);
    else if (t && t->type == FACT_STR && str_starts(t->s, "wheel:"))
        text = xasprintf("no system ROCm: PyTorch loads its wheel's own ROCm user space from %s "
                         "(HIP %s)",
                         t->s + 6, h && h->type == FACT_STR && *h->s ? h->s : "of unknown version");
    if (text)
        fact_set_str(fs, name, text, src);
    else
        fact_set_unknown(fs, name, src, "no system ROCm and no PyTorch wheel's own");
    free(text);
}

int probe_rocm_libs_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const char *src =
        rootfs_is_live() ? "ELF dynamic sections, ld.so.cache" : ROOTFS_SNAPSHOT_DIR "/" QUERY;
    const struct fact *td = fact_get(fs, "python.torch_dir");
    free(scan_torch_dir);
    scan_torch_dir = td && td->type == FACT_STR && *td->s ? xstrdup(td->s) : NULL;
    char *text = NULL;
    /* a fixture tree rather than a collected snapshot: resolve its files in place */
    int rc = probe_query_or_tree(QUERY, resolve_all, &text, &src, "ELF files under the sysroot");
    free(scan_torch_dir);
    scan_torch_dir = NULL;
    if (rc) {
        static const char *const names[] = {"rocm.lib_deps.roots",   "rocm.lib_deps.checked",
                                            "rocm.lib_deps.missing", "rocm.lib_deps.mixed",
                                            "rocm.lib_deps.errors",  "rocm.torch_hip_lib",
                                            "rocm.torch_lib_set"};
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_errno(fs, names[i], src, rc);
        user_space_fact(fs);
        return 0;
    }
    rocm_libs_set_facts(fs, text, src);
    free(text);
    user_space_fact(fs);
    return 0;
}
