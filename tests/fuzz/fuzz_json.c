/* fuzz_json.c - the strict JSON parser (src/core/json.c) used by safetensors
 * headers and diff's reports: parse, then look every key of every object up
 * again and read every number as an integer. */
#include "../../src/core/json.h"
#include "fuzz.h"

static void walk(const struct json *j, int depth)
{
    if (!j || depth > JSON_MAX_DEPTH + 1)
        return;
    unsigned long long u;
    if (j->type == JSON_NUM)
        json_u64(j, &u);
    if (j->type == JSON_OBJ)
        for (size_t i = 0; i < j->n; i++)
            if (json_get(j, j->keys[i]) == NULL)
                abort(); /* a key the parser kept must be found */
    if (j->type == JSON_OBJ || j->type == JSON_ARR)
        for (size_t i = 0; i < j->n; i++)
            walk(j->items[i], depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    struct json *j = json_parse((const char *)data, size, err, sizeof(err));
    walk(j, 0);
    json_free(j);
    return 0;
}
