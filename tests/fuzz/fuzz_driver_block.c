/* fuzz_driver_block.c - what keeps amdgpu from loading (probes/driver_block.c):
 * the kernel command line, one modprobe.d file, the kernel log's firmware
 * lines. The input is up to three NUL-separated parts, one per parser, and
 * the first part also goes to all three. */
#include "../../probes/driver_block.h"
#include "fuzz.h"

static void all(const char *text)
{
    struct strlist out = STRLIST_INIT;
    db_cmdline_blocks(text, &out);
    strlist_release(&out);
    db_modprobe_blocks(text, &out);
    strlist_release(&out);
    db_firmware_failed(text, &out);
    strlist_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pos = 0;
    char *cmdline = fuzz_part(data, size, &pos);
    char *modprobe = fuzz_part(data, size, &pos);
    char *log = fuzz_part(data, size, &pos);
    struct strlist out = STRLIST_INIT;
    db_cmdline_blocks(cmdline, &out);
    strlist_release(&out);
    if (modprobe)
        db_modprobe_blocks(modprobe, &out);
    strlist_release(&out);
    if (log)
        db_firmware_failed(log, &out);
    strlist_release(&out);
    all(cmdline);
    free(cmdline);
    free(modprobe);
    free(log);
    return 0;
}
