/* elf_reader.c - bounds-checked ELF64 section lookup over a read-only mmap
 * (see elf_reader.h). Field offsets are those of the System V gABI ELF64
 * header and section header; values are read little-endian explicitly so
 * that the reader does not depend on the host's byte order. */
#include "elf_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/util.h"

#define EHDR_SIZE 64
#define SHDR_SIZE 64
#define SHT_NOBITS 8
#define SHN_UNDEF 0
#define SHN_XINDEX 0xffffu

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* [off, off+len) lies inside [0, size) without overflow */
static int in_file(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

static int fail(char **err, int rc, const char *path, const char *what)
{
    if (err)
        *err = xasprintf("%s: %s", path, what);
    return rc;
}

static const unsigned char *shdr(const struct elf_file *ef, uint64_t i)
{
    return ef->map + ef->shoff + i * SHDR_SIZE; /* i < shnum, checked by elf_open */
}

int elf_open(struct elf_file *ef, const char *host_path, char **err)
{
    memset(ef, 0, sizeof(*ef));
    if (err)
        *err = NULL;
    int fd = open(host_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        return fail(err, -e, host_path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(err, -EINVAL, host_path, "not a regular file");
    }
    if ((uint64_t)st.st_size < EHDR_SIZE) {
        close(fd);
        return fail(err, -EINVAL, host_path, "truncated: shorter than an ELF64 header");
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd); /* the mapping keeps the file */
    if (m == MAP_FAILED)
        return fail(err, -e, host_path, strerror(e));
    ef->map = m;
    ef->size = (size_t)st.st_size;
    ef->path = xstrdup(host_path);

    const unsigned char *h = ef->map;
    const char *bad = NULL;
    if (memcmp(h, "\177ELF", 4) != 0)
        bad = "not an ELF file";
    else if (h[4] != 2)
        bad = "not ELF64";
    else if (h[5] != 1)
        bad = "not little-endian ELF";
    if (bad) {
        elf_close(ef);
        return fail(err, -EINVAL, host_path, bad);
    }
    ef->machine = rd16(h + 18);
    ef->shoff = rd64(h + 40);
    uint16_t shentsize = rd16(h + 58);
    uint64_t shnum = rd16(h + 60);
    uint32_t shstrndx = rd16(h + 62);
    if (ef->shoff == 0) {
        elf_close(ef);
        return fail(err, -EINVAL, host_path, "no section header table (stripped of sections)");
    }
    if (shentsize != SHDR_SIZE || !in_file(ef->shoff, SHDR_SIZE, ef->size)) {
        elf_close(ef);
        return fail(err, -EINVAL, host_path,
                    shentsize != SHDR_SIZE ? "section header size is not 64"
                                           : "section header table lies beyond the end of file");
    }
    /* extended numbering: the real counts live in section 0 */
    const unsigned char *s0 = ef->map + ef->shoff;
    if (shnum == 0)
        shnum = rd64(s0 + 32);
    if (shstrndx == SHN_XINDEX)
        shstrndx = rd32(s0 + 40);
    if (shnum == 0 || shnum > (ef->size - ef->shoff) / SHDR_SIZE) {
        elf_close(ef);
        return fail(err, -EINVAL, host_path,
                    "section header table lies beyond the end of file (truncated?)");
    }
    ef->shnum = shnum;
    if (shstrndx == SHN_UNDEF || shstrndx >= shnum) {
        elf_close(ef);
        return fail(err, -EINVAL, host_path, "no valid section name table");
    }
    const unsigned char *ss = shdr(ef, shstrndx);
    ef->shstr_off = rd64(ss + 24);
    ef->shstr_size = rd64(ss + 32);
    if (rd32(ss + 4) == SHT_NOBITS || !in_file(ef->shstr_off, ef->shstr_size, ef->size)) {
        elf_close(ef);
        return fail(err, -EINVAL, host_path, "section name table lies beyond the end of file");
    }
    return 0;
}

void elf_close(struct elf_file *ef)
{
    if (ef->map)
        munmap((void *)ef->map, ef->size);
    free(ef->path);
    memset(ef, 0, sizeof(*ef));
}

int elf_find_section(const struct elf_file *ef, const char *name, struct elf_section *out,
                     char **err)
{
    size_t nlen = strlen(name);
    const char *names = (const char *)ef->map + ef->shstr_off;
    if (err)
        *err = NULL;
    for (uint64_t i = 1; i < ef->shnum; i++) {
        const unsigned char *s = shdr(ef, i);
        uint32_t noff = rd32(s);
        /* the name must fit, NUL included, inside the string table */
        if (noff >= ef->shstr_size || ef->shstr_size - noff < nlen + 1)
            continue;
        if (memcmp(names + noff, name, nlen + 1) != 0)
            continue;
        out->type = rd32(s + 4);
        out->offset = rd64(s + 24);
        out->size = out->type == SHT_NOBITS ? 0 : rd64(s + 32);
        if (!in_file(out->offset, out->size, ef->size)) {
            if (err)
                *err = xasprintf("%s: section %s (offset %llu, size %llu) lies beyond the end "
                                 "of file (%zu bytes)",
                                 ef->path, name, (unsigned long long)out->offset,
                                 (unsigned long long)out->size, ef->size);
            return -EINVAL;
        }
        return 0;
    }
    return -ENOENT;
}

#define DT_NULL 0
#define DT_NEEDED 1
#define DT_SONAME 14
#define DT_RPATH 15
#define DT_RUNPATH 29

/* a NUL-terminated string at `off` inside the string section, else NULL */
static const char *dyn_str(const struct elf_file *ef, const struct elf_section *str, uint64_t off)
{
    if (off >= str->size)
        return NULL;
    const char *s = (const char *)ef->map + str->offset + off;
    return memchr(s, '\0', str->size - off) ? s : NULL;
}

int elf_read_dynamic(const struct elf_file *ef, struct elf_dyn *out, char **err)
{
    memset(out, 0, sizeof(*out));
    if (err)
        *err = NULL;
    struct elf_section dyn, str;
    int rc = elf_find_section(ef, ".dynamic", &dyn, err);
    if (rc == -ENOENT)
        return 0; /* a static object: no dependencies */
    if (rc)
        return rc;
    rc = elf_find_section(ef, ".dynstr", &str, err);
    if (rc == -ENOENT)
        return fail(err, -EINVAL, ef->path, ".dynamic without .dynstr");
    if (rc)
        return rc;
    for (uint64_t o = 0; o + 16 <= dyn.size; o += 16) {
        const unsigned char *e = ef->map + dyn.offset + o;
        uint64_t tag = rd64(e), val = rd64(e + 8);
        if (tag == DT_NULL)
            break;
        if (tag != DT_NEEDED && tag != DT_SONAME && tag != DT_RPATH && tag != DT_RUNPATH)
            continue;
        const char *s = dyn_str(ef, &str, val);
        if (!s) {
            elf_dyn_release(out);
            if (err)
                *err = xasprintf("%s: dynamic entry %llu names a string outside .dynstr", ef->path,
                                 (unsigned long long)tag);
            return -EINVAL;
        }
        if (tag == DT_NEEDED)
            strlist_add(&out->needed, s);
        else {
            char **slot = tag == DT_SONAME  ? &out->soname
                          : tag == DT_RPATH ? &out->rpath
                                            : &out->runpath;
            free(*slot);
            *slot = xstrdup(s);
        }
    }
    return 0;
}

void elf_dyn_release(struct elf_dyn *d)
{
    strlist_release(&d->needed);
    free(d->soname);
    free(d->rpath);
    free(d->runpath);
    memset(d, 0, sizeof(*d));
}
