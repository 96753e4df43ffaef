/* report_sweep.h - a `bench --sweep` JSON report (schema
 * rocm-vla-doctor-sweep/1, reports/sweep-schema.json) as an HTML page or a
 * markdown table: what `report --html/--markdown SWEEP.json` and
 * `bench --sweep --html FILE` write. One renderer reading the JSON, so the
 * page made later from the file is the page the run made.
 *
 * The document is checked before anything is written: every field the page
 * shows must have the schema's type (a number where a number belongs, null
 * where the schema allows unknown). A field of the wrong type is a bad
 * report (a message naming configs[i].field), never a blank or a 0 cell. */
#ifndef RVD_REPORT_SWEEP_H
#define RVD_REPORT_SWEEP_H

#include <stdio.h>

#include "../core/json.h"

#define SWEEP_SCHEMA "rocm-vla-doctor-sweep/1"

/* 1 when root is a sweep report by its "schema" member */
int report_sweep_is(const struct json *root);
/* 0 when every field the renderers read has its schema type; else -1
 * after printing why, prefixed by name (the file) */
int report_sweep_validate(const struct json *root, const char *name);
/* a validated document; 0, or -1 on a write error */
int report_sweep_html(FILE *f, const struct json *root);
int report_sweep_markdown(FILE *f, const struct json *root);

#endif
