/* tel_table.h - telemetry samples as aligned columns for a person at a
 * terminal (`monitor` on a tty, or --table), as `amd-smi monitor` and
 * `nvidia-smi dmon` print them: a two-line header (names, then units)
 * repeated every TEL_TABLE_HEADER_EVERY rows, a row per GPU and sample,
 * numbers right-aligned in columns sized for their widest plausible value,
 * an unknown value as "-" (never 0). The JSON lines and CSV keep every
 * value; the table shows the few a person watches while tuning. */
#ifndef RVD_TEL_TABLE_H
#define RVD_TEL_TABLE_H

#include <stdio.h>

#include "telemetry.h"

/* dmon's habit: the names stay in sight on a scrolling terminal */
#define TEL_TABLE_HEADER_EVERY 20

struct tel_table {
    long rows; /* rows printed since the last header; <0: none printed yet */
};
#define TEL_TABLE_INIT                                                                             \
    {                                                                                              \
        -1                                                                                         \
    }

/* one sample's rows, a header first when one is due (before the first
 * sample, and before a sample that would end past TEL_TABLE_HEADER_EVERY
 * rows since the last: a sample's GPUs stay together) */
void tel_write_table(FILE *out, struct tel_table *t, const struct tel_sample *s);

#endif
