/* json.h - the one JSON reader: a small strict parser (RFC 8259) for
 * safetensors headers, reports and sweeps (the writer is json_out.h): UTF-8
 * validated, no duplicate keys, a nesting limit, no trailing data. Values
 * live in one arena owned by the document. */
#ifndef RVD_CORE_JSON_H
#define RVD_CORE_JSON_H

#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
    enum json_type type;
    int b;
    double num;
    const char *num_text; /* JSON_NUM: the literal (for exact integer parsing) */
    size_t num_len;
    char *str;           /* JSON_STR: decoded, NUL-terminated (may hold no NUL inside) */
    size_t n;            /* JSON_ARR/JSON_OBJ: number of items */
    struct json **items; /* values */
    char **keys;         /* JSON_OBJ: keys, same order */
    /* JSON_OBJ: open-addressing index over keys (slot = item index + 1, 0
     * empty; nslots a power of two, at most half full), built while parsing
     * so that duplicate detection and json_get take constant time per key:
     * a 64 MiB object of short keys parses in linear time */
    size_t *slots;
    size_t nslots;
};

/* deeper nesting is an error (recursion depth, not a hostile document's
 * choice); number literals longer than JSON_MAX_NUMBER characters or outside
 * double's range are errors too, never a rounded or infinite value */
#define JSON_MAX_DEPTH 16
#define JSON_MAX_NUMBER 400

/* Parse text[0..len). On error returns NULL and writes a message (with the
 * byte offset) into err. */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen);
void json_free(struct json *j);
const struct json *json_get(const struct json *obj, const char *key);
/* an integer in [0, 2^53]; 0 or -1 */
int json_u64(const struct json *j, unsigned long long *out);

#endif
