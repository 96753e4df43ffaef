/* ld_resolve.h - find shared libraries the way glibc's dynamic loader does,
 * without running it (no ldd: reading the files is enough, and it works on a
 * fixture tree or a colleague's snapshot through rootfs).
 *
 * Search order for a DT_NEEDED name without a slash (ld.so(8)): the RPATH of
 * the requesting object and of each object that loaded it, up to the first
 * one loaded (only when the requesting object has no RUNPATH); LD_LIBRARY_PATH;
 * the requesting object's RUNPATH; /etc/ld.so.cache; the default directories.
 * $ORIGIN in RPATH/RUNPATH is the requesting object's directory. A candidate
 * counts only when it is an ELF64 file for this machine (ld.so skips others).
 * All paths are root-relative ("/opt/rocm/lib/libamdhip64.so"). */
#ifndef RVD_LD_RESOLVE_H
#define RVD_LD_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

/* one entry of ld.so.cache: the soname and the file ldconfig found for it */
struct ld_cache_entry {
    char *name, *path;
    int32_t flags;  /* 0x0303: libc6, x86-64 */
    uint64_t hwcap; /* nonzero for hardware-capability subdirectories */
};
struct ld_cache {
    struct ld_cache_entry *v;
    size_t n;
};
#define LD_CACHE_FLAGS_X8664 0x0303

/* glibc's binary cache format "glibc-ld.so.cache1.1", alone or after the old
 * "ld.so-1.7.0" table. 0, or -EINVAL with *err (owned) for a malformed file */
int ld_cache_parse(const unsigned char *buf, size_t len, struct ld_cache *c, char **err);
/* the file for `name` with x86-64 libc6 flags (a generic entry preferred over
 * a hardware-capability one), or NULL */
const char *ld_cache_lookup(const struct ld_cache *c, const char *name);
void ld_cache_release(struct ld_cache *c);

struct ld_env {
    struct strlist ld_library_path; /* the whitelisted env fact, split on ':' and ';' */
    struct ld_cache cache;
    int have_cache;
    char *cache_why;          /* why there is no cache ("/etc/ld.so.cache: ...") */
    struct strlist conf_dirs; /* /etc/ld.so.conf(.d) directories: used only without a cache */
};
/* reads /etc/ld.so.cache through rootfs, and /etc/ld.so.conf with its
 * `include` files when the cache is missing or unreadable */
void ld_env_init(struct ld_env *env, const char *ld_library_path);
void ld_env_release(struct ld_env *env);

/* an object of a closure and where each of its DT_NEEDED names went */
struct ld_object {
    char *path; /* as found (root-relative): $ORIGIN is its directory */
    char *real; /* symlinks resolved inside the root */
    int loader; /* index of the object that needed it; -1 for the root */
    char *rpath, *runpath;
    struct strlist needed;
    struct strlist found; /* parallel to needed: the path, or "" when missing */
    struct strlist how;   /* parallel: "RUNPATH", "ld.so.cache", ... or "missing" */
    char *error;          /* unreadable ELF: the message, else NULL */
};
struct ld_closure {
    struct ld_object *v;
    size_t n;
    int truncated; /* stopped at LD_MAX_OBJECTS */
};
#define LD_MAX_OBJECTS 256

/* the file a dlopen(name) from a program without RPATH/RUNPATH loads (a name
 * with a slash is taken as is): owned root-relative path or NULL; *how says
 * which step found it */
char *ld_search_program(const struct ld_env *env, const char *name, const char **how);
/* every object loaded with `root_path`, breadth first, each once (by real
 * path), at most LD_MAX_OBJECTS */
void ld_closure_build(const struct ld_env *env, const char *root_path, struct ld_closure *out);
void ld_closure_release(struct ld_closure *c);

#endif
