/* fuzz_elf.c - the ELF reader (src/binscan/elf_reader.c) and the offload-bundle scan
 * of a whole library file (src/binscan/offload_bundle.c, offload_scan_file): the
 * input is written to a file and mapped as the binary scanner maps a
 * library; its dynamic section as ld_resolve.c reads it. */
#include <stdio.h>
#include <unistd.h>

#include "../../src/binscan/elf_reader.h"
#include "../../src/binscan/offload_bundle.h"
#include "fuzz.h"

static char path[64];

static void cleanup(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof(path), "/tmp/rvd-fuzz-elf-XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
        atexit(cleanup);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
    struct elf_file ef;
    char *err = NULL;
    if (elf_open(&ef, path, &err) == 0) {
        static const char *const names[] = {".hip_fatbin", ".hipFatBinSegment", ".shstrtab", ""};
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            struct elf_section sec;
            char *serr = NULL;
            elf_find_section(&ef, names[i], &sec, &serr);
            free(serr);
        }
        struct elf_dyn dyn;
        char *derr = NULL;
        if (elf_read_dynamic(&ef, &dyn, &derr) == 0)
            elf_dyn_release(&dyn);
        free(derr);
        elf_close(&ef);
    }
    free(err);
    struct offload_scan scan;
    memset(&scan, 0, sizeof(scan));
    err = NULL;
    offload_scan_file(path, &scan, &err);
    free(err);
    offload_scan_release(&scan);
    return 0;
}
