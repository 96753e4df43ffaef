/* ld_resolve.c - the dynamic loader's search, read from the files (see
 * ld_resolve.h). The cache layout is glibc's sysdeps/generic/dl-cache.h:
 * a 48-byte header ("glibc-ld.so.cache" "1.1", nlibs, len_strings, flags,
 * extension_offset, 3 unused words) followed by 24-byte entries (flags, key,
 * value, osversion, hwcap); key and value are offsets of NUL-terminated
 * strings counted from the start of that header. Before glibc 2.32 the file
 * could start with the old "ld.so-1.7.0" table (16-byte header, 12-byte
 * entries), the new header following it at the next 8-byte boundary. */
#include "ld_resolve.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rootfs.h"
#include "elf_reader.h"

#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_HDR 48
#define NEW_ENT 24
#define OLD_HDR 16
#define OLD_ENT 12
#define EM_X86_64 62
#define CONF_DEPTH 4   /* nested ld.so.conf includes followed */
#define CONF_FILES 256 /* distinct ld.so.conf files read at most */
/* directories taken from ld.so.conf, LD_LIBRARY_PATH or one RPATH/RUNPATH:
 * every dependency is looked for in each, so a hostile list must not
 * multiply the work (real systems have a few dozen) */
#define SEARCH_DIRS 256

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int bad_cache(char **err, const char *what)
{
    if (err)
        *err = xasprintf("ld.so.cache: %s", what);
    return -EINVAL;
}

/* the string at `off` from `base`, NUL inside the file, else NULL */
static const char *cache_str(const unsigned char *buf, size_t len, size_t base, uint32_t off)
{
    if (base > len || off >= len - base)
        return NULL;
    const char *s = (const char *)buf + base + off;
    return memchr(s, '\0', len - base - off) ? s : NULL;
}

int ld_cache_parse(const unsigned char *buf, size_t len, struct ld_cache *c, char **err)
{
    memset(c, 0, sizeof(*c));
    if (err)
        *err = NULL;
    size_t base = 0;
    if (len >= OLD_HDR && memcmp(buf, OLD_MAGIC, strlen(OLD_MAGIC)) == 0) {
        uint32_t nold = le32(buf + 12);
        if (nold > (len - OLD_HDR) / OLD_ENT)
            return bad_cache(err, "old-format table runs past the end of the file");
        base = (OLD_HDR + (size_t)nold * OLD_ENT + 7) & ~(size_t)7;
    }
    if (base > len || len - base < NEW_HDR || memcmp(buf + base, NEW_MAGIC, strlen(NEW_MAGIC)))
        return bad_cache(err, base ? "old format only (no glibc-ld.so.cache1.1 table)"
                                   : "not a glibc-ld.so.cache1.1 file");
    uint32_t n = le32(buf + base + 20);
    if (n > (len - base - NEW_HDR) / NEW_ENT)
        return bad_cache(err, "entry table runs past the end of the file");
    c->v = xcalloc(n ? n : 1, sizeof(*c->v));
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e = buf + base + NEW_HDR + (size_t)i * NEW_ENT;
        const char *k = cache_str(buf, len, base, le32(e + 4));
        const char *v = cache_str(buf, len, base, le32(e + 8));
        if (!k || !v) {
            ld_cache_release(c);
            return bad_cache(err, "an entry names a string outside the file");
        }
        struct ld_cache_entry *ce = &c->v[c->n++];
        ce->flags = (int32_t)le32(e);
        ce->hwcap = (uint64_t)le32(e + 16) | (uint64_t)le32(e + 20) << 32;
        ce->name = xstrdup(k);
        ce->path = xstrdup(v);
    }
    return 0;
}

const char *ld_cache_lookup(const struct ld_cache *c, const char *name)
{
    const char *hw = NULL;
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].flags != LD_CACHE_FLAGS_X8664 || strcmp(c->v[i].name, name) != 0)
            continue;
        if (!c->v[i].hwcap)
            return c->v[i].path;
        if (!hw)
            hw = c->v[i].path;
    }
    return hw;
}

void ld_cache_release(struct ld_cache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        free(c->v[i].path);
    }
    free(c->v);
    memset(c, 0, sizeof(*c));
}

/* ---- ld.so.conf (only when there is no cache) --------------------------- */

static void conf_read(const char *path, struct strlist *dirs, int depth, struct strlist *seen);

static void conf_include(const char *pattern, struct strlist *dirs, int depth, struct strlist *seen)
{
    /* a relative include is relative to /etc (ldconfig's behaviour for the
     * stock "include ld.so.conf.d/\*.conf"); the glob is on the last part */
    char *full = pattern[0] == '/' ? xstrdup(pattern) : xasprintf("/etc/%s", pattern);
    char *slash = strrchr(full, '/');
    *slash = '\0';
    const char *dir = *full ? full : "/", *glob = slash + 1;
    struct strlist names = STRLIST_INIT;
    if (rootfs_list(dir, &names) == 0)
        for (size_t i = 0; i < names.n; i++)
            if (fnmatch(glob, names.v[i], FNM_PERIOD) == 0) {
                char *p = xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", names.v[i]);
                conf_read(p, dirs, depth + 1, seen);
                free(p);
            }
    strlist_release(&names);
    free(full);
}

