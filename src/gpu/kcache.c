/* kcache.c - embedded kernel sources and the compile cache (see kcache.h). */
#include "kcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/tmpdirs.h"

struct kcache_stats kcache_stats;

static const struct gpu_kernel_src *find(const char *name)
{
    for (const struct gpu_kernel_src *k = rvd_kernels; k->name; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

/* the source as compiled: the prelude, then kernels/<name>.hip; caller frees;
 * NULL when there is no such kernel file */
static char *gpu_kernel_source(const char *name)
{
    const struct gpu_kernel_src *k = find(name), *p = find("prelude");
    if (!k)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    if (p && p != k) {
        strbuf_add(&sb, p->start, (size_t)(p->end - p->start));
        strbuf_adds(&sb, "\n");
    }
    strbuf_add(&sb, k->start, (size_t)(k->end - k->start));
    return strbuf_detach(&sb);
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* the cache directory, created; NULL when there is none we can use */
static char *cache_dir(void)
{
    const char *env = getenv("ROCM_VLA_DOCTOR_CACHE");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char *dir = env && *env     ? xstrdup(env)
                : xdg && *xdg   ? xasprintf("%s/rocm-vla-doctor", xdg)
                : home && *home ? xasprintf("%s/.cache/rocm-vla-doctor", home)
                                : NULL;
    if (!dir)
        return NULL;
    /* mkdir -p */
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(dir, 0755);
        *s = '/';
    }
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        free(dir);
        return NULL;
    }
    return dir;
}

static int read_file(const char *path, void **bin, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_size <= 0) {
        close(fd);
        return -1;
    }
    char *buf = xmalloc((size_t)st.st_size);
    size_t off = 0;
    while (off < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + off, (size_t)st.st_size - off);
        if (r <= 0)
            break;
        off += (size_t)r;
    }
    close(fd);
    if (off != (size_t)st.st_size) {
        free(buf);
        return -1;
    }
    *bin = buf;
    *len = off;
    return 0;
}

/* write to a temporary name, then rename: a concurrent reader never sees half */
static void write_file(const char *path, const void *bin, size_t len)
{
    char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
    int fd = tmpdirs_open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        size_t off = 0;
        while (off < len) {
            ssize_t w = write(fd, (const char *)bin + off, len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        if (close(fd) == 0 && off == len)
            rename(tmp, path);
    }
    unlink(tmp);
    tmpdirs_forget_file(tmp);
    free(tmp);
}

int gpu_kernel_binary(struct gpu_backend *b, const char *name, const char *target, void **bin,
                      size_t *len, char **why)
{
    *bin = NULL;
    *len = 0;
    *why = NULL;
    char *src = gpu_kernel_source(name);
    if (!src) {
        *why = xasprintf("no kernel named '%s' is built in", name);
        return -1;
    }
    char ver[64];
    snprintf(ver, sizeof(ver), "%d", b->runtime_version);
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv1a(h, src, strlen(src) + 1);
    h = fnv1a(h, target, strlen(target) + 1);
    h = fnv1a(h, b->name, strlen(b->name) + 1);
    h = fnv1a(h, ver, strlen(ver) + 1);
    h = fnv1a(h, b->rtc_lib, strlen(b->rtc_lib) + 1);
    char *dir = cache_dir();
    char *path = dir ? xasprintf("%s/%s-%s-%s-%016llx.bin", dir, b->name, target, name,
                                 (unsigned long long)h)
                     : NULL;
    free(dir);
    if (path && read_file(path, bin, len) == 0) {
        kcache_stats.hits++;
        free(path);
        free(src);
        return 0;
    }
    struct strbuf log = STRBUF_INIT;
    double t0 = util_mono_s();
    int e = b->compile(b, src, name, target, bin, len, &log);
    kcache_stats.compile_s += util_mono_s() - t0;
    free(src);
    if (e) {
        kcache_stats.failures++;
        /* the log's last 300 characters carry the compiler's actual complaint */
        const char *l = log.buf ? log.buf : "";
        size_t ll = strlen(l);
        *why = xasprintf("%s%s%s", b->err, ll ? "; log: " : "", ll > 300 ? l + ll - 300 : l);
        strbuf_release(&log);
        free(path);
        return -1;
    }
    kcache_stats.compiles++;
    strbuf_release(&log);
    if (path)
        write_file(path, *bin, *len);
    free(path);
    return 0;
}

int gpu_kernel_load(struct gpu_backend *b, const char *name, const char *target, gpu_module *m,
                    char **why)
{
    void *bin = NULL;
    size_t len = 0;
    *m = NULL;
    if (gpu_kernel_binary(b, name, target, &bin, &len, why))
        return -1;
    int e = b->module_load(b, m, bin, len);
    free(bin);
    if (e) {
        *why = xasprintf("loading the %s module for %s: %s", name, target, b->err);
        return -1;
    }
    return 0;
}
