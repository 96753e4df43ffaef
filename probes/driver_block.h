/* driver_block.h - parsers for what keeps the amdgpu driver from loading:
 * the kernel command line, modprobe.d files and the kernel log's firmware
 * lines. Pure text in, lists out (no file access), so that unit tests can
 * feed them any syntax; probe_driver_cause.c reads the files through rootfs.
 * Every entry is appended as written, so that a summary can quote it. */
#ifndef RVD_DRIVER_BLOCK_H
#define RVD_DRIVER_BLOCK_H

#include "../src/core/util.h"

/* words of a kernel command line that stop amdgpu: nomodeset (unless
 * amdgpu.modeset=1 overrides it), amdgpu.modeset=0, modprobe.blacklist=,
 * module_blacklist= and rd.driver.blacklist= naming amdgpu, and
 * initcall_blacklist=amdgpu_init. Words after "--" belong to init. */
void db_cmdline_blocks(const char *cmdline, struct strlist *out);

/* logical lines of one modprobe.d file that stop amdgpu, as "N: text"
 * (N: the first physical line): `blacklist amdgpu`, an `install amdgpu`
 * command that never loads the module (/bin/true, /bin/false) and `options
 * amdgpu ... modeset=0`. Comment lines (#) are skipped; a trailing
 * backslash continues a line. */
void db_modprobe_blocks(const char *text, struct strlist *out);

/* firmware files named by "Direct firmware load for amdgpu/X failed" lines
 * of a kernel log, each once, in log order */
void db_firmware_failed(const char *log, struct strlist *out);

#endif
