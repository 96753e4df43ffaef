/* json_out.h - the one JSON writer, used by every JSON the tool writes (the
 * report, diff, fleet, monitor, the dashboard's recording, bench, sweep,
 * soak, safetensors headers); its reader is json.h. Strings are always
 * valid UTF-8 and show nothing a terminal acts on: a cat of the file is
 * safe, and a parser gets the exact text back. */
#ifndef RVD_CORE_JSON_OUT_H
#define RVD_CORE_JSON_OUT_H

#include <stdio.h>

#include "json.h"

struct strbuf;

/* s as a JSON string with its quotes (NULL: null): " and \ escaped; C0,
 * DEL, C1 and the bidi controls (escape.h) as \u00XX / \u202e; every
 * ill-formed UTF-8 subpart as U+FFFD */
void json_str(struct strbuf *sb, const char *s);
void json_write_string(FILE *out, const char *s);
/* "key": (the key escaped as a string, then a colon and a space) */
void json_write_key(FILE *out, const char *key);
/* v with `digits` significant digits (%.*g), '.' whatever the locale;
 * null for NaN and infinities (JSON has no spelling for them) */
void json_write_number(FILE *out, double v, int digits);
/* a parsed value written back (NULL: null); numbers as their literal */
void json_write_value(FILE *out, const struct json *v);

#endif
