/* elf_reader.h - a bounds-checked, read-only view of an ELF64 file.
 *
 * Used by the offload-bundle scanner on libraries of hundreds of MB: the file
 * is mmap'ed read-only (nothing is copied) and every offset read from it is
 * checked against the file size before use, so that a truncated or corrupt
 * file gives an error message naming the file, never a crash. Only what the
 * scanner needs: the section headers and section lookup by name. */
#ifndef RVD_ELF_READER_H
#define RVD_ELF_READER_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

struct elf_file {
    char *path;               /* for messages */
    const unsigned char *map; /* whole file, PROT_READ */
    size_t size;
    uint64_t shoff;                 /* section header table */
    uint64_t shnum;                 /* number of section headers (extended numbering resolved) */
    uint64_t shstr_off, shstr_size; /* the section-name string table */
    uint16_t machine;               /* e_machine: 62 for x86-64 */
};

struct elf_section {
    uint64_t offset, size; /* in the file; size 0 for SHT_NOBITS */
    uint32_t type;
};

/* Map `host_path` and validate the ELF64 little-endian header and section
 * table. 0, or -errno with *err set to "<path>: <what is wrong>" (owned). */
int elf_open(struct elf_file *ef, const char *host_path, char **err);
void elf_close(struct elf_file *ef);

/* the first section called `name`: 0, -ENOENT when absent, or -EINVAL with
 * *err set (owned) when its header points outside the file */
int elf_find_section(const struct elf_file *ef, const char *name, struct elf_section *out,
                     char **err);

/* the dynamic section's DT_NEEDED names (in order), DT_SONAME, DT_RPATH and
 * DT_RUNPATH (NULL when absent), read through the .dynamic and .dynstr
 * sections: what the dynamic loader needs to find a library's dependencies */
struct elf_dyn {
    struct strlist needed;
    char *soname, *rpath, *runpath;
};
/* 0 (a file without .dynamic gives an empty result), or -EINVAL with *err
 * (owned) when .dynamic or a string lies outside the file */
int elf_read_dynamic(const struct elf_file *ef, struct elf_dyn *out, char **err);
void elf_dyn_release(struct elf_dyn *d);

#endif
