/* backend.c - picking and loading a GPU backend; helpers shared by the
 * implementations. */
#include "backend.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpu_set_err(struct gpu_backend *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof(b->err), fmt, ap);
    va_end(ap);
}

void *gpu_dlopen_first(const char *const *names, size_t n, char *path, size_t path_len,
                       struct strbuf *why)
{
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || !*names[i])
            continue;
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            if (path)
                snprintf(path, path_len, "%s", names[i]);
            return h;
        }
        const char *e = dlerror();
        if (why)
            strbuf_addf(why, "%s%s", why->len ? "; " : "", e ? e : names[i]);
    }
    return NULL;
}

void *gpu_dlopen_env(const char *env, const char *const *names, size_t n, char *lib, size_t lib_n,
                     char *why, size_t why_n)
{
    struct strbuf sb = STRBUF_INIT;
    const char *forced = getenv(env);
    void *h = forced && *forced ? gpu_dlopen_first(&forced, 1, lib, lib_n, &sb)
                                : gpu_dlopen_first(names, n, lib, lib_n, &sb);
    if (!h)
        snprintf(why, why_n, "not loaded: %.500s", sb.buf ? sb.buf : "not found");
    strbuf_release(&sb);
    return h;
}

/* ROCM_VLA_DOCTOR_NO_BLAS=1: drop the vendor BLAS so that every GEMM runs the
 * project's own kernels (gpu_gemm: kernels/gemm.hip; the VLA ops: theirs);
 * how the fallback is tested on a machine that has a BLAS */
static struct gpu_backend *no_blas_if_asked(struct gpu_backend *b)
{
    const char *e = getenv("ROCM_VLA_DOCTOR_NO_BLAS");
    if (!b || !e || !*e || strcmp(e, "0") == 0)
        return b;
    if (b->blas_lt) {
        b->blas_lt = NULL;
        snprintf(b->blas_lt_err, sizeof(b->blas_lt_err), "disabled by ROCM_VLA_DOCTOR_NO_BLAS");
        if (b->extra_lib[0]) /* HIP: runtime.hip.blaslt named the library bound */
            snprintf(b->extra_lib, sizeof(b->extra_lib),
                     "no hipBLASLt: disabled by ROCM_VLA_DOCTOR_NO_BLAS, not using %.400s",
                     b->blas_lt_lib);
        b->blas_lt_lib[0] = '\0';
    }
    b->blas_gemm = NULL;
    b->blas_gemm_ex = NULL;
    b->blas_gemm_ptrs = NULL;
    b->blas_api = NULL;
    snprintf(b->blas_err, sizeof(b->blas_err), "disabled by ROCM_VLA_DOCTOR_NO_BLAS=%.32s%s%.400s",
             e, b->blas_lib[0] ? ", not using " : "", b->blas_lib);
    b->blas_lib[0] = '\0';
    return b;
}

static struct gpu_backend *backend_open(enum gpu_backend_kind kind, char **why);

struct gpu_backend *gpu_backend_open(enum gpu_backend_kind kind, char **why)
{
    struct gpu_backend *b = backend_open(kind, why);
    return kind == GPU_BACKEND_CPU ? b : no_blas_if_asked(b);
}

static struct gpu_backend *backend_open(enum gpu_backend_kind kind, char **why)
{
    struct strbuf sb = STRBUF_INIT;
    struct gpu_backend *b = NULL;
    *why = NULL;
    if (kind == GPU_BACKEND_CPU)
        return gpu_backend_cpu_open();
    if (kind == GPU_BACKEND_AUTO) {
        char pci[GPU_CPU_MAX_DEVICES][32], bad[160];
        int n = gpu_cpu_test_devices(pci, GPU_CPU_MAX_DEVICES, bad, sizeof(bad));
        if (n > 0)
            return gpu_backend_cpu_open();
        if (n < 0) {
            *why = xstrdup(bad);
            return NULL;
        }
    }
    if (kind == GPU_BACKEND_AUTO || kind == GPU_BACKEND_HIP) {
        char *w = NULL;
        b = gpu_backend_hip_open(&w);
        int n = 0;
        /* AUTO: a HIP runtime without devices yields to CUDA when that has some */
        if (b && kind == GPU_BACKEND_AUTO && (b->device_count(b, &n) || n == 0)) {
            char *wc = NULL;
            struct gpu_backend *c = gpu_backend_cuda_open(&wc);
            int nc = 0;
            if (c && !c->device_count(c, &nc) && nc > 0) {
                gpu_backend_close(b);
                b = c;
            } else if (c) {
                gpu_backend_close(c);
            }
            free(wc);
        }
        if (b) {
            free(w);
            strbuf_release(&sb);
            return b;
        }
        strbuf_addf(&sb, "HIP: %s", w ? w : "not loaded");
        free(w);
    }
    if (kind == GPU_BACKEND_AUTO || kind == GPU_BACKEND_CUDA) {
        char *w = NULL;
        b = gpu_backend_cuda_open(&w);
        if (b) {
            free(w);
            strbuf_release(&sb);
            return b;
        }
        strbuf_addf(&sb, "%sCUDA: %s", sb.len ? "; " : "", w ? w : "not loaded");
        free(w);
    }
    *why = strbuf_detach(&sb);
    return NULL;
}

void gpu_backend_close(struct gpu_backend *b)
{
    /* no dlclose: vendor runtimes register exit handlers that must still find
     * their code; the probe child exits right after */
    if (!b)
        return;
    if (b->close)
        b->close(b);
    free(b->priv);
    free(b);
}
