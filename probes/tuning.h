/* tuning.h - parsers of the host settings probe_tuning.c reads: pure text
 * in, values out, for the unit tests and the fuzz harness. */
#ifndef RVD_TUNING_H
#define RVD_TUNING_H

#include <stddef.h>
#include <stdint.h>

/* the [bracketed] word of a sysfs choice file ("always [madvise] never"):
 * 0 and the word, or -EINVAL */
int tn_bracketed(const char *text, char *buf, size_t n);
/* the "limits" query: "memlock_soft N|unlimited" (bytes): 0 and *bytes
 * (-1 for unlimited), or -EINVAL */
int tn_memlock_parse(const char *text, int64_t *bytes);
/* does a kernel command line ask for pci=realloc (pci=realloc,
 * pci=realloc=on, or realloc among comma-separated pci= options; the last
 * pci= realloc word wins, realloc=off turns it off)? */
int tn_cmdline_pci_realloc(const char *cmdline);
/* cpufreq drivers whose "powersave" governor pins the lowest frequency; the
 * active intel_pstate and amd-pstate-epp drivers' "powersave" is a dynamic
 * policy steered by the energy-performance preference instead */
int tn_powersave_pins_min(const char *driver);

#endif