/* each file once (an include of itself, or a fan-out of globs, cannot
 * multiply the reads), at most CONF_FILES of them */
static void conf_read(const char *path, struct strlist *dirs, int depth, struct strlist *seen)
{
    char *text = NULL;
    if (depth > CONF_DEPTH || seen->n >= CONF_FILES || strlist_has(seen, path))
        return;
    strlist_add(seen, path);
    if (rootfs_read_str(path, &text))
        return;
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    for (size_t i = 0; i < lines.n; i++) {
        char *l = lines.v[i];
        l[strcspn(l, "#")] = '\0';
        l = str_trim(l);
        if (!*l)
            continue;
        if (str_starts(l, "include") && (l[7] == ' ' || l[7] == '\t')) {
            struct strlist pats = STRLIST_INIT;
            strlist_split(&pats, l + 8, " \t");
            for (size_t j = 0; j < pats.n; j++)
                conf_include(pats.v[j], dirs, depth, seen);
            strlist_release(&pats);
        } else if (l[0] == '/' && dirs->n < SEARCH_DIRS && !strlist_has(dirs, l)) {
            strlist_add(dirs, l);
        }
    }
    strlist_release(&lines);
    free(text);
}

void ld_env_init(struct ld_env *env, const char *ld_library_path)
{
    memset(env, 0, sizeof(*env));
    if (ld_library_path) {
        strlist_split(&env->ld_library_path, ld_library_path, ":;");
        while (env->ld_library_path.n > SEARCH_DIRS)
            free(env->ld_library_path.v[--env->ld_library_path.n]);
    }
    char *buf = NULL, *err = NULL;
    size_t len = 0;
    int rc = rootfs_read("/etc/ld.so.cache", &buf, &len);
    if (rc)
        env->cache_why = xasprintf("/etc/ld.so.cache: %s", strerror(-rc));
    else if (ld_cache_parse((const unsigned char *)buf, len, &env->cache, &err))
        env->cache_why = err;
    else
        env->have_cache = 1;
    free(buf);
    if (!env->have_cache) {
        struct strlist seen = STRLIST_INIT;
        conf_read("/etc/ld.so.conf", &env->conf_dirs, 0, &seen);
        strlist_release(&seen);
    }
}

void ld_env_release(struct ld_env *env)
{
    strlist_release(&env->ld_library_path);
    ld_cache_release(&env->cache);
    free(env->cache_why);
    strlist_release(&env->conf_dirs);
    memset(env, 0, sizeof(*env));
}

/* ---- search ----------------------------------------------------------- */

/* glibc's system directories: Debian's multiarch ones, then the lib64
 * (Fedora, SUSE) and plain ones */
static const char *const default_dirs[] = {"/lib/x86_64-linux-gnu",
                                           "/usr/lib/x86_64-linux-gnu",
                                           "/lib64",
                                           "/usr/lib64",
                                           "/lib",
                                           "/usr/lib"};

/* a file ld.so would accept: ELF64 for x86-64 (it skips a wrong-class or
 * foreign-machine file and goes on searching) */
static int usable(const char *path)
{
    char *host = NULL;
    if (rootfs_host_path(path, &host))
        return 0;
    struct elf_file ef;
    int ok = elf_open(&ef, host, NULL) == 0;
    if (ok) {
        ok = ef.machine == EM_X86_64;
        elf_close(&ef);
    }
    free(host);
    return ok;
}

static char *dirname_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s != path ? xstrndup(path, (size_t)(s - path)) : xstrdup("/");
}

/* DIR/name when usable, with $ORIGIN and ${ORIGIN} replaced by `origin` */
static char *try_dir(const char *dir, const char *origin, const char *name)
{
    struct strbuf sb = STRBUF_INIT;
    for (const char *p = dir; *p;) {
        if (origin && str_starts(p, "$ORIGIN")) {
            strbuf_adds(&sb, origin);
            p += 7;
        } else if (origin && str_starts(p, "${ORIGIN}")) {
            strbuf_adds(&sb, origin);
            p += 9;
        } else {
            strbuf_addc(&sb, *p++);
        }
    }
    if (!sb.len || sb.buf[0] != '/') { /* a relative entry: relative to the cwd, not judged */
        strbuf_release(&sb);
        return NULL;
    }
    while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
        sb.buf[--sb.len] = '\0';
    strbuf_addf(&sb, "/%s", name);
    if (usable(sb.buf))
        return strbuf_detach(&sb);
    strbuf_release(&sb);
    return NULL;
}

static char *try_list(const char *list, const char *origin, const char *name)
{
    struct strlist dirs = STRLIST_INIT;
    strlist_split(&dirs, list, ":");
    char *r = NULL;
    for (size_t i = 0; i < dirs.n && i < SEARCH_DIRS && !r; i++)
        r = try_dir(dirs.v[i], origin, name);
    strlist_release(&dirs);
    return r;
}

/* steps after the requester's RPATH chain: LD_LIBRARY_PATH, RUNPATH, cache or
 * ld.so.conf, default dirs */
