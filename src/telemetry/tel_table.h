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
    /* per GPU, the previous row's residency counters (the res column is
     * their growth since then) */
    size_t nprev;
    struct tel_gpu *prev;
};
#define TEL_TABLE_INIT                                                                             \
    {                                                                                              \
        -1, 0, NULL                                                                                \
    }

/* one sample's rows, a header first when one is due (before the first
 * sample, and before a sample that would end past TEL_TABLE_HEADER_EVERY
 * rows since the last: a sample's GPUs stay together) */
void tel_write_table(FILE *out, struct tel_table *t, const struct tel_sample *s);
void tel_table_release(struct tel_table *t);

/* the res column of GPU g between rows: the throttler residency counters
 * that grew from prev to cur as a share of the accumulation counter's
 * growth ("thm:12%,ppt:3%"), as counts without it (v3_0: "thm:+5"),
 * "none" when none grew, "-" when no counter is known in both. One token,
 * no spaces: the cells of a row split on blanks. */
void tel_residency_cell(const struct tel_gpu *prev, const struct tel_gpu *cur, char *buf, size_t n);

#endif
