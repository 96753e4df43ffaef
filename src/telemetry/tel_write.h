/* tel_write.h - a telemetry sample as one JSON line
 * (reports/monitor-schema.json) or as CSV rows, one per GPU, under a fixed
 * header. Unknown values are null (JSON) or an empty cell (CSV), never 0. */
#ifndef RVD_TEL_WRITE_H
#define RVD_TEL_WRITE_H

#include <stdio.h>

#include "telemetry.h"

#define TEL_MONITOR_SCHEMA "rocm-vla-doctor/monitor/1"

void tel_write_json(FILE *out, const struct tel_sample *s, long index);
void tel_write_csv_header(FILE *out);
void tel_write_csv(FILE *out, const struct tel_sample *s, long index);

#endif