static char *search_rest(const struct ld_env *env, const char *name, const char *runpath,
                         const char *origin, const char **how)
{
    char *r = NULL;
    for (size_t i = 0; i < env->ld_library_path.n && !r; i++)
        r = try_dir(env->ld_library_path.v[i], NULL, name);
    if (r) {
        *how = "LD_LIBRARY_PATH";
        return r;
    }
    if (runpath && (r = try_list(runpath, origin, name))) {
        *how = "RUNPATH";
        return r;
    }
    if (env->have_cache) {
        const char *p = ld_cache_lookup(&env->cache, name);
        if (p && usable(p)) {
            *how = "ld.so.cache";
            return xstrdup(p);
        }
    } else {
        for (size_t i = 0; i < env->conf_dirs.n && !r; i++)
            r = try_dir(env->conf_dirs.v[i], NULL, name);
        if (r) {
            *how = "ld.so.conf";
            return r;
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(default_dirs) && !r; i++)
        r = try_dir(default_dirs[i], NULL, name);
    if (r)
        *how = "default directories";
    return r;
}

char *ld_search_program(const struct ld_env *env, const char *name, const char **how)
{
    *how = "missing";
    if (strchr(name, '/')) {
        *how = "path";
        return usable(name) ? xstrdup(name) : NULL;
    }
    return search_rest(env, name, NULL, NULL, how);
}

/* search `name` for object `i` of the closure */
static char *search_for(const struct ld_env *env, const struct ld_closure *c, size_t i,
                        const char *name, const char **how)
{
    const struct ld_object *o = &c->v[i];
    *how = "missing";
    if (strchr(name, '/')) {
        *how = "path";
        return usable(name) ? xstrdup(name) : NULL;
    }
    if (!o->runpath)
        for (int j = (int)i; j >= 0; j = c->v[j].loader) {
            if (!c->v[j].rpath)
                continue;
            char *origin = dirname_of(c->v[j].path);
            char *r = try_list(c->v[j].rpath, origin, name);
            free(origin);
            if (r) {
                *how = "RPATH";
                return r;
            }
        }
    char *origin = dirname_of(o->path);
    char *r = search_rest(env, name, o->runpath, origin, how);
    free(origin);
    return r;
}

static size_t add_object(struct ld_closure *c, const char *path, const char *real, int loader)
{
    c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
    struct ld_object *o = &c->v[c->n];
    memset(o, 0, sizeof(*o));
    o->path = xstrdup(path);
    o->real = xstrdup(real);
    o->loader = loader;
    return c->n++;
}

/* read the object's dynamic section into it */
static void load_object(struct ld_object *o)
{
    char *host = NULL, *err = NULL;
    struct elf_file ef;
    int rc = rootfs_host_path(o->path, &host);
    if (rc) {
        o->error = xasprintf("%s: %s", o->path, strerror(-rc));
        return;
    }
    if (elf_open(&ef, host, &err)) {
        o->error = xasprintf("%s: %s", o->path,
                             err && strchr(err, ':') ? strchr(err, ':') + 2 : "unreadable");
        free(err);
        free(host);
        return;
    }
    struct elf_dyn d;
    if (elf_read_dynamic(&ef, &d, &err) == 0) {
        o->needed = d.needed;
        o->rpath = d.rpath;
        o->runpath = d.runpath;
        free(d.soname);
    } else {
        o->error = xasprintf("%s: %s", o->path, err ? err : "unreadable dynamic section");
        free(err);
    }
    elf_close(&ef);
    free(host);
}

static int find_real(const struct ld_closure *c, const char *real)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].real, real) == 0)
            return 1;
    return 0;
}

void ld_closure_build(const struct ld_env *env, const char *root_path, struct ld_closure *out)
{
    memset(out, 0, sizeof(*out));
    char *real = NULL;
    if (rootfs_realpath(root_path, &real))
        real = xstrdup(root_path);
    add_object(out, root_path, real, -1);
    free(real);
    for (size_t i = 0; i < out->n; i++) {
        load_object(&out->v[i]);
        for (size_t k = 0; k < out->v[i].needed.n; k++) {
            const char *how;
            char *p = search_for(env, out, i, out->v[i].needed.v[k], &how);
            strlist_add(&out->v[i].found, p ? p : "");
            strlist_add(&out->v[i].how, how);
            if (!p)
                continue;
            char *r = NULL;
            if (rootfs_realpath(p, &r))
                r = xstrdup(p);
            if (!find_real(out, r)) {
                if (out->n < LD_MAX_OBJECTS)
                    add_object(out, p, r, (int)i);
                else
                    out->truncated = 1;
            }
            free(r);
            free(p);
        }
    }
}

void ld_closure_release(struct ld_closure *c)
{
    for (size_t i = 0; i < c->n; i++) {
        struct ld_object *o = &c->v[i];
        free(o->path);
        free(o->real);
        free(o->rpath);
        free(o->runpath);
        free(o->error);
        strlist_release(&o->needed);
        strlist_release(&o->found);
        strlist_release(&o->how);
    }
    free(c->v);
    memset(c, 0, sizeof(*c));
}
